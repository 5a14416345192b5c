/*
 * mscell.h: what msprobe's compare makes of one leaf (its gen_op_item).
 *
 * msprobe turns each leaf into a row whose dtype, shape, statistics and
 * md5 cells follow per-kind rules (reference: msprobe-compare.md section
 * 1.4): a tensor keeps its dtype and shape; a torch.Size, a slice, an
 * ellipsis, a src/dst argument, a ProcessGroup and any other scalar each
 * get their own dtype text, shape text, statistics and md5; a null slot
 * gets None everywhere.  Statistics are Python values after msprobe's
 * clean-up: None becomes the string "None", anything whose str() is "nan"
 * in any case becomes the string "Nan".
 *
 * Memory: everything lives in the arena passed in.
 */
#ifndef PROBE_MSCELL_H
#define PROBE_MSCELL_H

#include "../core/arena.h"
#include "../records/leafrec.h"
#include "pyval.h"

struct msleaf {
	bool null_leaf;        /* a null slot: msprobe's default item */
	const char *name;      /* the row name */
	bool output_row;       /* ".output." in the name: one of the entry's outputs */
	const char *entry;
	const char *dtype;     /* dtype cell: "torch.float32", "<class 'int'>", "None", ... */
	const char *shape;     /* shape cell: "[2, 3]", "[]", "(3,)", "None" */
	const char *req_grad;  /* "True", "False", or NULL when the leaf has none (shown N/A) */
	const char *md5;       /* md5 cell, or NULL for a null slot (shown N/A) */
	struct pyval *stat[4]; /* Max, Min, Mean, Norm */
	const char *data_name; /* file name, or "-1" */
	const char *state;
};

/* The calling thread's scratch text, released before the thread ends (the functions here keep one). */
void mscell_release_thread(void);

/* 0, or -1 with *why when a field cannot be read (an invalid string or number). */
int mscell_from_record(struct msleaf *m, const struct leafrec *r, struct arena *a, const char **why);

/* The kinds of leaf msprobe tells apart (gen_op_item's special cases). */
enum ms_kind {
	MS_NULL,     /* a null slot */
	MS_TENSOR,   /* has a dtype */
	MS_SIZE,     /* torch.Size */
	MS_SLICE,
	MS_ELLIPSIS,
	MS_SRCDST,   /* an argument named src, dst, group_src or group_dst */
	MS_GROUP,    /* torch.ProcessGroup */
	MS_SCALAR,   /* anything else: int, float, bool, str, dtype, device, ... */
};

enum ms_kind mscell_kind_of(const struct leafrec *r);

/* The dtype cell alone (cheaper than mscell_from_record; the matcher's dtype gate needs it). */
void mscell_dtype(const struct leafrec *r, struct strbuf *out);

/*
 * msprobe's dtype gate on a name match (msprobe-crossfw.md, "Matching"):
 * whether the golden columns of a pair of dtype cells t (target) and g
 * stay, rather than becoming N/A.  Equal dtypes pass; so do two of
 * {Float16, Float32, BFloat16} or two of {torch.float16, torch.float32,
 * torch.bfloat16}; and across frameworks (cross: a MindSpore target, the
 * caller knows it from the leaf's type, against a PyTorch golden) both
 * sides are first mapped through msprobe's table of kinds: every int and
 * uint width to "int", float16/32/64 and bfloat16 to "float", bool to
 * "bool", complex64/128 to "complex" (Int32 passes against torch.int64,
 * Float32 against torch.bfloat16; anything else maps to itself, so
 * "<class 'str'>" does not pass against None).
 */
bool mscell_dtype_gate(const char *t, const char *g, bool cross);

/*
 * Whether a MindSpore dtype name and a PyTorch one (either way round) name
 * the same element type: "Float32" and "torch.float32", "BFloat16" and
 * "torch.bfloat16", "UInt8" and "torch.uint8" (the MindSpore name in lower
 * case is the PyTorch name without "torch.").  Float32 and torch.bfloat16
 * are not the same: that is a difference our verdict reports.
 */
bool mscell_dtype_same_across(const char *a, const char *b);

#endif
