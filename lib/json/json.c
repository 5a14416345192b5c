#include "json.h"
#include "../core/utf8.h"
#include "../core/swar.h"

#include <pthread.h>
#include "../core/xalloc.h"

#define JSON_DEFAULT_CAP (256 * 1024)

enum state {
	ST_TOP,      /* a top-level value (or, in multi mode, the end) */
	ST_TOP_DONE, /* after the single top-level value: only the end */
	ST_VALUE,    /* a value inside an array, or after a key's ':' */
	ST_KEY,      /* a key (or '}' right after '{') */
	ST_COLON,    /* the ':' after a key */
	ST_COMMA,    /* ',' or the closing bracket after a member */
};

/* Byte classes inside strings: 0 plain, 1 quote, 2 backslash, 3 control, 4 non-ASCII. */
static unsigned char str_class[256];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void init_tables(void)
{
	int c;
	for (c = 0; c < 256; c++)
		str_class[c] = c == '"' ? 1 : c == '\\' ? 2 : c < 0x20 ? 3 : c >= 0x80 ? 4 : 0;
}

void json_reader_init(struct json_reader *r, struct source *src, unsigned flags, size_t cap)
{
	pthread_once(&tables_once, init_tables);
	memset(r, 0, sizeof(*r));
	r->src = src;
	r->flags = flags;
	r->cap = cap ? cap : JSON_DEFAULT_CAP;
	if (r->cap < 8)
		r->cap = 8;
	r->buf = xmalloc(r->cap);
	r->line = 1;
	r->max_depth = JSON_MAX_DEPTH_DEFAULT;
	r->state = ST_TOP;
	strbuf_init(&r->scratch, 0);
	strbuf_init(&r->err, 0);
}

void json_reader_release(struct json_reader *r)
{
	free(r->buf);
	free(r->stack);
	strbuf_release(&r->scratch);
	strbuf_release(&r->err);
	r->buf = NULL;
	r->stack = NULL;
}

const char *json_reader_error(const struct json_reader *r)
{
	return r->err.buf;
}

const char *json_reader_name(const struct json_reader *r)
{
	return source_name(r->src);
}

const char *json_type_name(enum json_type t)
{
	switch (t) {
	case JSON_EOF: return "end of input";
	case JSON_ERROR: return "error";
	case JSON_OBJECT_BEGIN: return "object";
	case JSON_OBJECT_END: return "'}'";
	case JSON_ARRAY_BEGIN: return "array";
	case JSON_ARRAY_END: return "']'";
	case JSON_KEY: return "key";
	case JSON_STRING: return "string";
	case JSON_NUMBER: return "number";
	case JSON_TRUE: return "true";
	case JSON_FALSE: return "false";
	case JSON_NULL: return "null";
	}
	return "?";
}

static uint64_t col_of(const struct json_reader *r, uint64_t offset)
{
	return offset - r->line_start + 1;
}

static void vfail(struct json_reader *r, uint64_t line, uint64_t col, const char *fmt, va_list ap)
{
	if (r->failed)
		return;
	r->failed = true;
	strbuf_reset(&r->err);
	strbuf_addf(&r->err, "%s:%llu:%llu: ", source_name(r->src),
		    (unsigned long long)line, (unsigned long long)col);
	strbuf_vaddf(&r->err, fmt, ap);
}

/* An error at buf[i]. */
static enum json_type PRINTF_LIKE(3, 4) fail(struct json_reader *r, size_t i, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(r, r->line, col_of(r, r->base + i), fmt, ap);
	va_end(ap);
	return JSON_ERROR;
}

