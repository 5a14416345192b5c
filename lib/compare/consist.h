/*
 * consist.h: verl's training against inference consistency compare
 * (msprobe compare --consistent_check --backend fsdp|megatron).
 *
 * Reference: msprobe-verl.md.  The training side (the target, msprobe's
 * -tp) is a Hugging Face model under FSDP or a Megatron core GPTModel; the
 * inference side (the golden, -gp) is vLLM's.  Their module names differ,
 * some of their modules are fused on one side only (q_proj, k_proj and
 * v_proj against qkv_proj; gate_proj and up_proj against gate_up_proj),
 * and the training dump holds a backward part the inference one has not.
 * So the pairing is not the compare key's:
 *
 *   - parse window (training side only): entries are read in dump order;
 *     one whose third-last name part is the backend's model class
 *     (Qwen2Model, Qwen3Model, Qwen3MoeModel / GPTModel) in a backward
 *     call stops the reading, one whose third-last part is a substring of
 *     the backend's begin word ("Embedding" / "VocabParallelEmbedding") in
 *     a forward call starts it again; a name of fewer than three parts
 *     stops it (msprobe logs it as an error);
 *   - match key of a row: the call ("forward.N", N renumbered on the
 *     training side as the count of earlier parsed calls of the same name),
 *     the row's suffix (".input.0"), the layer number (the first
 *     "layers.N", else -1) and the mapped module name (msprobe's rules per
 *     side and backend, FSDP_MODULE_MAP / MEGATRON_MODULE_MAP);
 *   - rows of equal keys join: with fsdp the training rows that match one
 *     inference row make one row (q, k, v onto qkv_proj), with megatron the
 *     inference rows that match one training row; rows of either side
 *     that match nothing are kept;
 *   - row order: msprobe's dual_monotonic_sort of the training parse order
 *     (the first joined row's) and the inference parse order; an order
 *     that cannot be monotonic in both is an error, as msprobe's
 *     ValueError is.
 *
 * Pair records (probe-records(5)) of a consistency compare:
 *   {"key": K, "consistency": "fsdp", "t": <leaf>|null, "g": <leaf>|null,
 *    "t_join": [<leaf>, ...], "g_join": [<leaf>, ...]}
 * "t" (and "g") is the first of the side's joined leaves, so that every
 * tool reads the pair as any other; "t_join" / "g_join", there only for a
 * joined row, hold the others in order.  K is
 * "<layer>:<mapped module>:<call><suffix>", e.g.
 * "1:down_proj:forward.0.output.0".
 *
 * Ranks: each side's leaves are grouped by (step, rank) and the k-th group
 * of one side is compared with the k-th of the other, as msprobe pairs
 * rank folders in sorted order; different counts are an error.
 *
 * Memory: both sides' records, whole (these are module-level dumps).
 */
#ifndef PROBE_CONSIST_H
#define PROBE_CONSIST_H

#include "../core/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

enum consist_backend { CONSIST_FSDP, CONSIST_MEGATRON };

/* "fsdp" or "megatron": 0, else -1. */
int consist_backend_parse(const char *s, enum consist_backend *out);
const char *consist_backend_name(enum consist_backend b);

/* The leaf records of one side, copied. */
struct consist_side;
struct consist_side *consist_side_new(void);
void consist_side_free(struct consist_side *s);

/* One leaf record (a line without its newline): 0, or PROBE_ERR_LINE with the reason in err. */
int consist_side_add(struct consist_side *s, const char *line, size_t len, struct strbuf *err);

/* All leaves of a dump operand (anything probe-flatten reads) or of a file of leaf records: 0 or -1. */
int consist_side_load(struct consist_side *s, const char *operand, struct strbuf *err);

struct consist_stats {
	size_t rows, matched, train_only, infer_only, joined, skipped; /* skipped: training leaves outside the window */
};

/*
 * The pair records of train (target) against infer (golden) appended to
 * out, in msprobe's row order.  0, or -1 with the reason in err.
 */
int consist_match(enum consist_backend b, const struct consist_side *train, const struct consist_side *infer,
		  struct strbuf *out, struct consist_stats *stats, struct strbuf *err);

/*
 * The consistency table (probe-metric on consistency pairs): msprobe's
 * tensor-mode columns for the joined rows (names joined "; " twice over,
 * dtypes, shapes, means and norms joined ";", the max of the maxima and
 * the min of the minima, every statistic as float() made it), its tensor
 * metrics on the fused tensors (squeezed, float32; inputs: the first of
 * the joined tensors, parameters concatenated on axis 0, outputs on axis
 * 1), its VERL_TENSOR_CHECKERS per training entry (an inference-only row
 * borrows the training entry its inference entry matched), and our
 * verdict (consisttab.c).  On statistics dumps: msprobe's statistics
 * columns (the four diffs and relative errors, no Data_name) and its
 * ordinary STATISTICS_CHECKERS (requires_grad, unsqueezed shapes), and our
 * verdict on the statistics (a joined row's recombined as of one tensor).
 * A tensor dump against a statistics one: no msprobe table (CSV and
 * workbook refused), our verdict still given; md5 dumps: refused.
 * Each rank pair (consist_match writes a pair's rows together) is a table
 * of its own: a file each in output_dir; to out (no output_dir) only one.
 */
enum consist_output { CONSIST_NDJSON, CONSIST_CSV, CONSIST_XLSX /* msprobe's compare --xlsx workbook */ };

struct consist_table_options {
	enum consist_output output;
	const char *output_dir;  /* msprobe's compare_result[_<rank dir>]_<time>.csv (.xlsx) files there */
	bool no_stack;           /* never add NPU_Stack_Info */
	double rtol, atol;       /* our verdict's band on the elements (both 0: bitwise) */
	int force_mode;          /* 0: msprobe's mode from the dumps' tasks; 1: statistics, 2: tensor (--mode) */
};

struct consist_table;
struct consist_table *consist_table_new(const struct consist_table_options *opts);
void consist_table_free(struct consist_table *t);
/* One pair record: 0, or PROBE_ERR_LINE with the reason in err. */
int consist_table_add(struct consist_table *t, const char *line, size_t len, struct strbuf *err);
/* After the last pair: the rows (NDJSON or CSV) to out, or the files.  0, or -1 with the reason. */
int consist_table_finish(struct consist_table *t, struct strbuf *out, struct strbuf *err);

struct consist_table_stats {
	size_t rows, pass, warning, error, same, diff, structural, unmatched, golden_only;
};
void consist_table_stats(const struct consist_table *t, struct consist_table_stats *out);

/* Whether a pair record line is one of a consistency compare (has "consistency"). */
bool consist_pair_line(const char *line, size_t len);

#endif
