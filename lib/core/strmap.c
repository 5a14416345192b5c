#include "strmap.h"
#include "xalloc.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

static uint64_t strmap_hash(const void *key, size_t len)
{
	uint64_t h = XXH3_64bits(key, len);
	return h ? h : 1;
}

static struct strmap_slot *probe(const struct strmap *m, uint64_t h, const void *key, size_t len)
{
	size_t mask = m->cap - 1;
	size_t i = (size_t)h & mask;
	for (;;) {
		struct strmap_slot *s = &m->slots[i];
		if (!s->hash)
			return s;
		if (s->hash == h && s->key_len == len && !memcmp(s->key, key, len))
			return s;
		i = (i + 1) & mask;
	}
}

struct strmap_slot *strmap_find(const struct strmap *m, const void *key, size_t len)
{
	struct strmap_slot *s;
	if (!m->cap)
		return NULL;
	s = probe(m, strmap_hash(key, len), key, len);
	return s->hash ? s : NULL;
}

static void grow(struct strmap *m)
{
	size_t old_cap = m->cap;
	struct strmap_slot *old = m->slots;
	m->cap = old_cap ? st_mult(old_cap, 2) : 64;
	m->slots = xcalloc(m->cap, sizeof(*m->slots));
	for (size_t i = 0; i < old_cap; i++) {
		if (old[i].hash) {
			struct strmap_slot *s = probe(m, old[i].hash, old[i].key, old[i].key_len);
			*s = old[i];
		}
	}
	free(old);
}

struct strmap_slot *strmap_put(struct strmap *m, const void *key, size_t len, bool *created)
{
	uint64_t h = strmap_hash(key, len);
	struct strmap_slot *s;
	if ((m->size + 1) * 10 > m->cap * 7)
		grow(m);
	s = probe(m, h, key, len);
	if (created)
		*created = !s->hash;
	if (!s->hash) {
		s->hash = h;
		s->key = xmemdupz(key, len);
		s->key_len = len;
		s->value.u = 0;
		m->size++;
	}
	return s;
}

void strmap_clear(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++) {
		if (m->slots[i].hash) {
			free(m->slots[i].key);
			m->slots[i].hash = 0;
		}
	}
	m->size = 0;
}

void strmap_release(struct strmap *m)
{
	strmap_clear(m);
	free(m->slots);
	m->slots = NULL;
	m->cap = 0;
}
