#include "tmetric.h"
#include "../msprobe/pyfmt.h"
#include "../core/xalloc.h"
#include "../tensors/xxh3wide.h"

#include <float.h>
#include <math.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#define CHUNK 4096

/*
 * The memory of one comparison, allocated as its paths need it and freed
 * at its end: it hangs from here rather than from the paths' locals, so
 * that a fault of a file's mapping, which jumps out of the middle of a
 * path (tmetric_compare_files()), leaks nothing.
 */
struct work {
	void *raw[2];    /* per side: CHUNK elements of up to 16 bytes */
	void *f64[2];    /* CHUNK doubles */
	void *f32[2];    /* CHUNK floats */
	void *block[2];  /* the one pass's blocks (BLOCK elements) */
	XXH3_state_t *hash[2];
};

/* The buffer of a slot, allocated when first asked for (each slot is always asked for with one size). */
static void *work_buffer(void **slot, size_t size)
{
	if (!*slot)
		*slot = xmalloc(size);
	return *slot;
}

/* Side i's hash state, reset. */
static XXH3_state_t *work_hash(struct work *w, int i)
{
	if (!w->hash[i])
		w->hash[i] = XXH3_createState();
	XXH3_64bits_reset(w->hash[i]);
	return w->hash[i];
}

static void work_release(struct work *w)
{
	for (int i = 0; i < 2; i++) {
		free(w->raw[i]);
		free(w->f64[i]);
		free(w->f32[i]);
		free(w->block[i]);
		XXH3_freeState(w->hash[i]);
	}
	memset(w, 0, sizeof(*w));
}

/*
 * Loops that do not depend on order are also compiled for AVX2 and chosen
 * at run time (GCC's function multi-versioning, x86-64 Linux only).
 */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#define WIDE_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define VECTOR_CLONES
#define WIDE_CLONES
#endif

/* For tests: the widest loops allowed (tmetric_kernel()). */
static enum tm_kernel kernel_allowed = TM_KERNEL_BEST;

void tmetric_kernel(enum tm_kernel k)
{
	kernel_allowed = k;
}

/* ---- cells ------------------------------------------------------------------ */

static void set_cell(struct tmetric *m, enum tm_cell c, const char *text)
{
	snprintf(m->cell[c], sizeof(m->cell[c]), "%s", text);
}

static void fill_cells(struct tmetric *m, const char *text)
{
	for (int c = 0; c < TM_NCELLS; c++)
		set_cell(m, (enum tm_cell)c, text);
}

static void add_note(struct tmetric *m, const char *note)
{
	size_t used = strlen(m->notes);
	snprintf(m->notes + used, sizeof(m->notes) - used, "%s", note);
}

/* A float cell as msprobe's CSV shows it: repr, " inf" / " -inf", "Nan". */
static void set_number(struct tmetric *m, enum tm_cell c, double x)
{
	struct strbuf sb = STRBUF_INIT;
	if (isnan(x))
		strbuf_addstr(&sb, "Nan");
	else if (isinf(x))
		strbuf_addstr(&sb, x > 0 ? " inf" : " -inf");
	else
		pyfmt_double(&sb, x);
	set_cell(m, c, sb.buf);
	strbuf_release(&sb);
}

/* msprobe's format_value: float('{:.12f}'.format(x)); both steps correctly rounded, as printf/strtod are. */
static double round_decimals(double x, int decimals)
{
	char buf[400];
	if (!isfinite(x))
		return x;
	snprintf(buf, sizeof(buf), "%.*f", decimals, x);
	return strtod(buf, NULL);
}

void tmetric_unsupported(struct tmetric *m, const char *note)
{
	memset(m, 0, sizeof(*m));
	m->first_diff = -1;
	m->max_abs = -1;
	m->t_absmax = m->g_absmax = -1;
	fill_cells(m, "unsupported");
	add_note(m, note);
}

/* ---- dtypes as msprobe sees them -------------------------------------------- */

/* torch.load -> numpy: bfloat16 and float8 become float32. */
static enum dtype loaded_dtype(enum dtype d)
{
	return d == DT_BFLOAT16 || d == DT_FLOAT8_E4M3FN || d == DT_FLOAT8_E5M2 ? DT_FLOAT32 : d;
}

static bool is_float(enum dtype d)
{
	return dtype_info(d)->cls == DTC_FLOAT;
}

/* The working precision of the relative error: float32 unless a side is float64 or not a float. */
static bool works_in_float32(enum dtype t, enum dtype g)
{
	t = loaded_dtype(t);
	g = loaded_dtype(g);
	return is_float(t) && is_float(g) && t != DT_FLOAT64 && g != DT_FLOAT64;
}

/* ---- shapes ----------------------------------------------------------------- */

/* np.squeeze: the sizes that are not 1. */
static int squeeze(const struct tensor *t, int64_t *out)
{
	int n = 0;
	for (int i = 0; i < t->ndim; i++)
		if (t->shape[i] != 1)
			out[n++] = t->shape[i];
	return n;
}

static bool same_shape(const int64_t *a, int na, const int64_t *b, int nb)
{
	return na == nb && !memcmp(a, b, (size_t)na * sizeof(*a));
}

/* ---- ours: the bytes -------------------------------------------------------- */

static int64_t ordered(uint64_t bits, unsigned width)
{
	uint64_t sign = (uint64_t)1 << (width - 1);
	int64_t mag = (int64_t)(bits & (sign - 1));
	return bits & sign ? -mag : mag;
}

