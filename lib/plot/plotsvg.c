/*
 * plotsvg.c: draws the model plot.c laid out, as SVG (plothtml.c puts it in
 * the HTML page).  Nothing here reads records or decides where anything
 * goes beyond what follows directly from the geometry.
 */
#include "plotmodel.h"
#include "../core/utf8.h"
#include "../core/xalloc.h"

#include <math.h>

#define GRID "#e3e3e3"
#define AXIS "#555555"
#define MUTED "#666666"
#define SHADE "#f1f1f1"
#define GOLDEN0 "#6b7785"
/* Text over the data stays readable: a white outline under the glyphs. */
#define HALO "stroke=\"#fff\" stroke-width=\"3\" paint-order=\"stroke\""

/* ---- text ----------------------------------------------------------------------- */

/*
 * Length of the UTF-8 sequence at s (at most n bytes); *ok says whether it is a character a page
 * may hold (utf8_page_char()).  A byte that starts no sequence is one, not ok.
 */
static size_t utf8_len(const unsigned char *s, size_t n, bool *ok)
{
	int len = utf8_sequence(s, n);
	*ok = len > 0 && utf8_page_char(utf8_code_point(s, len));
	return len > 0 ? (size_t)len : 1;
}

void plot_add_xml(struct strbuf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	while (n) {
		bool ok;
		size_t len = utf8_len(p, n, &ok);
		if (!ok) {
			/* a non-character (U+FFFE...), a control, a byte that is not UTF-8: one U+FFFD */
			strbuf_addstr(out, "\xef\xbf\xbd");
			p += len, n -= len;
			continue;
		}
		switch (*p) {
		case '&': strbuf_addstr(out, "&amp;"); break;
		case '<': strbuf_addstr(out, "&lt;"); break;
		case '>': strbuf_addstr(out, "&gt;"); break;
		case '"': strbuf_addstr(out, "&quot;"); break;
		case '\'': strbuf_addstr(out, "&#39;"); break;
		default: strbuf_add(out, p, len);
		}
		p += len, n -= len;
	}
}

/* <text x y [attrs]>s</text> */
static void text(struct strbuf *out, double x, double y, const char *attrs, const char *s)
{
	strbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\"%s%s>", x, y, *attrs ? " " : "", attrs);
	plot_add_xml(out, s);
	strbuf_addstr(out, "</text>\n");
}

/* text(), cut at the end with an ellipsis to fit in max_w pixels (by the layout's estimate). */
static void text_fit(struct strbuf *out, double x, double y, const char *attrs, const char *s, double max_w,
		     double size)
{
	struct strbuf cut = STRBUF_INIT;
	strbuf_addstr(&cut, s);
	while (cut.len && plot_text_width(cut.buf, size, false) > max_w) {
		/* drop the last character (and a previous ellipsis), then add one */
		size_t n = cut.len >= 3 && !strcmp(cut.buf + cut.len - 3, "\xe2\x80\xa6") ? cut.len - 3 : cut.len;
		do
			n--;
		while (n && ((unsigned char)cut.buf[n] & 0xc0) == 0x80);
		strbuf_setlen(&cut, n);
		strbuf_addstr(&cut, "\xe2\x80\xa6");
	}
	text(out, x, y, attrs, cut.buf);
	strbuf_release(&cut);
}

static void tooltip(struct strbuf *out, const char *s)
{
	strbuf_addstr(out, "<title>");
	plot_add_xml(out, s);
	strbuf_addstr(out, "</title>");
}

void plot_add_number(struct strbuf *out, double v)
{
	if (isnan(v))
		strbuf_addstr(out, "nan");
	else if (isinf(v))
		strbuf_addstr(out, v < 0 ? "-inf" : "inf");
	else
		strbuf_addf(out, "%.4g", v);
}

/* ---- points and ranks ------------------------------------------------------------ */

/* data-rank (when it has one) and data-ri (the rank's place among those drawn, for the page's script). */
static void rank_attrs(const struct plot *p, const struct plot_rank *r, struct strbuf *out)
{
	if (r->rank >= 0)
		strbuf_addf(out, "data-rank=\"%lld\" ", (long long)r->rank);
	strbuf_addf(out, "data-ri=\"%zu\"", (size_t)(r - p->ranks));
}

