/*
 * msprobe's tensor metrics (tmetric.h) on small in-memory tensors, against
 * the outputs msprobe 26.0.0 printed for them (msprobe-compare.md sections
 * 6 and 11.2, marked verified there), and our bitwise comparison.
 */
#include "tap.h"
#include "tmetric_ways.h"

#include <float.h>
#include <math.h>

/* A contiguous in-memory tensor over `data` (not owned). */
static struct tensor mem(enum dtype d, const void *data, int ndim, const int64_t *shape)
{
	struct tensor t;
	int64_t stride = 1;
	memset(&t, 0, sizeof(t));
	t.dtype = d;
	t.ndim = ndim;
	t.numel = 1;
	for (int i = ndim - 1; i >= 0; i--) {
		t.shape[i] = shape[i];
		t.stride[i] = stride;
		stride *= shape[i];
		t.numel *= shape[i];
	}
	t.data = t.numel ? data : NULL;
	t.contiguous = true;
	return t;
}

static void cells_are(const struct tmetric *m, const char *const want[TM_NCELLS], const char *what)
{
	static const char *const names[TM_NCELLS] = { "Cosine", "EucDist", "MaxAbsErr", "MaxRelativeErr",
						     "One Thousandth", "Five Thousandths" };
	for (int i = 0; i < TM_NCELLS; i++) {
		char label[160];
		snprintf(label, sizeof(label), "%s: %s", what, names[i]);
		is_str(m->cell[i], want[i], label);
	}
}

static void msprobe_examples(void)
{
	struct tmetric m;
	{
		/* section 6: nan/inf at the same places are zeroed; 0 in the golden takes eps */
		float t[] = { 1, 0.5f, NAN, INFINITY, 2.0001f }, g[] = { 1, 0, NAN, INFINITY, 2 };
		int64_t s[] = { 5 };
		struct tensor a = mem(DT_FLOAT32, t, 1, s), b = mem(DT_FLOAT32, g, 1, s);
		static const char *const want[] = { "0.975901929607", "0.5000000099794873", "0.5", "4194304.0", "0.8", "0.8" };
		tmetric_compare(&a, &b, NULL, &m);
		cells_are(&m, want, "float32 with nan/inf at the same places");
		is_int(m.ndiff, 2, "ours: 2 elements differ");
		is_int(m.first_diff, 1, "ours: the first at index 1");
	}
	{
		bool t[] = { true, false }, g[] = { true, false };
		int64_t s[] = { 2 };
		struct tensor a = mem(DT_BOOL, t, 1, s), b = mem(DT_BOOL, g, 1, s);
		static const char *const want[] = { "1.0", "0.0", "0.0", "0.0", "1.0", "1.0" };
		tmetric_compare(&a, &b, NULL, &m);
		cells_are(&m, want, "bool");
		ok(m.same, "ours: the same bytes");
	}
	{
		float t[] = { 1e-20f, 0 }, g[] = { 0, 0 };
		int64_t s[] = { 2 };
		struct tensor a = mem(DT_FLOAT32, t, 1, s), b = mem(DT_FLOAT32, g, 1, s);
		tmetric_compare(&a, &b, NULL, &m);
		is_str(m.cell[TM_COSINE], "1.0", "both norms below eps: Cosine 1.0");
	}
	{
		int64_t t = 3, g = 5;
		struct tensor a = mem(DT_INT64, &t, 0, NULL), b = mem(DT_INT64, &g, 0, NULL);
		tmetric_compare(&a, &b, NULL, &m);
		is_str(m.cell[TM_MAX_REL], "0.40000000596", "0-d int64 3 vs 5: float32 relative error");
		is_str(m.cell[TM_COSINE], "unsupported", "0-d: no Cosine");
	}
	{
		uint8_t t = 3, g = 5;
		struct tensor a = mem(DT_UINT8, &t, 0, NULL), b = mem(DT_UINT8, &g, 0, NULL);
		tmetric_compare(&a, &b, NULL, &m);
		is_str(m.cell[TM_MAX_ABS], "254.0", "0-d uint8 3 - 5 wraps");
	}
	{
		/* section 11.2: torch.mul outputs */
		float t[] = { 2, 4, 6, 8.01f }, g[] = { 2, 4, 6, 8 };
		int64_t s[] = { 2, 2 };
		struct tensor a = mem(DT_FLOAT32, t, 2, s), b = mem(DT_FLOAT32, g, 2, s);
		static const char *const want[] = { "1.0", "0.010000228881835938", "0.010000228882", "0.00125002861", "0.75",
						    "1.0" };
		tmetric_compare(&a, &b, NULL, &m);
		cells_are(&m, want, "section 11.2 output.0");
	}
	{
		float t = 10.0f, g = 10.5f;
		struct tensor a = mem(DT_FLOAT32, &t, 0, NULL), b = mem(DT_FLOAT32, &g, 0, NULL);
		static const char *const want[] = { "unsupported", "unsupported", "0.5", "0.047619048506", "unsupported",
						    "unsupported" };
		tmetric_compare(&a, &b, NULL, &m);
		cells_are(&m, want, "section 11.2 output.1 (0-d)");
	}
	{
		/* a [1, 4] tensor against a [4] one: squeezed, they compare */
		float t[] = { 1, 2, 3, 4 }, g[] = { 1, 2, 3, 4 };
		int64_t s1[] = { 1, 4 }, s2[] = { 4 };
		struct tensor a = mem(DT_FLOAT32, t, 2, s1), b = mem(DT_FLOAT32, g, 1, s2);
		tmetric_compare(&a, &b, NULL, &m);
		is_str(m.cell[TM_COSINE], "1.0", "squeeze: [1, 4] vs [4] compare");
		ok(!m.comparable, "ours: shapes differ, no bitwise answer");
	}
	{
		float t[] = { 1, 2, 3 }, g[] = { 1, 2, 3, 4 };
		int64_t s1[] = { 3 }, s2[] = { 4 };
		struct tensor a = mem(DT_FLOAT32, t, 1, s1), b = mem(DT_FLOAT32, g, 1, s2);
		tmetric_compare(&a, &b, NULL, &m);
		is_str(m.cell[TM_EUC], "shape unmatched", "different shapes: shape unmatched");
	}
	{
		float t[] = { NAN, 1 }, g[] = { 1, NAN };
		int64_t s[] = { 2 };
		struct tensor a = mem(DT_FLOAT32, t, 1, s), b = mem(DT_FLOAT32, g, 1, s);
		tmetric_compare(&a, &b, NULL, &m);
		is_str(m.cell[TM_MAX_ABS], "N/A", "nan at different places: N/A");
		ok(isinf(m.max_ulp), "ours: a NaN against a number is infinitely far");
	}
	{
		float t[] = { 0 };
		int64_t s[] = { 0 };
		struct tensor a = mem(DT_FLOAT32, t, 1, s), b = mem(DT_FLOAT32, t, 1, s);
		tmetric_compare(&a, &b, NULL, &m);
		is_str(m.cell[TM_COSINE], "unsupported", "empty: unsupported");
	}
}

