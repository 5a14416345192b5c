/*
 * progress.h: one progress line on stderr, for work that takes more than a
 * moment (reading large dumps, comparing tensors), in the user's units.
 *
 * A pipeline of probe tools shares one terminal, so only one of them
 * draws: the one at the head, whose standard input is not a pipe (it
 * reads its files, or a file redirected to it); a tool reading another's
 * output through a pipe stays quiet.  What decides (PROBE_PROGRESS):
 *   unset        on when stderr is a terminal, at the head only, after the
 *                work has taken a second;
 *   0            never;
 *   1 (or any    on from the start, also when stderr is no terminal, at
 *   other value) the head only;
 *   all          on from the start in every tool of the pipeline (each
 *                line names its tool; they overwrite each other).
 *
 * The line says what is read and how far: "probe-flatten: 45% of npu/step0
 * (209 MB): rank 3 of 8, 120,345 leaves", from what the tool says
 * (progress_what(), progress_part(), progress_items()) and the bytes every
 * file read by lib/core/source.c adds.  It is redrawn at most five times a
 * second (PROBE_PROGRESS_MS sets another interval, for tests); every
 * drawing is padded with spaces to the terminal's width but one column, so
 * that it covers whatever any tool drew on the row before and never wraps
 * (a longer text is cut there); the row is cleared before a message on
 * stderr and when the work ends.  No colours, no escape sequences: a carriage return
 * and spaces.  Any thread may count; the labels are set by the thread that
 * started the work.
 */
#ifndef PROBE_PROGRESS_H
#define PROBE_PROGRESS_H

#include "compat.h"

/* total: bytes expected (0 when unknown). */
void progress_start(uint64_t total);
/* What is read, for the line ("npu/step0"); copied.  NULL: nothing said. */
void progress_what(const char *what);
/* The part under way: "LABEL i of n" ("rank 3 of 8"; label NULL: "file"); i from 1. */
void progress_part(const char *label, size_t i, size_t n);
/* n more items done, named unit ("leaves", "pairs"); the unit is kept, not copied. */
void progress_items(uint64_t n, const char *unit);
/* The size of a regular file, 0 for anything else (stdin, a pipe, a directory). */
uint64_t progress_size(const char *path);
void progress_add(uint64_t bytes);
void progress_end(void);

/*
 * Whether this process would draw, by the rules above, given whether
 * stdin is a pipe and stderr a terminal and the value of PROBE_PROGRESS
 * (NULL: unset); *delayed: only after the first second.  For the tests.
 */
bool progress_decide(bool stdin_pipe, bool stderr_tty, const char *env, bool *delayed);

#endif
