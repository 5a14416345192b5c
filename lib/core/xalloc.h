/*
 * xalloc.h: checked allocation.
 *
 * Every x* function either returns usable memory or ends the process with
 * "probe-xxx: out of memory" and exit status 2: callers never test for
 * NULL.  Sizes are computed with st_add/st_mult, which also end the
 * process on overflow instead of wrapping around.
 *
 * Ownership: memory returned by these functions belongs to the caller and
 * is released with free().
 */
#ifndef PROBE_XALLOC_H
#define PROBE_XALLOC_H

#include "compat.h"

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xmemdupz(const void *data, size_t len); /* copy plus a NUL after it */

/*
 * The pages of p[0..n) supplied now, in one call, for memory about to be
 * written all over (a hash table, an array being filled): on the VM of
 * make bench each page's first-touch fault costs more than its share of
 * one madvise(MADV_POPULATE_WRITE).  Whole pages inside the range only; a
 * no-op where the kernel (Linux before 5.14) does not have it.
 */
void prefault(void *p, size_t n);

size_t st_add(size_t a, size_t b);
size_t st_mult(size_t a, size_t b);

/*
 * Grow the array `x` (of *alloc elements) so that it can hold at least
 * `nr` elements; the new capacity grows geometrically.
 */
#define ALLOC_GROW(x, nr, alloc)                                             \
	do {                                                                     \
		if ((size_t)(nr) > (alloc)) {                                        \
			size_t grow_to_ = (alloc) < 16 ? 16 : st_mult((alloc), 2);       \
			if (grow_to_ < (size_t)(nr))                                     \
				grow_to_ = (size_t)(nr);                                     \
			(x) = xrealloc((x), st_mult(sizeof(*(x)), grow_to_));            \
			(alloc) = grow_to_;                                              \
		}                                                                    \
	} while (0)

#endif