int json_reader_fail_at(struct json_reader *r, const struct json_token *tok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(r, tok->line, tok->col, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * Read more bytes, keeping buf[keep..end).  Indexes the caller holds must
 * be lowered by the returned shift (*shift).  Returns 1 when bytes were
 * added, 0 at the end of the input, -1 on a read error (recorded).
 */
static int refill(struct json_reader *r, size_t keep, size_t *shift)
{
	ssize_t n;
	*shift = 0;
	if (r->eof)
		return 0;
	if (keep > 0) {
		memmove(r->buf, r->buf + keep, r->end - keep);
		r->base += keep;
		r->end -= keep;
		r->pos -= keep;
		*shift = keep;
	}
	if (r->end == r->cap) {
		if (r->cap >= JSON_MAX_TOKEN) {
			fail(r, r->pos, "token longer than %zu bytes", JSON_MAX_TOKEN);
			return -1;
		}
		r->cap = st_mult(r->cap, 2);
		r->buf = xrealloc(r->buf, r->cap);
	}
	n = source_read(r->src, r->buf + r->end, r->cap - r->end);
	if (n < 0) {
		fail(r, r->end, "%s", source_error(r->src));
		return -1;
	}
	if (n == 0) {
		r->eof = true;
		return 0;
	}
	r->end += (size_t)n;
	return 1;
}

/*
 * Skip whitespace, counting lines.  Returns the next byte (left in place)
 * or -1 at the end of input, -2 on error.
 */
static int peek_nonspace(struct json_reader *r)
{
	for (;;) {
		char *b = r->buf;
		size_t i = r->pos, end = r->end;
		while (i < end) {
			unsigned char c = (unsigned char)b[i];
			if (c == ' ' || c == '\t' || c == '\r') {
				i++;
			} else if (c == '\n') {
				i++;
				r->line++;
				r->line_start = r->base + i;
				/* indentation: the spaces after a newline, eight at a time */
				while (end - i >= 8) {
					uint64_t m = ~swar_eq(swar_load(b + i), ' ') & SWAR_HIGHS;
					if (m) {
						i += swar_first(m);
						break;
					}
					i += 8;
				}
			} else {
				r->pos = i;
				return c;
			}
		}
		r->pos = i;
		size_t shift;
		int got = refill(r, r->pos, &shift);
		if (got < 0)
			return -2;
		if (got == 0)
			return -1;
	}
}

static void start_token(struct json_reader *r, struct json_token *tok, enum json_type type)
{
	tok->type = type;
	tok->nonfinite = false;
	tok->text = NULL;
	tok->len = 0;
	tok->offset = r->base + r->pos;
	tok->line = r->line;
	tok->col = col_of(r, tok->offset);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int json_escape_char(char e)
{
	switch (e) {
	case '"': return '"';
	case '\\': return '\\';
	case '/': return '/';
	case 'b': return '\b';
	case 'f': return '\f';
	case 'n': return '\n';
	case 'r': return '\r';
	case 't': return '\t';
	default: return -1;
	}
}

enum json_u json_unicode_escape(const char *p, const char *end, uint32_t *cp, size_t *used)
{
	uint32_t v = 0, lo = 0;
	if (end - p < 6)
		return JSON_U_MALFORMED;
	for (int k = 2; k < 6; k++) {
		int h = hexval((unsigned char)p[k]);
		if (h < 0)
			return JSON_U_MALFORMED;
		v = v << 4 | (uint32_t)h;
	}
	*cp = v;
	*used = 6;
	if (v >= 0xDC00 && v <= 0xDFFF)
		return JSON_U_LONE_SURROGATE;
	if (v < 0xD800 || v > 0xDBFF)
		return JSON_U_PAIRED_OR_PLAIN;
	if (end - p < 12 || p[6] != '\\' || p[7] != 'u')
		return JSON_U_LONE_SURROGATE;
	for (int k = 8; k < 12; k++) {
		int h = hexval((unsigned char)p[k]);
		if (h < 0)
			return JSON_U_LONE_SURROGATE;
		lo = lo << 4 | (uint32_t)h;
	}
	if (lo < 0xDC00 || lo > 0xDFFF)
		return JSON_U_LONE_SURROGATE;
	*cp = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
	*used = 12;
	return JSON_U_PAIRED_OR_PLAIN;
}

/*
 * Decode the escapes of a string body already checked by scan_string();
 * only surrogate pairing is left to check.  Returns 0 or -1 (recorded).
 */
static int decode_escapes(struct json_reader *r, size_t start, size_t stop)
{
	const char *b = r->buf;
	struct strbuf *out = &r->scratch;
	size_t i = start, run = start;
	strbuf_reset(out);
	while (i < stop) {
		if (b[i] != '\\') {
			i++;
			continue;
		}
		strbuf_add(out, b + run, i - run);
		char e = b[i + 1];
		switch (e) {
		case 'u': {
			uint32_t cp = 0;
			size_t used = 6;
			if (json_unicode_escape(b + i, b + stop, &cp, &used) != JSON_U_PAIRED_OR_PLAIN) {
				fail(r, i, "lone %s surrogate \\u%04X in string", cp >= 0xDC00 ? "low" : "high", (unsigned)cp);
				return -1;
			}
			utf8_put(out, cp);
			i += used - 2;
			break;
		}
		default: /* one of those json_escape_char() knows: scan_string() has checked */
			strbuf_addch(out, (char)json_escape_char(e));
		}
		i += 2;
		run = i;
	}
	strbuf_add(out, b + run, stop - run);
	return 0;
}

/* Index of the first byte of b[i..end) that is not plain string text (str_class 0), or end. */
static size_t plain_string_run(const unsigned char *b, size_t i, size_t end)
{
	const char *base = (const char *)b;
	return (size_t)(swar_plain_run(base + i, base + end) - base);
}

/* The string starting at buf[pos] (the opening quote). */
static enum json_type scan_string(struct json_reader *r, struct json_token *tok, enum json_type type)
{
	size_t q = r->pos; /* opening quote, kept in the buffer until done */
	size_t i = q + 1;
	bool escaped = false;
	start_token(r, tok, type);
	for (;;) {
		const unsigned char *b = (const unsigned char *)r->buf;
		size_t end = r->end;
		i = plain_string_run(b, i, end);
		size_t need = 1; /* bytes needed at i to decide */
		if (i < end) {
			unsigned char c = b[i];
			switch (str_class[c]) {
			case 1:
				goto done;
			case 2:
				need = 2;
				if (i + 1 < end) {
					unsigned char e = b[i + 1];
					if (e == 'u') {
						need = 6;
						if (i + 6 <= end) {
							for (int k = 2; k < 6; k++)
								if (hexval(b[i + k]) < 0)
									return fail(r, i, "invalid \\u escape in string");
							escaped = true;
							i += 6;
							continue;
						}
					} else if (json_escape_char((char)e) >= 0) {
						escaped = true;
						i += 2;
						continue;
					} else {
						return fail(r, i, "invalid escape '\\%c' in string",
							    e >= 0x20 && e < 0x7f ? e : '?');
					}
				}
				break;
			case 3:
				return fail(r, i, "control character 0x%02x in string", c);
			case 4: {
				int n = utf8_sequence(b + i, end - i);
				if (n > 0) {
					i += (size_t)n;
					continue;
				}
				if (n == 0)
					return fail(r, i, "invalid UTF-8 in string");
				need = 4;
				break;
			}
			}
		}
		/* need more bytes at i */
		size_t shift;
		r->pos = q;
		int got = refill(r, q, &shift);
		q -= shift;
		i -= shift;
		if (got < 0)
			return JSON_ERROR;
		if (got == 0) {
			if (i < r->end && str_class[(unsigned char)r->buf[i]] == 4)
				return fail(r, i, "invalid UTF-8 in string (cut short)");
			(void)need;
			return fail(r, i, "unterminated string");
		}
	}
done:
	r->pos = i + 1;
	if (escaped) {
		if (decode_escapes(r, q + 1, i) < 0)
			return JSON_ERROR;
		tok->text = r->scratch.buf;
		tok->len = r->scratch.len;
	} else {
		tok->text = r->buf + q + 1;
		tok->len = i - (q + 1);
	}
	return type;
}

static bool is_json_number(const char *s, size_t n)
{
	size_t i = 0;
	if (i < n && s[i] == '-')
		i++;
	if (i >= n)
		return false;
	if (s[i] == '0') {
		i++;
	} else if (s[i] >= '1' && s[i] <= '9') {
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	} else {
		return false;
	}
	if (i < n && s[i] == '.') {
		i++;
		if (i >= n || s[i] < '0' || s[i] > '9')
			return false;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		if (i >= n || s[i] < '0' || s[i] > '9')
			return false;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	}
	return i == n;
}

static bool word_is(const char *s, size_t n, const char *w)
{
	return strlen(w) == n && !memcmp(s, w, n);
}

/* A number or a literal starting at buf[pos]. */
static enum json_type scan_word(struct json_reader *r, struct json_token *tok)
{
	size_t s = r->pos, i = s;
	start_token(r, tok, JSON_NUMBER);
	for (;;) {
		i = (size_t)(swar_word_end(r->buf + i, r->buf + r->end, 1) - r->buf);
		if (i < r->end)
			break;
		size_t shift;
		r->pos = s;
		int got = refill(r, s, &shift);
		s -= shift;
		i -= shift;
		if (got < 0)
			return JSON_ERROR;
		if (got == 0)
			break;
	}
	const char *w = r->buf + s;
	size_t n = i - s;
	r->pos = i;
	if (word_is(w, n, "true"))
		tok->type = JSON_TRUE;
	else if (word_is(w, n, "false"))
		tok->type = JSON_FALSE;
	else if (word_is(w, n, "null"))
		tok->type = JSON_NULL;
	else if (word_is(w, n, "NaN") || word_is(w, n, "Infinity") || word_is(w, n, "-Infinity"))
		tok->nonfinite = true;
	else if (!is_json_number(w, n)) {
		r->pos = s;
		if (n == 0)
			return fail(r, s, "unexpected character '%c'", r->buf[s]);
		return fail(r, s, "invalid literal '%.*s'", n > 40 ? 40 : (int)n, w);
	}
	if (tok->type == JSON_NUMBER) {
		tok->text = w;
		tok->len = n;
	}
	return tok->type;
}

static void push(struct json_reader *r, unsigned char kind)
{
	ALLOC_GROW(r->stack, r->depth + 1, r->stack_alloc);
	r->stack[r->depth++] = kind;
}

static void after_value(struct json_reader *r)
{
	if (r->depth == 0) {
		r->values++;
		r->state = (r->flags & JSON_MULTI) ? ST_TOP : ST_TOP_DONE;
	} else {
		r->state = ST_COMMA;
	}
}

static enum json_type scan_value(struct json_reader *r, struct json_token *tok, int c)
{
	enum json_type t;
	switch (c) {
	case '{':
	case '[':
		if (r->depth >= r->max_depth)
			return fail(r, r->pos, "nesting deeper than %zu levels", r->max_depth);
		start_token(r, tok, c == '{' ? JSON_OBJECT_BEGIN : JSON_ARRAY_BEGIN);
		r->pos++;
		push(r, (unsigned char)c);
		r->state = c == '{' ? ST_KEY : ST_VALUE;
		r->first = true;
		return tok->type;
	case '"':
		t = scan_string(r, tok, JSON_STRING);
		break;
	default:
		if (c == '-' || (c >= '0' && c <= '9') || c == 'N' || c == 'I' || c == 't' ||
		    c == 'f' || c == 'n') {
			t = scan_word(r, tok);
			break;
		}
		if (c == 0xEF && r->base + r->pos == 0)
			return fail(r, r->pos, "unexpected byte order mark (BOM)");
		if (c >= 0x20 && c < 0x7f)
			return fail(r, r->pos, "unexpected character '%c'", c);
		return fail(r, r->pos, "unexpected byte 0x%02x", c);
	}
	if (t != JSON_ERROR)
		after_value(r);
	return t;
}

static enum json_type close_container(struct json_reader *r, struct json_token *tok, int c)
{
	start_token(r, tok, c == '}' ? JSON_OBJECT_END : JSON_ARRAY_END);
	r->pos++;
	r->depth--;
	r->first = false;
	after_value(r);
	return tok->type;
}

static enum json_type end_of_input(struct json_reader *r, struct json_token *tok)
{
	start_token(r, tok, JSON_EOF);
	if (r->depth > 0)
		return fail(r, r->pos, "unexpected end of input inside %s",
			    r->stack[r->depth - 1] == '{' ? "an object" : "an array");
	if (r->state == ST_TOP && !(r->flags & JSON_MULTI) && r->values == 0)
		return fail(r, r->pos, "empty input: no JSON value");
	if (r->state != ST_TOP && r->state != ST_TOP_DONE)
		return fail(r, r->pos, "unexpected end of input");
	return JSON_EOF;
}

enum json_type json_reader_next(struct json_reader *r, struct json_token *tok)
{
	start_token(r, tok, JSON_ERROR); /* what a failure below leaves */
	for (;;) {
		if (r->failed) {
			start_token(r, tok, JSON_ERROR);
			return JSON_ERROR;
		}
		int c = peek_nonspace(r);
		if (c == -2)
			continue; /* failed: report above */
		if (c == -1)
			return end_of_input(r, tok);
		unsigned char top = r->depth ? r->stack[r->depth - 1] : 0;
		switch (r->state) {
		case ST_TOP_DONE:
			return fail(r, r->pos, "unexpected data after the JSON value");
		case ST_TOP:
			return scan_value(r, tok, c);
		case ST_VALUE:
			if (c == ']' && r->first)
				return close_container(r, tok, c);
			r->first = false;
			return scan_value(r, tok, c);
		case ST_KEY:
			if (c == '}' && r->first)
				return close_container(r, tok, c);
			r->first = false;
			if (c != '"')
				return fail(r, r->pos, "expected a string key");
			if (scan_string(r, tok, JSON_KEY) == JSON_ERROR)
				return JSON_ERROR;
			r->state = ST_COLON;
			return JSON_KEY;
		case ST_COLON:
			if (c != ':')
				return fail(r, r->pos, "expected ':' after the key");
			r->pos++;
			r->state = ST_VALUE;
			continue;
		case ST_COMMA:
			if (c == ',') {
				r->pos++;
				r->state = top == '{' ? ST_KEY : ST_VALUE;
				continue;
			}
			if ((c == '}' && top == '{') || (c == ']' && top == '['))
				return close_container(r, tok, c);
			return fail(r, r->pos, top == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
		}
	}
}

int json_reader_skip(struct json_reader *r)
{
	struct json_token tok;
	size_t target = r->depth - 1;
	while (r->depth > target) {
		enum json_type t = json_reader_next(r, &tok);
		if (t == JSON_ERROR)
			return -1;
		if (t == JSON_EOF)
			return -1; /* cannot happen: EOF inside a container is an error */
	}
	return 0;
}
