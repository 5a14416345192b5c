#include "recscan.h"
#include "../core/utf8.h"
#include "json.h"
#include "../core/swar.h"

#define RS_STR_(x) #x
#define RS_STR(x) RS_STR_(x)

/* one limit for the dump reader and the record readers: what probe-flatten writes reads back */
_Static_assert(RS_MAX_DEPTH == JSON_MAX_DEPTH_DEFAULT, "the record readers nest as deep as the dump reader");
const char rs_depth_error[] = "nesting deeper than " RS_STR(RS_MAX_DEPTH) " levels";

static int fail(struct rs_iter *it, const char *p, const char *what)
{
	if (!it->error) {
		it->error = what;
		it->error_at = (size_t)(p - it->base);
	}
	return -1;
}

static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

/* End of the string starting at the quote p (just past its closing quote), or NULL. */
static const char *string_end(const char *p, const char *end)
{
	p++;
	for (;;) {
		p = swar_find_quote_or_backslash(p, end);
		if (p >= end)
			return NULL;
		if (*p == '"')
			return p + 1;
		p += 2; /* a backslash escapes the next byte */
	}
}

/* A string, number or literal at p (before end): its span and end, or NULL with *what saying why. */
static inline ALWAYS_INLINE const char *scalar_end(const char *p, const char *end, struct span *v,
								    const char **what)
{
	const char *start = p;
	if (*p == '"') {
		p = string_end(p, end);
		if (!p)
			return *what = "unterminated string", NULL;
		*v = (struct span){ start, (size_t)(p - start), SPAN_STRING };
		return p;
	}
	p = swar_word_end(p, end, 0);
	if (p == start)
		return *what = "unexpected character", NULL;
	{
		size_t n = (size_t)(p - start);
		enum span_kind k = SPAN_NUMBER;
		if (n == 4 && !memcmp(start, "null", 4))
			k = SPAN_NULL;
		else if (n == 4 && !memcmp(start, "true", 4))
			k = SPAN_TRUE;
		else if (n == 5 && !memcmp(start, "false", 5))
			k = SPAN_FALSE;
		else if (!(start[0] == '-' || (start[0] >= '0' && start[0] <= '9')))
			return *what = "invalid literal", NULL;
		*v = (struct span){ start, n, k };
	}
	return p;
}

const char *rs_scalar(const char *p, const char *end, struct span *v)
{
	const char *what;
	if (p >= end || *p == '{' || *p == '[')
		return NULL;
	return scalar_end(p, end, v, &what);
}

/* Skip one value at p; sets its span.  Returns the end or NULL (error recorded). */
static const char *skip_value(struct rs_iter *it, const char *p, struct span *v)
{
	const char *end = it->end, *start = p;
	const char *what = NULL;
	if (p >= end)
		return fail(it, p, "a value is missing"), NULL;
	switch (*p) {
	case '{':
	case '[': {
		/* nested: count brackets, skipping strings */
		int depth = 0;
		char open = *p;
		/* most often nothing nests and no string is inside (a shape): the first bracket closes it */
		const char *first = swar_find_bracket_or_quote(p + 1, end);
		if (first < end && (*first == ']' || *first == '}')) {
			*v = (struct span){ start, (size_t)(first + 1 - start), open == '{' ? SPAN_OBJECT : SPAN_ARRAY };
			return first + 1;
		}
		while (p < end) {
			char c = *p;
			if (c == '"') {
				const char *q = string_end(p, end);
				if (!q)
					return fail(it, p, "unterminated string"), NULL;
				p = q;
				continue;
			}
			if (c == '{' || c == '[') {
				/* the value is a member or an item of something: one level more than its own */
				if (++depth >= RS_MAX_DEPTH)
					return fail(it, p, rs_depth_error), NULL;
			} else if (c == '}' || c == ']') {
				if (--depth == 0) {
					p++;
					*v = (struct span){ start, (size_t)(p - start),
							    open == '{' ? SPAN_OBJECT : SPAN_ARRAY };
					return p;
				}
			}
			p++;
		}
		return fail(it, start, "unclosed array or object"), NULL;
	}
	default:
		p = scalar_end(p, end, v, &what);
		if (!p)
			return fail(it, start, what), NULL;
		return p;
	}
}

static int begin(struct rs_iter *it, const char *s, size_t n, char open, char close)
{
	const char *end = s + n;
	const char *p = skip_blank(s, end);
	*it = (struct rs_iter){ .base = s, .end = end, .first = true };
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r' || end[-1] == '\n'))
		end--;
	it->end = end;
	if (p >= end || *p != open)
		return fail(it, p, open == '{' ? "not a JSON object" : "not a JSON array");
	if (end[-1] != close)
		return fail(it, end - 1, open == '{' ? "the object does not end with '}'"
						      : "the array does not end with ']'");
	it->p = p + 1;
	it->end = end - 1; /* members lie before the closing bracket */
	return 0;
}

int rs_begin(struct rs_iter *it, const char *s, size_t n)
{
	return begin(it, s, n, '{', '}');
}

int rs_begin_array(struct rs_iter *it, const char *s, size_t n)
{
	return begin(it, s, n, '[', ']');
}

int rs_next_item(struct rs_iter *it, struct span *value)
{
	const char *p = skip_blank(it->p, it->end);
	if (it->error)
		return -1;
	if (p >= it->end)
		return 0;
	if (!it->first) {
		if (*p != ',')
			return fail(it, p, "expected ',' between items");
		p = skip_blank(p + 1, it->end);
	}
	it->first = false;
	p = skip_value(it, p, value);
	if (!p)
		return -1;
	it->p = p;
	return 1;
}

