/* pyhash.c: CPython's str hash (PYTHONHASHSEED=0) and the order of a set intersection (pyhash.h). */
#include "pyhash.h"
#include "../core/utf8.h"
#include "../core/xalloc.h"

static inline uint64_t rotl64(uint64_t x, unsigned b)
{
	return (x << b) | (x >> (64 - b));
}

/* One SipHash round over the state v[0..3]. */
static inline void sipround(uint64_t v[4])
{
	v[0] += v[1]; v[1] = rotl64(v[1], 13); v[1] ^= v[0]; v[0] = rotl64(v[0], 32);
	v[2] += v[3]; v[3] = rotl64(v[3], 16); v[3] ^= v[2];
	v[0] += v[3]; v[3] = rotl64(v[3], 21); v[3] ^= v[0];
	v[2] += v[1]; v[1] = rotl64(v[1], 17); v[1] ^= v[2]; v[2] = rotl64(v[2], 32);
}

/* SipHash-1-3 with the key (0, 0): one compression round a word, three to finish. */
static uint64_t siphash13_zero_key(const unsigned char *p, size_t len)
{
	uint64_t v[4] = { UINT64_C(0x736f6d6570736575), UINT64_C(0x646f72616e646f6d), UINT64_C(0x6c7967656e657261),
			  UINT64_C(0x7465646279746573) };
	uint64_t b = (uint64_t)len << 56, m;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		m = 0;
		for (int k = 7; k >= 0; k--)
			m = m << 8 | p[i + (size_t)k];
		v[3] ^= m;
		sipround(v);
		v[0] ^= m;
	}
	m = 0;
	for (size_t k = len; k > i; k--)
		m = m << 8 | p[k - 1];
	b |= m;
	v[3] ^= b;
	sipround(v);
	v[0] ^= b;
	v[2] ^= 0xff;
	sipround(v);
	sipround(v);
	sipround(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* The code points of s, a malformed byte as its own value. */
static uint32_t *code_points(const char *s, size_t len, size_t *n, uint32_t *widest)
{
	uint32_t *cp = xmalloc(st_mult(len ? len : 1, sizeof(*cp)));
	*n = 0;
	*widest = 0;
	for (size_t i = 0; i < len;) {
		int k = utf8_sequence((const unsigned char *)s + i, len - i);
		uint32_t c = k > 0 ? utf8_code_point((const unsigned char *)s + i, k) : (unsigned char)s[i];
		i += k > 0 ? (size_t)k : 1;
		cp[(*n)++] = c;
		if (c > *widest)
			*widest = c;
	}
	return cp;
}

int64_t pyhash_str(const char *s, size_t len)
{
	size_t n, unit;
	uint32_t widest;
	uint32_t *cp;
	unsigned char *bytes;
	uint64_t h;
	int64_t x;
	if (!len)
		return 0;
	cp = code_points(s, len, &n, &widest);
	unit = widest < 0x100 ? 1 : widest < 0x10000 ? 2 : 4;
	bytes = xmalloc(st_mult(n, unit));
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < unit; k++)
			bytes[i * unit + k] = (unsigned char)(cp[i] >> (8 * k)); /* CPython's little-endian code units */
	h = siphash13_zero_key(bytes, n * unit);
	free(cp);
	free(bytes);
	memcpy(&x, &h, sizeof(x));
	return x == -1 ? -2 : x;
}

/* ---- CPython's set table (Objects/setobject.c, 3.11) ---- */

#define SET_MINSIZE 8
#define LINEAR_PROBES 9
#define PERTURB_SHIFT 5

struct pyset {
	size_t mask, fill, used;
	size_t *slot;      /* the key's index + 1; 0: empty */
	int64_t *hash;
};

static void pyset_init(struct pyset *s, size_t size)
{
	s->mask = size - 1;
	s->fill = s->used = 0;
	s->slot = xcalloc(size, sizeof(*s->slot));
	s->hash = xcalloc(size, sizeof(*s->hash));
}

static void pyset_release(struct pyset *s)
{
	free(s->slot);
	free(s->hash);
}

