/*
 * csvrows.h: a CSV file read row by row (libcsv, strict), with the line
 * each row starts on, for the readers of CSV tables (csvin.h, merge.h).
 *
 * The file (or "-", stdin; gzip is read through, source.h) is fed to
 * libcsv one line at a time, so that an error names its line and column:
 * "FILE:LINE:COL: malformed CSV: what" for what libcsv refuses, and
 * "FILE:LINE: ..." for a row longer than max_row bytes (refused before
 * libcsv holds it) or a quoted field still open at the end of the file.
 * Blank lines between rows are skipped.  A row of more than max_cols
 * cells is given with its first max_cols and `overflow` set.
 *
 * Memory: one row's cells, freed after fn returns.
 */
#ifndef PROBE_CSVROWS_H
#define PROBE_CSVROWS_H

#include "strbuf.h"

struct csvrows_row {
	char **cells;   /* n cells, NUL-terminated (a cell may hold NULs: lens tells) */
	size_t *lens;
	size_t n;
	bool overflow;  /* more than max_cols cells: the rest were dropped */
	uint64_t line;  /* the line the row starts on, from 1 */
	uint64_t index; /* rows before it */
};

/* 0 to go on; anything else stops the reading and is returned (-1: with a whole message in err). */
typedef int csvrows_fn(void *ctx, const struct csvrows_row *row, struct strbuf *err);

/*
 * 0 at the end of the file, fn's stop value, or -1 with the message in err.
 * path is a regular file (a FIFO or a device is refused: source_open_regular())
 * or "-", standard input.
 */
int csvrows_read(const char *path, size_t max_row, size_t max_cols, csvrows_fn *fn, void *ctx, struct strbuf *err);

#endif