static bool float_bits_nan(uint64_t bits, enum dtype d)
{
	switch (d) {
	case DT_FLOAT64: return (bits & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull;
	case DT_FLOAT32: case DT_COMPLEX64: return (bits & 0x7FFFFFFFu) > 0x7F800000u;
	case DT_FLOAT16: return (bits & 0x7FFFu) > 0x7C00u;
	case DT_BFLOAT16: return (bits & 0x7FFFu) > 0x7F80u;
	case DT_FLOAT8_E4M3FN: return (bits & 0x7Fu) == 0x7Fu;
	case DT_FLOAT8_E5M2: return (bits & 0x7Fu) > 0x7Cu;
	default: return false;
	}
}

static uint64_t load_bits(const unsigned char *p, unsigned size)
{
	uint64_t v = 0;
	switch (size) {
	case 1: return *p;
	case 2: { uint16_t x; memcpy(&x, p, 2); return x; }
	case 4: { uint32_t x; memcpy(&x, p, 4); return x; }
	case 8: memcpy(&v, p, 8); return v;
	}
	return v;
}

/* Distance in ulps between two floats of a type, given as bits (inf: a NaN against a number). */
static double float_ulps(uint64_t a, uint64_t b, enum dtype d, unsigned width)
{
	bool na = float_bits_nan(a, d), nb = float_bits_nan(b, d);
	if (na || nb)
		return na && nb ? 0 : INFINITY;
	int64_t oa = ordered(a, width), ob = ordered(b, width);
	return oa > ob ? (double)((uint64_t)oa - (uint64_t)ob) : (double)((uint64_t)ob - (uint64_t)oa);
}

/* One differing element: its distance in the dtype's own units. */
static double element_ulps(const unsigned char *a, const unsigned char *b, enum dtype d)
{
	unsigned size = dtype_info(d)->size;
	switch (dtype_info(d)->cls) {
	case DTC_FLOAT:
		return float_ulps(load_bits(a, size), load_bits(b, size), d, size * 8);
	case DTC_COMPLEX: {
		unsigned half = size / 2;
		enum dtype part = d == DT_COMPLEX64 ? DT_FLOAT32 : DT_FLOAT64;
		double re = float_ulps(load_bits(a, half), load_bits(b, half), part, half * 8);
		double im = float_ulps(load_bits(a + half, half), load_bits(b + half, half), part, half * 8);
		return re > im ? re : im;
	}
	default:
		return fabs(dtype_to_double(d, a) - dtype_to_double(d, b));
	}
}

static double element_abs(const unsigned char *a, const unsigned char *b, enum dtype d)
{
	double x = dtype_to_double(d, a), y = dtype_to_double(d, b);
	if (!isnan(x) != !isnan(y))
		return INFINITY;
	if (isnan(x) || x == y)
		return 0; /* equal infinities too */
	return fabs(x - y);
}

static inline bool same_element(const unsigned char *a, const unsigned char *b, unsigned size)
{
	switch (size) {
	case 1: return *a == *b;
	case 2: return load_bits(a, 2) == load_bits(b, 2);
	case 4: return load_bits(a, 4) == load_bits(b, 4);
	case 8: return load_bits(a, 8) == load_bits(b, 8);
	default: return !memcmp(a, b, size);
	}
}

static bool plain_bytes(const struct tensor *t)
{
	return t->contiguous && !t->swapped;
}

/* The element bytes of [start, start + n), in place when the tensor allows it, else copied into buf. */
static const unsigned char *raw_chunk(const struct tensor *t, int64_t start, int64_t n, unsigned char *buf)
{
	if (plain_bytes(t))
		return t->data + (size_t)start * dtype_info(t->dtype)->size;
	tensor_read_raw(t, start, n, buf);
	return buf;
}

/* Whether a differing element passes the band: ulps its distance, x and y its values (target, golden). */
static bool band_passes(const struct tm_band *band, double ulps, double x, double y)
{
	if (!band)
		return false;
	if (band->ulps > 0 && ulps <= band->ulps)
		return true;
	if (band->rtol > 0 || band->atol > 0) {
		if (!isfinite(x) || !isfinite(y))
			return false; /* the same non-finite values do not differ; anything else never passes */
		return fabs(x - y) <= band->atol + band->rtol * fabs(y);
	}
	return false;
}

static bool within_band(double ulps, const unsigned char *a, const unsigned char *b, enum dtype d,
			const struct tm_band *band)
{
	return band && band_passes(band, ulps, dtype_to_double(d, a), dtype_to_double(d, b));
}

/* The elements of a chunk that differ, one by one (blocks of 64 equal bytes skipped). */
static void diff_elements(const unsigned char *pt, const unsigned char *pg, int64_t n, int64_t at, enum dtype d,
			  const struct tm_band *band, struct tmetric *m)
{
	unsigned size = dtype_info(d)->size, per_block = 64 / size;
	for (int64_t i = 0; i < n; i++) {
		const unsigned char *a = pt + (size_t)i * size, *b = pg + (size_t)i * size;
		if (i % per_block == 0 && n - i >= per_block && !memcmp(a, b, 64)) {
			i += per_block - 1;
			continue;
		}
		if (same_element(a, b, size))
			continue;
		if (m->first_diff < 0)
			m->first_diff = at + i;
		m->ndiff++;
		double u = element_ulps(a, b, d), x = element_abs(a, b, d);
		if (!within_band(u, a, b, d, band))
			m->nbeyond++;
		if (u > m->max_ulp)
			m->max_ulp = u;
		if (x > m->max_abs)
			m->max_abs = x;
	}
}

/*
 * The end of diff_f32() and diff_16() over one chunk of elements of `size`
 * bytes starting at element `at`: ndiff of them differ (odd: a NaN against
 * a number among them), max_ulp the widest distance in ulps, max_abs_ord
 * the bits of the widest absolute difference.
 */
static void add_chunk_diffs(struct tmetric *m, const unsigned char *pt, const unsigned char *pg, size_t size,
			    int64_t at, int64_t ndiff, int64_t odd, int64_t max_ulp, int64_t max_abs_ord)
{
	double max_abs;
	if (!ndiff)
		return;
	if (m->first_diff < 0) {
		int64_t i = 0;
		while (!memcmp(pt + size * (size_t)i, pg + size * (size_t)i, size))
			i++;
		m->first_diff = at + i;
	}
	m->ndiff += ndiff;
	m->nbeyond += ndiff;
	memcpy(&max_abs, &max_abs_ord, 8);
	if (odd || isinf(m->max_ulp)) {
		m->max_ulp = INFINITY; /* a NaN against a number */
		m->max_abs = INFINITY;
		return;
	}
	if ((double)max_ulp > m->max_ulp)
		m->max_ulp = (double)max_ulp;
	m->max_abs = max_abs;
}

/*
 * The same for float32 without a band: the common case of two runs that
 * differ almost everywhere.  One branch-free pass the compiler vectorises
 * (distances in ulps from the floats' bits mapped to ordered integers;
 * maxima of non-negative doubles taken on their bits), then a scan for
 * the first difference.
 */
VECTOR_CLONES static void diff_f32(const unsigned char *pt, const unsigned char *pg, int64_t n, int64_t at,
				   struct tmetric *m)
{
	int64_t ndiff = 0, max_ulp = 0, max_abs_ord, odd = 0;
	double max_abs = m->max_abs > 0 ? m->max_abs : 0;
	memcpy(&max_abs_ord, &max_abs, 8);
	for (int64_t i = 0; i < n; i++) {
		uint32_t a, b;
		float fa, fb;
		memcpy(&a, pt + 4 * i, 4);
		memcpy(&b, pg + 4 * i, 4);
		memcpy(&fa, &a, 4);
		memcpy(&fb, &b, 4);
		int64_t ne = a != b;
		int64_t na = (a & 0x7FFFFFFFu) > 0x7F800000u, nb = (b & 0x7FFFFFFFu) > 0x7F800000u;
		int64_t sa = -(int64_t)(a >> 31), sb = -(int64_t)(b >> 31); /* 0 or all ones */
		int64_t oa = ((int64_t)(a & 0x7FFFFFFFu) ^ sa) - sa, ob = ((int64_t)(b & 0x7FFFFFFFu) ^ sb) - sb;
		int64_t diff = oa - ob, sign = -(int64_t)(diff < 0); /* 0 or all ones */
		int64_t counted = -((ne & (na | nb)) ^ ne); /* all ones when they differ and neither is a NaN */
		int64_t u = ((diff ^ sign) - sign) & counted;
		double d = fabs((double)fa - (double)fb); /* not counted: NaNs, and equal infinities (inf - inf) */
		int64_t dbits;
		memcpy(&dbits, &d, 8);
		dbits &= counted;
		ndiff += ne;
		odd |= ne & (na ^ nb);
		max_ulp = u > max_ulp ? u : max_ulp;
		max_abs_ord = dbits > max_abs_ord ? dbits : max_abs_ord;
	}
	add_chunk_diffs(m, pt, pg, 4, at, ndiff, odd, max_ulp, max_abs_ord);
}

/* A 16-bit float as a float, without branches (float16: infinities and NaNs come out finite). */
static inline float value16(uint32_t h, bool bf16)
{
	uint32_t bits = bf16 ? h << 16 : ((h & 0x8000u) << 16) | ((h & 0x7FFFu) << 13);
	float f;
	memcpy(&f, &bits, 4);
	return bf16 ? f : f * 0x1p112f; /* float16: the exponent bias differs by 112 */
}

/*
 * diff_f32 for bfloat16 and float16 (bf16 is a constant in each caller's
 * copy, so each loop vectorises on its own).
 */
ALWAYS_INLINE static inline void diff_16(const unsigned char *pt, const unsigned char *pg, int64_t n, int64_t at, bool bf16,
			   struct tmetric *m)
{
	const uint32_t inf = bf16 ? 0x7F80u : 0x7C00u;
	const int64_t inf_bits = 0x7FF0000000000000;
	int64_t ndiff = 0, max_ulp = 0, max_abs_ord, odd = 0;
	double max_abs = m->max_abs > 0 ? m->max_abs : 0;
	memcpy(&max_abs_ord, &max_abs, 8);
	for (int64_t i = 0; i < n; i++) {
		uint16_t a16, b16;
		memcpy(&a16, pt + 2 * i, 2);
		memcpy(&b16, pg + 2 * i, 2);
		uint32_t a = a16, b = b16;
		int64_t ne = a != b;
		int64_t na = (a & 0x7FFFu) > inf, nb = (b & 0x7FFFu) > inf;
		int64_t infinite = -(int64_t)(((a & 0x7FFFu) == inf) | ((b & 0x7FFFu) == inf));
		int64_t sa = -(int64_t)(a >> 15), sb = -(int64_t)(b >> 15);
		int64_t oa = ((int64_t)(a & 0x7FFFu) ^ sa) - sa, ob = ((int64_t)(b & 0x7FFFu) ^ sb) - sb;
		int64_t diff = oa - ob, sign = -(int64_t)(diff < 0); /* 0 or all ones */
		int64_t counted = -((ne & (na | nb)) ^ ne);
		int64_t u = ((diff ^ sign) - sign) & counted;
		double d = fabs((double)value16(a, bf16) - (double)value16(b, bf16));
		int64_t dbits;
		memcpy(&dbits, &d, 8);
		dbits = (dbits & ~infinite) | (inf_bits & infinite); /* differing infinities: inf apart */
		dbits &= counted;
		ndiff += ne;
		odd |= ne & (na ^ nb);
		max_ulp = u > max_ulp ? u : max_ulp;
		max_abs_ord = dbits > max_abs_ord ? dbits : max_abs_ord;
	}
	add_chunk_diffs(m, pt, pg, 2, at, ndiff, odd, max_ulp, max_abs_ord);
}

VECTOR_CLONES static void diff_bf16(const unsigned char *pt, const unsigned char *pg, int64_t n, int64_t at,
				    struct tmetric *m)
{
	diff_16(pt, pg, n, at, true, m);
}

VECTOR_CLONES static void diff_f16(const unsigned char *pt, const unsigned char *pg, int64_t n, int64_t at,
				   struct tmetric *m)
{
	diff_16(pt, pg, n, at, false, m);
}

/* ---- ours: the largest finite magnitudes ------------------------------------ */

/*
 * t_absmax and g_absmax are taken where a chunk is read already: in the
 * one pass's loops (two maxima that replace the one of both sides its
 * finiteness test took), and, for chunks that are the same bytes, in one
 * loop with their comparison instead of memcmp() (an identical in-memory
 * float32 pair of 16M elements: about 5 % more time than with memcmp();
 * int64: about 15 %).  Maxima are exact: every loop agrees bit for bit.
 * WIDE_CLONES: these loops are compiled for AVX-512 too.
 */

/*
 * The largest magnitude of n floats of a type given as bits, over the
 * finite ones (magnitude bits below `inf`), as bits (0: none).  The
 * magnitude bits of finite floats order as their values.
 */
#define MAX_MAGNITUDE(name, type)                                                                    \
	WIDE_CLONES static type name(const unsigned char *p, int64_t n, type inf)                    \
	{                                                                                              \
		const type magnitude = (type)((type)~(type)0 >> 1);                                    \
		type best = 0;                                                                         \
		for (int64_t i = 0; i < n; i++) {                                                      \
			type x;                                                                        \
			memcpy(&x, p + sizeof(type) * (size_t)i, sizeof(type));                        \
			x &= magnitude;                                                                \
			x = (type)(x & -(type)(x < inf)); /* 0 when not finite (as a mask: vectorises) */ \
			best = x > best ? x : best;                                                    \
		}                                                                                      \
		return best;                                                                           \
	}
MAX_MAGNITUDE(max_magnitude16, uint16_t)
MAX_MAGNITUDE(max_magnitude32, uint32_t)
MAX_MAGNITUDE(max_magnitude64, uint64_t)
#undef MAX_MAGNITUDE

/*
 * Whether n floats a and b are the same bits (into *same), and a's largest
 * magnitude as bits, infinities and NaNs included (the caller takes
 * max_magnitude*() when that is not finite): memcmp() and the magnitude
 * in one loop, for chunks of comparable pairs.
 */
#define SAME_MAGNITUDE(name, type)                                                                   \
	WIDE_CLONES static type name(const unsigned char *a, const unsigned char *b, int64_t n, bool *same) \
	{                                                                                              \
		const type magnitude = (type)((type)~(type)0 >> 1);                                    \
		type best = 0, differ = 0;                                                             \
		for (int64_t i = 0; i < n; i++) {                                                      \
			type x, y;                                                                     \
			memcpy(&x, a + sizeof(type) * (size_t)i, sizeof(type));                        \
			memcpy(&y, b + sizeof(type) * (size_t)i, sizeof(type));                        \
			differ |= (type)(x ^ y);                                                       \
			x &= magnitude;                                                                \
			best = x > best ? x : best;                                                    \
		}                                                                                      \
		*same = !differ;                                                                       \
		return best;                                                                           \
	}
SAME_MAGNITUDE(same_magnitude16, uint16_t)
SAME_MAGNITUDE(same_magnitude32, uint32_t)
SAME_MAGNITUDE(same_magnitude64, uint64_t)
#undef SAME_MAGNITUDE

/*
 * Whether n integers a and b of a type are the same bytes, and the largest
 * |x| of a's into *absmax (from their least and greatest): memcmp() and
 * the maximum in one loop (a and b may be the same, for the maximum alone).
 */
#define SAME_INTEGER(name, type)                                                                           \
	WIDE_CLONES static bool name(const unsigned char *a, const unsigned char *b, int64_t n, double *absmax) \
	{                                                                                                    \
		type lo = 0, hi = 0, differ = 0;                                                             \
		for (int64_t i = 0; i < n; i++) {                                                            \
			type x, y;                                                                           \
			memcpy(&x, a + sizeof(type) * (size_t)i, sizeof(type));                              \
			memcpy(&y, b + sizeof(type) * (size_t)i, sizeof(type));                              \
			differ |= (type)(x ^ y);                                                             \
			lo = x < lo ? x : lo;                                                                \
			hi = x > hi ? x : hi;                                                                \
		}                                                                                            \
		*absmax = -(double)lo > (double)hi ? -(double)lo : (double)hi;                               \
		return !differ;                                                                              \
	}
SAME_INTEGER(same_int8, int8_t)
SAME_INTEGER(same_int16, int16_t)
SAME_INTEGER(same_int32, int32_t)
SAME_INTEGER(same_int64, int64_t)
SAME_INTEGER(same_uint8, uint8_t)
SAME_INTEGER(same_uint16, uint16_t)
SAME_INTEGER(same_uint32, uint32_t)
SAME_INTEGER(same_uint64, uint64_t)
#undef SAME_INTEGER

/* The integer types' loops, by dtype; NULL for the others. */
static bool (*same_integers(enum dtype d))(const unsigned char *, const unsigned char *, int64_t, double *)
{
	switch (d) {
	case DT_INT8: return same_int8;
	case DT_INT16: return same_int16;
	case DT_INT32: return same_int32;
	case DT_INT64: return same_int64;
	case DT_UINT8: case DT_BOOL: return same_uint8; /* bool: 0 or 1 */
	case DT_UINT16: return same_uint16;
	case DT_UINT32: return same_uint32;
	case DT_UINT64: return same_uint64;
	default: return NULL;
	}
}

static double float_of_bits(uint32_t bits)
{
	float f;
	memcpy(&f, &bits, 4);
	return f;
}

/* The largest |x| over the finite elements of n of type d, as max_abs reads them (dtype_to_double()); 0: none. */
static double chunk_absmax(const unsigned char *p, int64_t n, enum dtype d)
{
	double best = 0;
	switch (d) {
	case DT_FLOAT64: {
		uint64_t bits = max_magnitude64(p, n, 0x7FF0000000000000ull);
		memcpy(&best, &bits, 8);
		return best;
	}
	case DT_FLOAT32: return float_of_bits(max_magnitude32(p, n, 0x7F800000u));
	case DT_BFLOAT16: return float_of_bits((uint32_t)max_magnitude16(p, n, 0x7F80u) << 16);
	case DT_FLOAT16: return dtype_half_to_float(max_magnitude16(p, n, 0x7C00u));
	default:
		break;
	}
	if (same_integers(d)) {
		same_integers(d)(p, p, n, &best);
		return d == DT_BOOL && best ? 1 : best; /* bool: any byte but 0 is true */
	}
	for (int64_t i = 0; i < n; i++) { /* float8 and complex (its real part) */
		double x = fabs(dtype_to_double(d, p + (size_t)i * dtype_info(d)->size));
		if (isfinite(x) && x > best)
			best = x;
	}
	return best;
}

/* Each side's largest finite magnitude over a chunk into m (`equal`: the two chunks are the same bytes). */
static void add_absmax(struct tmetric *m, const unsigned char *pt, enum dtype dt, const unsigned char *pg,
		       enum dtype dg, int64_t n, bool equal)
{
	double a = chunk_absmax(pt, n, dt), b = equal ? a : chunk_absmax(pg, n, dg);
	if (a > m->t_absmax)
		m->t_absmax = a;
	if (b > m->g_absmax)
		m->g_absmax = b;
}

/*
 * Whether n elements of type d of a comparable pair are the same bytes;
 * when they are, their largest finite magnitude into m (for floats in the
 * same loop as the comparison).
 */
static bool same_chunk(const unsigned char *pt, const unsigned char *pg, int64_t n, enum dtype d, struct tmetric *m)
{
	double absmax;
	bool same;
	switch (d) {
	case DT_FLOAT64: {
		uint64_t mag = same_magnitude64(pt, pg, n, &same);
		if (!same)
			return false;
		if (mag >= 0x7FF0000000000000ull)
			mag = max_magnitude64(pt, n, 0x7FF0000000000000ull);
		memcpy(&absmax, &mag, 8);
		break;
	}
	case DT_FLOAT32: {
		uint32_t mag = same_magnitude32(pt, pg, n, &same);
		if (!same)
			return false;
		absmax = float_of_bits(mag < 0x7F800000u ? mag : max_magnitude32(pt, n, 0x7F800000u));
		break;
	}
	case DT_BFLOAT16: case DT_FLOAT16: {
		uint16_t inf = d == DT_BFLOAT16 ? 0x7F80u : 0x7C00u, mag = same_magnitude16(pt, pg, n, &same);
		if (!same)
			return false;
		if (mag >= inf)
			mag = max_magnitude16(pt, n, inf);
		absmax = d == DT_BFLOAT16 ? float_of_bits((uint32_t)mag << 16) : dtype_half_to_float(mag);
		break;
	}
	default:
		if (same_integers(d)) {
			if (!same_integers(d)(pt, pg, n, &absmax))
				return false;
			if (d == DT_BOOL && absmax)
				absmax = 1;
		} else {
			if (memcmp(pt, pg, (size_t)n * dtype_info(d)->size))
				return false;
			absmax = chunk_absmax(pt, n, d);
		}
		break;
	}
	if (absmax > m->t_absmax)
		m->t_absmax = absmax;
	if (absmax > m->g_absmax)
		m->g_absmax = absmax;
	return true;
}

/* ---- ours: two floating dtypes, widened ------------------------------------ */

/* The floating types a widened pair may hold (tmetric.h). */
static bool widens(enum dtype d)
{
	return d == DT_FLOAT64 || d == DT_FLOAT32 || d == DT_FLOAT16 || d == DT_BFLOAT16;
}

/* n elements of a type widens() accepts as doubles (exact). */
static void widen_chunk(const unsigned char *p, int64_t n, enum dtype d, double *out)
{
	switch (d) {
	case DT_FLOAT64:
		memcpy(out, p, (size_t)n * 8);
		break;
	case DT_FLOAT32:
		for (int64_t i = 0; i < n; i++) {
			float f;
			memcpy(&f, p + 4 * i, 4);
			out[i] = f;
		}
		break;
	case DT_BFLOAT16:
		for (int64_t i = 0; i < n; i++) {
			uint16_t h;
			memcpy(&h, p + 2 * i, 2);
			out[i] = float_of_bits((uint32_t)h << 16);
		}
		break;
	default:
		for (int64_t i = 0; i < n; i++) {
			uint16_t h;
			memcpy(&h, p + 2 * i, 2);
			out[i] = dtype_half_to_float(h);
		}
		break;
	}
}

/* A floating type's significand bits p and least normal exponent emin (ulps: 2^(max(e, emin) - p + 1)). */
static void float_format(enum dtype d, int *p, int *emin)
{
	switch (d) {
	case DT_FLOAT32: *p = 24; *emin = -126; break;
	case DT_FLOAT16: *p = 11; *emin = -14; break;
	case DT_BFLOAT16: *p = 8; *emin = -126; break;
	default: *p = 53; *emin = -1022; break;
	}
}

/*
 * 1 / ulp at finite x of the coarser of two formats, the one whose ulp
 * there is the larger: 2^-k for k = the larger of max(e, emin) - p + 1
 * (e: x's binary exponent; 0 and subnormal doubles fall below every emin).
 * One of them is not float64, so k >= -149 and 2^-k is a normal double.
 */
static inline double inverse_ulp(double x, int p1, int emin1, int p2, int emin2)
{
	uint64_t bits;
	memcpy(&bits, &x, 8);
	int e = (int)(bits >> 52 & 0x7FF) - 1023;
	int k1 = (e > emin1 ? e : emin1) - p1 + 1, k2 = (e > emin2 ? e : emin2) - p2 + 1;
	int k = k1 > k2 ? k1 : k2;
	bits = (uint64_t)(1023 - k) << 52;
	memcpy(&x, &bits, 8);
	return x;
}

/* The elements of a widened chunk that differ (t of dtype dt, g of dg), one by one. */
static void diff_widened(const unsigned char *pt, const unsigned char *pg, int64_t n, int64_t at, enum dtype dt,
			 enum dtype dg, const struct tm_band *band, struct tmetric *m, struct work *w)
{
	double *x = work_buffer(&w->f64[0], CHUNK * sizeof(double)), *y = work_buffer(&w->f64[1], CHUNK * sizeof(double));
	double max_abs = m->max_abs, max_ulp = m->max_ulp;
	int64_t ndiff = 0, beyond = 0;
	int p1, emin1, p2, emin2;
	float_format(dt, &p1, &emin1);
	float_format(dg, &p2, &emin2);
	widen_chunk(pt, n, dt, x);
	widen_chunk(pg, n, dg, y);
	for (int64_t i = 0; i < n; i++) {
		double a = x[i], b = y[i], u, d;
		uint64_t ba, bb;
		memcpy(&ba, &a, 8);
		memcpy(&bb, &b, 8);
		if (ba == bb || (isnan(a) && isnan(b))) /* bits: -0 against +0 differs */
			continue;
		if (m->first_diff < 0)
			m->first_diff = at + i;
		ndiff++;
		if (isfinite(a) && isfinite(b)) {
			d = fabs(a - b);
			u = d * inverse_ulp(b, p1, emin1, p2, emin2); /* exact: a power of 2 */
			beyond += !band_passes(band, u, a, b);
		} else {
			d = u = INFINITY; /* a NaN against a number, or an infinity against anything else */
			beyond++;
		}
		max_ulp = u > max_ulp ? u : max_ulp;
		max_abs = d > max_abs ? d : max_abs;
	}
	m->ndiff += ndiff;
	m->nbeyond += beyond;
	m->max_ulp = max_ulp;
	m->max_abs = max_abs;
}

static void compare_bytes(const struct tensor *t, const struct tensor *g, const struct tm_band *band,
			  struct tmetric *m, struct work *w)
{
	unsigned char *bt = work_buffer(&w->raw[0], (size_t)CHUNK * 16), *bg = work_buffer(&w->raw[1], (size_t)CHUNK * 16);
	XXH3_state_t *ht = work_hash(w, 0), *hg = work_hash(w, 1);
	bool comparable = m->comparable;

	for (int64_t at = 0; at < t->numel || (!comparable && at < g->numel); at += CHUNK) {
		int64_t nt = t->numel - at, ng = g->numel - at;
		nt = nt < 0 ? 0 : nt > CHUNK ? CHUNK : nt;
		ng = ng < 0 ? 0 : ng > CHUNK ? CHUNK : ng;
		const unsigned char *pt = nt ? raw_chunk(t, at, nt, bt) : NULL;
		const unsigned char *pg = ng ? raw_chunk(g, at, ng, bg) : NULL;
		if (nt)
			xxh3_update_wide(ht, pt, (size_t)nt * dtype_info(t->dtype)->size, kernel_allowed == TM_KERNEL_PLAIN);
		if (ng)
			xxh3_update_wide(hg, pg, (size_t)ng * dtype_info(g->dtype)->size, kernel_allowed == TM_KERNEL_PLAIN);
		if (m->widened) { /* the same shape: nt == ng */
			add_absmax(m, pt, t->dtype, pg, g->dtype, nt, false);
			diff_widened(pt, pg, nt, at, t->dtype, g->dtype, band, m, w);
		}
		if (!comparable || same_chunk(pt, pg, nt, t->dtype, m))
			continue;
		add_absmax(m, pt, t->dtype, pg, g->dtype, nt, false);
		if (t->dtype == DT_FLOAT32 && !band)
			diff_f32(pt, pg, nt, at, m);
		else if (t->dtype == DT_BFLOAT16 && !band)
			diff_bf16(pt, pg, nt, at, m);
		else if (t->dtype == DT_FLOAT16 && !band)
			diff_f16(pt, pg, nt, at, m);
		else
			diff_elements(pt, pg, nt, at, t->dtype, band, m);
	}
	m->t_hash = XXH3_64bits_digest(ht);
	m->g_hash = XXH3_64bits_digest(hg);
	m->same = comparable && !m->ndiff;
}

/* ---- msprobe: 0-d tensors --------------------------------------------------- */

/* numpy's promote_types for the two dtypes of a 0-d subtraction. */
static enum dtype promote(enum dtype a, enum dtype b)
{
	const struct dtype_info *ia = dtype_info(a), *ib = dtype_info(b);
	if (a == b)
		return a;
	if (ia->cls == DTC_BOOL)
		return b;
	if (ib->cls == DTC_BOOL)
		return a;
	if (ia->cls == DTC_COMPLEX || ib->cls == DTC_COMPLEX)
		return DT_COMPLEX128;
	if (ia->cls == DTC_FLOAT && ib->cls == DTC_FLOAT)
		return ia->size >= ib->size ? a : b;
	if (ia->cls == DTC_FLOAT || ib->cls == DTC_FLOAT) {
		enum dtype f = ia->cls == DTC_FLOAT ? a : b, i = ia->cls == DTC_FLOAT ? b : a;
		unsigned need = dtype_info(i)->size * 2; /* a float that holds every value of the integer type */
		if (dtype_info(f)->size >= need)
			return f;
		return need <= 2 ? DT_FLOAT16 : need <= 4 ? DT_FLOAT32 : DT_FLOAT64;
	}
	/* two integers */
	if (ia->cls == ib->cls)
		return ia->size >= ib->size ? a : b;
	{
		enum dtype s = ia->cls == DTC_SIGNED ? a : b, u = ia->cls == DTC_SIGNED ? b : a;
		unsigned need = dtype_info(u)->size * 2;
		if (dtype_info(s)->size >= need)
			return s;
		return need <= 2 ? DT_INT16 : need <= 4 ? DT_INT32 : need <= 8 ? DT_INT64 : DT_FLOAT64;
	}
}

/* |a - b| computed in dtype d as numpy does for 0-d arrays: integers wrap, float16 rounds to half. */
static double native_abs_diff(double a, double b, enum dtype d)
{
	switch (d) {
	case DT_UINT8: return (uint8_t)((uint8_t)a - (uint8_t)b);
	case DT_UINT16: return (uint16_t)((uint16_t)a - (uint16_t)b);
	case DT_UINT32: return (uint32_t)((uint32_t)a - (uint32_t)b);
	case DT_UINT64: return (double)((uint64_t)a - (uint64_t)b);
	case DT_INT8: { int8_t r = (int8_t)(uint8_t)((uint8_t)(int8_t)a - (uint8_t)(int8_t)b); return r < 0 ? -(double)r : r; }
	case DT_INT16: { int16_t r = (int16_t)(uint16_t)((uint16_t)(int16_t)a - (uint16_t)(int16_t)b); return r < 0 ? -(double)r : r; }
	case DT_INT32: { int32_t r = (int32_t)((uint32_t)(int32_t)a - (uint32_t)(int32_t)b); return r < 0 ? -(double)r : r; }
	case DT_INT64: { int64_t r = (int64_t)((uint64_t)(int64_t)a - (uint64_t)(int64_t)b); return r < 0 ? -(double)r : (double)r; }
	case DT_FLOAT16: return fabsf(dtype_half_to_float(dtype_float_to_half((float)a - (float)b)));
	case DT_FLOAT32: return fabsf((float)a - (float)b);
	default: return fabs(a - b);
	}
}

/* The single element of a tensor whose squeezed shape is empty. */
static void read_scalar(const struct tensor *t, double *v, double *imag)
{
	unsigned char raw[16];
	tensor_read_raw(t, 0, 1, raw);
	*v = dtype_to_double(t->dtype, raw);
	*imag = 0;
	if (t->dtype == DT_COMPLEX64) {
		float im;
		memcpy(&im, raw + 4, 4);
		*imag = im;
	} else if (t->dtype == DT_COMPLEX128) {
		memcpy(imag, raw + 8, 8);
	}
}

static void zero_d(const struct tensor *t, const struct tensor *g, struct tmetric *m)
{
	enum dtype dt = loaded_dtype(t->dtype), dg = loaded_dtype(g->dtype);
	double a, b, ai, bi, abs_diff, re;

	add_note(m, "This is type of 0-d tensor, can not calculate 'Cosine', 'EucDist', 'One Thousandth Err Ratio' "
		    "and 'Five Thousandths Err Ratio'. ");
	set_cell(m, TM_COSINE, "unsupported");
	set_cell(m, TM_EUC, "unsupported");
	set_cell(m, TM_ONE_THOUSANDTH, "unsupported");
	set_cell(m, TM_FIVE_THOUSANDTHS, "unsupported");
	read_scalar(t, &a, &ai);
	read_scalar(g, &b, &bi);

	/* MaxAbsErr: in the arrays' own (promoted) dtype; bool arrays were made float64 */
	enum dtype d = promote(dt == DT_BOOL ? DT_FLOAT64 : dt, dg == DT_BOOL ? DT_FLOAT64 : dg);
	if (dtype_info(d)->cls == DTC_COMPLEX)
		abs_diff = hypot(a - b, ai - bi);
	else
		abs_diff = native_abs_diff(a, b, d);
	if (isnan(abs_diff)) {
		set_cell(m, TM_MAX_ABS, "Nan");
		add_note(m, "Cannot compare by MaxAbsError, the data contains nan/inf/-inf in dump data.");
	} else {
		set_number(m, TM_MAX_ABS, round_decimals(abs_diff, 12));
	}

	/* MaxRelativeErr: numpy 1.x casts 0-d values to float32 when they fit */
	if ((isfinite(a) && fabs(a) > FLT_MAX) || (isfinite(b) && fabs(b) > FLT_MAX)) {
		if (b == 0) {
			a += DBL_EPSILON;
			b += DBL_EPSILON;
		}
		re = fabs((a - b) / b);
	} else {
		float af = (float)a, bf = (float)b;
		if (bf == 0) {
			af += FLT_EPSILON;
			bf += FLT_EPSILON;
		}
		re = fabsf((af - bf) / bf);
	}
	if (isnan(re)) {
		set_cell(m, TM_MAX_REL, "Nan");
		add_note(m, "Cannot compare by MaxRelativeError, the data contains nan/inf/-inf in dump data.");
	} else {
		set_number(m, TM_MAX_REL, round_decimals(re, 12));
	}
}

/* ---- msprobe: tensors of one or more dimensions ----------------------------- */

/*
 * msprobe's four sums (np.dot(n, b), n.n and b.b for the norms, (n-b).(n-b)
 * for EucDist) are taken in LANES lanes: element i of the tensor (row-major)
 * goes to lane i % LANES, each lane adds its elements in order, and the
 * lanes are added at the end by sum_total().  numpy leaves these sums to
 * the BLAS it was built with: reference BLAS adds in element order,
 * OpenBLAS (numpy's wheels, so msprobe's usual install) in vector lanes
 * whose number, and whose final order, depend on the CPU's kernel and on
 * its thread count; two msprobe installs can differ in the last digits of
 * EucDist for tensors beyond a few elements.  Lanes let the loops work at
 * memory speed, are at least as accurate as element order, and give the
 * same sums on every machine.  Chunks (CHUNK) and the vector loops' steps
 * are multiples of LANES, so each path knows an element's lane from its
 * index in the chunk.
 */
#define LANES 8
_Static_assert(LANES == 8, "sum_total() and the vector loops (a 512-bit or two 256-bit registers a sum) hold 8 lanes");
enum { SUM_DOT, SUM_NN, SUM_GG, SUM_DD, NSUMS };

struct sums {
	double lane[NSUMS][LANES];
	double max_abs;
	double max_rel;         /* in the working precision, widened */
	bool rel_nan;
	int64_t below_1e3, below_5e3;
	bool position_mismatch; /* nan/inf where the other side has none, or of another kind */
};

/* One element pair; nan/inf at the same kind of position on both sides count as 0 on both. */
static inline bool zero_nonfinite(double *a, double *b, struct sums *s)
{
	if (isfinite(*a) && isfinite(*b))
		return false;
	/* the kind of value must agree; +inf against -inf counts as the same (msprobe compares isinf masks) */
	if (!isinf(*a) != !isinf(*b) || !isnan(*a) != !isnan(*b)) {
		s->position_mismatch = true;
		return false;
	}
	*a = *b = 0;
	return true;
}

/* One of the sums, its lanes added pairwise: ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)). */
static double sum_total(const struct sums *s, int k)
{
	const double *l = s->lane[k];
	return ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]));
}

