/*
 * probe-match: pair target leaf records with the leaves of a golden dump.
 */
#include "../lib/dumps/hint.h"
#include "../lib/dumps/layout.h"
#include "../lib/records/lines.h"
#include "../lib/compare/match.h"
#include "../lib/compare/consist.h"
#include "../lib/compare/layermap.h"
#include "../lib/core/msg.h"
#include "../lib/core/opt.h"
#include "../lib/records/output.h"
#include "../lib/core/progress.h"
#include "../lib/core/textesc.h"

#include <unistd.h>

enum { OPT_DATA_MAPPING = 256, OPT_CELL_MAPPING, OPT_API_MAPPING, OPT_RANKS_BY_POSITION, OPT_ONLY_RANKS, OPT_PARTIAL, OPT_CONSISTENCY,
       OPT_LAYER_MAPPING, OPT_SAVE_MAPPING };

static const struct opt_spec options[] = {
	{ 'f', 'f', "fuzzy", NULL, "pair rows by name without call index, k-th with k-th (msprobe -fm)", NULL, 0 },
	{ OPT_DATA_MAPPING, 0, "data-mapping", "FILE", "map target row names to golden ones (msprobe -dm)", NULL,
	  OPT_FILE },
	{ OPT_API_MAPPING, 0, "api-mapping", "FILE",
	  "map MindSpore API names to PyTorch's by msprobe's built-in table, and FILE's APIs and arguments (msprobe -am)",
	  NULL, OPT_FILE | OPT_OPTIONAL },
	{ OPT_CELL_MAPPING, 0, "cell-mapping", "FILE",
	  "map Cell to Module and module names by FILE (msprobe -cm)", NULL, OPT_FILE | OPT_OPTIONAL },
	{ OPT_LAYER_MAPPING, 0, "layer-mapping", "FILE",
	  "derive a data mapping from both dumps' module scopes, with FILE's renames per module class (msprobe -lm)",
	  NULL, OPT_FILE | OPT_OPTIONAL },
	{ OPT_SAVE_MAPPING, 0, "save-mapping", "DIR",
	  "with --layer-mapping: write each derived mapping into DIR as msprobe's data_mapping_<ts>.yaml", NULL,
	  OPT_DIR },
	{ OPT_RANKS_BY_POSITION, 0, "ranks-by-position", NULL, "pair the k-th target rank with the k-th golden rank",
	  NULL, 0 },
	{ OPT_ONLY_RANKS, 0, "only-ranks", "LIST", "read only these ranks of the golden dump, e.g. 0,4-7", NULL, 0 },
	{ OPT_PARTIAL, 0, "partial", NULL,
	  "accept a partial comparison: most target leaves unmatched; mark the unpaired leaves for the tools after",
	  NULL, 0 },
	{ OPT_CONSISTENCY, 0, "consistency", "BACKEND",
	  "verl training (target) against inference (golden) as msprobe --consistent_check --backend does",
	  "fsdp|megatron", 0 },
	{ 'v', 'v', "verbose", NULL, "print the counts of pairs and the unmatched leaves by class on stderr at the end",
	  NULL, 0 },
};

static const struct tool_spec spec = {
	.name = "probe-match",
	.synopsis = "[-fv] [--api-mapping[=FILE]] [--data-mapping FILE] [--cell-mapping[=FILE]] "
		    "[--layer-mapping[=FILE] [--save-mapping DIR]] [--ranks-by-position] [--only-ranks LIST] "
		    "[--partial] golden [target-records]\n"
		    "--consistency BACKEND [-v] inference [training-records]",
	.summary = "Pair each target leaf record (stdin, from probe-flatten) with the golden leaf of the same "
		   "msprobe compare key; golden is a dump or a file of leaf records.",
	.opts = options,
	.nopts = ARRAY_SIZE(options),
	.operand_flags = OPT_DUMP,
};

static int add_training_line(void *ctx, const char *line, size_t len, struct strbuf *out, struct strbuf *err)
{
	(void)out;
	return consist_side_add(ctx, line, len, err);
}

/* --consistency: both sides whole, the pairs in msprobe's row order (consist.h). */
static int match_consistency(enum consist_backend backend, const char *golden, const char *target, bool verbose)
{
	struct consist_side *train = consist_side_new(), *infer = consist_side_new();
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct consist_stats st;
	struct line_reader *lr;
	struct line_sink sink = { .ctx = train, .add = add_training_line };

	if (consist_side_load(infer, golden, &err) < 0)
		die("%s", err.buf);
	if (!(lr = line_reader_open(target, &err)))
		die("%s", err.buf);
	if (line_reader_feed(lr, &sink, NULL, &err) < 0)
		die("%s", err.buf);
	line_reader_close(lr);
	if (consist_match(backend, train, infer, &out, &st, &err) < 0)
		die("%s", err.buf);
	output_init();
	output_mark_incomplete_on_die();
	output_flush_strbuf(&out, 0);
	output_close();
	if (verbose)
		msg_report("%zu rows: %zu matched (%zu of them joined), %zu training only, %zu inference only; "
			   "%zu training leaves outside the parse window", st.rows, st.matched, st.joined, st.train_only,
			   st.infer_only, st.skipped);
	consist_side_free(train);
	consist_side_free(infer);
	strbuf_release(&out);
	strbuf_release(&err);
	return PROBE_OK;
}

