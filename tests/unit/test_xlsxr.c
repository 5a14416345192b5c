/*
 * The .xlsx reader (lib/core/xlsxr.c): workbooks written by libxlsxwriter
 * (shared strings, and inline strings in its constant_memory mode) read
 * back cell by cell; parts written by hand with minizip for what
 * openpyxl and Excel write (prefixes, rich text, cells without r) and
 * for hostile files, each of which must fail with a message naming the
 * workbook and what is wrong.
 *
 *   test_xlsxr                        the self tests (TAP)
 *   test_xlsxr --dump FILE.xlsx DIR   each sheet as DIR/<stem>__<sheet>.csv and
 *                                     DIR/types/<stem>__<sheet>.types.csv, as the
 *                                     fixtures' openpyxl rendering writes them
 */
#include "tap.h"
#include "../../lib/core/xlsxr.h"
#include "../../lib/core/msg.h"
#include "../../lib/core/xalloc.h"
#include "../../lib/msprobe/pyfmt.h"

#include <dirent.h>
#include <minizip/zip.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xlsxwriter.h>
#include <zlib.h>

static char tmpdir[64];

static const char *tmp_path(const char *name)
{
	static char path[256];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return path;
}

/* ---------------------------------------------------------------- a sheet read into memory */

struct got_cell {
	enum xlsxr_type type;
	char *text;
	size_t len;
	double num;
	bool is_int, b;
};

struct got_row {
	uint32_t row;
	size_t n;
	struct got_cell *cells;
};

struct grid {
	struct got_row *rows;
	size_t n, alloc;
	size_t stop_after; /* 0: read all */
	bool fail_at_second;
};

static int keep_row(void *ctx, uint32_t row, const struct xlsxr_cell *cells, size_t n, struct strbuf *err)
{
	struct grid *g = ctx;
	struct got_row *r;
	if (g->fail_at_second && g->n == 1)
		return msg_fail(err, "keep_row", "refused row %lu", (unsigned long)row);
	ALLOC_GROW(g->rows, g->n + 1, g->alloc);
	r = &g->rows[g->n++];
	r->row = row;
	r->n = n;
	r->cells = xcalloc(n ? n : 1, sizeof(*r->cells));
	for (size_t i = 0; i < n; i++) {
		r->cells[i].type = cells[i].type;
		r->cells[i].text = xmemdupz(cells[i].text, cells[i].len);
		r->cells[i].len = cells[i].len;
		r->cells[i].num = cells[i].num;
		r->cells[i].is_int = cells[i].is_int;
		r->cells[i].b = cells[i].b;
	}
	return g->stop_after && g->n >= g->stop_after;
}

static void grid_release(struct grid *g)
{
	for (size_t i = 0; i < g->n; i++) {
		for (size_t j = 0; j < g->rows[i].n; j++)
			free(g->rows[i].cells[j].text);
		free(g->rows[i].cells);
	}
	free(g->rows);
	memset(g, 0, sizeof(*g));
}

static const struct got_cell *cell_at(const struct grid *g, uint32_t row, size_t col)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->rows[i].row == row)
			return col < g->rows[i].n ? &g->rows[i].cells[col] : NULL;
	return NULL;
}

static const char *type_name(enum xlsxr_type t)
{
	static const char *const names[] = { "empty", "text", "number", "bool", "error" };
	return (unsigned)t < ARRAY_SIZE(names) ? names[t] : "?";
}

/* The cell at (row, col) has that type and text. */
static void is_cell(const struct grid *g, uint32_t row, size_t col, enum xlsxr_type type, const char *text,
		    const char *what)
{
	const struct got_cell *c = cell_at(g, row, col);
	if (!ok(c && c->type == type && !strcmp(c->text, text) && c->len == strlen(text), "%s", what)) {
		if (c)
			diag("got %s '%.60s' (%zu bytes), want %s '%.60s'", type_name(c->type), c->text, c->len,
			     type_name(type), text);
		else
			diag("no cell at row %lu column %zu", (unsigned long)row, col);
	}
}

static void is_number(const struct grid *g, uint32_t row, size_t col, const char *text, double num, bool is_int,
		      const char *what)
{
	const struct got_cell *c = cell_at(g, row, col);
	if (!ok(c && c->type == XLSXR_NUMBER && !strcmp(c->text, text) && c->num == num && c->is_int == is_int,
		"%s", what) && c)
		diag("got %s '%s' = %.17g, is_int %d", type_name(c->type), c->text, c->num, c->is_int);
}

