/*
 * pyhash.h: the order of a Python set of str that msprobe writes keys in.
 *
 * msprobe's checkpoint compare (config_check -c CKPT1 CKPT2) writes
 * ckpt_similarity.json in the order of `set(weights1) & set(weights2)`,
 * two sets built from dicts.  That order follows each name's hash, which
 * CPython salts with a random key per process unless PYTHONHASHSEED is set:
 * msprobe's order changes from run to run, and the only reproducible one is
 * that of PYTHONHASHSEED=0, which msprobe's reference outputs were made with.
 * This module gives that order for CPython 3.11 and later: a str's hash is
 * SipHash-1-3 with a zero key over the code units CPython stores (1, 2 or 4
 * bytes each, by the widest code point), -1 becoming -2; a set is an open
 * addressing table (8 slots or more, probes of 10 neighbouring slots, then
 * a jump perturbed by the hash's high bits, a resize when 3/5 full), built
 * from a dict in one resize to twice the dict's size, and an intersection
 * walks the smaller set (the second when they are as large) in table order,
 * adding what the other holds to a new set.
 *
 * Pure functions; safe in any thread.
 */
#ifndef PROBE_PYHASH_H
#define PROBE_PYHASH_H

#include "../core/compat.h"

/* hash(s) of a Python str given in UTF-8 (a byte that is not UTF-8 counts as the code point of its value). */
int64_t pyhash_str(const char *s, size_t len);

/*
 * The order of iter(set(d1) & set(d2)) for two dicts whose keys are the
 * strings a[0..na) and b[0..nb) (NUL-terminated UTF-8, each list without
 * duplicates, in the dicts' order): the indices into a of the common
 * strings, in that order, into out (room for na).  Returns their number.
 */
size_t pyhash_intersection_order(const char *const *a, size_t na, const char *const *b, size_t nb, size_t *out);

#endif
