/*
 * tensor.h: tensors saved by torch.save (.pt) and numpy.save (.npy), read
 * where they lie.
 *
 * tensor_open() maps the file and describes the tensor in it: element
 * type, shape, strides and where element 0 is.  Nothing is copied or
 * converted until asked for, so a statistic over a 10 GB file costs a
 * walk over the pages it needs, and opening a file costs a few system
 * calls.  The file stays open until tensor_close() (one descriptor per
 * open tensor), for tensor_copy_plain().  The kind of file is told by its first bytes (a zip archive for
 * .pt, "\x93NUMPY" for .npy), not by its name.
 *
 * .pt (the zip container torch.save has written since torch 1.6): the
 * archive's data.pkl is run by a small pickle machine that knows the
 * subset torch uses for one tensor -- torch._utils._rebuild_tensor_v2 (or
 * _rebuild_parameter around it) of a persistent storage reference
 * ('storage', <typed or untyped storage class>, key, location, numel),
 * with storage offset, size, stride and requires_grad -- and the storage
 * is the archive entry data/<key>.  Both layouts are read: torch 1.x
 * (<stem>/data.pkl, <stem>/data/<key>, <stem>/version) and torch 2.x (the
 * same plus <stem>/byteorder and <stem>/.data/serialization_id).  Stored
 * entries are used in place; a deflated entry is inflated into memory
 * the tensor owns.  Storages are little-endian unless the byteorder
 * entry says "big".
 *
 * .npy: format versions 1.0, 2.0 and 3.0, numeric types in either byte
 * order, C or Fortran order.  Object, string, structured and void arrays
 * are refused.
 *
 * .bin (ATB's dumper, MindIE inference; atbbin.c): the "name=value" header
 * lines from "$Version=" to "$End=1" (dtype codes 0 float32, 1 float16,
 * 2 int8, 3 int32, 9 int64, 12 bool, 27 bfloat16; dims; $Object.data),
 * then the little-endian payload.  An alias file (a "data=" line, saved
 * under filter_level 1, no payload) fails, naming the file it stands for:
 * tensor_atb_alias() tells it before opening.
 *
 * Errors: anything outside this subset, or inconsistent (an unknown
 * pickle opcode, a truncated file, a bad zip directory, a shape or stride
 * whose extent overflows, a view that reaches beyond its storage) makes
 * tensor_open() fail with a message naming the file and what is wrong; it
 * never reads outside the file.
 *
 * Files: only a regular file is opened; its type is checked before it is
 * opened (and again on the descriptor, opened without blocking), so that a
 * FIFO, a device or a directory named as a tensor is refused at once
 * instead of blocking the reader.  tensor_open_leaf() also keeps a dump's
 * data_name inside its tensor folder.
 *
 * Limits: a view may claim more elements than its storage holds only by
 * repeating them (a zero stride, as torch's expand makes), and then at
 * most TENSOR_MAX_REPEATED elements: the work of a comparison is bounded
 * by the file's size, or by that number.  msprobe's numpy arithmetic
 * materializes such a view, several copies of it at once.
 *
 * Faults: the file is mapped, and a file that shrinks while it is mapped
 * (another process truncates it) turns a read of a page it no longer has
 * into SIGBUS.  tensor_open() catches it (the open fails, "the file shrank
 * while it was read"), and so does tmetric_compare_files() for the
 * element loops; code of its own that reads a mapped tensor catches it
 * with a tensor_guard (below).
 *
 * Thread safety: a struct tensor is read-only after tensor_open(); any
 * number of threads may read it at once.
 */
#ifndef PROBE_TENSOR_H
#define PROBE_TENSOR_H

#include "dtype.h"
#include "../core/strbuf.h"

#include <setjmp.h>

#define TENSOR_MAX_DIMS 64

/*
 * The most elements a view that repeats its storage's elements may claim:
 * 2^24 (16,777,216, a [4096, 4096] expand of a row of 4096).  A view that
 * does not repeat holds at most as many elements as its storage, which
 * the file holds.
 */
#define TENSOR_MAX_REPEATED ((int64_t)1 << 24)

struct tensor {
	enum dtype dtype;
	int ndim;                          /* 0 for a 0-d tensor (one element) */
	int64_t shape[TENSOR_MAX_DIMS];
	int64_t stride[TENSOR_MAX_DIMS];   /* in elements; any sign torch and numpy allow (>= 0) */
	int64_t numel;                     /* product of shape (1 for 0-d, 0 when a dim is 0) */
	/*
	 * Element 0 (the storage plus the offset); NULL when numel is 0.  Not
	 * always aligned to the element's size: an ATB .bin's payload follows
	 * a header of any length and is read in place.  Read elements with
	 * memcpy or tensor_read_*(), never through a typed pointer into it
	 * unless tensor_aligned() says so.
	 */
	const unsigned char *data;
	bool swapped;                      /* elements are in the other byte order than this machine's */
	bool contiguous;                   /* row-major without gaps: element i at data + i * size */
	bool requires_grad;                /* .pt: the saved flag; .npy: false */
	enum { TENSOR_PT, TENSOR_NPY, TENSOR_ATB } format;

