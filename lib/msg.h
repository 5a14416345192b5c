/*
 * msg.h: messages, exit status and the error grammar shared by every tool.
 *
 * Messages go to stderr as "probe-xxx: what is wrong", where the subject
 * comes first when there is one: "probe-xxx: FILE:LINE:COL: what is wrong".
 * They start in lower case and carry no final period.
 *
 * error() prints and returns -1, so that library code can report and
 * propagate a failure in one statement: `return error("...")`.
 * die() prints and exits with PROBE_TROUBLE; only tools and the x*
 * allocators call it.
 */
#ifndef PROBE_MSG_H
#define PROBE_MSG_H

#include "compat.h"

/* Exit status of every tool (see the EXIT STATUS section of the man pages). */
enum probe_status {
	PROBE_OK = 0,       /* success; probe-first: no divergence */
	PROBE_DIFFERENT = 1, /* a divergence was found (probe-first, --check modes) */
	PROBE_TROUBLE = 2,  /* usage, unreadable or malformed input, nothing to compare */
	PROBE_INCOMPLETE = 3, /* probe-first: no divergence in what was compared, but not everything was */
};

/* Set once by main(); used as the prefix of every message. */
void msg_set_progname(const char *argv0);
const char *msg_progname(void);

int error(const char *fmt, ...) PRINTF_LIKE(1, 2);
int error_errno(const char *fmt, ...) PRINTF_LIKE(1, 2); /* appends ": strerror(errno)" */
void warning(const char *fmt, ...) PRINTF_LIKE(1, 2);
void NORETURN die(const char *fmt, ...) PRINTF_LIKE(1, 2);
void NORETURN die_errno(const char *fmt, ...) PRINTF_LIKE(1, 2);

/*
 * Hook called by die() before exiting, so that a tool can mark its output
 * as incomplete (see record_write_error()).  NULL by default.
 */
void msg_set_die_hook(void (*hook)(const char *message));

/* Number of warnings printed so far (tests and --check modes use it). */
unsigned long msg_warning_count(void);

/* When true, warning() prints nothing (still counted). */
void msg_set_quiet(bool quiet);
bool msg_is_quiet(void);

#endif