static void ulps_and_bands(void)
{
	struct tmetric m;
	float t[] = { 1.0f, 2.0f, 3.0f, 4.0f }, g[] = { 1.0f, 2.0f, 3.0f, 4.0f };
	int64_t s[] = { 4 };
	g[2] = nextafterf(3.0f, 4.0f);
	g[3] = nextafterf(nextafterf(4.0f, 0.0f), 0.0f);
	struct tensor a = mem(DT_FLOAT32, t, 1, s), b = mem(DT_FLOAT32, g, 1, s);
	tmetric_compare(&a, &b, NULL, &m);
	is_int(m.ndiff, 2, "two elements one and two ulps away differ");
	is_int(m.first_diff, 2, "the first at index 2");
	is_int((long long)m.max_ulp, 2, "up to 2 ulps");
	is_int(m.nbeyond, 2, "without a band both count");
	struct tm_band one_ulp = { 0, 0, 1 };
	tmetric_compare(&a, &b, &one_ulp, &m);
	is_int(m.nbeyond, 1, "a 1-ulp band passes one of them");
	struct tm_band rel = { 1e-6, 0, 0 };
	tmetric_compare(&a, &b, &rel, &m);
	is_int(m.nbeyond, 0, "rtol 1e-6 passes both");
	ok(m.t_hash != m.g_hash, "the hashes of different bytes differ");

	uint16_t h1[] = { dtype_float_to_bf16(1.0f), dtype_float_to_bf16(2.0f) };
	uint16_t h2[] = { h1[0], (uint16_t)(h1[1] + 3) };
	int64_t s2[] = { 2 };
	struct tensor c = mem(DT_BFLOAT16, h1, 1, s2), d = mem(DT_BFLOAT16, h2, 1, s2);
	tmetric_compare(&c, &d, NULL, &m);
	is_int((long long)m.max_ulp, 3, "bfloat16: ulps of bfloat16");
}

/* ---- two floating dtypes, widened (tmetric.h) ---- */

/* A double equal to the expected one (infinities too); both printed in full when not. */
static bool is_exactly(double got, double want, const char *what)
{
	bool same = got == want || (isnan(got) && isnan(want));
	if (!tap_ok(same, "%s", what))
		printf("#   got:  %.17g\n#   want: %.17g\n", got, want);
	return same;
}

static uint16_t bf(float x)
{
	return dtype_float_to_bf16(x);
}

static uint16_t half(float x)
{
	return dtype_float_to_half(x);
}

/*
 * The unit in the last place of a type of p significand bits and least
 * normal exponent emin at x, worked out with frexp(): x = f 2^e with f in
 * [0.5, 1), so x lies in [2^(e-1), 2^e).
 */
static double ref_ulp(double x, int p, int emin)
{
	int e = emin + 1;
	if (x != 0)
		frexp(x, &e);
	return ldexp(1, (e - 1 > emin ? e - 1 : emin) - p + 1);
}