/* Element i of a chunk (chunks start at multiples of LANES) into the sums. */
static inline void add_to_lanes(struct sums *s, int64_t i, double a, double b)
{
	int j = (int)(i & (LANES - 1));
	double d = a - b;
	s->lane[SUM_DOT][j] += a * b;
	s->lane[SUM_NN][j] += a * a;
	s->lane[SUM_GG][j] += b * b;
	s->lane[SUM_DD][j] += d * d;
}

static void accumulate_f32(const float *a32, const float *b32, int64_t n, struct sums *s)
{
	const float t1 = 0.001f, t5 = 0.005f;
	for (int64_t i = 0; i < n; i++) {
		double a = a32[i], b = b32[i];
		float af = a32[i], bf = b32[i];
		if (zero_nonfinite(&a, &b, s))
			af = bf = 0;
		add_to_lanes(s, i, a, b);
		double d = a - b;
		if (fabs(d) > s->max_abs)
			s->max_abs = fabs(d);
		if (bf == 0) {
			af += FLT_EPSILON;
			bf += FLT_EPSILON;
		}
		float re = fabsf((af - bf) / bf);
		if (isnan(re))
			s->rel_nan = true;
		else if (re > s->max_rel)
			s->max_rel = re;
		s->below_1e3 += re < t1;
		s->below_5e3 += re < t5;
	}
}

