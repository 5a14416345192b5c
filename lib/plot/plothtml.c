/*
 * plothtml.c: the HTML page of probe-plot: the picture (plotsvg.c), the
 * ranks, the marks and the table of the leaves that are not the same, with
 * the page's style and script (page.css, page.js, compiled in by the
 * Makefile as plot_page_css and plot_page_js) and the data the script
 * needs: every point drawn, its rank, its leaf and its value.
 *
 * The page is well-formed XML as well as HTML: the script is in a CDATA
 * section, and the JSON data escape '<', '>' and '&'.
 */
#include "plotmodel.h"
#include "../json/jsonw.h"
#include "../core/xalloc.h"

#include <math.h>

/* share/build/cstring.sh, from lib/plot/page.css and lib/plot/page.js */
extern const char plot_page_css[], plot_page_js[];

/* What the verdicts of the table mean, in its key. */
static const struct {
	const char *verdict, *meaning;
} verdicts[] = {
	{ "diff", "differs from the golden (our verdict, bitwise unless probe-metric was given a band)" },
	{ "unmatched", "no golden leaf to compare with" },
	{ "unreadable", "its tensor files could not be compared" },
};

/* A JSON string that a script element and XML can hold as text (jsonw_script_safe()). */
static void json_text(struct strbuf *out, const char *s)
{
	struct strbuf tmp = STRBUF_INIT;
	jsonw_str(&tmp, s);
	jsonw_script_safe(out, tmp.buf, tmp.len, true);
	strbuf_release(&tmp);
}

/* ---- the points the script knows ---------------------------------------------------- */

struct points_out {
	const struct plot *p;
	struct strbuf *out;
	uint32_t *name_index;   /* per plot name: its place in the page's "names", or UINT32_MAX */
	uint32_t nnames;
	struct strbuf names, tmp;
	bool first;
};

static void add_point(struct points_out *po, size_t ri, size_t k, double px, double py)
{
	const struct plot *p = po->p;
	const struct plot_rank *r = &p->ranks[ri];
	const struct plot_point *pt = &r->v[k];
	uint32_t *ni = &po->name_index[pt->name];
	if (*ni == UINT32_MAX) {
		*ni = po->nnames++;
		if (po->names.len)
			strbuf_addch(&po->names, ',');
		json_text(&po->names, p->names[pt->name]);
	}
	/* [rank index, x, px, py, name, "the tooltip's last two lines"] */
	strbuf_addf(po->out, "%s[%zu,%lld,%.1f,%.1f,%u,", po->first ? "" : ",\n", ri, (long long)pt->x, px, py, *ni);
	po->first = false;
	strbuf_reset(&po->tmp);
	plot_point_text(p, r, pt, &po->tmp);
	/* the leaf is in "names": only what follows its line */
	json_text(po->out, strchr(po->tmp.buf, '\n') + 1);
	strbuf_addch(po->out, ']');
}

/* Dense: the vertices of the rank's line, where they are drawn (the lowest and highest of a column at its middle). */
static void add_vertices(struct points_out *po, size_t ri)
{
	const struct plot *p = po->p;
	const struct plot_rank *r = &p->ranks[ri];
	for (int c = 0; c < p->g.ncols; c++) {
		const struct plot_col *col = &r->cols[c];
		double mid = p->g.left + c + 0.5;
		if (!col->n)
			continue;
		add_point(po, ri, col->first_i, col->first_x, col->first_y);
		if (col->n > 2) {
			add_point(po, ri, col->min_i, mid, col->min_y);
			add_point(po, ri, col->max_i, mid, col->max_y);
		}
		if (col->n > 1)
			add_point(po, ri, col->last_i, col->last_x, col->last_y);
	}
}

/*
 * Dense: the ticks of the zero and golden 0 strips, which are the ranks'
 * together: per column and strip, the first leaf there (of the lowest rank).
 */
static void add_strip_points(struct points_out *po)
{
	const struct plot *p = po->p;
	size_t ncols = (size_t)p->g.ncols;
	uint8_t *seen = xcalloc(ncols, 2);
	for (size_t ri = 0; ri < p->nranks; ri++) {
		const struct plot_rank *r = &p->ranks[ri];
		for (size_t k = 0; k < r->n; k++) {
			const struct plot_point *pt = &r->v[k];
			int strip;
			size_t c;
			if (pt->flags & PF_UNMATCHED)
				continue;
			if (pt->ykind == Y_GOLDEN0)
				strip = 1;
			else if (pt->ykind == Y_ZERO || pt->ykind == Y_NONE)
				strip = 0;
			else
				continue;
			c = (size_t)plot_col_of(p, pt->x);
			if (seen[c * 2 + strip])
				continue;
			seen[c * 2 + strip] = 1;
			add_point(po, ri, k, p->g.left + c + 0.5, plot_point_y(p, pt));
		}
	}
	free(seen);
}

