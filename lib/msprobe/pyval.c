#include "pyval.h"
#include "../core/utf8.h"
#include "pyfmt.h"
#include "../core/xalloc.h"

#include <math.h>

static struct pyval *new_val(struct arena *a, enum pykind kind)
{
	struct pyval *v = arena_alloc(a, sizeof(*v));
	memset(v, 0, sizeof(*v));
	v->kind = kind;
	return v;
}

static bool is_int_literal(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] == '.' || p[i] == 'e' || p[i] == 'E')
			return false;
	return n > 0;
}

static struct pyval *nonfinite(struct arena *a, const char *p, size_t n)
{
	struct pyval *v;
	double f;
	if (n == 3 && !memcmp(p, "nan", 3))
		f = NAN;
	else if (n == 3 && !memcmp(p, "inf", 3))
		f = INFINITY;
	else if (n == 4 && !memcmp(p, "-inf", 4))
		f = -INFINITY;
	else
		return NULL;
	v = new_val(a, PY_FLOAT);
	pyval_set_float(v, f);
	return v;
}

void pyval_set_float(struct pyval *v, double f)
{
	memset(v, 0, sizeof(*v));
	v->kind = PY_FLOAT;
	v->f = f;
	v->f_ready = true;
}

double pyval_float(const struct pyval *cv)
{
	struct pyval *v = (struct pyval *)cv; /* only the cache is written */
	if (!v->f_ready) {
		v->f = v->text ? pyfmt_strtod(v->text, NULL) : 0;
		v->f_ready = true;
	}
	return v->f;
}

/* Whether a number text could be out of the double range (so that it reads as inf). */
static bool may_overflow(const struct pyval *v)
{
	return v->text && (v->len > 20 || memchr(v->text, 'e', v->len) || memchr(v->text, 'E', v->len));
}

bool pyval_is_nan(const struct pyval *v)
{
	return v->kind == PY_FLOAT && v->f_ready && isnan(v->f);
}

bool pyval_is_inf(const struct pyval *v, int sign)
{
	double f;
	if (v->kind != PY_FLOAT || (!v->f_ready && !may_overflow(v)))
		return false;
	f = pyval_float(v);
	return isinf(f) && (sign == 0 || (sign > 0) == (f > 0));
}

/* A scalar span as a value (NULL when a string does not decode). */
static struct pyval *scalar_value(const struct span *s, unsigned flags, struct arena *a)
{
	struct pyval *v;
	switch (s->kind) {
	case SPAN_NULL:
		return new_val(a, PY_NONE);
	case SPAN_TRUE:
	case SPAN_FALSE:
		v = new_val(a, PY_BOOL);
		v->b = s->kind == SPAN_TRUE;
		return v;
	case SPAN_NUMBER:
		if (is_int_literal(s->p, s->n)) {
			v = new_val(a, PY_INT);
			/* Python prints an int without sign noise: "-0" is 0 */
			if (s->n == 2 && s->p[0] == '-' && s->p[1] == '0')
				v->text = arena_memdupz(a, "0", 1), v->len = 1;
			else
				v->text = arena_memdupz(a, s->p, s->n), v->len = s->n;
			return v;
		}
		v = new_val(a, PY_FLOAT);
		v->text = arena_memdupz(a, s->p, s->n);
		v->len = s->n;
		v->canonical = pyfmt_is_canonical(v->text, v->len);
		return v;
	case SPAN_STRING: {
		struct strbuf sb = STRBUF_INIT;
		if (span_string(s, &sb) < 0) {
			strbuf_release(&sb);
			return NULL;
		}
		if ((flags & PYV_NONFINITE_STRINGS) && (v = nonfinite(a, sb.buf, sb.len))) {
			strbuf_release(&sb);
			return v;
		}
		v = new_val(a, PY_STR);
		v->text = arena_memdupz(a, sb.buf, sb.len);
		v->len = sb.len;
		strbuf_release(&sb);
		return v;
	}
	default:
		return NULL;
	}
}

static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

/*
 * The arrays and objects being read, innermost last: one stack of the
 * items read so far for all of them (an object's keys and values
 * alternate), and where each one's items start.  Small values keep both
 * on the C stack.
 */
struct pv_open {
	size_t first; /* its first item on the item stack */
	char close;   /* ']' or '}' */
};

struct pv_stack {
	struct pyval **items;
	struct pv_open *open;
	size_t nitems, items_alloc, nopen, open_alloc;
	struct pyval *items_here[32];
	struct pv_open open_here[8];
};

/* v (of *alloc elements of size bytes, `here` while it is the stack's own) with twice the room. */
static void *grow(void *v, const void *here, size_t *alloc, size_t size)
{
	size_t n = st_mult(*alloc, 2);
	void *p;
	if (v == here) {
		p = xmalloc(st_mult(n, size));
		memcpy(p, v, *alloc * size);
	} else {
		p = xrealloc(v, st_mult(n, size));
	}
	*alloc = n;
	return p;
}

