/*
 * ckcmp.h: two checkpoints compared parameter by parameter (probe-ckpt).
 *
 * Parameters are paired by name (ckpt.h says how each layout names them).
 * For a pair, ckcmp_pair() gives:
 *
 *   ours     our bitwise verdict: the same dtype, shape and element bytes,
 *            or else how many elements differ, the row-major index of the
 *            first and both its values, the largest difference in units in
 *            the last place of the dtype and the largest absolute one
 *            (tmetric.h, read once); the l2 distance ||a - b|| and the
 *            cosine a.b / (|a| |b|), summed in float64 (0 and 1 for the
 *            same bytes; the cosine undefined when a norm is 0 and the
 *            other is not, 1 when both are); when the shapes differ, no
 *            values are compared, and when only the dtypes differ, the
 *            values are, as float64.
 *   msprobe  with CKCMP_MSPROBE: msprobe's numbers for its
 *            ckpt_similarity.json (config_check's metrics.py): both
 *            tensors as float32 (tensor.float()), l2 = sqrt of the float32
 *            sum of (a - b)^2, cos = a.b / (|a| |b|) in float32 (1.0 when
 *            both norms are 0, null when one is), each sum added one
 *            element at a time in row-major order, every product and sum
 *            rounded to float32.  That is the order that reproduces
 *            msprobe's reference output (../shared/fixtures/precheck,
 *            ck01, all 17 parameters to the last digit); numpy hands its
 *            float32 dot products to whatever BLAS it was built with, and
 *            another build sums in another order: its last digits can
 *            differ for large tensors, as two msprobe installs differ.
 *
 * Names present on one side only are pairs of their own (CKCMP_ONLY_A,
 * CKCMP_ONLY_B), never dropped.
 *
 * Memory: both tensors of a pair open at once (merged shards held in
 * memory); a few chunks of 4096 elements for the sums.  A file that
 * shrinks while it is read fails the pair with the file named.
 * Thread safety: ckcmp_pair() touches only its arguments.
 */
#ifndef PROBE_CKCMP_H
#define PROBE_CKCMP_H

#include "../ckpt/ckpt.h"
#include "../core/strbuf.h"

enum ckcmp_verdict { CKCMP_SAME, CKCMP_DIFF, CKCMP_ONLY_A, CKCMP_ONLY_B };
extern const char *const ckcmp_verdict_names[4]; /* "same", "diff", "only_a", "only_b" */

enum ckcmp_flags {
	CKCMP_MSPROBE = 1 << 0, /* also msprobe's float32 numbers */
};

struct ckcmp_result {
	const char *name;
	const struct ckpt_param *a, *b;  /* NULL on the side that lacks the name */
	enum ckcmp_verdict verdict;
	const char *reason;   /* a diff: "values", "dtype", "shape", "dtype and shape" */
	bool values;          /* the shapes agree: l2 and cos were worked out */
	double l2, cos;       /* cos NaN: undefined (one norm 0) */
	double norm_a, norm_b; /* float64 norms (0 when the bytes are the same: not needed) */
	bool bitwise;         /* same dtype and shape: the elements were compared byte for byte */
	bool equal;           /* ... and they are the same */
	int64_t ndiff, first_diff;  /* bitwise: elements that differ; the first (-1: none) */
	double first_a, first_b;    /* its values */
	double max_ulp, max_abs;
	/* CKCMP_MSPROBE, when values: msprobe's float32 numbers (ms_cos NaN: null) */
	bool ms;
	double ms_l2, ms_cos;
};

/*
 * Compare parameter ia of a with parameter ib of b (either -1 when the
 * name is on one side only).  0, or -1 with "FILE: what" in err (a tensor
 * that cannot be opened or read).
 */
int ckcmp_pair(const struct ckpt *a, long ia, const struct ckpt *b, long ib, unsigned flags, struct ckcmp_result *r,
	       struct strbuf *err);

/*
 * Every pair of a and b: A's names in A's order (each with B's parameter
 * of that name, or alone), then the names only B has, in B's order, into
 * *out (n of them, the caller frees *out).  jobs threads (this one
 * included) compare pairs at once; progress_add() counts the bytes of both
 * sides.  0, or -1 with the first failure's message in err (nothing in *out).
 */
int ckcmp_all(const struct ckpt *a, const struct ckpt *b, unsigned flags, int jobs, struct ckcmp_result **out,
	      size_t *n, struct strbuf *err);

/*
 * The tensor a leaf record names (probe-records(5)): parameter `member`
 * (its "data_member") of the checkpoint `data`, opened through
 * ckpt_cached_tensor(), when member is not NULL; else the tensor file `data`
 * with its "data_name" `name` (NULL: none), by tensor_open_leaf().  0, or
 * -1 with "FILE: what" in err.  Thread-safe.
 */
int ckcmp_open_leaf(struct tensor *t, const char *data, const char *name, const char *member, struct strbuf *err);

/* One NDJSON record of a result, with its newline (probe-ckpt(1) lists the fields). */
void ckcmp_record(struct strbuf *out, const struct ckcmp_result *r);

/*
 * msprobe's ckpt_similarity.json of the results that have both sides, as
 * its json.dump(indent=4) writes it: the names in the order of msprobe's
 * set(weights1) & set(weights2) under PYTHONHASHSEED=0 (pyhash.h), given
 * all of A's and B's names in their checkpoints' order; no newline at the end.
 */
void ckcmp_msprobe_json(struct strbuf *out, const struct ckcmp_result *r, size_t n, const struct ckpt *a,
			const struct ckpt *b);

/* The report for people (probe-ckpt --format text): the summary first, then what differs most; names and paths
 * with their control characters and invalid UTF-8 made visible (textesc.h). */
struct ckcmp_summary {
	size_t both, same, diff, only_a, only_b;
};
void ckcmp_summarize(const struct ckcmp_result *r, size_t n, struct ckcmp_summary *s);
void ckcmp_text(struct strbuf *out, const struct ckcmp_result *r, size_t n, const struct ckpt *a, const struct ckpt *b);
/* The summary record that ends the records. */
void ckcmp_summary_record(struct strbuf *out, const struct ckcmp_summary *s, const struct ckpt *a,
			  const struct ckpt *b);

#endif