/* Whether any of n floats is an infinity or a NaN (all exponent bits set). */
VECTOR_CLONES static bool any_nonfinite_f32(const float *x, int64_t n)
{
	unsigned any = 0;
	for (int64_t i = 0; i < n; i++) {
		uint32_t u;
		memcpy(&u, &x[i], 4);
		any |= (u & 0x7F800000u) == 0x7F800000u;
	}
	return any;
}

/* The sums of a chunk of finite floats, in their lanes (the products are exact: a float times a float fits a double). */
static void sums_f32(const float *a, const float *b, int64_t n, struct sums *s)
{
	for (int64_t i = 0; i < n; i++)
		add_to_lanes(s, i, a[i], b[i]);
}

/*
 * What does not depend on order, for a chunk of finite floats: max |a - b|
 * in double, the relative errors in float with msprobe's eps rule, their
 * max and the counts under the thresholds.  Maxima of non-negative values
 * are taken on their bits (integer compares: no NaN can occur here), which
 * lets the loop vectorise.
 */
VECTOR_CLONES static void order_free_f32(const float *a, const float *b, int64_t n, struct sums *s)
{
	const float t1 = 0.001f, t5 = 0.005f;
	uint64_t max_abs_bits;
	uint32_t max_rel_bits;
	int64_t c1 = 0, c5 = 0;
	double max_abs = s->max_abs;
	float max_rel = (float)s->max_rel;
	memcpy(&max_abs_bits, &max_abs, 8);
	memcpy(&max_rel_bits, &max_rel, 4);
	int64_t max_abs_ord = (int64_t)max_abs_bits; /* non-negative doubles order as signed integers */
	for (int64_t i = 0; i < n; i++) {
		double d = fabs((double)a[i] - (double)b[i]);
		int64_t bits;
		memcpy(&bits, &d, 8);
		max_abs_ord = bits > max_abs_ord ? bits : max_abs_ord;
	}
	max_abs_bits = (uint64_t)max_abs_ord;
	for (int64_t i = 0; i < n; i++) {
		float bf = b[i], z = bf == 0 ? FLT_EPSILON : 0.0f;
		float af = a[i] + z;
		bf += z;
		float re = fabsf((af - bf) / bf);
		uint32_t bits;
		memcpy(&bits, &re, 4);
		max_rel_bits = bits > max_rel_bits ? bits : max_rel_bits;
		c1 += re < t1;
		c5 += re < t5;
	}
	memcpy(&max_abs, &max_abs_bits, 8);
	memcpy(&max_rel, &max_rel_bits, 4);
	s->max_abs = max_abs;
	s->max_rel = max_rel;
	s->below_1e3 += c1;
	s->below_5e3 += c5;
}

