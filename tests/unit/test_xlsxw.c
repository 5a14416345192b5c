/*
 * test_xlsxw: the workbook writer (lib/core/xlsxw.h): msprobe's sheet names and
 * its split of long tables into equal part_<i> sheets at 1,048,500 rows, every
 * row's cells and types, read back with lib/core/xlsxr.h.
 */
#include "tap.h"
#include "../../lib/core/strbuf.h"
#include "../../lib/core/xlsxr.h"
#include "../../lib/core/xlsxw.h"

#include <stdlib.h>
#include <unistd.h>

static char dir[] = "/tmp/probe-test-xlsxw-XXXXXX";

struct counting {
	uint64_t rows;      /* data rows (the header is row 0) */
	uint64_t bad;       /* rows whose cell is not the number expected */
	double next;        /* the value the next data row should hold */
	bool header_ok;
};

static int count_row(void *ctx, uint32_t row, const struct xlsxr_cell *cells, size_t n, struct strbuf *err)
{
	struct counting *c = ctx;
	(void)err;
	if (row == 0) {
		c->header_ok = n == 1 && cells[0].type == XLSXR_TEXT && !strcmp(cells[0].text, "i");
		return 0;
	}
	if (n != 1 || cells[0].type != XLSXR_NUMBER || cells[0].num != c->next)
		c->bad++;
	c->next++;
	c->rows++;
	return 0;
}

/* A table of n rows (one number each, 0, 1, ...) named name: the sheets it became and their rows. */
static void check_split(uint64_t n, const char *name, const char *const *want, const uint64_t *want_rows,
			size_t nwant)
{
	struct strbuf err = STRBUF_INIT, path = STRBUF_INIT;
	const char *header[] = { "i" };
	struct xlsxw *w;
	struct xlsxr *x;
	struct counting c = { 0 };
	strbuf_addf(&path, "%s/split.xlsx", dir);
	w = xlsxw_new(path.buf, &(struct xlsxw_options){ .tmpdir = dir }, &err);
	ok(w != NULL, "%llu rows: the workbook is made (%s)", (unsigned long long)n, err.buf);
	xlsxw_begin(w, name, header, 1, &err);
	for (uint64_t i = 0; i < n; i++) {
		struct xlsxw_cell cell = { .type = XLSXW_NUMBER, .num = (double)i };
		xlsxw_row(w, &cell, 1, 0, &err);
	}
	ok(xlsxw_close(w, &err) == 0, "%llu rows: written (%s)", (unsigned long long)n, err.buf);
	xlsxw_free(w);
	x = xlsxr_open(path.buf, &err);
	if (!ok(x != NULL, "%llu rows: read back (%s)", (unsigned long long)n, err.buf))
		return;
	is_int((long long)xlsxr_nsheets(x), (long long)nwant, "the number of sheets");
	for (size_t i = 0; i < nwant && i < xlsxr_nsheets(x); i++) {
		uint64_t before = c.rows;
		is_str(xlsxr_sheet_name(x, i), want[i], "the sheet's name");
		c.header_ok = false;
		xlsxr_read_sheet(x, i, count_row, &c, &err);
		ok(c.header_ok, "sheet %s has the header", want[i]);
		is_int((long long)(c.rows - before), (long long)want_rows[i], "its rows");
	}
	is_int((long long)c.bad, 0, "every row holds its number, in order, across the sheets");
	xlsxr_close(x);
	unlink(path.buf);
	strbuf_release(&err);
	strbuf_release(&path);
}

struct cells_seen {
	struct strbuf text;
};

static int show_row(void *ctx, uint32_t row, const struct xlsxr_cell *cells, size_t n, struct strbuf *err)
{
	struct cells_seen *s = ctx;
	static const char types[] = "-tnbe";
	(void)err;
	strbuf_addf(&s->text, "%u:", row);
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&s->text, " %c[%s]", types[cells[i].type], cells[i].text);
	strbuf_addch(&s->text, '\n');
	return 0;
}