/* The step and seq of a point, from its x and its rank's steps; seq -1 when the leaf had none. */
static void point_place(const struct plot_rank *r, const struct plot_point *pt, int64_t *step, int64_t *seq)
{
	size_t i = 0;
	while (i + 1 < r->nsteps && r->steps[i + 1].x <= pt->x)
		i++;
	*step = r->nsteps ? r->steps[i].step : -1;
	*seq = r->nsteps ? pt->x - r->steps[i].x : -1;
}

/* What a point's value is, for people: "rel 0.0123", "golden 0: abs 0.5", "rel inf", "no rel". */
static void point_value(const struct plot *p, const struct plot_point *pt, struct strbuf *out)
{
	const char *m = p->metric == PLOT_COS ? "1 - cos" : plot_metric_names[p->metric];
	if (pt->flags & PF_UNMATCHED) {
		strbuf_addstr(out, "no golden");
		return;
	}
	if (p->metric == PLOT_MD5 && (pt->ykind == Y_VALUE || pt->ykind == Y_ZERO)) {
		strbuf_addstr(out, pt->ykind == Y_VALUE ? "CRC-32 differs" : "CRC-32 same");
		return;
	}
	switch (pt->ykind) {
	case Y_NONE:
		strbuf_addf(out, "no %s", m);
		break;
	case Y_ZERO:
		strbuf_addf(out, "%s 0", m);
		break;
	case Y_GOLDEN0:
		strbuf_addstr(out, "golden 0: abs ");
		plot_add_number(out, pt->y);
		break;
	default:
		strbuf_addf(out, "%s ", m);
		plot_add_number(out, pt->y);
	}
}

void plot_point_text(const struct plot *p, const struct plot_rank *r, const struct plot_point *pt,
			    struct strbuf *out)
{
	int64_t step, seq;
	point_place(r, pt, &step, &seq);
	strbuf_addf(out, "%s\n%s", p->names[pt->name], r->label);
	if (step >= 0)
		strbuf_addf(out, ", step %lld", (long long)step);
	if (seq >= 0)
		strbuf_addf(out, ", seq %lld", (long long)seq);
	strbuf_addch(out, '\n');
	point_value(p, pt, out);
}

/* ---- pieces of the picture ---------------------------------------------------- */

static double slot_w(const struct plot *p)
{
	return (p->g.right - p->g.left) / (double)(p->xmax - p->xmin + 1);
}

static void draw_header(const struct plot *p, struct strbuf *out, struct strbuf *tmp)
{
	const struct plot_geom *g = &p->g;
	size_t leaves = 0;
	for (size_t i = 0; i < p->nranks; i++)
		leaves += p->ranks[i].n;
	strbuf_reset(tmp);
	strbuf_addf(tmp, "probe-plot: %s", plot_metric_title(p->metric));
	/* bold runs wider than the estimate: a tenth more */
	text_fit(out, g->left, g->title_y, "font-size=\"15\" font-weight=\"bold\" fill=\"#222\"", tmp->buf,
		 (g->width - g->left - 8) / 1.1, 15);
	strbuf_reset(tmp);
	plot_inputs_label(p, tmp);
	text_fit(out, g->left, g->inputs_y, "class=\"inputs\" font-size=\"11\" fill=\"#333\"", tmp->buf,
		 g->width - g->left - 8, 11);
	strbuf_reset(tmp);
	if (p->nranks == 1)
		strbuf_addf(tmp, "%s: %zu leaves along execution order; ", p->ranks[0].label, leaves);
	else
		strbuf_addf(tmp, "%zu ranks: %zu leaves along execution order; ", p->nranks, leaves);
	strbuf_addf(tmp, "%llu diverge", (unsigned long long)p->diverging);
	if (p->golden0)
		strbuf_addf(tmp, ", %llu against a golden of 0", (unsigned long long)p->golden0);
	if (p->nonfinite)
		strbuf_addf(tmp, ", %llu inf/nan", (unsigned long long)p->nonfinite);
	if (p->unmatched)
		strbuf_addf(tmp, ", %llu without a golden", (unsigned long long)p->unmatched);
	if (p->golden_only)
		strbuf_addf(tmp, "; %llu golden-only not drawn", (unsigned long long)p->golden_only);
	if (p->o.from > 0 || p->o.to >= 0) {
		strbuf_addf(tmp, "; range %lld:", (long long)p->o.from);
		if (p->o.to >= 0)
			strbuf_addi(tmp, p->o.to);
	}
	text_fit(out, g->left, g->subtitle_y, "class=\"counts\" font-size=\"11\" fill=\"" MUTED "\"", tmp->buf,
		 g->width - g->left - 8, 11);
}

