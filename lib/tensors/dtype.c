#include "dtype.h"

#include <math.h>

const struct dtype_info dtype_table[DT_COUNT] = {
	[DT_FLOAT64] = { "float64", "torch.float64", "DoubleStorage", "f8", 8, DTC_FLOAT },
	[DT_FLOAT32] = { "float32", "torch.float32", "FloatStorage", "f4", 4, DTC_FLOAT },
	[DT_FLOAT16] = { "float16", "torch.float16", "HalfStorage", "f2", 2, DTC_FLOAT },
	[DT_BFLOAT16] = { "bfloat16", "torch.bfloat16", "BFloat16Storage", NULL, 2, DTC_FLOAT },
	[DT_FLOAT8_E4M3FN] = { "float8_e4m3fn", "torch.float8_e4m3fn", NULL, NULL, 1, DTC_FLOAT },
	[DT_FLOAT8_E5M2] = { "float8_e5m2", "torch.float8_e5m2", NULL, NULL, 1, DTC_FLOAT },
	[DT_INT64] = { "int64", "torch.int64", "LongStorage", "i8", 8, DTC_SIGNED },
	[DT_INT32] = { "int32", "torch.int32", "IntStorage", "i4", 4, DTC_SIGNED },
	[DT_INT16] = { "int16", "torch.int16", "ShortStorage", "i2", 2, DTC_SIGNED },
	[DT_INT8] = { "int8", "torch.int8", "CharStorage", "i1", 1, DTC_SIGNED },
	[DT_UINT64] = { "uint64", "torch.uint64", NULL, "u8", 8, DTC_UNSIGNED },
	[DT_UINT32] = { "uint32", "torch.uint32", NULL, "u4", 4, DTC_UNSIGNED },
	[DT_UINT16] = { "uint16", "torch.uint16", NULL, "u2", 2, DTC_UNSIGNED },
	[DT_UINT8] = { "uint8", "torch.uint8", "ByteStorage", "u1", 1, DTC_UNSIGNED },
	[DT_BOOL] = { "bool", "torch.bool", "BoolStorage", "b1", 1, DTC_BOOL },
	[DT_COMPLEX64] = { "complex64", "torch.complex64", "ComplexFloatStorage", "c8", 8, DTC_COMPLEX },
	[DT_COMPLEX128] = { "complex128", "torch.complex128", "ComplexDoubleStorage", "c16", 16, DTC_COMPLEX },
};

static bool same(const char *s, size_t n, const char *w)
{
	return w && strlen(w) == n && !memcmp(s, w, n);
}

int dtype_from_torch(const char *s, size_t n)
{
	for (int d = 0; d < DT_COUNT; d++)
		if (same(s, n, dtype_table[d].torch) || same(s, n, dtype_table[d].name))
			return d;
	return -1;
}

int dtype_from_storage(const char *s, size_t n)
{
	for (int d = 0; d < DT_COUNT; d++)
		if (same(s, n, dtype_table[d].storage))
			return d;
	return -1;
}

int dtype_from_npy(const char *descr, size_t n, bool *big_endian)
{
	bool big = false;
	if (n && (descr[0] == '<' || descr[0] == '>' || descr[0] == '|' || descr[0] == '=')) {
		big = descr[0] == '>';
		descr++;
		n--;
	}
	for (int d = 0; d < DT_COUNT; d++) {
		if (!same(descr, n, dtype_table[d].npy))
			continue;
		/* one-byte types have no byte order to speak of */
		*big_endian = dtype_table[d].size > 1 && big;
		return d;
	}
	/* numpy's other spellings of the same types */
	static const struct { const char *s; enum dtype d; } alias[] = {
		{ "?", DT_BOOL }, { "b", DT_INT8 }, { "B", DT_UINT8 }, { "d", DT_FLOAT64 }, { "f", DT_FLOAT32 },
		{ "e", DT_FLOAT16 }, { "q", DT_INT64 }, { "l", DT_INT64 }, { "i", DT_INT32 }, { "h", DT_INT16 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(alias); i++)
		if (same(descr, n, alias[i].s)) {
			*big_endian = dtype_table[alias[i].d].size > 1 && big;
			return (int)alias[i].d;
		}
	return -1;
}

static float bits_float(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static uint32_t float_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

float dtype_half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1F, man = h & 0x3FF;
	if (exp == 0x1F)
		return bits_float(sign | 0x7F800000u | (man << 13)); /* inf, nan (payload kept) */
	if (exp == 0) {
		/* zero or subnormal: man * 2^-24, exact in float */
		float v = (float)man * 0x1p-24f;
		return sign ? -v : v;
	}
	return bits_float(sign | ((exp + 112) << 23) | (man << 13));
}

float dtype_bf16_to_float(uint16_t b)
{
	return bits_float((uint32_t)b << 16);
}

float dtype_f8e4m3fn_to_float(uint8_t v)
{
	unsigned sign = v >> 7, exp = (v >> 3) & 0xF, man = v & 7;
	float r;
	if (exp == 0xF && man == 7)
		return NAN; /* e4m3fn: no infinities, one NaN pattern per sign */
	if (exp == 0)
		r = (float)man * 0x1p-9f; /* subnormal: man/8 * 2^-6 */
	else
		r = ldexpf(1.0f + (float)man / 8.0f, (int)exp - 7);
	return sign ? -r : r;
}

float dtype_f8e5m2_to_float(uint8_t v)
{
	/* e5m2 is the top byte of a float16 */
	return dtype_half_to_float((uint16_t)(v << 8));
}

uint16_t dtype_float_to_bf16(float f)
{
	uint32_t u = float_bits(f);
	if (isnan(f))
		return (uint16_t)((u >> 16) | 0x40); /* quiet NaN, sign kept */
	u += 0x7FFFu + ((u >> 16) & 1u);        /* round to nearest even */
	return (uint16_t)(u >> 16);
}

uint16_t dtype_float_to_half(float f)
{
	uint32_t u = float_bits(f);
	uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
	uint32_t au = u & 0x7FFFFFFFu;
	if (au > 0x7F800000u)
		return sign | 0x7E00; /* NaN */
	if (au >= 0x477FF000u)
		return sign | 0x7C00; /* rounds to or beyond 65520: infinity */
	if (au < 0x38800000u) {
		/* below the smallest normal half: a subnormal, rounded to nearest even in units of 2^-24 */
		float a = bits_float(au);
		float scaled = a * 0x1p24f; /* exact: a power-of-two scaling */
		float r = rintf(scaled);    /* the default rounding mode: nearest even */
		return sign | (uint16_t)r;
	}
	/* normal: drop 13 mantissa bits, rounding to nearest even */
	uint32_t half = au - 0x38000000u; /* rebias the exponent: 127 -> 15 */
	half += 0xFFFu + ((half >> 13) & 1u);
	return sign | (uint16_t)(half >> 13);
}

uint8_t dtype_float_to_f8e5m2(float f)
{
	/* the top byte of the float16, rounded to nearest even on the dropped byte */
	uint16_t h = dtype_float_to_half(f);
	if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF))
		return (uint8_t)((h >> 8) | 0x02); /* NaN stays NaN */
	uint16_t r = (uint16_t)(h + 0x7F + ((h >> 8) & 1));
	if ((h & 0x7FFF) < 0x7C00 && (r & 0x7C00) == 0x7C00)
		return (uint8_t)((h >> 8 & 0x80) | 0x7C); /* rounded up to infinity */
	return (uint8_t)(r >> 8);
}