/* A chunk as floats: in place for a contiguous float32 tensor in this machine's byte order. */
static const float *f32_chunk(const struct tensor *t, int64_t at, int64_t n, float *buf)
{
	if (t->dtype == DT_FLOAT32 && t->contiguous && !t->swapped && tensor_aligned(t))
		return (const float *)(const void *)(t->data + (size_t)at * 4);
	tensor_read_f32(t, at, n, buf);
	return buf;
}

static void accumulate_f64(const double *a64, const double *b64, int64_t n, struct sums *s)
{
	for (int64_t i = 0; i < n; i++) {
		double a = a64[i], b = b64[i];
		zero_nonfinite(&a, &b, s);
		add_to_lanes(s, i, a, b);
		double d = a - b;
		if (fabs(d) > s->max_abs)
			s->max_abs = fabs(d);
		double ra = a, rb = b;
		if (rb == 0) {
			ra += DBL_EPSILON;
			rb += DBL_EPSILON;
		}
		double re = fabs((ra - rb) / rb);
		if (isnan(re))
			s->rel_nan = true;
		else if (re > s->max_rel)
			s->max_rel = re;
		s->below_1e3 += re < 0.001;
		s->below_5e3 += re < 0.005;
	}
}

static void cosine_cell(const struct sums *s, struct tmetric *m)
{
	double na = sqrt(sum_total(s, SUM_NN)), nb = sqrt(sum_total(s, SUM_GG)), cos;
	if (na <= DBL_EPSILON && nb <= DBL_EPSILON) {
		set_cell(m, TM_COSINE, "1.0");
		return;
	}
	if (na <= DBL_EPSILON || nb <= DBL_EPSILON) {
		set_cell(m, TM_COSINE, "Nan");
		add_note(m, na <= DBL_EPSILON
				    ? "Cannot compare by Cosine Similarity, All the data is Zero in npu dump data."
				    : "Cannot compare by Cosine Similarity, All the data is Zero in Bench dump data.");
		return;
	}
	cos = sum_total(s, SUM_DOT) / (na * nb);
	if (isnan(cos)) {
		set_cell(m, TM_COSINE, "Nan");
		add_note(m, "Cannot compare by Cosine Similarity, the dump data has NaN.");
		return;
	}
	cos = round_decimals(cos, 12);
	if (cos > 0.9999)
		cos = round_decimals(cos, 6);
	set_number(m, TM_COSINE, cos);
}

/* msprobe's cells from the sums of every element pair. */
static void sums_to_cells(const struct sums *sp, const struct tensor *t, const struct tensor *g, struct tmetric *m)
{
	const struct sums s = *sp;
	if (s.position_mismatch) {
		fill_cells(m, "N/A");
		add_note(m, "The position of inf or nan in NPU and bench Tensor do not match.");
		return;
	}
	if (loaded_dtype(t->dtype) != loaded_dtype(g->dtype))
		add_note(m, "Dtype of NPU and bench tensor do not match.");
	cosine_cell(&s, m);
	set_number(m, TM_EUC, sqrt(sum_total(&s, SUM_DD)));
	set_number(m, TM_MAX_ABS, round_decimals(s.max_abs, 12));
	if (s.rel_nan) {
		set_cell(m, TM_MAX_REL, "Nan");
		add_note(m, "Cannot compare by MaxRelativeError, the data contains nan/inf/-inf in dump data.");
	} else {
		set_number(m, TM_MAX_REL, round_decimals(s.max_rel, 12));
	}
	set_number(m, TM_ONE_THOUSANDTH, round_decimals((double)s.below_1e3 / (double)t->numel, 12));
	set_number(m, TM_FIVE_THOUSANDTHS, round_decimals((double)s.below_5e3 / (double)t->numel, 12));
}

static void tensors(const struct tensor *t, const struct tensor *g, struct tmetric *m, struct work *w)
{
	bool f32 = works_in_float32(t->dtype, g->dtype);
	double *a64 = f32 ? NULL : work_buffer(&w->f64[0], CHUNK * sizeof(double));
	double *b64 = f32 ? NULL : work_buffer(&w->f64[1], CHUNK * sizeof(double));
	float *a32 = f32 ? work_buffer(&w->f32[0], CHUNK * sizeof(float)) : NULL;
	float *b32 = f32 ? work_buffer(&w->f32[1], CHUNK * sizeof(float)) : NULL;
	struct sums s = { 0 };

	for (int64_t at = 0; at < t->numel && !s.position_mismatch; at += CHUNK) {
		int64_t n = t->numel - at < CHUNK ? t->numel - at : CHUNK;
		if (f32) {
			const float *a = f32_chunk(t, at, n, a32), *b = f32_chunk(g, at, n, b32);
			if (any_nonfinite_f32(a, n) || any_nonfinite_f32(b, n)) {
				accumulate_f32(a, b, n, &s);
			} else {
				sums_f32(a, b, n, &s);
				order_free_f32(a, b, n, &s);
			}
		} else {
			tensor_read_f64(t, at, n, a64);
			tensor_read_f64(g, at, n, b64);
			accumulate_f64(a64, b64, n, &s);
		}
	}
	sums_to_cells(&s, t, g, m);
}

/* What msprobe gets for two identical tensors of a type whose sums cannot overflow a double. */
static bool identical_shortcut(const struct tensor *t, struct tmetric *m)
{
	if (!m->same || t->dtype == DT_FLOAT64 || t->dtype == DT_COMPLEX128 || t->dtype == DT_COMPLEX64)
		return false;
	set_cell(m, TM_COSINE, "1.0");
	set_cell(m, TM_EUC, "0.0");
	set_cell(m, TM_MAX_ABS, "0.0");
	set_cell(m, TM_MAX_REL, "0.0");
	set_cell(m, TM_ONE_THOUSANDTH, "1.0");
	set_cell(m, TM_FIVE_THOUSANDTHS, "1.0");
	return true;
}

