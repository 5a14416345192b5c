/*
 * mergeres.h: msprobe's merge_result: the compare results of several ranks
 * gathered into one table per compare index (reference: msprobe-xlsx.md,
 * "merge_result").
 *
 * The caller reads each rank's compare table (xlsx, CSV) and gives it here
 * as values the way pandas' read_excel holds them (mres_value): a rank's
 * header (mres_begin), its rows in table order (mres_row), its end
 * (mres_end); then mres_finish() builds the merged tables.  What msprobe
 * decides is decided here, as it does:
 *   - the mode from the header (statistics or tensor, with or without
 *     NPU_Stack_Info; md5 and unknown headers are skipped with msprobe's
 *     warning; a header of probe-metric --xlsx-reader, msprobe's with our
 *     two columns after it, is taken as msprobe's);
 *   - the compare indexes: the configured ones, which must all be the
 *     mode's (else the rank is skipped with msprobe's warnings), or all of
 *     the mode's and Requires_grad Consistent;
 *   - the rows: for each configured API in order, every row whose NPU Name
 *     contains "<api>." (the API is a regular expression whose dots are
 *     literal, as msprobe's str.contains makes it), the first row of a
 *     name giving its value;
 *   - each column typed as read_excel types it over the whole table (a
 *     column of numbers and numeric strings only is numbers, float if any
 *     is; True/False only is bool; anything else keeps each value);
 *   - N/A, unsupported and Nan replaced by "NPU:<NPU max>  Bench:<Bench
 *     max>" (str() of the two, two spaces);
 *   - the ranks joined on NPU Name: the first rank's rows in its order,
 *     then the rows only later ranks have, in the order they come (pandas
 *     1.5's outer merge; pandas 2.2 and later sort the names instead);
 *     a rank without a row has no value there.
 * Strings msprobe's check refuses (mscsv_refused) are an error naming the
 * rank's file.
 *
 * Memory: the kept rows' values (the configured APIs' rows, the indexes,
 * NPU max and Bench max), in an arena per merge; nothing per row read.
 * Not thread-safe.
 */
#ifndef PROBE_MERGERES_H
#define PROBE_MERGERES_H

#include "../core/arena.h"
#include "../core/strbuf.h"

/* A value as pandas holds it. */
enum mres_kind { MRES_STR, MRES_INT, MRES_FLOAT, MRES_BOOL, MRES_NAN };

struct mres_value {
	enum mres_kind kind;
	const char *s; /* STR (NUL-terminated) */
	double f;      /* INT (an integral value), FLOAT */
	bool b;        /* BOOL */
};

struct mres_options {
	const char *const *apis;    /* the config's api list (required, not empty) */
	size_t napis;
	const char *const *indexes; /* the config's compare_index, or none */
	size_t nindexes;
};

struct mres;

struct mres *mres_new(const struct mres_options *opts);
void mres_free(struct mres *m);

/*
 * A rank's table starts: file names it in messages.  1 when msprobe would
 * leave it out (the warning is given), 0 to go on with its rows, -1 with
 * the message in err (two tables for one rank).
 */
int mres_begin(struct mres *m, int64_t rank, const char *file, const char *const *header, size_t n,
	       struct strbuf *err);
/* A row of the table begun (values copied as needed); n may be short of the header's. */
int mres_row(struct mres *m, const struct mres_value *cells, size_t n, struct strbuf *err);
/* The table's end. */
int mres_end(struct mres *m, struct strbuf *err);

/* The merged tables; -1 with msprobe's message ("Nothing to merge.") when there is none. */
int mres_finish(struct mres *m, struct strbuf *err);

/* The merged tables, once finished: one per index, in order. */
size_t mres_nindexes(const struct mres *m);
const char *mres_index(const struct mres *m, size_t i);
/* The ranks with a column, in rank order. */
size_t mres_nranks(const struct mres *m);
int64_t mres_rank(const struct mres *m, size_t j);
size_t mres_nrows(const struct mres *m, size_t i);
const char *mres_row_name(const struct mres *m, size_t i, size_t r);
/* The value of row r of table i for rank j, NULL when that rank has no such row. */
const struct mres_value *mres_cell(const struct mres *m, size_t i, size_t r, size_t j);

/* str() of a value, appended (ints as digits, floats as repr, True/False, nan). */
void mres_str(struct strbuf *out, const struct mres_value *v);

#endif
