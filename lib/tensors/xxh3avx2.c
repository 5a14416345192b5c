/*
 * xxh3avx2.c: xxhash.h's XXH3 compiled for AVX2, for xxh3wide.c to call
 * when the CPU has it.  Nothing else may be in this file: everything here
 * may use AVX2 instructions.
 */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#pragma GCC target("avx2")
#include <stddef.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#if !defined(__AVX2__) || XXH_VECTOR != XXH_AVX2
#error "xxh3avx2.c: xxhash.h did not take its AVX2 code"
#endif

void xxh3_update_avx2(void *state, const void *p, size_t n);

void xxh3_update_avx2(void *state, const void *p, size_t n)
{
	XXH3_64bits_update(state, p, n);
}
#else
typedef int xxh3avx2_unused; /* ISO C wants something in a translation unit */
#endif
