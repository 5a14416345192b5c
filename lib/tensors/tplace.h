/*
 * tplace.h: a tensor whose place in a file a container has found, opened
 * as a struct tensor (tensor.h).
 *
 * A checkpoint holds many tensors: a .pt's zip entries (ptobj.h), the
 * byte ranges of a safetensors file (lib/ckpt/).  The container is read
 * once, and each tensor's place kept: the file, where its storage starts
 * and how long it is, the element type, the view (offset, shape,
 * strides).  tplace_open() opens one such tensor as tensor_open() opens a
 * file of one: the file mapped whole (so that tensor_copy_plain() reads
 * it with pread(2) and a file that shrinks is named when a read faults),
 * the view checked against the storage, nothing copied unless the
 * storage is deflated (inflated into memory the tensor owns) or not
 * aligned to its elements (copied).  tplace_adopt() makes a tensor of
 * memory the caller built (tensor-parallel shards concatenated).
 *
 * Errors follow msg.h: "PATH: what" (a storage that runs past the end of
 * the file, a view that reaches past its storage, a deflate stream that
 * ends early).  The file is opened again for each tensor: only a regular
 * file, and its size then is what counts (a file replaced since the
 * container was read is read as it is now, never outside its bounds).
 *
 * The tensor's `format` is TENSOR_PT for every container (it tells .npy
 * files apart, which these are not).  tensor_close() releases it.
 */
#ifndef PROBE_TPLACE_H
#define PROBE_TPLACE_H

#include "tensor.h"

struct tplace {
	enum dtype dtype;
	int ndim;
	const int64_t *shape;   /* ndim sizes */
	const int64_t *stride;  /* ndim strides in elements; NULL: row-major contiguous */
	int64_t offset;         /* element 0's place in the storage, in elements */
	uint64_t at;            /* the storage's first byte in the file */
	uint64_t bytes;         /* the storage's length (inflated) */
	uint64_t deflated;      /* 0: stored as it is; else the length of the raw deflate stream at `at` */
	bool big_endian;        /* the storage's byte order */
	bool requires_grad;
	const char *member;     /* what the storage is in the file, for messages ("entry archive/data/3"), or NULL */
};

/* 0, or -1 with "PATH: what" in err (t is then empty and needs no close). */
int tplace_open(struct tensor *t, const char *path, const struct tplace *p, struct strbuf *err);

/*
 * A tensor of `data` (malloc'ed, row-major contiguous, this machine's byte
 * order, numel elements of dtype: the product of shape), which the tensor
 * owns from here on; `name` is what messages call it.  Cannot fail.
 */
void tplace_adopt(struct tensor *t, const char *name, enum dtype dtype, int ndim, const int64_t *shape, void *data);

#endif
