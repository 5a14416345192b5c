/*
 * msprobe's tensor metrics (tmetric.h) on small in-memory tensors, against
 * the outputs msprobe 26.0.0 printed for them (msprobe-compare.md sections
 * 6 and 11.2, marked verified there), and our bitwise comparison.
 */
#include "tap.h"
#include "tmetric_ways.h"

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
	int bad = 0, cases = 0, differing = 0;

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
	return done_testing();
}
