#include "lines.h"
#include "errorrec.h"
#include "output.h"
#include "../core/msg.h"
#include "../json/recscan.h"
#include "../core/xalloc.h"

#include <sys/stat.h>

#define LINES_DEFAULT_CAP (128 << 10)

struct line_reader {
	struct source *src;
	char *buf;
	size_t cap, start, end;
	bool eof;
	size_t max;        /* the longest line accepted, in bytes */
	uint64_t lineno;   /* of the last line handed out, from 1 */
	struct strbuf err; /* "NAME:LINE: what" after an error */
	bool pipe;         /* standard input, a pipe: the producer runs beside this tool */
};

static bool all_blank(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\n')
			return false;
	return true;
}

int line_reader_limit(size_t *max, struct strbuf *err)
{
	const char *env = getenv("PROBE_MAX_LINE"), *p;
	size_t v = 0, unit = 1;
	*max = LINE_MAX_DEFAULT;
	if (!env || !*env)
		return 0;
	for (p = env; *p >= '0' && *p <= '9'; p++) {
		if (v > (SIZE_MAX - 9) / 10)
			goto too_large;
		v = v * 10 + (size_t)(*p - '0');
	}
	switch (*p) {
	case 'K': case 'k': unit = (size_t)1 << 10; p++; break;
	case 'M': case 'm': unit = (size_t)1 << 20; p++; break;
	case 'G': case 'g': unit = (size_t)1 << 30; p++; break;
	default: break;
	}
	if (p == env || *p || !v) {
		strbuf_addf(err, "PROBE_MAX_LINE=%s: not a size in bytes (a whole number above 0, "
			    "optionally followed by K, M or G)", env);
		return -1;
	}
	/* the buffer holds the line, a CR and its newline */
	if (v > (SIZE_MAX - 2) / unit)
		goto too_large;
	*max = v * unit;
	return 0;
too_large:
	strbuf_addf(err, "PROBE_MAX_LINE=%s: too large", env);
	return -1;
}

struct line_reader *line_reader_open(const char *path, struct strbuf *err)
{
	struct line_reader *lr = xcalloc(1, sizeof(*lr));
	strbuf_init(&lr->err, 0);
	if (line_reader_limit(&lr->max, err) < 0 || !(lr->src = source_open(path, err))) {
		line_reader_close(lr);
		return NULL;
	}
	lr->cap = LINES_DEFAULT_CAP < lr->max + 2 ? LINES_DEFAULT_CAP : lr->max + 2;
	lr->buf = xmalloc(lr->cap);
	if (!strcmp(path, "-")) {
		struct stat st;
		lr->pipe = !fstat(0, &st) && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
	}
	return lr;
}

void line_reader_close(struct line_reader *lr)
{
	if (!lr)
		return;
	source_close(lr->src);
	free(lr->buf);
	strbuf_release(&lr->err);
	free(lr);
}

const char *line_reader_error(const struct line_reader *lr)
{
	return lr->err.buf;
}

const char *line_reader_name(const struct line_reader *lr)
{
	return lr->src ? source_name(lr->src) : "?";
}

bool line_reader_is_pipe(const struct line_reader *lr)
{
	return source_is_pipe(lr->src);
}

/* Record an error about the current line: "NAME:LINE: what" (line_reader_error()).  Returns -1. */
static int PRINTF_LIKE(2, 3) line_reader_fail(struct line_reader *lr, const char *fmt, ...)
{
	va_list ap;
	strbuf_reset(&lr->err);
	strbuf_addf(&lr->err, "%s:%llu: ", line_reader_name(lr), (unsigned long long)lr->lineno);
	va_start(ap, fmt);
	strbuf_vaddf(&lr->err, fmt, ap);
	va_end(ap);
	return -1;
}

static int too_long(struct line_reader *lr)
{
	return line_reader_fail(lr, "a record longer than %zu bytes (PROBE_MAX_LINE raises the limit)", lr->max);
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
		/* room for a line of max bytes, a CR and its newline, and never more */
		lr->cap = lr->cap < (lr->max + 2) / 2 ? st_mult(lr->cap, 2) : lr->max + 2;
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
			if (n > lr->max)
				return too_long(lr);
			if (all_blank(s, n)) {
				scanned = lr->start;
				continue; /* blank line */
			}
			{
				struct strbuf msg = STRBUF_INIT;
				if (errorrec_read(s, n, &msg)) {
					/* from a pipe its producer has said it: this tool stops without a word */
					msg_upstream_failed(msg.buf, lr->pipe);
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
		if (scanned >= lr->max + 2) {
			/* no newline in max + 2 bytes: the line is longer than max even without a CR */
			lr->lineno++;
			return too_long(lr);
		}
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

int line_reader_feed(struct line_reader *lr, const struct line_sink *sink, struct strbuf *out, struct strbuf *err)
{
	const char *line;
	size_t len;
	int r, got = 0;
	while ((r = line_reader_next(lr, &line, &len)) == 1) {
		if ((got = sink->add(sink->ctx, line, len, out, err)) < 0)
			break;
		if (out)
			output_flush_strbuf(out, 1 << 16);
	}
	if (r < 0) {
		strbuf_addstr(err, lr->err.buf);
		return -1;
	}
	if (got >= 0 && sink->finish)
		got = sink->finish(sink->ctx, out, err);
	if (got >= 0)
		return 0;
	if (got == PROBE_ERR_LINE)
		msg_place(err, "%s:%llu", line_reader_name(lr), (unsigned long long)lr->lineno);
	else if (got == PROBE_ERR_INPUT)
		msg_place(err, "%s", line_reader_name(lr));
	return -1;
}