static void widened_by_hand(void)
{
	struct tmetric m;
	int64_t s4[] = { 4 }, s3[] = { 3 }, s2[] = { 2 }, s22[] = { 2, 2 }, s14[] = { 1, 4 };
	{
		uint16_t t[] = { bf(1), bf(-2.5f), bf(0.375f), bf(-96) };
		float g[] = { 1, -2.5f, 0.375f, -96 };
		struct tensor a = mem(DT_BFLOAT16, t, 1, s4), b = mem(DT_FLOAT32, g, 1, s4);
		tmetric_compare(&a, &b, NULL, &m);
		ok(m.widened && !m.comparable && !m.same, "bfloat16 against float32, equal when widened: widened, not comparable, not the same");
		is_int(m.ndiff, 0, "no element differs once widened");
		is_int(m.first_diff, -1, "no first difference");
		is_exactly(m.max_abs, 0, "max_abs 0");
		is_exactly(m.max_ulp, 0, "max_ulp 0");
		is_int(m.nbeyond, 0, "nothing beyond");
		is_exactly(m.g_absmax, 96, "g_absmax |-96|");
		is_exactly(m.t_absmax, 96, "t_absmax |-96|");
	}
	{
		/* 3.03125 = 3 + 2^-5 lies in [2, 4), where bfloat16's ulp is 2^(1 - 7) = 2^-6: 2 ulps from 3.0 */
		uint16_t t[] = { bf(1), bf(2), bf(3), bf(4) };
		float g[] = { 1, 2, 3.03125f, 4 };
		struct tensor a = mem(DT_BFLOAT16, t, 1, s4), b = mem(DT_FLOAT32, g, 1, s4);
		tmetric_compare(&a, &b, NULL, &m);
		ok(m.widened && !m.same, "bfloat16 3.0 against float32 3.03125: widened");
		is_int(m.ndiff, 1, "one element differs");
		is_int(m.first_diff, 2, "at index 2");
		is_exactly(m.max_abs, 0.03125, "max_abs 2^-5");
		is_exactly(m.max_ulp, 2, "2 bfloat16 ulps (float32's would be 2^17)");
		is_int(m.nbeyond, 1, "without a band it counts");
		is_exactly(m.t_absmax, 4, "t_absmax 4");
		is_exactly(m.g_absmax, 4, "g_absmax 4");
		static const struct {
			struct tm_band band;
			int beyond;
			const char *what;
		} bands[] = {
			{ { 0.011, 0, 0 }, 0, "rtol 0.011: 2^-5 <= 0.011 * 3.03125 = 0.0333 passes" },
			{ { 0.01, 0, 0 }, 1, "rtol 0.01: 2^-5 > 0.0303 does not" },
			{ { 0, 0.03125, 0 }, 0, "atol 2^-5 passes (<=)" },
			{ { 0, 0.03, 0 }, 1, "atol 0.03 does not" },
			{ { 0, 0, 2 }, 0, "2 ulps pass (bfloat16's)" },
			{ { 0, 0, 1.5 }, 1, "1.5 ulps do not" },
		};
		for (size_t i = 0; i < sizeof(bands) / sizeof(bands[0]); i++) {
			tmetric_compare(&a, &b, &bands[i].band, &m);
			is_int(m.nbeyond, bands[i].beyond, bands[i].what);
		}
		/* the sides swapped: ulps at the golden 3.0, still bfloat16's (the coarser) */
		float t2[] = { 3.03125f };
		uint16_t g2[] = { bf(3) };
		int64_t s1[] = { 1 };
		a = mem(DT_FLOAT32, t2, 1, s1);
		b = mem(DT_BFLOAT16, g2, 1, s1);
		tmetric_compare(&a, &b, NULL, &m);
		ok(m.widened, "float32 target against a bfloat16 golden: widened");
		is_exactly(m.max_ulp, 2, "2 bfloat16 ulps at the golden 3.0");
	}
	{
		float g[] = { 1, NAN, 2 };
		uint32_t payload = 0x7FC00001u; /* another NaN */
		uint16_t t[] = { bf(1), bf(NAN), bf(2) };
		struct tensor a = mem(DT_BFLOAT16, t, 1, s3), b = mem(DT_FLOAT32, g, 1, s3);
		tmetric_compare(&a, &b, NULL, &m);
		is_int(m.ndiff, 0, "NaN against NaN at the same index: equal");
		memcpy(&g[1], &payload, 4);
		tmetric_compare(&a, &b, NULL, &m);
		is_int(m.ndiff, 0, "whatever their payloads");
		is_exactly(m.max_abs, 0, "max_abs 0");
		is_exactly(m.t_absmax, 2, "t_absmax over the finite elements");
		is_exactly(m.g_absmax, 2, "g_absmax over the finite elements");
		g[1] = 5;
		tmetric_compare(&a, &b, NULL, &m);
		is_int(m.ndiff, 1, "NaN against 5: one difference");
		is_int(m.first_diff, 1, "at index 1");
		ok(isinf(m.max_abs) && m.max_abs > 0, "NaN against a number: max_abs inf");
		ok(isinf(m.max_ulp) && m.max_ulp > 0, "and max_ulp inf");
		struct tm_band wide = { 1e9, 1e9, 1e9 };
		tmetric_compare(&a, &b, &wide, &m);
		is_int(m.nbeyond, 1, "a NaN against a number never passes a band");
		is_exactly(m.g_absmax, 5, "g_absmax 5");
	}
	{
		uint16_t t[] = { bf(INFINITY), bf(-INFINITY), bf(-0.0f), bf(1) };
		float g[] = { INFINITY, INFINITY, 0.0f, FLT_MAX };
		struct tensor a = mem(DT_BFLOAT16, t, 1, s4), b = mem(DT_FLOAT32, g, 1, s4);
		struct tm_band ulps = { 0, 0, 1 };
		tmetric_compare(&a, &b, &ulps, &m);
		is_int(m.ndiff, 3, "inf = inf; -inf against inf, -0 against +0 and 1 against FLT_MAX differ");
		is_int(m.first_diff, 1, "the first at index 1");
		ok(isinf(m.max_abs) && isinf(m.max_ulp), "differing infinities: inf apart");
		is_int(m.nbeyond, 2, "-0 against +0 (0 ulps) passes a 1-ulp band; the infinity and FLT_MAX do not");
		is_exactly(m.t_absmax, 1, "t_absmax: the infinities are not finite");
		is_exactly(m.g_absmax, FLT_MAX, "g_absmax FLT_MAX");
	}
	{
		/* float16's ulp in [512, 1024) is 2^(9 - 10) = 0.5 */
		uint16_t t[] = { half(1), half(1000), half(-0.5f) };
		float g[] = { 1, 1000.25f, -0.5f };
		struct tensor a = mem(DT_FLOAT16, t, 1, s3), b = mem(DT_FLOAT32, g, 1, s3);
		tmetric_compare(&a, &b, NULL, &m);
		ok(m.widened && !m.comparable && !m.same, "float16 against float32: widened");
		is_int(m.ndiff, 1, "1000 against 1000.25 differs");
		is_int(m.first_diff, 1, "at index 1");
		is_exactly(m.max_abs, 0.25, "max_abs 0.25");
		is_exactly(m.max_ulp, 0.5, "half a float16 ulp");
		is_exactly(m.g_absmax, 1000.25, "g_absmax 1000.25");
		is_exactly(m.t_absmax, 1000, "t_absmax 1000");
		g[1] = 1000;
		tmetric_compare(&a, &b, NULL, &m);
		is_int(m.ndiff, 0, "float16 against float32 equal when widened");
	}
	{
		/* float32's ulp at 1 is 2^-23: 2^-30 is 2^-7 of it */
		double t[] = { 1 + 0x1p-30, 2 };
		float g[] = { 1, 2 };
		struct tensor a = mem(DT_FLOAT64, t, 1, s2), b = mem(DT_FLOAT32, g, 1, s2);
		tmetric_compare(&a, &b, NULL, &m);
		ok(m.widened, "float64 against float32: widened");
		is_int(m.ndiff, 1, "1 + 2^-30 against 1 differs");
		is_int(m.first_diff, 0, "at index 0");
		is_exactly(m.max_abs, 0x1p-30, "max_abs 2^-30");
		is_exactly(m.max_ulp, 0x1p-7, "2^-7 float32 ulps");
	}
	{
		/* 2^-20 is subnormal in float16 (ulp 2^-24) and normal in bfloat16 (ulp 2^(-20 - 7)): float16 is coarser there */
		uint16_t t[] = { bf(0x1p-20f + 0x1p-27f) };
		uint16_t g[] = { half(0x1p-20f) };
		int64_t s1[] = { 1 };
		struct tensor a = mem(DT_BFLOAT16, t, 1, s1), b = mem(DT_FLOAT16, g, 1, s1);
		tmetric_compare(&a, &b, NULL, &m);
		ok(m.widened, "bfloat16 against float16: widened");
		is_exactly(m.max_abs, 0x1p-27, "max_abs 2^-27");
		is_exactly(m.max_ulp, 0.125, "in float16's subnormal ulps (2^-24), not bfloat16's");
	}
	{
		uint16_t t[] = { bf(1), bf(2), bf(3), bf(5) };
		float g[] = { 1, 2, 3, 4 };
		struct tensor a = mem(DT_BFLOAT16, t, 1, s4), b = mem(DT_FLOAT32, g, 2, s22);
		tmetric_compare(&a, &b, NULL, &m);
		ok(!m.widened && !m.comparable, "[4] against [2, 2]: not widened");
		ok(m.ndiff == 0 && m.max_abs == -1 && m.g_absmax == -1 && m.t_absmax == -1,
		   "no numbers of ours (ndiff 0, max_abs, g_absmax, t_absmax -1)");
		b = mem(DT_FLOAT32, g, 2, s14);
		tmetric_compare(&a, &b, NULL, &m);
		ok(!m.widened, "[4] against [1, 4]: not widened (shapes before squeeze)");
		is_str(m.cell[TM_EUC], "1.0", "though msprobe compares them squeezed");
	}
	{
		int32_t t[] = { 1, 2 };
		float g[] = { 1, 2 };
		struct tensor a = mem(DT_INT32, t, 1, s2), b = mem(DT_FLOAT32, g, 1, s2);
		tmetric_compare(&a, &b, NULL, &m);
		ok(!m.widened && !m.comparable, "int32 against float32: not widened");
		ok(m.max_abs == -1 && m.g_absmax == -1 && m.t_absmax == -1, "max_abs, g_absmax, t_absmax -1");
		uint8_t f8[] = { dtype_float_to_f8e4m3fn(1), dtype_float_to_f8e4m3fn(2) };
		a = mem(DT_FLOAT8_E4M3FN, f8, 1, s2);
		tmetric_compare(&a, &b, NULL, &m);
		ok(!m.widened, "float8 against float32: not widened");
	}
}

