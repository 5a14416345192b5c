/*
 * probe-graph: the model's hierarchy as msprobe's graph_visualize builds it, target and golden side by side,
 * each node coloured by msprobe's precision and by where the run leaves its reference: a self-contained HTML
 * page, msprobe's vis.db, or one NDJSON record per node.
 */
#include "../lib/core/msg.h"
#include "../lib/core/opt.h"
#include "../lib/core/partial.h"
#include "../lib/core/progress.h"
#include "../lib/graph/graph.h"
#include "../lib/msprobe/naming.h"
#include "../lib/records/lines.h"
#include "../lib/records/output.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { OPT_FORMAT = 256, OPT_OUTPUT_FILE, OPT_FUZZY, OPT_OVERFLOW, OPT_MAPPING };

static const struct opt_spec options[] = {
	{ 'o', 'o', "output-dir", "DIR",
	  "write into DIR (made if missing), as msprobe's -o: compare_<ts> or build_<ts>, .vis.db unless --format "
	  "says .html or .ndjson", NULL, OPT_DIR },
	{ OPT_OUTPUT_FILE, 0, "output-file", "FILE",
	  "write to FILE, atomically (its format from a .html, .db or .json/.ndjson suffix)", NULL, OPT_FILE },
	{ OPT_FORMAT, 0, "format", "FORMAT",
	  "html: the page (the default, but visdb with -o DIR); visdb: msprobe's vis.db (needs a file or -o DIR); "
	  "json: one record per node", "html|visdb|json", 0 },
	{ OPT_FUZZY, 0, "fuzzy", NULL,
	  "match as msprobe's -fm: modules by name wherever they are, their APIs by name without call numbers and "
	  "by order", NULL, 0 },
	{ OPT_OVERFLOW, 0, "overflow", NULL,
	  "msprobe's -oc: each node's overflow level (critical, high, medium) from its inf/nan statistics", NULL, 0 },
	{ OPT_MAPPING, 0, "mapping", "FILE",
	  "match target nodes to the golden nodes this YAML mapping names (msprobe's -lm mapping), wherever they are",
	  NULL, OPT_FILE },
};

static const struct tool_spec spec = {
	.name = "probe-graph",
	.synopsis = "[-o DIR | --output-file FILE] [--format FORMAT] [--fuzzy] [--overflow] [--mapping FILE] [records]",
	.summary = "Build msprobe's module hierarchy of each rank and step from metric records (or one run's leaf "
		   "records) and the construct.json beside their dumps; match target and golden nodes as msprobe "
		   "does; write a self-contained HTML view, msprobe's vis.db, or NDJSON.",
	.opts = options,
	.nopts = ARRAY_SIZE(options),
	.operand_flags = OPT_FILE,
};

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcasecmp(s + n - k, suffix);
}

static const char *format_of(const char *output)
{
	if (!output)
		return "html";
	if (has_suffix(output, ".db"))
		return "visdb";
	if (has_suffix(output, ".json") || has_suffix(output, ".ndjson"))
		return "json";
	return "html";
}

/* Names -o DIR would take for a file, refused there: the user meant --output-file. */
static const char *const file_suffixes[] = { ".html", ".htm", ".db", ".json", ".ndjson", NULL };

static const char *suffix_of(const char *format)
{
	return !strcmp(format, "visdb") ? ".vis.db" : !strcmp(format, "json") ? ".ndjson" : ".html";
}

static int emit_file(void *ctx, const char *p, size_t n)
{
	return fwrite(p, 1, n, ctx) == n ? 0 : -1;
}

static int emit_stdout(void *ctx, const char *p, size_t n)
{
	(void)ctx;
	output_write(p, n); /* dies on a failure */
	return 0;
}

static int write_document(const struct graph_set *g, const char *format, const struct graph_out *o)
{
	return !strcmp(format, "json") ? graph_write_json(g, o) : graph_write_html(g, o);
}

