/*
 * probe-compare: msprobe compare's command line, run as the probe pipeline
 * (probe-flatten | probe-match | probe-metric [| probe-first --msprobe]),
 * msprobe's files written with msprobe's names.  No comparison of its own.
 */
#include "../lib/dumps/mscli.h"
#include "../lib/core/msg.h"
#include "../lib/core/opt.h"
#include "../lib/core/pipeline.h"

enum { OPT_TP = 256, OPT_GP, OPT_FM, OPT_DM, OPT_CM, OPT_AM, OPT_LM, OPT_DA, OPT_XLSX };

static const struct opt_spec options[] = {
	{ OPT_TP, 0, "tp", "TARGET", "the target dump, msprobe's -tp/--target_path (a step or rank folder, a dump.json)",
	  NULL, OPT_DUMP },
	{ OPT_GP, 0, "gp", "GOLDEN", "the golden dump, msprobe's -gp/--golden_path", NULL, OPT_DUMP },
	{ 'o', 'o', "output-dir", "DIR", "write the files into DIR, made when missing (default ./output, as msprobe's)",
	  NULL, OPT_DIR },
	{ OPT_FM, 0, "fm", NULL, "pair rows by name without call index (msprobe -fm; probe-match --fuzzy)", NULL, 0 },
	{ OPT_DM, 0, "dm", "FILE", "map target row names to golden ones (msprobe -dm; probe-match --data-mapping)", NULL,
	  OPT_FILE },
	{ OPT_CM, 0, "cm", "FILE", "map Cell to Module names (msprobe -cm; probe-match --cell-mapping)", NULL,
	  OPT_FILE | OPT_OPTIONAL },
	{ OPT_AM, 0, "am", "FILE", "map MindSpore API names to PyTorch's (msprobe -am; probe-match --api-mapping)", NULL,
	  OPT_FILE | OPT_OPTIONAL },
	{ OPT_LM, 0, "lm", "FILE", "derive a mapping from module scopes (msprobe -lm; probe-match --layer-mapping)", NULL,
	  OPT_FILE | OPT_OPTIONAL },
	{ OPT_DA, 0, "da", NULL, "msprobe's first differing node (msprobe -da; probe-first --msprobe) instead of tables",
	  NULL, 0 },
	{ OPT_XLSX, 0, "xlsx", NULL, "write workbooks instead of CSV files (msprobe --xlsx; probe-metric --xlsx)", NULL,
	  0 },
	{ 'v', 'v', "verbose", NULL, "print the pipeline on standard error before running it", NULL, 0 },
};

static const struct tool_spec spec = {
	.name = "probe-compare",
	.synopsis = "[-v] --tp TARGET --gp GOLDEN [-o DIR] [--fm] [--dm FILE] [--cm[=FILE]] [--am[=FILE]] "
		    "[--lm[=FILE]] [--da] [--xlsx]",
	.summary = "Run msprobe compare's command line (msprobe's spellings -tp, --target_path=, -cm F ... taken too) "
		   "as the probe pipeline, writing msprobe's files with msprobe's names.",
	.opts = options,
	.nopts = ARRAY_SIZE(options),
};

int main(int argc, char **argv)
{
	struct mscli_compare c = { 0 };
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	char **stages[MSCLI_MAX_STAGES];
	bool verbose = false;
	const char *arg;
	int ch, first, ret;
	size_t n;
	char **args = mscli_argv(argc, argv, &argc);

	msg_set_progname(args[0]);
	while ((ch = opt_next(&spec, argc, args, &arg, &first)) != -1) {
		switch (ch) {
		case OPT_TP:
			c.target = arg;
			break;
		case OPT_GP:
			c.golden = arg;
			break;
		case 'o':
			c.output = arg;
			break;
		case OPT_FM:
			c.fuzzy = true;
			break;
		case OPT_DM:
			c.data_mapping = arg;
			break;
		case OPT_CM:
			c.cell_mapping = true, c.cell_mapping_file = arg;
			break;
		case OPT_AM:
			c.api_mapping = true, c.api_mapping_file = arg;
			break;
		case OPT_LM:
			c.layer_mapping = true, c.layer_mapping_file = arg;
			break;
		case OPT_DA:
			c.diff_analyze = true;
			break;
		case OPT_XLSX:
			c.xlsx = true;
			break;
		case 'v':
			verbose = true;
			break;
		}
	}
	if (first < argc)
		opt_usage_error(&spec, "unexpected operand: %s", args[first]);
	if (!c.target)
		opt_usage_error(&spec, "--tp is required (msprobe's -tp/--target_path)");
	if (!c.golden)
		opt_usage_error(&spec, "--gp is required (msprobe's -gp/--golden_path)");
	if (!c.target[0] || !c.golden[0] || (c.output && !c.output[0]))
		opt_usage_error(&spec, "%s needs a name", !c.target[0] ? "--tp" : !c.golden[0] ? "--gp" : "-o");

	mscli_stages(&c, stages, &n);
	if (verbose) {
		pipeline_text((char *const *const *)stages, n, &text);
		fprintf(stderr, "%s\n", text.buf);
	}
	ret = mscli_run(&c, (char *const *const *)stages, n, &err);
	if (ret < 0)
		die("%s", err.buf);
	mscli_stages_free(stages, n);
	mscli_argv_free(args);
	strbuf_release(&text);
	strbuf_release(&err);
	return ret;
}