static float random_float(void);

/* A widened pair over several chunks against a second computation element by element. */
static void widened_chunks(void)
{
	enum { N = 3 * 4096 + 5 };
	static float g[N];
	static uint16_t t[N];
	int64_t shape[] = { N }, ndiff = 0, first = -1, beyond = 0;
	double max_abs = 0, max_ulp = 0, t_absmax = 0, g_absmax = 0;
	struct tm_band band = { 0, 0, 1 };
	struct tmetric m;

	for (int i = 0; i < N; i++) {
		g[i] = i < 5000 ? (float)(i % 64) : random_float(); /* the first 5000 exact in bfloat16 */
		t[i] = bf(g[i]);
	}
	g[7000] = NAN;
	t[7000] = bf(NAN);
	g[9000] = INFINITY;
	t[9000] = bf(INFINITY);
	t[N - 1] = bf(-3e38f);
	g[N - 2] = NAN;
	for (int i = 0; i < N; i++) {
		double x = dtype_bf16_to_float(t[i]), y = g[i], d, u;
		if (isfinite(x) && fabs(x) > t_absmax)
			t_absmax = fabs(x);
		if (isfinite(y) && fabs(y) > g_absmax)
			g_absmax = fabs(y);
		if ((isnan(x) && isnan(y)) || (x == y && signbit(x) == signbit(y)))
			continue;
		ndiff++;
		if (first < 0)
			first = i;
		if (isfinite(x) && isfinite(y)) {
			d = fabs(x - y);
			u = d / ref_ulp(y, 8, -126);
		} else {
			d = u = INFINITY;
		}
		beyond += !(isfinite(u) && u <= 1);
		max_abs = d > max_abs ? d : max_abs;
		max_ulp = u > max_ulp ? u : max_ulp;
	}
	struct tensor a = mem(DT_BFLOAT16, t, 1, shape), b = mem(DT_FLOAT32, g, 1, shape);
	tmetric_compare(&a, &b, &band, &m);
	ok(m.widened, "%d bfloat16 against float32: widened", N);
	ok(ndiff > 1000 && first >= 5000, "the pair differs after 5000 elements (%lld)", (long long)ndiff);
	is_int(m.ndiff, ndiff, "ndiff as counted element by element");
	is_int(m.first_diff, first, "first_diff");
	is_int(m.nbeyond, beyond, "nbeyond under a 1-ulp band");
	ok(isinf(m.max_abs) && isinf(m.max_ulp), "a NaN against a number: inf");
	is_exactly(m.t_absmax, t_absmax, "t_absmax");
	is_exactly(m.g_absmax, g_absmax, "g_absmax");
	g[N - 2] = 1;
	t[N - 2] = bf(1);
	tmetric_compare(&a, &b, &band, &m);
	ok(!isinf(m.max_abs), "without it, finite");
	max_abs = max_ulp = 0;
	for (int i = 0; i < N; i++) {
		double x = dtype_bf16_to_float(t[i]), y = g[i];
		if (isfinite(x) && isfinite(y) && x != y) {
			max_abs = fmax(max_abs, fabs(x - y));
			max_ulp = fmax(max_ulp, fabs(x - y) / ref_ulp(y, 8, -126));
		}
	}
	is_exactly(m.max_abs, max_abs, "max_abs as worked out element by element");
	is_exactly(m.max_ulp, max_ulp, "max_ulp in bfloat16 ulps at the golden values");
}

