#include "xlsxw.h"
#include "msg.h"
#include "utf8.h"
#include "xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xlsxwriter.h>

enum { MIN_WIDTH = 8, MAX_WIDTH = 60 };

struct xlsxw {
	char *path;
	lxw_workbook *wb;
	bool reader;
	lxw_format *header_fmt;
	lxw_format *row_fmt[8];  /* reader: level | marked */
	/* the current table */
	bool open;
	char *name;
	char **header;
	size_t ncols;
	unsigned *widths;        /* reader: the widest cell of each column, in characters */
	FILE *spill;             /* its rows, until xlsxw_end */
	char *spill_buf;
	uint64_t rows;
	uint64_t cut;
	char *tmpdir;
	struct strbuf scratch;
};

static const char *lxw_why(lxw_error e)
{
	return lxw_strerror(e);
}

static int fail_lxw(const struct xlsxw *w, lxw_error e, struct strbuf *err)
{
	return msg_fail(err, w->path, "cannot write the workbook: %s", lxw_why(e));
}

/* The reader's formats: a fill for each level, bold for a marked row. */
static void make_row_formats(struct xlsxw *w)
{
	static const lxw_color_t fills[4] = { 0, 0xE2EFDA, 0xFFEB9C, 0xFFC7CE };
	for (unsigned i = 0; i < 8; i++) {
		lxw_format *f = workbook_add_format(w->wb);
		if (fills[i & XLSXW_ROW_LEVELS]) {
			format_set_pattern(f, LXW_PATTERN_SOLID);
			format_set_bg_color(f, fills[i & XLSXW_ROW_LEVELS]);
		}
		if (i & XLSXW_ROW_MARKED)
			format_set_bold(f);
		w->row_fmt[i] = f;
	}
}

struct xlsxw *xlsxw_new(const char *path, const struct xlsxw_options *opts, struct strbuf *err)
{
	struct xlsxw *w = xcalloc(1, sizeof(*w));
	const char *tmp = opts && opts->tmpdir ? opts->tmpdir : getenv("TMPDIR");
	lxw_workbook_options lo = { .constant_memory = LXW_TRUE };
	w->path = xstrdup(path);
	w->tmpdir = xstrdup(tmp && *tmp ? tmp : "/tmp");
	w->reader = opts && opts->reader;
	strbuf_init(&w->scratch, 0);
	lo.tmpdir = w->tmpdir;
	if (!(w->wb = workbook_new_opt(path, &lo))) {
		msg_fail(err, path, "cannot create the workbook: %s", errno ? strerror(errno) : "libxlsxwriter failed");
		xlsxw_free(w);
		return NULL;
	}
	w->header_fmt = workbook_add_format(w->wb);
	format_set_bold(w->header_fmt);
	format_set_border(w->header_fmt, LXW_BORDER_THIN);
	format_set_align(w->header_fmt, LXW_ALIGN_CENTER);
	format_set_align(w->header_fmt, LXW_ALIGN_VERTICAL_TOP);
	if (w->reader)
		make_row_formats(w);
	return w;
}

/* A file of our own in tmpdir, already unlinked. */
static FILE *open_spill(struct xlsxw *w, struct strbuf *err)
{
	struct strbuf name = STRBUF_INIT;
	FILE *f = NULL;
	int fd;
	strbuf_addf(&name, "%s/probe-xlsx-XXXXXX", w->tmpdir);
	fd = mkstemp(name.buf);
	if (fd < 0) {
		msg_fail(err, w->path, "cannot create a temporary file in %s: %s", w->tmpdir, strerror(errno));
	} else {
		unlink(name.buf);
		if (!(f = fdopen(fd, "w+b"))) {
			msg_fail(err, w->path, "cannot open a temporary file: %s", strerror(errno));
			close(fd);
		}
	}
	strbuf_release(&name);
	if (f) {
		w->spill_buf = xmalloc(1 << 20);
		setvbuf(f, w->spill_buf, _IOFBF, 1 << 20);
	}
	return f;
}

static void end_table_memory(struct xlsxw *w)
{
	for (size_t i = 0; i < w->ncols; i++)
		free(w->header[i]);
	free(w->header);
	free(w->widths);
	free(w->name);
	if (w->spill)
		fclose(w->spill);
	free(w->spill_buf);
	w->header = NULL;
	w->widths = NULL;
	w->name = NULL;
	w->spill = NULL;
	w->spill_buf = NULL;
	w->ncols = 0;
	w->rows = 0;
	w->open = false;
}

static unsigned text_width(const char *s)
{
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p && n < MAX_WIDTH; p++)
		if ((*p & 0xC0) != 0x80)
			n++;
	return (unsigned)n;
}

int xlsxw_begin(struct xlsxw *w, const char *name, const char *const *header, size_t ncols, struct strbuf *err)
{
	if (w->open && xlsxw_end(w, err) < 0)
		return -1;
	if (!(w->spill = open_spill(w, err)))
		return -1;
	w->open = true;
	w->name = name ? xstrdup(name) : NULL;
	w->ncols = ncols;
	w->header = xcalloc(ncols ? ncols : 1, sizeof(*w->header));
	w->widths = xcalloc(ncols ? ncols : 1, sizeof(*w->widths));
	for (size_t i = 0; i < ncols; i++) {
		w->header[i] = xstrdup(header[i]);
		w->widths[i] = text_width(header[i]) + 2; /* the filter's button */
	}
	return 0;
}

