/*
 * first.h: where did it start?  The first divergence in execution order,
 * per rank, and the rank that started it (probe-first).
 *
 * Two runs (pair or metric records, probe-match(1), probe-metric(1)): a
 * leaf diverges when our verdict (verdict.h) says "diff": any difference
 * in a statistic, the md5, the dtype, the shape, requires_grad, a scalar
 * argument, another attribute, or an element of the saved tensors,
 * unless a tolerance band asked for lets it pass.  A non-finite value the
 * golden does not have diverges under every band.  For metric records
 * without a band the records' own verdict is used; otherwise the verdict
 * is worked out here (tensor files are read when the pairs name them).
 *
 * Rounding (noise.h): two runs on other kernels or in mixed precision
 * differ nearly everywhere.  Without a band and without opts.bitwise, a
 * leaf whose difference is within its rounding budget (and whose inputs
 * carry nothing beyond theirs) is counted as rounding, not reported; the
 * first leaf beyond its budget, or with a structural difference (a shape,
 * a scalar argument, a dtype that is not float to float, a non-finite
 * value on one side), is the cause, and what carries it after is
 * propagated unless it is beyond its own budget again (a new cause on top
 * of a received one).  A run whose every difference is rounding has the
 * answer "within_rounding": not a divergence, and not "the same".
 *
 * An entry without a golden partner (a hook, an inserted cast) whose
 * output is the tensor where a difference enters next is named as that
 * difference's cause.
 *
 * Each divergence is placed: the cause when nothing earlier on its rank
 * diverged and, for an output, its operator's inputs and parameters were
 * the same as the golden's (the operator made the difference), or, for
 * an input or a parameter, the difference enters there from outside what
 * was dumped (a weight, the data, an operator that is not dumped);
 * propagated otherwise (the operator received a difference, or it was
 * carried from earlier).  A parameter ("parameters" leaf) is never
 * propagated within a step, since no dumped operator produces it: it is a
 * cause, or the same tensor as an input or parameter already reported
 * (same statistics on both sides: "same_tensor"), or, when an earlier step
 * of its rank diverged, propagated by the optimizer's update.
 *
 * Like for like (alike.h): the pairs go through the one check every tool
 * runs (frameworks, the match-rate guard; --partial accepts a partial
 * comparison); golden-only pairs belong to the target rank before them.  With a band, how many earlier leaves differed
 * within it is counted, since a band wide enough to hide noise hides a
 * small first cause.
 *
 * Folders: the graph/ and pynative/ folders of a MindSpore root (leafrec.h's
 * exec_mode) are two runs, never one sequence: a rank of each is a rank of
 * its own here, and each folder has its own ranks that started it and its
 * own answer (graph's first, in the records and in the report).
 *
 * Ranks: each rank's first divergence is placed among its communication
 * operators (comm.h): how many it had passed, and whether the difference
 * came out of one whose inputs were the same (received from a peer).
 * The rank that started it is the one whose first divergence comes after
 * the fewest communication operators and was not received.  That
 * alignment assumes the ranks run the same sequence of communication
 * operators (data parallelism; see probe-first(1) for the limits).
 *
 * One run (nonfinite): plain leaf records; the first operator whose
 * inputs and parameters are all finite and whose outputs hold an inf or a
 * NaN (any of the four statistics, any leaf, nested lists included) is
 * the culprit; operators fed by non-finite inputs are propagators,
 * counted.
 *
 * Memory: per rank, counters and the records of the divergences kept
 * (at most `n`); nothing per pair.
 *
 * With opts.where, the divergences the filter does not choose are counted
 * (they still make later leaves propagated, and the operators after them
 * fed by a difference) but not reported; the filter runs only on leaves
 * that diverge, while fewer than `n` are kept on their rank.
 */
#ifndef PROBE_FIRST_H
#define PROBE_FIRST_H

#include "../core/jqsel.h"
#include "../core/strbuf.h"
#include "../records/lines.h"
#include "tmetric.h"

