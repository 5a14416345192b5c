/*
 * probe-config: are two runs set up alike?  msprobe's config_check packs (or
 * a pip list, an environment dump, a config, a launch script) compared check by check.
 */
#include "../lib/precheck/precheck.h"
#include "../lib/core/msg.h"
#include "../lib/core/opt.h"
#include "../lib/core/partial.h"
#include "../lib/core/xlsxw.h"
#include "../lib/records/output.h"

#include <unistd.h>

enum { OPT_FORMAT = 256, OPT_XLSX, OPT_KIND, OPT_ALL };

static const struct opt_spec options[] = {
	{ OPT_FORMAT, 0, "format", "FORMAT", "records (default) or text, a report for people", "records|text", 0 },
	{ OPT_XLSX, 0, "xlsx", NULL, "write msprobe's result.xlsx on standard output instead", NULL, 0 },
	{ 'o', 'o', "output-dir", "DIR",
	  "write msprobe's result.xlsx into DIR, made when missing (records or text on standard output only with "
	  "--format)", NULL, OPT_DIR },
	{ OPT_KIND, 0, "kind", "KIND", "read both operands as this kind instead of telling it from name and content",
	  "pack|pip|env|config|script", 0 },
	{ OPT_ALL, 0, "all", NULL, "a record for every item compared, the equal ones too", NULL, 0 },
};

static const struct tool_spec spec = {
	.name = "probe-config",
	.synopsis = "[--format FORMAT | --xlsx] [-o DIR] [--kind KIND] [--all] bench cmp",
	.summary = "Compare two runs' setups check by check (environment, pip packages, dataset, weights, "
		   "hyperparameters, random calls) from msprobe's config_check packs, their folders, or pip lists, "
		   "environment dumps, configs and launch scripts (exit 1 when they differ).",
	.opts = options,
	.nopts = ARRAY_SIZE(options),
	.operand_flags = OPT_FILE,
};

struct book_ctx {
	const struct precheck *c;
	const char *tmpdir;
};

static int write_book(void *ctx, const char *path, struct strbuf *err)
{
	const struct book_ctx *b = ctx;
	return precheck_write_xlsx(b->c, path, b->tmpdir, err);
}

/* DIR/result.xlsx, as msprobe names it, written under a temporary name and renamed when complete. */
static void write_result_xlsx(const struct precheck *c, const char *dir)
{
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;
	struct partial *part;
	int fd;
	strbuf_addf(&path, "%s/result.xlsx", dir);
	partial_init();
	if ((fd = partial_create_private(path.buf, &part, &err)) < 0)
		die("%s", err.buf);
	close(fd);
	if (precheck_write_xlsx(c, partial_tmp_name(part), dir, &err) < 0) {
		partial_drop(part);
		die("%s", err.buf);
	}
	if (partial_commit(part, &err) < 0)
		die("%s", err.buf);
	strbuf_release(&path);
	strbuf_release(&err);
}

int main(int argc, char **argv)
{
	static const enum plain_kind kinds[] = { PLAIN_PACK, PLAIN_PIP, PLAIN_ENV, PLAIN_CONFIG, PLAIN_SCRIPT };
	struct precheck_options po = { 0 };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	enum plain_kind kind = PLAIN_UNKNOWN;
	const char *arg, *dir = NULL;
	struct pack *bench, *cmp;
	struct precheck *c;
	int ch, first, status, format = -1; /* -1: none given, 0: records, 1: text */
	bool xlsx = false;

	msg_set_progname(argv[0]);
	while ((ch = opt_next(&spec, argc, argv, &arg, &first)) != -1) {
		switch (ch) {
		case OPT_FORMAT: format = opt_choice(&spec, ch, arg); break;
		case OPT_XLSX: xlsx = true; break;
		case 'o': dir = arg; break;
		case OPT_KIND: kind = kinds[opt_choice(&spec, ch, arg)]; break;
		case OPT_ALL: po.all = true; break;
		}
	}
	argc -= first;
	argv += first;
	if (argc != 2)
		opt_usage_error(&spec, argc < 2 ? "two operands needed: bench and cmp" : "too many operands");
	if (xlsx && format >= 0)
		opt_usage_error(&spec, "--xlsx writes the workbook on standard output: no room for --format");
	if (xlsx && dir)
		opt_usage_error(&spec, "--xlsx and -o both say where the workbook goes: give one");
	if (!strcmp(argv[0], "-") && !strcmp(argv[1], "-"))
		opt_usage_error(&spec, "bench and cmp cannot both be standard input");
	if ((!strcmp(argv[0], "-") || !strcmp(argv[1], "-")) && isatty(STDIN_FILENO))
		opt_usage_error(&spec, "standard input is a terminal");
	if (xlsx && isatty(STDOUT_FILENO))
		die("a workbook is not for a terminal: redirect standard output to a file, or give -o DIR");
	if (dir && partial_make_dirs(dir, &err) < 0)
		die("%s", err.buf); /* msprobe's -o makes its folder too */
	if (dir && access(dir, W_OK))
		die_errno("%s: cannot write there", dir);

	if (!(bench = precheck_open(argv[0], kind, &err)))
		die("%s", err.buf);
	if (!(cmp = precheck_open(argv[1], kind, &err)))
		die("%s", err.buf);
	c = precheck_new(&po);
	if (precheck_compare(c, bench, cmp, &err) < 0)
		die("%s", err.buf);
	status = precheck_status(c);

	/* everything is decided before the first byte goes out: no partial answer */
	if (dir)
		write_result_xlsx(c, dir);
	output_init();
	if (xlsx) {
		struct book_ctx b = { c, NULL };
		output_discard_on_failure();
		if (xlsxw_book_to_strbuf(write_book, &b, &out, &err) < 0)
			die("%s", err.buf);
	} else if (format == 1) {
		precheck_write_text(c, &out);
	} else if (format == 0 || !dir) {
		precheck_write_records(c, &out);
	}
	output_flush_strbuf(&out, 0);
	output_close();
	precheck_free(c);
	pack_free(bench);
	pack_free(cmp);
	strbuf_release(&out);
	strbuf_release(&err);
	return status;
}
