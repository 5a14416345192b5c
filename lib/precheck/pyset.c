#include "pyset.h"
#include "../core/utf8.h"
#include "../core/xalloc.h"

/* ---- SipHash-1-3, as CPython's Python/pyhash.c computes it (key k0, k1) */

static inline uint64_t rotl(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

#define SIP_ROUND(v0, v1, v2, v3)                                                     \
	do {                                                                          \
		v0 += v1, v1 = rotl(v1, 13), v1 ^= v0, v0 = rotl(v0, 32);             \
		v2 += v3, v3 = rotl(v3, 16), v3 ^= v2;                                \
		v0 += v3, v3 = rotl(v3, 21), v3 ^= v0;                                \
		v2 += v1, v1 = rotl(v1, 17), v1 ^= v2, v2 = rotl(v2, 32);             \
	} while (0)

static uint64_t siphash13(uint64_t k0, uint64_t k1, const unsigned char *p, size_t n)
{
	uint64_t b = (uint64_t)n << 56, t = 0;
	uint64_t v0 = k0 ^ 0x736f6d6570736575ull, v1 = k1 ^ 0x646f72616e646f6dull;
	uint64_t v2 = k0 ^ 0x6c7967656e657261ull, v3 = k1 ^ 0x7465646279746573ull;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t m = 0;
		for (int k = 7; k >= 0; k--)
			m = m << 8 | p[i + (size_t)k];
		v3 ^= m;
		SIP_ROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	for (size_t k = n - i; k > 0; k--)
		t = t << 8 | p[i + k - 1];
	b |= t;
	v3 ^= b;
	SIP_ROUND(v0, v1, v2, v3);
	v0 ^= b;
	v2 ^= 0xff;
	SIP_ROUND(v0, v1, v2, v3);
	SIP_ROUND(v0, v1, v2, v3);
	SIP_ROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

/* The string's code points, and the width CPython stores them in (1, 2 or 4 bytes). */
static uint32_t *code_points(const char *s, size_t len, size_t *n, int *width)
{
	uint32_t *cp = xmalloc(st_mult(len ? len : 1, sizeof(*cp))), max = 0;
	size_t k = 0;
	if (!utf8_valid(s, len)) {
		for (size_t i = 0; i < len; i++)
			cp[k++] = (unsigned char)s[i];
	} else {
		for (size_t i = 0; i < len;) {
			int l = utf8_sequence((const unsigned char *)s + i, len - i);
			cp[k++] = utf8_code_point((const unsigned char *)s + i, l);
			i += (size_t)l;
		}
	}
	for (size_t i = 0; i < k; i++)
		if (cp[i] > max)
			max = cp[i];
	*n = k;
	*width = max < 0x100 ? 1 : max < 0x10000 ? 2 : 4;
	return cp;
}

int64_t pyset_str_hash(const char *s, size_t len)
{
	size_t n;
	int width;
	uint32_t *cp = code_points(s, len, &n, &width);
	unsigned char *units = xmalloc(st_mult(n ? n : 1, (size_t)width));
	int64_t h;
	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < width; b++) /* little-endian, as on the machines msprobe runs on */
			units[i * (size_t)width + (size_t)b] = (unsigned char)(cp[i] >> (8 * b));
	h = n ? (int64_t)siphash13(0, 0, units, n * (size_t)width) : 0;
	free(cp);
	free(units);
	return h == -1 ? -2 : h;
}

/* ---- CPython's setobject.c, for str keys without deletions */

enum { SET_MINSIZE = 8, LINEAR_PROBES = 9, PERTURB_SHIFT = 5 };

struct entry {
	const char *key; /* NULL: empty */
	int64_t hash;
};

struct pyset {
	struct entry *table;
	size_t mask, fill, used;
};

static void set_init(struct pyset *s)
{
	s->mask = SET_MINSIZE - 1;
	s->table = xcalloc(SET_MINSIZE, sizeof(*s->table));
	s->fill = s->used = 0;
}

/* set_insert_clean(): a key known to be absent, into a table without dummies. */
static void insert_clean(struct entry *table, size_t mask, const char *key, int64_t hash)
{
	size_t perturb = (size_t)hash, i = (size_t)hash & mask;
	for (;;) {
		struct entry *e = &table[i];
		if (!e->key)
			goto found;
		if (i + LINEAR_PROBES <= mask)
			for (int j = 0; j < LINEAR_PROBES; j++) {
				e++;
				if (!e->key)
					goto found;
			}
		perturb >>= PERTURB_SHIFT;
		i = (i * 5 + 1 + perturb) & mask;
		continue;
found:
		e->key = key;
		e->hash = hash;
		return;
	}
}

/* set_table_resize(): the smallest power of two above minused, entries reinserted in table order. */
static void set_resize(struct pyset *s, size_t minused)
{
	size_t size = SET_MINSIZE, oldmask = s->mask;
	struct entry *old = s->table;
	while (size <= minused)
		size <<= 1;
	s->table = xcalloc(size, sizeof(*s->table));
	s->mask = size - 1;
	for (size_t i = 0; i <= oldmask; i++)
		if (old[i].key)
			insert_clean(s->table, s->mask, old[i].key, old[i].hash);
	s->fill = s->used;
	free(old);
}

/* set_add_entry(). */
static void set_add(struct pyset *s, const char *key, int64_t hash)
{
	size_t perturb = (size_t)hash, i = (size_t)hash & s->mask;
	for (;;) {
		struct entry *e = &s->table[i];
		int probes = i + LINEAR_PROBES <= s->mask ? LINEAR_PROBES : 0;
		do {
			if (!e->key)
				goto unused;
			if (e->hash == hash && !strcmp(e->key, key))
				return;
			e++;
		} while (probes--);
		perturb >>= PERTURB_SHIFT;
		i = (i * 5 + 1 + perturb) & s->mask;
		continue;
unused:
		e->key = key;
		e->hash = hash;
		s->fill++;
		s->used++;
		if (s->fill * 5 >= s->mask * 3)
			set_resize(s, s->used > 50000 ? s->used * 2 : s->used * 4);
		return;
	}
}

/* set_merge(so, other): the union's second half, and set_copy's first. */
static void set_merge(struct pyset *s, const struct pyset *o)
{
	if (!o->used)
		return;
	if ((s->fill + o->used) * 5 >= s->mask * 3)
		set_resize(s, (s->used + o->used) * 2);
	if (!s->fill && s->mask == o->mask) { /* no dummies here: the entries keep their places */
		memcpy(s->table, o->table, (o->mask + 1) * sizeof(*s->table));
		s->fill = o->fill;
		s->used = o->used;
		return;
	}
	if (!s->fill) {
		for (size_t i = 0; i <= o->mask; i++)
			if (o->table[i].key)
				insert_clean(s->table, s->mask, o->table[i].key, o->table[i].hash);
		s->fill = s->used = o->used;
		return;
	}
	for (size_t i = 0; i <= o->mask; i++)
		if (o->table[i].key)
			set_add(s, o->table[i].key, o->table[i].hash);
}

static void set_from_list(struct pyset *s, const char *const *v, size_t n)
{
	set_init(s);
	for (size_t i = 0; i < n; i++)
		set_add(s, v[i], pyset_str_hash(v[i], strlen(v[i])));
}

size_t pyset_union_order(const char *const *a, size_t na, const char *const *b, size_t nb, const char ***out)
{
	struct pyset sa, sb, u;
	size_t k = 0;
	set_from_list(&sa, a, na);
	set_from_list(&sb, b, nb);
	set_init(&u);
	set_merge(&u, &sa); /* set_or() copies its left operand, then updates the copy */
	set_merge(&u, &sb);
	*out = xmalloc(st_mult(u.used ? u.used : 1, sizeof(**out)));
	for (size_t i = 0; i <= u.mask; i++)
		if (u.table[i].key)
			(*out)[k++] = u.table[i].key;
	free(sa.table);
	free(sb.table);
	free(u.table);
	return k;
}
