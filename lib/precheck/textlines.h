/*
 * textlines.h: a text read line by line as Python's text files read it
 * (universal newlines: "\n", "\r\n" and a lone "\r" each end a line), and
 * the whitespace Python's str.strip() takes away (ASCII's, and 0x1c to
 * 0x1f; the other Unicode spaces are not recognised).
 *
 * The iterator borrows the text; a line's bytes stay in it.  Pure
 * functions; safe in any thread.
 */
#ifndef PROBE_TEXTLINES_H
#define PROBE_TEXTLINES_H

#include "../core/compat.h"

struct textlines {
	const char *p, *end;
	size_t line; /* of the line last returned, 1-based */
};

void textlines_init(struct textlines *t, const char *data, size_t len);
/* The next line, without its end (*s, *n), true; false at the end of the text. */
bool textlines_next(struct textlines *t, const char **s, size_t *n);
/* Whether c is whitespace to str.strip(). */
bool textlines_space(unsigned char c);
/* s[0..*n) with the whitespace on both ends taken away (*s and *n updated). */
void textlines_strip(const char **s, size_t *n);

#endif