int rs_key(struct rs_iter *it, struct span *key)
{
	const char *p = skip_blank(it->p, it->end);
	if (it->error)
		return -1;
	if (it->open_ended && p < it->end && *p == '}' && it->first) {
		it->p = p + 1;
		return 0;
	}
	if (p >= it->end) {
		if (it->open_ended)
			return fail(it, p, "unclosed object");
		return 0;
	}
	if (!it->first) {
		if (it->open_ended && *p == '}') {
			it->p = p + 1;
			return 0;
		}
		if (*p != ',')
			return fail(it, p, "expected ',' between members");
		p = skip_blank(p + 1, it->end);
	}
	it->first = false;
	if (p >= it->end || *p != '"')
		return fail(it, p, "expected a string key");
	p = skip_value(it, p, key);
	if (!p)
		return -1;
	p = skip_blank(p, it->end);
	if (p >= it->end || *p != ':')
		return fail(it, p, "expected ':' after a key");
	it->p = skip_blank(p + 1, it->end);
	return 1;
}

int rs_value(struct rs_iter *it, struct span *value)
{
	const char *p = skip_value(it, it->p, value);
	if (!p)
		return -1;
	it->p = p;
	return 1;
}

void rs_resume(struct rs_iter *it, const char *after)
{
	it->p = after;
}

int rs_next(struct rs_iter *it, struct span *key, struct span *value)
{
	int r = rs_key(it, key);
	if (r <= 0)
		return r;
	return rs_value(it, value);
}

int rs_begin_at(struct rs_iter *it, const char *p, const char *bound)
{
	*it = (struct rs_iter){ .base = p, .end = bound, .first = true, .open_ended = true };
	p = skip_blank(p, bound);
	if (p >= bound || *p != '{')
		return fail(it, p, "not a JSON object");
	it->p = p + 1;
	return 0;
}

bool span_key_is(const struct span *key, const char *w, size_t wlen)
{
	return key->n == wlen + 2 && !memcmp(key->p + 1, w, wlen);
}

bool span_plain_string(const struct span *s, const char **p, size_t *n)
{
	if (s->kind != SPAN_STRING || memchr(s->p + 1, '\\', s->n - 2))
		return false;
	*p = s->p + 1;
	*n = s->n - 2;
	return true;
}

bool span_str_eq(const struct span *s, const char *t, size_t tlen)
{
	return s->kind == SPAN_STRING && s->n == tlen + 2 && !memcmp(s->p + 1, t, tlen);
}

int span_string(const struct span *s, struct strbuf *out)
{
	const char *p, *end;
	if (s->kind != SPAN_STRING)
		return -1;
	p = s->p + 1;
	end = s->p + s->n - 1;
	while (p < end) {
		const char *bs = memchr(p, '\\', (size_t)(end - p));
		if (!bs) {
			if (!utf8_valid(p, (size_t)(end - p)))
				return -1;
			strbuf_add(out, p, (size_t)(end - p));
			break;
		}
		if (!utf8_valid(p, (size_t)(bs - p)))
			return -1;
		strbuf_add(out, p, (size_t)(bs - p));
		if (bs + 1 >= end)
			return -1;
		switch (bs[1]) {
		case 'u': {
			uint32_t cp;
			size_t used;
			enum json_u got = json_unicode_escape(bs, end, &cp, &used);
			if (got == JSON_U_MALFORMED)
				return -1;
			/* a lone surrogate (which no probe tool writes) reads as U+FFFD, not as the end of the string */
			utf8_put(out, got == JSON_U_LONE_SURROGATE ? 0xFFFD : cp);
			p = bs + used;
			continue;
		}
		default: {
			int c = json_escape_char(bs[1]);
			if (c < 0)
				return -1;
			strbuf_addch(out, (char)c);
		}
		}
		p = bs + 2;
	}
	return 0;
}

bool span_int(const struct span *s, int64_t *out)
{
	int64_t v = 0;
	size_t i = 0;
	bool neg = false;
	if (s->kind != SPAN_NUMBER || !s->n)
		return false;
	if (s->p[0] == '-') {
		neg = true;
		i = 1;
	}
	if (i >= s->n)
		return false;
	for (; i < s->n; i++) {
		char c = s->p[i];
		if (c < '0' || c > '9' || v > (INT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (c - '0');
	}
	*out = neg ? -v : v;
	return true;
}

bool span_same(const struct span *a, const struct span *b)
{
	return a->kind == b->kind && a->n == b->n && (!a->n || !memcmp(a->p, b->p, a->n));
}

int rs_fields(struct rs_iter *it, const char *const *keys, size_t nkeys, struct span *values)
{
	struct span k, v;
	int r;
	for (size_t i = 0; i < nkeys; i++)
		values[i] = (struct span){ NULL, 0, SPAN_NONE };
	while ((r = rs_next(it, &k, &v)) == 1) {
		for (size_t i = 0; i < nkeys; i++) {
			size_t len = strlen(keys[i]);
			if (span_key_is(&k, keys[i], len)) {
				values[i] = v;
				break;
			}
		}
	}
	return r;
}

bool span_string_valid(const struct span *s)
{
	struct strbuf sb;
	bool valid;
	if (s->kind != SPAN_STRING)
		return false;
	if (s->n < 2 || swar_find_backslash_or_high(s->p + 1, s->p + s->n - 1) == s->p + s->n - 1)
		return true;
	strbuf_init(&sb, s->n);
	valid = span_string(s, &sb) == 0;
	strbuf_release(&sb);
	return valid;
}
