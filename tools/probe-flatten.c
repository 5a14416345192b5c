/*
 * probe-flatten: msprobe dumps in, one record per leaf out (NDJSON).
 */
#include "../lib/dump.h"
#include "../lib/layout.h"
#include "../lib/msg.h"
#include "../lib/opt.h"
#include "../lib/output.h"
#include "../lib/record.h"

#include <unistd.h>

enum { OPT_RANK = 256, OPT_STEP, OPT_LIST };

static const struct opt_spec options[] = {
	{ OPT_RANK, 0, "rank", "N", "label the records with rank N (one dump only)", NULL, 0 },
	{ OPT_STEP, 0, "step", "N", "label the records with step N (one dump only)", NULL, 0 },
	{ OPT_LIST, 0, "list", NULL, "list the dump files found, one record each, and read none", NULL, 0 },
	{ 'q', 'q', "quiet", NULL, "print no warnings", NULL, 0 },
};

static const struct tool_spec spec = {
	.name = "probe-flatten",
	.synopsis = "[-q] [--rank N] [--step N] [--list] [dump ...]",
	.summary = "Read msprobe dumps (dump.json, a rank, step or root directory, or stdin) and write "
		   "one record per leaf, in msprobe's row order.",
	.opts = options,
	.nopts = ARRAY_SIZE(options),
	.operand_flags = OPT_DUMP,
};

struct flatten {
	struct record_source src;
	struct strbuf out;
};

static int write_leaf(const struct dump_reader *d, const struct leaf *leaf, void *ctx)
{
	struct flatten *f = ctx;
	(void)d;
	if (!f->src.task) {
		f->src.task = d->meta.task;
		f->src.tensor_dir = record_tensor_dir(d->path, d->meta.dump_data_dir);
		record_source_prepare(&f->src);
	}
	record_add_leaf(&f->out, &f->src, leaf);
	output_flush_strbuf(&f->out, 1 << 16);
	return 0;
}

static void flatten_one(const struct dump_file *df, int64_t rank, int64_t step)
{
	struct dump_reader d;
	struct flatten f = { .out = STRBUF_INIT };

	dump_reader_init(&d, df->path);
	d.debug_file = df->debug;
	f.src = (struct record_source){
		.rank = rank >= 0 ? rank : df->rank,
		.step = step >= 0 ? step : df->step,
		.dump = df->path,
	};
	if (dump_read(&d, write_leaf, &f) < 0) {
		output_flush_strbuf(&f.out, 0);
		die("%s", d.err.buf);
	}
	output_flush_strbuf(&f.out, 0);
	free((char *)f.src.tensor_dir);
	record_source_release(&f.src);
	strbuf_release(&f.out);
	dump_reader_release(&d);
}

static void list_one(const struct dump_file *df, int64_t rank, int64_t step)
{
	struct strbuf sb = STRBUF_INIT;
	record_add_dump_file(&sb, df, rank >= 0 ? rank : df->rank, step >= 0 ? step : df->step);
	output_write(sb.buf, sb.len);
	strbuf_release(&sb);
}

int main(int argc, char **argv)
{
	struct dump_list list = DUMP_LIST_INIT;
	struct strbuf err = STRBUF_INIT;
	const char *arg;
	int64_t rank = -1, step = -1;
	bool list_only = false;
	int c, first;

	msg_set_progname(argv[0]);
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
		case 'q':
			msg_set_quiet(true);
			break;
		}
	}
	argc -= first;
	argv += first;
	if (!argc && isatty(0))
		opt_usage_error(&spec, "no dump given and standard input is a terminal");

	for (int i = 0; i < (argc ? argc : 1); i++)
		if (layout_discover(argc ? argv[i] : "-", &list, &err) < 0)
			die("%s", err.buf);
	if ((rank >= 0 || step >= 0) && list.nr > 1)
		opt_usage_error(&spec, "--rank and --step label one dump, and these operands hold %zu", list.nr);

	output_init();
	output_mark_incomplete_on_die();
	for (size_t i = 0; i < list.nr; i++) {
		if (list_only)
			list_one(&list.v[i], rank, step);
		else
			flatten_one(&list.v[i], rank, step);
	}
	output_close();
	dump_list_release(&list);
	strbuf_release(&err);
	return PROBE_OK;
}
