/*
 * jsonw.h: writing JSON text into a strbuf.
 *
 * Output is always valid JSON (RFC 8259): strings are escaped (control
 * characters as \uXXXX, '"' and '\\' with a backslash; valid UTF-8 passes
 * through, invalid bytes become U+FFFD), and the non-finite numbers of a
 * dump are written as the strings "nan", "inf" and "-inf", the record
 * contract's spelling (see probe-records(5)).  Number texts are otherwise
 * copied as written, so "1.0" stays "1.0".
 */
#ifndef PROBE_JSONW_H
#define PROBE_JSONW_H

#include "jtree.h"
#include "../core/strbuf.h"

/* "s" with quotes and escapes. */
void jsonw_string(struct strbuf *out, const char *s, size_t len);
static inline void jsonw_str(struct strbuf *out, const char *s)
{
	jsonw_string(out, s, strlen(s));
}

/* A whole tree, compact (no spaces), members in order. */
void jsonw_tree(struct strbuf *out, const struct jnode *node);

#endif
