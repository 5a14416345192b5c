#include "table.h"
#include "mscsv.h"
#include "../json/recscan.h"
#include "../core/msg.h"
#include "../core/xalloc.h"

struct table_writer {
	char **cols;
	size_t ncols, alloc;
	bool given, header_done;
	uint64_t rows;
	struct span *cells;
	struct strbuf text, cell, safe;
};

/* A cell, with a formula made inert (mscsv.h: mscsv_neutralise, the rule of probe's own CSVs). */
static void add_cell(struct table_writer *t, struct strbuf *out, const char *cell, bool first)
{
	mscsv_add_cell(out, mscsv_neutralise(cell, &t->safe) ? t->safe.buf : cell, first);
}

static void add_column(struct table_writer *t, const char *name, size_t len)
{
	ALLOC_GROW(t->cols, t->ncols + 1, t->alloc);
	t->cols[t->ncols++] = xmemdupz(name, len);
}

struct table_writer *table_new(const char *columns)
{
	struct table_writer *t = xcalloc(1, sizeof(*t));
	strbuf_init(&t->text, 0);
	strbuf_init(&t->cell, 0);
	strbuf_init(&t->safe, 0);
	if (columns) {
		t->given = true;
		for (const char *p = columns;;) {
			const char *comma = strchr(p, ',');
			size_t n = comma ? (size_t)(comma - p) : strlen(p);
			add_column(t, p, n);
			if (!comma)
				break;
			p = comma + 1;
		}
	}
	return t;
}

void table_free(struct table_writer *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->ncols; i++)
		free(t->cols[i]);
	free(t->cols);
	free(t->cells);
	strbuf_release(&t->text);
	strbuf_release(&t->cell);
	strbuf_release(&t->safe);
	free(t);
}

/* The column of a key; -1: none, -2: the key is not a valid JSON string. */
static int column_of(const struct table_writer *t, const struct span *key, struct strbuf *name)
{
	strbuf_reset(name);
	if (span_string(key, name) < 0)
		return -2;
	for (size_t i = 0; i < t->ncols; i++)
		if (!strcmp(t->cols[i], name->buf))
			return (int)i;
	return -1;
}

/* A cell's text as pandas would print the value; -1 for a string with a bad escape or bad UTF-8. */
static int cell_text(const struct span *v, struct strbuf *out)
{
	strbuf_reset(out);
	switch (v->kind) {
	case SPAN_STRING: return span_string(v, out);
	case SPAN_TRUE: strbuf_addstr(out, "True"); break;
	case SPAN_FALSE: strbuf_addstr(out, "False"); break;
	case SPAN_NULL: case SPAN_NONE: break;
	default: strbuf_add(out, v->p, v->n); break;
	}
	return 0;
}

static int bad_string(struct strbuf *err, const char *line, const struct span *s)
{
	strbuf_addf(err, "a string with a bad escape or invalid UTF-8 (at byte %zu)", (size_t)(s->p - line) + 1);
	return -1;
}

static int add_row(struct table_writer *t, const char *line, size_t len, struct strbuf *out, struct strbuf *err)
{
	struct rs_iter it;
	struct span k, v;
	int got;

	if (rs_begin(&it, line, len) < 0) {
		strbuf_addf(err, "%s (at byte %zu)", it.error, it.error_at + 1);
		return -1;
	}
	if (!t->given && !t->rows) {
		/* the first object's keys are the columns */
		struct rs_iter first = it;
		while (rs_next(&first, &k, &v) == 1) { /* an error in it is the main loop's to report */
			strbuf_reset(&t->cell);
			if (span_string(&k, &t->cell) < 0)
				return bad_string(err, line, &k);
			add_column(t, t->cell.buf, t->cell.len);
		}
	}
	t->cells = xrealloc(t->cells, (t->ncols ? t->ncols : 1) * sizeof(*t->cells));
	for (size_t i = 0; i < t->ncols; i++)
		t->cells[i] = (struct span){ NULL, 0, SPAN_NONE };
	while ((got = rs_next(&it, &k, &v)) == 1) {
		int c = column_of(t, &k, &t->text);
		if (c == -2)
			return bad_string(err, line, &k);
		if (c < 0) {
			if (t->given)
				continue; /* asked for other columns */
			strbuf_addf(err, "member \"%s\" is not a column (the columns are the first object's keys; "
					 "--columns names them)", t->text.buf);
			return -1;
		}
		t->cells[c] = v;
	}
	if (got < 0) {
		strbuf_addf(err, "bad JSON object: %s (at byte %zu)", it.error, it.error_at + 1);
		return -1;
	}
	if (!t->header_done) {
		for (size_t i = 0; i < t->ncols; i++)
			add_cell(t, out, t->cols[i], i == 0);
		strbuf_addch(out, '\n');
		t->header_done = true;
	}
	size_t row_start = out->len;
	for (size_t i = 0; i < t->ncols; i++) {
		if (cell_text(&t->cells[i], &t->cell) < 0) {
			strbuf_setlen(out, row_start);
			return bad_string(err, line, &t->cells[i]);
		}
		add_cell(t, out, t->cell.buf, i == 0);
	}
	strbuf_addch(out, '\n');
	t->rows++;
	return 0;
}

static int table_add(struct table_writer *t, const char *line, size_t len, struct strbuf *out, struct strbuf *err)
{
	return add_row(t, line, len, out, err) < 0 ? PROBE_ERR_LINE : 0;
}

static int finish_table(struct table_writer *t, struct strbuf *out, struct strbuf *err)
{
	(void)out;
	if (!t->rows) {
		strbuf_addstr(err, "no rows: nothing to write");
		return -1;
	}
	return 0;
}

static int table_finish(struct table_writer *t, struct strbuf *out, struct strbuf *err)
{
	return finish_table(t, out, err) < 0 ? PROBE_ERR_INPUT : 0;
}

static int sink_add(void *ctx, const char *line, size_t len, struct strbuf *out, struct strbuf *err)
{
	return table_add(ctx, line, len, out, err);
}

static int sink_finish(void *ctx, struct strbuf *out, struct strbuf *err)
{
	return table_finish(ctx, out, err);
}

struct line_sink table_sink(struct table_writer *ctx)
{
	return (struct line_sink){ .ctx = ctx, .add = sink_add, .finish = sink_finish };
}
