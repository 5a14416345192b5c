/*
 * probe-first: the first divergent operator in execution order, per rank, and the rank that started it;
 * or, in one run, the first operator that made an inf or a NaN.
 */
#include "../lib/compare/first.h"
#include "../lib/compare/verdict.h"
#include "../lib/records/lines.h"
#include "../lib/core/msg.h"
#include "../lib/core/opt.h"
#include "../lib/records/output.h"
#include "../lib/core/progress.h"

#include <math.h>
#include <unistd.h>

enum { OPT_FORMAT = 256, OPT_NONFINITE, OPT_MSPROBE, OPT_PARTIAL, OPT_WHERE, OPT_BITWISE, OPT_FACTOR, OPT_EXPLAIN };

static const struct opt_spec options[] = {
	{ 'n', 'n', "count", "N", "report the first N divergences of each rank (default 1)", NULL, 0 },
	{ OPT_FORMAT, 0, "format", "FORMAT", "records (default) or text, a report for people", "records|text", 0 },
	{ OPT_BAND_RTOL, 0, "rtol", "X", "a statistic or element within this relative tolerance does not diverge", NULL, 0 },
	{ OPT_BAND_ATOL, 0, "atol", "X", "a statistic or element within this absolute tolerance does not diverge", NULL, 0 },
	{ OPT_BAND_ULPS, 0, "ulps", "N", "an element within N units in the last place of its dtype does not diverge", NULL,
	  0 },
	{ OPT_BAND_COS_MIN, 0, "cos-min", "X", "a tensor pair whose msprobe Cosine is at least X does not diverge", NULL,
	  0 },
	{ OPT_FACTOR, 0, "budget-factor", "F",
	  "a difference is a divergence when it is over F times what rounding explains there (default 12)", NULL, 0 },
	{ OPT_BITWISE, 0, "bitwise", NULL,
	  "no rounding budget: the first difference of any size is the answer", NULL, 0 },
	{ OPT_EXPLAIN, 0, "explain", NULL,
	  "with each rank's first divergence, the leaves before it judged rounding and their budgets", NULL, 0 },
	{ OPT_WHERE, 0, "where", "JQ",
	  "report only the divergences whose record the jq filter JQ chooses; every leaf still counts", NULL, 0 },
	{ OPT_PARTIAL, 0, "partial", NULL,
	  "accept a partial comparison: most leaves unmatched, or some not compared (exit 0 when no divergence)",
	  NULL, 0 },
	{ OPT_NONFINITE, 0, "nonfinite", NULL,
	  "one run's leaf records: the first operator whose inputs are finite and outputs are not", NULL, 0 },
	{ OPT_MSPROBE, 0, "msprobe", NULL,
	  "msprobe's answer instead: its -da rule and diff_analyze JSON (with --nonfinite: overflow_check's)", NULL,
	  0 },
};

static const struct tool_spec spec = {
	.name = "probe-first",
	.synopsis = "[-n N] [--format FORMAT] [--budget-factor F | --bitwise | --rtol X --atol X --ulps N --cos-min X] "
		    "[--explain] [--where JQ] [--partial] [--msprobe] [records]\n"
		    "--nonfinite [-n N] [--format FORMAT] [--msprobe] [records]",
	.summary = "Find where two runs start to differ: the first divergent leaf in execution order on each rank, "
		   "whether its operator made it or received it, and the rank that started it (exit 1 when found).",
	.opts = options,
	.nopts = ARRAY_SIZE(options),
	.operand_flags = OPT_FILE,
};

/* --budget-factor's value: a finite number above 0. */
static double budget_factor(const char *arg)
{
	char *end;
	double x = strtod(arg, &end);
	if (end == arg || *end || !isfinite(x) || !(x > 0))
		opt_usage_error(&spec, "--budget-factor value is not a number above 0: %s", arg);
	return x;
}