/* ---- float32 and bfloat16: both comparisons in one pass --------------------- */

/*
 * Two float32 or bfloat16 tensors of the same shape, both plain bytes, are
 * compared in one pass over their chunks: hashes, our differences and
 * msprobe's sums and maxima are taken while a chunk is in the cache, so the
 * tensors are read from memory once.  The sums' lanes are vector
 * registers (eight elements an addition), and the rest of the work on a
 * chunk of finite floats is done in the same loop.  Chunks holding an
 * infinity or a NaN take the element-wise path.
 */

/* What one chunk of finite floats adds to our comparison. */
struct pass {
	double max_abs;    /* max |a - b| as doubles over the chunk */
	int64_t ndiff;     /* pairs whose bits differ */
	uint32_t max_ulp;  /* the largest distance in float32 ulps */
	uint32_t t_mag, g_mag; /* each side's largest magnitude, as float32 bits */
};

/*
 * Distances in float32 ulps, for finite floats: same sign, the difference
 * of the magnitudes; else their sum.  And each side's largest magnitude.
 */
VECTOR_CLONES static void ulps_f32(const float *a, const float *b, int64_t n, struct pass *p)
{
	int64_t ndiff = 0;
	uint32_t max_ulp = 0, t_mag = 0, g_mag = 0;
	for (int64_t i = 0; i < n; i++) {
		uint32_t x, y;
		memcpy(&x, &a[i], 4);
		memcpy(&y, &b[i], 4);
		uint32_t mx = x & 0x7FFFFFFFu, my = y & 0x7FFFFFFFu;
		uint32_t u = (x ^ y) >> 31 ? mx + my : mx > my ? mx - my : my - mx;
		ndiff += x != y;
		max_ulp = u > max_ulp ? u : max_ulp;
		t_mag = mx > t_mag ? mx : t_mag;
		g_mag = my > g_mag ? my : g_mag;
	}
	p->ndiff = ndiff;
	p->max_ulp = max_ulp;
	p->t_mag = t_mag;
	p->g_mag = g_mag;
}

/* The pass over a chunk of finite floats in plain C: the loops one after the other. */
static void finite_pass_portable(const float *a, const float *b, int64_t n, struct sums *s, struct pass *p)
{
	struct sums o = { 0 };
	sums_f32(a, b, n, s);
	order_free_f32(a, b, n, &o);
	ulps_f32(a, b, n, p);
	p->max_abs = o.max_abs;
	if (o.max_abs > s->max_abs)
		s->max_abs = o.max_abs;
	if (o.max_rel > s->max_rel)
		s->max_rel = o.max_rel;
	s->below_1e3 += o.below_1e3;
	s->below_5e3 += o.below_5e3;
}

/* A chunk of plain float32 or bfloat16 bytes as floats: in place, or widened into buf. */
static const float *chunk_floats(const unsigned char *raw, int64_t n, bool bf16, float *buf)
{
	if (!bf16 && (uintptr_t)raw % sizeof(float) == 0)
		return (const float *)(const void *)raw;
	if (!bf16) { /* in place in a storage that is not aligned (tensor.h) */
		memcpy(buf, raw, (size_t)n * sizeof(float));
		return buf;
	}
	for (int64_t i = 0; i < n; i++) {
		uint16_t h;
		memcpy(&h, raw + 2 * i, 2);
		uint32_t bits = (uint32_t)h << 16;
		memcpy(&buf[i], &bits, 4);
	}
	return buf;
}

/* The pass in plain C; false when the chunk holds an infinity or a NaN (s and p are then unspecified). */
static bool finite_pass_c(const unsigned char *pt, const unsigned char *pg, int64_t n, bool bf16, float *buf_t,
			  float *buf_g, struct sums *s, struct pass *p)
{
	const float *a = chunk_floats(pt, n, bf16, buf_t), *b = chunk_floats(pg, n, bf16, buf_g);
	if (any_nonfinite_f32(a, n) || any_nonfinite_f32(b, n))
		return false;
	finite_pass_portable(a, b, n, s, p);
	return true;
}

/* GCC and clang alike (the fuzzing build is clang's) */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__linux__)
#include <immintrin.h>
#define HAVE_AVX2_KERNEL 1

/* 4 element pairs as doubles into lanes [4h, 4h + 4) of the four sums (acc[k] holds a sum's lanes). */
__attribute__((target("avx2"), always_inline)) static inline void add_four_elements(__m256d acc[NSUMS][2], int h,
										     __m256d x, __m256d y,
										     __m256d *max_abs)
{
	const __m256d magnitude = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFF));
	__m256d d = _mm256_sub_pd(x, y);
	acc[SUM_DOT][h] = _mm256_add_pd(acc[SUM_DOT][h], _mm256_mul_pd(x, y));
	acc[SUM_NN][h] = _mm256_add_pd(acc[SUM_NN][h], _mm256_mul_pd(x, x));
	acc[SUM_GG][h] = _mm256_add_pd(acc[SUM_GG][h], _mm256_mul_pd(y, y));
	acc[SUM_DD][h] = _mm256_add_pd(acc[SUM_DD][h], _mm256_mul_pd(d, d));
	*max_abs = _mm256_max_pd(*max_abs, _mm256_and_pd(d, magnitude));
}

/* 8 elements as floats: float32 as they are, bfloat16 widened (its bits are a float's upper half). */
__attribute__((target("avx2"), always_inline)) static inline __m256 load8(const unsigned char *p, bool bf16)
{
	if (!bf16)
		return _mm256_loadu_ps((const float *)(const void *)p);
	__m256i wide = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)p));
	return _mm256_castsi256_ps(_mm256_slli_epi32(wide, 16));
}

/* A vector loop's results over elements [0, i) of a chunk, its lanes folded. */
struct folded {
	double lane[NSUMS][LANES]; /* the sums' lanes, elements [0, i) added */
	double max_abs;
	float max_rel;
	int64_t below1, below5, equal;
	uint32_t max_ulp, t_mag, g_mag; /* t_mag, g_mag: each side's largest magnitude (float32 bits) */
};

/*
 * The rest of a chunk after a vector loop over [0, i): the last pairs
 * element by element in the same order, then everything into s and p.
 * False, leaving s and p alone, when the chunk holds an infinity or a NaN.
 */
static bool finish_chunk(const struct folded *f, const unsigned char *pt, const unsigned char *pg, int64_t n,
			 int64_t i, bool bf16, struct sums *s, struct pass *p)
{
	const unsigned size = bf16 ? 2 : 4;
	float tail_t[16], tail_g[16];
	struct sums tail = { 0 };
	struct pass tail_pass = { 0 };
	memcpy(tail.lane, f->lane, sizeof(tail.lane));
	if (f->t_mag >= 0x7F800000u || f->g_mag >= 0x7F800000u ||
	    !finite_pass_c(pt + size * i, pg + size * i, n - i, bf16, tail_t, tail_g, &tail, &tail_pass))
		return false;
	double max_abs = f->max_abs > tail_pass.max_abs ? f->max_abs : tail_pass.max_abs;
	float max_rel = f->max_rel > (float)tail.max_rel ? f->max_rel : (float)tail.max_rel;
	memcpy(s->lane, tail.lane, sizeof(s->lane));
	if (max_abs > s->max_abs)
		s->max_abs = max_abs;
	if (max_rel > s->max_rel)
		s->max_rel = max_rel;
	s->below_1e3 += f->below1 + tail.below_1e3;
	s->below_5e3 += f->below5 + tail.below_5e3;
	p->max_abs = max_abs;
	p->ndiff = (i - f->equal) + tail_pass.ndiff;
	p->max_ulp = f->max_ulp > tail_pass.max_ulp ? f->max_ulp : tail_pass.max_ulp;
	p->t_mag = f->t_mag > tail_pass.t_mag ? f->t_mag : tail_pass.t_mag;
	p->g_mag = f->g_mag > tail_pass.g_mag ? f->g_mag : tail_pass.g_mag;
	return true;
}

/* Lanes of maxima and counts folded into f (k lanes of 32 bits, k / 2 of 64). */
static void fold_lanes(struct folded *f, int k, const double *abs, const float *rel, const uint32_t *below1,
		       const uint32_t *below5, const uint32_t *equal, const uint32_t *ulp, const uint32_t *tmag,
		       const uint32_t *gmag)
{
	f->max_abs = 0;
	f->max_rel = 0;
	f->below1 = f->below5 = f->equal = 0;
	f->max_ulp = f->t_mag = f->g_mag = 0;
	for (int j = 0; j < k / 2; j++)
		f->max_abs = abs[j] > f->max_abs ? abs[j] : f->max_abs;
	for (int j = 0; j < k; j++) {
		f->max_rel = rel[j] > f->max_rel ? rel[j] : f->max_rel;
		f->below1 += below1[j];
		f->below5 += below5[j];
		f->equal += equal[j];
		f->max_ulp = ulp[j] > f->max_ulp ? ulp[j] : f->max_ulp;
		f->t_mag = tmag[j] > f->t_mag ? tmag[j] : f->t_mag;
		f->g_mag = gmag[j] > f->g_mag ? gmag[j] : f->g_mag;
	}
}

/*
 * The pass in one loop with AVX2, its results equal to finite_pass_c's
 * bit for bit.  Whether the chunk is finite is learnt on the way (from
 * the largest magnitude met), so false comes after the whole chunk.
 */
