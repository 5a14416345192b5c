/*
 * plotmodel.h: the inside of struct plot, shared by plot.c (which reads
 * the records and lays the picture out) and plotsvg.c (which draws it).
 * Not for the tools: they use plot.h.
 *
 * Everything a struct plot points to belongs to it and goes with
 * plot_free().  Coordinates are SVG user units (pixels), y growing down.
 */
#ifndef PROBE_PLOTMODEL_H
#define PROBE_PLOTMODEL_H

#include "plot.h"
#include "../core/strmap.h"

/* Where a leaf's value sits on the y axis. */
enum plot_ykind {
	Y_NONE,   /* no value of the metric (a scalar, an unreadable tensor); drawn on the zero band */
	Y_ZERO,   /* exactly 0: the zero band under the log scale */
	Y_VALUE,  /* > 0 and finite: the log scale */
	Y_INF,    /* inf or nan (a statistic, an element, msprobe's cell): the band above the log scale */
	/*
	 * A relative difference against a golden of exactly 0 (the target's
	 * value is not 0 and both are finite): not a non-finite value, and not
	 * on the log scale either; y is the absolute difference.  Its own strip,
	 * "golden 0", between the inf/nan band and the log scale.
	 */
	Y_GOLDEN0,
};

enum plot_flag {
	PF_BACKWARD = 1 << 0,   /* a backward entry or a parameter gradient */
	PF_DIFF = 1 << 1,       /* our verdict: diff */
	PF_UNMATCHED = 1 << 2,  /* no golden leaf (or an unreadable pair): no value, drawn in its own strip */
};

struct plot_point {
	int64_t x;
	double y;          /* the metric (Y_VALUE), the absolute difference (Y_GOLDEN0), inf or nan (Y_INF) */
	uint32_t chain;    /* its module chain (0: none) */
	uint32_t name;     /* its leaf's name, an id into plot.names */
	uint8_t ykind, flags;
};

struct plot_step {
	int64_t step, x;   /* the step and the x where it starts on its rank */
};

struct plot_rank {
	int64_t rank;                 /* -1: the records do not say */
	char *proc;                   /* rank -1: the proc<pid> folder of its first leaf's dump (leafrec.h), or NULL */
	struct plot_point *v;
	size_t n, alloc;
	struct plot_step *steps;      /* one per step seen, in order */
	size_t nsteps, steps_alloc;
	int64_t next_x;               /* just past the largest x so far */
	/* after plot_finish() */
	char *label;                  /* "rank 3", "proc2016", "no rank" (leafrec_rank_label()) */
	const char *color;            /* "#rrggbb", from plot_palette */
	bool started;                 /* probe-first says this rank started it */
	struct plot_col *cols;        /* one per pixel column of the data area */
};

/*
 * A pixel column of one rank: its first, lowest, highest and last point on
 * the log scale or the inf/nan band (y in pixels).  Leaves at 0 are not on
 * the line (they show in the zero band, plot.col_zero); a long run of them
 * breaks it.
 */
struct plot_col {
	uint32_t n;
	float first_x, first_y, last_x, last_y;
	float min_y, max_y;
	uint32_t min_at, max_at;      /* order of the lowest and highest point within the column */
	/* the points (indexes into plot_rank.v) of the first, lowest, highest and last vertex */
	uint32_t first_i, min_i, max_i, last_i;
	bool gap;                     /* a long run of leaves at 0 (or without a value) before it: the line breaks */
};
/* A run of leaves at 0 breaks the line when it is this many leaves and pixels long. */
#define PLOT_GAP_LEAVES 5
#define PLOT_GAP 24.0

struct plot_chain {
	uint32_t *modules;            /* ids into plot.modules, root first */
	uint32_t depth;
};

enum plot_mark_kind { MARK_DIVERGENCE, MARK_NONFINITE };

struct plot_mark {
	enum plot_mark_kind kind;
	int64_t rank, step, seq, x;
	char *entry, *leaf, *role, *where;
	bool shown;                   /* its rank is drawn and its x is in the range */
	double px, py;
	/* the label: one per group of marks of the same kind, leaf and x */
	bool leads;                   /* this mark carries its group's label */
	char *label;
	int lane;                     /* -1: not labelled (no room) */
	double label_x, label_w;
};

struct plot_row {
	int64_t rank, x, seq;
	size_t rank_index;            /* into plot.ranks after plot_finish() (the ranks are sorted then) */
	char *leaf, *state, *verdict, *reason, *where;
	double y;
	uint8_t ykind;
	uint32_t chain;
};

struct plot_legend_item {
	enum { LEGEND_RANK, LEGEND_DIVERGENCE, LEGEND_NONFINITE, LEGEND_BACKWARD, LEGEND_DIVERGES, LEGEND_NOTE } kind;
	const char *color;            /* LEGEND_RANK: its rank's */
	char *text;
	double x, y;
};

struct plot_geom {
	int width, height;
	double left, right;           /* the data area, x */
	double title_y, inputs_y, subtitle_y; /* the title, the inputs, the counts */
	double legend_top;
	int lanes;                    /* rows of mark labels */
	double lanes_top;
	double area_top, area_bottom; /* the strips below, top to bottom */
	double nog_top, nog_h;        /* "no golden" strip (0 high when there is none) */
	double inf_top, inf_h;        /* inf / nan band */
	double g0_top, g0_h;          /* "golden 0" strip (0 high when no leaf is there) */
	double log_top, log_bottom;   /* the log scale */
	double zero_top, zero_h;      /* the zero band */
	double rug_top, rug_h;        /* "diverges" rug */
	double ticks_y;               /* baseline of the x tick labels */
	double bands_top;             /* the module bands */
	int band_rows;
	double xtitle_y;
	int ncols;                    /* pixel columns of the data area */
};