static void diamond(struct strbuf *out, double x, double y, double r, const char *fill)
{
	strbuf_addf(out, "<path d=\"M%.1f %.1fl%.1f %.1fl%.1f %.1fl%.1f %.1fz\" fill=\"%s\" stroke=\"#fff\" stroke-width=\"1\"/>",
		    x, y - r, r, r, -r, r, -r, -r, fill);
}

static void triangle(struct strbuf *out, double x, double y, double r, const char *fill)
{
	strbuf_addf(out, "<path d=\"M%.1f %.1fl%.1f %.1fh%.1fz\" fill=\"%s\" stroke=\"#fff\" stroke-width=\"1\"/>", x,
		    y - r, r, 1.7 * r, -2 * r, fill);
}

static void draw_legend(const struct plot *p, struct strbuf *out)
{
	for (size_t i = 0; i < p->nlegend; i++) {
		const struct plot_legend_item *it = &p->legend[i];
		double x = it->x, y = it->y;
		switch (it->kind) {
		case LEGEND_RANK:
			strbuf_addf(out, "<line class=\"legend-rank\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>",
				    x, y - 4, x + 16, y - 4, it->color);
			break;
		case LEGEND_DIVERGENCE:
			diamond(out, x + 8, y - 4, 5, PLOT_RED);
			break;
		case LEGEND_NONFINITE:
			triangle(out, x + 8, y - 5, 5, PLOT_ORANGE);
			break;
		case LEGEND_DIVERGES:
			strbuf_addf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"3\" height=\"8\" fill=\"%s\"/>", x + 7, y - 8,
				    PLOT_RED);
			break;
		case LEGEND_BACKWARD:
			strbuf_addf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"16\" height=\"10\" fill=\"" SHADE
					 "\" stroke=\"#ccc\"/>",
				    x, y - 9);
			break;
		default:
			break;
		}
		x += it->kind == LEGEND_NOTE ? 0 : 22;
		text_fit(out, x, y,
			 it->kind == LEGEND_NOTE ? "class=\"legend\" font-size=\"11\" font-style=\"italic\" fill=\"" MUTED "\""
						 : "class=\"legend\" font-size=\"11\" fill=\"#333\"",
			 it->text, p->g.width - 4 - x, 11);
	}
}

/* Runs of columns where backward leaves outnumber forward ones, shaded, and labelled when wide. */
static void draw_backward(const struct plot *p, struct strbuf *out)
{
	const struct plot_geom *g = &p->g;
	double half = fmax(slot_w(p) / 2 - 0.5, 0), x0, x1;
	bool any_fwd = false;
	for (int c = 0; c < g->ncols; c++)
		any_fwd |= p->col_fwd[c] >= p->col_back[c] && p->col_fwd[c];
	if (!any_fwd)
		return; /* all backward: no contrast to draw */
	for (int c = 0; c < g->ncols;) {
		int e;
		if (!(p->col_back[c] > p->col_fwd[c])) {
			c++;
			continue;
		}
		e = c;
		/* through empty columns too: a sparse backward run stays one run */
		while (e + 1 < g->ncols && (p->col_back[e + 1] > p->col_fwd[e + 1] || (!p->col_back[e + 1] && !p->col_fwd[e + 1])))
			e++;
		while (e > c && !p->col_back[e])
			e--;
		/* the whole slots of the leaves, not only the columns of their middles */
		x0 = fmax(g->left + c - half, g->left);
		x1 = fmin(g->left + e + 1 + half, g->right);
		strbuf_addf(out, "<rect class=\"backward\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"" SHADE "\"/>\n",
			    x0, g->area_top, x1 - x0, g->area_bottom - g->area_top);
		if (x1 - x0 >= 70)
			text(out, x0 + 4, g->log_top + 24, HALO " font-size=\"10\" fill=\"#888\"", "backward");
		c = e + 1;
	}
}

