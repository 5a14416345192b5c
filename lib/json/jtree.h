/*
 * jtree.h: one JSON value held in memory, read from a json_reader.
 *
 * The dump reader streams the top of a dump.json and builds a tree only
 * for one entry at a time; record readers build one per line.  Nodes live
 * in an arena (see arena.h) and die with it.
 *
 * Strings and number texts are NUL-terminated copies (`len` excludes the
 * NUL; strings may contain NULs of their own).  Object members keep file
 * order; an object with the same key twice is rejected (JSON leaves the
 * meaning open, and a dump never has it).
 */
#ifndef PROBE_JTREE_H
#define PROBE_JTREE_H

#include "../core/arena.h"
#include "json.h"

enum jkind {
	J_NULL,
	J_FALSE,
	J_TRUE,
	J_NUMBER, /* text as written; `nonfinite` for NaN, Infinity, -Infinity */
	J_STRING,
	J_ARRAY,
	J_OBJECT,
};

struct jnode {
	enum jkind kind;
	bool nonfinite;
	uint32_t count;       /* ARRAY, OBJECT: number of children */
	const char *text;     /* NUMBER, STRING */
	size_t len;
	const char *key;      /* member of an OBJECT: its key (else NULL) */
	size_t key_len;
	struct jnode *child;  /* ARRAY, OBJECT: first child */
	struct jnode *next;   /* next sibling */
	uint64_t line, col;   /* position of the value's first byte */
};

/*
 * Build the tree of the value whose first token is `first` (already read
 * from r).  Returns NULL on error, with the message in
 * json_reader_error(r).
 */
struct jnode *jtree_build(struct json_reader *r, const struct json_token *first, struct arena *a);

/*
 * The same, with the tree's memory counted as it grows (its nodes, their
 * texts and keys, added to b->bytes; its values to b->values): once
 * b->bytes passes b->limit, the building stops before it takes more and
 * returns NULL with b->exceeded set (and no message in the reader: the
 * caller says what the limit is).  The caller may add bytes of its own to
 * the same budget (the dump reader counts its rows too).
 */
struct jtree_budget {
	size_t bytes, limit;
	uint64_t values;
	bool exceeded;
};
struct jnode *jtree_build_within(struct json_reader *r, const struct json_token *first, struct arena *a,
				 struct jtree_budget *b);

/* Member of an object by key, or NULL (also NULL when obj is not an object). */
const struct jnode *jtree_get(const struct jnode *obj, const char *key);

/* A NUMBER's value: NaN, Infinity and -Infinity as such, the text read as strtod(3) reads it otherwise. */
double jtree_number(const struct jnode *node);
/* A NUMBER written as an integer (no fraction, no exponent, finite): what Python's json makes an int. */
bool jtree_is_int(const struct jnode *node);

/* True when node is a string equal to s. */
bool jtree_is_str(const struct jnode *node, const char *s);

/*
 * A file that is one JSON object of named values (stack.json,
 * construct.json): each(ctx, r, name, len, value, at) for every member in
 * file order, value built in a scratch arena that is reset between members
 * (copy what must outlive the call); `at` is the value's first token, for
 * json_reader_fail_at().  each returns 0, or -1 after json_reader_fail_at().
 * `what` names the file in "WHAT is not a JSON object".  Borrows src (the
 * caller closes it).  0, or -1 with the reader's message (file:line:col)
 * added to err.
 */
typedef int jtree_member_fn(void *ctx, struct json_reader *r, const char *name, size_t len,
			    const struct jnode *value, const struct json_token *at);
int jtree_each_member(struct source *src, const char *what, jtree_member_fn *each, void *ctx,
		      struct strbuf *err);

#endif
