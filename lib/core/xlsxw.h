/*
 * xlsxw.h: workbooks of tables written row by row in constant memory
 * (libxlsxwriter), in the layout pandas' to_excel gives them.
 *
 * A workbook holds tables; each table is a header and rows of typed
 * cells.  Its rows are held in a temporary file (not in memory) until
 * the table ends, because where they go depends on how many there are:
 * msprobe's save_excel writes a table of fewer than XLSXW_MAX_ROWS rows
 * (1,048,500) as one sheet, named after the table ("Sheet1" for a table
 * without a name), and a longer one as ceil(n / XLSXW_MAX_ROWS) sheets of
 * ceil(n / that) rows each, named "<name>_part_<i>" ("part_<i>"), i from
 * 0, every one with the header.  The header cells have msprobe's style
 * (bold, a thin border on every side, centred, top-aligned); nothing else
 * is styled unless the options ask for the reader's layout.
 *
 * Numbers are written as libxlsxwriter writes them, with 16 significant
 * digits (as openpyxl, which msprobe's pandas writes through, does).  A
 * text cell longer than Excel's limit (32,767 characters) is cut there,
 * and counted (xlsxw_cut_cells), since neither Excel nor libxlsxwriter
 * takes more.
 *
 * The file: xlsxw_new() writes at `path`, which libxlsxwriter opens again
 * by name when the workbook is closed: the caller makes it with
 * partial_create_private() (partial.h: a private folder of its own, so no
 * link can be swapped in), and commits it after xlsxw_close(); the
 * temporary files go into `tmpdir` (the output's directory is best: the
 * same file system holds the result), removed as soon as they are open.
 * Errors follow msg.h and name the path.  Not thread-safe: one thread
 * per workbook.
 */
#ifndef PROBE_XLSXW_H
#define PROBE_XLSXW_H

#include "strbuf.h"

#define XLSXW_MAX_ROWS 1048500 /* msprobe's MAX_EXCEL_LENGTH */
#define XLSXW_MAX_TEXT 32767   /* characters in one cell */

enum xlsxw_type { XLSXW_TEXT, XLSXW_NUMBER, XLSXW_TRUE, XLSXW_FALSE, XLSXW_EMPTY };

struct xlsxw_cell {
	enum xlsxw_type type;
	const char *text; /* TEXT: UTF-8, NUL-terminated */
	double num;       /* NUMBER: finite */
};

/* The reader's layout of a row (xlsxw_options.reader): a fill by level, bold for a marked row. */
enum xlsxw_row_style {
	XLSXW_ROW_PLAIN = 0,
	XLSXW_ROW_GOOD = 1,
	XLSXW_ROW_WARN = 2,
	XLSXW_ROW_BAD = 3,
	XLSXW_ROW_LEVELS = 3,   /* mask of the level */
	XLSXW_ROW_MARKED = 1 << 2,
};

struct xlsxw_options {
	const char *tmpdir; /* NULL: $TMPDIR, else /tmp */
	/*
	 * The reader's layout, beyond msprobe's: the header row frozen, an
	 * autofilter over the table, each column as wide as its longest cell
	 * (within 8 and 60 characters), rows filled by their style.
	 */
	bool reader;
};

struct xlsxw;

struct xlsxw *xlsxw_new(const char *path, const struct xlsxw_options *opts, struct strbuf *err);
/* Start a table: name NULL for msprobe's unnamed one; the header's ncols cells are copied. */
int xlsxw_begin(struct xlsxw *w, const char *name, const char *const *header, size_t ncols, struct strbuf *err);
/* A row of at most ncols cells (fewer: the rest empty). */
int xlsxw_row(struct xlsxw *w, const struct xlsxw_cell *cells, size_t n, unsigned style, struct strbuf *err);
/* The rows of the current table so far. */
uint64_t xlsxw_rows(const struct xlsxw *w);
/* End the table: its sheets are written. */
int xlsxw_end(struct xlsxw *w, struct strbuf *err);
/* Finish the file (a table still open is ended first); the workbook is then only to be freed. */
int xlsxw_close(struct xlsxw *w, struct strbuf *err);
/* Text cells cut to XLSXW_MAX_TEXT characters so far. */
uint64_t xlsxw_cut_cells(const struct xlsxw *w);
/* Free everything; a workbook not closed leaves its file unfinished (the caller removes it). */
void xlsxw_free(struct xlsxw *w);

/*
 * A workbook for stdout: write(ctx, path, err) makes it at a temporary path
 * in $TMPDIR (else /tmp), whose bytes are then appended to out and the file
 * removed.  0, or -1 with the reason in err.
 */
typedef int xlsxw_write_fn(void *ctx, const char *path, struct strbuf *err);
int xlsxw_book_to_strbuf(xlsxw_write_fn *write, void *ctx, struct strbuf *out, struct strbuf *err);

#endif
