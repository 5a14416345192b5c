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

/*
 * JSON text (len bytes at json, as the functions here write it) made fit
 * to sit in an HTML page's <script> element and in XML text, appended to
 * out: no '<', '>' or '&' is left (they can only be inside strings, and
 * become \u003c, \u003e and \u0026, so that no "</script>", "<!--" or
 * "<![CDATA[" can end or change the script), U+2028 and U+2029 become
 * \u2028 and \u2029, and a character a page may not hold
 * (utf8_page_char(): a control but tab, LF and CR, a non-character such as
 * U+FFFE), raw or written as a \u escape (a surrogate pair read as one),
 * becomes \ufffd, as does a byte that is not UTF-8.  The one writer of
 * every string either tool puts in a page's script (gview.c, plothtml.c).
 * Returns the bytes of json consumed: all of them when `all`; otherwise
 * what ends the text may be left (a UTF-8 sequence or an escape cut short),
 * to be given again with what follows.
 */
size_t jsonw_script_safe(struct strbuf *out, const char *json, size_t len, bool all);

/* A whole tree, compact (no spaces), members in order. */
void jsonw_tree(struct strbuf *out, const struct jnode *node);

#endif