static void push_item(struct pv_stack *st, struct pyval *v)
{
	if (st->nitems == st->items_alloc)
		st->items = grow(st->items, st->items_here, &st->items_alloc, sizeof(*st->items));
	st->items[st->nitems++] = v;
}

static void push_open(struct pv_stack *st, char close)
{
	if (st->nopen == st->open_alloc)
		st->open = grow(st->open, st->open_here, &st->open_alloc, sizeof(*st->open));
	st->open[st->nopen++] = (struct pv_open){ st->nitems, close };
}

/* Close the innermost container: its items become one list or dict, an item of the one around it. */
static void close_open(struct pv_stack *st, struct arena *a)
{
	struct pv_open o = st->open[--st->nopen];
	size_t n = st->nitems - o.first;
	struct pyval *v = new_val(a, o.close == '}' ? PY_DICT : PY_LIST);
	v->items = arena_alloc(a, (n ? n : 1) * sizeof(*v->items));
	if (n)
		memcpy(v->items, st->items + o.first, n * sizeof(*v->items));
	v->n = o.close == '}' ? n / 2 : n;
	st->nitems = o.first;
	push_item(st, v);
}

/* The key of a member at p (blanks before it allowed) onto the stack; past its ':', or NULL. */
static const char *read_key(struct pv_stack *st, const char *p, const char *end, struct arena *a)
{
	struct span k;
	struct pyval *v;
	p = skip_blank(p, end);
	if (p >= end || *p != '"' || !(p = rs_scalar(p, end, &k)) || !(v = scalar_value(&k, 0, a)))
		return NULL;
	push_item(st, v);
	p = skip_blank(p, end);
	return p < end && *p == ':' ? p + 1 : NULL;
}

/*
 * The array or object at p, alone before end but for blanks, in one pass
 * (linear in its bytes, whatever the depth) and without recursion: at
 * most RS_MAX_DEPTH levels, as recscan.h checks a record.
 */
static struct pyval *parse_nested(const char *p, const char *end, unsigned flags, struct arena *a)
{
	struct pv_stack st = { .items_alloc = ARRAY_SIZE(st.items_here), .open_alloc = ARRAY_SIZE(st.open_here) };
	struct pyval *res = NULL;
	st.items = st.items_here;
	st.open = st.open_here;
	for (;;) {
		/* a value at p */
		p = skip_blank(p, end);
		if (p >= end)
			break;
		if (*p == '[' || *p == '{') {
			char close = *p == '[' ? ']' : '}';
			if (st.nopen >= RS_MAX_DEPTH)
				break;
			push_open(&st, close);
			p = skip_blank(p + 1, end);
			if (p < end && *p == close) {
				/* empty: closed below */
			} else if (close == '}' && !(p = read_key(&st, p, end, a))) {
				break;
			} else {
				continue;
			}
		} else {
			struct span s;
			struct pyval *v;
			if (!(p = rs_scalar(p, end, &s)) || !(v = scalar_value(&s, flags, a)))
				break;
			push_item(&st, v);
		}
		/* after a value: a comma (and the next key), or the end of containers */
		for (;;) {
			char close;
			p = skip_blank(p, end);
			if (!st.nopen) {
				if (p == end)
					res = st.items[0];
				goto out;
			}
			close = st.open[st.nopen - 1].close;
			if (p < end && *p == ',') {
				p++;
				if (close == '}' && !(p = read_key(&st, p, end, a)))
					goto out;
				break;
			}
			if (p >= end || *p != close)
				goto out;
			p++;
			close_open(&st, a);
		}
	}
out:
	if (st.items != st.items_here)
		free(st.items);
	if (st.open != st.open_here)
		free(st.open);
	return res;
}

struct pyval *pyval_parse(const struct span *s, unsigned flags, struct arena *a)
{
	if (s->kind == SPAN_ARRAY || s->kind == SPAN_OBJECT) {
		const char *end = s->p + s->n, *p = skip_blank(s->p, end);
		if (p >= end || *p != (s->kind == SPAN_OBJECT ? '{' : '['))
			return NULL;
		return parse_nested(p, end, flags, a);
	}
	return scalar_value(s, flags, a);
}

struct pyval *pyval_from_text(const char *json, size_t len, unsigned flags, struct arena *a)
{
	struct span s = { json, len, SPAN_NONE };
	while (s.n && (*s.p == ' ' || *s.p == '\n'))
		s.p++, s.n--;
	if (!s.n)
		return NULL;
	switch (*s.p) {
	case '{': s.kind = SPAN_OBJECT; break;
	case '[': s.kind = SPAN_ARRAY; break;
	case '"': s.kind = SPAN_STRING; break;
	case 'n': s.kind = SPAN_NULL; break;
	case 't': s.kind = SPAN_TRUE; break;
	case 'f': s.kind = SPAN_FALSE; break;
	default: s.kind = SPAN_NUMBER; break;
	}
	return pyval_parse(&s, flags, a);
}

