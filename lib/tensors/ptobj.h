/*
 * ptobj.h: the objects a .pt file holds (torch.save of a dict, a state
 * dict, a training checkpoint), read once, for the checkpoint readers.
 *
 * tensor.h opens a .pt of one tensor; a checkpoint pickles a tree of
 * dicts, OrderedDicts, lists, tuples, argparse Namespaces, numbers,
 * strings, None and many tensors, whose storages (zip entries
 * <stem>/data/<key>) several tensors may share.  ptobj_open() maps the
 * file, reads its zip directory, runs data.pkl once on the bounded pickle
 * machine (tensorio.h: nothing imported or called; a global it does not
 * know, such as argparse.Namespace or a Megatron enum, is kept as a name,
 * and what calling it would build as an inert object with its arguments
 * and state), and checks every tensor against its storage entry: the
 * entry exists, holds the storage's bytes, and the view stays inside
 * them.  The tree is then read through references (ptobj_ref); each
 * tensor's place in the file (tplace.h) opens it without reading data.pkl
 * again.
 *
 * Errors follow msg.h and name the file and the zip entry or the byte of
 * data.pkl: "ckpt.pt: data.pkl byte 1234: ...", "ckpt.pt: entry
 * archive/data/7 holds 96 bytes but its storage is 64 bfloat16 elements
 * (128 bytes)".  A file that is not a zip archive, has no data.pkl, or
 * whose data.pkl fails its CRC is refused.  Limits (tensorio.h,
 * pk_limits_ckpt): data.pkl up to 256 MiB, 8 Mi objects, 4 Mi tensors;
 * memory about 40 bytes per object of data.pkl, freed by ptobj_close().
 *
 * Walking the tree: dicts may hold themselves (a pickle can make cycles)
 * and share subtrees; a walker bounds its depth and the nodes it visits.
 *
 * Memory and lifetime: strings, keys and shapes returned point into the
 * ptobj and live until ptobj_close(); the file stays mapped until then.
 * Not thread-safe while it is opened; read-only after, any thread may read.
 */
#ifndef PROBE_PTOBJ_H
#define PROBE_PTOBJ_H

#include "tplace.h"

struct ptobj;
typedef uint32_t ptobj_ref;
#define PTOBJ_NOREF UINT32_MAX

enum ptobj_kind {
	PTOBJ_NONE, PTOBJ_BOOL, PTOBJ_INT, PTOBJ_FLOAT, PTOBJ_STR, PTOBJ_BYTES, PTOBJ_TUPLE, PTOBJ_LIST,
	PTOBJ_DICT,   /* a dict or an OrderedDict */
	PTOBJ_TENSOR, /* a tensor or a Parameter */
	PTOBJ_OBJECT, /* built by a global kept as a name (argparse.Namespace, io.BytesIO, ...) */
	PTOBJ_OTHER,  /* a global itself, a storage, a set */
};

/* 0 and *o, or -1 with "PATH: what" in err. */
int ptobj_open(struct ptobj **o, const char *path, struct strbuf *err);
void ptobj_close(struct ptobj *o);

/* What data.pkl pickled. */
ptobj_ref ptobj_root(const struct ptobj *o);
enum ptobj_kind ptobj_kind(const struct ptobj *o, ptobj_ref r);
/* "a dict", "an int", ... for messages. */
const char *ptobj_kind_name(const struct ptobj *o, ptobj_ref r);

/*
 * The entries of a dict (key and value), a list or a tuple (key
 * PTOBJ_NOREF), in order; an object of a dict or list subclass (items
 * added by SETITEMS or APPENDS) gives those.  Anything else has none.
 *
 *	struct ptobj_iter it;
 *	ptobj_ref k, v;
 *	for (ptobj_iter_begin(o, r, &it); ptobj_iter_next(o, &it, &k, &v);)
 */
struct ptobj_iter {
	uint32_t at, n;
	bool tuple;
};
void ptobj_iter_begin(const struct ptobj *o, ptobj_ref r, struct ptobj_iter *it);
bool ptobj_iter_next(const struct ptobj *o, struct ptobj_iter *it, ptobj_ref *key, ptobj_ref *value);
/* Whether r has entries to walk: a dict, or an object of a dict subclass. */
bool ptobj_is_mapping(const struct ptobj *o, ptobj_ref r);

/*
 * The value of the str key `key` in a dict, or of the attribute `key` of
 * an object whose state is a dict (argparse.Namespace); PTOBJ_NOREF when
 * there is none.  The last of equal keys counts, as Python's dict keeps it.
 */
ptobj_ref ptobj_get(const struct ptobj *o, ptobj_ref r, const char *key);

/* An int (or a bool): true and *v. */
bool ptobj_int(const struct ptobj *o, ptobj_ref r, int64_t *v);
/* A str: its UTF-8 bytes (not NUL-terminated) and *len; NULL for anything else. */
const char *ptobj_str(const struct ptobj *o, ptobj_ref r, size_t *len);
/* An object's class, or a global: "module.name" appended to out; false for anything else. */
bool ptobj_class(const struct ptobj *o, ptobj_ref r, struct strbuf *out);

/* A tensor: its place in the file (shape and stride live in o), ready for tplace_open(). */
struct ptobj_tensor {
	struct tplace place;
	const char *entry;     /* its storage's zip entry, for messages */
	size_t entry_len;
};
bool ptobj_tensor(const struct ptobj *o, ptobj_ref r, struct ptobj_tensor *out);

/*
 * Budgets (PROBE_PT_EXPAND, a whole number above 0, 64 unless set): the
 * views of a file's deflated storages inflate at most that many times the
 * file's size in all (at least 64 MiB), refused at open; a walk of the
 * tree visits at most that many times data.pkl's objects (at least 1 Mi
 * visits).  ptobj_expand(): the factor, or 0 with "PROBE_PT_EXPAND=V:
 * what is wrong" in err.
 */
#define PTOBJ_EXPAND_DEFAULT 64
size_t ptobj_expand(struct strbuf *err);
/* The number of objects data.pkl made. */
size_t ptobj_objects(const struct ptobj *o);

/* The file's path as opened. */
const char *ptobj_path(const struct ptobj *o);

#endif