static void is_bool(const struct grid *g, uint32_t row, size_t col, bool b, const char *what)
{
	const struct got_cell *c = cell_at(g, row, col);
	ok(c && c->type == XLSXR_BOOL && c->b == b && !strcmp(c->text, b ? "1" : "0"), "%s", what);
}

static size_t row_width(const struct grid *g, uint32_t row)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->rows[i].row == row)
			return g->rows[i].n;
	return (size_t)-1;
}

static int read_sheet(const char *path, size_t sheet, struct grid *g, struct strbuf *err)
{
	struct xlsxr *x = xlsxr_open(path, err);
	int rc;
	if (!x)
		return -1;
	rc = xlsxr_read_sheet(x, sheet, keep_row, g, err);
	xlsxr_close(x);
	return rc;
}

/* ---------------------------------------------------------------- libxlsxwriter's workbooks */

static char *long_text(void)
{
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; i < 300; i++)
		strbuf_addf(&sb, "line %d: a & b < c > d \"q\" 'a'\n", i);
	return strbuf_detach(&sb, NULL);
}

static const char unicode[] = "\xC3\xBCn\xC3\xAF c\xC3\xB6" "d\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80";

static bool write_lxw(const char *path, bool constant_memory, const char *text)
{
	lxw_workbook_options opts = { .constant_memory = constant_memory, .tmpdir = tmpdir };
	lxw_workbook *wb = workbook_new_opt(path, &opts);
	lxw_worksheet *ws, *ws2;
	lxw_format *fmt;
	if (!wb)
		return false;
	ws = workbook_add_worksheet(wb, "Data");
	ws2 = workbook_add_worksheet(wb, "Second sheet");
	fmt = workbook_add_format(wb);
	format_set_bold(fmt);
	worksheet_write_string(ws, 0, 0, "name", NULL);
	worksheet_write_string(ws, 0, 1, "value", NULL);
	worksheet_write_string(ws, 0, 2, "flag", NULL);
	worksheet_write_string(ws, 0, 4, unicode, NULL); /* column 3 left out */
	worksheet_write_string(ws, 1, 0, "a", NULL);
	worksheet_write_number(ws, 1, 1, 1e-05, NULL);
	worksheet_write_boolean(ws, 1, 2, 1, NULL);
	worksheet_write_blank(ws, 1, 3, fmt);
	worksheet_write_string(ws, 2, 0, "b", NULL);
	worksheet_write_number(ws, 2, 1, 1, NULL);
	worksheet_write_boolean(ws, 2, 2, 0, NULL);
	worksheet_write_string(ws, 3, 0, "c", NULL);
	worksheet_write_number(ws, 3, 1, 0.5, NULL);
	worksheet_write_string(ws, 4, 0, "d", NULL);
	worksheet_write_number(ws, 4, 1, -3, NULL);
	worksheet_write_string(ws, 4, 5, text, NULL);
	worksheet_write_string(ws, 5, 0, "a", NULL); /* a repeated shared string */
	worksheet_write_string(ws2, 0, 0, "x", NULL);
	worksheet_write_number(ws2, 3, 2, 42, NULL); /* rows 1 and 2 left out */
	return workbook_close(wb) == LXW_NO_ERROR;
}

