#include "csvrows.h"
#include "source.h"
#include "xalloc.h"

#include <csv.h>

struct reading {
	const char *path;
	struct csvrows_row row;
	size_t max_cols, max_row;
	/* where libcsv is: the line and byte of the next byte fed, the line of the row being read */
	uint64_t line, col;
	bool row_done;     /* a row ended since row.line was set */
	size_t row_bytes;  /* of the row being read, fed so far */
	csvrows_fn *fn;
	void *ctx;
	int stop;
	struct strbuf *err;
};

static void on_field(void *data, size_t len, void *ctx)
{
	struct reading *r = ctx;
	if (r->row.n >= r->max_cols) {
		r->row.overflow = true;
		return;
	}
	r->row.cells[r->row.n] = xmemdupz(data ? data : "", len);
	r->row.lens[r->row.n++] = len;
}

static void clear_cells(struct reading *r)
{
	for (size_t i = 0; i < r->row.n; i++)
		free(r->row.cells[i]);
	r->row.n = 0;
	r->row.overflow = false;
}

static void on_row(int c, void *ctx)
{
	struct reading *r = ctx;
	(void)c;
	r->row_done = true;
	if (!r->stop) {
		r->stop = r->fn(r->ctx, &r->row, r->err);
		r->row.index++;
	}
	clear_cells(r);
}

/* What libcsv refused at buf[at] of line r->line, as "FILE:LINE:COL: malformed CSV: what". */
static void parse_error(struct reading *r, struct csv_parser *p, const char *buf, size_t at)
{
	const char *what = csv_strerror(csv_error(p));
	if (csv_error(p) == CSV_EPARSE)
		what = buf[at] == '"' ? "a quote inside a field that does not start with one"
				      : "a quoted field goes on after its closing quote (a quote inside it is written twice)";
	strbuf_addf(r->err, "%s:%llu:%llu: malformed CSV: %s", r->path, (unsigned long long)r->line,
		    (unsigned long long)r->col + at + 1, what);
}

static bool blank_line(const char *s, size_t n)
{
	return (n == 1 && s[0] == '\n') || (n == 2 && s[0] == '\r' && s[1] == '\n');
}

/* Bytes of the file to libcsv, one line at a time (see the header). */
static void feed(struct reading *r, struct csv_parser *p, const char *buf, size_t n)
{
	while (n && !r->stop) {
		const char *nl = memchr(buf, '\n', n);
		size_t len = nl ? (size_t)(nl - buf) + 1 : n, body = len, done;
		if (!r->col && r->row_done && !blank_line(buf, len)) {
			r->row.line = r->line;
			r->row_done = false;
		}
		if (nl && --body && buf[body - 1] == '\r')
			body--;
		if (r->row_bytes + body > r->max_row) {
			strbuf_addf(r->err, "%s:%llu: a row longer than %zu bytes (PROBE_MAX_LINE raises the limit)",
				    r->path, (unsigned long long)r->row.line, r->max_row);
			r->stop = -1;
			return;
		}
		r->row_bytes += len;
		done = csv_parse(p, buf, len, on_field, on_row, r);
		if (done != len && !r->stop) {
			parse_error(r, p, buf, done);
			r->stop = -1;
			return;
		}
		if (r->row_done)
			r->row_bytes = 0;
		if (nl) {
			r->line++;
			r->col = 0;
		} else {
			r->col += len;
		}
		buf += len;
		n -= len;
	}
}

int csvrows_read(const char *path, size_t max_row, size_t max_cols, csvrows_fn *fn, void *ctx, struct strbuf *err)
{
	struct csv_parser p;
	struct reading r = { .path = path, .max_cols = max_cols ? max_cols : 1, .max_row = max_row, .fn = fn,
			     .ctx = ctx, .err = err, .line = 1, .row_done = true };
	struct source *src;
	char buf[1 << 16];
	ssize_t n = 0;

	r.row.line = 1;
	r.row.cells = xcalloc(r.max_cols, sizeof(*r.row.cells));
	r.row.lens = xcalloc(r.max_cols, sizeof(*r.row.lens));
	/* a regular file or standard input: a FIFO named by a path is refused, not waited on */
	if (!(src = strcmp(path, "-") ? source_open_regular(path, err) : source_open(path, err))) {
		free(r.row.cells);
		free(r.row.lens);
		return -1;
	}
	csv_init(&p, CSV_STRICT | CSV_APPEND_NULL | CSV_STRICT_FINI);
	while (!r.stop && (n = source_read(src, buf, sizeof(buf))) > 0)
		feed(&r, &p, buf, (size_t)n);
	if (n < 0 && !r.stop) {
		strbuf_addf(err, "%s: %s", path, source_error(src));
		r.stop = -1;
	}
	if (!r.stop && csv_fini(&p, on_field, on_row, &r)) {
		/* strict: the file ends inside a quoted field (libcsv gives no error code for it) */
		strbuf_addf(err, "%s:%llu: malformed CSV: a quoted field of the row that starts here is not closed "
			    "before the end of the file", path, (unsigned long long)r.row.line);
		r.stop = -1;
	}
	csv_free(&p);
	clear_cells(&r);
	free(r.row.cells);
	free(r.row.lens);
	source_close(src);
	return r.stop;
}
