/*
 * merge.h: the compare results of several ranks in one table per compare
 * index, as msprobe merge_result makes it, and the communication groups
 * checked across the ranks (probe-merge).
 *
 * Operands (merge_add_operand), any mix of:
 *   - a directory: msprobe's -i DIR: every *.xlsx in it, and (beyond
 *     msprobe) every compare_result_*.csv, in name order, the _part_1,
 *     _part_2, ... files of a table split into CSV files read as one;
 *   - an .xlsx file: msprobe's compare --xlsx workbook (or probe-metric
 *     --xlsx's); every sheet of msprobe's (Sheet1, or part_0, part_1, ...)
 *     is read as one table, where msprobe's read_excel reads the first;
 *   - a .csv file: msprobe's or probe-metric's compare_result CSV;
 *   - anything else, or "-": metric or pair records (probe-metric(1)),
 *     of one rank or many: each rank's table is made by probe-metric's own
 *     CSV writer (metric.h) in a temporary directory and read from there.
 * A file's rank comes from its name as msprobe wants it,
 * compare_result_rank<N>[-rank<N>]_<14 digits>.xlsx (.csv: anything may
 * follow the rank); compare_result_rank_<digits> and a name without a
 * rank are single-rank results (msprobe's warning, left out); any other
 * name of an .xlsx is msprobe's error.  Fewer than two ranks is an error.
 * The tables go to mergeres.h, which decides what msprobe decides.
 *
 * The group check (beyond msprobe: what seed 001 asks users to check by
 * eye): the communication operators of every rank's table (comm.h) are
 * put side by side by entry name; the group of each is its ProcessGroup
 * argument's ranks ("[0, 1, 2, 3]", "tp-0-1-2-3": the numbers in it), or
 * every rank read when it has none.  Where every rank of the group must
 * end with the same tensor (all_reduce, all_gather and its variants,
 * broadcast), the outputs' statistics of the group's ranks are compared,
 * on the target side and on the golden side; a rank whose output differs
 * from the others' is reported (by majority; all of them when there is
 * none).  reduce_scatter, scatter, all_to_all, reduce and the
 * point-to-point operators end differently on each rank by design and
 * are not compared.  For each group, the first of its operators where a
 * rank's input differs from its golden (its statistics, or md5) is
 * named, with the ranks: where the difference entered the group.
 *
 * Memory: the rows of the configured operators and the communication
 * operators' rows of every rank; nothing else per row.
 */
#ifndef PROBE_MERGE_H
#define PROBE_MERGE_H

#include "../core/strbuf.h"

struct merge_options {
	const char *const *apis;    /* msprobe's config api: at least one */
	size_t napis;
	const char *const *indexes; /* msprobe's config compare_index: may be none */
	size_t nindexes;
	bool partial;               /* records: accept a partial comparison (alike.h) */
	bool groups_only;           /* the group check alone: no merged tables (apis may be none) */
};

struct merge;

struct merge *merge_new(const struct merge_options *opts);
void merge_free(struct merge *m);

/* Read an operand (see above): 0, or -1 with a whole message (msg.h) in err. */
int merge_add_operand(struct merge *m, const char *path, struct strbuf *err);

/* After the operands: the merged tables and the group check; -1 with msprobe's message when nothing merges. */
int merge_finish(struct merge *m, struct strbuf *err);

/*
 * msprobe's multi_ranks_compare_merge_<YYYYmmddHHMMSS>.xlsx in dir: one sheet
 * per index, named as the index, "NPU Name, rank<r>, ..."; written under a
 * temporary name and given its name when complete (never replacing a file:
 * _2, _3, ... after the time when it is taken).  The path into path.
 */
int merge_write_xlsx(struct merge *m, const char *dir, struct strbuf *path, struct strbuf *err);
/* The same tables as one CSV: compare_index, NPU Name, rank<r>, ... (cells as str(); none: empty). */
void merge_write_csv(const struct merge *m, struct strbuf *out);
/* The same as records: {"index", "name", "ranks": {"<r>": value or null}}, one per row. */
void merge_write_ndjson(const struct merge *m, struct strbuf *out);

/* The group check as records (one per finding, then one per group), or as text for people (its names
 * with their control characters and invalid UTF-8 made visible, textesc.h). */
void merge_write_groups(const struct merge *m, bool text, struct strbuf *out);
/* Operators whose outputs disagree within their group. */
size_t merge_group_disagreements(const struct merge *m);

#endif
