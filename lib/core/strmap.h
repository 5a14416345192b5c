/*
 * strmap.h: a hash map from byte strings to a 64-bit value or a pointer.
 *
 * Open addressing with linear probing over XXH3 hashes.  Keys are copied
 * into the map (the caller keeps its own); values are plain integers or
 * pointers the caller owns.  Lookups never allocate.
 *
 * Memory: about 32 bytes per slot plus the key bytes; the table doubles
 * when it is 70 % full.
 */
#ifndef PROBE_STRMAP_H
#define PROBE_STRMAP_H

#include "compat.h"

struct strmap_slot {
	uint64_t hash;  /* 0 marks an empty slot (real hashes are forced nonzero) */
	char *key;
	size_t key_len;
	union {
		uint64_t u;
		void *p;
	} value;
};

struct strmap {
	struct strmap_slot *slots;
	size_t cap;  /* a power of two, or 0 */
	size_t size;
};

#define STRMAP_INIT { NULL, 0, 0 }

/* The slot of key, or NULL. */
struct strmap_slot *strmap_find(const struct strmap *m, const void *key, size_t len);

/*
 * The slot of key, created with value 0 when absent (*created tells,
 * if not NULL).  The slot pointer is valid until the next insertion.
 */
struct strmap_slot *strmap_put(struct strmap *m, const void *key, size_t len, bool *created);

void strmap_clear(struct strmap *m); /* remove all keys, keep the table */
void strmap_release(struct strmap *m);

#endif
