/*
 * textesc.h: text meant for a terminal, its control characters made visible.
 *
 * A name in a dump is whatever the dumped program called it, and a stack
 * line whatever its source file holds: either may carry ESC and the rest
 * of a terminal's control sequences (an OSC "ESC ] 0 ; ... BEL" retitles
 * the window, others move the cursor, rewrite what is on the screen, or
 * make some terminals answer as if typed).  Every text probe writes for
 * people goes through text_escape(): probe-first --format text,
 * probe-stack --format text, probe-match -v and every message on stderr
 * (msg.c).  Out of it come, as \xHH: the C0 controls U+0000-U+001F but
 * those the caller keeps (the line ends and tabs of its own format), DEL
 * (U+007F), and every byte that is not part of well-formed UTF-8 (a
 * terminal set to an 8-bit charset would take 0x9b for CSI); as \uHHHH:
 * the C1 controls U+0080-U+009F (UTF-8 C2 80 to C2 9F).  Everything else,
 * backslashes included, is as it was: "\x1b" in a name reads the same as
 * an ESC made visible, which is harmless.
 *
 * Records (JSON) are not escaped this way: jsonw escapes their control
 * characters as JSON requires, and a program reading them wants the names
 * as they are.  A future writer of text for people (or of a format a
 * terminal may show) calls this too.
 */
#ifndef PROBE_TEXTESC_H
#define PROBE_TEXTESC_H

#include "strbuf.h"

#define TEXT_KEEP_NL 1u  /* \n stays: the format's line ends */
#define TEXT_KEEP_TAB 2u /* \t stays */

/* Append s (len bytes) to out, escaped. */
void text_escape(struct strbuf *out, const char *s, size_t len, unsigned keep);
void text_escape_str(struct strbuf *out, const char *s, unsigned keep);
/* Escape, in place, what out holds from byte `from` on. */
void text_escape_tail(struct strbuf *out, size_t from, unsigned keep);
/*
 * A value quoted in a message: s (len bytes) in single quotes, cut to its
 * first max bytes (back to the start of a UTF-8 sequence) with "..." after
 * when it is longer, so that a name of megabytes makes a message of a line.
 * Not escaped here: messages are escaped as they are written (msg.h).
 */
void text_quote_cut(struct strbuf *out, const char *s, size_t len, size_t max);
/* The same without the quotes, for a message that quotes in its own way. */
void text_cut(struct strbuf *out, const char *s, size_t len, size_t max);
/* How many of s's len bytes text_cut() keeps: len, or at most max, ending before a UTF-8 continuation byte. */
size_t text_cut_len(const char *s, size_t len, size_t max);
/* Whether s needs escaping at all. */
bool text_needs_escape(const char *s, size_t len, unsigned keep);

/*
 * Words of a command line for sh, as the tools print commands to type
 * (hint.h, probe-first's next step): word as it is when it is made of
 * letters, digits and "_-./:@%+=," only, else in single quotes (a quote
 * inside as '\''); a path also after "./" when it would pass for an option.
 */
void text_sh_word(struct strbuf *out, const char *word);
void text_sh_path(struct strbuf *out, const char *path);

#endif
