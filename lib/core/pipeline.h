/*
 * pipeline.h: a pipeline of programs run as sh runs "a | b | c", for the
 * tools that are a pipeline of the others (probe-compare).
 *
 * Each stage is an argv list (argv[0] looked up in PATH, as execvp does);
 * stage i's standard output is stage i+1's standard input; the first stage
 * reads this process's standard input, the last writes to out_fd (this
 * process's standard output when out_fd < 0); standard error is shared.
 * pipeline_run() waits for every stage and gives each one's exit status
 * (128 + the signal for one killed by a signal, 127 for one that could not
 * be started), as sh with pipefail would see them.
 *
 * Errors (-1, the reason in err): a pipe or a process that cannot be made.
 * A program that is not found is not an error here: its stage's status is
 * 127 and its message ("probe-compare: probe-x: cannot run: No such file or
 * directory", this tool's name first) is on stderr.
 */
#ifndef PROBE_PIPELINE_H
#define PROBE_PIPELINE_H

#include "strbuf.h"

#define PIPELINE_MAX_STAGES 8

/* status: n entries, each stage's exit status.  0, or -1 with the reason in err. */
int pipeline_run(char *const *const *stages, size_t n, int out_fd, int *status, struct strbuf *err);

/* The stages as sh would read them ("a x | b y"), each word quoted where it needs it (textesc.h). */
void pipeline_text(char *const *const *stages, size_t n, struct strbuf *out);

#endif
