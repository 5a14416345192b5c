#include "arena.h"
#include "msg.h"
#include "xalloc.h"

#include <sys/mman.h>

#ifndef MAP_POPULATE /* Linux's: elsewhere the pages come on first touch */
#define MAP_POPULATE 0
#endif

#define ARENA_BLOCK (64 * 1024)
#define ARENA_BIG_BLOCK (8 * 1024 * 1024)
#define ARENA_ALIGN 16

struct arena_block {
	struct arena_block *next;
	size_t size;
	_Alignas(ARENA_ALIGN) unsigned char data[];
};

static struct arena_block *map_block(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED)
		die("out of memory (mapping %zu bytes)", bytes);
	return p; /* no MADV_HUGEPAGE: see ARENA_INIT_BIG */
}

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
	size_t block = a->big ? ARENA_BIG_BLOCK : ARENA_BLOCK;
	size_t size = need > block - sizeof(*b) ? need : block - sizeof(*b);
	b = a->big ? map_block(st_add(sizeof(*b), size)) : xmalloc(st_add(sizeof(*b), size));
	b->size = size;
	a->total += size;
	return b;
}

static void *alloc_aligned(struct arena *a, size_t size, size_t align)
{
	size_t off = (a->used + (align - 1)) & ~(size_t)(align - 1);
	if (!a->head || off > a->head->size || size > a->head->size - off) {
		struct arena_block *b = new_block(a, size);
		b->next = a->head;
		a->head = b;
		off = 0;
	}
	a->used = off + size;
	return a->head->data + off;
}

void *arena_alloc(struct arena *a, size_t size)
{
	return alloc_aligned(a, size, ARENA_ALIGN);
}

char *arena_alloc_text(struct arena *a, size_t size)
{
	return alloc_aligned(a, size, 1);
}

char *arena_memdupz(struct arena *a, const void *data, size_t len)
{
	char *p = arena_alloc_text(a, st_add(len, 1)); /* text: no alignment to pad for */
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
		if (a->big)
			munmap(b, sizeof(*b) + b->size);
		else
			free(b);
	}
	a->total = 0;
}
