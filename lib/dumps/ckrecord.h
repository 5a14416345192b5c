/*
 * ckrecord.h: a model checkpoint's parameters as leaf records
 * (probe-records(5)), so that probe-match, probe-metric and probe-first work
 * on two checkpoints as on two dumps.
 *
 * One record per parameter, in the checkpoint's order (ckpt.h; Megatron's
 * shards merged): rank and step null (or the caller's), seq its position,
 * entry the name up to its last dot (the module), name and key the
 * parameter's name, state "parameters", type "torch.Tensor", dtype (torch's
 * spelling) and shape; max, min, mean and norm worked out over the elements
 * in float64 (max and min exact, mean the float64 sum over the count, norm
 * the square root of the float64 sum of squares; NaN when an element is
 * NaN; null for an empty tensor), written as Python's repr (non-finite
 * ones as "nan", "inf", "-inf"); data the checkpoint as read (a Megatron
 * checkpoint's iteration folder) and data_member the parameter's name in
 * it, which the tensor readers open through the checkpoint's index
 * (ckpt_cached_tensor()); task "tensor"; dump the operand as named.
 *
 * Reading the statistics reads every byte of the checkpoint once, one
 * parameter at a time (a merged parameter held in memory while it is read).
 * Errors follow msg.h: the checkpoint's file and member named.
 */
#ifndef PROBE_CKRECORD_H
#define PROBE_CKRECORD_H

#include "layout.h"

/*
 * Each record to fn (flatten.h's flatten_fn: the text with its newline,
 * its fields); a nonzero return stops the reading.  rank and step >= 0
 * label the records.  0, the callback's stop value, or -1 with the message
 * in err.
 */
struct leafrec;
typedef int (*ckrecord_fn)(const char *record, size_t len, const struct leafrec *rec, void *ctx);
int ckrecord_flatten(const struct dump_file *df, int64_t rank, int64_t step, ckrecord_fn fn, void *ctx,
		     struct strbuf *err);

#endif
