/*
 * arena.h: a bump allocator for data that dies together.
 *
 * The dump reader parses each dump entry into an arena and resets it
 * before the next entry, so that memory stays bounded by the largest
 * entry instead of growing with the file.
 *
 * Ownership: everything allocated from an arena belongs to it and is
 * invalidated by arena_reset() and arena_release(); never free() it.
 * Blocks are kept across resets, so a steady stream of similar entries
 * allocates no memory after the first.
 */
#ifndef PROBE_ARENA_H
#define PROBE_ARENA_H

#include "compat.h"

struct arena_block;

struct arena {
	struct arena_block *head;  /* block being filled */
	struct arena_block *spare; /* blocks kept from earlier resets */
	size_t used;               /* bytes used in head */
	size_t total;              /* bytes held in all blocks */
	bool big;                  /* ARENA_INIT_BIG: 8 MiB blocks mapped directly */
};

#define ARENA_INIT { NULL, NULL, 0, 0, false }
/*
 * For a store that grows to hundreds of MB and lives until the end (the
 * golden index, lib/records/recstore.h): 8 MiB blocks mapped directly, their pages supplied at
 * once (MAP_POPULATE: one call instead of 2048 faults; all of a block but
 * the last is filled anyway).  Not advised to use huge
 * pages: on the 2-core VM of make bench a huge page is a whole free 2 MB
 * block, which the host has most often taken back (free page reporting),
 * so that its first touch costs faults in the host as well; 4 KB pages
 * come mostly from memory still backed.  The golden index's 340 MB cost
 * the pipeline 0.75 s of system time with huge pages and 0.53 s without
 * (medians of 10, alternating), 2.08 against 2.03 s of wall time.
 */
#define ARENA_INIT_BIG { NULL, NULL, 0, 0, true }

/* Memory aligned for any scalar type; size may be 0. */
void *arena_alloc(struct arena *a, size_t size);
/* size bytes for text: no alignment, so nothing is padded between texts. */
char *arena_alloc_text(struct arena *a, size_t size);
/* Copy of data[0..len) followed by a NUL. */
char *arena_memdupz(struct arena *a, const void *data, size_t len);
void arena_reset(struct arena *a);
void arena_release(struct arena *a);

#endif
