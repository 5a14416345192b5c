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

/* Nodes per script of leaves: one parses in a few milliseconds when the detail panel needs it. */
#define LEAF_CHUNK 512

/*
 * The data as it fills: JSON that sits inside a <script> element, made fit
 * for it by jsonw_script_safe() (no '<' left at all, no character a page may
 * not hold).  Unless all, only once over a megabyte, and what ends the
 * buffer cut short (a UTF-8 sequence, an escape) waits for the next flush.
 * The buffer holds only the data: the script's own tags go out by emit_text().
 */
static void flush_safe_text(struct gsink *sink, bool all)
{
	struct strbuf out = STRBUF_INIT;
	size_t n = sink->buf.len, used;
	if (!all && n < (1 << 20))
		return;
	used = jsonw_script_safe(&out, sink->buf.buf, n, all);
	if (!sink->err && out.len && sink->o->emit(sink->o->ctx, out.buf, out.len) < 0)
		sink->err = -1;
	strbuf_release(&out);
	memmove(sink->buf.buf, sink->buf.buf + used, n - used);
	strbuf_setlen(&sink->buf, n - used);
}

static void flush_safe(struct gsink *sink)
{
	flush_safe_text(sink, false);
}

static void side_nodes(struct gsink *sink, const struct grun *r, bool golden, size_t stack_base)
{
	struct strbuf *d = &sink->buf;
	const struct hier *h = golden ? &r->gh : &r->th;
	const struct gjudge *j = golden ? r->gj : r->tj;
	strbuf_addstr(d, "{\"label\":");
	jsonw_str(d, golden ? "golden" : "target");
	strbuf_addstr(d, ",\"dump\":");
	{
		const char *dump = golden ? r->gdump : r->tdump;
		jsonw_str(d, dump ? dump : "");
	}
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
		strbuf_addf(d, ",\"st\":%lld}", (long long)stack_base + (long long)j[i].stack);
		flush_safe(sink);
	}
	strbuf_addstr(d, "]}");
}

static void graph_json(struct gsink *sink, const struct grun *r)
{
	struct strbuf *d = &sink->buf;
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
	side_nodes(sink, r, false, 0);
	strbuf_addstr(d, ",\"golden\":");
	if (r->gdump)
		side_nodes(sink, r, true, r->nstacks[0]);
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
	/* in execution order (node_order is post-order: APIs come in call order) */
	div = xcalloc(r->th.n + 1, sizeof(*div));
	for (size_t k = 0; k < r->th.nsorted; k++) {
		uint32_t i = r->th.sorted[k];
		const char *v = r->tj[i].verdict;
		/* the APIs that differ, and the node of the first divergence whatever it is */
		if ((r->th.nodes[i].op == HIER_API && (!strcmp(v, "diff") || !strcmp(v, "propagated"))) ||
		    !strcmp(v, "first") || !strcmp(v, "received"))
			div[ndiv++] = i;
	}
	for (size_t k = 0; k < ndiv; k++)
		strbuf_addf(d, "%s%u", k ? "," : "", div[k]);
	free(div);
	strbuf_addstr(d, "]}");
}

/* Where marker starts in the page from pos (the end of the page when it has none). */
static const char *marker(const char *pos, const char *name)
{
	const char *m = strstr(pos, name);
	return m ? m : pos + strlen(pos);
}

/* Just past the marker's line. */
static const char *after_marker(const char *m, const char *name)
{
	if (!*m)
		return m;
	m += strlen(name);
	return *m == '\n' ? m + 1 : m;
}

static void emit_text(struct gsink *sink, const char *p, size_t n)
{
	if (!sink->err && n && sink->o->emit(sink->o->ctx, p, n) < 0)
		sink->err = -1;
}

/* The leaves of one side of graph k, LEAF_CHUNK nodes (in node index order) a script: [[input_data, output_data], ...]. */
static void leaf_scripts(struct gsink *sink, const struct grun *r, size_t k, bool golden)
{
	const struct hier *h = golden ? &r->gh : &r->th;
	struct strbuf *d = &sink->buf;
	for (size_t c = 0; c * LEAF_CHUNK < h->n && !sink->err; c++) {
		char open[96];
		int len = snprintf(open, sizeof(open), "<script type=\"application/json\" id=\"pg-leaves-%zu-%s-%zu\">[", k,
				   golden ? "golden" : "target", c);
		/* the script's own tags are not escaped: they go out as they are */
		emit_text(sink, open, (size_t)len);
		for (size_t i = c * LEAF_CHUNK; i < h->n && i < (c + 1) * LEAF_CHUNK; i++) {
			if (i > c * LEAF_CHUNK)
				strbuf_addch(d, ',');
			strbuf_addch(d, '[');
			strbuf_reset(&sink->scratch);
			graph_node_data(r, golden, (uint32_t)i, d, &sink->scratch);
			strbuf_addch(d, ',');
			strbuf_addbuf(d, &sink->scratch);
			strbuf_addch(d, ']');
			flush_safe(sink);
		}
		flush_safe_text(sink, true);
		emit_text(sink, "]</script>\n", 11);
	}
}

int graph_write_html(const struct graph_set *g, const struct graph_out *o)
{
	const char *pos = graph_view_html, *m;
	struct gsink sink = { STRBUF_INIT, STRBUF_INIT, o, 0 };
	struct strbuf *d = &sink.buf;
	int ret;

	m = marker(pos, "@CSS@");
	emit_text(&sink, pos, (size_t)(m - pos));
	emit_text(&sink, "<style>\n", 8);
	emit_text(&sink, graph_view_css, strlen(graph_view_css));
	emit_text(&sink, "</style>\n", 9);
	pos = after_marker(m, "@CSS@");
	m = marker(pos, "@DATA@");
	emit_text(&sink, pos, (size_t)(m - pos));
	pos = after_marker(m, "@DATA@");
	static const char open_data[] = "<script id=\"probe-graph-data\" type=\"application/json\">";
	emit_text(&sink, open_data, strlen(open_data));

	strbuf_addf(d, "{\"tool\":\"probe-graph\",\"version\":1,\"leaf_chunk\":%d,\"mode\":", LEAF_CHUNK);
	jsonw_str(d, !g->two_runs ? "build" : g->mode == GDATA_TENSOR ? "tensor" : g->mode == GDATA_MD5 ? "md5" : "statistics");
	strbuf_addstr(d, ",\"first_rank\":");
	if (g->started_rank >= 0)
		strbuf_addi(d, g->started_rank);
	else
		strbuf_addstr(d, "null");
	strbuf_addstr(d, ",\"graphs\":[");
	for (size_t i = 0; i < g->n; i++) {
		if (i)
			strbuf_addch(d, ',');
		graph_json(&sink, &g->runs[i]);
	}
	strbuf_addstr(d, "]}");
	flush_safe_text(&sink, true);
	emit_text(&sink, "</script>\n", 10);
	for (size_t i = 0; i < g->n && !sink.err; i++) {
		leaf_scripts(&sink, &g->runs[i], i, false);
		if (g->runs[i].gdump)
			leaf_scripts(&sink, &g->runs[i], i, true);
	}

	m = marker(pos, "@JS@");
	emit_text(&sink, pos, (size_t)(m - pos));
	pos = after_marker(m, "@JS@");
	emit_text(&sink, "<script>\n", 9);
	emit_text(&sink, graph_view_js, strlen(graph_view_js));
	emit_text(&sink, "</script>\n", 10);
	emit_text(&sink, pos, strlen(pos));
	ret = sink.err;
	strbuf_release(&sink.buf);
	strbuf_release(&sink.scratch);
	return ret;
}