/* The largest finite magnitude of n floats, element by element. */
static double ref_absmax_f32(const float *x, int64_t n)
{
	double best = 0;
	for (int64_t i = 0; i < n; i++)
		if (isfinite(x[i]) && fabs(x[i]) > best)
			best = fabs(x[i]);
	return best;
}

/* g_absmax and t_absmax of comparable pairs: every kernel, every path. */
static void absmax_every_way(void)
{
	enum { N = 3 * 4096 + 5 };
	static float t[N], g[N];
	static uint16_t t16[N], g16[N];
	int64_t shape[] = { N };
	struct tmetric m[NWAYS];
	static const char *const kernels[] = { "TM_KERNEL_BEST", "TM_KERNEL_AVX2", "TM_KERNEL_PLAIN", "element-wise" };

	for (int i = 0; i < N; i++)
		t[i] = g[i] = (float)(i % 1000) / 8;
	g[100] = t[100] = -7777; /* the largest of both, in the first chunk: the same bytes there */
	for (int i = 4096; i < N; i++)
		t[i] += 0.5f;         /* every element from the second chunk on differs */
	t[N - 2] = 9999;             /* the target's largest, in the last, short chunk */
	t[6000] = g[6000] = INFINITY; /* not finite: not counted (the chunk takes the element-wise path) */
	t[6001] = g[6001] = NAN;
	struct tensor a = mem(DT_FLOAT32, t, 1, shape), b = mem(DT_FLOAT32, g, 1, shape);
	ok(compare_every_way(&a, &b, m), "float32: every way agrees (absmax included)");
	for (int k = 0; k < NWAYS; k++) {
		char what[120];
		snprintf(what, sizeof(what), "float32, %s: t_absmax", kernels[k]);
		is_exactly(m[k].t_absmax, ref_absmax_f32(t, N), what);
		snprintf(what, sizeof(what), "float32, %s: g_absmax", kernels[k]);
		is_exactly(m[k].g_absmax, 7777, what);
	}
	is_exactly(ref_absmax_f32(t, N), 9999, "(the second computation: 9999)");

	/* identical: only the hashes and the same-bytes loop run */
	memcpy(t, g, sizeof(t));
	ok(compare_every_way(&a, &b, m), "identical float32: every way agrees");
	for (int k = 0; k < NWAYS; k++) {
		char what[120];
		snprintf(what, sizeof(what), "identical float32, %s: t_absmax and g_absmax 7777", kernels[k]);
		ok(m[k].same && m[k].t_absmax == 7777 && m[k].g_absmax == 7777, "%s", what);
	}
	t[N - 1] = g[N - 1] = -INFINITY;
	ok(compare_every_way(&a, &b, m) && m[WAY_WIDEST].g_absmax == 7777, "identical with -inf: not counted");

	for (int i = 0; i < N; i++) {
		g[i] = random_float();
		t[i] = i % 3 ? g[i] : g[i] * 1.01f;
		t16[i] = bf(t[i]);
		g16[i] = bf(g[i]);
	}
	a = mem(DT_BFLOAT16, t16, 1, shape);
	b = mem(DT_BFLOAT16, g16, 1, shape);
	ok(compare_every_way(&a, &b, m), "bfloat16: every way agrees");
	for (int i = 0; i < N; i++) {
		t[i] = dtype_bf16_to_float(t16[i]);
		g[i] = dtype_bf16_to_float(g16[i]);
	}
	ok(m[WAY_WIDEST].t_absmax == ref_absmax_f32(t, N) && m[WAY_WIDEST].g_absmax == ref_absmax_f32(g, N) &&
		   m[WAY_WIDEST].g_absmax > 0,
	   "bfloat16: t_absmax and g_absmax as worked out element by element");

	{
		int32_t ti[] = { 5, INT32_MIN, 7 }, gi[] = { 5, -3, 7 };
		int64_t s3[] = { 3 };
		struct tmetric one;
		a = mem(DT_INT32, ti, 1, s3);
		b = mem(DT_INT32, gi, 1, s3);
		tmetric_compare(&a, &b, NULL, &one);
		is_exactly(one.t_absmax, 2147483648.0, "int32: t_absmax |INT32_MIN| = 2^31");
		is_exactly(one.g_absmax, 7, "int32: g_absmax 7");
		bool bt[] = { false, true, false }, bg[] = { false, false, false };
		a = mem(DT_BOOL, bt, 1, s3);
		b = mem(DT_BOOL, bg, 1, s3);
		tmetric_compare(&a, &b, NULL, &one);
		ok(one.t_absmax == 1 && one.g_absmax == 0, "bool: 1 and 0");
		uint16_t h[] = { half(-65504), half(INFINITY), half(3) };
		a = mem(DT_FLOAT16, h, 1, s3);
		tmetric_compare(&a, &a, NULL, &one);
		ok(one.same && one.t_absmax == 65504 && one.g_absmax == 65504, "float16: 65504, inf not counted");
		double d[] = { 1e300, -1e301, NAN };
		a = mem(DT_FLOAT64, d, 1, s3);
		tmetric_compare(&a, &a, NULL, &one);
		is_exactly(one.g_absmax, 1e301, "float64: 1e301");
		float e[] = { 0 };
		int64_t s0[] = { 0 };
		a = mem(DT_FLOAT32, e, 1, s0);
		tmetric_compare(&a, &a, NULL, &one);
		ok(one.g_absmax == 0 && one.t_absmax == 0, "empty: 0");
	}
}