int main(int argc, char **argv)
{
	struct first_options fo = { .n = 1 };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct line_reader *lr;
	struct line_sink sink;
	struct first_stream *f;
	const char *arg, *input;
	bool text = false, msprobe = false, factor_given = false;
	const char *where = NULL;
	int c, first, r;

	msg_set_progname(argv[0]);
	output_mark_incomplete_on_die(); /* from the first error on, even a usage error: the tools after it stop quietly */
	while ((c = opt_next(&spec, argc, argv, &arg, &first)) != -1) {
		if (verdict_band_option(&spec, c, arg, &fo.band, &fo.cos_min))
			continue;
		switch (c) {
		case 'n':
			fo.n = (size_t)opt_number(&spec, "-n", arg, 1, 1000000);
			break;
		case OPT_FORMAT:
			text = opt_choice(&spec, c, arg) == 1; /* records|text */
			break;
		case OPT_NONFINITE:
			fo.nonfinite = true;
			break;
		case OPT_MSPROBE:
			msprobe = true;
			break;
		case OPT_PARTIAL:
			fo.partial = true;
			break;
		case OPT_WHERE:
			where = arg;
			break;
		case OPT_BITWISE:
			fo.bitwise = true;
			break;
		case OPT_FACTOR:
			fo.factor = budget_factor(arg);
			factor_given = true;
			break;
		case OPT_EXPLAIN:
			fo.explain = true;
			break;
		}
	}
	if (text)
		output_no_error_record(); /* a report for people: its message on stderr says it all */
	argc -= first;
	argv += first;
	input = opt_input_operand(&spec, argc, argv, "records");
	if (fo.nonfinite && (fo.band.rtol > 0 || fo.band.atol > 0 || fo.band.ulps > 0 || fo.cos_min > 0))
		opt_usage_error(&spec, "--nonfinite looks at one run: tolerance bands do not apply");
	if (where && !(fo.where = jqsel_new(where, &err)))
		opt_usage_error(&spec, "--where: %s", err.buf);
	if (factor_given && (fo.bitwise || fo.band.rtol > 0 || fo.band.atol > 0 || fo.band.ulps > 0 || fo.cos_min > 0))
		opt_usage_error(&spec, "--budget-factor sets the rounding budget, which --bitwise and a band replace");
	if (fo.explain && !fo.nonfinite &&
	    (fo.bitwise || fo.band.rtol > 0 || fo.band.atol > 0 || fo.band.ulps > 0 || fo.cos_min > 0))
		opt_usage_error(&spec, "--explain shows the rounding budget's decisions, which --bitwise and a band replace");
	if (fo.nonfinite && (fo.bitwise || factor_given || fo.explain))
		opt_usage_error(&spec, "--nonfinite looks at one run: the rounding budget does not apply");
	if (fo.nonfinite && fo.where)
		opt_usage_error(&spec, "--nonfinite reports every culprit: --where does not apply");
	if (fo.nonfinite && fo.partial)
		opt_usage_error(&spec, "--nonfinite looks at one run: --partial does not apply");
	if (msprobe && text)
		opt_usage_error(&spec, "--msprobe writes msprobe's JSON: --format does not apply");
	progress_start(progress_size(input));
	if (strcmp(input, "-"))
		progress_what(input);
	if (!(lr = line_reader_open(input, &err)))
		die("%s", err.buf);

	fo.msprobe = msprobe;
	f = first_new(&fo);
	sink = first_sink(f);
	if (line_reader_feed(lr, &sink, NULL, &err) < 0) {
		first_free(f);
		jqsel_free(fo.where);
		line_reader_close(lr);
		die("%s", err.buf);
	}

	/* everything is decided before the first byte goes out: no partial answer */
	output_init();
	r = first_status(f);
	if (msprobe)
		r = first_write_msprobe(f, &out) ? PROBE_DIFFERENT : PROBE_OK; /* msprobe's answer decides */
	else if (text)
		first_write_text(f, &out);
	else
		first_write_records(f, &out);
	output_flush_strbuf(&out, 0);
	progress_end();
	output_close();
	line_reader_close(lr);
	first_free(f);
	jqsel_free(fo.where);
	strbuf_release(&out);
	strbuf_release(&err);
	return r;
}
