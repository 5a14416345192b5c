/*
 * metric.h: pair records in, metric records or msprobe's CSV out (probe-metric).
 *
 * A metric stream takes pair records (see match.h) one line at a time and
 * gives back, in the same order:
 *   - NDJSON: each pair with "msprobe" (msprobe's mode, Result,
 *     Err_message and metric cells, exactly as its CSV has them; null for
 *     rows msprobe's compare leaves out), "verdict" and "reason" (ours, see
 *     verdict.h) and "metrics" (our numbers);
 *   - or CSV: msprobe's compare_result table, header included, golden-only
 *     leaves and entries msprobe ignores left out, as msprobe does.
 *
 * The mode is msprobe's (reference: msprobe-compare.md section 2): tensor
 * for task "tensor", md5 when the leaves carry an md5, statistics
 * otherwise; it is decided on the first tensor leaf (pairs before it wait)
 * or forced.  Dumps of different tasks (tensor against statistics, md5
 * against statistics) msprobe refuses to compare: CSV output is then an
 * error, and NDJSON output has "msprobe": null while our verdict compares
 * what the two have in common (the task table, alike.h).
 *
 * The pairs go through the like-for-like check (alike.h) in input order:
 * frameworks that differ are an error at once, the match-rate guard at
 * the end (before any CSV file is committed); tensor pairs that could not
 * be read get one warning at the end, with the directories not there.  Pairs also wait while msprobe's whole-table inferences could
 * still change them (mstable.h); output order is input order.
 *
 * Each target rank and step (and folder of a MindSpore graph/pynative root:
 * exec_mode, leafrec.h) makes a table of its own, as each is a compare of
 * its own for msprobe.  With output_dir, every table goes to a file named
 * as msprobe names it, compare_result[_<rank dir>]_<YYYYmmddHHMMSS>.csv,
 * split into _part_1, _part_2, ... beyond rows_per_file rows; the tables
 * of a graph/pynative root go into output_dir/<graph|pynative>/step<N>/,
 * made as needed, as msprobe's mix compare writes them.  Without it, CSV
 * output holds one table and a second one is an error.
 *
 * Pairs are parsed, and their cells and verdicts worked out, by opts.jobs
 * threads in batches of a few hundred: opts.jobs - 1 helpers and the calling
 * thread, which prepares batches no helper has taken while it waits for one;
 * what depends on the pairs before them (tables, msprobe's whole-table rules,
 * output) is done in input order by the calling thread.  Memory: the batches in flight (about 2 per thread) and the
 * pairs waiting to be written.
 *
 * With opts.xlsx the table is msprobe's compare --xlsx workbook instead:
 * compare_result[_<rank dir>]_<YYYYmmddHHMMSS>.xlsx, each cell of the
 * type msprobe's has (ms_cell_type), its rows split into sheets as
 * msprobe's save_excel splits them (xlsxw.h; rows_per_file is for CSV
 * files only), committed as the CSV files are; without output_dir the
 * workbook goes to out at the end (it is made in $TMPDIR first).
 * xlsx_reader adds what msprobe's layout has not (xlsxw.h's reader
 * layout): rows filled by msprobe's Result (warning, error), the table's
 * first divergence (our verdict's first "diff") in bold, and our verdict
 * and reason as the last two columns.
 *
 * Pair records of a consistency compare (consist.h: the first has
 * "consistency") go to the consistency table instead (consisttab.c), whole:
 * msprobe's table of that mode and our verdict; --xlsx is refused there.
 *
 * The NPU_Stack_Info column is there when the first target record's dump
 * has a stack.json beside it, or when the records carry "stack" (from
 * probe-stack); only the first row of each entry shows it.
 */
#ifndef PROBE_METRIC_H
#define PROBE_METRIC_H

#include "../msprobe/mstable.h"
#include "../core/strbuf.h"
#include "../records/lines.h"
#include "verdict.h"

enum metric_output { METRIC_NDJSON, METRIC_CSV };

struct metric_options {
	enum metric_output output;
	bool force_mode;
	enum ms_mode mode;
	struct verdict_options band;
	bool no_stack;          /* never add NPU_Stack_Info */
	const char *output_dir; /* CSV: write msprobe's files there instead of to out */
	size_t rows_per_file;   /* CSV files: split after this many rows (msprobe: 1,000,000) */
	int jobs;               /* threads that parse and prepare pairs, the caller's included; 1: the caller alone; 0: one per processor online (at most 64), half of them with input_shared */
	bool input_shared;      /* the pairs come from a pipe (line_reader_is_pipe()): the stages writing them share the processors (jobs 0 then starts half) */
	bool partial;           /* accept a partial comparison (alike.h) */
	bool xlsx;              /* CSV output as msprobe's --xlsx workbook instead (to stdout, or the files of output_dir) */
	bool xlsx_reader;       /* the workbook in the reader's layout (xlsxw.h), our verdict and reason as two more columns */
	const char *input_name; /* what messages call the input ("NAME:LINE: what"): line_reader_name() */
};

struct metric_stats {
	uint64_t pairs, rows, same, diff, unmatched, golden_only, unreadable;
	uint64_t pass, warning, error;
};

struct metric_stream;

struct metric_stream *metric_new(const struct metric_options *opts);
void metric_free(struct metric_stream *m);

/*
 * The stream as the sink of line_reader_feed() (lines.h).  Each pair record
 * is copied: it is read later, with others, by a worker thread (opts.jobs >
 * 1) or by this one.  When a line completes a batch, whatever became ready
 * is appended to out; at the end of the input, the rest.  A failure is
 * PROBE_ERR with a whole message (msg.h): the pairs are judged in batches,
 * later and by other threads, so the line a message is about may be an
 * earlier one; its position ("NAME:LINE: ", NAME from input_name, lines
 * counted from 1) is put before the message here.
 */
struct line_sink metric_sink(struct metric_stream *ctx);

/* The counts in one line, for -v: "N pairs: N same, ...; msprobe: N rows, ...". */
void metric_summary(const struct metric_stream *m, struct strbuf *out);

#endif