static void put_varint(FILE *f, uint64_t v)
{
	while (v >= 0x80) {
		putc((int)(v & 0x7f) | 0x80, f);
		v >>= 7;
	}
	putc((int)v, f);
}

static bool get_varint(FILE *f, uint64_t *v)
{
	int c, shift = 0;
	*v = 0;
	do {
		if ((c = getc(f)) == EOF || shift > 63)
			return false;
		*v |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	return true;
}

int xlsxw_row(struct xlsxw *w, const struct xlsxw_cell *cells, size_t n, unsigned style, struct strbuf *err)
{
	if (n > w->ncols)
		n = w->ncols;
	putc((int)style, w->spill);
	put_varint(w->spill, n);
	for (size_t i = 0; i < n; i++) {
		const struct xlsxw_cell *c = &cells[i];
		putc((int)c->type, w->spill);
		if (c->type == XLSXW_TEXT) {
			size_t len = strlen(c->text);
			put_varint(w->spill, len);
			fwrite(c->text, 1, len, w->spill);
			if (w->reader && w->widths[i] < MAX_WIDTH) {
				unsigned tw = text_width(c->text);
				if (tw > w->widths[i])
					w->widths[i] = tw;
			}
		} else if (c->type == XLSXW_NUMBER) {
			fwrite(&c->num, sizeof(c->num), 1, w->spill);
			if (w->reader && w->widths[i] < 18)
				w->widths[i] = 18;
		}
	}
	if (ferror(w->spill))
		return msg_fail(err, w->path, "cannot write a temporary file: %s", strerror(errno));
	w->rows++;
	return 0;
}

uint64_t xlsxw_rows(const struct xlsxw *w)
{
	return w->rows;
}

uint64_t xlsxw_cut_cells(const struct xlsxw *w)
{
	return w->cut;
}

/* Excel's limit on a cell, in characters: the text cut at a character boundary (in w->scratch). */
static const char *cell_text(struct xlsxw *w, const char *s, size_t len)
{
	size_t chars = 0, i = 0;
	for (; i < len; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80 && ++chars > XLSXW_MAX_TEXT)
			break;
	if (i < len)
		w->cut++;
	strbuf_reset(&w->scratch);
	strbuf_add(&w->scratch, s, i);
	return w->scratch.buf;
}

static lxw_worksheet *add_sheet(struct xlsxw *w, size_t part, bool parts, struct strbuf *err)
{
	lxw_worksheet *ws;
	lxw_error e;
	strbuf_reset(&w->scratch);
	if (!parts)
		strbuf_addstr(&w->scratch, w->name ? w->name : "Sheet1");
	else if (w->name)
		strbuf_addf(&w->scratch, "%s_part_%zu", w->name, part);
	else
		strbuf_addf(&w->scratch, "part_%zu", part);
	if ((e = workbook_validate_sheet_name(w->wb, w->scratch.buf)) != LXW_NO_ERROR) {
		msg_fail(err, w->path, "cannot name a sheet \"%s\": %s", w->scratch.buf, lxw_why(e));
		return NULL;
	}
	if (!(ws = workbook_add_worksheet(w->wb, w->scratch.buf))) {
		msg_fail(err, w->path, "cannot add the sheet \"%s\"", w->scratch.buf);
		return NULL;
	}
	for (size_t c = 0; c < w->ncols; c++) {
		if (w->reader)
			worksheet_set_column(ws, (lxw_col_t)c, (lxw_col_t)c,
					     w->widths[c] < MIN_WIDTH ? MIN_WIDTH : w->widths[c], NULL);
		if ((e = worksheet_write_string(ws, 0, (lxw_col_t)c, cell_text(w, w->header[c], strlen(w->header[c])),
						w->header_fmt)) != LXW_NO_ERROR) {
			fail_lxw(w, e, err);
			return NULL;
		}
	}
	return ws;
}

static void finish_sheet(struct xlsxw *w, lxw_worksheet *ws, uint64_t rows)
{
	if (!w->reader || !ws || !w->ncols)
		return;
	worksheet_freeze_panes(ws, 1, 0);
	worksheet_autofilter(ws, 0, 0, (lxw_row_t)rows, (lxw_col_t)(w->ncols - 1));
}

/* One row back from the spill, written at row r of ws. */
static int copy_row(struct xlsxw *w, lxw_worksheet *ws, lxw_row_t r, struct strbuf *text, struct strbuf *err)
{
	int style = getc(w->spill);
	uint64_t n, len;
	lxw_format *fmt;
	if (style == EOF || !get_varint(w->spill, &n) || n > w->ncols)
		return msg_fail(err, w->path, "a temporary file was cut short");
	fmt = w->reader ? w->row_fmt[style & 7] : NULL;
	for (size_t c = 0; c < n; c++) {
		int type = getc(w->spill);
		double num;
		lxw_error e = LXW_NO_ERROR;
		switch (type) {
		case XLSXW_TEXT:
			if (!get_varint(w->spill, &len) || len > SIZE_MAX / 2)
				return msg_fail(err, w->path, "a temporary file was cut short");
			strbuf_reset(text);
			strbuf_grow(text, (size_t)len);
			if (fread(text->buf, 1, (size_t)len, w->spill) != len)
				return msg_fail(err, w->path, "a temporary file was cut short");
			strbuf_setlen(text, (size_t)len);
			if (len)
				e = worksheet_write_string(ws, r, (lxw_col_t)c, cell_text(w, text->buf, text->len), fmt);
			else if (fmt)
				e = worksheet_write_blank(ws, r, (lxw_col_t)c, fmt);
			break;
		case XLSXW_NUMBER:
			if (fread(&num, sizeof(num), 1, w->spill) != 1)
				return msg_fail(err, w->path, "a temporary file was cut short");
			e = worksheet_write_number(ws, r, (lxw_col_t)c, num, fmt);
			break;
		case XLSXW_TRUE:
		case XLSXW_FALSE:
			e = worksheet_write_boolean(ws, r, (lxw_col_t)c, type == XLSXW_TRUE, fmt);
			break;
		case XLSXW_EMPTY:
			if (fmt)
				e = worksheet_write_blank(ws, r, (lxw_col_t)c, fmt);
			break;
		default:
			return msg_fail(err, w->path, "a temporary file was cut short");
		}
		if (e != LXW_NO_ERROR)
			return fail_lxw(w, e, err);
	}
	if (fmt && n < w->ncols)
		for (size_t c = n; c < w->ncols; c++)
			worksheet_write_blank(ws, r, (lxw_col_t)c, fmt);
	return 0;
}

int xlsxw_end(struct xlsxw *w, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	uint64_t n = w->rows, slices = 1, size = n, done = 0;
	bool parts = n >= XLSXW_MAX_ROWS;
	int ret = 0;
	if (!w->open)
		return 0;
	if (parts) {
		slices = (n + XLSXW_MAX_ROWS - 1) / XLSXW_MAX_ROWS;
		size = (n + slices - 1) / slices;
	}
	if (fflush(w->spill) || fseeko(w->spill, 0, SEEK_SET))
		ret = msg_fail(err, w->path, "cannot read a temporary file back: %s", strerror(errno));
	for (uint64_t s = 0; s < slices && !ret; s++) {
		lxw_worksheet *ws = add_sheet(w, (size_t)s, parts, err);
		uint64_t in_sheet = 0;
		if (!ws) {
			ret = -1;
			break;
		}
		for (; done < n && in_sheet < size && !ret; done++, in_sheet++)
			ret = copy_row(w, ws, (lxw_row_t)(in_sheet + 1), &text, err);
		finish_sheet(w, ws, in_sheet);
	}
	strbuf_release(&text);
	end_table_memory(w);
	return ret;
}

int xlsxw_close(struct xlsxw *w, struct strbuf *err)
{
	lxw_error e;
	if (w->open && xlsxw_end(w, err) < 0)
		return -1;
	if (!w->wb)
		return 0;
	e = workbook_close(w->wb);
	w->wb = NULL;
	if (e != LXW_NO_ERROR)
		return fail_lxw(w, e, err);
	return 0;
}

void xlsxw_free(struct xlsxw *w)
{
	if (!w)
		return;
	end_table_memory(w);
	if (w->wb) {
		/* never closed: the file is the caller's to remove; the workbook's memory goes with a close */
		workbook_close(w->wb);
	}
	strbuf_release(&w->scratch);
	free(w->tmpdir);
	free(w->path);
	free(w);
}

/* The bytes of a file appended to out: 0, or -1 with errno. */
static int append_file(struct strbuf *out, const char *path)
{
	char buf[1 << 16];
	size_t got;
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(out, buf, got);
	int bad = ferror(f);
	fclose(f);
	return bad ? (errno = EIO, -1) : 0;
}

int xlsxw_book_to_strbuf(xlsxw_write_fn *write, void *ctx, struct strbuf *out, struct strbuf *err)
{
	const char *tmp = getenv("TMPDIR");
	struct strbuf path = STRBUF_INIT;
	int ret, fd;
	strbuf_addf(&path, "%s/probe-metric-XXXXXX.xlsx", tmp && *tmp ? tmp : "/tmp");
	if ((fd = mkstemps(path.buf, 5)) < 0) {
		ret = msg_fail(err, path.buf, "cannot make a temporary workbook: %s", strerror(errno));
		strbuf_release(&path);
		return ret;
	}
	close(fd);
	ret = write(ctx, path.buf, err);
	if (!ret && append_file(out, path.buf) < 0)
		ret = msg_fail(err, path.buf, "cannot read the workbook back: %s", strerror(errno));
	unlink(path.buf);
	strbuf_release(&path);
	return ret;
}
