/*
 * pyval.h: JSON values seen as Python sees them after json.load().
 *
 * msprobe prints and compares the Python objects json.load() made of a
 * dump: an integer literal becomes an int (arbitrary precision, printed as
 * written), any other number a float (printed with repr), true/false
 * become bool (printed True/False), null None, arrays lists, objects
 * dicts.  Reproducing its text and its equality tests needs the same
 * model; this is it.
 *
 * Records spell non-finite numbers "nan", "inf" and "-inf" (strings); with
 * PYV_NONFINITE_STRINGS such strings are read back as floats, which is
 * right wherever a string cannot occur (statistics) or where the leaf's
 * type says it is not a str (see leafrec.h).
 *
 * Memory: values live in the arena passed to pyval_parse().
 */
#ifndef PROBE_PYVAL_H
#define PROBE_PYVAL_H

#include "../core/arena.h"
#include "../json/recscan.h"
#include "../core/strbuf.h"

enum pykind {
	PY_NONE,
	PY_BOOL,
	PY_INT,
	PY_FLOAT,
	PY_STR,
	PY_LIST,
	PY_DICT,
};

struct pyval {
	enum pykind kind;
	bool b;              /* BOOL */
	bool f_ready;        /* f holds the value (numbers are parsed on first use: see pyval_float) */
	bool canonical;      /* FLOAT: text is exactly Python's repr of the value */
	double f;            /* FLOAT, INT: the value as a double, once f_ready */
	const char *text;    /* INT: digits as written; FLOAT: the JSON text, or NULL; STR: decoded UTF-8 */
	size_t len;
	struct pyval **items; /* LIST: items; DICT: keys at even, values at odd positions */
	size_t n;            /* LIST: items; DICT: pairs */
};

enum pyval_flags {
	PYV_NONFINITE_STRINGS = 1 << 0,
};

/*
 * NULL when the span is not valid JSON, or nests arrays and objects
 * deeper than RS_MAX_DEPTH (recscan.h: what a record reader accepts
 * always parses).  One pass over the text, without recursion: the work
 * is linear in its bytes whatever the depth.  pyval_str(), pyval_repr() and
 * pyval_eq() recurse, as deep as the values these make.
 */
struct pyval *pyval_parse(const struct span *s, unsigned flags, struct arena *a);
struct pyval *pyval_from_text(const char *json, size_t len, unsigned flags, struct arena *a);

/* str(v) and repr(v), appended. */
void pyval_str(struct strbuf *out, const struct pyval *v);
void pyval_repr(struct strbuf *out, const struct pyval *v);
/* repr() of a Python str: quotes chosen and escapes made as CPython does. */
void pyval_repr_string(struct strbuf *out, const char *s, size_t len);

/* Python's ==: numbers (bool, int, float) compare by value; NaN != NaN. */
bool pyval_eq(const struct pyval *a, const struct pyval *b);

/* The double of an INT or FLOAT (parsed from its text the first time). */
double pyval_float(const struct pyval *v);
/* A float NaN, or +inf / -inf (sign > 0 / < 0); false for anything else. */
bool pyval_is_nan(const struct pyval *v);
bool pyval_is_inf(const struct pyval *v, int sign);
/* A float value (not from text). */
void pyval_set_float(struct pyval *v, double f);

#endif