struct first_options {
	struct tm_band band;  /* rtol, atol (statistics and elements), ulps (elements) */
	double cos_min;       /* > 0: a tensor pair whose msprobe Cosine is at least this passes */
	size_t n;             /* divergences (or culprits) to report per rank; 0 means 1 */
	bool nonfinite;       /* one run: the first inf/nan */
	bool msprobe;         /* keep what first_write_msprobe() needs (an entry's worth per operator) */
	bool partial;         /* accept a partial comparison (alike.h): --partial */
	/*
	 * The rounding budget (noise.h), on by default for two runs without a
	 * band: a leaf whose difference rounding explains is counted, not a
	 * divergence.  bitwise: off, the first difference of any size is the
	 * answer.  factor: how far beyond its budget a difference must be
	 * (0: NOISE_DEFAULT_FACTOR).  explain: keep, for each rank's first
	 * divergence, the leaves judged rounding just before it.
	 */
	bool bitwise;
	double factor;
	bool explain;
	/*
	 * --where: report only the divergences whose record (as it came in)
	 * the filter chooses; every leaf still counts for their roles.  NULL:
	 * all.  The caller's; it outlives the stream.
	 */
	struct jqsel *where;
};

struct first_stream;

struct first_stream *first_new(const struct first_options *opts);
void first_free(struct first_stream *f);

/* One record (a line without its newline).  0, or PROBE_ERR_LINE (msg.h): a record that is not what the mode reads. */
int first_add(struct first_stream *f, const char *line, size_t len, struct strbuf *err);

/*
 * After the last record: decides the ranks.  PROBE_ERR_INPUT (msg.h) when
 * there was nothing to compare (no pairs, or none matched; no leaves).
 */
int first_finish(struct first_stream *f, struct strbuf *err);

/* first_add() and first_finish() as the sink of line_reader_feed() (lines.h). */
struct line_sink first_sink(struct first_stream *f);

/* Divergences (or culprits) found, after first_finish(). */
size_t first_found(const struct first_stream *f);

/*
 * The answer as an exit status, after first_finish(): PROBE_DIFFERENT when
 * a divergence (or culprit) was found; otherwise PROBE_INCOMPLETE when some
 * pair could not be compared and the comparison was not accepted as
 * partial; PROBE_OK.
 */
int first_status(const struct first_stream *f);

/*
 * One divergence (or culprit) found, after first_finish(): i from 0 to
 * first_found() - 1, ranks in numeric order, then in execution order.
 * The strings belong to f and live until first_free().
 */
struct first_mark {
	int64_t rank, step, seq;
	int mode;               /* exec_mode (leafrec.h): its folder of a graph/pynative root, or 0 */
	const char *entry, *leaf;
	const char *role;       /* cause, propagated, received, same_tensor; culprit, enters (nonfinite) */
	size_t n;               /* 1 for the first of its rank */
	bool started;           /* its rank started it (its first finding) */
};
void first_mark_at(const struct first_stream *f, size_t i, struct first_mark *m);

/*
 * The results: records (the pair, or leaf, with "first_divergence" /
 * "first_nonfinite"), then a summary.  The ranks that started it come
 * first (in numeric order), then the others (in numeric order); within a
 * rank, execution order: the first record is the answer.  Of a
 * graph/pynative root, folder by folder (graph, then pynative), each so
 * ordered: the first record of each folder is that folder's answer.
 */
void first_write_records(const struct first_stream *f, struct strbuf *out);
/* The same for people. */
void first_write_text(const struct first_stream *f, struct strbuf *out);
/*
 * msprobe's answer, for those who want it: its -da rule and diff_analyze
 * JSON for two runs, its overflow_check rule and anomaly_analyze JSON for
 * one (see probe-first(1) for how they differ from ours).  Needs the
 * stream made with opts.msprobe.
 */
size_t first_write_msprobe(const struct first_stream *f, struct strbuf *out); /* returns the nodes reported */

#endif
