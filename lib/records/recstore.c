#include "recstore.h"

/*
 * A record's values, one after another in the order of their holes, each
 * led by a LEB128 number h: h & 3 says what follows.
 *   VAL_BYTES   the value's h >> 2 bytes
 *   VAL_SAME    none: the value is that of hole h >> 2 (a VAL_BYTES one)
 *   VAL_PREFIX  a second number n: the first n bytes of hole h >> 2 (a
 *               VAL_BYTES one), then '"' (an entry the name starts with)
 */
enum { VAL_BYTES, VAL_SAME, VAL_PREFIX };

/* Shapes stop being made when there are more than this many, and fewer than SHAPE_SHARING records a shape. */
#define SHAPES_FREE 1024
#define SHAPE_SHARING 8

struct recshape {
	uint32_t nholes;
	uint32_t len;       /* bytes of text */
	const uint32_t *at; /* hole i goes before text[at[i]]; ascending */
	const char *text;   /* the record without its values */
};

struct hole {
	const char *p;
	size_t n;
	int field;
};

void recstore_init(struct recstore *s)
{
	static const uint32_t at_start[1] = { 0 };
	static const struct recshape whole = { 1, 0, at_start, "" };
	memset(s, 0, sizeof(*s));
	s->arena = (struct arena)ARENA_INIT_BIG;
	s->shapes = (struct strmap)STRMAP_INIT;
	s->scratch = (struct strbuf)STRBUF_INIT;
	s->whole = &whole;
}

void recstore_release(struct recstore *s)
{
	arena_release(&s->arena);
	strmap_release(&s->shapes);
	strbuf_release(&s->scratch);
}

/* The fields whose values a run repeats from leaf to leaf: they stay in the shape. */
static bool field_in_shape(int f)
{
	switch (f) {
	case LF_RANK: case LF_STEP: case LF_STATE: case LF_TYPE: case LF_DTYPE: case LF_REQUIRES_GRAD:
	case LF_TASK: case LF_DUMP: case LF_MSPROBE_SKIPS: case LF_STACK_FROM: case LF_EXEC_MODE:
	case LF_PROCESS: case LF_ALIAS:
		return true;
	default:
		return false;
	}
}

/* The values of text[0..len) to cut out, in the order of the text; -1 when they cannot be cut. */
static int find_holes(const char *text, size_t len, const struct leafrec *r, struct hole *h)
{
	int n = 0;
	for (int f = 0; f < LF_NFIELDS; f++) {
		const struct span *v = &r->f[f];
		if (v->kind == SPAN_NONE || field_in_shape(f) || v->p < text || v->n > len ||
		    (size_t)(v->p - text) > len - v->n)
			continue;
		if (n == RECSTORE_MAX_HOLES)
			return -1;
		int i = n++;
		for (; i > 0 && h[i - 1].p > v->p; i--)
			h[i] = h[i - 1];
		h[i] = (struct hole){ v->p, v->n, f };
	}
	for (int i = 1; i < n; i++)
		if (h[i].p < h[i - 1].p + h[i - 1].n)
			return -1; /* two fields over the same bytes: not a record leafrec_parse() read */
	return n;
}

static bool may_add_shape(const struct recstore *s)
{
	return s->nshapes < SHAPES_FREE || s->nshapes * SHAPE_SHARING < s->nkept;
}

/* The shape of text[0..len) with holes h[0..n), made when new; NULL when no more are made. */
static const struct recshape *shape_of(struct recstore *s, const char *text, size_t len, const struct hole *h,
				       int n)
{
	struct strbuf *key = &s->scratch;
	const char *r = text;
	uint32_t *at;
	size_t text_at;
	struct strmap_slot *slot;
	bool created;

	/* the key: the number of holes, their places, then the text between them */
	strbuf_reset(key);
	strbuf_grow(key, (size_t)(n + 1) * sizeof(uint32_t) + len);
	strbuf_setlen(key, (size_t)(n + 1) * sizeof(uint32_t));
	memcpy(key->buf, &(uint32_t){ (uint32_t)n }, sizeof(uint32_t));
	text_at = key->len;
	for (int i = 0; i < n; i++) {
		strbuf_add(key, r, (size_t)(h[i].p - r));
		uint32_t place = (uint32_t)(key->len - text_at);
		memcpy(key->buf + (size_t)(i + 1) * sizeof(uint32_t), &place, sizeof(place));
		r = h[i].p + h[i].n;
	}
	strbuf_add(key, r, (size_t)(text + len - r));
	if (key->len - text_at > UINT32_MAX)
		return NULL;

	slot = strmap_find(&s->shapes, key->buf, key->len);
	if (slot)
		return slot->value.p;
	if (!may_add_shape(s))
		return NULL;
	struct recshape *shape = arena_alloc(&s->arena, sizeof(*shape));
	at = arena_alloc(&s->arena, (size_t)n * sizeof(uint32_t));
	memcpy(at, key->buf + sizeof(uint32_t), (size_t)n * sizeof(uint32_t));
	shape->nholes = (uint32_t)n;
	shape->len = (uint32_t)(key->len - text_at);
	shape->at = at;
	shape->text = arena_memdupz(&s->arena, key->buf + text_at, shape->len);
	slot = strmap_put(&s->shapes, key->buf, key->len, &created);
	slot->value.p = shape;
	s->nshapes++;
	return shape;
}