	/* private: what tensor_close() releases */
	void *map;
	size_t map_len;
	int fd;                            /* the mapped file, open while map is set */
	unsigned char *owned;
	char *path;                        /* as opened, for messages about faults */
};

/* Whether data may be read through a pointer of its element type (see data). */
static inline bool tensor_aligned(const struct tensor *t)
{
	return (uintptr_t)t->data % dtype_info(t->dtype)->size == 0;
}

/* 0, or -1 with "PATH: what is wrong" in err (t is then empty and needs no close). */
int tensor_open(struct tensor *t, const char *path, struct strbuf *err);

/*
 * A dump leaf's tensor file: `path` (the record's "data") names the file
 * `name` (its "data_name", NULL when it has none) in the dump's tensor
 * folder, which is path without name at its end (without a name, or when
 * path does not end in "/" + name: the directory part of path, and the
 * name its last component).  Opened only when it lies inside that folder:
 * a name that is not absolute and has no ".." component, whose file is a
 * regular file there or a symbolic link that resolves to one inside the
 * folder (the folder itself may be reached through links).  Anything else
 * fails as tensor_open() does, with the reason ("data_name \"../z.pt\" has a
 * \"..\" component: only files inside the tensor folder are read").
 */
int tensor_open_leaf(struct tensor *t, const char *path, const char *name, struct strbuf *err);
void tensor_close(struct tensor *t);

/*
 * Whether an ATB .bin file is an alias (filter_level 1: "data=<file>" and
 * no payload): 1 with the text after "data=" appended to alias, 0 when it
 * is not (or is not a .bin at all), -1 with "PATH: what" in err when it
 * cannot be read or its header is broken.  Reads the first few KB only.
 */
int tensor_atb_alias(const char *path, struct strbuf *alias, struct strbuf *err);

/*
 * Catching a fault of the mapping (see "Faults" above), per thread:
 *
 *	struct tensor_guard g;
 *	tensor_guard_begin(&g);
 *	if (!sigsetjmp(g.jump, 0))
 *		... read the tensors (nothing allocated here that only a local holds) ...
 *	else
 *		... g.addr faulted: tensor_fault_message() says which file ...
 *	tensor_guard_end(&g);
 *
 * A SIGBUS raised while a guard is on jumps back to its sigsetjmp, with
 * the faulting address in g.addr; guards nest.  A SIGBUS outside every
 * guard (or sent by kill) goes to whatever handled it before, by default
 * ending the process.  The jump leaves the code that faulted where it was:
 * memory it allocated must be reachable from outside it (not only from its
 * locals), and locals of the function that calls sigsetjmp must not be
 * changed between it and the fault, unless volatile.
 */
struct tensor_guard {
	sigjmp_buf jump;
	const void *volatile addr;
	struct tensor_guard *outer;
};
void tensor_guard_begin(struct tensor_guard *g);
void tensor_guard_end(struct tensor_guard *g);

/* After a fault at addr: whether it lies in t's mapping; if so "PATH: the file shrank ..." into err. */
bool tensor_fault_message(const struct tensor *t, const void *addr, struct strbuf *err);

/*
 * Elements [start, start + n) in row-major (C) order, as raw bytes in this
 * machine's byte order, into out (n * element size bytes).  For a
 * contiguous tensor in this machine's byte order, data itself can be read
 * instead.  The caller keeps start + n <= numel.
 */
void tensor_read_raw(const struct tensor *t, int64_t start, int64_t n, void *out);

/*
 * The same bytes as data[start * size, (start + n) * size) of a contiguous
 * tensor in this machine's byte order, copied into out with pread(2) from
 * the file rather than through the mapping: a pass over a large tensor
 * then costs one copy instead of mapping each page.  False when the
 * elements are not in the file as they are (a deflated entry) or the read
 * falls short (the file shrank); out is then unspecified and data can
 * still be read.
 */
bool tensor_copy_plain(const struct tensor *t, int64_t start, int64_t n, void *out);

/* The same elements converted to double (dtype_to_double()). */
void tensor_read_f64(const struct tensor *t, int64_t start, int64_t n, double *out);

/*
 * The same elements as float, for the floating types of 32 bits or fewer
 * (float32, float16, bfloat16, float8): exact.  Other types: rounded.
 */
void tensor_read_f32(const struct tensor *t, int64_t start, int64_t n, float *out);

/*
 * MindSpore saves bfloat16 as float32 .npy (numpy has no bfloat16).  When one
 * of two tensors to compare is such a float32 .npy and the other bfloat16,
 * and every element of the float32 one is exactly a bfloat16 value (its low
 * 16 bits zero), it is turned into the bfloat16 tensor it was saved from
 * (contiguous, held in memory), so the two compare element by element.
 * Returns true when it did; otherwise both stay as they are (then their
 * dtypes differ, and so do the files).
 */
bool tensor_match_upcast(struct tensor *a, struct tensor *b);

#endif
