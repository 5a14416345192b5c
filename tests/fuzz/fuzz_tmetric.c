/*
 * Tensor metrics (lib/tmetric.c), differentially: the input's bytes after
 * a first control byte are split into a target and a golden tensor of the
 * same length, float32 or bfloat16 (bit 0 of the control byte), and
 * compared four ways that must agree bit for bit in every field and
 * cell: the one pass with its widest loop (AVX-512 where the CPU has it),
 * with its AVX2 loop, with the plain C loops, and the element-wise path
 * (the same elements read as a strided view).  Bit 1 makes the golden a copy of the
 * target with the input's bytes laid over a part of it (so that long
 * identical prefixes, where the sums catch up later, are reached); the
 * other bits choose where.
 */
#include "fuzz.h"
#include "../../lib/tmetric.h"

static bool same_results(const struct tmetric *a, const struct tmetric *b)
{
	return !memcmp(a->cell, b->cell, sizeof(a->cell)) && !strcmp(a->notes, b->notes) &&
	       a->comparable == b->comparable && a->same == b->same && a->ndiff == b->ndiff &&
	       a->first_diff == b->first_diff && !memcmp(&a->max_ulp, &b->max_ulp, sizeof(double)) &&
	       a->t_hash == b->t_hash && a->g_hash == b->g_hash && !memcmp(&a->max_abs, &b->max_abs, sizeof(double)) &&
	       a->numel == b->numel && a->nbeyond == b->nbeyond;
}

static struct tensor vector1d(enum dtype d, const void *data, int64_t n)
{
	struct tensor t;
	memset(&t, 0, sizeof(t));
	t.dtype = d;
	t.ndim = 1;
	t.shape[0] = n;
	t.stride[0] = 1;
	t.numel = n;
	t.data = n ? data : NULL;
	t.contiguous = true;
	return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	unsigned control = data[0];
	bool bf16 = control & 1, overlay = control & 2;
	unsigned esize = bf16 ? 2 : 4;
	const uint8_t *body = data + 1;
	size_t body_len = size - 1;
	/* overlay: the whole body is the target, repeated to some length, and the golden the same but for a patch */
	int64_t n = overlay ? (int64_t)(body_len / esize) * (1 + (control >> 2)) : (int64_t)(body_len / (2 * esize));
	if (n < 1)
		return 0;
	unsigned char *t = malloc((size_t)n * esize), *g = malloc((size_t)n * esize);
	if (!t || !g)
		abort();
	if (overlay) {
		size_t unit = body_len / esize * esize;
		for (size_t at = 0; at < (size_t)n * esize; at += unit)
			memcpy(t + at, body, (size_t)n * esize - at < unit ? (size_t)n * esize - at : unit);
		memcpy(g, t, (size_t)n * esize);
		size_t patch = (size_t)n * esize * (control >> 2) / 64;
		size_t len = body_len < 16 ? body_len : 16;
		for (size_t i = 0; i < len && patch + i < (size_t)n * esize; i++)
			g[patch + i] ^= body[i] | 1;
	} else {
		memcpy(t, body, (size_t)n * esize);
		memcpy(g, body + (size_t)n * esize, (size_t)n * esize);
	}
	enum dtype d = bf16 ? DT_BFLOAT16 : DT_FLOAT32;
	struct tensor a = vector1d(d, t, n), b = vector1d(d, g, n), va = a, vb = b;
	va.contiguous = vb.contiguous = false;
	struct tmetric fast, avx2, plain, elementwise;
	tmetric_compare(&a, &b, NULL, &fast);
	tmetric_kernel(TM_KERNEL_AVX2);
	tmetric_compare(&a, &b, NULL, &avx2);
	tmetric_kernel(TM_KERNEL_PLAIN);
	tmetric_compare(&a, &b, NULL, &plain);
	tmetric_kernel(TM_KERNEL_BEST);
	tmetric_compare(&va, &vb, NULL, &elementwise);
	if (!same_results(&fast, &avx2) || !same_results(&fast, &plain) || !same_results(&fast, &elementwise)) {
		fprintf(stderr,
			"fuzz_tmetric: results differ (n=%lld, %s): pass %s/%s ndiff %lld, AVX2 %s/%s ndiff %lld, "
			"plain C %s/%s ndiff %lld, element-wise %s/%s ndiff %lld\n",
			(long long)n, bf16 ? "bfloat16" : "float32", fast.cell[TM_COSINE], fast.cell[TM_EUC],
			(long long)fast.ndiff, avx2.cell[TM_COSINE], avx2.cell[TM_EUC], (long long)avx2.ndiff,
			plain.cell[TM_COSINE], plain.cell[TM_EUC], (long long)plain.ndiff, elementwise.cell[TM_COSINE],
			elementwise.cell[TM_EUC], (long long)elementwise.ndiff);
		abort();
	}
	free(t);
	free(g);
	return 0;
}
