/*
 * xlsxr.h: .xlsx workbooks read back, sheet by sheet, row by row.
 *
 * The reader of what xlsxw.h (libxlsxwriter) and msprobe's pandas
 * (openpyxl) write: the zip is read with minizip and each part with
 * expat, streaming, so that a sheet of any size costs the memory of one
 * row.  xlsxr_open() reads xl/workbook.xml (the sheets, in workbook
 * order), xl/_rels/workbook.xml.rels (where each sheet is) and the shared
 * strings (the part the relationships name, else xl/sharedStrings.xml,
 * when there is one), which are held in memory, at most
 * XLSXR_MAX_SHARED bytes of them.  xlsxr_read_sheet() then calls fn once
 * for each <row> of the sheet, in order.
 *
 * What a cell is: its type attribute, as openpyxl reads it.  Absent or
 * "n": a NUMBER (its <v> text; no <v> or an empty one: EMPTY); "s": the
 * shared string of that index; "inlineStr": the text of its <is> (the
 * <t> and the rich-text runs <r><t> concatenated, phonetic runs <rPh>
 * left out); "str" (a formula's result) and "d" (an ISO 8601 date,
 * delivered as written, not converted): TEXT; "b": BOOL; "e": ERROR
 * ("#N/A", ...).  Styles are not read: a number with a date format is
 * still a NUMBER, and formulas are not read either (only their value).
 * Element and attribute names are compared without their namespace
 * prefix ("x:c" is "c").
 *
 * Positions: a <row> without r is the one after the previous; a <c>
 * without r is the column after the previous cell of its row.  Rows must
 * come in increasing order, the cells of a row in increasing columns,
 * each in its row; columns are A to XFD (16,384), rows 1 to 1,048,576.
 * Anything else is an error.
 *
 * The file is taken to be hostile.  Errors follow msg.h and start with
 * the workbook's path; those of a part name it and the line:
 * "x.xlsx: xl/worksheets/sheet1.xml:7: not well-formed (invalid token)".
 * Refused: a file that is not a zip, no xl/workbook.xml or relationships,
 * a sheet whose part is missing, a part encrypted or compressed otherwise
 * than stored or deflated, a sheet or shared-strings part declared larger
 * than XLSXR_MAX_PART (other parts: 64 MiB), parts that together would
 * inflate to more than zip_inflate_limit() of the workbook's size (only
 * the parts named above are inflated: comments, styles, drawings and the
 * rest are never read), one that inflates to more or
 * fewer bytes than declared or fails its CRC, a document type declaration
 * (no entity expansion is ever done), elements nested deeper than 256, a
 * single XML token longer than 64 MiB, more than XLSXR_MAX_SHARED bytes
 * of shared strings or XLSXR_MAX_ROW_TEXT bytes of text in one row, a
 * shared-string index out of range, a bad cell or row reference, a bad
 * number or boolean.
 *
 * Memory: the workbook owns its sheet names and shared strings until
 * xlsxr_close().  The cells given to fn, and their texts, live until fn
 * returns.  Not thread-safe, and not reentrant: fn must not call the
 * xlsxr functions of the same workbook (xlsxr_read_sheet() fails if it
 * does).
 */
#ifndef PROBE_XLSXR_H
#define PROBE_XLSXR_H

#include "strbuf.h"

#define XLSXR_MAX_COLS 16384u               /* A to XFD */
#define XLSXR_MAX_ROWS 1048576u
#define XLSXR_MAX_PART ((uint64_t)4 << 30)  /* bytes a sheet or the shared strings inflate to */
#define XLSXR_MAX_SHARED ((size_t)1 << 30)  /* bytes of shared strings held, their index included */
#define XLSXR_MAX_ROW_TEXT ((size_t)256 << 20) /* bytes of text in one row */

/*
 * The bound on what a zip (a workbook, a config_check pack) may inflate
 * to, all its members read together: ZIP_INFLATE_RATIO times the file's
 * size, at least ZIP_INFLATE_MIN, unless the environment's
 * PROBE_MAX_INFLATE (bytes, a whole number > 0 with an optional K, M or
 * G) sets it.  Deflate reaches about 1000:1 on repeated bytes, real
 * workbooks and packs 3:1 to 20:1: past the bound a member is a bomb and
 * is refused before it is inflated (by its declared size) or as soon as
 * it passes the bound.  0, or -1 with "PROBE_MAX_INFLATE=VALUE: what is
 * wrong" in err.
 */
#define ZIP_INFLATE_RATIO 64u
#define ZIP_INFLATE_MIN ((uint64_t)64 << 20)
int zip_inflate_limit(uint64_t file_size, uint64_t *max, struct strbuf *err);

enum xlsxr_type { XLSXR_EMPTY, XLSXR_TEXT, XLSXR_NUMBER, XLSXR_BOOL, XLSXR_ERROR };

struct xlsxr_cell {
	enum xlsxr_type type;
	/*
	 * Never NULL, NUL-terminated, UTF-8, without NULs.  TEXT: the string;
	 * NUMBER: the <v> text as written, without surrounding white space
	 * ("1", "0.5", "1E-05"); BOOL: "1" or "0"; ERROR: "#N/A", ...;
	 * EMPTY: "".
	 */
	const char *text;
	size_t len;
	double num;  /* NUMBER: its value (strtod) */
	bool is_int; /* NUMBER whose text has no '.', 'e' or 'E' (openpyxl's int rather than float) */
	bool b;      /* BOOL */
};

struct xlsxr;

/* NULL with "PATH: why" in err; only a regular file is opened (a FIFO is refused, not waited on). */
struct xlsxr *xlsxr_open(const char *path, struct strbuf *err);
size_t xlsxr_nsheets(const struct xlsxr *x);
/* Sheet i's name in workbook order (0-based); NULL when i is out of range. */
const char *xlsxr_sheet_name(const struct xlsxr *x, size_t i);

/*
 * One row of a sheet: row is 0-based; cells[0..n) indexed by column, the
 * columns with no <c> filled with EMPTY cells, n the last column with a
 * <c> (even one without a value) plus one (0 for a row without cells).
 * Rows absent from the sheet are not delivered.  Return 0 to go on, 1 to
 * stop (xlsxr_read_sheet() then returns 0), -1 with err set to fail
 * (xlsxr_read_sheet() then returns -1 with err as fn left it).
 */
typedef int xlsxr_row_fn(void *ctx, uint32_t row, const struct xlsxr_cell *cells, size_t n, struct strbuf *err);

/* The rows of sheet i, in order, to fn.  0, or -1 with err set. */
int xlsxr_read_sheet(struct xlsxr *x, size_t i, xlsxr_row_fn *fn, void *ctx, struct strbuf *err);
void xlsxr_close(struct xlsxr *x);

#endif