/* Code points str.isprintable() rejects besides controls: separators and format characters. */
static bool unicode_unprintable(uint32_t c)
{
	static const uint32_t ranges[][2] = {
		{ 0x7F, 0xA0 },     { 0xAD, 0xAD },     { 0x600, 0x605 },   { 0x61C, 0x61C },
		{ 0x6DD, 0x6DD },   { 0x70F, 0x70F },   { 0x1680, 0x1680 }, { 0x180E, 0x180E },
		{ 0x2000, 0x200F }, { 0x2028, 0x202F }, { 0x205F, 0x2064 }, { 0x2066, 0x206F },
		{ 0x3000, 0x3000 }, { 0xD800, 0xF8FF }, { 0xFEFF, 0xFEFF }, { 0xFFF9, 0xFFFB },
		{ 0xE0001, 0xE0001 }, { 0xE0020, 0xE007F }, { 0xF0000, 0x10FFFF },
	};
	for (size_t i = 0; i < ARRAY_SIZE(ranges); i++)
		if (c >= ranges[i][0] && c <= ranges[i][1])
			return true;
	return false;
}

/* Decode one UTF-8 sequence; returns its length (1 for an invalid byte, taken as is). */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	int len = utf8_sequence(s, n);
	if (len <= 0) {
		*cp = s[0];
		return 1;
	}
	*cp = utf8_code_point(s, len);
	return (size_t)len;
}

void pyval_repr_string(struct strbuf *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	char quote = '\'';
	if (memchr(s, '\'', len) && !memchr(s, '"', len))
		quote = '"';
	strbuf_addch(out, quote);
	for (size_t i = 0; i < len;) {
		uint32_t c;
		size_t n = utf8_decode(p + i, len - i, &c);
		if (c == (uint32_t)quote || c == '\\') {
			strbuf_addch(out, '\\');
			strbuf_addch(out, (char)c);
		} else if (c == '\t') {
			strbuf_addstr(out, "\\t");
		} else if (c == '\n') {
			strbuf_addstr(out, "\\n");
		} else if (c == '\r') {
			strbuf_addstr(out, "\\r");
		} else if (c < 0x20 || (c >= 0x7F && unicode_unprintable(c))) {
			if (c < 0x100)
				strbuf_addf(out, "\\x%02x", (unsigned)c);
			else if (c < 0x10000)
				strbuf_addf(out, "\\u%04x", (unsigned)c);
			else
				strbuf_addf(out, "\\U%08x", (unsigned)c);
		} else {
			strbuf_add(out, s + i, n);
		}
		i += n;
	}
	strbuf_addch(out, quote);
}

static void add_float(struct strbuf *out, double f)
{
	pyfmt_double(out, f);
}

void pyval_repr(struct strbuf *out, const struct pyval *v)
{
	switch (v->kind) {
	case PY_NONE: strbuf_addstr(out, "None"); return;
	case PY_BOOL: strbuf_addstr(out, v->b ? "True" : "False"); return;
	case PY_INT: strbuf_add(out, v->text, v->len); return;
	case PY_FLOAT:
		if (v->canonical)
			strbuf_add(out, v->text, v->len);
		else
			add_float(out, pyval_float(v));
		return;
	case PY_STR: pyval_repr_string(out, v->text, v->len); return;
	case PY_LIST:
		strbuf_addch(out, '[');
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				strbuf_addstr(out, ", ");
			pyval_repr(out, v->items[i]);
		}
		strbuf_addch(out, ']');
		return;
	case PY_DICT:
		strbuf_addch(out, '{');
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				strbuf_addstr(out, ", ");
			pyval_repr(out, v->items[2 * i]);
			strbuf_addstr(out, ": ");
			pyval_repr(out, v->items[2 * i + 1]);
		}
		strbuf_addch(out, '}');
		return;
	}
}

void pyval_str(struct strbuf *out, const struct pyval *v)
{
	if (v->kind == PY_STR)
		strbuf_add(out, v->text, v->len);
	else
		pyval_repr(out, v);
}

bool pyval_eq(const struct pyval *a, const struct pyval *b)
{
	bool an = a->kind == PY_BOOL || a->kind == PY_INT || a->kind == PY_FLOAT;
	bool bn = b->kind == PY_BOOL || b->kind == PY_INT || b->kind == PY_FLOAT;
	if (an && bn) {
		double x = a->kind == PY_BOOL ? a->b : pyval_float(a);
		double y = b->kind == PY_BOOL ? b->b : pyval_float(b);
		if (a->kind == PY_INT && b->kind == PY_INT)
			return a->len == b->len && !memcmp(a->text, b->text, a->len);
		return x == y;
	}
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case PY_NONE: return true;
	case PY_STR: return a->len == b->len && !memcmp(a->text, b->text, a->len);
	case PY_LIST:
	case PY_DICT: {
		size_t n = a->kind == PY_DICT ? 2 * a->n : a->n;
		if (a->n != b->n)
			return false;
		for (size_t i = 0; i < n; i++)
			if (!pyval_eq(a->items[i], b->items[i]))
				return false;
		return true;
	}
	default: return false;
	}
}
