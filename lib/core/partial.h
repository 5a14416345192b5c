/*
 * partial.h: output files that get their final names only when they are
 * complete, and what a failing or interrupted tool removes.
 *
 * A tool writes each output file under a temporary name beside its final
 * one, made by partial_create(): FINAL.<12 random characters>.partial,
 * created with O_CREAT | O_EXCL | O_NOFOLLOW, so that no name can be
 * guessed in advance and nothing planted there (a symbolic link into
 * someone else's files, a file of another run) is ever opened or written
 * through; two runs writing the same final name at once write two files.
 * Its mode is 0666 minus the umask, as fopen() gives (not mkstemp's 0600).
 *
 * partial_commit() renames one file to its final name, replacing what is
 * there (a file the user named: probe-plot --output-file FILE).  partial_commit_unique()
 * renames a set of files (one table in parts) without ever replacing a
 * file: renameat2(RENAME_NOREPLACE), else link() and unlink(), else an
 * empty file of its own claimed with O_EXCL and renamed over; when a name
 * is taken, by an earlier run or by one running at the same time, the set
 * gets the next names its caller gives (probe-metric -o: _2, _3, ...).
 * Until a file is committed, an exit
 * without commit (die(), any exit(2)) and SIGINT, SIGTERM, SIGHUP or
 * SIGXFSZ remove the temporaries, so that no file that looks complete is
 * left behind, and none that is half-written either.
 *
 * partial_on_signal() sets a hook the signal handler calls after the
 * removal and before the tool ends by the signal's default action; it
 * must be async-signal-safe (output.c marks or truncates stdout with it).
 *
 * Thread safety: partial_create() and the commits may be called from any
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
/*
 * A new temporary file for `final` (see above), registered before it
 * exists.  Returns its descriptor, open for writing, and *out; or -1 with
 * "FINAL: cannot create: ..." in err.
 */
int partial_create(const char *final, struct partial **out, struct strbuf *err);
/*
 * The same for a file a library opens again by its name (libxlsxwriter,
 * sqlite): every such writer gets its path here, and from nowhere else.
 * A name in the destination folder can be swapped for a link between our
 * open and the library's, so the file is made in a private folder of this
 * process, FINAL.partial-XXXXXX (mkdtemp: 0700, so only this user can add
 * or swap a name in it), beside FINAL so that the commit's rename stays on
 * one file system; partial_tmp_name() is FOLDER/<FINAL's base name>.  The
 * commits move it into place as for partial_create(); a commit, a drop,
 * an exit without commit and the signals above remove the folder and what
 * the library left in it (sqlite's -journal, -wal, -shm).  Returns the
 * file's descriptor (the caller may close it at once), or -1 with the
 * reason in err (nothing left behind).
 */
int partial_create_private(const char *final, struct partial **out, struct strbuf *err);
/* The same as a stdio stream ("w"); NULL with the reason in err. */
FILE *partial_fopen(const char *final, struct partial **out, struct strbuf *err);
/* The temporary name. */
const char *partial_tmp_name(const struct partial *p);
/* Rename tmp to final, replacing it; 0, or -1 with "FINAL: cannot ..." in err (tmp is then removed). */
int partial_commit(struct partial *p, struct strbuf *err);
/*
 * Rename the n files v to names no file has: name(ctx, k, i, out) appends
 * the name of file i at attempt k (1: the names wanted, then 2, 3, ...);
 * when any of the n is taken, those placed are taken back and the set
 * tries attempt k + 1.  0, or -1 with the reason in err (the files are
 * then removed).
 */
typedef void partial_name_fn(void *ctx, unsigned k, size_t i, struct strbuf *out);
int partial_commit_unique(struct partial *const *v, size_t n, partial_name_fn *name, void *ctx, struct strbuf *err);
/*
 * The rule of every file an -o DIR names by the time (probe-metric,
 * probe-merge, probe-graph, probe-plot, probe-compare's -da file, ...):
 * never replace one, never lose one.  partial_numbered_name() is a
 * partial_name_fn over a struct partial_numbered: BASE EXT at attempt 1,
 * then BASE_2 EXT, BASE_3 EXT, ...; a table in nparts > 1 files adds
 * _part_<i+1> before EXT.  So a second run in the same second (or one
 * running at the same time) gets _2, and both results are kept.
 */
struct partial_numbered {
	const char *base, *ext; /* "DIR/compare_result_rank0_20250101120000", ".csv" */
	size_t nparts;
};
void partial_numbered_name(void *ctx, unsigned k, size_t i, struct strbuf *out);
/* One file committed under that rule; the name it got into path (when not NULL).  As partial_commit_unique(). */
int partial_commit_numbered(struct partial *p, const char *base, const char *ext, struct strbuf *path,
			    struct strbuf *err);
/* partial_write_file() under that rule: the name written into path (when not NULL). */
int partial_write_numbered(const char *base, const char *ext, const void *data, size_t len, struct strbuf *path,
			   struct strbuf *err);
/* The name a file has now: its final name once committed. */
const char *partial_final_name(const struct partial *p);
/* Forget a file without renaming it, removing tmp. */
void partial_drop(struct partial *p);
/*
 * The whole of data into path, through a temporary file beside it: a
 * failed or interrupted run leaves neither (partial_init() is called).  0,
 * or -1 with "cannot write PATH: why" (or partial_create()'s message) in err.
 */
int partial_write_file(const char *path, const void *data, size_t len, struct strbuf *err);
/* Called by the signal handler after the temporaries are removed (async-signal-safe code only). */
void partial_on_signal(void (*hook)(int sig));

/*
 * mkdir -p: path and each missing directory above it (mode 0777 before the
 * umask).  0, or -1 with "DIR: cannot make the directory: why" in err.
 */
int partial_make_dirs(const char *path, struct strbuf *err);

#endif
