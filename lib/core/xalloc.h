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
