/*
 * tensorio.h: the inside of tensor_open() (tensor.h), shared by its
 * readers and nothing else: tensor.c maps the file and checks the view,
 * zip.c reads the zip container of a .pt, pickle.c runs its data.pkl on a
 * bounded machine, pt.c puts the two together, npy.c reads a .npy header.
 *
 * Everything that comes from the file is distrusted: each offset and
 * length is checked against the mapping before use, each product and sum
 * of sizes against 64-bit overflow, and the pickle machine has fixed
 * bounds on its stack, memo and object count, so a hostile file costs at
 * most a bounded amount of memory and a clean error.  Errors follow
 * msg.h; every message starts with the file's path.
 */
#ifndef PROBE_TENSORIO_H
#define PROBE_TENSORIO_H

#include "tensor.h"
#include "../core/msg.h"
#include "../core/xalloc.h"

#include <zlib.h>


/* Little-endian loads from the file, whatever this machine's order. */
static inline uint16_t get16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t get64(const unsigned char *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static inline bool host_is_big_endian(void)
{
	const uint16_t one = 1;
	unsigned char first;
	memcpy(&first, &one, 1);
	return first == 0;
}

/* Sums and products of non-negative int64s; false when they overflow. */
static inline bool add_ok(int64_t a, int64_t b, int64_t *r)
{
	if (a > INT64_MAX - b)
		return false;
	*r = a + b;
	return true;
}

static inline bool mul_ok(int64_t a, int64_t b, int64_t *r)
{
	if (a && b > INT64_MAX / a)
		return false;
	*r = a * b;
	return true;
}

static inline bool tio_is(const unsigned char *s, size_t n, const char *word)
{
	return strlen(word) == n && !memcmp(s, word, n);
}

/* ---- the view (tensor.c) ---- */

/* The storage at *base copied into memory of its own when it is not aligned to its elements. */
int tio_align_storage(struct tensor *t, const unsigned char **base, int64_t bytes, const char *path,
		      struct strbuf *err);
/*
 * Set numel and contiguous from shape and stride, and check that every
 * element lies in a storage of storage_elems elements starting at offset.
 * *end is one past the last storage element the view touches (0 when it
 * has no elements).
 */
int tio_check_view(struct tensor *t, const char *path, struct strbuf *err, int64_t offset, int64_t storage_elems,
		   int64_t *end);
/* Row-major (or column-major) strides of a dense array, as torch and numpy lay them out. */
int tio_dense_strides(struct tensor *t, bool column_major);
/* A regular file opened and mapped whole (tplace.c): 0, or -1 with "PATH: what". */
int tio_map_file(const char *path, int *fd, void **map, size_t *len, struct strbuf *err);

/* ---- the zip container (zip.c) ---- */

#define ZIP_LOCAL_SIG 0x04034b50u
#define ZIP_CENTRAL_SIG 0x02014b50u
#define ZIP_END_SIG 0x06054b50u
#define ZIP64_END_SIG 0x06064b50u
#define ZIP64_LOCATOR_SIG 0x07064b50u
#define ZIP_END_LEN 22
#define ZIP64_END_LEN 56
#define ZIP64_LOCATOR_LEN 20
#define ZIP_CENTRAL_LEN 46
#define ZIP_LOCAL_LEN 30

/* zlib cannot expand data more than about 1032 times: a larger claim is a bomb or a lie */
#define DEFLATE_MAX_RATIO 1032u

/* data.pkl of one tensor is a few hundred bytes; anything this big is not one tensor */
#define PKL_MAX (1u << 20)
/* a checkpoint's data.pkl: megabytes for thousands of tensors; 256 MiB is far past any we know */
#define PKL_CKPT_MAX ((uint64_t)256 << 20)

struct zip_entry {
	const unsigned char *name;
	size_t name_len;
	unsigned method, flags;
	uint32_t crc;
	uint64_t csize, usize, local;
};

struct pickle;

/*
 * Reading one archive.  Whatever it allocates hangs from here, so that
 * pt_reader_release() frees it also after a fault of the mapping has
 * jumped out of the middle of the reading (tensor_open()).
 */
struct pt_reader {
	const char *path;
	struct strbuf *err;
	const unsigned char *file;
	size_t size;
	struct zip_entry *entries;
	size_t nentries;
	const unsigned char *stem; /* the archive's top directory, without the slash */
	size_t stem_len;
	struct pickle *pk;         /* data.pkl's machine, while it runs */
	z_stream zs;               /* an inflation under way (zs_live) and its output */
	bool zs_live;
	unsigned char *inflating;
	unsigned char *pkl_owned, *bo_owned; /* inflated data.pkl and byteorder entries */
};

/* Free what the reading allocated (also after a fault of the mapping jumped out of it). */
void tio_pt_reader_release(struct pt_reader *z);
int tio_zip_read_directory(struct pt_reader *z);
/* The first want bytes of entry e, in place or inflated (into *owned, which the caller frees). */
int tio_zip_entry_bytes(struct pt_reader *z, const struct zip_entry *e, uint64_t want, const unsigned char **out,
			unsigned char **owned);
/* An entry in messages: printf("... " ENTRY_FMT " ...", ENTRY_ARG(e)). */
#define ENTRY_FMT "entry %.*s"
#define ENTRY_ARG(e) (int)(e)->name_len, (const char *)(e)->name
/* Where entry e's bytes start in the file (its local header checked): 0, or -1 with the message. */
int tio_zip_entry_start(struct pt_reader *z, const struct zip_entry *e, size_t *start);
int tio_pt_find_pickle(struct pt_reader *z, const struct zip_entry **pkl);
int tio_pt_find(struct pt_reader *z, const char *rest, size_t rest_len, const struct zip_entry **found);

/* ---- the pickle machine (pickle.c) ---- */

/*
 * Objects live in one array and are named by their index there.  A tuple
 * lists its items' indices in `items`; a list, a dict or an object given
 * items (a dict subclass) chains its entries in `links`, in the order the
 * pickle added them.  Nothing is imported or called: a global is a name,
 * and what a call of a global the machine does not know builds is an
 * inert object holding its class, arguments and state.  Every array has a
 * ceiling (struct pk_limits), so data.pkl cannot make the machine grow
 * without bound, and nothing recurses on the input's nesting.
 *
 * Two sets of limits: one tensor (tensor_open(): a few hundred bytes of
 * data.pkl, globals outside torch's tensor set refused) and a checkpoint
 * (ptobj.h: up to PKL_CKPT_MAX bytes and millions of objects, any global
 * kept as an inert name).
 */

#define PK_MAX_LINE 256 /* GLOBAL's module and name lines */
#define PK_MAX_KEY 255  /* storage keys are small decimal numbers */
#define PK_NOREF UINT32_MAX

struct pk_limits {
	size_t values;  /* objects made */
	size_t items;   /* tuple items, and list and dict entries */
	size_t depth;   /* the stack */
	size_t marks;   /* MARKs open at once */
	size_t views;   /* tensors */
	size_t memo;    /* memo slots (an index at or past it is refused) */
	bool any_global; /* an unknown global is an inert name (else refused) */
	const char *what; /* said when a limit is passed: "not one tensor" */
};
extern const struct pk_limits pk_limits_tensor, pk_limits_ckpt;

enum pk_kind {
	PK_NONE, PK_BOOL, PK_INT, PK_FLOAT, PK_STR, PK_TUPLE, PK_LIST, PK_DICT, PK_GLOBAL, PK_STORAGE, PK_TENSOR,
	PK_BYTES, PK_OBJECT, PK_SET
};

enum pk_global {
	G_REBUILD_V2,
	G_REBUILD_V3,
	G_REBUILD_PARAMETER,
	G_REBUILD_PARAMETER_STATE,
	G_REBUILD_FROM_TYPE,
	G_ORDERED_DICT,
	G_TENSOR_CLASS,
	G_PARAMETER_CLASS,
	G_TYPED_STORAGE,
	G_UNTYPED_STORAGE,
	G_DTYPE,
	G_OTHER, /* any other global (checkpoints only): module and name kept */
};

/* One entry of a list (key PK_NOREF) or a dict; next: the following entry, PK_NOREF at the end. */
struct pk_link {
	uint32_t key, value, next;
};

struct pk_value {
	enum pk_kind kind;
	union {
		int64_t i; /* PK_INT, PK_BOOL */
		double f;
		struct { const unsigned char *s; size_t len; } str; /* PK_STR, PK_BYTES */
		struct { uint32_t first, n; } tuple;  /* items[first .. first + n) */
		struct { uint32_t head, tail, count; } coll; /* PK_LIST, PK_DICT, PK_SET: links */
		/* G_OTHER: module and name, offsets into data.pkl */
		struct { enum pk_global g; int dtype; uint32_t mod, name; uint16_t mod_len, name_len; } global;
		/* dtype -1: an untyped storage, whose numel counts bytes */
		struct { const unsigned char *key; size_t key_len; int dtype; int64_t numel; } storage;
		struct { uint32_t view; bool requires_grad; } tensor;
		/* a call or NEWOBJ of a global the machine does not make itself (argparse.Namespace, ...):
		   cls the PK_GLOBAL, args a tuple or PK_NOREF, state what BUILD gave (PK_NOREF: none),
		   items a PK_DICT or PK_LIST of what SETITEM(S) or APPEND(S) added (PK_NOREF: none) */
		struct { uint32_t cls, args, state, items; } object;
	} u;
};

struct pk_view {
	uint32_t storage; /* a PK_STORAGE value */
	int dtype;
	int ndim;
	int64_t offset;
	size_t dims;      /* shape at pickle.dims[dims], stride at pickle.dims[dims + ndim] */
};

struct pickle {
	const char *path;
	struct strbuf *err;
	const struct pk_limits *lim;
	const unsigned char *data;
	size_t len, pos, op; /* op: where the current opcode is, for messages */
	struct pk_value *values;
	size_t nvalues, values_alloc;
	uint32_t *items;
	size_t nitems, items_alloc;
	struct pk_link *links;
	size_t nlinks, links_alloc;
	uint32_t *stack;
	size_t depth, stack_alloc;
	size_t *marks;
	size_t nmarks, marks_alloc;
	uint32_t *memo; /* value index + 1; 0: unset */
	size_t memo_alloc, memo_count; /* memo_count: indices set, where MEMOIZE stores next */
	struct pk_view *views;
	size_t nviews, views_alloc;
	int64_t *dims;
	size_t ndims, dims_alloc;
	uint32_t root; /* after tio_pk_run(): the object STOP left */
};

/*
 * Run data.pkl to its STOP under pk->lim (pk_limits_tensor when NULL);
 * pk->root is then what it built.  0, or -1 with "PATH: data.pkl byte N:
 * what" in pk->err.
 */
int tio_pk_run(struct pickle *pk);
/* The same, and the object must be one tensor: *tensor. */
int tio_pk_run_tensor(struct pickle *pk, const struct pk_value **tensor);
struct pk_value *tio_pk_val(struct pickle *pk, uint32_t i);
/* A tuple's item i (i < n). */
const struct pk_value *tio_pk_item(const struct pickle *pk, const struct pk_value *tuple, size_t i);
/* A view's shape and strides. */
static inline const int64_t *tio_pk_shape(const struct pickle *pk, const struct pk_view *v)
{
	return pk->dims + v->dims;
}
static inline const int64_t *tio_pk_stride(const struct pickle *pk, const struct pk_view *v)
{
	return pk->dims + v->dims + v->ndim;
}
/* "None", "a bool", "a dict", ... for messages. */
const char *tio_pk_kind_name(enum pk_kind k);
void tio_pk_release(struct pickle *pk);

/* ---- the readers (pt.c, npy.c) ---- */

/* torch 2.x's byteorder entry: *big when the storages are big-endian (none: little). */
int tio_pt_byteorder(struct pt_reader *z, bool *big);
/* The tensor of a mapped .pt (t->map), read through z (which the caller releases). */
int tio_pt_open(struct tensor *t, const char *path, struct strbuf *err, struct pt_reader *z);
/* The tensor of a mapped .npy (t->map). */
int tio_npy_open(struct tensor *t, const char *path, struct strbuf *err);
/* Whether a file starts as ATB's .bin does ("$Version="). */
bool tio_atb_looks_like(const unsigned char *f, size_t n);
/* ATB's dtype code as ours: 0, or -1 for a code probe does not read. */
int tio_atb_dtype(int code, enum dtype *out);
/* The tensor of a mapped ATB .bin (t->map); an alias file (data=) fails, naming its target. */
int tio_atb_open(struct tensor *t, const char *path, struct strbuf *err);
/* Of a .bin's first size bytes: 1 and the target in alias when it is an alias, 0 when not, -1 on a bad header. */
int tio_atb_alias(const unsigned char *f, size_t size, const char *path, struct strbuf *alias, struct strbuf *err);

#endif
