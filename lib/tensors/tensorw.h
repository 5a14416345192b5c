/*
 * tensorw.h: writing tensors as torch.save and numpy.save do.
 *
 * For the dump generators, the tests and probe-export: the files are what torch 1.13 and
 * torch 2.x write for one tensor (and what numpy writes for one array), so
 * that torch.load / numpy.load read them, and tensor.h reads them back.
 *
 * A tensor to write is a view into a storage: the storage's elements
 * (this machine's byte order), and the view's offset, shape and strides
 * in elements, so that non-contiguous views and views into larger
 * storages can be written as torch saves them (the whole storage goes
 * into the file).
 */
#ifndef PROBE_TENSORW_H
#define PROBE_TENSORW_H

#include "dtype.h"
#include "../core/strbuf.h"

struct tensor_src {
	enum dtype dtype;
	const void *storage;     /* storage_numel elements */
	int64_t storage_numel;
	int64_t offset;          /* the view's first element in the storage */
	int ndim;
	const int64_t *shape;    /* ndim sizes (NULL when ndim is 0) */
	const int64_t *stride;   /* ndim strides in elements; NULL: row-major contiguous */
	bool requires_grad;
};

enum pt_layout {
	PT_TORCH1, /* torch 1.13: <stem>/data.pkl, <stem>/data/0, <stem>/version ("3") */
	PT_TORCH2, /* torch 2.x: also <stem>/byteorder ("little") and <stem>/.data/serialization_id */
};

struct pt_options {
	enum pt_layout layout;
	bool deflate;            /* store the storage entry deflated (torch stores; readers must cope) */
	bool parameter;          /* pickle as torch.nn.Parameter (_rebuild_parameter) */
};

/*
 * Write t to path as torch.save(tensor, path) does; the archive's stem is
 * the file name without its extension, as torch names it.  0, or -1 with
 * "PATH: what failed" in err.
 */
int tensorw_pt(const char *path, const struct tensor_src *t, const struct pt_options *opt, struct strbuf *err);

struct npy_options {
	int version;             /* 1, 2 or 3 (numpy writes 1 unless the header needs more) */
	bool fortran_order;      /* write the elements column-major, as np.save of an F-ordered array */
	bool big_endian;         /* '>' descr and big-endian elements */
};

/* Write the view's elements (copied out in the requested order) as numpy.save does. */
int tensorw_npy(const char *path, const struct tensor_src *t, const struct npy_options *opt, struct strbuf *err);

/*
 * An opened tensor (tensor.h: a .pt, .npy or ATB .bin) written to path as
 * torch.save (TENSORW_PT, torch 2.x layout, its dtype and requires_grad
 * kept) or numpy.save (TENSORW_NPY, version 1, little-endian, C order)
 * writes it: a contiguous tensor, row-major, whatever the strides and byte
 * order it was saved with.  numpy has no bfloat16 or float8: those are
 * written as float32, which holds each value exactly (msprobe's parse does
 * the same).  *written: the element type of the file.  A file that shrinks
 * while it is read fails cleanly (tensor.h's guard).  The elements are
 * written from the mapping where they lie as they are, else copied into
 * memory first (numel times the element size).  0, or -1 with
 * "PATH: what failed" in err (nothing is left at path then).
 */
enum tensorw_format { TENSORW_PT, TENSORW_NPY };
struct tensor;
int tensorw_export(const struct tensor *t, const char *path, enum tensorw_format fmt, enum dtype *written,
		   struct strbuf *err);

#endif
