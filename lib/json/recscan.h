/*
 * recscan.h: the top-level members of one JSON object held in memory.
 *
 * The record tools read millions of NDJSON lines and need a handful of
 * fields of each; building a tree of every line would cost more than the
 * rest of their work.  rs_next() walks the members of an object and hands
 * out each value as a span of its raw JSON text, skipping nested values
 * without building anything.  Spans point into the caller's buffer and
 * live as long as it does.
 *
 * Checking: structure is checked (brackets, strings, separators, literals,
 * number characters); the contents of strings that are skipped are not
 * (escapes and UTF-8 are checked when a string is decoded).  Errors say
 * what and at which byte of the object.
 *
 * Depth: a value skipped inside an object or array may hold at most
 * RS_MAX_DEPTH - 1 levels of arrays and objects, so that, counting the
 * object or array scanned (a record line, or a leaf inside a pair), nothing
 * nests deeper than RS_MAX_DEPTH: the limit of the dump reader (json.h), so
 * that whatever probe-flatten writes reads back.  Deeper is the error
 * rs_depth_error, "nesting deeper than 10000 levels", at the bracket that
 * opens the level too many; skipping stays linear in the bytes whatever the
 * depth (one pass, no recursion).
 */
#ifndef PROBE_RECSCAN_H
#define PROBE_RECSCAN_H

#include "../core/strbuf.h"

#define RS_MAX_DEPTH 10000
extern const char rs_depth_error[];

enum span_kind {
	SPAN_NONE = 0, /* absent */
	SPAN_NULL,
	SPAN_FALSE,
	SPAN_TRUE,
	SPAN_NUMBER,
	SPAN_STRING,   /* the text includes the quotes */
	SPAN_ARRAY,
	SPAN_OBJECT,
};

struct span {
	const char *p;
	size_t n;
	enum span_kind kind;
};

struct rs_iter {
	const char *base;  /* start of the object, for error offsets */
	const char *p, *end;
	bool first;
	bool open_ended;   /* started with rs_begin_at: the closing brace ends the members */
	const char *error; /* static text of the first error, or NULL */
	size_t error_at;   /* byte offset of it in the object */
};

/* Start on the object s[0..n) (leading and trailing blanks allowed). Returns 0 or -1 (not an object). */
int rs_begin(struct rs_iter *it, const char *s, size_t n);
/* The next member: 1 with *key (a SPAN_STRING) and *value, 0 at the end, -1 on error. */
int rs_next(struct rs_iter *it, struct span *key, struct span *value);

/*
 * The same in two steps, for a caller that reads a value itself:
 * rs_key() gives the key and leaves it->p on the value; then either
 * rs_value() skips it, or the caller reads it and calls rs_resume() with
 * where it ended.
 */
int rs_key(struct rs_iter *it, struct span *key);
int rs_value(struct rs_iter *it, struct span *value);
void rs_resume(struct rs_iter *it, const char *after);

/*
 * An object that starts at p inside a larger text (bound: the end of the
 * text): its members end at its closing brace, after which rs_next()
 * returns 0 with it->p just past the brace.
 */
int rs_begin_at(struct rs_iter *it, const char *p, const char *bound);

/* The same over the items of an array s[0..n): rs_next_item() gives each value. */
int rs_begin_array(struct rs_iter *it, const char *s, size_t n);
int rs_next_item(struct rs_iter *it, struct span *value);

/*
 * The string, number or literal that starts at p (before end), checked as
 * rs_next() checks the values it skips: its span in *v, and the byte after
 * it; NULL when there is none at p (an array or object is not a scalar).
 */
const char *rs_scalar(const char *p, const char *end, struct span *v);

/* The key span (quotes included) equals the plain word w (no escapes needed). */
bool span_key_is(const struct span *key, const char *w, size_t wlen);
/*
 * A string span decoded into out (escapes resolved; a lone surrogate escape
 * as U+FFFD); -1 when it is not a valid string.
 */
int span_string(const struct span *s, struct strbuf *out);
/* Whether span_string() would decode s: a string of valid escapes and UTF-8 (fast for plain ASCII). */
bool span_string_valid(const struct span *s);
/* A string span without escapes: its contents in place (no copy); false when it has escapes. */
bool span_plain_string(const struct span *s, const char **p, size_t *n);
/* A string span equal to the plain text t. */
bool span_str_eq(const struct span *s, const char *t, size_t tlen);
/* Integer value of a NUMBER span (no fraction or exponent); false otherwise. */
bool span_int(const struct span *s, int64_t *out);
/* Two spans with the same bytes (and kind). */
bool span_same(const struct span *a, const struct span *b);

/*
 * Fill `values` with the spans of the wanted keys (SPAN_NONE when absent),
 * reading the whole object.  keys[i] are plain words.  Returns 0 or -1.
 */
int rs_fields(struct rs_iter *it, const char *const *keys, size_t nkeys, struct span *values);

#endif