/*
 * msprobe's cells of mixed-dtype pairs, taken from the code before widened
 * pairs existed and worked out from msprobe-compare.md section 6: a bfloat16
 * array is loaded as float32 (1.8), so bfloat16 against float32 has no
 * dtype note (3e), float16 against float32 has; the sums in float64, the
 * relative error in float32.
 */
static void msprobe_cells_of_mixed_dtypes(void)
{
	struct tmetric m;
	int64_t s4[] = { 4 }, s3[] = { 3 };
	{
		/*
		 * [1, 2, 3, 4] against [1, 2, 3.03125, 4]: dot 30.09375, |n|^2 30, |b|^2 30.1884765625,
		 * cos 0.999988677838 > 0.9999 -> 0.999989; EucDist sqrt(2^-10) = 0.03125; MaxAbsErr 0.03125;
		 * RE float32(0.03125 / 3.03125) = 0.010309278034 (12 decimals); 3 of 4 below 0.001 and 0.005
		 */
		uint16_t t[] = { bf(1), bf(2), bf(3), bf(4) };
		float g[] = { 1, 2, 3.03125f, 4 };
		struct tensor a = mem(DT_BFLOAT16, t, 1, s4), b = mem(DT_FLOAT32, g, 1, s4);
		static const char *const want[] = { "0.999989", "0.03125", "0.03125", "0.010309278034", "0.75", "0.75" };
		tmetric_compare(&a, &b, NULL, &m);
		cells_are(&m, want, "bfloat16 against float32, one off");
		is_str(m.notes, "", "bfloat16 is float32 to msprobe: no dtype note");
		struct tm_band band = { 0.5, 0, 0 };
		tmetric_compare(&a, &b, &band, &m);
		cells_are(&m, want, "a band changes none of msprobe's cells");
	}
	{
		uint16_t t[] = { bf(1), bf(-2.5f), bf(0.375f), bf(-96) };
		float g[] = { 1, -2.5f, 0.375f, -96 };
		struct tensor a = mem(DT_BFLOAT16, t, 1, s4), b = mem(DT_FLOAT32, g, 1, s4);
		static const char *const want[] = { "1.0", "0.0", "0.0", "0.0", "1.0", "1.0" };
		tmetric_compare(&a, &b, NULL, &m);
		cells_are(&m, want, "bfloat16 against float32, equal values");
	}
	{
		/* nan at the same place: zeroed on both sides (3d); 0 against 0 takes eps: RE 0 */
		uint16_t t[] = { bf(1), bf(NAN), bf(2) };
		float g[] = { 1, NAN, 2 };
		struct tensor a = mem(DT_BFLOAT16, t, 1, s3), b = mem(DT_FLOAT32, g, 1, s3);
		static const char *const want[] = { "1.0", "0.0", "0.0", "0.0", "1.0", "1.0" };
		tmetric_compare(&a, &b, NULL, &m);
		cells_are(&m, want, "bfloat16 against float32, nan at the same place");
		g[1] = 5;
		static const char *const na[] = { "N/A", "N/A", "N/A", "N/A", "N/A", "N/A" };
		tmetric_compare(&a, &b, NULL, &m);
		cells_are(&m, na, "bfloat16 nan against float32 5");
		is_str(m.notes, "The position of inf or nan in NPU and bench Tensor do not match.", "with its note");
	}
	{
		/* cos 0.999999999999961 -> 1.0; RE float32(0.25 / 1000.25) = 0.000249937526 */
		uint16_t t[] = { half(1), half(1000), half(-0.5f) };
		float g[] = { 1, 1000.25f, -0.5f };
		struct tensor a = mem(DT_FLOAT16, t, 1, s3), b = mem(DT_FLOAT32, g, 1, s3);
		static const char *const want[] = { "1.0", "0.25", "0.25", "0.000249937526", "1.0", "1.0" };
		tmetric_compare(&a, &b, NULL, &m);
		cells_are(&m, want, "float16 against float32");
		is_str(m.notes, "Dtype of NPU and bench tensor do not match.", "with the dtype note");
	}
}