static void check_lxw(bool constant_memory)
{
	const char *mode = constant_memory ? "constant_memory" : "shared strings";
	char *path = xstrdup(tmp_path(constant_memory ? "lxw-cm.xlsx" : "lxw.xlsx"));
	char *text = long_text();
	struct strbuf err = STRBUF_INIT;
	struct grid g = { 0 };
	struct xlsxr *x;
	if (!ok(write_lxw(path, constant_memory, text), "%s: libxlsxwriter wrote %s", mode, path))
		goto out;
	x = xlsxr_open(path, &err);
	if (!ok(x != NULL, "%s: opened", mode)) {
		diag("%s", err.buf);
		goto out;
	}
	is_int((long long)xlsxr_nsheets(x), 2, "two sheets");
	is_str(xlsxr_sheet_name(x, 0), "Data", "the first sheet's name");
	is_str(xlsxr_sheet_name(x, 1), "Second sheet", "the second sheet's name");
	ok(xlsxr_sheet_name(x, 2) == NULL, "no third sheet");
	if (!ok(xlsxr_read_sheet(x, 0, keep_row, &g, &err) == 0, "%s: sheet Data read", mode))
		diag("%s", err.buf);
	is_int((long long)g.n, 6, "six rows");
	is_int((long long)row_width(&g, 0), 5, "row 1: five columns, to the unicode text");
	is_cell(&g, 0, 0, XLSXR_TEXT, "name", "A1 text");
	is_cell(&g, 0, 2, XLSXR_TEXT, "flag", "C1 text");
	is_cell(&g, 0, 3, XLSXR_EMPTY, "", "D1: the gap is empty");
	is_cell(&g, 0, 4, XLSXR_TEXT, unicode, "E1: unicode text");
	is_int((long long)row_width(&g, 1), 4, "row 2: the formatted blank counts");
	is_cell(&g, 1, 0, XLSXR_TEXT, "a", "A2");
	is_number(&g, 1, 1, "1E-05", 1e-05, false, "B2: 1e-05 as %.16G writes it, a float");
	is_bool(&g, 1, 2, true, "C2: true");
	is_cell(&g, 1, 3, XLSXR_EMPTY, "", "D2: a blank cell");
	is_number(&g, 2, 1, "1", 1, true, "B3: 1, an int");
	is_bool(&g, 2, 2, false, "C3: false");
	is_number(&g, 3, 1, "0.5", 0.5, false, "B4: 0.5");
	is_number(&g, 4, 1, "-3", -3, true, "B5: -3");
	is_cell(&g, 4, 2, XLSXR_EMPTY, "", "C5: empty up to the long text");
	is_cell(&g, 4, 5, XLSXR_TEXT, text, "F5: the long text with & < > quotes and newlines");
	is_cell(&g, 5, 0, XLSXR_TEXT, "a", "A6: a repeated string");
	grid_release(&g);
	if (!ok(xlsxr_read_sheet(x, 1, keep_row, &g, &err) == 0, "%s: the second sheet read", mode))
		diag("%s", err.buf);
	is_int((long long)g.n, 2, "two rows delivered: the absent ones are not");
	ok(g.n == 2 && g.rows[0].row == 0 && g.rows[1].row == 3, "rows 0 and 3");
	is_cell(&g, 3, 0, XLSXR_EMPTY, "", "A4 empty");
	is_number(&g, 3, 2, "42", 42, true, "C4: 42");
	grid_release(&g);

	g.stop_after = 2;
	ok(xlsxr_read_sheet(x, 0, keep_row, &g, &err) == 0 && g.n == 2, "a row function returning 1 stops the reading");
	grid_release(&g);
	g.fail_at_second = true;
	ok(xlsxr_read_sheet(x, 0, keep_row, &g, &err) < 0 && strstr(err.buf, "refused row 1"),
	   "a row function's failure and message come back");
	strbuf_reset(&err);
	grid_release(&g);
	ok(xlsxr_read_sheet(x, 2, keep_row, &g, &err) < 0 && strstr(err.buf, path) && strstr(err.buf, "no sheet 2"),
	   "sheet 2 of 2 is refused");
	xlsxr_close(x);
out:
	strbuf_release(&err);
	grid_release(&g);
	free(text);
	free(path);
}

/* ---------------------------------------------------------------- workbooks by hand */

struct part {
	const char *name;
	const char *text;
};