uint8_t dtype_float_to_f8e4m3fn(float f)
{
	uint8_t sign = signbit(f) ? 0x80 : 0;
	float a = fabsf(f);
	int e;
	if (isnan(f) || a >= 480.0f)
		return sign | 0x7F; /* what would round beyond 448 is NaN (e4m3fn has no infinity), as torch does */
	if (a < 0x1p-6f) {
		/* subnormal: units of 2^-9 */
		float r = rintf(a * 0x1p9f);
		return sign | (uint8_t)r; /* r == 8 is the smallest normal: the encoding carries over */
	}
	frexpf(a, &e); /* a = m * 2^e, m in [0.5, 1) */
	int exp = e - 1;  /* a = 1.xxx * 2^exp */
	float man = rintf((a / ldexpf(1.0f, exp) - 1.0f) * 8.0f);
	if (man >= 8.0f) {
		man = 0.0f;
		exp++;
	}
	unsigned bits = (unsigned)((exp + 7) << 3) | (unsigned)man;
	if (bits > 0x7E)
		return sign | 0x7F;
	return sign | (uint8_t)bits;
}

double dtype_to_double(enum dtype d, const void *elem)
{
	switch (d) {
	case DT_FLOAT64: { double v; memcpy(&v, elem, 8); return v; }
	case DT_FLOAT32: { float v; memcpy(&v, elem, 4); return v; }
	case DT_FLOAT16: { uint16_t v; memcpy(&v, elem, 2); return dtype_half_to_float(v); }
	case DT_BFLOAT16: { uint16_t v; memcpy(&v, elem, 2); return dtype_bf16_to_float(v); }
	case DT_FLOAT8_E4M3FN: return dtype_f8e4m3fn_to_float(*(const uint8_t *)elem);
	case DT_FLOAT8_E5M2: return dtype_f8e5m2_to_float(*(const uint8_t *)elem);
	case DT_INT64: { int64_t v; memcpy(&v, elem, 8); return (double)v; }
	case DT_INT32: { int32_t v; memcpy(&v, elem, 4); return v; }
	case DT_INT16: { int16_t v; memcpy(&v, elem, 2); return v; }
	case DT_INT8: return *(const int8_t *)elem;
	case DT_UINT64: { uint64_t v; memcpy(&v, elem, 8); return (double)v; }
	case DT_UINT32: { uint32_t v; memcpy(&v, elem, 4); return v; }
	case DT_UINT16: { uint16_t v; memcpy(&v, elem, 2); return v; }
	case DT_UINT8: return *(const uint8_t *)elem;
	case DT_BOOL: return *(const uint8_t *)elem != 0;
	case DT_COMPLEX64: { float v; memcpy(&v, elem, 4); return v; }
	case DT_COMPLEX128: { double v; memcpy(&v, elem, 8); return v; }
	case DT_COUNT: break;
	}
	return NAN;
}

void dtype_swap(void *data, size_t n, enum dtype d)
{
	unsigned char *p = data;
	unsigned size = dtype_table[d].size;
	/* complex numbers swap each of their two halves */
	unsigned part = dtype_table[d].cls == DTC_COMPLEX ? size / 2 : size;
	if (part <= 1)
		return;
	for (size_t i = 0; i < n * size / part; i++, p += part)
		for (unsigned a = 0, b = part - 1; a < b; a++, b--) {
			unsigned char t = p[a];
			p[a] = p[b];
			p[b] = t;
		}
}