static void draw_steps(const struct plot *p, struct strbuf *out)
{
	const struct plot_geom *g = &p->g;
	const struct plot_rank *r = &p->ranks[0];
	char buf[48];
	if (!p->multi_step)
		return;
	for (size_t i = 0; i < r->nsteps; i++) {
		double x;
		if (r->steps[i].x < p->xmin || r->steps[i].x > p->xmax)
			continue;
		x = plot_x_px(p, r->steps[i].x) - slot_w(p) / 2;
		if (i)
			strbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>\n",
				    x, g->area_top, x, g->area_bottom);
		snprintf(buf, sizeof(buf), "step %lld", (long long)r->steps[i].step);
		text(out, x + 3, g->log_top + 11, HALO " font-size=\"10\" fill=\"#777\"", buf);
	}
}

/* 10 with a superscript exponent. */
static void power_label(struct strbuf *out, double x, double y, int e)
{
	strbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\" fill=\"#333\">10<tspan dy=\"-5\" font-size=\"8\">%s%d</tspan></text>\n",
		    x, y, e < 0 ? "\xe2\x88\x92" : "", e < 0 ? -e : e);
}

static void draw_y_axis(const struct plot *p, struct strbuf *out)
{
	const struct plot_geom *g = &p->g;
	int span = p->dec_hi - p->dec_lo, every = 1;
	double per = (g->log_bottom - g->log_top) / (span ? span : 1);
	double mid;

	if (p->metric == PLOT_MD5) {
		struct plot_point one = { .y = 1, .ykind = Y_VALUE };
		double y = plot_point_y(p, &one);
		strbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"" GRID "\"/>\n", g->left, y,
			    g->right, y);
		text(out, g->left - 6, y + 4, "font-size=\"11\" text-anchor=\"end\" fill=\"#333\"", "differs");
	} else {
		while (per * every < 16)
			every++;
		for (int e = p->dec_lo; e <= p->dec_hi; e++) {
			double y = g->log_bottom - (e - p->dec_lo) * per;
			if ((e - p->dec_lo) % every)
				continue;
			strbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"" GRID "\"/>\n",
				    g->left, y, g->right, y);
			power_label(out, g->left - 6, y + 4, e);
		}
	}
	/* the strips */
	if (g->nog_h > 0)
		text(out, g->left - 6, g->nog_top + g->nog_h / 2 + 3, "font-size=\"9\" text-anchor=\"end\" fill=\"" MUTED "\"",
		     "no golden");
	strbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ccc\" stroke-dasharray=\"2 2\"/>\n",
		    g->left, g->inf_top + g->inf_h, g->right, g->inf_top + g->inf_h);
	text(out, g->left - 6, g->inf_top + g->inf_h / 2 + 4, "font-size=\"11\" text-anchor=\"end\" fill=\"#333\"",
	     "inf/nan");
	if (g->g0_h > 0) {
		strbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ccc\" stroke-dasharray=\"2 2\"/>\n",
			    g->left, g->g0_top + g->g0_h, g->right, g->g0_top + g->g0_h);
		strbuf_addstr(out, "<g class=\"golden0-axis\">");
		tooltip(out, "leaves whose golden statistic is exactly 0: no relative difference exists (the absolute one "
			     "is in the tooltip and the table)");
		text(out, g->left - 6, g->g0_top + g->g0_h / 2 + 4, "font-size=\"11\" text-anchor=\"end\" fill=\"#333\"",
		     "golden 0");
		strbuf_addstr(out, "</g>\n");
	}
	strbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ccc\" stroke-dasharray=\"2 2\"/>\n",
		    g->left, g->zero_top, g->right, g->zero_top);
	text(out, g->left - 6, g->zero_top + g->zero_h / 2 + 4, "font-size=\"11\" text-anchor=\"end\" fill=\"#333\"",
	     p->metric == PLOT_MD5 ? "same" : "0");
	text(out, g->left - 6, g->rug_top + g->rug_h - 1, "font-size=\"9\" text-anchor=\"end\" fill=\"" MUTED "\"",
	     "diverges");
	/* the frame and the title of the axis */
	strbuf_addf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#bbb\"/>\n",
		    g->left, g->area_top, g->right - g->left, g->area_bottom - g->area_top);
	mid = (g->log_top + g->log_bottom) / 2;
	strbuf_addf(out, "<text x=\"16\" y=\"%.1f\" font-size=\"11\" fill=\"#333\" text-anchor=\"middle\" transform=\"rotate(-90 16 %.1f)\">",
		    mid, mid);
	plot_add_xml(out, plot_metric_axis(p->metric));
	strbuf_addstr(out, "</text>\n");
}

