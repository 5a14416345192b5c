/*
 * gview.c: probe-graph's HTML view: view.html with view.css, the model as
 * JSON and view.js put in its @CSS@, @DATA@ and @JS@ lines (the three
 * files are compiled in: graphview.c is made from them by the Makefile).
 * view.js's header states the data it reads.
 */
#include "../core/compat.h"

#include "graphmodel.h"
#include "../core/xalloc.h"
#include "../json/jsonw.h"

extern const char graph_view_html[], graph_view_css[], graph_view_js[];

/* JSON text that may sit inside a <script> element: every "</" written "<\/". */
static void add_script_safe(struct strbuf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '<' && i + 1 < n && s[i + 1] == '/') {
			strbuf_addstr(out, "<\\/");
			i++;
			continue;
		}
		strbuf_addch(out, s[i]);
	}
}

static void side_nodes(struct strbuf *d, const struct grun *r, bool golden, size_t stack_base)
{
	const struct hier *h = golden ? &r->gh : &r->th;
	const struct gjudge *j = golden ? r->gj : r->tj;
	strbuf_addstr(d, "{\"label\":");
	jsonw_str(d, golden ? "golden" : "target");
	strbuf_addstr(d, ",\"dump\":");
	jsonw_str(d, golden ? r->gdump : r->tdump);
	strbuf_addstr(d, ",\"nodes\":[");
	for (size_t i = 0; i < h->n; i++) {
		const struct hier_node *n = &h->nodes[i];
		if (i)
			strbuf_addch(d, ',');
		strbuf_addstr(d, "{\"n\":");
		jsonw_string(d, n->name, n->name_len);
		strbuf_addf(d, ",\"t\":%d,\"p\":%lld,\"c\":[", (int)n->op, (long long)n->parent);
		for (size_t c = 0; c < n->nsub; c++)
			strbuf_addf(d, "%s%u", c ? "," : "", n->sub[c]);
		strbuf_addf(d, "],\"o\":%lld,\"m\":%lld,\"ms\":%lld,\"pi\":", (long long)n->order,
			    (long long)(r->gdump ? n->match : -1), (long long)(n->micro_step < 0 ? 0 : n->micro_step));
		graph_add_precision(d, j[i].precision);
		strbuf_addstr(d, ",\"ov\":");
		if (j[i].overflow)
			jsonw_str(d, j[i].overflow);
		else
			strbuf_addstr(d, "null");
		strbuf_addstr(d, ",\"v\":");
		jsonw_str(d, j[i].verdict ? j[i].verdict : "");
		strbuf_addstr(d, ",\"why\":");
		jsonw_str(d, j[i].reason ? j[i].reason : "");
		strbuf_addstr(d, ",\"where\":");
		jsonw_str(d, j[i].where ? j[i].where : "");
		if (j[i].distributed) {
			strbuf_addstr(d, ",\"md\":");
			strbuf_addstr(d, j[i].distributed);
		}
		strbuf_addf(d, ",\"st\":%lld,\"in\":", (long long)stack_base + (long long)j[i].stack);
		strbuf_addstr(d, j[i].input ? j[i].input : "{}");
		strbuf_addstr(d, ",\"out\":");
		strbuf_addstr(d, j[i].output ? j[i].output : "{}");
		strbuf_addch(d, '}');
	}
	strbuf_addstr(d, "]}");
}

static void graph_json(struct strbuf *d, const struct grun *r)
{
	uint32_t *div;
	size_t ndiv = 0;
	strbuf_addstr(d, "{\"rank\":");
	if (r->rank < 0)
		strbuf_addstr(d, "null");
	else
		strbuf_addi(d, r->rank);
	strbuf_addf(d, ",\"step\":%lld,\"label\":", (long long)(r->step < 0 ? 0 : r->step));
	{
		struct strbuf l = STRBUF_INIT;
		if (r->rank >= 0)
			strbuf_addf(&l, "rank %lld ", (long long)r->rank);
		strbuf_addf(&l, "step %lld", (long long)(r->step < 0 ? 0 : r->step));
		jsonw_str(d, l.buf);
		strbuf_release(&l);
	}
	strbuf_addstr(d, ",\"target\":");
	side_nodes(d, r, false, 0);
	strbuf_addstr(d, ",\"golden\":");
	if (r->gdump)
		side_nodes(d, r, true, r->nstacks[0]);
	else
		strbuf_addstr(d, "null");
	strbuf_addstr(d, ",\"stacks\":[");
	for (int s = 0; s < 2; s++)
		for (size_t k = 0; k < r->nstacks[s]; k++) {
			if (s || k)
				strbuf_addch(d, ',');
			strbuf_addstr(d, r->stacks[s][k]);
		}
	strbuf_addf(d, "],\"first\":%lld,\"diverging\":[", (long long)r->first);
	/* the target's API nodes that differ, in execution order (node_order is post-order: APIs come in call order) */
	div = xcalloc(r->th.n + 1, sizeof(*div));
	for (size_t k = 0; k < r->th.nsorted; k++) {
		uint32_t i = r->th.sorted[k];
		const char *v = r->tj[i].verdict;
		if (r->th.nodes[i].op == HIER_API &&
		    (!strcmp(v, "diff") || !strcmp(v, "first") || !strcmp(v, "propagated") || !strcmp(v, "received")))
			div[ndiv++] = i;
	}
	for (size_t k = 0; k < ndiv; k++)
		strbuf_addf(d, "%s%u", k ? "," : "", div[k]);
	free(div);
	strbuf_addstr(d, "]}");
}

/* view.html up to (not including) the line holding marker, from *pos; *pos moves past that line. */
static void copy_until(struct strbuf *out, const char **pos, const char *marker)
{
	const char *m = strstr(*pos, marker);
	if (!m) {
		strbuf_addstr(out, *pos);
		*pos += strlen(*pos);
		return;
	}
	strbuf_add(out, *pos, (size_t)(m - *pos));
	m += strlen(marker);
	if (*m == '\n')
		m++;
	*pos = m;
}

void graph_write_html(const struct graph_set *g, struct strbuf *out)
{
	const char *pos = graph_view_html;
	struct strbuf d = STRBUF_INIT;
	strbuf_addstr(&d, "{\"tool\":\"probe-graph\",\"version\":1,\"mode\":");
	jsonw_str(&d, !g->two_runs ? "build" : g->mode == GDATA_TENSOR ? "tensor" : g->mode == GDATA_MD5 ? "md5" : "statistics");
	strbuf_addstr(&d, ",\"first_rank\":");
	if (g->started_rank >= 0)
		strbuf_addi(&d, g->started_rank);
	else
		strbuf_addstr(&d, "null");
	strbuf_addstr(&d, ",\"graphs\":[");
	for (size_t i = 0; i < g->n; i++) {
		if (i)
			strbuf_addch(&d, ',');
		graph_json(&d, &g->runs[i]);
	}
	strbuf_addstr(&d, "]}");

	copy_until(out, &pos, "@CSS@");
	strbuf_addstr(out, "<style>\n");
	strbuf_addstr(out, graph_view_css);
	strbuf_addstr(out, "</style>\n");
	copy_until(out, &pos, "@DATA@");
	strbuf_addstr(out, "<script id=\"probe-graph-data\" type=\"application/json\">");
	add_script_safe(out, d.buf, d.len);
	strbuf_addstr(out, "</script>\n");
	copy_until(out, &pos, "@JS@");
	strbuf_addstr(out, "<script>\n");
	strbuf_addstr(out, graph_view_js);
	strbuf_addstr(out, "</script>\n");
	strbuf_addstr(out, pos);
	strbuf_release(&d);
}
