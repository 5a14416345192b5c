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

/*
 * Many tensors in one file, as torch.save(obj) writes a state dict or a
 * training checkpoint: a tree of Python values (None, bools, ints, floats,
 * strs, tuples, lists, dicts, OrderedDicts, argparse Namespaces, objects
 * of other classes made by a call, torch dtypes, tensors) pickled with
 * protocol 2 as Python's pickler does (memo entries for strings, globals,
 * tuples and containers; SETITEMS and APPENDS in batches of 1000), each
 * storage an entry data/<key>, its key its rank among the storages in the
 * order the pickle first meets them (tensors that share a storage name the
 * same key).  A storage's bytes come from memory or from a fill function
 * called a piece at a time when the entry is written, so that a file of
 * gigabytes needs no more memory than a piece.
 *
 * Nodes are numbers the calls below hand out; a tree owns them all
 * (tensorw_tree_free()).  Building cannot fail (memory runs out: die()).
 */
struct tensorw_tree;
typedef uint32_t tensorw_node;

/* Bytes [at, at + len) of a storage, in this machine's byte order. */
typedef void tensorw_fill_fn(void *ctx, uint64_t at, void *buf, size_t len);

struct tensorw_tree *tensorw_tree_new(void);
void tensorw_tree_free(struct tensorw_tree *t);

tensorw_node tensorw_none(struct tensorw_tree *t);
tensorw_node tensorw_bool(struct tensorw_tree *t, bool v);
tensorw_node tensorw_int(struct tensorw_tree *t, int64_t v);
tensorw_node tensorw_float(struct tensorw_tree *t, double v);
tensorw_node tensorw_str(struct tensorw_tree *t, const char *s);
/* torch.<dtype>, as a value (GLOBAL 'torch bfloat16'). */
tensorw_node tensorw_dtype(struct tensorw_tree *t, enum dtype d);
/* Containers, filled by tensorw_set() (dicts, Namespaces) and tensorw_append() (lists, tuples). */
tensorw_node tensorw_dict(struct tensorw_tree *t, bool ordered);
tensorw_node tensorw_namespace(struct tensorw_tree *t);
tensorw_node tensorw_list(struct tensorw_tree *t);
tensorw_node tensorw_tuple(struct tensorw_tree *t);
void tensorw_set(struct tensorw_tree *t, tensorw_node dict, tensorw_node key, tensorw_node value);
void tensorw_put(struct tensorw_tree *t, tensorw_node dict, const char *key, tensorw_node value);
void tensorw_append(struct tensorw_tree *t, tensorw_node seq, tensorw_node value);
/* module.name(*args) (args: a tuple node), then, when has_state, state set on it by BUILD. */
tensorw_node tensorw_object(struct tensorw_tree *t, const char *module, const char *name, tensorw_node args,
			    bool has_state, tensorw_node state);
/* A storage of numel elements: data (this machine's order, kept by the caller until written), or fill. */
tensorw_node tensorw_storage(struct tensorw_tree *t, enum dtype d, int64_t numel, const void *data,
			     tensorw_fill_fn *fill, void *ctx);
/* A tensor viewing a storage (stride NULL: row-major contiguous); shape and stride are copied. */
tensorw_node tensorw_tensor(struct tensorw_tree *t, tensorw_node storage, int64_t offset, int ndim,
			    const int64_t *shape, const int64_t *stride, bool requires_grad);

/* The tree under root written to path as torch.save writes it (opt->parameter is not used). 0, or -1 with "PATH: what". */
int tensorw_pt_tree(const char *path, const struct tensorw_tree *t, tensorw_node root, const struct pt_options *opt,
		    struct strbuf *err);

/*
 * A safetensors file: the 8-byte header length, the JSON header (each
 * tensor's dtype, shape and data_offsets, in the order given, its data
 * laid out in that order; __metadata__ when metadata is not NULL: pairs of
 * strings, key then value, nmeta pairs), spaces up to a multiple of 8,
 * then the data, little-endian.  Each tensor is a storage node of t (its
 * whole storage, shape its own).  0, or -1 with "PATH: what".
 */
struct tensorw_named {
	const char *name;
	tensorw_node storage;
	int ndim;
	const int64_t *shape;
};
int tensorw_safetensors(const char *path, const struct tensorw_tree *t, const struct tensorw_named *v, size_t n,
			const char *const *metadata, size_t nmeta, struct strbuf *err);

#endif