static void add_points(const struct plot *p, struct strbuf *out, struct strbuf *names)
{
	struct points_out po = { p, out, NULL, 0, STRBUF_INIT, STRBUF_INIT, true };
	po.name_index = xmalloc(st_mult(p->nnames ? p->nnames : 1, sizeof(*po.name_index)));
	for (size_t i = 0; i < p->nnames; i++)
		po.name_index[i] = UINT32_MAX;
	strbuf_addstr(out, "\"points\":[\n");
	if (plot_sparse(p)) {
		/* every point drawn, as plotsvg.c draws it */
		for (size_t ri = 0; ri < p->nranks; ri++)
			for (size_t k = 0; k < p->ranks[ri].n; k++) {
				const struct plot_point *pt = &p->ranks[ri].v[k];
				if (!(pt->flags & PF_UNMATCHED))
					add_point(&po, ri, k, plot_x_px(p, pt->x), plot_point_y(p, pt));
			}
	} else {
		for (size_t ri = 0; ri < p->nranks; ri++)
			add_vertices(&po, ri);
		add_strip_points(&po);
	}
	strbuf_addstr(out, "]");
	strbuf_addbuf(names, &po.names);
	free(po.name_index);
	strbuf_release(&po.names);
	strbuf_release(&po.tmp);
}

/* The data of page.js: the ranks, the points drawn and their leaves' names. */
static void html_data(const struct plot *p, struct strbuf *out)
{
	struct strbuf points = STRBUF_INIT, names = STRBUF_INIT;
	strbuf_addstr(out, "<script type=\"application/json\" id=\"plot-data\">{\"metric\":");
	json_text(out, plot_metric_names[p->metric]);
	strbuf_addf(out, ",\"sparse\":%s,\"ranks\":[", plot_sparse(p) ? "true" : "false");
	for (size_t i = 0; i < p->nranks; i++) {
		const struct plot_rank *r = &p->ranks[i];
		strbuf_addf(out, "%s\n{\"label\":", i ? "," : "");
		json_text(out, r->label);
		strbuf_addf(out, ",\"color\":\"%s\",\"started\":%s}", r->color, r->started && p->nranks > 1 ? "true" : "false");
	}
	strbuf_addstr(out, "],\n");
	add_points(p, &points, &names);
	strbuf_addstr(out, "\"names\":[");
	strbuf_addbuf(out, &names);
	strbuf_addstr(out, "],\n");
	strbuf_addbuf(out, &points);
	strbuf_addstr(out, "}</script>\n");
	strbuf_release(&points);
	strbuf_release(&names);
}

/* ---- the page ---------------------------------------------------------------------- */

static void swatch(struct strbuf *out, const char *color)
{
	strbuf_addf(out, "<span class=\"swatch\" style=\"background:%s\"></span>", color);
}

/* Every rank drawn, its colour, and the ranks that started it. */
static void html_ranks(const struct plot *p, struct strbuf *out)
{
	strbuf_addstr(out, "<h2>Ranks</h2>\n<ul id=\"ranks\" class=\"key\">\n");
	for (size_t i = 0; i < p->nranks; i++) {
		const struct plot_rank *r = &p->ranks[i];
		strbuf_addf(out, "<li data-ri=\"%zu\"%s>", i, r->started && p->nranks > 1 ? " class=\"started\"" : "");
		swatch(out, r->color);
		plot_add_xml(out, r->label);
		if (r->started && p->nranks > 1)
			strbuf_addstr(out, " (started it)");
		strbuf_addstr(out, "</li>\n");
	}
	strbuf_addstr(out, "</ul>\n");
}

static void html_marks(const struct plot *p, struct strbuf *out, struct strbuf *tmp)
{
	strbuf_addstr(out, "<h2>Marks</h2>\n<ul id=\"marks\">\n");
	if (!p->nmarks)
		strbuf_addstr(out, "<li class=\"note\">No divergence and no non-finite value.</li>\n");
	for (size_t i = 0; i < p->nmarks; i++) {
		const struct plot_mark *m = &p->marks[i];
		const struct plot_rank *r = plot_rank_drawn(p, m->rank);
		strbuf_addf(out, "<li class=\"%s\"", m->kind == MARK_DIVERGENCE ? "divergence" : "nonfinite");
		if (r)
			strbuf_addf(out, " data-ri=\"%zu\" data-x=\"%lld\" tabindex=\"0\"", (size_t)(r - p->ranks), (long long)m->x);
		strbuf_addstr(out, ">");
		plot_mark_text(p, m, tmp);
		plot_add_xml(out, tmp->buf);
		if (!m->shown)
			strbuf_addstr(out, " <span class=\"note\">(outside the range drawn)</span>");
		strbuf_addstr(out, "</li>\n");
	}
	strbuf_addstr(out, "</ul>\n");
}

