/*
 * probe-plot: a picture of where a run leaves its reference: the error of every leaf along execution order,
 * one line per rank, the first divergence and the first non-finite value marked, the modules underneath.
 */
#include "../lib/msprobe/naming.h"
#include "../lib/dumps/layout.h"
#include "../lib/records/lines.h"
#include "../lib/core/msg.h"
#include "../lib/core/opt.h"
#include "../lib/records/output.h"
#include "../lib/core/partial.h"
#include "../lib/plot/plot.h"
#include "../lib/compare/verdict.h"
#include "../lib/core/progress.h"

#include <stdio.h>
#include <unistd.h>

enum {
	OPT_METRIC = 256, OPT_RANKS, OPT_RANGE, OPT_WIDTH, OPT_HEIGHT, OPT_MODULE_DEPTH, OPT_TABLE_ROWS, OPT_FORMAT,
	OPT_PARTIAL, OPT_WHERE, OPT_OUTPUT_FILE,
};

static const struct opt_spec options[] = {
	{ 'o', 'o', "output-dir", "DIR", "write the picture into DIR (made if missing) as plot_<ts>.svg, or .html "
	  "with --format html", NULL, OPT_DIR },
	{ OPT_OUTPUT_FILE, 0, "output-file", "FILE",
	  "write the picture to FILE: .svg, or .html (.htm) for the page; no other suffix", NULL, OPT_FILE },
	{ OPT_FORMAT, 0, "format", "FORMAT", "svg (default), or html: the picture, its tooltips and a table to filter",
	  "svg|html", 0 },
	{ OPT_METRIC, 0, "metric", "METRIC", "the error drawn (default auto: the one the mode has)",
	  "auto|rel|abs|md5|max_rel|max_abs|ulp|cos", 0 },
	{ OPT_RANKS, 0, "ranks", "LIST", "draw only these ranks (\"0,4-7\")", NULL, 0 },
	{ OPT_RANGE, 0, "range", "A:B", "draw only the leaves whose x (seq, steps one after another) is in A..B",
	  NULL, 0 },
	{ OPT_WIDTH, 0, "width", "PX", "width of the picture (default 1200)", NULL, 0 },
	{ OPT_HEIGHT, 0, "height", "PX", "height of the picture (default 600)", NULL, 0 },
	{ OPT_MODULE_DEPTH, 0, "module-depth", "N", "rows of module bands at most (default 3; 0: none)", NULL, 0 },
	{ OPT_TABLE_ROWS, 0, "table-rows", "N", "html: leaves listed in the table at most (default 2000)", NULL, 0 },
	{ OPT_BAND_RTOL, 0, "rtol", "X", "mark the first divergence beyond this relative tolerance (as probe-first)", NULL,
	  0 },
	{ OPT_BAND_ATOL, 0, "atol", "X", "mark the first divergence beyond this absolute tolerance (as probe-first)", NULL,
	  0 },
	{ OPT_BAND_ULPS, 0, "ulps", "N", "mark the first divergence beyond N units in the last place (as probe-first)",
	  NULL, 0 },
	{ OPT_BAND_COS_MIN, 0, "cos-min", "X", "mark the first tensor pair whose Cosine is below X (as probe-first)", NULL,
	  0 },
	{ OPT_WHERE, 0, "where", "JQ", "mark only the divergences whose record the jq filter JQ chooses (as probe-first)",
	  NULL, 0 },
	{ OPT_PARTIAL, 0, "partial", NULL, "accept a partial comparison: most target leaves without a golden partner",
	  NULL, 0 },
};

static const struct tool_spec spec = {
	.name = "probe-plot",
	.synopsis = "[-o DIR | --output-file FILE] [--format FORMAT] [--metric METRIC] [--ranks LIST] [--range A:B] [--width PX] "
		    "[--height PX] [--module-depth N] [--table-rows N] [--rtol X] [--atol X] [--ulps N] [--cos-min X] "
		    "[--where JQ] [--partial] [records]",
	.summary = "Draw metric records as a self-contained SVG (or HTML) picture: the error of each leaf along "
		   "execution order, one line per rank, the first divergence and the first non-finite value marked.",
	.opts = options,
	.nopts = ARRAY_SIZE(options),
	.operand_flags = OPT_FILE,
};

/*
 * The format a file name asks for by its suffix: "svg", "html", NULL for a
 * name without one.  Any other suffix (.png, .pdf, .svgz) is refused: the
 * picture would be SVG under a name that says otherwise.
 */
static const char *format_of_name(const char *path)
{
	const char *base = strrchr(path, '/'), *dot;
	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	if (!dot || dot == base)
		return NULL;
	if (!strcasecmp(dot, ".svg"))
		return "svg";
	if (!strcasecmp(dot, ".html") || !strcasecmp(dot, ".htm"))
		return "html";
	opt_usage_error(&spec, "--output-file %s: the formats are svg (.svg) and html (.html, .htm), not %s "
			       "(for another, convert the SVG: rsvg-convert, inkscape)", path, dot);
	return NULL;
}