enum { PLOT_LANE_H = 16, PLOT_BAND_H = 16, PLOT_MAX_LANES = 3 };

struct plot {
	struct plot_options o;
	enum plot_metric metric;      /* resolved from PLOT_AUTO by the first record with metrics */
	struct plot_rank *ranks;
	size_t nranks, ranks_alloc, last_rank;
	int exec_mode;                /* the folder of a graph/pynative root the records are of (one only); -1 before any */
	/* module names and chains, interned */
	struct strmap module_ids, chain_ids;
	char **modules;
	size_t nmodules, modules_alloc;
	struct plot_chain *chains;
	size_t nchains, chains_alloc;
	/* the table */
	struct plot_row *rows;
	size_t nrows, rows_alloc;
	/* leaf names, interned (plot_point.name) */
	struct strmap name_ids;
	char **names;
	size_t nnames, names_alloc;
	/* the dumps the records name ("dump" of t and g), for the title: [0] target, [1] golden */
	struct strmap dumps[2];
	char *dump_dir[2];            /* the longest common folder of each side's dumps so far, or NULL before one */
	char *dump_one[2];            /* the first dump of each side */
	/* counts */
	uint64_t records, golden_only, unmatched, diverging, values, nonfinite, golden0, out_of_range, other_ranks;
	bool last_drawn;          /* the last target leaf read is of a rank drawn (its golden-only leaves count) */
	bool any_modules;
	/* the marks, decided by lib/compare/first.c */
	struct first_stream *first_div, *first_nf;
	struct plot_mark *marks;
	size_t nmarks;
	/* the model, after plot_finish() */
	int64_t xmin, xmax;
	int dec_lo, dec_hi;           /* the log scale spans 10^dec_lo .. 10^dec_hi */
	bool multi_step;
	uint32_t *col_back, *col_fwd; /* per column: backward and forward points, all ranks */
	uint8_t *col_diff, *col_nog;  /* per column: any divergence, any leaf without a golden */
	uint8_t *col_zero;            /* per column: any leaf at 0 or without a value */
	uint8_t *col_g0;              /* per column: any leaf against a golden of 0 */
	struct plot_legend_item *legend;
	size_t nlegend;
	struct plot_geom g;
	struct strbuf scratch;
};

/*
 * Shared by the two halves.  The colours of the ranks, rank i (in numeric
 * order) the i-th, chosen so that the first n are as far apart as they can
 * be for every n (share/build/plotpalette.py made the table: read it there).
 */
extern const char *const plot_palette[];
enum { PLOT_NPALETTE = 64 };
#define PLOT_RED "#c8102e"
#define PLOT_ORANGE "#e87d00"
#define PLOT_SANS "DejaVu Sans,Verdana,Arial,sans-serif"
#define PLOT_MONO "DejaVu Sans Mono,Menlo,Consolas,monospace"
/* Estimated advance of a character, in ems, for laying text out without a font: generous. */
#define PLOT_SANS_EM 0.62
#define PLOT_MONO_EM 0.61

double plot_text_width(const char *s, double font_size, bool mono);
/* The y of a point in pixels. */
double plot_point_y(const struct plot *p, const struct plot_point *pt);
/* The rank drawn whose number is rank (-1: the run without one), or NULL; its label ("no rank" when not drawn). */
const struct plot_rank *plot_rank_drawn(const struct plot *p, int64_t rank);
const char *plot_rank_label(const struct plot *p, int64_t rank);
/* Few enough points to draw each one (and to leave out the strips' ticks). */
bool plot_sparse(const struct plot *p);
/* The pixel column of the data area an x falls in (that of its slot's middle). */
int plot_col_of(const struct plot *p, int64_t x);
/* The x of an x value in pixels (the middle of its slot). */
double plot_x_px(const struct plot *p, int64_t x);
/* A module's label: "fc2 Linear" from "Module.fc2.Linear.forward.0" (into out). */
void plot_module_label(const char *module, struct strbuf *out);
/* What the inputs were: "T vs G" from the records' dumps, else the file (or "standard input"), into out. */
void plot_inputs_label(const struct plot *p, struct strbuf *out);
/* What the metric is, for the axis and the title. */
const char *plot_metric_title(enum plot_metric m);
const char *plot_metric_axis(enum plot_metric m);

/* ---- plotsvg.c, for plothtml.c ---- */

/*
 * s as XML character data or attribute value: the five specials escaped,
 * each character a page may not hold (utf8_page_char(): controls,
 * non-characters such as U+FFFE) and each byte that is not UTF-8 as U+FFFD.
 */
void plot_add_xml(struct strbuf *out, const char *s);
/* A number for people: "0.0123", "1.5e-07", "inf", "nan" (C's %.4g). */
void plot_add_number(struct strbuf *out, double v);
/* A point's tooltip, three lines: its leaf; its rank's label, step and seq; its value ("rel 0.0123", "golden 0: abs 0.5"). */
void plot_point_text(const struct plot *p, const struct plot_rank *r, const struct plot_point *pt, struct strbuf *out);
/* A mark for people: "first divergence, rank 2, step 0, seq 14: LEAF (cause) at FILE:LINE" (replaces tmp's text). */
void plot_mark_text(const struct plot *p, const struct plot_mark *m, struct strbuf *tmp);
/* The <svg> element; for the HTML page (html) without the points' own tooltips: the page shows its own. */
void plot_svg_body(const struct plot *p, struct strbuf *out, bool html);

#endif