static void cell(struct strbuf *out, const char *cls, const char *s)
{
	strbuf_addf(out, "<td%s%s%s>", *cls ? " class=\"" : "", cls, *cls ? "\"" : "");
	plot_add_xml(out, s);
	strbuf_addstr(out, "</td>");
}

/* A cell that sorts by a number (data-v) and shows text. */
static void num_cell(struct strbuf *out, const char *cls, double sort_value, const char *shown)
{
	strbuf_addf(out, "<td class=\"num%s%s\" data-v=\"", *cls ? " " : "", cls);
	if (isnan(sort_value))
		strbuf_addstr(out, "NaN");
	else if (isinf(sort_value))
		strbuf_addstr(out, sort_value < 0 ? "-1e309" : "1e309");
	else
		strbuf_addf(out, "%.17g", sort_value);
	strbuf_addstr(out, "\">");
	plot_add_xml(out, shown);
	strbuf_addstr(out, "</td>");
}

/* The innermost module of a chain, for the table. */
static const char *innermost(const struct plot *p, uint32_t chain)
{
	const struct plot_chain *c = &p->chains[chain];
	return c->depth ? p->modules[c->modules[c->depth - 1]] : "";
}

/* The value cell: the metric; against a golden of 0, the absolute difference (sorted above every number). */
static void value_cell(const struct plot *p, const struct plot_row *r, struct strbuf *tmp, struct strbuf *out)
{
	double v = r->ykind == Y_VALUE ? r->y : r->ykind == Y_ZERO ? 0 : r->ykind == Y_INF ? INFINITY : NAN;
	strbuf_reset(tmp);
	if (r->ykind == Y_GOLDEN0) {
		strbuf_addstr(tmp, "golden 0: abs ");
		plot_add_number(tmp, r->y);
		num_cell(out, "golden0", 1e308, tmp->buf);
		return;
	}
	if (r->ykind == Y_INF)
		plot_add_number(tmp, r->y);
	else if (r->ykind != Y_NONE)
		plot_add_number(tmp, r->ykind == Y_ZERO ? 0 : r->y);
	num_cell(out, r->ykind == Y_INF ? "nonfinite" : "", v, tmp->buf);
	(void)p;
}

/* The verdict as a class name: the ones of the key, else "other". */
static const char *verdict_class(const char *verdict)
{
	for (size_t i = 0; i < ARRAY_SIZE(verdicts); i++)
		if (!strcmp(verdict, verdicts[i].verdict))
			return verdict;
	return "other";
}

static void html_row(const struct plot *p, const struct plot_row *r, struct strbuf *tmp, struct strbuf *out)
{
	const struct plot_rank *rank = &p->ranks[r->rank_index];
	const char *v = verdict_class(r->verdict);
	strbuf_addf(out, "<tr id=\"row-%zu-%lld\" data-ri=\"%zu\" data-x=\"%lld\" class=\"v-%s\">", r->rank_index,
		    (long long)r->x, r->rank_index, (long long)r->x, v);
	/* the rank: its colour, its label; sorted by number, a run without one first */
	strbuf_addf(out, "<td class=\"rank\" data-v=\"%lld\">", (long long)r->rank);
	swatch(out, rank->color);
	plot_add_xml(out, rank->label);
	strbuf_addstr(out, "</td>");
	strbuf_reset(tmp);
	strbuf_addi(tmp, r->x);
	num_cell(out, "", (double)r->x, tmp->buf);
	strbuf_reset(tmp);
	if (r->seq >= 0)
		strbuf_addi(tmp, r->seq);
	num_cell(out, "", (double)r->seq, tmp->buf);
	cell(out, "leaf", r->leaf);
	cell(out, "state", r->state);
	strbuf_addf(out, "<td class=\"verdict\"><span class=\"chip v-%s\">", v);
	plot_add_xml(out, r->verdict);
	strbuf_addstr(out, "</span></td>");
	value_cell(p, r, tmp, out);
	cell(out, "mono", innermost(p, r->chain));
	cell(out, "mono", r->where ? r->where : "");
	strbuf_reset(tmp);
	strbuf_addstr(tmp, r->reason);
	if (tmp->len > 300) {
		/* cut on a character boundary */
		size_t n = 297;
		while (n && ((unsigned char)tmp->buf[n] & 0xc0) == 0x80)
			n--;
		strbuf_setlen(tmp, n);
		strbuf_addstr(tmp, "...");
	}
	cell(out, "reason", tmp->buf);
	strbuf_addstr(out, "</tr>\n");
}