/* Runs of columns with a flag, as rectangles in a strip. */
static void draw_column_runs(const struct plot *p, struct strbuf *out, const uint8_t *flag, double top, double h,
			     const char *fill, const char *cls)
{
	const struct plot_geom *g = &p->g;
	for (int c = 0; c < g->ncols;) {
		int e = c;
		if (!flag[c]) {
			c++;
			continue;
		}
		while (e + 1 < g->ncols && flag[e + 1])
			e++;
		strbuf_addf(out, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"/>\n", cls,
			    g->left + c, top, e - c + 1, h, fill);
		c = e + 1;
	}
}

struct pen {
	double x, y;
	size_t vertices;   /* in the current piece of the path */
};

/* A piece of one vertex draws as a dot (a zero-length line with round caps). */
static void end_piece(struct strbuf *out, struct pen *pen)
{
	if (pen->vertices == 1)
		strbuf_addstr(out, "l0 0");
}

/* The next vertex of a path: a move to start a piece, a line otherwise; repeats dropped. */
static void add_vertex(struct strbuf *out, struct pen *pen, double x, double y, bool move)
{
	if (!move && fabs(x - pen->x) < 0.05 && fabs(y - pen->y) < 0.05)
		return;
	if (move)
		end_piece(out, pen);
	strbuf_addf(out, "%c%.1f %.1f", move ? 'M' : 'L', x, y);
	pen->vertices = move ? 1 : pen->vertices + 1;
	pen->x = x;
	pen->y = y;
}

/*
 * One rank's line: per pixel column its first, lowest and highest (in
 * their order) and last point.  It breaks where leaves at 0 come between.
 */
static void draw_rank_line(const struct plot *p, const struct plot_rank *r, struct strbuf *out)
{
	const struct plot_geom *g = &p->g;
	struct pen pen = { 0, 0, 0 };
	bool started = false;
	size_t start = out->len;
	strbuf_addstr(out, "<path class=\"rank\" ");
	rank_attrs(p, r, out);
	strbuf_addf(out, " fill=\"none\" stroke=\"%s\" stroke-width=\"1.3\" stroke-linejoin=\"round\" stroke-linecap=\"round\" d=\"",
		    r->color);
	for (int c = 0; c < g->ncols; c++) {
		const struct plot_col *col = &r->cols[c];
		double mx = g->left + c + 0.5;
		if (!col->n)
			continue;
		add_vertex(out, &pen, col->first_x, col->first_y, !started || col->gap);
		started = true;
		if (col->n > 2) {
			bool min_first = col->min_at < col->max_at;
			add_vertex(out, &pen, mx, min_first ? col->min_y : col->max_y, false);
			add_vertex(out, &pen, mx, min_first ? col->max_y : col->min_y, false);
		}
		add_vertex(out, &pen, col->last_x, col->last_y, false);
	}
	if (!started) {
		strbuf_setlen(out, start);
		return;
	}
	end_piece(out, &pen);
	strbuf_addstr(out, "\"/>\n");
}

