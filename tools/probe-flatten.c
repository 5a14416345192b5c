/*
 * probe-flatten: msprobe dumps in, one record per leaf out (NDJSON).
 */
#include "../lib/compare/csvin.h"
#include "../lib/dumps/flatten.h"
#include "../lib/dumps/hint.h"
#include "../lib/dumps/layout.h"
#include "../lib/core/msg.h"
#include "../lib/core/opt.h"
#include "../lib/records/output.h"
#include "../lib/core/progress.h"
#include "../lib/dumps/record.h"
#include "../lib/core/xalloc.h"

#include <sys/stat.h>
#include <unistd.h>

enum { OPT_RANK = 256, OPT_STEP, OPT_LIST, OPT_ONLY_RANKS, OPT_BATCHES };

static const struct opt_spec options[] = {
	{ OPT_RANK, 0, "rank", "N", "label the records with rank N (one dump only)", NULL, 0 },
	{ OPT_STEP, 0, "step", "N", "label the records with step N (one dump only)", NULL, 0 },
	{ OPT_ONLY_RANKS, 0, "only-ranks", "LIST", "read only these ranks: numbers and ranges, e.g. 0,4-7", NULL, 0 },
	{ OPT_LIST, 0, "list", NULL, "list the dump files found, one record each, and read none", NULL, 0 },
	{ OPT_BATCHES, 0, "batches", "N",
	  "print the ranks in N batches of consecutive ranks and about equal bytes, an --only-ranks LIST a line, "
	  "and read none (one job a batch: probe(7))", NULL, 0 },
	{ 'q', 'q', "quiet", NULL, "print no warnings", NULL, 0 },
};

static const struct tool_spec spec = {
	.name = "probe-flatten",
	.synopsis = "[-q] [--rank N] [--step N] [--only-ranks LIST] [--list | --batches N] [dump ...]",
	.summary = "Read msprobe dumps (dump.json, a rank, step or root directory, or stdin) and write "
		   "one record per leaf, in msprobe's row order.",
	.opts = options,
	.nopts = ARRAY_SIZE(options),
	.operand_flags = OPT_DUMP,
};

struct output {
	struct strbuf buf;
};

static int write_text(const char *record, size_t len, void *ctx)
{
	struct output *o = ctx;
	strbuf_add(&o->buf, record, len);
	output_flush_strbuf(&o->buf, 1 << 16);
	return 0;
}

static int write_record(const char *record, size_t len, const struct leafrec *rec, void *ctx)
{
	(void)rec;
	progress_items(1, "leaves");
	return write_text(record, len, ctx);
}

/* A compare_result CSV of msprobe: its rows as metric records. */
static void flatten_csv(const char *path)
{
	struct output o = { STRBUF_INIT };
	struct strbuf err = STRBUF_INIT;
	int ret = csvin_read(path, write_text, &o, &err);
	output_flush_strbuf(&o.buf, 0);
	if (ret < 0)
		die("%s", err.buf);
	strbuf_release(&o.buf);
	strbuf_release(&err);
}

static void flatten_one(const struct dump_file *df, int64_t rank, int64_t step)
{
	struct output o = { STRBUF_INIT };
	struct strbuf err = STRBUF_INIT;
	int ret = flatten_dump(df, rank, step, write_record, &o, &err);
	output_flush_strbuf(&o.buf, 0);
	if (ret < 0)
		die("%s", err.buf);
	strbuf_release(&o.buf);
	strbuf_release(&err);
}

static void list_one(const struct dump_file *df, int64_t rank, int64_t step)
{
	struct strbuf sb = STRBUF_INIT;
	record_add_dump_file(&sb, df, rank >= 0 ? rank : df->rank, step >= 0 ? step : df->step);
	output_write(sb.buf, sb.len);
	strbuf_release(&sb);
}

/* --batches: the lines, written whole (a failure writes nothing). */
static void print_batches(const struct dump_list *list, size_t n)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	if (layout_rank_batches(list, NULL, n, &out, &err) < 0)
		die("%s", err.buf);
	if (fwrite(out.buf, 1, out.len, stdout) != out.len || fflush(stdout))
		die("standard output: %s", strerror(errno));
	strbuf_release(&out);
	strbuf_release(&err);
}

int main(int argc, char **argv)
{
	struct dump_list list = DUMP_LIST_INIT;
	struct strbuf err = STRBUF_INIT;
	const char *arg;
	int64_t rank = -1, step = -1;
	bool list_only = false;
	int64_t batches = 0;
	const char *only_ranks = NULL;
	int c, first;

	msg_set_progname(argv[0]);
	output_mark_incomplete_on_die(); /* from the first error on, even a usage error: the tools after it stop quietly */
	while ((c = opt_next(&spec, argc, argv, &arg, &first)) != -1) {
		switch (c) {
		case OPT_RANK:
			rank = opt_number(&spec, "--rank", arg, 0, INT32_MAX);
			break;
		case OPT_STEP:
			step = opt_number(&spec, "--step", arg, 0, INT32_MAX);
			break;
		case OPT_LIST:
			list_only = true;
			break;
		case OPT_BATCHES:
			output_no_error_record(); /* the lines are rank lists for a job runner, not records */
			batches = opt_number(&spec, "--batches", arg, 1, 65536);
			break;
		case OPT_ONLY_RANKS:
			only_ranks = arg;
			if (!layout_rank_list_valid(arg))
				opt_usage_error(&spec, "--only-ranks value is not a list of ranks: %s", arg);
			break;
		case 'q':
			msg_set_quiet(true);
			break;
		}
	}
	argc -= first;
	argv += first;
	if (!argc && isatty(0))
		opt_usage_error(&spec, "no dump given and standard input is a terminal");

	for (int i = 0; i < (argc ? argc : 1); i++) {
		if (layout_add_operand(argc ? argv[i] : "-", &list, &err) < 0)
			die("%s", err.buf);
	}
	if (only_ranks && layout_keep_ranks(&list, only_ranks, &err) < 0)
		die("%s", err.buf);
	if ((rank >= 0 || step >= 0) && list.nr > 1) {
		strbuf_addf(&err, "--rank and --step label one dump, and these operands hold %zu", list.nr);
		hint_one_dump(&list, &err);
		opt_usage_error(&spec, "%s", err.buf);
	}
	if (list.nr == 1)
		hint_relabel(&list.v[0], rank, step);
	if (batches && list_only)
		opt_usage_error(&spec, "--list and --batches are two listings: give one");
	if (batches) {
		print_batches(&list, (size_t)batches);
		layout_release(&list);
		strbuf_release(&err);
		return PROBE_OK;
	}

	output_init();
	output_mark_incomplete_on_die();
	if (!list_only) {
		uint64_t total = 0;
		for (size_t i = 0; i < list.nr; i++)
			total += progress_size(list.v[i].path);
		progress_start(total);
		if (argc == 1)
			progress_what(argv[0]);
	}
	for (size_t i = 0; i < list.nr; i++) {
		progress_part(layout_one_step_of_ranks(&list) ? "rank" : "dump file", i + 1, list.nr);
		if (list_only)
			list_one(&list.v[i], rank, step);
		else if (list.v[i].csv)
			flatten_csv(list.v[i].path);
		else
			flatten_one(&list.v[i], rank, step);
	}
	progress_end();
	output_close();
	layout_release(&list);
	strbuf_release(&err);
	return PROBE_OK;
}