__attribute__((target("avx2"), always_inline)) static inline bool finite_pass_avx2(const unsigned char *pt,
										    const unsigned char *pg, int64_t n,
										    bool bf16, struct sums *s, struct pass *p)
{
	const __m256 t1 = _mm256_set1_ps(0.001f), t5 = _mm256_set1_ps(0.005f), eps = _mm256_set1_ps(FLT_EPSILON);
	const __m256i magnitude = _mm256_set1_epi32(0x7FFFFFFF);
	const unsigned size = bf16 ? 2 : 4;
	__m256d acc[NSUMS][2], max_abs = _mm256_setzero_pd();
	__m256 max_rel = _mm256_setzero_ps();
	__m256i below1 = _mm256_setzero_si256(), below5 = below1, equal = below1, max_ulp = below1, t_mag = below1,
		g_mag = below1;
	int64_t i = 0;

	for (int k = 0; k < NSUMS; k++) {
		acc[k][0] = _mm256_loadu_pd(s->lane[k]);
		acc[k][1] = _mm256_loadu_pd(s->lane[k] + 4);
	}
	for (; i + 8 <= n; i += 8) {
		__m256 af = load8(pt + size * i, bf16), bf = load8(pg + size * i, bf16);
		/* msprobe: the sums, then the relative error in float32 with eps where the golden is 0 */
		add_four_elements(acc, 0, _mm256_cvtps_pd(_mm256_castps256_ps128(af)),
				  _mm256_cvtps_pd(_mm256_castps256_ps128(bf)), &max_abs);
		add_four_elements(acc, 1, _mm256_cvtps_pd(_mm256_extractf128_ps(af, 1)),
				  _mm256_cvtps_pd(_mm256_extractf128_ps(bf, 1)), &max_abs);
		__m256 z = _mm256_and_ps(_mm256_cmp_ps(bf, _mm256_setzero_ps(), _CMP_EQ_OQ), eps);
		__m256 a2 = _mm256_add_ps(af, z), b2 = _mm256_add_ps(bf, z);
		__m256 re = _mm256_and_ps(_mm256_div_ps(_mm256_sub_ps(a2, b2), b2), _mm256_castsi256_ps(magnitude));
		max_rel = _mm256_max_ps(max_rel, re);
		below1 = _mm256_sub_epi32(below1, _mm256_castps_si256(_mm256_cmp_ps(re, t1, _CMP_LT_OQ)));
		below5 = _mm256_sub_epi32(below5, _mm256_castps_si256(_mm256_cmp_ps(re, t5, _CMP_LT_OQ)));
		/* ours: equal bits, and the distance in ulps; the magnitudes also tell whether all is finite */
		__m256i x = _mm256_castps_si256(af), y = _mm256_castps_si256(bf);
		__m256i mx = _mm256_and_si256(x, magnitude), my = _mm256_and_si256(y, magnitude);
		__m256i opposite = _mm256_srai_epi32(_mm256_xor_si256(x, y), 31);
		__m256i u = _mm256_blendv_epi8(_mm256_abs_epi32(_mm256_sub_epi32(mx, my)), _mm256_add_epi32(mx, my), opposite);
		max_ulp = _mm256_max_epu32(max_ulp, u);
		t_mag = _mm256_max_epu32(t_mag, mx);
		g_mag = _mm256_max_epu32(g_mag, my);
		equal = _mm256_sub_epi32(equal, _mm256_cmpeq_epi32(x, y));
	}

	struct folded f;
	double abs4[4];
	float rel8[8];
	uint32_t b1[8], b5[8], eq[8], ulp8[8], tmag8[8], gmag8[8];
	for (int k = 0; k < NSUMS; k++) {
		_mm256_storeu_pd(f.lane[k], acc[k][0]);
		_mm256_storeu_pd(f.lane[k] + 4, acc[k][1]);
	}
	_mm256_storeu_pd(abs4, max_abs);
	_mm256_storeu_ps(rel8, max_rel);
	_mm256_storeu_si256((__m256i *)(void *)b1, below1);
	_mm256_storeu_si256((__m256i *)(void *)b5, below5);
	_mm256_storeu_si256((__m256i *)(void *)eq, equal);
	_mm256_storeu_si256((__m256i *)(void *)ulp8, max_ulp);
	_mm256_storeu_si256((__m256i *)(void *)tmag8, t_mag);
	_mm256_storeu_si256((__m256i *)(void *)gmag8, g_mag);
	fold_lanes(&f, 8, abs4, rel8, b1, b5, eq, ulp8, tmag8, gmag8);
	return finish_chunk(&f, pt, pg, n, i, bf16, s, p);
}

#define AVX512_INLINE __attribute__((target("avx2,avx512f"), always_inline)) static inline

/* 8 element pairs as doubles into the 8 lanes of the four sums. */
AVX512_INLINE void add_eight_elements(__m512d acc[NSUMS], __m512d x, __m512d y, __m512d *max_abs)
{
	const __m512i magnitude = _mm512_set1_epi64(0x7FFFFFFFFFFFFFFF);
	__m512d d = _mm512_sub_pd(x, y);
	acc[SUM_DOT] = _mm512_add_pd(acc[SUM_DOT], _mm512_mul_pd(x, y));
	acc[SUM_NN] = _mm512_add_pd(acc[SUM_NN], _mm512_mul_pd(x, x));
	acc[SUM_GG] = _mm512_add_pd(acc[SUM_GG], _mm512_mul_pd(y, y));
	acc[SUM_DD] = _mm512_add_pd(acc[SUM_DD], _mm512_mul_pd(d, d));
	*max_abs = _mm512_max_pd(*max_abs, _mm512_castsi512_pd(_mm512_and_si512(_mm512_castpd_si512(d), magnitude)));
}

/* 16 elements as floats. */
AVX512_INLINE __m512 load16(const unsigned char *p, bool bf16)
{
	if (!bf16)
		return _mm512_loadu_ps((const float *)(const void *)p);
	__m512i wide = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)p));
	return _mm512_castsi512_ps(_mm512_slli_epi32(wide, 16));
}

/* The upper 8 floats of 16, as doubles. */
AVX512_INLINE __m512d upper8(__m512 v)
{
	return _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
}

/*
 * finite_pass_avx2 with 512-bit registers, 16 elements a step: the same
 * operations on each element in the same order (the same results, bit for
 * bit), in about half the instructions.
 */
AVX512_INLINE bool finite_pass_avx512(const unsigned char *pt, const unsigned char *pg, int64_t n, bool bf16,
				      struct sums *s, struct pass *p)
{
	const __m512 t1 = _mm512_set1_ps(0.001f), t5 = _mm512_set1_ps(0.005f), eps = _mm512_set1_ps(FLT_EPSILON);
	const __m512i magnitude = _mm512_set1_epi32(0x7FFFFFFF), one = _mm512_set1_epi32(1);
	const unsigned size = bf16 ? 2 : 4;
	__m512d acc[NSUMS], max_abs = _mm512_setzero_pd();
	__m512 max_rel = _mm512_setzero_ps();
	__m512i below1 = _mm512_setzero_si512(), below5 = below1, equal = below1, max_ulp = below1, t_mag = below1,
		g_mag = below1;
	int64_t i = 0;

	for (int k = 0; k < NSUMS; k++)
		acc[k] = _mm512_loadu_pd(s->lane[k]);
	for (; i + 16 <= n; i += 16) {
		__m512 af = load16(pt + size * i, bf16), bf = load16(pg + size * i, bf16);
		add_eight_elements(acc, _mm512_cvtps_pd(_mm512_castps512_ps256(af)),
				   _mm512_cvtps_pd(_mm512_castps512_ps256(bf)), &max_abs);
		add_eight_elements(acc, upper8(af), upper8(bf), &max_abs);
		__m512 z = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(bf, _mm512_setzero_ps(), _CMP_EQ_OQ), eps);
		__m512 a2 = _mm512_add_ps(af, z), b2 = _mm512_add_ps(bf, z);
		__m512 q = _mm512_div_ps(_mm512_sub_ps(a2, b2), b2);
		__m512 re = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(q), magnitude));
		max_rel = _mm512_max_ps(max_rel, re);
		below1 = _mm512_mask_add_epi32(below1, _mm512_cmp_ps_mask(re, t1, _CMP_LT_OQ), below1, one);
		below5 = _mm512_mask_add_epi32(below5, _mm512_cmp_ps_mask(re, t5, _CMP_LT_OQ), below5, one);
		__m512i x = _mm512_castps_si512(af), y = _mm512_castps_si512(bf);
		__m512i mx = _mm512_and_si512(x, magnitude), my = _mm512_and_si512(y, magnitude);
		__mmask16 opposite = _mm512_cmplt_epi32_mask(_mm512_xor_si512(x, y), _mm512_setzero_si512());
		__m512i u = _mm512_mask_blend_epi32(opposite, _mm512_abs_epi32(_mm512_sub_epi32(mx, my)),
						    _mm512_add_epi32(mx, my));
		max_ulp = _mm512_max_epu32(max_ulp, u);
		t_mag = _mm512_max_epu32(t_mag, mx);
		g_mag = _mm512_max_epu32(g_mag, my);
		equal = _mm512_mask_add_epi32(equal, _mm512_cmpeq_epi32_mask(x, y), equal, one);
	}

	struct folded f;
	double abs8[8];
	float rel16[16];
	uint32_t b1[16], b5[16], eq[16], ulp16[16], tmag16[16], gmag16[16];
	for (int k = 0; k < NSUMS; k++)
		_mm512_storeu_pd(f.lane[k], acc[k]);
	_mm512_storeu_pd(abs8, max_abs);
	_mm512_storeu_ps(rel16, max_rel);
	_mm512_storeu_si512(b1, below1);
	_mm512_storeu_si512(b5, below5);
	_mm512_storeu_si512(eq, equal);
	_mm512_storeu_si512(ulp16, max_ulp);
	_mm512_storeu_si512(tmag16, t_mag);
	_mm512_storeu_si512(gmag16, g_mag);
	fold_lanes(&f, 16, abs8, rel16, b1, b5, eq, ulp16, tmag16, gmag16);
	return finish_chunk(&f, pt, pg, n, i, bf16, s, p);
}

/* Each loop compiled for each dtype, so that the loads take no branch. */
#define PASS_VARIANT(name, isa, loop, bf16)                                                                  \
	__attribute__((target(isa))) static bool name(const unsigned char *pt, const unsigned char *pg, int64_t n, \
						    struct sums *s, struct pass *p)                          \
	{                                                                                                      \
		return loop(pt, pg, n, bf16, s, p);                                                            \
	}
PASS_VARIANT(finite_pass_avx2_f32, "avx2", finite_pass_avx2, false)
PASS_VARIANT(finite_pass_avx2_bf16, "avx2", finite_pass_avx2, true)
PASS_VARIANT(finite_pass_avx512_f32, "avx2,avx512f", finite_pass_avx512, false)
PASS_VARIANT(finite_pass_avx512_bf16, "avx2,avx512f", finite_pass_avx512, true)
#undef PASS_VARIANT
#endif

