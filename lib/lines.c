#include "lines.h"
#include "recscan.h"
#include "xalloc.h"

#define LINES_DEFAULT_CAP (128 << 10)

static bool all_blank(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\n')
			return false;
	return true;
}

int line_reader_open(struct line_reader *lr, const char *path)
{
	memset(lr, 0, sizeof(*lr));
	strbuf_init(&lr->err, 0);
	lr->src = source_open(path, &lr->err);
	if (!lr->src)
		return -1;
	lr->cap = LINES_DEFAULT_CAP;
	lr->buf = xmalloc(lr->cap);
	return 0;
}

void line_reader_close(struct line_reader *lr)
{
	source_close(lr->src);
	free(lr->buf);
	strbuf_release(&lr->err);
	lr->src = NULL;
	lr->buf = NULL;
}

const char *line_reader_name(const struct line_reader *lr)
{
	return lr->src ? source_name(lr->src) : "?";
}

int line_reader_fail(struct line_reader *lr, const char *fmt, ...)
{
	va_list ap;
	strbuf_reset(&lr->err);
	strbuf_addf(&lr->err, "%s:%llu: ", line_reader_name(lr), (unsigned long long)lr->lineno);
	va_start(ap, fmt);
	strbuf_vaddf(&lr->err, fmt, ap);
	va_end(ap);
	return -1;
}

/* Read more bytes after keeping buf[start..end). 1: more, 0: end, -1: error. */
static int fill(struct line_reader *lr)
{
	ssize_t n;
	if (lr->eof)
		return 0;
	if (lr->start > 0) {
		memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
		lr->end -= lr->start;
		lr->start = 0;
	}
	if (lr->end == lr->cap) {
		lr->cap = st_mult(lr->cap, 2);
		lr->buf = xrealloc(lr->buf, lr->cap);
	}
	n = source_read(lr->src, lr->buf + lr->end, lr->cap - lr->end);
	if (n < 0) {
		lr->lineno++;
		return line_reader_fail(lr, "%s", source_error(lr->src));
	}
	if (n == 0) {
		lr->eof = true;
		return 0;
	}
	lr->end += (size_t)n;
	return 1;
}

int line_reader_next(struct line_reader *lr, const char **line, size_t *len)
{
	size_t scanned = lr->start;
	*line = NULL;
	*len = 0;
	for (;;) {
		char *nl = memchr(lr->buf + scanned, '\n', lr->end - scanned);
		if (nl) {
			char *s = lr->buf + lr->start;
			size_t n = (size_t)(nl - s);
			lr->start = (size_t)(nl - lr->buf) + 1;
			lr->lineno++;
			if (n && s[n - 1] == '\r')
				n--;
			if (all_blank(s, n)) {
				scanned = lr->start;
				continue; /* blank line */
			}
			{
				struct strbuf msg = STRBUF_INIT;
				if (record_is_error(s, n, &msg)) {
					line_reader_fail(lr, "the producer of this input failed: %s", msg.buf);
					strbuf_release(&msg);
					return -1;
				}
			}
			*line = s;
			*len = n;
			return 1;
		}
		scanned = lr->end - lr->start; /* relative to start, before fill moves it */
		{
			int got = fill(lr);
			if (got < 0)
				return -1;
			if (got == 0) {
				if (!all_blank(lr->buf + lr->start, lr->end - lr->start)) {
					lr->lineno++;
					return line_reader_fail(lr, "the last record is cut short (no newline at its end)");
				}
				return 0;
			}
		}
		scanned += lr->start;
	}
}

bool record_is_error(const char *line, size_t len, struct strbuf *msg)
{
	struct rs_iter it;
	struct span k, v;
	static const char prefix[] = "{\"error\":";
	if (len < sizeof(prefix) - 1 || memcmp(line, prefix, sizeof(prefix) - 1))
		return false;
	if (rs_begin(&it, line, len) < 0 || rs_next(&it, &k, &v) != 1 || !span_key_is(&k, "error", 5) ||
	    v.kind != SPAN_STRING)
		return false;
	strbuf_reset(msg);
	if (span_string(&v, msg) < 0)
		strbuf_addstr(msg, "(unreadable message)");
	return true;
}