static const char workbook_xml[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
	"<workbook xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\""
	" xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\">"
	"<sheets><sheet name=\"S\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>";

static const char rels_xml[] =
	"<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">"
	"<Relationship Id=\"rId1\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet\""
	" Target=\"./worksheets/../worksheets/sheet1.xml\"/>"
	"<Relationship Id=\"rId2\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings\""
	" Target=\"/xl/strings.xml\"/></Relationships>";

static const char shared_xml[] =
	"<sst xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" count=\"2\" uniqueCount=\"2\">"
	"<si><t>plain</t></si>"
	"<si><r><t xml:space=\"preserve\">rich </t></r><r><rPr><b/></rPr><t>text</t></r>"
	"<rPh sb=\"0\" eb=\"1\"><t>PHONETIC</t></rPh></si></sst>";

static bool add_member(zipFile zf, const char *name, const void *data, size_t len)
{
	zip_fileinfo zi = { 0 };
	return zipOpenNewFileInZip(zf, name, &zi, NULL, 0, NULL, 0, NULL, Z_DEFLATED, Z_DEFAULT_COMPRESSION) == ZIP_OK &&
	       zipWriteInFileInZip(zf, data, (unsigned)len) == ZIP_OK && zipCloseFileInZip(zf) == ZIP_OK;
}

/* A member stored as it is, its directory entry declaring `declared` bytes. */
static bool add_lying_member(zipFile zf, const char *name, const char *text, uint64_t declared)
{
	zip_fileinfo zi = { 0 };
	size_t len = strlen(text);
	uLong crc = crc32(0, (const Bytef *)text, (uInt)len);
	return zipOpenNewFileInZip2_64(zf, name, &zi, NULL, 0, NULL, 0, NULL, 0, 0, 1, 1) == ZIP_OK &&
	       zipWriteInFileInZip(zf, text, (unsigned)len) == ZIP_OK &&
	       zipCloseFileInZipRaw64(zf, declared, crc) == ZIP_OK;
}

static bool write_zip(const char *path, const struct part *parts, size_t n)
{
	zipFile zf = zipOpen64(path, APPEND_STATUS_CREATE);
	bool good = zf != NULL;
	for (size_t i = 0; good && i < n; i++)
		good = add_member(zf, parts[i].name, parts[i].text, strlen(parts[i].text));
	if (zf && zipClose(zf, NULL) != ZIP_OK)
		good = false;
	return good;
}

/* A one-sheet workbook around that sheet (and the shared strings above). */
static const char *write_book(const char *file, const char *sheet)
{
	const struct part parts[] = {
		{ "xl/workbook.xml", workbook_xml },
		{ "xl/_rels/workbook.xml.rels", rels_xml },
		{ "xl/strings.xml", shared_xml },
		{ "xl/worksheets/sheet1.xml", sheet },
	};
	const char *path = tmp_path(file);
	if (!write_zip(path, parts, ARRAY_SIZE(parts)))
		diag("cannot write %s", path);
	return path;
}

static void check_by_hand(void)
{
	static const char sheet[] =
		"<x:worksheet xmlns:x=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\"><x:sheetData>"
		"<x:row><x:c t=\"s\"><x:v>0</x:v></x:c><x:c t=\"s\"><x:v> 1 </x:v></x:c><x:c t=\"e\"><x:v>#N/A</x:v></x:c></x:row>"
		"<x:row r=\"3\"><x:c r=\"B3\" t=\"str\"><x:f>A1&amp;\"g\"</x:f><x:v>f&amp;g</x:v></x:c>"
		"<x:c t=\"d\"><x:v>2024-01-02T03:04:05</x:v></x:c>"
		"<x:c t=\"inlineStr\"><x:is><x:r><x:t xml:space=\"preserve\"> a </x:t></x:r><x:r><x:t>b&#x4E2D;</x:t></x:r>"
		"<x:rPh><x:t>no</x:t></x:rPh></x:is></x:c>"
		"<x:c t=\"n\"><x:v>1.5E+300</x:v></x:c><x:c s=\"1\"/><x:c t=\"inlineStr\"><x:is><x:t></x:t></x:is></x:c></x:row>"
		"<x:row/><x:row r=\"1048576\"><x:c r=\"XFD1048576\"><x:v>7</x:v></x:c></x:row>"
		"</x:sheetData></x:worksheet>";
	const char *path = write_book("hand.xlsx", sheet);
	struct strbuf err = STRBUF_INIT;
	struct grid g = { 0 };
	if (!ok(read_sheet(path, 0, &g, &err) == 0, "a hand-made sheet: prefixes, rich text, cells and rows without r"))
		diag("%s", err.buf);
	is_cell(&g, 0, 0, XLSXR_TEXT, "plain", "A1: shared string 0");
	is_cell(&g, 0, 1, XLSXR_TEXT, "rich text", "B1: rich runs joined, the phonetic one left out");
	is_cell(&g, 0, 2, XLSXR_ERROR, "#N/A", "C1: an error");
	is_int((long long)row_width(&g, 2), 7, "row 3: seven columns");
	is_cell(&g, 2, 0, XLSXR_EMPTY, "", "A3 empty");
	is_cell(&g, 2, 1, XLSXR_TEXT, "f&g", "B3: a formula's string, the formula left out");
	is_cell(&g, 2, 2, XLSXR_TEXT, "2024-01-02T03:04:05", "C3: a date as written");
	is_cell(&g, 2, 3, XLSXR_TEXT, " a b\xE4\xB8\xAD", "D3: an inline rich string, spaces kept");
	is_number(&g, 2, 4, "1.5E+300", 1.5e300, false, "E3: a number");
	is_cell(&g, 2, 5, XLSXR_EMPTY, "", "F3: a styled cell without a value");
	is_cell(&g, 2, 6, XLSXR_TEXT, "", "G3: an empty inline string is text");
	is_int((long long)row_width(&g, 3), 0, "row 4: a row without cells");
	is_number(&g, 1048575, 16383, "7", 7, true, "XFD1048576, the last cell there is");
	is_int((long long)g.n, 4, "four rows");
	grid_release(&g);
	strbuf_release(&err);
}

/* ---------------------------------------------------------------- hostile files */

/* The call failed with a message holding path and want. */
static void is_refused(int rc, const struct strbuf *err, const char *path, const char *want, const char *what)
{
	if (!ok(rc < 0 && strstr(err->buf, path) == err->buf && strstr(err->buf, want), "%s", what))
		diag("rc %d, message '%s', want '%s'", rc, err->buf, want);
}

static void refused_open(const char *path, const char *want, const char *what)
{
	struct strbuf err = STRBUF_INIT;
	struct xlsxr *x = xlsxr_open(path, &err);
	is_refused(x ? 0 : -1, &err, path, want, what);
	xlsxr_close(x);
	strbuf_release(&err);
}

static void refused_sheet(const char *file, const char *sheet, const char *want, const char *what)
{
	const char *path = write_book(file, sheet);
	struct strbuf err = STRBUF_INIT;
	struct grid g = { 0 };
	char *p = xstrdup(path);
	is_refused(read_sheet(p, 0, &g, &err), &err, p, want, what);
	grid_release(&g);
	strbuf_release(&err);
	free(p);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

#define SHEET(rows) "<worksheet><sheetData>" rows "</sheetData></worksheet>"

static void check_hostile(void)
{
	char *path;
	zipFile zf;
	struct strbuf deep = STRBUF_INIT;

	path = xstrdup(tmp_path("text.xlsx"));
	write_file(path, "hello, this is not a zip\n");
	refused_open(path, "not a zip", "a text file");
	free(path);
	path = xstrdup(tmp_path("empty.xlsx"));
	write_file(path, "");
	refused_open(path, "an empty file", "an empty file");
	free(path);
	refused_open(tmp_path("absent.xlsx"), "cannot open: No such file", "a file that is not there");
	refused_open(tmpdir, "a directory", "a directory");

	path = xstrdup(tmp_path("noworkbook.xlsx"));
	write_zip(path, (const struct part[]){ { "docProps/app.xml", "<Properties/>" } }, 1);
	refused_open(path, "no xl/workbook.xml", "a zip without xl/workbook.xml");
	free(path);
	path = xstrdup(tmp_path("norels.xlsx"));
	write_zip(path, (const struct part[]){ { "xl/workbook.xml", workbook_xml } }, 1);
	refused_open(path, "no xl/_rels/workbook.xml.rels", "a workbook without its relationships");
	free(path);
	path = xstrdup(tmp_path("nosheet.xlsx"));
	write_zip(path, (const struct part[]){ { "xl/workbook.xml", workbook_xml }, { "xl/_rels/workbook.xml.rels", rels_xml },
					      { "xl/strings.xml", shared_xml } }, 3);
	refused_open(path, "sheet 'S': its part xl/worksheets/sheet1.xml is missing", "a sheet whose part is missing");
	free(path);
	path = xstrdup(tmp_path("badworkbook.xlsx"));
	write_zip(path, (const struct part[]){ { "xl/workbook.xml", "<workbook><sheets><sheet name=\"S\"/></sheets>" } }, 1);
	refused_open(path, "xl/workbook.xml:1: a sheet without a name or an r:id", "a sheet without r:id");
	free(path);

	refused_sheet("malformed.xlsx", SHEET("<row r=\"1\"><c r=\"A1\"><v>1</v></c></row><"),
		      ": xl/worksheets/sheet1.xml:1: not well-formed (invalid token)", "malformed XML");
	refused_sheet("truncated.xlsx", "<worksheet><sheetData><row>", "xl/worksheets/sheet1.xml:1: no element found",
		      "XML cut short");
	refused_sheet("sst.xlsx", SHEET("<row r=\"1\"><c r=\"A1\" t=\"s\"><v>2</v></c></row>"),
		      "cell A1: shared string 2 out of range (the workbook has 2)", "a shared-string index out of range");
	refused_sheet("sstbad.xlsx", SHEET("<row r=\"1\"><c r=\"A1\" t=\"s\"><v>-1</v></c></row>"),
		      "cell A1: bad shared string index '-1'", "a negative shared-string index");
	refused_sheet("xfe.xlsx", SHEET("<row r=\"1\"><c r=\"XFE1\"><v>1</v></c></row>"),
		      "sheet1.xml:1: bad cell reference 'XFE1'", "a cell beyond XFD");
	refused_sheet("lower.xlsx", SHEET("<row r=\"1\"><c r=\"a1\"><v>1</v></c></row>"),
		      "bad cell reference 'a1'", "a reference in lower case");
	refused_sheet("row0.xlsx", SHEET("<row r=\"0\"/>"), "bad row number '0'", "row 0");
	refused_sheet("bigrow.xlsx", SHEET("<row r=\"1048577\"/>"), "bad row number '1048577'", "a row beyond 1048576");
	refused_sheet("rowafter.xlsx", SHEET("<row r=\"1048576\"/><row/>"), "a row after row 1048576",
		      "a row without r after the last row");
	refused_sheet("colafter.xlsx", SHEET("<row r=\"1\"><c r=\"XFD1\"/><c/></row>"), "a cell after column XFD in row 1",
		      "a cell without r after XFD");
	refused_sheet("order.xlsx", SHEET("<row r=\"1\"><c r=\"B1\"/><c r=\"A1\"/></row>"),
		      "cell A1 after column B: cells out of order or repeated", "cells out of order");
	refused_sheet("dup.xlsx", SHEET("<row r=\"1\"><c r=\"B1\"/><c r=\"B1\"/></row>"),
		      "cell B1 after column B", "a cell repeated");
	refused_sheet("rows.xlsx", SHEET("<row r=\"5\"/><row r=\"3\"/>"), "row 3 after row 5: rows out of order",
		      "rows out of order");
	refused_sheet("otherrow.xlsx", SHEET("<row r=\"2\"><c r=\"A3\"/></row>"), "cell A3 in row 2",
		      "a cell of another row");
	refused_sheet("number.xlsx", SHEET("<row><c r=\"A1\"><v>0x10</v></c></row>"), "cell A1: bad number '0x10'",
		      "a number C reads but Python does not");
	refused_sheet("bool.xlsx", SHEET("<row><c t=\"b\"><v>2</v></c></row>"), "cell A1: bad boolean '2'", "a boolean 2");
	refused_sheet("type.xlsx", SHEET("<row><c t=\"z\"/></row>"), "cell A1: unknown type 'z'", "an unknown cell type");
	refused_sheet("outside.xlsx", SHEET("<c r=\"A1\"/>"), "a cell outside a row", "a cell outside a row");
	refused_sheet("doctype.xlsx",
		      "<!DOCTYPE w [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]>"
		      "<worksheet><sheetData><row><c t=\"str\"><v>&b;</v></c></row></sheetData></worksheet>",
		      "sheet1.xml:1: a document type declaration", "a DTD with entities (billion laughs)");
	for (int i = 0; i < 300; i++)
		strbuf_addstr(&deep, "<a>");
	refused_sheet("deep.xlsx", deep.buf, "elements nested deeper than 256", "elements nested 300 deep");
	strbuf_release(&deep);

	/* the zip lies */
	path = xstrdup(tmp_path("lie.xlsx"));
	zf = zipOpen64(path, APPEND_STATUS_CREATE);
	add_member(zf, "xl/workbook.xml", workbook_xml, strlen(workbook_xml));
	add_member(zf, "xl/_rels/workbook.xml.rels", rels_xml, strlen(rels_xml));
	add_member(zf, "xl/strings.xml", shared_xml, strlen(shared_xml));
	add_lying_member(zf, "xl/worksheets/sheet1.xml", SHEET("<row><c><v>1</v></c></row>"), 20);
	zipClose(zf, NULL);
	{
		struct strbuf err = STRBUF_INIT;
		struct grid g = { 0 };
		is_refused(read_sheet(path, 0, &g, &err), &err, path, "xl/worksheets/sheet1.xml: its CRC does not match",
			   "a member longer than its directory entry says");
		grid_release(&g);
		strbuf_release(&err);
	}
	free(path);
	path = xstrdup(tmp_path("bomb.xlsx"));
	zf = zipOpen64(path, APPEND_STATUS_CREATE);
	add_member(zf, "xl/workbook.xml", workbook_xml, strlen(workbook_xml));
	add_member(zf, "xl/_rels/workbook.xml.rels", rels_xml, strlen(rels_xml));
	add_lying_member(zf, "xl/strings.xml", shared_xml, (uint64_t)5 << 30);
	add_member(zf, "xl/worksheets/sheet1.xml", SHEET(""), strlen(SHEET("")));
	zipClose(zf, NULL);
	refused_open(path, "xl/strings.xml: declared to inflate to 5368709120 bytes, more than the 4 GiB allowed",
		     "a member declared larger than 4 GiB");
	free(path);
	path = xstrdup(tmp_path("short.xlsx"));
	zf = zipOpen64(path, APPEND_STATUS_CREATE);
	add_member(zf, "xl/workbook.xml", workbook_xml, strlen(workbook_xml));
	add_member(zf, "xl/_rels/workbook.xml.rels", rels_xml, strlen(rels_xml));
	add_lying_member(zf, "xl/strings.xml", shared_xml, strlen(shared_xml) + 1000);
	add_member(zf, "xl/worksheets/sheet1.xml", SHEET(""), strlen(SHEET("")));
	zipClose(zf, NULL);
	refused_open(path, "xl/strings.xml: ends after", "a member shorter than its directory entry says");
	free(path);
}

/* ---------------------------------------------------------------- --dump */

struct dump {
	size_t width;    /* pass 1: the widest row */
	uint32_t rows;   /* pass 1: the last row + 1 */
	uint32_t next;   /* pass 2: the row to write next */
	FILE *csv, *types;
	struct strbuf field;
};

static int measure_row(void *ctx, uint32_t row, const struct xlsxr_cell *cells, size_t n, struct strbuf *err)
{
	struct dump *d = ctx;
	if (n > d->width)
		d->width = n;
	d->rows = row + 1;
	return 0;
}

/* Python's str(int(text)): the digits without a '+' or leading zeros. */
static void add_int_text(struct strbuf *sb, const char *s)
{
	bool neg = *s == '-';
	if (*s == '-' || *s == '+')
		s++;
	while (*s == '0' && s[1])
		s++;
	if (neg && strcmp(s, "0"))
		strbuf_addch(sb, '-');
	strbuf_addstr(sb, s);
}

/* str() of the value openpyxl reads for the cell, and its letter in the types file. */
static char cell_str(struct strbuf *sb, const struct xlsxr_cell *c)
{
	switch (c->type) {
	case XLSXR_EMPTY:
		return '-';
	case XLSXR_NUMBER:
		if (c->is_int) {
			add_int_text(sb, c->text);
			return 'i';
		}
		pyfmt_double(sb, c->num);
		return 'f';
	case XLSXR_BOOL:
		strbuf_addstr(sb, c->b ? "True" : "False");
		return 'b';
	case XLSXR_TEXT:
	case XLSXR_ERROR:
		break;
	}
	strbuf_add(sb, c->text, c->len);
	return 's';
}

/* A field as Python's csv module writes it (QUOTE_MINIMAL, '"' doubled). */
static void put_field(FILE *f, const char *s, size_t len, bool alone)
{
	bool quote = alone && !len;
	for (size_t i = 0; i < len && !quote; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
	if (!quote) {
		fwrite(s, 1, len, f);
		return;
	}
	putc('"', f);
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"')
			putc('"', f);
		putc(s[i], f);
	}
	putc('"', f);
}

static void put_row(struct dump *d, const struct xlsxr_cell *cells, size_t n)
{
	for (size_t i = 0; i < d->width; i++) {
		char type = '-';
		strbuf_reset(&d->field);
		if (i < n)
			type = cell_str(&d->field, &cells[i]);
		if (i) {
			putc(',', d->csv);
			putc(',', d->types);
		}
		put_field(d->csv, d->field.buf, d->field.len, d->width == 1);
		putc(type, d->types);
	}
	putc('\n', d->csv);
	putc('\n', d->types);
}

static int write_row(void *ctx, uint32_t row, const struct xlsxr_cell *cells, size_t n, struct strbuf *err)
{
	struct dump *d = ctx;
	for (; d->next < row; d->next++)
		put_row(d, NULL, 0);
	put_row(d, cells, n);
	d->next = row + 1;
	return 0;
}

static FILE *create(const char *dir, const char *stem, const char *sheet, const char *ext)
{
	struct strbuf path = STRBUF_INIT;
	FILE *f;
	strbuf_addf(&path, "%s/%s__", dir, stem);
	for (const char *p = sheet; *p; p++)
		strbuf_addch(&path, *p == '/' ? '_' : *p);
	strbuf_addstr(&path, ext);
	if (!(f = fopen(path.buf, "wb")))
		fprintf(stderr, "test_xlsxr: %s: %s\n", path.buf, strerror(errno));
	strbuf_release(&path);
	return f;
}

static int dump_sheet(struct xlsxr *x, size_t i, const char *outdir, const char *stem, struct strbuf *err)
{
	struct dump d = { .field = STRBUF_INIT };
	struct strbuf typedir = STRBUF_INIT;
	int rc = -1;
	strbuf_addf(&typedir, "%s/types", outdir);
	if (xlsxr_read_sheet(x, i, measure_row, &d, err) < 0)
		goto out;
	d.csv = create(outdir, stem, xlsxr_sheet_name(x, i), ".csv");
	d.types = create(typedir.buf, stem, xlsxr_sheet_name(x, i), ".types.csv");
	if (d.csv && d.types && d.width)
		rc = xlsxr_read_sheet(x, i, write_row, &d, err);
	else if (d.csv && d.types)
		rc = 0;
out:
	if ((d.csv && fclose(d.csv)) || (d.types && fclose(d.types)))
		rc = -1;
	strbuf_release(&d.field);
	strbuf_release(&typedir);
	return rc;
}

static int dump(const char *path, const char *outdir)
{
	struct strbuf err = STRBUF_INIT, types = STRBUF_INIT;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(base);
	char *stem = xmemdupz(base, n > 5 && !strcmp(base + n - 5, ".xlsx") ? n - 5 : n);
	struct xlsxr *x = xlsxr_open(path, &err);
	int status = 0;
	strbuf_addf(&types, "%s/types", outdir);
	if ((mkdir(outdir, 0777) < 0 && errno != EEXIST) || (mkdir(types.buf, 0777) < 0 && errno != EEXIST)) {
		fprintf(stderr, "test_xlsxr: %s: %s\n", types.buf, strerror(errno));
		status = 2;
	}
	for (size_t i = 0; x && !status && i < xlsxr_nsheets(x); i++)
		if (dump_sheet(x, i, outdir, stem, &err) < 0)
			status = 2;
	if (!x || err.len) {
		fprintf(stderr, "test_xlsxr: %s\n", err.len ? err.buf : "cannot write the dump");
		status = 2;
	}
	xlsxr_close(x);
	free(stem);
	strbuf_release(&types);
	strbuf_release(&err);
	return status;
}

/* ---------------------------------------------------------------- main */

static void remove_tmpdir(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlink(tmp_path(de->d_name));
	if (d)
		closedir(d);
	rmdir(tmpdir);
}

int main(int argc, char **argv)
{
	const char *base = getenv("TMPDIR");
	if (argc == 4 && !strcmp(argv[1], "--dump"))
		return dump(argv[2], argv[3]);
	if (argc != 1) {
		fprintf(stderr, "usage: test_xlsxr [--dump FILE.xlsx OUTDIR]\n");
		return 2;
	}
	snprintf(tmpdir, sizeof(tmpdir), "%s/xlsxr.XXXXXX", base && *base && strlen(base) < 40 ? base : "/tmp");
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! cannot create %s\n", tmpdir);
		return 1;
	}
	check_lxw(false);
	check_lxw(true);
	check_by_hand();
	check_hostile();
	if (!getenv("XLSXR_KEEP"))
		remove_tmpdir();
	return done_testing();
}