static size_t leb_len(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static char *leb_put(char *w, uint64_t v)
{
	while (v >= 0x80) {
		*w++ = (char)(v | 0x80);
		v >>= 7;
	}
	*w++ = (char)v;
	return w;
}

static const char *leb_get(const char *p, uint64_t *v)
{
	uint64_t x = 0;
	unsigned shift = 0;
	unsigned char c;
	do {
		c = (unsigned char)*p++;
		x |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	*v = x;
	return p;
}

/* How each hole is kept: h[i].field is replaced by VAL_* in kind[i], ref[i] the hole it names. */
static void choose_values(const struct hole *h, int n, int *kind, int *ref)
{
	int name = -1;
	for (int i = 0; i < n; i++)
		if (h[i].field == LF_NAME)
			name = i;
	for (int i = 0; i < n; i++) {
		const struct hole *v = &h[i], *nm = name >= 0 ? &h[name] : NULL;
		kind[i] = VAL_BYTES;
		if (!nm || i == name)
			continue;
		if (v->field == LF_KEY && v->n == nm->n && !memcmp(v->p, nm->p, v->n)) {
			kind[i] = VAL_SAME;
			ref[i] = name;
		} else if (v->field == LF_ENTRY && v->n >= 2 && nm->n >= v->n && v->p[v->n - 1] == '"' &&
			   !memcmp(v->p, nm->p, v->n - 1)) {
			kind[i] = VAL_PREFIX;
			ref[i] = name;
		}
	}
}

static size_t values_size(const struct hole *h, int n, const int *kind, const int *ref)
{
	size_t size = 0;
	for (int i = 0; i < n; i++) {
		if (kind[i] == VAL_BYTES)
			size += leb_len((uint64_t)h[i].n << 2) + h[i].n;
		else if (kind[i] == VAL_SAME)
			size += leb_len((uint64_t)ref[i] << 2 | VAL_SAME);
		else
			size += leb_len((uint64_t)ref[i] << 2 | VAL_PREFIX) + leb_len(h[i].n - 1);
	}
	return size;
}

/* The values written at w; *place[i]: where hole i's bytes are (those it refers to for the others). */
static void put_values(char *w, const struct hole *h, int n, const int *kind, const int *ref, const char **place)
{
	for (int i = 0; i < n; i++) {
		if (kind[i] == VAL_BYTES) {
			w = leb_put(w, (uint64_t)h[i].n << 2);
			memcpy(w, h[i].p, h[i].n);
			place[i] = w;
			w += h[i].n;
		} else if (kind[i] == VAL_SAME) {
			w = leb_put(w, (uint64_t)ref[i] << 2 | VAL_SAME);
		} else {
			w = leb_put(w, (uint64_t)ref[i] << 2 | VAL_PREFIX);
			w = leb_put(w, h[i].n - 1);
		}
	}
}

void recstore_keep(struct recstore *s, const char *text, size_t len, const struct leafrec *r, struct recref *out)
{
	struct hole h[RECSTORE_MAX_HOLES];
	int kind[RECSTORE_MAX_HOLES], ref[RECSTORE_MAX_HOLES];
	const char *place[RECSTORE_MAX_HOLES];
	const struct span *k = &r->f[LF_KEY];
	int n = find_holes(text, len, r, h), key = -1;
	const struct recshape *shape = n >= 0 ? shape_of(s, text, len, h, n) : NULL;
	size_t size;
	char *vals;

	s->nkept++;
	if (!shape) {
		shape = s->whole;
		n = 1;
		h[0] = (struct hole){ text, len, -1 };
		kind[0] = VAL_BYTES;
		s->nwhole++;
	} else {
		choose_values(h, n, kind, ref);
	}
	size = values_size(h, n, kind, ref);
	vals = arena_alloc_text(&s->arena, size);
	put_values(vals, h, n, kind, ref, place);
	s->value_bytes += size;

	out->shape = shape;
	out->vals = vals;
	out->key = NULL;
	out->key_len = 0;
	if (shape == s->whole) {
		if (k->kind != SPAN_NONE && k->p >= text && k->p + k->n <= text + len)
			out->key = place[0] + (k->p - text);
	} else {
		for (int i = 0; i < n; i++)
			if (h[i].field == LF_KEY)
				key = i;
		if (key >= 0)
			out->key = kind[key] == VAL_SAME ? place[ref[key]] : place[key];
	}
	if (out->key)
		out->key_len = (uint32_t)k->n;
}

void recstore_text(const struct recref *ref, struct strbuf *out)
{
	const struct recshape *shape = ref->shape;
	const char *p = ref->vals, *from[RECSTORE_MAX_HOLES];
	size_t len[RECSTORE_MAX_HOLES], total = shape->len;
	int kind[RECSTORE_MAX_HOLES], to[RECSTORE_MAX_HOLES];
	uint32_t n = shape->nholes, prev = 0;

	/* where each value's bytes are (a reference may name a later hole) */
	for (uint32_t i = 0; i < n; i++) {
		uint64_t h, x;
		p = leb_get(p, &h);
		kind[i] = (int)(h & 3);
		if (kind[i] == VAL_BYTES) {
			from[i] = p;
			len[i] = (size_t)(h >> 2);
			p += len[i];
		} else {
			to[i] = (int)(h >> 2);
			if (kind[i] == VAL_PREFIX) {
				p = leb_get(p, &x);
				len[i] = (size_t)x + 1;
			}
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		if (kind[i] == VAL_SAME)
			len[i] = len[to[i]];
		total += len[i];
	}
	strbuf_grow(out, total);
	for (uint32_t i = 0; i < n; i++) {
		strbuf_add(out, shape->text + prev, shape->at[i] - prev);
		prev = shape->at[i];
		if (kind[i] == VAL_BYTES) {
			strbuf_add(out, from[i], len[i]);
		} else if (kind[i] == VAL_SAME) {
			strbuf_add(out, from[to[i]], len[i]);
		} else {
			strbuf_add(out, from[to[i]], len[i] - 1);
			strbuf_addch(out, '"');
		}
	}
	strbuf_add(out, shape->text + prev, shape->len - prev);
}
