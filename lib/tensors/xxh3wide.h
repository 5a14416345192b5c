/*
 * xxh3wide.h: XXH3-64 streaming updates with the widest vector unit the
 * CPU has.  xxhash.h chooses its vector code when it is compiled (SSE2 for
 * plain x86-64); this unit compiles it a second time for AVX2 and picks one
 * at run time.  Digests are the same whichever runs.
 *
 * The state is an XXH3_state_t of xxhash.h included with XXH_INLINE_ALL
 * (as tmetric.c does), passed as void * so that this header needs neither.
 */
#ifndef PROBE_XXH3WIDE_H
#define PROBE_XXH3WIDE_H
#include <stdbool.h>
#include <stddef.h>

/* XXH3_64bits_update(state, p, n), through AVX2 unless portable_only or the CPU lacks it. */
void xxh3_update_wide(void *state, const void *p, size_t n, bool portable_only);
#endif