int main(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	struct line_reader *lr;
	struct line_sink sink;
	struct graph_options go = { false, false, NULL };
	struct yamlmap mapping = YAMLMAP_INIT;
	struct graph_set *g;
	struct strbuf path = STRBUF_INIT, base = STRBUF_INIT;
	const char *arg, *input, *output = NULL, *output_dir = NULL, *format = NULL;
	const char *ext = NULL; /* -o DIR: the name is base ext, or base_2 ext, ... (partial.h) */
	int c, first;

	msg_set_progname(argv[0]);
	while ((c = opt_next(&spec, argc, argv, &arg, &first)) != -1) {
		switch (c) {
		case 'o':
			output_dir = arg;
			break;
		case OPT_OUTPUT_FILE:
			output = arg;
			break;
		case OPT_FORMAT:
			opt_choice(&spec, c, arg);
			format = arg;
			break;
		case OPT_FUZZY:
			go.fuzzy = true;
			break;
		case OPT_OVERFLOW:
			go.overflow = true;
			break;
		case OPT_MAPPING:
			if (go.mapping)
				opt_usage_error(&spec, "--mapping given twice");
			if (yamlmap_load(&mapping, arg, &err) < 0)
				die("%s", err.buf);
			go.mapping = &mapping;
			break;
		}
	}
	argc -= first;
	argv += first;
	input = opt_input_operand(&spec, argc, argv, "records");
	if (go.mapping && go.fuzzy)
		opt_usage_error(&spec, "--mapping and --fuzzy are two ways of matching: give one");
	opt_output_dir(&spec, output_dir, output, file_suffixes);
	if (!format)
		format = output_dir ? "visdb" : format_of(output);
	if (!output_dir && !strcmp(format, "visdb") && (!output || !strcmp(output, "-")))
		opt_usage_error(&spec, "--format visdb writes a SQLite file: give -o DIR or --output-file FILE.vis.db");
	if (!output_dir && !strcmp(format, "html") && (!output || !strcmp(output, "-")) && isatty(1))
		opt_usage_error(&spec, "the page is not for a terminal: give -o DIR, --output-file FILE.html or redirect "
				       "the output");

	progress_start(progress_size(input));
	if (strcmp(input, "-"))
		progress_what(input);
	if (!(lr = line_reader_open(input, &err)))
		die("%s", err.buf);
	g = graph_new(&go);
	sink = graph_sink(g);
	if (line_reader_feed(lr, &sink, NULL, &err) < 0) {
		graph_free(g);
		line_reader_close(lr);
		die("%s", err.buf);
	}
	line_reader_close(lr);
	progress_end();
	if (output_dir) {
		if (naming_output_base(output_dir, graph_is_compare(g) ? "compare" : "build", &base, &err) < 0)
			die("%s", err.buf);
		ext = suffix_of(format);
		strbuf_addf(&path, "%s%s", base.buf, ext);
		output = path.buf;
	}

	if (!strcmp(format, "visdb")) {
		if (graph_write_visdb(g, ext ? base.buf : output, ext, &err) < 0)
			die("%s", err.buf);
	} else if (output && strcmp(output, "-")) {
		struct partial *part;
		FILE *f = partial_fopen(output, &part, &err);
		struct graph_out o = { emit_file, NULL };
		if (!f)
			die("%s", err.buf);
		o.ctx = f;
		if (write_document(g, format, &o) < 0 || fflush(f) || ferror(f)) {
			fclose(f);
			partial_drop(part);
			die("cannot write %s: %s", output, strerror(errno));
		}
		if (fclose(f)) {
			partial_drop(part);
			die("cannot write %s: %s", output, strerror(errno));
		}
		if ((ext ? partial_commit_numbered(part, base.buf, ext, NULL, &err) : partial_commit(part, &err)) < 0)
			die("%s", err.buf);
	} else {
		struct graph_out o = { emit_stdout, NULL };
		output_init();
		output_discard_on_failure();
		write_document(g, format, &o);
		output_close();
	}
	graph_free(g);
	yamlmap_release(&mapping);
	strbuf_release(&path);
	strbuf_release(&base);
	strbuf_release(&err);
	return PROBE_OK;
}