/* ---- the one pass for float32 and bfloat16 against the element-wise path ---- */

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint64_t next_random(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* A float spread over many magnitudes and both signs, some of them 0 or subnormal. */
static float random_float(void)
{
	uint64_t r = next_random();
	switch (r % 16) {
	case 0: return 0.0f;
	case 1: return -0.0f;
	case 2: return 1e-40f * (float)(r >> 40 & 0xFF);
	default: return ldexpf((float)((int64_t)(r >> 8 & 0xFFFFFF) - 0x800000) / 0x800000, (int)(r >> 32 & 31) - 16);
	}
}

enum pattern { NOISE, SPREAD, SAME_PREFIX, NONFINITE_SAME, NONFINITE_OTHER, INF_SIGNS, HUGE, IDENTICAL, NPATTERNS };

static const char *const pattern_names[] = { "noise", "spread", "same prefix", "nan/inf in place", "nan/inf misplaced",
					      "+inf against -inf", "huge", "identical" };

/* Golden values g and target values t of pattern p (n elements). */
static void fill_pair(float *t, float *g, int64_t n, enum pattern p)
{
	for (int64_t i = 0; i < n; i++) {
		g[i] = random_float();
		uint64_t r = next_random();
		t[i] = r % 3 ? g[i] : r % 5 ? g[i] * (1 + (float)(r >> 40 & 0xFF) * 1e-6f) : random_float();
	}
	int64_t k = n / 2 + (int64_t)(next_random() % (uint64_t)(n / 2 + 1));
	switch (p) {
	case NOISE: break;
	case SPREAD: /* every element off by about 1e-3, values of one size: each addition rounds, so the order shows */
		for (int64_t i = 0; i < n; i++) {
			g[i] = 1 + (float)(next_random() % 1000000) / 1e6f;
			t[i] = g[i] * (1 + (float)((int)(next_random() % 3) - 1) * 1e-3f);
		}
		break;
	case SAME_PREFIX: /* the first difference late: sums catch up on the chunks before */
		for (int64_t i = 0; i < k && i < n; i++)
			t[i] = g[i];
		break;
	case NONFINITE_SAME:
		t[k % n] = g[k % n] = NAN;
		t[(k + 1) % n] = g[(k + 1) % n] = INFINITY;
		break;
	case NONFINITE_OTHER: t[k % n] = NAN; break;
	case INF_SIGNS:
		t[k % n] = INFINITY;
		g[k % n] = -INFINITY;
		break;
	case HUGE:
		for (int64_t i = 0; i < n; i += 7) {
			t[i] = 3e38f;
			g[i] = i % 2 ? -3e38f : 1e-38f;
		}
		break;
	case IDENTICAL:
		memcpy(t, g, (size_t)n * sizeof(float));
		break;
	default: break;
	}
}

/* The pass (vector and plain C) and the element-wise path (a view read element by element) agree. */
static void one_pass_agrees(void)
{
	static const int64_t sizes[] = { 2, 7, 8, 9, 15, 16, 17, 31, 4095, 4096, 4097, 3 * 4096 + 5, 70000 };
	int64_t most = 70000;
	float *t = malloc((size_t)most * 4), *g = malloc((size_t)most * 4);
	uint16_t *t16 = malloc((size_t)most * 2), *g16 = malloc((size_t)most * 2);
	int bad = 0, cases = 0, differing = 0, bad_absmax = 0;

	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		for (int p = 0; p < NPATTERNS; p++) {
			for (int bf16 = 0; bf16 <= 1; bf16++) {
				int64_t n = sizes[si], shape[] = { n };
				fill_pair(t, g, n, (enum pattern)p);
				for (int64_t i = 0; i < n; i++) {
					t16[i] = dtype_float_to_bf16(t[i]);
					g16[i] = dtype_float_to_bf16(g[i]);
				}
				enum dtype d = bf16 ? DT_BFLOAT16 : DT_FLOAT32;
				struct tensor a = mem(d, bf16 ? (void *)t16 : (void *)t, 1, shape);
				struct tensor b = mem(d, bf16 ? (void *)g16 : (void *)g, 1, shape);
				struct tmetric m[NWAYS];
				bool agree = compare_every_way(&a, &b, m);
				double want_t = 0, want_g = 0;
				for (int64_t i = 0; i < n; i++) {
					double x = bf16 ? dtype_bf16_to_float(t16[i]) : t[i];
					double y = bf16 ? dtype_bf16_to_float(g16[i]) : g[i];
					want_t = isfinite(x) && fabs(x) > want_t ? fabs(x) : want_t;
					want_g = isfinite(y) && fabs(y) > want_g ? fabs(y) : want_g;
				}
				bad_absmax += m[WAY_WIDEST].t_absmax != want_t || m[WAY_WIDEST].g_absmax != want_g;
				cases++;
				differing += !m[WAY_WIDEST].same;
				if (!agree) {
					bad++;
					for (int k = 0; k < NWAYS; k++)
						diag("%s %s n=%lld: %s %s/%s", bf16 ? "bfloat16" : "float32", pattern_names[p],
						     (long long)n, way_names[k], m[k].cell[TM_COSINE], m[k].cell[TM_EUC]);
				}
			}
		}
	}
	is_int(bad, 0, "the one pass (widest loop, AVX2 loop, plain C loops) and the element-wise path agree bit for bit");
	is_int(cases, 208, "over every size, pattern and dtype");
	is_int(bad_absmax, 0, "t_absmax and g_absmax as worked out element by element");
	ok(differing > 100, "most cases differ (the arithmetic ran)");
	free(t);
	free(g);
	free(t16);
	free(g16);
}

