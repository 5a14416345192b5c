/*
 * plot.h: a picture of where a run leaves its reference (probe-plot).
 *
 * Metric records (probe-metric(1), optionally through probe-stack(1)) go
 * in one at a time; plot_finish() turns what was kept into a model of the
 * picture: the chosen error metric of every leaf along execution order,
 * one line per rank, aggregated per pixel column (first, smallest,
 * largest and last value of each column, so 100,000 leaves draw as a few
 * thousand vertices without losing an extreme); forward and backward
 * runs; the first divergence of each rank as probe-first(1) finds it and
 * the first non-finite value as probe-first --nonfinite finds it (the same
 * code, lib/compare/first.c, decides both); the module bands from the records'
 * module chains.  plot_write_svg() (plotsvg.c) and plot_write_html()
 * (plothtml.c) draw the model.
 *
 * Where a leaf's value goes: the log scale; the band "0" (exactly 0, or no
 * value of the metric); the band "inf/nan" (an inf or a NaN in the values,
 * a non-finite absolute difference); the strip "golden 0", for a relative
 * difference against a golden statistic of exactly 0 (probe-metric writes
 * its rel "inf", msprobe its MaxRelativeErr "inf" and its Cosine "Nan"),
 * which is no number and no non-finite value either: the absolute
 * difference is kept for the tooltip and the table.
 *
 * Ranks are named as every tool names them (leafrec_rank_label(): "rank 3",
 * "proc2016", "no rank"), coloured from a table whose first n colours are
 * far apart for every n (plotmodel.h), and the ranks that started it (as
 * probe-first finds them) are named in the legend whatever their number.
 *
 * x is the target leaf's seq; a later step of the same rank continues
 * after the last x of the earlier one.  Golden-only pairs have no place
 * on the target's axis and are only counted.
 *
 * Memory: per leaf 32 bytes (x, value, module chain, name, flags); the
 * leaf names, module names and chains once each; the dumps' paths once
 * each (for the title); the rows of the HTML table (at most table_rows);
 * per rank and pixel column one aggregate after plot_finish().
 */
#ifndef PROBE_PLOT_H
#define PROBE_PLOT_H

#include "../compare/first.h"
#include "../core/strbuf.h"
#include "../records/lines.h"

enum plot_metric {
	PLOT_AUTO,     /* max_rel for tensor comparisons, rel for statistics, md5 when that is all there is */
	PLOT_REL,      /* largest relative difference of max, min, mean, norm */
	PLOT_ABS,      /* largest absolute difference of max, min, mean, norm */
	PLOT_MD5,      /* 1 when the CRC-32 differs, 0 when it matches */
	PLOT_MAX_REL,  /* msprobe's MaxRelativeErr of the elements (tensor mode) */
	PLOT_MAX_ABS,  /* the largest absolute difference of the elements (tensor mode) */
	PLOT_ULP,      /* the largest difference of the elements in units in the last place (tensor mode) */
	PLOT_COS,      /* 1 - msprobe's Cosine of the elements (tensor mode) */
	PLOT_NMETRICS
};

/* "auto", "rel", ...: the names --metric takes, in enum order. */
extern const char *const plot_metric_names[PLOT_NMETRICS];
/* The metric named name, or -1. */
int plot_metric_by_name(const char *name);

struct plot_options {
	enum plot_metric metric;
	const char *ranks;           /* a rank list ("0,4-7", layout.h), or NULL for every rank */
	int64_t from, to;            /* the x kept: from <= x <= to; to < 0 for no end */
	int width, height;           /* of the whole picture, in pixels */
	int module_depth;            /* rows of module bands at most (0: none) */
	size_t table_rows;           /* HTML: divergent leaves listed at most */
	struct first_options first;  /* the band under which the first divergence is found (probe-first's) */
	const char *source;          /* the input's name, "-" for standard input: the title says what the records' dumps are */
};

/* Sets the defaults: every rank and x, 1200 x 600, 3 module rows, 2000 table rows, bitwise. */
void plot_options_init(struct plot_options *o);

struct plot;

struct plot *plot_new(const struct plot_options *o);
void plot_free(struct plot *p);

/* One record (a line without its newline).  0, or PROBE_ERR_LINE (msg.h): not a metric record. */
int plot_add(struct plot *p, const char *line, size_t len, struct strbuf *err);

/*
 * After the last record: the marks and the model.  PROBE_ERR_INPUT (msg.h)
 * when there is nothing to draw (no pairs, none matched, nothing of the
 * chosen metric, nothing in the ranks or the range asked for).
 */
int plot_finish(struct plot *p, struct strbuf *err);

/* plot_add() and plot_finish() as the sink of line_reader_feed() (lines.h). */
struct line_sink plot_sink(struct plot *ctx);

/* The picture as a standalone SVG document, after plot_finish(). */
void plot_write_svg(const struct plot *p, struct strbuf *out);
/*
 * A single HTML page, nothing fetched: the picture, with a tooltip on every
 * point drawn (leaf, rank, value) and a click on a point or a mark finding
 * its row; the ranks and their colours; the marks; the table of the leaves
 * that are not the same (sortable, filtered by a text box, its head in
 * view, coloured by verdict with a key).  The points are in the page as
 * JSON for its script: in a dense picture, the vertices of the lines and
 * one leaf per column of each strip.
 */
void plot_write_html(const struct plot *p, struct strbuf *out);

#endif