/* When there are few points, each is drawn too: filled when it diverges; in the SVG, each with its tooltip. */
static void draw_points(const struct plot *p, const struct plot_rank *r, struct strbuf *out, bool html)
{
	struct strbuf tip = STRBUF_INIT;
	strbuf_addstr(out, "<g class=\"points\" ");
	rank_attrs(p, r, out);
	strbuf_addf(out, " stroke=\"%s\">", r->color);
	for (size_t k = 0; k < r->n; k++) {
		const struct plot_point *pt = &r->v[k];
		if (pt->flags & PF_UNMATCHED || pt->x < p->xmin || pt->x > p->xmax)
			continue;
		strbuf_addf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"", plot_x_px(p, pt->x),
			    plot_point_y(p, pt), pt->flags & PF_DIFF ? r->color : "#fff");
		if (html) {
			/* the page's own tooltip shows it (page.js) */
			strbuf_addstr(out, "/>");
			continue;
		}
		strbuf_reset(&tip);
		plot_point_text(p, r, pt, &tip);
		strbuf_addstr(out, ">");
		tooltip(out, tip.buf);
		strbuf_addstr(out, "</circle>");
	}
	strbuf_addstr(out, "</g>\n");
	strbuf_release(&tip);
}

bool plot_sparse(const struct plot *p)
{
	size_t points = 0;
	for (size_t i = 0; i < p->nranks; i++)
		points += p->ranks[i].n;
	return points <= (size_t)p->g.ncols / 3;
}

static void draw_data(const struct plot *p, struct strbuf *out, bool html)
{
	/* rank 0 last, so on top */
	for (size_t i = p->nranks; i-- > 0;)
		draw_rank_line(p, &p->ranks[i], out);
	if (plot_sparse(p))
		for (size_t i = p->nranks; i-- > 0;)
			draw_points(p, &p->ranks[i], out, html);
}

void plot_mark_text(const struct plot *p, const struct plot_mark *m, struct strbuf *tmp)
{
	strbuf_reset(tmp);
	strbuf_addf(tmp, "%s, %s, ", m->kind == MARK_DIVERGENCE ? "first divergence" : "first non-finite",
		    plot_rank_label(p, m->rank));
	if (m->step >= 0)
		strbuf_addf(tmp, "step %lld, ", (long long)m->step);
	strbuf_addf(tmp, "seq %lld: %s (%s)", (long long)m->seq, m->leaf, m->role);
	if (m->where && *m->where)
		strbuf_addf(tmp, " at %s", m->where);
}

static double lane_baseline(const struct plot *p, int lane)
{
	return p->g.lanes_top + (p->g.lanes - 1 - lane) * PLOT_LANE_H + 12;
}

static void draw_marks(const struct plot *p, struct strbuf *out, struct strbuf *tmp)
{
	/* leaders under the symbols, symbols over the lines, labels last */
	for (size_t i = 0; i < p->nmarks; i++) {
		const struct plot_mark *m = &p->marks[i];
		if (!m->shown || !m->leads || m->lane < 0)
			continue;
		strbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1\" stroke-dasharray=\"3 2\"/>\n",
			    m->px, lane_baseline(p, m->lane) + 3, m->px, m->py - 7,
			    m->kind == MARK_DIVERGENCE ? PLOT_RED : PLOT_ORANGE);
	}
	for (size_t i = 0; i < p->nmarks; i++) {
		const struct plot_mark *m = &p->marks[i];
		if (!m->shown)
			continue;
		strbuf_addf(out, "<g class=\"mark\" data-kind=\"%s\" ", m->kind == MARK_DIVERGENCE ? "divergence" : "nonfinite");
		rank_attrs(p, plot_rank_drawn(p, m->rank), out);
		strbuf_addf(out, " data-step=\"%lld\" data-seq=\"%lld\" data-x=\"%lld\" data-leaf=\"", (long long)m->step,
			    (long long)m->seq, (long long)m->x);
		plot_add_xml(out, m->leaf);
		strbuf_addstr(out, "\">");
		plot_mark_text(p, m, tmp);
		tooltip(out, tmp->buf);
		if (m->kind == MARK_DIVERGENCE)
			diamond(out, m->px, m->py, 6, PLOT_RED);
		else
			triangle(out, m->px, m->py - 1, 6, PLOT_ORANGE);
		if (m->leads && m->lane >= 0) {
			strbuf_addstr(out, "\n");
			text(out, m->label_x, lane_baseline(p, m->lane),
			     m->kind == MARK_DIVERGENCE ? "class=\"label\" font-size=\"11\" font-family=\"" PLOT_MONO "\" fill=\"" PLOT_RED "\""
							: "class=\"label\" font-size=\"11\" font-family=\"" PLOT_MONO "\" fill=\"" PLOT_ORANGE "\"",
			     m->label);
		}
		strbuf_addstr(out, "</g>\n");
	}
}

