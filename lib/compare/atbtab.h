/*
 * atbtab.h: msprobe's ATB compare table (msprobe compare -m atb) from the
 * pair records of two ATB (MindIE) dumps, and our verdict on each pair.
 *
 * Reference: msprobe-atb.md.  The leaves are those of atb.h (type
 * "atb.Tensor"), paired by probe-match on msprobe's data name.  msprobe's
 * table, one per exec folder pair (a group: the target's device and exec
 * count, i.e. rank and step):
 *
 *   mode     statistics when the target's first row has no tensor file
 *            (task "statistics"), else tensor; the golden's must be the
 *            same (msprobe: "Unvalid ATB dump data", no file): else an error
 *   rows     the target's rows that have a golden partner, in target
 *            order; unmatched and golden-only leaves are not rows (msprobe
 *            drops them without a word): they are counted and reported
 *   columns  Target/Golden Data Name, Device and PID, Execution Count,
 *            Data Type, Data Shape; then statistics: the four diffs
 *            (str(t - g)) and relative errors in percent ('0.0' when the
 *            diff is 0, N/A when the golden is 0, str(abs(diff / g * 100))),
 *            N/A where either side is not a Python float; or tensor:
 *            Cosine, Euc Distance, Max Absolute Err, Max Relative Err, One
 *            and Five Thousandth Err Ratio (tmetric.h's cells, each str() of
 *            its float, "nan" and non-numbers N/A); then Target/Golden Max,
 *            Min, Mean, Norm: the row's text in statistics mode, computed from
 *            the tensor in tensor mode as torch does on the CPU (integers and
 *            float64 as float32; float16 and bfloat16 mean and norm rounded to
 *            their type; bool: Max "tensor(True|False)" = any, Min = all,
 *            Mean and Norm N/A; empty or 0-d: N/A)
 *   invalid  an alias file (filter_level 1, "alias" in the record) or a
 *            file that does not open: its side's statistics and every metric
 *            N/A, as msprobe reads it; our verdict reads the file the alias
 *            names
 *
 * Every cell is text, in the CSV (pandas' quoting, mscsv.h) and in the
 * workbook (one sheet, "Sheet1", pandas' header style).  Files, with -o
 * DIR: atb_<statistics|tensor>_compare_result_<YYYYmmddHHMMSS>.<csv|xlsx>
 * (msprobe's name, .csv for ours); when the input holds several groups,
 * each under DIR/<target Device and PID>/<exec count>/.  Without -o, one
 * group only goes to out.
 *
 * Ours (the records): each pair record with "msprobe" (mode, table "atb",
 * the cells of its row, or null for a pair that is not a row), "verdict",
 * "reason" and "metrics" (verdict.h): the statistics compared as text, the
 * elements bitwise (or within the band) in tensor mode.
 *
 * Memory: the cells of every row until the end (ATB tables have thousands
 * of rows); tensors are read a chunk at a time.
 */
#ifndef PROBE_ATBTAB_H
#define PROBE_ATBTAB_H

#include "../core/strbuf.h"

#include <stdbool.h>

enum atb_output { ATB_NDJSON, ATB_CSV, ATB_XLSX };

struct atb_table_options {
	enum atb_output output;
	const char *output_dir;  /* the files there (see above); NULL: out */
	double rtol, atol;       /* our verdict's band (both 0: bitwise) */
	int jobs;                /* tensor mode: > 1 lets a second thread work out the target's statistics
				    while the tensors are compared (large tensors only) */
};

struct atb_table;
struct atb_table *atb_table_new(const struct atb_table_options *opts);
void atb_table_free(struct atb_table *t);

/* One pair record (a line without its newline); NDJSON goes to out at once.  0, or PROBE_ERR_LINE with the reason. */
int atb_table_add(struct atb_table *t, const char *line, size_t len, struct strbuf *out, struct strbuf *err);
/* After the last pair: the table (CSV or workbook) to out, or its files.  0, or -1 with the reason in err. */
int atb_table_finish(struct atb_table *t, struct strbuf *out, struct strbuf *err);

struct atb_table_stats {
	size_t pairs, rows, same, diff, unmatched, golden_only, unreadable;
};
void atb_table_stats(const struct atb_table *t, struct atb_table_stats *out);

/* Whether a pair record line holds an ATB leaf (type "atb.Tensor"). */
bool atb_pair_line(const char *line, size_t len);

#endif
