/*
 * fuzz_tensor.h: what the .pt and .npy harnesses share: tensor_open() on
 * a file holding the input, then every element read back.
 *
 * Every element is read when there are at most WINDOW of them; beyond
 * that (a zero stride makes a tiny file hold a huge tensor) the first,
 * the last and a middle window are.  Each window is read whole and in
 * chunks of 1, 7 and 64 elements with tensor_read_raw, tensor_read_f64
 * and tensor_read_f32, and the chunked reads must give the same bytes as
 * the whole ones; a contiguous tensor in this machine's byte order must
 * read as its data (and as tensor_copy_plain() copies it from the file),
 * and the doubles must be dtype_to_double() of the raw elements.  With nonnegative strides the last element is the farthest
 * from element 0, so reading it checks that the view stays in the file.
 */
#ifndef PROBE_FUZZ_TENSOR_H
#define PROBE_FUZZ_TENSOR_H

#include "fuzz.h"
#include "../../lib/tensors/tensor.h"

#define WINDOW 4096

static void *fuzz_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		abort();
	return p;
}

/* Elements [start, start + n) read `chunk` at a time (0: in one call) into out. */
static void read_chunked(const struct tensor *t, int kind, int64_t start, int64_t n, int64_t chunk, void *out)
{
	size_t esize = kind == 0 ? dtype_info(t->dtype)->size : kind == 1 ? sizeof(double) : sizeof(float);
	if (!chunk)
		chunk = n;
	for (int64_t at = 0; at < n; at += chunk) {
		int64_t k = n - at < chunk ? n - at : chunk;
		unsigned char *o = (unsigned char *)out + (size_t)at * esize;
		if (kind == 0)
			tensor_read_raw(t, start + at, k, o);
		else if (kind == 1)
			tensor_read_f64(t, start + at, k, (double *)(void *)o);
		else
			tensor_read_f32(t, start + at, k, (float *)(void *)o);
	}
}

static void check_window(const struct tensor *t, int64_t start, int64_t n)
{
	static const int64_t chunks[] = { 1, 7, 64 };
	unsigned size = dtype_info(t->dtype)->size;
	size_t sizes[3] = { size, sizeof(double), sizeof(float) };
	void *whole[3], *part = fuzz_xmalloc((size_t)n * 16);

	for (int kind = 0; kind < 3; kind++) {
		whole[kind] = fuzz_xmalloc((size_t)n * sizes[kind]);
		read_chunked(t, kind, start, n, 0, whole[kind]);
		for (size_t c = 0; c < ARRAY_SIZE(chunks); c++) {
			read_chunked(t, kind, start, n, chunks[c], part);
			FUZZ_CHECK(!memcmp(part, whole[kind], (size_t)n * sizes[kind]),
				   "read kind %d of [%lld, +%lld) in chunks of %lld differs from one read", kind,
				   (long long)start, (long long)n, (long long)chunks[c]);
		}
	}
	if (t->contiguous && !t->swapped) {
		FUZZ_CHECK(!memcmp(whole[0], t->data + start * (int64_t)size, (size_t)n * size),
			   "a contiguous tensor reads other than its data");
		/* copied from the file, when its elements are there as they are: the same bytes */
		if (tensor_copy_plain(t, start, n, part))
			FUZZ_CHECK(!memcmp(part, whole[0], (size_t)n * size),
				   "[%lld, +%lld) copied from the file differs from its data", (long long)start,
				   (long long)n);
	}
	for (int64_t i = 0; i < n; i++) {
		double want = dtype_to_double(t->dtype, (unsigned char *)whole[0] + (size_t)i * size), got;
		memcpy(&got, (unsigned char *)whole[1] + (size_t)i * sizeof(double), sizeof(got));
		FUZZ_CHECK((want != want && got != got) || !memcmp(&want, &got, sizeof(got)),
			   "element %lld of %s: %g read as double, %g converted", (long long)(start + i),
			   dtype_info(t->dtype)->name, got, want);
	}
	for (int kind = 0; kind < 3; kind++)
		free(whole[kind]);
	free(part);
}

