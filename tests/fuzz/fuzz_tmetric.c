/*
 * Tensor metrics (lib/compare/tmetric.c), differentially: the input's bytes after
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
#include "../unit/tmetric_ways.h"

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
	struct tensor a = vector1d(d, t, n), b = vector1d(d, g, n);
	struct tmetric m[NWAYS];
	if (!compare_every_way(&a, &b, m)) {
		fprintf(stderr, "fuzz_tmetric: results differ (n=%lld, %s):", (long long)n, bf16 ? "bfloat16" : "float32");
		for (int k = 0; k < NWAYS; k++)
			fprintf(stderr, " %s %s/%s ndiff %lld;", way_names[k], m[k].cell[TM_COSINE], m[k].cell[TM_EUC],
				(long long)m[k].ndiff);
		fputc('\n', stderr);
		abort();
	}
	free(t);
	free(g);
	return 0;
}
