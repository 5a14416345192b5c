/*
 * utf8.h: UTF-8 as RFC 3629 defines it: no overlong forms, no UTF-16
 * surrogates, nothing past U+10FFFF.  The one decoder and encoder of the
 * project (the JSON reader and writer, the SVG text, Python's repr).
 * Pure functions; safe in any thread.
 */
#ifndef PROBE_UTF8_H
#define PROBE_UTF8_H

#include "strbuf.h"

/*
 * The length (1 to 4) of the well-formed sequence at s, where n >= 1 bytes
 * are readable; 0 when s does not start one; -1 when the n bytes are the
 * start of one, cut short (a stream reader may read more and ask again).
 */
int utf8_sequence(const unsigned char *s, size_t n);

/* The code point of the well-formed sequence of len bytes (utf8_sequence()) at s. */
uint32_t utf8_code_point(const unsigned char *s, int len);

/* Whether the n bytes at s are well-formed UTF-8 throughout. */
bool utf8_valid(const char *s, size_t n);

/*
 * Whether a page (HTML text, attribute values, script data, and XML 1.0's
 * text: the HTML and SVG of probe-graph and probe-plot) may hold code point
 * cp: no control but tab, LF and CR (C0, DEL, C1), no surrogate, no
 * non-character (U+FDD0..U+FDEF and the last two of every plane: U+FFFE,
 * U+FFFF, U+1FFFE, ...), nothing past U+10FFFF.  Writers of a page put
 * U+FFFD in the place of any other.
 */
bool utf8_page_char(uint32_t cp);

/* Append code point cp (at most U+10FFFF, not a surrogate), encoded. */
void utf8_put(struct strbuf *sb, uint32_t cp);

#endif