/* The bar over the table, which stays in view: the filter, the rows shown, the key of the verdicts. */
static void html_table_bar(const struct plot *p, struct strbuf *out)
{
	size_t count[ARRAY_SIZE(verdicts)] = { 0 };
	bool any = false;
	for (size_t i = 0; i < p->nrows; i++)
		for (size_t k = 0; k < ARRAY_SIZE(verdicts); k++)
			count[k] += !strcmp(p->rows[i].verdict, verdicts[k].verdict);
	strbuf_addstr(out, "<div id=\"tablebar\"><label for=\"filter\">Filter</label> "
			   "<input id=\"filter\" type=\"search\" placeholder=\"text in any column\" autocomplete=\"off\"/> ");
	strbuf_addf(out, "<span id=\"filter-count\">%zu of %zu rows</span>\n<span id=\"verdict-key\" class=\"key\">", p->nrows,
		    p->nrows);
	for (size_t k = 0; k < ARRAY_SIZE(verdicts); k++) {
		if (!count[k])
			continue;
		strbuf_addf(out, "<span class=\"entry\" title=\"%s\"><span class=\"chip v-%s\">%s</span> %zu</span> ",
			    verdicts[k].meaning, verdicts[k].verdict, verdicts[k].verdict, count[k]);
		any = true;
	}
	if (p->golden0)
		strbuf_addstr(out, "<span class=\"entry\" title=\"the golden statistic is exactly 0: no relative difference; "
				   "the absolute one is shown\"><span class=\"golden0 sample\">golden 0</span> no relative "
				   "difference</span> ");
	if (!any)
		strbuf_addstr(out, "<span class=\"note\">every leaf is the same</span>");
	strbuf_addstr(out, "</span>\n<span id=\"status\" class=\"note\" role=\"status\"></span></div>\n");
}

static void html_table(const struct plot *p, struct strbuf *out, struct strbuf *tmp)
{
	strbuf_addstr(out, "<h2>Leaves that are not the same</h2>\n<p class=\"note\">");
	strbuf_addf(out, "%zu listed", p->nrows);
	if (p->nrows >= p->o.table_rows)
		strbuf_addf(out, " (the first %zu: see --table-rows)", p->o.table_rows);
	strbuf_addstr(out, "; click a heading to sort; a point, a mark or a line of the marks finds its row; the colour of a "
			   "verdict is in the key (hover it), the colour of a rank is its line's.</p>\n");
	html_table_bar(p, out);
	strbuf_addstr(out, "<table id=\"leaves\"><thead><tr><th data-type=\"num\">rank</th><th data-type=\"num\">x</th>"
			   "<th data-type=\"num\">seq</th><th>leaf</th><th>state</th><th>verdict</th>"
			   "<th data-type=\"num\">");
	plot_add_xml(out, plot_metric_names[p->metric]);
	strbuf_addstr(out, "</th><th>module</th><th>where</th><th>reason</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < p->nrows; i++)
		html_row(p, &p->rows[i], tmp, out);
	strbuf_addstr(out, "</tbody></table>\n");
}

void plot_write_html(const struct plot *p, struct strbuf *out)
{
	struct strbuf tmp = STRBUF_INIT, title = STRBUF_INIT;
	strbuf_addstr(&title, "probe-plot: ");
	plot_inputs_label(p, &title);
	strbuf_addstr(out, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
			   "<meta charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width\"/>\n<title>");
	plot_add_xml(out, title.buf);
	strbuf_addstr(out, "</title>\n<style>\n");
	strbuf_addstr(out, plot_page_css);
	strbuf_addstr(out, "</style>\n</head>\n<body>\n<h1>");
	plot_add_xml(out, title.buf);
	strbuf_addstr(out, "</h1>\n<div id=\"figure\">\n");
	plot_svg_body(p, out, true);
	strbuf_addstr(out, "</div>\n<div id=\"tip\" role=\"tooltip\" hidden=\"hidden\"></div>\n");
	html_ranks(p, out);
	html_marks(p, out, &tmp);
	html_table(p, out, &tmp);
	html_data(p, out);
	strbuf_addstr(out, "<script>\n//<![CDATA[\n");
	strbuf_addstr(out, plot_page_js);
	strbuf_addstr(out, "//]]>\n</script>\n</body>\n</html>\n");
	strbuf_release(&tmp);
	strbuf_release(&title);
}