/* The pass over a chunk of float32 or bfloat16 bytes; false when it holds an infinity or a NaN. */
static bool finite_pass(const unsigned char *pt, const unsigned char *pg, int64_t n, bool bf16, float *buf_t,
			float *buf_g, struct sums *s, struct pass *p)
{
#ifdef HAVE_AVX2_KERNEL
	if (kernel_allowed == TM_KERNEL_BEST && __builtin_cpu_supports("avx512f"))
		return bf16 ? finite_pass_avx512_bf16(pt, pg, n, s, p) : finite_pass_avx512_f32(pt, pg, n, s, p);
	if (kernel_allowed != TM_KERNEL_PLAIN && __builtin_cpu_supports("avx2"))
		return bf16 ? finite_pass_avx2_bf16(pt, pg, n, s, p) : finite_pass_avx2_f32(pt, pg, n, s, p);
#endif
	return finite_pass_c(pt, pg, n, bf16, buf_t, buf_g, s, p);
}

/* Our differences of a chunk of finite floats, from its pass. */
static void merge_pass(const struct pass *p, const unsigned char *pt, const unsigned char *pg, int64_t at,
		       bool bf16, struct tmetric *m)
{
	unsigned size = bf16 ? 2 : 4;
	if (float_of_bits(p->t_mag) > m->t_absmax) /* the chunk is finite: its largest magnitudes are finite */
		m->t_absmax = float_of_bits(p->t_mag);
	if (float_of_bits(p->g_mag) > m->g_absmax)
		m->g_absmax = float_of_bits(p->g_mag);
	if (!p->ndiff)
		return;
	if (m->first_diff < 0) {
		int64_t i = 0;
		while (!memcmp(pt + size * i, pg + size * i, size))
			i++;
		m->first_diff = at + i;
	}
	m->ndiff += p->ndiff;
	m->nbeyond += p->ndiff;
	if (isinf(m->max_ulp))
		return; /* a NaN met a number before: stays infinite */
	double ulps = bf16 ? (double)(p->max_ulp >> 16) : (double)p->max_ulp;
	if (ulps > m->max_ulp)
		m->max_ulp = ulps;
	if (p->max_abs > m->max_abs)
		m->max_abs = p->max_abs;
}

/* Both comparisons of one chunk: the fused pass when it is finite, the element-wise paths when not. */
static void compare_chunk(const unsigned char *pt, const unsigned char *pg, int64_t n, int64_t at, bool bf16,
			  float *buf_t, float *buf_g, struct sums *s, struct tmetric *m)
{
	if (!s->position_mismatch) {
		struct sums before = *s;
		struct pass p;
		if (finite_pass(pt, pg, n, bf16, buf_t, buf_g, s, &p)) {
			merge_pass(&p, pt, pg, at, bf16, m);
			return;
		}
		*s = before;
	}
	bool equal = !memcmp(pt, pg, (size_t)n * (bf16 ? 2 : 4));
	add_absmax(m, pt, bf16 ? DT_BFLOAT16 : DT_FLOAT32, pg, bf16 ? DT_BFLOAT16 : DT_FLOAT32, n, equal);
	if (!equal)
		(bf16 ? diff_bf16 : diff_f32)(pt, pg, n, at, m);
	if (!s->position_mismatch)
		accumulate_f32(chunk_floats(pt, n, bf16, buf_t), chunk_floats(pg, n, bf16, buf_g), n, s);
}

/* Whether t and g can take the one pass: float32 or bfloat16 alike, plain bytes, more than one element. */
static bool one_pass_applies(const struct tensor *t, const struct tensor *g, const struct tm_band *band,
			     const struct tmetric *m)
{
	return !band && m->comparable && (t->dtype == DT_FLOAT32 || t->dtype == DT_BFLOAT16) && t->numel > 1 &&
	       plain_bytes(t) && plain_bytes(g);
}

/*
 * One side of the one pass, a chunk at a time.  Elements that are in the
 * file as they are come copied a block at a time (pread into a buffer the
 * cache holds: cheaper than mapping each page of a large tensor); others
 * are read in place.
 */
#define BLOCK (16 * CHUNK)

struct side {
	const struct tensor *t;
	size_t size;
	unsigned char *block; /* BLOCK elements from block_at, or NULL: in place */
	int64_t block_at, block_n;
};

/* block: the work's slot for this side's blocks */
static void side_open(struct side *sd, const struct tensor *t, size_t size, void **block)
{
	*sd = (struct side){ .t = t, .size = size, .block = work_buffer(block, BLOCK * size) };
}

/* Elements [at, at + n) of one side, n <= CHUNK; valid until the next call. */
static const unsigned char *side_chunk(struct side *sd, int64_t at, int64_t n)
{
	const unsigned char *in_place = sd->t->data + (size_t)at * sd->size;
	if (!sd->block)
		return in_place;
	if (at < sd->block_at || at + n > sd->block_at + sd->block_n) {
		int64_t want = sd->t->numel - at < BLOCK ? sd->t->numel - at : BLOCK;
		if (!tensor_copy_plain(sd->t, at, want, sd->block)) {
			sd->block = NULL; /* not in the file as it is, or it shrank: in place from here on */
			return in_place;
		}
		sd->block_at = at;
		sd->block_n = want;
	}
	return sd->block + (size_t)(at - sd->block_at) * sd->size;
}

/*
 * The one pass.  While every chunk so far is the same bytes, only the
 * hashes are taken: identical tensors need no arithmetic.  At the first
 * chunk that differs, the sums catch up on the chunks before it.
 */
static void one_pass(const struct tensor *t, const struct tensor *g, struct tmetric *m, struct work *w)
{
	bool bf16 = t->dtype == DT_BFLOAT16;
	size_t size = bf16 ? 2 : 4;
	float *buf_t = work_buffer(&w->f32[0], CHUNK * sizeof(float)), *buf_g = work_buffer(&w->f32[1], CHUNK * sizeof(float));
	XXH3_state_t *ht = work_hash(w, 0), *hg = work_hash(w, 1);
	struct side st, sg;
	struct sums s = { 0 };
	int64_t summed = 0; /* elements [0, summed) are in s */

	side_open(&st, t, size, &w->block[0]);
	side_open(&sg, g, size, &w->block[1]);
	for (int64_t at = 0; at < t->numel; at += CHUNK) {
		int64_t n = t->numel - at < CHUNK ? t->numel - at : CHUNK;
		const unsigned char *pt = side_chunk(&st, at, n), *pg = side_chunk(&sg, at, n);
		xxh3_update_wide(ht, pt, (size_t)n * size, kernel_allowed == TM_KERNEL_PLAIN);
		xxh3_update_wide(hg, pg, (size_t)n * size, kernel_allowed == TM_KERNEL_PLAIN);
		if (!m->ndiff && same_chunk(pt, pg, n, t->dtype, m))
			continue;
		for (; summed < at; summed += CHUNK) /* the same bytes so far: their sums */
			compare_chunk(side_chunk(&st, summed, CHUNK), side_chunk(&sg, summed, CHUNK), CHUNK, summed, bf16,
				      buf_t, buf_g, &s, m);
		pt = side_chunk(&st, at, n);
		pg = side_chunk(&sg, at, n);
		compare_chunk(pt, pg, n, at, bf16, buf_t, buf_g, &s, m);
		summed = at + n;
	}
	m->t_hash = XXH3_64bits_digest(ht);
	m->g_hash = XXH3_64bits_digest(hg);
	m->same = !m->ndiff;
	if (!identical_shortcut(t, m))
		sums_to_cells(&s, t, g, m);
}

static void compare(const struct tensor *t, const struct tensor *g, const struct tm_band *band, struct tmetric *m,
		    struct work *w)
{
	int64_t st[TENSOR_MAX_DIMS], sg[TENSOR_MAX_DIMS];
	int nt, ng;

	if (band && !(band->rtol > 0) && !(band->atol > 0) && !(band->ulps > 0))
		band = NULL; /* all zero: bitwise */
	memset(m, 0, sizeof(*m));
	m->first_diff = -1;
	m->max_abs = -1;
	m->numel = t->numel;
	m->t_absmax = m->g_absmax = -1;
	m->comparable = t->dtype == g->dtype && same_shape(t->shape, t->ndim, g->shape, g->ndim);
	m->widened = t->dtype != g->dtype && widens(t->dtype) && widens(g->dtype) &&
		     same_shape(t->shape, t->ndim, g->shape, g->ndim);
	if (m->comparable || m->widened)
		m->max_abs = m->t_absmax = m->g_absmax = 0;
	if (one_pass_applies(t, g, band, m)) {
		one_pass(t, g, m, w);
		return;
	}
	compare_bytes(t, g, band, m, w);

	if (t->numel == 0) {
		fill_cells(m, "unsupported");
		add_note(m, "This is empty data, can not compare.");
		return;
	}
	nt = squeeze(t, st);
	ng = squeeze(g, sg);
	if (!same_shape(st, nt, sg, ng)) {
		fill_cells(m, "shape unmatched");
		add_note(m, "Shape of NPU and bench tensor do not match. Skipped.");
		return;
	}
	if (nt == 0) {
		zero_d(t, g, m);
		return;
	}
	if (identical_shortcut(t, m))
		return;
	tensors(t, g, m, w);
}

int tmetric_compare_files(const struct tensor *t, const struct tensor *g, const struct tm_band *band,
			  struct tmetric *m, struct strbuf *err)
{
	struct work *w = xcalloc(1, sizeof(*w)); /* set before sigsetjmp, and not after: valid after the jump */
	struct tensor_guard guard;
	volatile int rc = 0;

	tensor_guard_begin(&guard);
	if (!sigsetjmp(guard.jump, 0)) {
		compare(t, g, band, m, w);
	} else {
		struct strbuf why = STRBUF_INIT;
		if (!tensor_fault_message(t, guard.addr, &why) && !tensor_fault_message(g, guard.addr, &why))
			strbuf_addstr(&why, "a read of the tensors faulted (SIGBUS)");
		tmetric_unsupported(m, "");
		snprintf(m->notes, sizeof(m->notes), "%s", why.buf);
		if (err)
			strbuf_addbuf(err, &why);
		strbuf_release(&why);
		rc = -1;
	}
	tensor_guard_end(&guard);
	work_release(w);
	free(w);
	return rc;
}

void tmetric_compare(const struct tensor *t, const struct tensor *g, const struct tm_band *band, struct tmetric *m)
{
	tmetric_compare_files(t, g, band, m, NULL);
}