static void load_mapping(struct yamlmap *map, const char *path)
{
	struct strbuf err = STRBUF_INIT;
	if (yamlmap_load(map, path, &err) < 0)
		die("%s", err.buf);
	strbuf_release(&err);
}

/* The pairs so far to standard output, while a long run of golden-only records is written. */
static void drain_output(struct strbuf *out)
{
	output_flush_strbuf(out, 0);
}

int main(int argc, char **argv)
{
	struct match_options mo = { 0 };
	struct yamlmap data_map = YAMLMAP_INIT, cell_map = YAMLMAP_INIT;
	struct layer_rules *layer_rules = NULL;
	struct msapi_user api_user = MSAPI_USER_INIT;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct line_reader *lr;
	struct line_sink sink;
	struct matcher *m;
	const char *arg, *target = "-";
	bool verbose = false, consistency = false;
	enum consist_backend backend = CONSIST_FSDP;
	int c, first;

	msg_set_progname(argv[0]);
	output_mark_incomplete_on_die(); /* from the first error on, even a usage error: the tools after it stop quietly */
	if (hint_msprobe_compare(argc, argv, &err))
		die("%s", err.buf);
	while ((c = opt_next(&spec, argc, argv, &arg, &first)) != -1) {
		switch (c) {
		case 'f':
			mo.fuzzy = true;
			break;
		case OPT_DATA_MAPPING:
			load_mapping(&data_map, arg);
			mo.data_mapping = &data_map;
			break;
		case OPT_API_MAPPING:
			mo.api_mapping = true;
			if (arg) {
				msapi_user_release(&api_user);
				strbuf_reset(&err);
				if (msapi_user_load(&api_user, arg, &err, &err) < 0)
					die("%s", err.buf);
				if (err.len)
					warning("%s", err.buf);
				strbuf_reset(&err);
				mo.api_user = &api_user;
			}
			break;
		case OPT_CELL_MAPPING:
			mo.cell_mapping = true;
			if (arg) {
				load_mapping(&cell_map, arg);
				mo.cell_map = &cell_map;
			}
			break;
		case OPT_LAYER_MAPPING:
			layer_rules_free(layer_rules);
			if (!(layer_rules = layer_rules_load(arg, &err)))
				die("%s", err.buf);
			mo.layer_rules = layer_rules;
			break;
		case OPT_SAVE_MAPPING:
			mo.save_mapping = arg;
			break;
		case OPT_RANKS_BY_POSITION:
			mo.ranks_by_position = true;
			break;
		case OPT_ONLY_RANKS:
			if (!layout_rank_list_valid(arg))
				opt_usage_error(&spec, "--only-ranks value is not a list of ranks: %s", arg);
			mo.only_ranks = arg;
			break;
		case OPT_PARTIAL:
			mo.partial = true;
			break;
		case OPT_CONSISTENCY:
			if (consist_backend_parse(arg, &backend) < 0)
				opt_usage_error(&spec, "--consistency takes fsdp or megatron, not %s", arg);
			consistency = true;
			break;
		case 'v':
			verbose = true;
			break;
		}
	}
	argc -= first;
	argv += first;
	if (argc < 1 || argc > 2)
		opt_usage_error(&spec, argc < 1 ? "no golden dump given" : "too many operands");
	if (argc == 2)
		target = argv[1];
	if (hint_dump_operand(argv[0], target, &err))
		die("%s", err.buf);
	if (!strcmp(target, "-") && isatty(0))
		opt_usage_error(&spec, "no target records given and standard input is a terminal");

	if (consistency) {
		if (mo.fuzzy || mo.data_mapping || mo.cell_mapping || mo.api_mapping || mo.ranks_by_position ||
		    mo.only_ranks || mo.partial || mo.layer_rules)
			opt_usage_error(&spec, "--consistency has its own pairing: it takes no other pairing option");
		return match_consistency(backend, argv[0], target, verbose);
	}
	if (mo.save_mapping && !mo.layer_rules)
		opt_usage_error(&spec, "--save-mapping writes the mapping --layer-mapping derives: give --layer-mapping");
	mo.drain = drain_output;
	m = matcher_new(&mo);
	/* golden and target are read at once: no total, only what has been read */
	progress_start(0);
	if (matcher_load_golden(m, argv[0], &err) < 0)
		die("%s", err.buf);
	if (!(lr = line_reader_open(target, &err)))
		die("%s", err.buf);

	sink = matcher_sink(m);
	output_init();
	output_mark_incomplete_on_die();
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
		matcher_summary(m, &out);
		msg_report("%s", out.buf); /* names from the dumps: made safe for a terminal */
	}
	line_reader_close(lr);
	matcher_free(m);
	yamlmap_release(&data_map);
	yamlmap_release(&cell_map);
	layer_rules_free(layer_rules);
	msapi_user_release(&api_user);
	strbuf_release(&out);
	strbuf_release(&err);
	return PROBE_OK;
}
