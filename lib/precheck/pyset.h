/*
 * pyset.h: the order in which CPython 3.11 iterates a set of str, with
 * hash randomisation off (PYTHONHASHSEED=0).
 *
 * msprobe's config_check writes some rows in the order of a Python set
 * (weights: set(bench) | set(cmp) of the parameter names of one file;
 * random: the same of the operation names of one rank).  That order
 * depends on each string's hash, which CPython salts with a random key per
 * process unless PYTHONHASHSEED is set; msprobe's order is therefore not
 * deterministic, and the only reproducible one is that of a fixed seed.
 * This module gives the order of seed 0 (what the fixtures were made
 * with), with msprobe/pyhash.h's str hashes: the set's open addressing (a
 * table of 8 slots and more, linear probes of 9, perturbation by the
 * hash's high bits, growth at 3/5 full), with set() of an iterable (a
 * dict's keys: one insertion after another), | and the copy | makes
 * replayed as CPython does.  (pyhash.h replays set(d1) & set(d2) of two
 * dicts for the checkpoint compare; the two belong in one module.)
 *
 * Pure functions; safe in any thread.
 */
#ifndef PROBE_PYSET_H
#define PROBE_PYSET_H

#include "../core/compat.h"

/*
 * The order of iter(set(a) | set(b)) for two lists of strings (each a
 * NUL-terminated UTF-8 string; duplicates allowed): *out gets a new array
 * (the caller frees it) of the distinct strings, as pointers into a and b
 * (a string in both: a's), in that order.  Returns their number.
 */
size_t pyset_union_order(const char *const *a, size_t na, const char *const *b, size_t nb, const char ***out);

#endif