/* Cell types, the cut at Excel's limit, and an empty text. */
static void check_cells(void)
{
	struct strbuf err = STRBUF_INIT, path = STRBUF_INIT;
	const char *header[] = { "a", "b", "c", "d", "e" };
	char *big = malloc(XLSXW_MAX_TEXT + 11);
	struct cells_seen seen = { STRBUF_INIT };
	struct xlsxw *w;
	struct xlsxr *x;
	memset(big, 'x', XLSXW_MAX_TEXT + 10);
	big[XLSXW_MAX_TEXT + 10] = '\0';
	strbuf_addf(&path, "%s/cells.xlsx", dir);
	w = xlsxw_new(path.buf, NULL, &err);
	xlsxw_begin(w, NULL, header, 5, &err);
	xlsxw_row(w, (struct xlsxw_cell[]){ { .type = XLSXW_TEXT, .text = "N/A" }, { .type = XLSXW_NUMBER, .num = 1e-05 },
					     { .type = XLSXW_TRUE }, { .type = XLSXW_EMPTY }, { .type = XLSXW_FALSE } },
		  5, 0, &err);
	xlsxw_row(w, (struct xlsxw_cell[]){ { .type = XLSXW_TEXT, .text = "" }, { .type = XLSXW_NUMBER, .num = 0.1 + 0.2 } },
		  2, 0, &err);
	xlsxw_row(w, (struct xlsxw_cell[]){ { .type = XLSXW_TEXT, .text = big } }, 1, 0, &err);
	ok(xlsxw_close(w, &err) == 0, "written (%s)", err.buf);
	is_int((long long)xlsxw_cut_cells(w), 1, "one cell cut at Excel's limit");
	xlsxw_free(w);
	x = xlsxr_open(path.buf, &err);
	ok(x && xlsxr_read_sheet(x, 0, show_row, &seen, &err) == 0, "read back (%s)", err.buf);
	is_str(x ? xlsxr_sheet_name(x, 0) : NULL, "Sheet1", "an unnamed table is msprobe's Sheet1");
	{
		const char *want = "0: t[a] t[b] t[c] t[d] t[e]\n"
				   "1: t[N/A] n[1E-05] b[1] -[] b[0]\n"
				   "2: -[] n[0.3]\n"
				   "3: t[";
		size_t n = strlen(want);
		bool head = seen.text.len > n && !strncmp(seen.text.buf, want, n);
		ok(head, "the cells: text, numbers with 16 significant digits (0.1 + 0.2 is 0.3), booleans, "
			 "nothing for empty");
		if (!head)
			diag("got: %.200s", seen.text.buf);
		is_int((long long)(seen.text.len - n - 2), XLSXW_MAX_TEXT, "the long text cut at 32767 characters");
	}
	if (x)
		xlsxr_close(x);
	unlink(path.buf);
	free(big);
	strbuf_release(&seen.text);
	strbuf_release(&err);
	strbuf_release(&path);
}

int main(void)
{
	static const char *const one[] = { "Sheet1" }, *const named[] = { "Max diff" }, *const p0[] = { "part_0" },
				     *const p01[] = { "part_0", "part_1" }, *const np01[] = { "Cosine_part_0", "Cosine_part_1" };
	static const uint64_t r3[] = { 3 }, rmax[] = { XLSXW_MAX_ROWS }, rhalf[] = { 524251, 524250 };
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	check_cells();
	check_split(3, NULL, one, r3, 1);
	check_split(3, "Max diff", named, r3, 1);
	/* save_excel: fewer than 1,048,500 rows is one sheet; that many is part_0 alone */
	check_split(XLSXW_MAX_ROWS, NULL, p0, rmax, 1);
	/* one more: two sheets of ceil(n / 2) and the rest */
	check_split(XLSXW_MAX_ROWS + 1, NULL, p01, rhalf, 2);
	check_split(XLSXW_MAX_ROWS + 1, "Cosine", np01, rhalf, 2);
	rmdir(dir);
	return done_testing();
}