static void check_tensor(const struct tensor *t, uint64_t seed)
{
	int64_t numel = 1;
	FUZZ_CHECK(t->dtype >= 0 && t->dtype < DT_COUNT, "dtype %d", (int)t->dtype);
	FUZZ_CHECK(t->ndim >= 0 && t->ndim <= TENSOR_MAX_DIMS, "ndim %d", t->ndim);
	for (int d = 0; d < t->ndim; d++) {
		FUZZ_CHECK(t->shape[d] >= 0 && t->stride[d] >= 0, "dim %d: shape %lld stride %lld", d,
			   (long long)t->shape[d], (long long)t->stride[d]);
		if (__builtin_mul_overflow(numel, t->shape[d], &numel))
			FUZZ_CHECK(0, "the shape overflows");
	}
	FUZZ_CHECK(numel == t->numel, "numel %lld, the shape says %lld", (long long)t->numel, (long long)numel);
	FUZZ_CHECK(t->numel == 0 || t->data, "no data for %lld elements", (long long)t->numel);
	if (t->numel <= 0)
		return;
	/*
	 * A view on the mapped file must end inside it: reading past the end
	 * of a file within its last page gives zeros, which ASan does not see.
	 * (Inflated storages are heap memory, which it does.)
	 */
	if (t->map && t->data >= (const unsigned char *)t->map &&
	    t->data < (const unsigned char *)t->map + t->map_len) {
		uint64_t last = 0, size = dtype_info(t->dtype)->size;
		bool over = false;
		for (int d = 0; d < t->ndim; d++) {
			uint64_t step;
			over |= __builtin_mul_overflow((uint64_t)(t->shape[d] - 1), (uint64_t)t->stride[d], &step);
			over |= __builtin_add_overflow(last, step, &last);
		}
		FUZZ_CHECK(!over && last < UINT64_MAX / size - 1 &&
				   (uint64_t)(t->data - (const unsigned char *)t->map) + (last + 1) * size <= t->map_len,
			   "the view ends beyond the file (element %llu of %llu bytes, at %td of %zu)",
			   (unsigned long long)last, (unsigned long long)size,
			   t->data - (const unsigned char *)t->map, t->map_len);
		/* the work is bounded: more elements than the file holds only by repeating at most TENSOR_MAX_REPEATED */
		FUZZ_CHECK(t->numel <= TENSOR_MAX_REPEATED || (uint64_t)t->numel <= t->map_len / size,
			   "a view of %lld elements in a file of %zu bytes", (long long)t->numel, t->map_len);
	}
	if (t->numel <= WINDOW) {
		check_window(t, 0, t->numel);
		return;
	}
	check_window(t, 0, WINDOW);
	check_window(t, t->numel - WINDOW, WINDOW);
	check_window(t, (int64_t)(seed % (uint64_t)(t->numel - WINDOW)), WINDOW);
}

/* tensor_open() on the bytes; every element read when it succeeds. */
static void fuzz_tensor_bytes(const uint8_t *data, size_t size, uint64_t seed)
{
	struct fuzz_file file;
	struct tensor t;
	struct strbuf err = STRBUF_INIT;
	fuzz_file_open(&file, data, size);
	if (!tensor_open(&t, file.path, &err)) {
		FUZZ_CHECK(!err.len, "success with a message: %s", err.buf);
		check_tensor(&t, seed);
		tensor_close(&t);
	} else {
		FUZZ_CHECK(err.len && !strncmp(err.buf, file.path, strlen(file.path)),
			   "a failure whose message does not name the file: %s", err.buf);
		FUZZ_CHECK(!t.map && !t.owned, "a failed open left the tensor holding memory");
	}
	fuzz_file_close(&file);
	strbuf_release(&err);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

#endif
