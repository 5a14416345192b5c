/*
 * partial.h: output files that get their final names only when they are
 * complete, and what a failing or interrupted tool removes.
 *
 * A tool writes each output file under a temporary name and registers it
 * with partial_add().  partial_commit() renames one file to its final
 * name; partial_commit_all() renames every registered file, in the order
 * they were added, when the whole run has succeeded (probe-metric -o: a
 * directory of CSV files is complete only when every rank's is).  Until
 * then, an exit without commit (die(), any exit(2)) and SIGINT, SIGTERM,
 * SIGHUP or SIGXFSZ remove the temporaries, so that no file that looks
 * complete is left behind, and none that is half-written either.
 *
 * partial_on_signal() sets a hook the signal handler calls after the
 * removal and before the tool ends by the signal's default action; it
 * must be async-signal-safe (output.c marks or truncates stdout with it).
 *
 * Thread safety: partial_add() and the commits may be called from any
 * thread, one at a time (the callers serialise them); the handler may run
 * at any moment and sees either the list before or after an addition.
 * The paths are kept until exit.
 */
#ifndef PROBE_PARTIAL_H
#define PROBE_PARTIAL_H

#include "strbuf.h"

struct partial;

/* Install the exit and signal cleanup (once; later calls do nothing). */
void partial_init(void);
/* tmp is being written and becomes final when committed. */
struct partial *partial_add(const char *tmp, const char *final);
/* A new final name for a file not yet committed. */
void partial_set_final(struct partial *p, const char *final);
/* Rename tmp to final; 0, or -1 with "TMP: cannot rename ..." in err (tmp is then removed). */
int partial_commit(struct partial *p, struct strbuf *err);
/* Forget a file without renaming it, removing tmp. */
void partial_drop(struct partial *p);
/* Commit every file not yet committed or dropped, in the order they were added. */
int partial_commit_all(struct strbuf *err);
/* Called by the signal handler after the temporaries are removed (async-signal-safe code only). */
void partial_on_signal(void (*hook)(int sig));

#endif
