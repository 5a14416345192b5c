/*
 * tmetric_ways.h: one pair compared every way lib/compare/tmetric.c can compare
 * it, for the unit test (test_tmetric.c) and the fuzzer (fuzz_tmetric.c):
 * the one pass with its widest loop, with its AVX2 loop, with its plain C
 * loops, and the element-wise path (the same elements as a strided view,
 * which the one pass does not take).  All four must agree bit for bit.
 */
#ifndef PROBE_TMETRIC_WAYS_H
#define PROBE_TMETRIC_WAYS_H

#include "../../lib/compare/tmetric.h"

#include <string.h>

enum { WAY_WIDEST, WAY_AVX2, WAY_PLAIN, WAY_ELEMENTWISE, NWAYS };

static const char *const way_names[NWAYS] = { "widest loop", "AVX2 loop", "plain C", "element-wise" };

/* Every field and cell equal (doubles by their bits). */
static inline bool same_results(const struct tmetric *a, const struct tmetric *b)
{
	return !memcmp(a->cell, b->cell, sizeof(a->cell)) && !strcmp(a->notes, b->notes) &&
	       a->comparable == b->comparable && a->same == b->same && a->ndiff == b->ndiff &&
	       a->first_diff == b->first_diff && !memcmp(&a->max_ulp, &b->max_ulp, sizeof(double)) &&
	       a->t_hash == b->t_hash && a->g_hash == b->g_hash && !memcmp(&a->max_abs, &b->max_abs, sizeof(double)) &&
	       a->numel == b->numel && a->nbeyond == b->nbeyond && a->widened == b->widened &&
	       !memcmp(&a->t_absmax, &b->t_absmax, sizeof(double)) && !memcmp(&a->g_absmax, &b->g_absmax, sizeof(double));
}

/* t and g (contiguous, no band) compared every way into m[]; whether all agree with m[WAY_WIDEST]. */
static inline bool compare_every_way(const struct tensor *t, const struct tensor *g, struct tmetric m[NWAYS])
{
	struct tensor vt = *t, vg = *g;
	bool agree = true;
	vt.contiguous = vg.contiguous = false; /* read element by element */
	tmetric_compare(t, g, NULL, &m[WAY_WIDEST]);
	tmetric_kernel(TM_KERNEL_AVX2);
	tmetric_compare(t, g, NULL, &m[WAY_AVX2]);
	tmetric_kernel(TM_KERNEL_PLAIN);
	tmetric_compare(t, g, NULL, &m[WAY_PLAIN]);
	tmetric_kernel(TM_KERNEL_BEST);
	tmetric_compare(&vt, &vg, NULL, &m[WAY_ELEMENTWISE]);
	for (int k = 1; k < NWAYS; k++)
		agree = agree && same_results(&m[WAY_WIDEST], &m[k]);
	return agree;
}
#endif
