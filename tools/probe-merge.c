/*
 * probe-merge: msprobe merge_result's multi-rank summary of compare results, and the communication groups
 * checked across ranks.
 */
#include "../lib/compare/merge.h"
#include "../lib/core/msg.h"
#include "../lib/core/opt.h"
#include "../lib/core/partial.h"
#include "../lib/core/xalloc.h"
#include "../lib/core/yamlmap.h"
#include "../lib/records/output.h"

#include <string.h>
#include <unistd.h>

enum { OPT_API = 256, OPT_INDEX, OPT_FORMAT, OPT_GROUPS, OPT_PARTIAL };

static const struct opt_spec options[] = {
	{ 'c', 'c', "config", "FILE", "msprobe's merge config (YAML): api, and compare_index", NULL, OPT_FILE },
	{ OPT_API, 0, "api", "NAME", "an operator to merge, as the config's api (repeatable; added to the config's)",
	  NULL, 0 },
	{ OPT_INDEX, 0, "index", "NAME", "a compare index to merge, as the config's compare_index (repeatable)", NULL,
	  0 },
	{ 'o', 'o', "output-dir", "DIR", "write msprobe's multi_ranks_compare_merge_<time>.xlsx into DIR", NULL, OPT_DIR },
	{ OPT_FORMAT, 0, "format", "FORMAT",
	  "what goes to stdout: json (default without -o), csv, or text (--groups only)", "json|csv|text", 0 },
	{ OPT_GROUPS, 0, "groups", NULL,
	  "check the communication groups across ranks instead: exit 1 when a group's outputs disagree", NULL, 0 },
	{ OPT_PARTIAL, 0, "partial", NULL, "records: accept a partial comparison, as probe-metric --partial", NULL, 0 },
};

static const struct tool_spec spec = {
	.name = "probe-merge",
	.synopsis = "[-c FILE] [--api NAME ...] [--index NAME ...] [-o DIR] [--format FORMAT] [--partial] INPUT ...\n"
		    "--groups [--format json|text] INPUT ...",
	.summary = "Gather the compare results of several ranks (msprobe's xlsx, compare_result CSV, or metric records) "
		   "into one table per compare index, as msprobe merge_result does; or check that the ranks of each "
		   "communication group agree.",
	.opts = options,
	.nopts = ARRAY_SIZE(options),
	.operand_flags = OPT_FILE,
};

struct names {
	const char **v;
	size_t n, alloc;
};

static void add_name(struct names *l, const char *s)
{
	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n++] = s;
}

/* msprobe's check_config: api a non-empty list, compare_index a list or nothing. */
static void read_config(const char *path, struct yamllists *y, struct names *apis, struct names *indexes)
{
	struct strbuf err = STRBUF_INIT;
	ssize_t a, c;
	if (yamllists_load(y, path, &err) < 0)
		die("%s", err.buf);
	a = yamllists_find(y, "api");
	c = yamllists_find(y, "compare_index");
	if (a >= 0 && y->scalar[a])
		die("%s: The config format of 'api' is incorrect, please check (a list of names).", path);
	if (c >= 0 && y->scalar[c])
		die("%s: The config format of 'compare_index' is incorrect, please check (a list of names).", path);
	for (size_t i = 0; a >= 0 && i < y->nitems[a]; i++)
		add_name(apis, y->items[a][i]);
	for (size_t i = 0; c >= 0 && i < y->nitems[c]; i++)
		add_name(indexes, y->items[c][i]);
	strbuf_release(&err);
}

int main(int argc, char **argv)
{
	static const char *const formats[] = { "json", "csv", "text" };
	struct yamllists config = YAMLLISTS_INIT;
	struct names apis = { 0 }, indexes = { 0 };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT, path = STRBUF_INIT;
	const char *config_path = NULL, *dir = NULL, *format = NULL, *arg;
	bool groups = false, partial = false;
	struct merge *m;
	int c, first, status = PROBE_OK;

	msg_set_progname(argv[0]);
	while ((c = opt_next(&spec, argc, argv, &arg, &first)) != -1) {
		switch (c) {
		case 'c': config_path = arg; break;
		case OPT_API: add_name(&apis, arg); break;
		case OPT_INDEX: add_name(&indexes, arg); break;
		case 'o': dir = arg; break;
		case OPT_FORMAT: format = formats[opt_choice(&spec, c, arg)]; break;
		case OPT_GROUPS: groups = true; break;
		case OPT_PARTIAL: partial = true; break;
		}
	}
	argc -= first;
	argv += first;
	if (!argc)
		opt_usage_error(&spec, "no INPUT given (msprobe's compare result directory, xlsx or CSV files, or records)");
	if (config_path)
		read_config(config_path, &config, &apis, &indexes);
	if (groups && dir)
		opt_usage_error(&spec, "--groups prints the group check: it writes no workbook (-o)");
	if (!groups && !apis.n)
		die("The APIs required to merge data were not found: give -c FILE with an api list, or --api NAME "
		    "(--groups checks the communication groups without them).");
	if (!groups && format && !strcmp(format, "text"))
		opt_usage_error(&spec, "--format text is for --groups; the merged table is json or csv");
	if (groups && format && !strcmp(format, "csv"))
		opt_usage_error(&spec, "--groups writes json or text");
	if (dir && access(dir, W_OK))
		die_errno("%s: cannot write there", dir);
	if (!format && !dir)
		format = groups ? "text" : "json";

	partial_init();
	m = merge_new(&(struct merge_options){ .apis = apis.v, .napis = apis.n, .indexes = indexes.v,
					       .nindexes = indexes.n, .partial = partial, .groups_only = groups });
	for (int i = 0; i < argc; i++)
		if (merge_add_operand(m, argv[i], &err) < 0)
			die("%s", err.buf);
	if (merge_finish(m, &err) < 0)
		die("%s", err.buf);
	output_init();
	output_discard_on_failure();
	if (groups) {
		merge_write_groups(m, !strcmp(format, "text"), &out);
		if (merge_group_disagreements(m))
			status = PROBE_DIFFERENT;
	} else {
		if (dir) {
			if (merge_write_xlsx(m, dir, &path, &err) < 0)
				die("%s", err.buf);
			msg_report("merged into %s", path.buf);
		}
		if (format && !strcmp(format, "csv"))
			merge_write_csv(m, &out);
		else if (format)
			merge_write_ndjson(m, &out);
		if (merge_group_disagreements(m))
			warning("%zu communication operator%s disagree%s within %s group: --groups tells which",
				merge_group_disagreements(m), merge_group_disagreements(m) == 1 ? "" : "s",
				merge_group_disagreements(m) == 1 ? "s" : "", merge_group_disagreements(m) == 1 ? "its" : "their");
	}
	output_flush_strbuf(&out, 0);
	output_close();
	merge_free(m);
	yamllists_release(&config);
	free(apis.v);
	free(indexes.v);
	strbuf_release(&out);
	strbuf_release(&err);
	strbuf_release(&path);
	return status;
}