/* set_insert_clean: into a table without dummies, a key that is not there. */
static void insert_clean(struct pyset *s, size_t key, int64_t hash)
{
	size_t perturb = (size_t)hash, i = (size_t)hash & s->mask;
	for (;;) {
		if (!s->slot[i])
			goto found;
		if (i + LINEAR_PROBES <= s->mask)
			for (size_t j = 1; j <= LINEAR_PROBES; j++)
				if (!s->slot[i + j]) {
					i += j;
					goto found;
				}
		perturb >>= PERTURB_SHIFT;
		i = (i * 5 + 1 + perturb) & s->mask;
	}
found:
	s->slot[i] = key + 1;
	s->hash[i] = hash;
}

/* set_table_resize: the smallest power of two above minused, the entries moved over in table order. */
static void resize(struct pyset *s, size_t minused)
{
	struct pyset old = *s;
	size_t size = SET_MINSIZE;
	while (size <= minused)
		size <<= 1;
	pyset_init(s, size);
	for (size_t i = 0; i <= old.mask; i++)
		if (old.slot[i])
			insert_clean(s, old.slot[i] - 1, old.hash[i]);
	s->fill = s->used = old.used;
	pyset_release(&old);
}

/*
 * set_lookkey: the slot holding the string `key`, or the empty slot where
 * the probes end (the tables here never hold dummies: nothing is removed).
 */
static size_t find(const struct pyset *s, const char *const *names, const char *key, int64_t hash)
{
	size_t perturb = (size_t)hash, i = (size_t)hash & s->mask;
	for (;;) {
		size_t probes = i + LINEAR_PROBES <= s->mask ? LINEAR_PROBES : 0;
		for (size_t j = 0; j <= probes; j++) {
			size_t k = i + j;
			if (!s->slot[k] || (s->hash[k] == hash && !strcmp(names[s->slot[k] - 1], key)))
				return k;
		}
		perturb >>= PERTURB_SHIFT;
		i = (i * 5 + 1 + perturb) & s->mask;
	}
}

/* set_add_entry: names[key] added unless an equal string is there; a resize when 3/5 full. */
static void add_entry(struct pyset *s, const char *const *names, size_t key, int64_t hash)
{
	size_t k = find(s, names, names[key], hash);
	if (s->slot[k])
		return;
	s->slot[k] = key + 1;
	s->hash[k] = hash;
	s->fill++;
	s->used++;
	if (s->fill * 5 >= s->mask * 3)
		resize(s, s->used > 50000 ? s->used * 2 : s->used * 4);
}

/* set(d) of a dict of n keys: one resize to twice n first (set_update_internal's dict path), then the adds. */
static void set_of_dict(struct pyset *s, const char *const *names, size_t n, const int64_t *hashes)
{
	pyset_init(s, SET_MINSIZE);
	if ((s->fill + n) * 5 >= s->mask * 3)
		resize(s, (s->used + n) * 2);
	for (size_t i = 0; i < n; i++)
		add_entry(s, names, i, hashes[i]);
}

static int64_t *hashes_of(const char *const *names, size_t n)
{
	int64_t *h = xmalloc(st_mult(n ? n : 1, sizeof(*h)));
	for (size_t i = 0; i < n; i++)
		h[i] = pyhash_str(names[i], strlen(names[i]));
	return h;
}

size_t pyhash_intersection_order(const char *const *a, size_t na, const char *const *b, size_t nb, size_t *out)
{
	int64_t *ha = hashes_of(a, na), *hb = hashes_of(b, nb);
	struct pyset sa, sb, result;
	const struct pyset *walked = &sb, *other = &sa;
	const char *const *wn = b, *const *on = a;
	size_t n = 0;

	set_of_dict(&sa, a, na, ha);
	set_of_dict(&sb, b, nb, hb);
	/* set_intersection(so=set(d1), other=set(d2)): other is walked, unless it is the larger */
	if (sb.used > sa.used)
		walked = &sa, other = &sb, wn = a, on = b;
	pyset_init(&result, SET_MINSIZE);
	for (size_t i = 0; i <= walked->mask; i++) {
		size_t key = walked->slot[i];
		if (key && other->slot[find(other, on, wn[key - 1], walked->hash[i])])
			add_entry(&result, wn, key - 1, walked->hash[i]);
	}
	/* the result's keys are the walked set's: as indices into a */
	for (size_t i = 0; i <= result.mask; i++) {
		size_t key = result.slot[i];
		if (!key)
			continue;
		out[n++] = wn == a ? key - 1 : sa.slot[find(&sa, a, b[key - 1], result.hash[i])] - 1;
	}
	pyset_release(&sa);
	pyset_release(&sb);
	pyset_release(&result);
	free(ha);
	free(hb);
	return n;
}
