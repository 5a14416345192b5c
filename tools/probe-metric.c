/*
 * probe-metric: msprobe's metrics and verdict for pair records, and ours; msprobe's CSV.
 */
#include "../lib/records/lines.h"
#include "../lib/compare/metric.h"
#include "../lib/core/msg.h"
#include "../lib/core/opt.h"
#include "../lib/core/partial.h"
#include "../lib/records/output.h"
#include "../lib/core/progress.h"

#include <math.h>
#include <unistd.h>

enum { OPT_CSV = 256, OPT_XLSX, OPT_XLSX_READER, OPT_MODE, OPT_NO_STACK, OPT_OUTPUT_DIR, OPT_ROWS_PER_FILE, OPT_PARTIAL };

static const struct opt_spec options[] = {
	{ OPT_CSV, 0, "csv", NULL, "write msprobe's compare_result CSV instead of metric records", NULL, 0 },
	{ OPT_XLSX, 0, "xlsx", NULL, "write msprobe's compare_result workbook (.xlsx) instead of metric records", NULL, 0 },
	{ OPT_XLSX_READER, 0, "xlsx-reader", NULL,
	  "the workbook for people: header frozen, filters, widths, rows coloured by Result, the first divergence "
	  "marked, our verdict (implies --xlsx)", NULL, 0 },
	{ OPT_MODE, 0, "mode", "MODE", "force msprobe's mode instead of detecting it", "statistics|md5|tensor", 0 },
	{ OPT_BAND_RTOL, 0, "rtol", "X", "our verdict: statistics within this relative tolerance agree", NULL, 0 },
	{ OPT_BAND_ATOL, 0, "atol", "X", "our verdict: statistics within this absolute tolerance agree", NULL, 0 },
	{ OPT_NO_STACK, 0, "no-stack", NULL, "leave out the NPU_Stack_Info column", NULL, 0 },
	{ 'o', 'o', "output-dir", "DIR",
	  "write msprobe's CSV (or --xlsx) files into DIR, one per rank, as msprobe names them (implies --csv)", NULL, OPT_DIR },
	{ OPT_ROWS_PER_FILE, 0, "rows-per-file", "N", "split CSV files after N rows (default 1000000, as msprobe)",
	  NULL, 0 },
	{ OPT_PARTIAL, 0, "partial", NULL, "accept a partial comparison: most target leaves without a golden partner",
	  NULL, 0 },
	{ 'j', 'j', "jobs", "N", "threads at work on the pairs, this one included (default: the number of processors; half of them "
	  "for statistics or md5 pairs from a pipe)", NULL, 0 },
	{ 'v', 'v', "verbose", NULL, "print counts of verdicts and msprobe results on stderr at the end", NULL, 0 },
};

static const struct tool_spec spec = {
	.name = "probe-metric",
	.synopsis = "[-v] [-j N] [--csv | --xlsx | --xlsx-reader] [-o DIR] [--rows-per-file N] [--mode MODE] [--rtol X] [--atol X] [--no-stack] "
		    "[--partial] [pairs]",
	.summary = "Add to each pair record (from probe-match) msprobe's metrics, Result and Err_message, and "
		   "our own bitwise verdict; or write msprobe's compare_result CSV.",
	.opts = options,
	.nopts = ARRAY_SIZE(options),
	.operand_flags = OPT_FILE,
};

int main(int argc, char **argv)
{
	static const enum ms_mode modes[] = { MS_MODE_STATISTICS, MS_MODE_MD5, MS_MODE_TENSOR }; /* --mode's choices, in order */
	struct metric_options mo = { .output = METRIC_NDJSON };
	struct tm_band band = { 0 };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct line_reader *lr;
	struct line_sink sink;
	struct metric_stream *m;
	const char *arg, *input;
	bool verbose = false;
	int c, first;

	msg_set_progname(argv[0]);
	output_mark_incomplete_on_die(); /* from the first error on, even a usage error: the tools after it stop quietly */
	while ((c = opt_next(&spec, argc, argv, &arg, &first)) != -1) {
		if (verdict_band_option(&spec, c, arg, &band, NULL))
			continue;
		switch (c) {
		case OPT_CSV:
			mo.output = METRIC_CSV;
			break;
		case OPT_XLSX_READER:
			mo.xlsx_reader = true;
			/* fall through */
		case OPT_XLSX:
			mo.output = METRIC_CSV;
			mo.xlsx = true;
			break;
		case OPT_MODE:
			mo.force_mode = true;
			mo.mode = modes[opt_choice(&spec, c, arg)];
			break;
		case OPT_NO_STACK:
			mo.no_stack = true;
			break;
		case 'o':
			mo.output = METRIC_CSV;
			mo.output_dir = arg;
			break;
		case OPT_ROWS_PER_FILE:
			mo.rows_per_file = (size_t)opt_number(&spec, "--rows-per-file", arg, 1, INT64_MAX);
			break;
		case 'j':
			mo.jobs = (int)opt_number(&spec, "--jobs", arg, 1, 1024);
			break;
		case OPT_PARTIAL:
			mo.partial = true;
			break;
		case 'v':
			verbose = true;
			break;
		}
	}
	if (mo.output != METRIC_NDJSON)
		output_no_error_record(); /* stdout holds a table, a workbook or nothing: no room for a record */
	mo.band.rtol = band.rtol;
	mo.band.atol = band.atol;
	argc -= first;
	argv += first;
	input = opt_input_operand(&spec, argc, argv, "pair records");
	progress_start(progress_size(input));
	if (strcmp(input, "-"))
		progress_what(input);
	if (!(lr = line_reader_open(input, &err)))
		die("%s", err.buf);
	if (mo.output_dir && partial_make_dirs(mo.output_dir, &err) < 0)
		die("%s", err.buf); /* msprobe's -o makes its directory too */
	if (mo.output_dir && access(mo.output_dir, W_OK))
		die_errno("%s: cannot write there", mo.output_dir);
	if (mo.xlsx && mo.rows_per_file)
		opt_usage_error(&spec, "--rows-per-file splits CSV files; a workbook's sheets are split as msprobe splits them");
	if (mo.xlsx && !mo.output_dir && isatty(STDOUT_FILENO))
		die("a workbook is not for a terminal: redirect stdout to a file, or give -o DIR");

	mo.input_name = line_reader_name(lr);
	mo.input_shared = line_reader_is_pipe(lr);
	m = metric_new(&mo);
	sink = metric_sink(m);
	output_init();
	if (mo.output == METRIC_NDJSON)
		output_mark_incomplete_on_die();
	else if (!mo.output_dir)
		output_discard_on_failure();
	if (line_reader_feed(lr, &sink, &out, &err) < 0) {
		output_flush_strbuf(&out, 0);
		line_reader_close(lr);
		die("%s", err.buf);
	}
	output_flush_strbuf(&out, 0);
	progress_end();
	output_close();
	if (verbose) {
		strbuf_reset(&out);
		metric_summary(m, &out);
		msg_report("%s", out.buf);
	}
	line_reader_close(lr);
	metric_free(m);
	strbuf_release(&out);
	strbuf_release(&err);
	return PROBE_OK;
}
