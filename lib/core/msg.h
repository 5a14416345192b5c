/*
 * msg.h: messages, exit status and the error grammar shared by every tool.
 *
 * Messages go to stderr as "probe-xxx: what is wrong", where the subject
 * comes first when there is one: "probe-xxx: FILE:LINE:COL: what is wrong".
 * They start in lower case and carry no final period.
 *
 * warning() prints "probe-xxx: warning: ..." and goes on.  die() prints
 * and exits with PROBE_TROUBLE.  Library code returns its errors (-1 or
 * NULL, the message in a struct strbuf the caller gives) and leaves the
 * decision to exit to the tool; die() is called by the tools, by the x*
 * allocators and the arena when memory runs out, by output.c when stdout
 * cannot be written, and by the test-data generator (gendump.c).
 * Everything written to stderr has its control characters made visible
 * (textesc.h).
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

/* Set once by main(); used as the prefix of every message. */
void msg_set_progname(const char *argv0);
const char *msg_progname(void);

void warning(const char *fmt, ...) PRINTF_LIKE(1, 2);
void NORETURN die(const char *fmt, ...) PRINTF_LIKE(1, 2);
void NORETURN die_errno(const char *fmt, ...) PRINTF_LIKE(1, 2); /* appends ": strerror(errno)" */

/*
 * Hook called by die() with "prog: message" before exiting, so that a tool
 * can mark its output as incomplete (output.c ends a record stream with an
 * error record, see output.h).  NULL by default.
 */
void msg_set_die_hook(void (*hook)(const char *message));

/* When true, warning() prints nothing (still counted). */
void msg_set_quiet(bool quiet);
bool msg_is_quiet(void);

#endif
