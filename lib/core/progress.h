/*
 * progress.h: a progress line on stderr, for work that takes more than a
 * moment (reading large dumps, comparing tensors).
 *
 * Shown only when stderr is a terminal, or when asked for (the
 * environment variable PROBE_PROGRESS=1; PROBE_PROGRESS=0 never shows
 * it), and on a terminal only after the work has taken a second; updated at most five times a
 * second; cleared when the work ends.  No colours, no escape sequences: a
 * carriage return and spaces.  The counting is what every file read by
 * lib/core/source.c adds (bytes from the files or stdin), so a tool only says
 * when the work starts and ends.  Any thread may count.
 */
#ifndef PROBE_PROGRESS_H
#define PROBE_PROGRESS_H

#include "compat.h"

/* total: bytes expected (0 when unknown). */
void progress_start(uint64_t total);
/* The size of a regular file, 0 for anything else (stdin, a pipe, a directory). */
uint64_t progress_size(const char *path);
void progress_add(uint64_t bytes);
void progress_end(void);

#endif
