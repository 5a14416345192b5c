/*
 * msg.h: messages, exit status, and the one error protocol of the library.
 *
 * Messages go to stderr as "probe-xxx: what is wrong", where the subject
 * comes first when there is one: "probe-xxx: FILE:LINE:COL: what is wrong".
 * They start in lower case and carry no final period.  warning() prints
 * "probe-xxx: warning: ..." and goes on; die() prints and exits with
 * PROBE_TROUBLE.  Everything written to stderr has its control characters
 * made visible (textesc.h).
 *
 * THE ERROR PROTOCOL.  Every header of lib/ follows it; a header says only
 * where it departs from it.
 *
 *   Failure.  A call that can fail returns an int, 0 (or a count) on
 *   success and negative on failure, or a pointer, NULL on failure.  The
 *   message is then in the `struct strbuf *err` the caller passed: one
 *   line, without the program's name, a newline or a final period.  The
 *   callee appends to err; the caller owns it (STRBUF_INIT ...
 *   strbuf_release()) and gives an empty one.
 *
 *   Position.  A message names what it is about first: "FILE: what",
 *   "FILE:LINE: what", "FILE: byte N: what" (msg_fail() writes one).  The one exception is a call
 *   fed one record line of a stream it does not own (first_add(),
 *   attach_record(), matcher_add_target(), ...): it cannot know the
 *   stream's name or the line's number, so its negative return says what
 *   the message is about, and line_reader_feed() (lines.h) puts the
 *   position before it:
 *
 *     PROBE_ERR        the message is whole (it is about another file: a
 *                      stack.json, the golden dump, a tensor file)
 *     PROBE_ERR_LINE   about the line just given: "NAME:LINE: " goes first
 *     PROBE_ERR_INPUT  about the stream as a whole (a *_finish() call:
 *                      nothing to compare): "NAME: " goes first
 *
 *   Exit.  Only tools decide to exit.  die() is called by the tools, by
 *   the x* allocators and the arena when memory runs out (xalloc.h), by
 *   output.h when stdout cannot be written, by the option parsing that
 *   tools call on their command line (opt.h, verdict_band_option()), and
 *   by the test-data generator (testdata/), which is a tool's logic and
 *   nothing else's.
 *
 *   Ownership.  What a call returns stays the callee's (valid until the
 *   next call on the same object, or its *_free() / *_release()) unless its
 *   header says the caller owns it.  Every *_new() or *_open() has its
 *   *_free() or *_close(), which accept NULL.  An object is used by one
 *   thread at a time unless its header says otherwise.
 */
#ifndef PROBE_MSG_H
#define PROBE_MSG_H

#include "compat.h"

/* Exit status of every tool (see the EXIT STATUS section of the man pages). */
enum probe_status {
	PROBE_OK = 0,       /* success; probe-first: no divergence */
	PROBE_DIFFERENT = 1, /* a divergence was found (probe-first) */
	PROBE_TROUBLE = 2,  /* usage, unreadable or malformed input, nothing to compare */
	PROBE_INCOMPLETE = 3, /* probe-first: no divergence in what was compared, but not everything was */
};

/* Append "SUBJECT: what" (a file, "FILE:LINE", ...) to err, as the protocol writes messages; returns PROBE_ERR. */
struct strbuf;
int msg_fail(struct strbuf *err, const char *subject, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* Put "POSITION: " (fmt formatted) before the message already in err; returns PROBE_ERR. */
int msg_place(struct strbuf *err, const char *fmt, ...) PRINTF_LIKE(2, 3);

/* The negative returns of the protocol above. */
enum probe_err {
	PROBE_ERR = -1,
	PROBE_ERR_LINE = -2,
	PROBE_ERR_INPUT = -3,
};

/* Set once by main(); used as the prefix of every message. */
void msg_set_progname(const char *argv0);
const char *msg_progname(void);

void warning(const char *fmt, ...) PRINTF_LIKE(1, 2);
/* "probe-xxx: message" on stderr, what -v asks for: printed even when quiet. */
void msg_report(const char *fmt, ...) PRINTF_LIKE(1, 2);
void NORETURN die(const char *fmt, ...) PRINTF_LIKE(1, 2);
void NORETURN die_errno(const char *fmt, ...) PRINTF_LIKE(1, 2); /* appends ": strerror(errno)" */

/*
 * Hook called by die() with "prog: message" before exiting, so that a tool
 * can mark its output as incomplete (output.c ends a record stream with an
 * error record, see output.h).  NULL by default.
 */
void msg_set_die_hook(void (*hook)(const char *message));
/*
 * The input's producer failed and said so (an {"error": message} record,
 * records/lines.h): die() then says nothing on stderr when quiet_here (the
 * producer, beside it in a pipeline, has said it once already), and its
 * hook passes the producer's message on in place of its own, so that the
 * tools after it stop quietly too and the stream keeps the first cause.
 */
void msg_upstream_failed(const char *message, bool quiet_here);
/* Run the die hook (once) as die() would, without exiting: for usage errors (opt.h). */
void msg_run_die_hook(const char *message);
/* Called before any message is written to stderr (progress.h clears its line there). */
void msg_set_before_message(void (*hook)(void));

/* When true, warning() prints nothing (still counted). */
void msg_set_quiet(bool quiet);
bool msg_is_quiet(void);

#endif
