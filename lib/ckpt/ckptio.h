/*
 * ckptio.h: the inside of ckpt_open() (ckpt.h), for its readers only:
 * ckpt.c (the index, plain .pt files, opening parameters), safet.c
 * (safetensors files and Hugging Face folders), megatron.c (Megatron's
 * legacy layout and msprobe's rules).
 *
 * A reader adds files (ck_add_file()) and parameters made of pieces: a
 * piece is a tensor's place in one of the files (tplace.h), its shape and
 * strides copied into the checkpoint's arena.  Errors follow msg.h.
 */
#ifndef PROBE_CKPTIO_H
#define PROBE_CKPTIO_H

#include "ckpt.h"
#include "../core/arena.h"
#include "../core/msg.h"
#include "../core/strmap.h"
#include "../core/textesc.h"
#include "../core/xalloc.h"
#include "../tensors/ptobj.h"

struct ck_piece {
	uint32_t file;
	struct tplace place;   /* shape and stride in the arena */
};

struct ckpt {
	enum ckpt_kind kind;
	char *path, *root;
	struct ckpt_parallel par;
	struct arena arena;
	const char **files;
	size_t nfiles, files_alloc;
	struct ck_piece *pieces;
	size_t npieces, pieces_alloc;
	struct ckpt_param *params;
	size_t nparams, params_alloc;
	struct strmap byname;  /* name -> index + 1 */
};

/* A file's index among the checkpoint's (its path copied). */
uint32_t ck_add_file(struct ckpt *ck, const char *path);
/* A piece: the tensor's place copied (shape and strides into the arena); its index. */
uint32_t ck_add_piece(struct ckpt *ck, uint32_t file, const struct tplace *p);
/*
 * Parameter `name` (len bytes) made of pieces [first, first + n) with the
 * merge and its shape (ndim sizes, copied).  A name already there keeps
 * its place and takes these pieces; warn_twice: say so (a warning naming
 * `where`).
 */
void ck_add_param(struct ckpt *ck, const char *name, size_t len, enum ckpt_merge merge, int axis, int ndim,
		  const int64_t *shape, uint32_t first, uint32_t n, bool warn_twice, const char *where);

/*
 * A name as a message quotes it: a name is whatever the file says, megabytes
 * of it too, and a message is one line.  Its first CK_SHOWN bytes (cut at a
 * UTF-8 boundary, textesc.h) and "..." when it is longer, in buf.
 */
#define CK_SHOWN 200
typedef char ck_shown_buf[CK_SHOWN + 4];
const char *ck_shown(ck_shown_buf buf, const char *name, size_t len);
#define CK_SHOWN_STR(buf, s) ck_shown(buf, s, strlen(s))

/* The tensors of a .pt's object r, walked as ckpt.h's CKPT_PT says: each (name, tensor) to fn. */
typedef int ck_tensor_fn(void *ctx, const char *name, size_t len, const struct ptobj_tensor *t);
/*
 * dicts_only: walk dicts alone (msprobe's _get_parameter), names joined
 * and stripped of "." at both ends as it joins them; else lists and
 * tuples too.  Names ending in "_extra_state" are left out.  0, or -1
 * with "FILE: what" in err (a key that is neither a str nor an int, nesting
 * deeper than CK_MAX_DEPTH, more than CK_MAX_NODES visits: a cycle or a
 * pickle built to blow up).
 */
#define CK_MAX_DEPTH 100
#define CK_MAX_NODES ((size_t)1 << 24)
int ck_walk(const struct ptobj *o, ptobj_ref r, const char *prefix, bool dicts_only, ck_tensor_fn *fn, void *ctx,
	    struct strbuf *err);

/* The readers: fill ck from ck->root (a file or folder they recognised). */
int ck_read_safetensors(struct ckpt *ck, struct strbuf *err);
int ck_read_hf(struct ckpt *ck, struct strbuf *err);
int ck_read_megatron(struct ckpt *ck, struct strbuf *err);

/*
 * The tensors of one file, each as a new piece, in the file's order, to
 * fn (name, len, piece index); fn returns 0 or -1 with the message.  A .pt
 * is walked as CKPT_PT says; a .safetensors file by its header.
 */
typedef int ck_piece_fn(void *ctx, const char *name, size_t len, uint32_t piece, struct strbuf *err);
int ck_scan_pt(struct ckpt *ck, const char *file, ck_piece_fn *fn, void *ctx, struct strbuf *err);
int ck_scan_safetensors(struct ckpt *ck, const char *file, ck_piece_fn *fn, void *ctx, struct strbuf *err);
/* A ck_piece_fn that adds each piece as a parameter of its own; ctx: the struct ckpt. */
int ck_add_as_is(void *ctx, const char *name, size_t len, uint32_t piece, struct strbuf *err);

/* A little-endian 64-bit number. */
static inline uint64_t ck_le64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* path/name, malloc'ed. */
char *ck_join(const char *dir, const char *name);
bool ck_is_dir(const char *path);
bool ck_is_file(const char *path);

#endif
