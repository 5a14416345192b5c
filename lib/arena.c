#include "arena.h"
#include "xalloc.h"

#define ARENA_BLOCK (64 * 1024)
#define ARENA_ALIGN 16

struct arena_block {
	struct arena_block *next;
	size_t size;
	_Alignas(ARENA_ALIGN) unsigned char data[];
};

static struct arena_block *new_block(struct arena *a, size_t need)
{
	struct arena_block *b, **pp;
	/* reuse a spare block that is large enough */
	for (pp = &a->spare; (b = *pp); pp = &b->next) {
		if (b->size >= need) {
			*pp = b->next;
			return b;
		}
	}
	size_t size = need > ARENA_BLOCK ? need : ARENA_BLOCK;
	b = xmalloc(st_add(sizeof(*b), size));
	b->size = size;
	a->total += size;
	return b;
}

void *arena_alloc(struct arena *a, size_t size)
{
	size_t off = (a->used + (ARENA_ALIGN - 1)) & ~(size_t)(ARENA_ALIGN - 1);
	if (!a->head || off > a->head->size || size > a->head->size - off) {
		struct arena_block *b = new_block(a, size);
		b->next = a->head;
		a->head = b;
		off = 0;
	}
	a->used = off + size;
	return a->head->data + off;
}

char *arena_memdupz(struct arena *a, const void *data, size_t len)
{
	char *p = arena_alloc(a, st_add(len, 1));
	if (len)
		memcpy(p, data, len);
	p[len] = '\0';
	return p;
}

void arena_reset(struct arena *a)
{
	while (a->head) {
		struct arena_block *b = a->head;
		a->head = b->next;
		b->next = a->spare;
		a->spare = b;
	}
	a->used = 0;
}

void arena_release(struct arena *a)
{
	arena_reset(a);
	while (a->spare) {
		struct arena_block *b = a->spare;
		a->spare = b->next;
		free(b);
	}
	a->total = 0;
}