/* 1, 2 or 5 times a power of ten, so that about `want` ticks fit. */
static int64_t nice_step(int64_t range, int want)
{
	int64_t step = 1;
	if (want < 1)
		want = 1;
	for (;;) {
		static const int f[] = { 1, 2, 5 };
		for (int i = 0; i < 3; i++)
			if (range / (step * f[i]) <= want)
				return step * f[i];
		if (step > INT64_MAX / 100)
			return step;
		step *= 10;
	}
}

static void draw_x_axis(const struct plot *p, struct strbuf *out)
{
	const struct plot_geom *g = &p->g;
	int64_t step = nice_step(p->xmax - p->xmin, (int)((g->right - g->left) / 80));
	int64_t first = (p->xmin + step - 1) / step * step;
	char buf[32];
	for (int64_t x = first; x <= p->xmax; x += step) {
		double px = plot_x_px(p, x);
		strbuf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"" AXIS "\"/>", px,
			    g->area_bottom, px, g->area_bottom + 4);
		snprintf(buf, sizeof(buf), "%lld", (long long)x);
		text(out, px, g->ticks_y, "font-size=\"11\" text-anchor=\"middle\" fill=\"#333\"", buf);
		if (x > INT64_MAX - step)
			break;
	}
	text_fit(out, (g->left + g->right) / 2, g->xtitle_y, "font-size=\"11\" text-anchor=\"middle\" fill=\"#333\"",
		 p->multi_step ? "execution order (seq; each step continues after the one before)" : "execution order (seq)",
		 g->right - g->left, 11);
}

/* The module at depth d of a point's chain, or -1. */
static int64_t module_at(const struct plot *p, const struct plot_point *pt, int d)
{
	const struct plot_chain *c = &p->chains[pt->chain];
	return (uint32_t)d < c->depth ? (int64_t)c->modules[d] : -1;
}

static void draw_band(const struct plot *p, struct strbuf *out, struct strbuf *tmp, double y, double x0, double x1,
		      int64_t module, size_t index)
{
	static const char *const fills[2] = { "#dbe4f0", "#ecf0f6" };
	strbuf_addf(out, "<g class=\"module\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.5\"/>",
		    x0, y, x1 - x0, PLOT_BAND_H - 2, fills[index % 2]);
	tooltip(out, p->modules[module]);
	plot_module_label(p->modules[module], tmp);
	if (plot_text_width(tmp->buf, 10, false) + 6 > x1 - x0 && strchr(tmp->buf, ' '))
		strbuf_setlen(tmp, (size_t)(strchr(tmp->buf, ' ') - tmp->buf)); /* "fc2 Linear", else "fc2" */
	if (plot_text_width(tmp->buf, 10, false) + 6 <= x1 - x0)
		text(out, x0 + 3, y + PLOT_BAND_H - 6, "font-size=\"10\" fill=\"#334\"", tmp->buf);
	strbuf_addstr(out, "</g>\n");
}

/* Runs narrower than this merge into one gray "dense" band. */
#define NARROW 3.0