/* Names -o DIR would take for a file, refused there: the user meant --output-file. */
static const char *const file_suffixes[] = { ".svg", ".html", ".htm", ".png", ".pdf", ".svgz", ".jpg", NULL };

int main(int argc, char **argv)
{
	struct plot_options po;
	struct strbuf doc = STRBUF_INIT, err = STRBUF_INIT;
	struct line_reader *lr;
	struct line_sink sink;
	struct plot *p;
	struct strbuf path = STRBUF_INIT;
	const char *arg, *input, *output = NULL, *output_dir = NULL, *format = NULL, *where = NULL;
	int c, first, m;

	msg_set_progname(argv[0]);
	plot_options_init(&po);
	while ((c = opt_next(&spec, argc, argv, &arg, &first)) != -1) {
		if (verdict_band_option(&spec, c, arg, &po.first.band, &po.first.cos_min))
			continue;
		switch (c) {
		case 'o':
			output_dir = arg;
			break;
		case OPT_OUTPUT_FILE:
			output = arg;
			break;
		case OPT_FORMAT:
			opt_choice(&spec, c, arg); /* svg|html */
			format = arg;
			break;
		case OPT_METRIC:
			m = plot_metric_by_name(arg);
			if (m < 0)
				opt_usage_error(&spec, "unknown --metric: %s", arg);
			po.metric = (enum plot_metric)m;
			break;
		case OPT_RANKS:
			if (!layout_rank_list_valid(arg))
				opt_usage_error(&spec, "--ranks value is not a list of ranks such as 0,4-7: %s", arg);
			po.ranks = arg;
			break;
		case OPT_RANGE:
			opt_range(&spec, "--range", arg, &po.from, &po.to);
			break;
		case OPT_WIDTH:
			po.width = (int)opt_number(&spec, "--width", arg, 300, 100000);
			break;
		case OPT_HEIGHT:
			po.height = (int)opt_number(&spec, "--height", arg, 200, 100000);
			break;
		case OPT_MODULE_DEPTH:
			po.module_depth = (int)opt_number(&spec, "--module-depth", arg, 0, 32);
			break;
		case OPT_TABLE_ROWS:
			po.table_rows = (size_t)opt_number(&spec, "--table-rows", arg, 0, 10000000);
			break;
		case OPT_PARTIAL:
			po.first.partial = true;
			break;
		case OPT_WHERE:
			where = arg;
			break;
		}
	}
	argc -= first;
	argv += first;
	input = opt_input_operand(&spec, argc, argv, "records");
	if (where && !(po.first.where = jqsel_new(where, &err)))
		opt_usage_error(&spec, "--where: %s", err.buf);
	if (output && strcmp(output, "-")) {
		const char *named = format_of_name(output);
		if (!format)
			format = named;
	}
	if (!format)
		format = "svg";
	opt_output_dir(&spec, output_dir, output, file_suffixes);
	if (!output && !output_dir && isatty(1))
		opt_usage_error(&spec, "the picture is not for a terminal: give -o DIR, --output-file FILE or redirect "
				       "the output");
	po.source = input;

	progress_start(progress_size(input));
	if (strcmp(input, "-"))
		progress_what(input);
	if (!(lr = line_reader_open(input, &err)))
		die("%s", err.buf);
	p = plot_new(&po);
	sink = plot_sink(p);
	if (line_reader_feed(lr, &sink, NULL, &err) < 0) {
		plot_free(p);
		jqsel_free(po.first.where);
		line_reader_close(lr);
		die("%s", err.buf);
	}
	progress_end();

	if (output_dir) {
		if (naming_output_base(output_dir, "plot", &path, &err) < 0)
			die("%s", err.buf);
	}
	/* the whole picture is made before a byte of it goes out */
	if (!strcmp(format, "html"))
		plot_write_html(p, &doc);
	else
		plot_write_svg(p, &doc);
	if (output_dir) {
		/* plot_<time>.svg, or plot_<time>_2.svg when a run of the same second has it */
		if (partial_write_numbered(path.buf, !strcmp(format, "html") ? ".html" : ".svg", doc.buf, doc.len, NULL,
					   &err) < 0)
			die("%s", err.buf);
	} else if (output && strcmp(output, "-")) {
		if (partial_write_file(output, doc.buf, doc.len, &err) < 0)
			die("%s", err.buf);
	} else {
		output_init();
		output_discard_on_failure();
		output_write(doc.buf, doc.len);
		output_close();
	}
	line_reader_close(lr);
	plot_free(p);
	jqsel_free(po.first.where);
	strbuf_release(&doc);
	strbuf_release(&path);
	strbuf_release(&err);
	return PROBE_OK;
}
