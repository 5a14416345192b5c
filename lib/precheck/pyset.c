#include "pyset.h"
#include "../core/xalloc.h"
#include "../msprobe/pyhash.h"

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
		set_add(s, v[i], pyhash_str(v[i], strlen(v[i])));
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