static void draw_dense(struct strbuf *out, double y, double x0, double x1, size_t n)
{
	strbuf_addf(out, "<g class=\"dense\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"#d5d5d5\"/><title>%zu modules, too narrow to draw one by one: use --range</title></g>\n",
		    x0, y, x1 - x0, PLOT_BAND_H - 2, n);
}

/* The module hierarchy of the first rank drawn, one row per depth. */
static void draw_modules(const struct plot *p, struct strbuf *out, struct strbuf *tmp)
{
	const struct plot_geom *g = &p->g;
	const struct plot_rank *r = &p->ranks[0];
	double half = slot_w(p) / 2;
	if (!g->band_rows)
		return;
	text(out, g->left - 6, g->bands_top + PLOT_BAND_H - 6, "font-size=\"9\" text-anchor=\"end\" fill=\"" MUTED "\"",
	     "modules");
	for (int d = 0; d < g->band_rows; d++) {
		double y = g->bands_top + d * PLOT_BAND_H;
		double dense_x0 = 0, dense_x1 = 0;
		size_t dense_n = 0, index = 0;
		for (size_t k = 0; k < r->n;) {
			int64_t mod = module_at(p, &r->v[k], d);
			size_t e = k;
			double x0, x1;
			while (e + 1 < r->n && module_at(p, &r->v[e + 1], d) == mod)
				e++;
			x0 = fmax(plot_x_px(p, r->v[k].x) - half, g->left);
			x1 = fmin(plot_x_px(p, r->v[e].x) + half, g->right);
			k = e + 1;
			if (mod < 0 || x1 <= g->left || x0 >= g->right)
				continue;
			if (x1 - x0 < NARROW) {
				if (dense_n && x0 - dense_x1 > NARROW) {
					draw_dense(out, y, dense_x0, dense_x1, dense_n);
					dense_n = 0;
				}
				if (!dense_n)
					dense_x0 = x0;
				dense_x1 = x1;
				dense_n++;
				continue;
			}
			if (dense_n) {
				draw_dense(out, y, dense_x0, fmin(dense_x1, x0), dense_n);
				dense_n = 0;
			}
			draw_band(p, out, tmp, y, x0, x1, mod, index++);
		}
		if (dense_n)
			draw_dense(out, y, dense_x0, dense_x1, dense_n);
	}
}

void plot_svg_body(const struct plot *p, struct strbuf *out, bool html)
{
	const struct plot_geom *g = &p->g;
	struct strbuf tmp = STRBUF_INIT;

	strbuf_addf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"" PLOT_SANS "\">\n",
		    g->width, g->height, g->width, g->height);
	strbuf_addstr(out, "<title>");
	strbuf_addstr(&tmp, "probe-plot: ");
	plot_inputs_label(p, &tmp);
	plot_add_xml(out, tmp.buf);
	strbuf_addstr(out, "</title>\n");
	strbuf_addf(out, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", g->width, g->height);
	draw_header(p, out, &tmp);
	draw_legend(p, out);
	strbuf_addstr(out, "\n");
	draw_backward(p, out);
	draw_y_axis(p, out);
	draw_steps(p, out);
	if (g->nog_h > 0)
		draw_column_runs(p, out, p->col_nog, g->nog_top + 2, g->nog_h - 4, "#999", "unmatched");
	draw_column_runs(p, out, p->col_diff, g->rug_top + 1, g->rug_h - 2, PLOT_RED, "diverges");
	if (!plot_sparse(p)) {
		draw_column_runs(p, out, p->col_zero, g->zero_top + g->zero_h / 2 - 2, 4, "#9aa5b1", "zero");
		if (g->g0_h > 0)
			draw_column_runs(p, out, p->col_g0, g->g0_top + g->g0_h / 2 - 3, 6, GOLDEN0, "golden0");
	}
	draw_data(p, out, html);
	draw_marks(p, out, &tmp);
	draw_x_axis(p, out);
	draw_modules(p, out, &tmp);
	strbuf_addstr(out, "</svg>\n");
	strbuf_release(&tmp);
}

void plot_write_svg(const struct plot *p, struct strbuf *out)
{
	strbuf_addstr(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	plot_svg_body(p, out, false);
}

