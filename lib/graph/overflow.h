/*
 * overflow.h: msprobe's overflow levels of graph_visualize -oc
 * (../shared/reference/msprobe-firstdiff.md section 6; msprobe 26.0.0's
 * core/overflow_check): for each entry of a dump.json, at most one level.
 *
 * An entry's inputs are its input_args (or, without them, its backward
 * input) and the values of its input_kwargs; its outputs its output.  A
 * value is anomalous when it is an object whose Max, Min or Mean is inf,
 * -inf or nan (str().lower()), or a list holding such a value at any depth
 * of lists.  The first scene that holds: critical (inputs normal, outputs
 * anomalous), high (both anomalous), medium (inputs anomalous, outputs
 * normal), high again when the largest Norm of the top-level tensor outputs
 * is over 100 times the largest of the inputs' (over 100 when that is 0).
 * Then msprobe's ignore rules drop an entry whose anomalous values all sit
 * where its API is known to hold uninitialised memory (torch.empty and
 * empty_like, empty_strided: output 0; distributed.recv: input 0 and the
 * tensor kwarg; all_gather, _reduce_scatter_base, all_gather_into_tensor,
 * reduce_scatter_tensor: input 0; reduce_scatter: input 0 and the output
 * kwarg; tensor.masked_fill_: input 0), as msprobe's rule matching does
 * (a rule checks only the places it names).
 *
 * Memory: one entry's tree at a time, and the levels found.
 */
#ifndef PROBE_OVERFLOW_H
#define PROBE_OVERFLOW_H

#include "../core/strbuf.h"
#include "../core/strmap.h"

enum overflow_level { OVERFLOW_NONE = 0, OVERFLOW_MEDIUM, OVERFLOW_HIGH, OVERFLOW_CRITICAL };

/* "medium", "high", "critical" (NULL for none). */
const char *overflow_level_name(enum overflow_level l);

/*
 * The levels of dump_path's entries into levels (entry name -> level; only
 * entries with one).  0, or PROBE_ERR with "FILE:LINE:COL: what" in err.
 */
int overflow_scan(const char *dump_path, struct strmap *levels, struct strbuf *err);

#endif
