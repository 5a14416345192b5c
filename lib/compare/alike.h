/*
 * alike.h: is this a like-for-like comparison?  The one check that every
 * tool judging pairs runs (probe-match, probe-metric, probe-first,
 * probe-plot), so that the same input gets the same judgement from each.
 *
 * What two leaves have in common (the task table, probe(7)):
 *
 *   target \ golden   statistics   md5                tensor
 *   statistics        statistics   statistics         statistics
 *   md5               statistics   statistics, CRC    statistics
 *   tensor            statistics   statistics         statistics, elements
 *
 * Every msprobe dump that saves a tensor writes its statistics (max, min,
 * mean, norm), whatever the task; the CRC-32 ("md5") is compared only when
 * both leaves carry the member (an md5 dump may hold null for a tensor), the elements only when both come from tensor
 * dumps.  Dtype, shape, requires_grad and scalar values are compared
 * everywhere.  alike_compares_md5() and alike_compares_elements() are the
 * table; verdict.c, first.c and metric.c ask them.
 *
 * What makes a comparison meaningless, refused (exit status 2):
 *   - frameworks, where our verdict is given (probe-first, probe-plot,
 *     probe-metric's records): a MindSpore leaf against a PyTorch one of
 *     a tensor or md5 dump (saved bytes differ by framework: MindSpore
 *     saves bfloat16 as float32); statistics are compared across
 *     frameworks, with verdict.c's rules for their dtype names, types and
 *     requires_grad (alike_frameworks_differ()).  Pairing across
 *     frameworks (probe-match with a mapping) and msprobe's own view of
 *     it (probe-metric --csv) go on: alike_options.any_framework;
 *   - the match rate: a target rank (and step) where fewer than half of
 *     the target leaves that could have a partner found one (NPU-only
 *     APIs, NPU.*, and entries msprobe skips are left out of the count),
 *     or none did.  A comparison accepted as partial (alike_options.partial,
 *     a tool's --partial, or pairs marked "partial": true by
 *     probe-match --partial) passes, and the reports say it is partial.
 *
 * What is counted for the reports: per target rank and step (and folder,
 * for the two of a MindSpore graph/pynative root: exec_mode), the target
 * leaves, those matched, those unmatched and the golden leaves nobody took,
 * each explained by class (alike_explain()): NPU-only APIs, entries msprobe
 * skips, names that differ only by the call index (--fuzzy pairs them),
 * module entries one side does not have (different dump levels), others;
 * of the matched tensor pairs, how many differ in shape (different models
 * or batch sizes); the tensor directories that do not exist.
 *
 * A golden-only leaf belongs to the target rank and step whose pairs
 * precede it (probe-match writes each group's golden-only leaves right
 * after the group's pairs), never to a rank of its own.
 *
 * Memory: per target rank and step, counters and a few example names; while
 * a group is read, the names (without call index) of its unmatched and
 * golden-only leaves, at most ALIKE_FUZZY_MAX of them.  Not thread-safe:
 * one stream, one thread.
 */
#ifndef PROBE_ALIKE_H
#define PROBE_ALIKE_H

#include "../records/leafrec.h"
#include "../core/strbuf.h"

#define ALIKE_FUZZY_MAX (1u << 20)

/* What a leaf's dump saved of a tensor. */
enum alike_kind {
	ALIKE_NONE,        /* not a tensor (a scalar argument, a list, ...) */
	ALIKE_STATISTICS,  /* task statistics */
	ALIKE_MD5,         /* task statistics with the CRC-32 */
	ALIKE_TENSOR,      /* task tensor: the statistics and a file of the elements */
};
enum alike_kind alike_kind_of(const struct leafrec *r);
const char *alike_kind_name(enum alike_kind k);  /* "statistics", "md5", "tensor", "none" */
const char *alike_kind_dump(enum alike_kind k);  /* "a statistics dump", "an md5 dump", ... */

/* The task table: whether the CRCs of two leaves are compared; whether their elements are. */
bool alike_compares_md5(const struct leafrec *t, const struct leafrec *g);
bool alike_compares_elements(const struct leafrec *t, const struct leafrec *g);

struct alike_options {
	bool partial;       /* accept a partial comparison (the tool's --partial) */
	bool any_framework; /* no verdict of ours is given: leaves of two frameworks may pair */
};

struct alike;

struct alike *alike_new(const struct alike_options *o);
void alike_free(struct alike *a); /* accepts NULL */

/*
 * A target leaf, in stream order.  matched: it has a golden partner; g:
 * that partner when the caller has it parsed (NULL otherwise: the checks
 * of the pair itself are skipped).  marked: the pair carries
 * "partial": true.  Returns 0, or -1 with the reason in err when the two
 * leaves cannot be compared at all (frameworks differ).
 */
int alike_target(struct alike *a, const struct leafrec *t, bool matched, const struct leafrec *g, bool marked,
		 struct strbuf *err);
/* A golden leaf no target leaf took; it belongs to the last target rank and step given. */
void alike_golden_only(struct alike *a, const struct leafrec *g, bool marked);
/*
 * A pair whose tensor files could not be read; t_path, g_path: the files
 * it names, or NULL.  Each directory is checked once; a pair counts once
 * per directory that does not exist.
 */
void alike_unreadable(struct alike *a, const char *t_path, const char *g_path);

/*
 * After the last pair: the match-rate guard.  0, or -1 with the message in
 * err (several lines: the numbers, the unmatched by class, the likely
 * reasons, the way to accept a partial comparison).  A comparison accepted
 * by the option (not by marked pairs) gets a one-line warning on stderr.
 */
int alike_finish(struct alike *a, struct strbuf *err);

/* Whether the comparison was accepted as partial (the option, or marked pairs). */
bool alike_accepted(const struct alike *a);
/* Whether some target rank and step is below the match-rate guard (after alike_finish()). */
bool alike_partial(const struct alike *a);

/*
 * For reports, after alike_finish(): lines, each starting with indent,
 * that explain the unmatched and golden-only leaves of a target rank (all
 * its steps; rank -1: the leaves without a rank) of a folder (mode, the
 * exec_mode of leafrec.h; 0 for a dump of no graph/pynative folders) by
 * class.  Nothing when there is nothing to explain.
 */
void alike_explain(const struct alike *a, int mode, int64_t rank, const char *indent, struct strbuf *out);
/* For every target rank and step with leaves to explain, a line "rank R, step S:" and the explanation. */
void alike_explain_all(const struct alike *a, struct strbuf *out);
/* A line per tensor directory that pairs name and that does not exist, with the count of those pairs. */
void alike_missing_dirs(const struct alike *a, const char *indent, struct strbuf *out);
/* One line (no newline) on what the two dumps have in common when their tasks differ; "" otherwise. */
void alike_tasks_note(const struct alike *a, struct strbuf *out);

/* Both leaves' frameworks are known (torch.* or mindspore.* types and dtypes) and differ. */
bool alike_frameworks_differ(const struct leafrec *t, const struct leafrec *g);

#endif
