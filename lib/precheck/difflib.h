/*
 * difflib.h: Python's difflib.SequenceMatcher(None, a, b).ratio(), the
 * similarity msprobe's config_check matches names and stack lines with.
 *
 * The ratio is 2.0 * M / (len(a) + len(b)) (1.0 when both are empty),
 * where M is the number of elements in the matching blocks SequenceMatcher
 * finds: the longest matching block of the whole (the one starting
 * earliest in a, then earliest in b), then the same on each side of it,
 * recursively.  Its autojunk rule is kept: when b has 200 elements or
 * more, an element that occurs more than len(b) / 100 + 1 times in b is
 * "popular" and never starts a match, though a match found may still be
 * extended over it.  The ratio is therefore not symmetric: a and b are
 * taken in the order Python's caller gives them.
 *
 * Strings are compared as Python compares str: code point by code point.
 * difflib_ratio_utf8() decodes its texts first (a byte that is not valid
 * UTF-8 stands for itself, as one element of its own).
 *
 * Pure functions; memory is taken and given back within the call; safe in
 * any thread.
 */
#ifndef PROBE_DIFFLIB_H
#define PROBE_DIFFLIB_H

#include "../core/compat.h"

double difflib_ratio(const uint32_t *a, size_t na, const uint32_t *b, size_t nb);
double difflib_ratio_utf8(const char *a, size_t na, const char *b, size_t nb);
/* The number of matched elements M of the ratio (the sum of the matching blocks' sizes). */
size_t difflib_matches(const uint32_t *a, size_t na, const uint32_t *b, size_t nb);

#endif
