#include "xxh3wide.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
/* in xxh3avx2.c: the same update, xxhash.h compiled for AVX2 */
void xxh3_update_avx2(void *state, const void *p, size_t n);
#define HAVE_AVX2_BUILD 1
#endif

void xxh3_update_wide(void *state, const void *p, size_t n, bool portable_only)
{
#ifdef HAVE_AVX2_BUILD
	if (!portable_only && __builtin_cpu_supports("avx2")) {
		xxh3_update_avx2(state, p, n);
		return;
	}
#endif
	(void)portable_only;
	XXH3_64bits_update(state, p, n);
}
