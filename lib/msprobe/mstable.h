/*
 * mstable.h: msprobe's compare table, its metric cells and its verdict.
 *
 * This is "the msprobe verdict": the Result and Err_message columns of
 * msprobe compare 26.0.0, with its statistics diffs and md5 cells, exactly
 * as msprobe computes and prints them, quirks included (reference:
 * msprobe-compare.md sections 4, 5 and 7).  It is kept apart from our own
 * verdict (verdict.h) and never decides it.
 *
 * msprobe builds its table with pandas, and two of pandas' whole-column
 * type inferences change the text of some cells: a statistics column made
 * only of numbers prints its ints as floats when it holds a float, the
 * statistics of the unmatched rows are re-inferred on their own, and a
 * diff column whose cells all parse as integers keeps integer diffs.  To
 * reproduce them while streaming, rows are observed as they come
 * (ms_table_observe) and a row is final only once nothing that comes
 * later can change it (ms_row_final); in real dumps that is after the
 * first few rows, and at the end of the input everything is final.
 *
 * Rows are grouped by dump entry for the checkers (ms_judge_group), in
 * the order they come; the caller keeps the rows and their memory.
 */
#ifndef PROBE_MSTABLE_H
#define PROBE_MSTABLE_H

#include "../core/arena.h"
#include "mscell.h"

enum ms_mode {
	MS_MODE_STATISTICS,
	MS_MODE_MD5,
	MS_MODE_TENSOR,
};

const char *ms_mode_name(enum ms_mode m);

enum ms_level { MS_PASS, MS_WARNING, MS_ERROR };

#define MS_MAX_MSGS 8

struct ms_row {
	/* set by the caller */
	struct msleaf t;         /* the target ("NPU") leaf */
	struct msleaf g;         /* the golden ("Bench") leaf, when matched */
	bool matched;            /* false: msprobe's Bench columns are N/A (no golden leaf, or the dtype gate) */
	const char *stack;       /* NPU_Stack_Info text for this row ("N/A" when NULL) */
	const char *stack_csv;   /* the same as a ready CSV cell (quoted), when the caller has it */
	const char *const *tensor_cells; /* tensor mode: the six metric cells (tmetric.h), NULL: unsupported */

	/* set by ms_judge_group() */
	const char **cells;      /* the row's cells, in the order of ms_header() */
	enum ms_level result;
	const char *msgs[MS_MAX_MSGS];
	int nmsgs;
	const char *err_message; /* JSON list text of msgs */
};

struct ms_colstate {
	bool nonnumeric;  /* a cell that is not an int or float */
	bool has_float;
	bool nonintstr;   /* a cell whose str() is not an integer */
};

struct ms_table {
	enum ms_mode mode;
	bool stack_mode;              /* the NPU_Stack_Info column is there */
	struct ms_colstate col[8];    /* NPU max, min, mean, l2norm, Bench max, min, mean, l2norm */
	struct ms_colstate unmatched[4]; /* NPU statistics of the unmatched rows */
	bool at_end;                  /* the input is over: every row is final */
};

void ms_table_init(struct ms_table *t, enum ms_mode mode, bool stack_mode);

/* The index of the Result column in the current mode (Err_message follows it). */
int ms_result_col(const struct ms_table *t);
/* The header of the CSV, as msprobe writes it; *n receives the column count. */
const char *const *ms_header(const struct ms_table *t, size_t *n);

/* Take a row into account for the whole-table inferences (every row, in order). */
void ms_table_observe(struct ms_table *t, const struct ms_row *row);

/* Whether nothing later can change the cells of this row. */
bool ms_row_final(const struct ms_table *t, const struct ms_row *row);

/*
 * What msprobe's workbook (compare --xlsx) holds where its CSV holds the
 * text r->cells[col], for a judged row (reference: msprobe-xlsx.md, and
 * pandas' ExcelFormatter): a statistic that is a Python int or float is a
 * number (*num), a bool a boolean, a float NaN an empty cell, an infinity
 * the text "inf" / "-inf" (pandas' inf_rep; msprobe-xlsx.md says empty,
 * which is openpyxl's rule for a NaN or inf number that pandas never
 * passes it); the tensor metrics are numbers where msprobe computed a
 * float; Requires_grad Consistent is a boolean; everything else is text,
 * the CSV cell's (the infinities without the CSV's leading space).
 */
enum ms_cell_type { MS_CELL_TEXT, MS_CELL_NUMBER, MS_CELL_TRUE, MS_CELL_FALSE, MS_CELL_EMPTY };
enum ms_cell_type ms_cell_type(const struct ms_table *t, const struct ms_row *r, size_t col, double *num);

/*
 * msprobe's calc_summary_diff of one statistic: the "<stat> diff" and
 * "<Stat>RelativeErr" cells of an NPU value against a Bench value (equal
 * str(): "0"; non-numbers by its rules table: "N/A", "Nan", "inf",
 * "Diff"; numbers: the difference and |diff / bench| * 100 with '%', "inf"
 * against a zero).  integral: both columns parse as integers (pandas then
 * subtracts int64s).  The texts live in a; the calling thread's scratch is
 * used (ms_release_thread).
 */
void ms_stat_diff(const struct pyval *npu, const struct pyval *bench, bool integral, struct arena *a,
		  const char **diff, const char **rel);

/* The workbook type of a tensor metric cell (a float's repr: a number; a NaN: empty; words: text). */
enum ms_cell_type ms_metric_cell_type(const char *cell, double *num);

/* msprobe's utils.str2float: "12.5%" -> 0.125, "inf" -> inf, anything float() rejects -> 0. */
double ms_str2float(const char *s);

/* Cells, Result and Err_message of the rows of one dump entry (all final). */
void ms_judge_group(const struct ms_table *t, struct ms_row **rows, size_t n, struct arena *a);

/* The calling thread's scratch text, released before the thread ends. */
void ms_release_thread(void);

#endif