/*
 * The order of msprobe's sums (tmetric.c, LANES): element i in lane i % 8,
 * lanes added as ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)).  The
 * expected EucDist texts were worked out in Python (IEEE doubles) from that
 * description; element order would give the "else" texts.
 */
static void sums_in_lanes(void)
{
	{
		/* 16 values whose squares round differently in element order, in lanes, and in other trees */
		static const float d[16] = { -14.104827880859375f, -28918944.0f, 281.2506408691406f, -1074923.5f,
					     2787.0615234375f, 215685.25f, -4.390296936035156f, 30259.740234375f,
					     29284.84765625f, -16032.6513671875f, 179553.78125f, -585.314208984375f,
					     8.37536334991455f, 66.9301528930664f, 3508.439208984375f,
					     -0.16571587324142456f };
		float zero[16] = { 0 };
		double d64[16], zero64[16] = { 0 };
		int64_t shape[] = { 16 };
		struct tmetric m[NWAYS], m64;
		struct tensor a = mem(DT_FLOAT32, d, 1, shape), b = mem(DT_FLOAT32, zero, 1, shape);
		bool agree = compare_every_way(&a, &b, m);
		ok(agree, "16 float32 values: every way agrees");
		is_str(m[WAY_WIDEST].cell[TM_EUC], "28940310.86731496", "EucDist in lanes (element order: 28940310.867314957)");
		for (int i = 0; i < 16; i++)
			d64[i] = d[i];
		a = mem(DT_FLOAT64, d64, 1, shape);
		b = mem(DT_FLOAT64, zero64, 1, shape);
		tmetric_compare(&a, &b, NULL, &m64);
		is_str(m64.cell[TM_EUC], "28940310.86731496", "the same values as float64: the same lanes");
	}
	{
		/* 2^27 then 511 ones: element order loses every one (2^54 + 1 rounds back), the lanes keep 448 */
		enum { N = 512 };
		static float t[N], g[N];
		static uint16_t t16[N], g16[N];
		int64_t shape[] = { N };
		struct tmetric m[NWAYS];
		for (int i = 0; i < N; i++) {
			t[i] = i ? 1.0f : 134217728.0f;
			t16[i] = dtype_float_to_bf16(t[i]);
			g16[i] = dtype_float_to_bf16(g[i]);
		}
		struct tensor a = mem(DT_FLOAT32, t, 1, shape), b = mem(DT_FLOAT32, g, 1, shape);
		ok(compare_every_way(&a, &b, m), "2^27 and ones, float32: every way agrees");
		is_str(m[WAY_WIDEST].cell[TM_EUC], "134217728.00000167", "float32: EucDist in lanes (element order: 134217728.0)");
		a = mem(DT_BFLOAT16, t16, 1, shape);
		b = mem(DT_BFLOAT16, g16, 1, shape);
		ok(compare_every_way(&a, &b, m), "2^27 and ones, bfloat16: every way agrees");
		is_str(m[WAY_WIDEST].cell[TM_EUC], "134217728.00000167", "bfloat16: the same");
	}
}

int main(void)
{
	msprobe_examples();
	ulps_and_bands();
	one_pass_agrees();
	sums_in_lanes();
	widened_by_hand();
	widened_chunks();
	absmax_every_way();
	msprobe_cells_of_mixed_dtypes();
	return done_testing();
}
