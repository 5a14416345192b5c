/*
 * graph.c: probe-graph's model (see graph.h) and its NDJSON writer.
 */
#include "../core/compat.h"

#include <sys/stat.h>

#include "graphmodel.h"
#include "../core/msg.h"
#include "../core/source.h"
#include "../core/xalloc.h"
#include "../json/jsonw.h"
#include "../json/recscan.h"
#include "../msprobe/pyfmt.h"
#include "../records/leafrec.h"
#include "../records/pair.h"

struct graph_set *graph_new(const struct graph_options *o)
{
	struct graph_set *g = xcalloc(1, sizeof(*g));
	g->exec_mode = -1;
	g->fuzzy = o && o->fuzzy;
	g->overflow = o && o->overflow;
	g->mapping = o ? o->mapping : NULL;
	struct first_options fo;
	memset(&fo, 0, sizeof(fo));
	fo.n = 1;
	g->first = first_new(&fo);
	g->started_rank = -1;
	return g;
}

bool graph_is_compare(const struct graph_set *g)
{
	return g->two_runs;
}

static void run_release(struct grun *r)
{
	for (size_t i = 0; r->tj && i < r->th.n; i++) {
		free(r->tj[i].distributed);
	}
	for (size_t i = 0; r->gj && i < r->gh.n; i++) {
		free(r->gj[i].distributed);
	}
	free(r->tj);
	free(r->gj);
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < r->nstacks[s]; i++)
			free(r->stacks[s][i]);
		free(r->stacks[s]);
	}
	if (r->built) {
		hier_release(&r->th);
		gdata_release(&r->td);
		if (r->gdump) {
			hier_release(&r->gh);
			gdata_release(&r->gd);
		}
	}
	strmap_release(&r->rows);
	strmap_release(&r->entries);
	arena_release(&r->arena);
	free(r->tdump);
	free(r->gdump);
}

void graph_free(struct graph_set *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++)
		run_release(&g->runs[i]);
	free(g->runs);
	strmap_release(&g->by_key);
	first_free(g->first);
	free(g);
}

/* ---- the records ------------------------------------------------------------------------ */

static char *span_text(struct arena *a, const struct span *s, struct strbuf *tmp)
{
	strbuf_reset(tmp);
	if (s->kind != SPAN_STRING || span_string(s, tmp) < 0)
		return NULL;
	return arena_memdupz(a, tmp->buf, tmp->len);
}

static struct grun *run_of(struct graph_set *g, const struct leafrec *t, const struct leafrec *gl, struct strbuf *tmp)
{
	struct strmap_slot *slot;
	struct grun *r;
	bool created;
	strbuf_reset(tmp);
	leafrec_str(t, LF_DUMP, tmp);
	if (!tmp->len)
		return NULL;
	slot = strmap_put(&g->by_key, tmp->buf, tmp->len, &created);
	if (!created) {
		r = &g->runs[slot->value.u - 1];
	} else {
		slot->value.u = g->n + 1;
		ALLOC_GROW(g->runs, g->n + 1, g->alloc);
		r = &g->runs[g->n++];
		memset(r, 0, sizeof(*r));
		r->tdump = xstrdup(tmp->buf);
		r->rank = t->rank;
		r->step = t->step;
		r->first = -1;
	}
	if (gl && !r->gdump) {
		strbuf_reset(tmp);
		leafrec_str(gl, LF_DUMP, tmp);
		if (tmp->len)
			r->gdump = xstrdup(tmp->buf);
	}
	return r;
}

static void note_mode(struct graph_set *g, const struct leafrec *t, struct strbuf *tmp)
{
	if (g->mode_known)
		return;
	strbuf_reset(tmp);
	leafrec_str(t, LF_TASK, tmp);
	g->mode = !strcmp(tmp->buf, "tensor") ? GDATA_TENSOR : !strcmp(tmp->buf, "md5") ? GDATA_MD5 : GDATA_STATISTICS;
	g->mode_known = true;
}

/* Python's json.dumps of a list of strings: ["a", "b"]. */
static char *err_list(struct arena *a, const struct span *s, struct strbuf *tmp)
{
	struct rs_iter it;
	struct span v;
	struct strbuf item = STRBUF_INIT;
	bool first = true;
	if (s->kind != SPAN_ARRAY || rs_begin_array(&it, s->p, s->n) < 0)
		return NULL;
	strbuf_reset(tmp);
	strbuf_addch(tmp, '[');
	while (rs_next_item(&it, &v) == 1) {
		strbuf_reset(&item);
		if (v.kind != SPAN_STRING || span_string(&v, &item) < 0)
			continue;
		if (!first)
			strbuf_addstr(tmp, ", ");
		first = false;
		jsonw_string(tmp, item.buf, item.len);
	}
	strbuf_addch(tmp, ']');
	strbuf_release(&item);
	return arena_memdupz(a, tmp->buf, tmp->len);
}

/* The msprobe member of a metric record: Result, Err_message, and (tensor mode) the metric columns. */
static void read_msprobe(struct grun *r, struct grow *row, const struct span *ms, struct strbuf *tmp)
{
	struct rs_iter it;
	struct span k, v;
	struct strbuf metrics = STRBUF_INIT, val = STRBUF_INIT;
	if (ms->kind != SPAN_OBJECT || rs_begin(&it, ms->p, ms->n) < 0)
		return;
	while (rs_next(&it, &k, &v) == 1) {
		if (span_key_is(&k, "mode", 4))
			continue;
		if (span_key_is(&k, "result", 6)) {
			/* the usual ones shared, not copied per row */
			row->result = span_str_eq(&v, "pass", 4) ? "pass" : span_str_eq(&v, "warning", 7) ? "warning"
				    : span_str_eq(&v, "error", 5) ? "error" : span_text(&r->arena, &v, tmp);
		} else if (span_key_is(&k, "err_message", 11)) {
			row->err_message = v.kind == SPAN_ARRAY && v.n == 2 ? "[]" : err_list(&r->arena, &v, tmp);
		} else if (v.kind == SPAN_STRING) {
			strbuf_reset(&val);
			if (span_string(&v, &val) < 0)
				continue;
			if (metrics.len)
				strbuf_addstr(&metrics, ", ");
			strbuf_add(&metrics, k.p, k.n);
			strbuf_addstr(&metrics, ": ");
			jsonw_string(&metrics, val.buf, val.len);
		}
	}
	if (metrics.len)
		row->metrics = arena_memdupz(&r->arena, metrics.buf, metrics.len);
	strbuf_release(&metrics);
	strbuf_release(&val);
}

/* "file:line in function: code" of a record's where member. */
static char *where_text(struct arena *a, const struct span *w, struct strbuf *tmp)
{
	static const char *const keys[] = { "file", "line", "function", "code" };
	struct span v[4];
	struct rs_iter it;
	struct strbuf s = STRBUF_INIT;
	char *out;
	if (w->kind != SPAN_OBJECT || rs_begin(&it, w->p, w->n) < 0 || rs_fields(&it, keys, 4, v) < 0)
		return NULL;
	strbuf_reset(tmp);
	span_string(&v[0], tmp);
	if (v[1].kind == SPAN_NUMBER) {
		strbuf_addch(tmp, ':');
		strbuf_add(tmp, v[1].p, v[1].n);
	}
	if (v[2].kind == SPAN_STRING && span_string(&v[2], &s) == 0) {
		strbuf_addstr(tmp, " in ");
		strbuf_addbuf(tmp, &s);
	}
	strbuf_reset(&s);
	if (v[3].kind == SPAN_STRING && span_string(&v[3], &s) == 0 && s.len) {
		strbuf_addstr(tmp, ": ");
		strbuf_addbuf(tmp, &s);
	}
	strbuf_release(&s);
	out = arena_memdupz(a, tmp->buf, tmp->len);
	return out;
}

static struct gentryinfo *entry_info(struct grun *r, const char *name, size_t len)
{
	bool created;
	struct strmap_slot *slot = strmap_put(&r->entries, name, len, &created);
	if (created) {
		struct gentryinfo *e = arena_alloc(&r->arena, sizeof(*e));
		memset(e, 0, sizeof(*e));
		e->seq = UINT64_MAX;
		slot->value.p = e;
	}
	return slot->value.p;
}

static void note_row(struct grun *r, const struct leafrec *t, const struct pair *p, const struct span *ms,
		     struct strbuf *tmp)
{
	struct strbuf name = STRBUF_INIT, entry = STRBUF_INIT;
	struct gentryinfo *e;
	struct grow *row;
	bool created;
	leafrec_str(t, LF_NAME, &name);
	leafrec_str(t, LF_ENTRY, &entry);
	e = entry_info(r, entry.buf, entry.len);
	e->seen = true;
	if (t->seq >= 0 && (uint64_t)t->seq < e->seq)
		e->seq = (uint64_t)t->seq;
	if (!e->where && t->f[LF_WHERE].kind == SPAN_OBJECT)
		e->where = where_text(&r->arena, &t->f[LF_WHERE], tmp);
	if (p && ms) {
		struct strmap_slot *slot = strmap_put(&r->rows, name.buf, name.len, &created);
		if (created) {
			row = arena_alloc(&r->arena, sizeof(*row));
			memset(row, 0, sizeof(*row));
			slot->value.p = row;
			/* a row probe-match left without a partner has no Result for the pair the graph makes */
			if (p->has_g)
				read_msprobe(r, row, ms, tmp);
			row->diff = p->verdict.kind == SPAN_STRING && !span_str_eq(&p->verdict, "same", 4);
			if (row->diff) {
				e->diff = true;
				if (!e->reason && p->reason.kind == SPAN_STRING)
					e->reason = span_text(&r->arena, &p->reason, tmp);
			}
		}
	}
	strbuf_release(&name);
	strbuf_release(&entry);
}

static int sink_add(void *ctx, const char *line, size_t len, struct strbuf *out, struct strbuf *err)
{
	struct graph_set *g = ctx;
	struct strbuf tmp = STRBUF_INIT;
	struct grun *r;
	int ret = 0;
	(void)out;
	g->lines++;
	if (pair_line_is_leaf(line, len)) {
		struct leafrec t;
		const char *why;
		if (leafrec_parse(&t, line, len, &why) < 0) {
			strbuf_addstr(err, why);
			ret = PROBE_ERR_LINE;
			goto out;
		}
		g->one_run = true;
		if (leafrec_exec_mode_same(&g->exec_mode, t.exec_mode, "probe-graph", err) < 0) {
			ret = PROBE_ERR_LINE;
			goto out;
		}
		note_mode(g, &t, &tmp);
		if ((r = run_of(g, &t, NULL, &tmp)))
			note_row(r, &t, NULL, NULL, &tmp);
	} else {
		struct pair p;
		if (pair_parse(&p, line, len, err) < 0) {
			ret = PROBE_ERR_LINE;
			goto out;
		}
		g->two_runs = true;
		if (leafrec_exec_mode_same(&g->exec_mode, p.has_t ? p.t.exec_mode : p.g.exec_mode, "probe-graph", err) < 0) {
			ret = PROBE_ERR_LINE;
			goto out;
		}
		if ((ret = first_add(g->first, line, len, err)) < 0)
			goto out;
		if (!p.has_t)
			goto out; /* a golden leaf without a target partner: the golden hierarchy has it */
		note_mode(g, &p.t, &tmp);
		if ((r = run_of(g, &p.t, p.has_g ? &p.g : NULL, &tmp)))
			note_row(r, &p.t, &p, &p.msprobe, &tmp);
	}
	if (g->one_run && g->two_runs) {
		strbuf_addstr(err, "a leaf record among pair or metric records: give probe-graph one run's leaves "
				   "(probe-flatten) or a comparison (probe-metric), not both");
		ret = PROBE_ERR_LINE;
	}
out:
	strbuf_release(&tmp);
	return ret;
}

/* ---- building --------------------------------------------------------------------------- */

static bool file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void beside(struct strbuf *out, const char *dump, const char *name)
{
	const char *slash = strrchr(dump, '/');
	strbuf_reset(out);
	if (slash)
		strbuf_add(out, dump, (size_t)(slash - dump + 1));
	strbuf_addstr(out, name);
}

/* construct.json is there and names at least one node (level L0 or mix; L1 writes {}). */
static bool construct_has_nodes(const char *path)
{
	FILE *f = source_fopen_regular(path, NULL);
	int c, seen = 0;
	if (!f)
		return false;
	while ((c = getc(f)) != EOF && seen < 3)
		if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
			seen++;
	fclose(f);
	return seen >= 3;
}

/* Without a hierarchy (an L1 dump): every entry a child of the root, one level. */
static void flat_hierarchy(struct hier *h, const struct gdata *d)
{
	struct hier_entry *e = xcalloc(d->nentries + 1, sizeof(*e));
	const char **names = xcalloc(d->nentries + 1, sizeof(*names));
	size_t *lens = xcalloc(d->nentries + 1, sizeof(*lens));
	for (size_t i = 0; i < d->nentries; i++) {
		e[i].name = d->entries[i].name;
		e[i].name_len = d->entries[i].name_len;
		names[i] = d->entries[i].name;
		lens[i] = d->entries[i].name_len;
	}
	hier_build(h, e, d->nentries, -1, names, lens, d->nentries, NULL);
	free(e);
	free(names);
	free(lens);
}

static int load_side(struct hier *h, struct gdata *d, const char *dump, enum gdata_mode mode, bool *flat,
		     struct strbuf *err)
{
	struct strbuf c = STRBUF_INIT, s = STRBUF_INIT;
	int ret = PROBE_ERR;
	beside(&c, dump, "construct.json");
	beside(&s, dump, "stack.json");
	if (gdata_load(d, dump, mode, err) < 0)
		goto out;
	if (!construct_has_nodes(c.buf)) {
		if (!*flat)
			warning("%s: %s: the hierarchy needs a dump of level L0 or mix (msprobe's graph_visualize reads "
				"construct.json, which level L1 leaves empty); drawing the flat list of APIs instead",
				dump, file_exists(c.buf) ? "construct.json is empty" : "no construct.json beside it");
		*flat = true;
		flat_hierarchy(h, d);
	} else if (hier_load(h, c.buf, dump, file_exists(s.buf) ? s.buf : NULL, err) < 0) {
		gdata_release(d);
		goto out;
	} else if (hier_check(h, c.buf, err) < 0) {
		hier_release(h);
		gdata_release(d);
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&c);
	strbuf_release(&s);
	return ret;
}

struct lookup_ctx {
	const struct grun *r;
};

static bool lookup_row(void *ctx, const char *row, size_t len, struct grow_result *out)
{
	const struct lookup_ctx *l = ctx;
	struct strmap_slot *s = strmap_find(&l->r->rows, row, len);
	const struct grow *g;
	if (!s)
		return false;
	g = s->value.p;
	out->result = g->result;
	out->err_message = g->err_message;
	out->metrics = g->metrics;
	return true;
}

static bool ignored_precision(const char *name)
{
	static const char *const empties[] = { "empty", "empty_like", "empty_with_format", "new_empty", "new_empty_strided",
					       "empty_strided" };
	const char *dot = strchr(name, '.'), *end;
	if (!dot)
		return false;
	end = strchr(dot + 1, '.');
	for (size_t i = 0; i < ARRAY_SIZE(empties); i++) {
		size_t n = end ? (size_t)(end - dot - 1) : strlen(dot + 1);
		if (n == strlen(empties[i]) && !memcmp(dot + 1, empties[i], n))
			return true;
	}
	return false;
}

void graph_node_data(const struct grun *r, bool golden, uint32_t i, struct strbuf *in, struct strbuf *out)
{
	const struct hier *h = golden ? &r->gh : &r->th, *other = golden ? &r->th : &r->gh;
	const struct hier_node *n = &h->nodes[i];
	const struct gdata *d = golden ? &r->gd : &r->td;
	const struct gentry *e = gdata_entry(d, n->name, n->name_len), *ge = NULL;
	struct lookup_ctx lc = { r };
	bool compare = !golden && r->gdump, matched = n->match >= 0;
	double worst;
	if (compare && matched)
		ge = gdata_entry(&r->gd, other->nodes[n->match].name, other->nodes[n->match].name_len);
	gdata_render(d, e, compare ? &r->gd : NULL, ge, compare && matched, lookup_row, &lc, in, out, &worst);
}

static int64_t stack_index(struct grun *r, int side, const char *text, size_t len, struct strmap *ids)
{
	bool created;
	struct strmap_slot *slot = strmap_put(ids, text, len, &created);
	if (created) {
		slot->value.u = r->nstacks[side];
		ALLOC_GROW(r->stacks[side], r->nstacks[side] + 1, r->salloc[side]);
		r->stacks[side][r->nstacks[side]++] = xmemdupz(text, len);
	}
	return (int64_t)slot->value.u;
}

static void judge_side(struct grun *r, int side, enum gdata_mode mode, const struct strmap *levels)
{
	struct hier *h = side ? &r->gh : &r->th, *other = side ? &r->th : &r->gh;
	struct gdata *d = side ? &r->gd : &r->td;
	struct gjudge *j = xcalloc(h->n ? h->n : 1, sizeof(*j));
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT, st = STRBUF_INIT;
	struct strmap ids = STRMAP_INIT;
	struct lookup_ctx lc = { r };
	bool compare = !side && r->gdump;
	for (size_t k = 0; k < h->nsorted; k++) {
		uint32_t i = h->sorted[k];
		const struct hier_node *n = &h->nodes[i];
		const struct gentry *e = gdata_entry(d, n->name, n->name_len);
		const struct gentry *ge = NULL;
		double worst = -1;
		bool matched = n->match >= 0;
		if (compare && matched)
			ge = gdata_entry(&r->gd, other->nodes[n->match].name, other->nodes[n->match].name_len);
		/* rendered here for the worst Result, and again by the writers (graph_node_data) */
		strbuf_reset(&in);
		strbuf_reset(&out);
		gdata_render(d, e, compare ? &r->gd : NULL, ge, compare && matched, lookup_row, &lc, &in, &out, &worst);
		j[i].precision = -1;
		if (compare && matched && e) {
			/* no Result known for any of its rows (none paired in the records): none claimed */
			j[i].precision = worst >= 0 ? worst : e->count ? -1 : 0;
			if (n->op == HIER_API && ignored_precision(n->name))
				j[i].precision = mode == GDATA_MD5 ? 1 : 0;
		}
		if (levels) {
			struct strmap_slot *lv = strmap_find(levels, n->name, n->name_len);
			j[i].overflow = lv ? overflow_level_name((enum overflow_level)lv->value.u) : NULL;
		}
		strbuf_reset(&st);
		hier_stack_json(h, i, &st);
		j[i].stack = stack_index(r, side, st.buf, st.len, &ids);
		/* our verdict */
		j[i].verdict = "";
		if (r->gdump && !matched) {
			/* an entry the golden run lacks can still be the cause (probe-first's unpaired_source_of) */
			struct strmap_slot *s = side ? NULL : strmap_find(&r->entries, n->name, n->name_len);
			const struct gentryinfo *ei = s ? s->value.p : NULL;
			j[i].verdict = "unmatched";
			if (ei && ei->role && !strcmp(ei->role, "cause")) {
				j[i].verdict = "first";
				if (r->first < 0)
					r->first = i;
			}
		} else if (!side) { /* (one run: the user's line, no verdict) */
			struct strmap_slot *s = strmap_find(&r->entries, n->name, n->name_len);
			const struct gentryinfo *ei = s ? s->value.p : NULL;
			if (ei && ei->seen)
				j[i].where = ei->where;
			if (ei && ei->seen && r->gdump) {
				j[i].verdict = ei->diff ? "diff" : "same";
				j[i].reason = ei->reason;
				if (ei->role) {
					j[i].verdict = !strcmp(ei->role, "received") ? "received" :
						       !strcmp(ei->role, "cause") ? "first" : "propagated";
					if (r->first < 0)
						r->first = i;
				}
			}
		}
	}
	/* Apis_Between_Modules: the max of its children */
	if (compare)
		for (size_t i = 0; i < h->n; i++) {
			const struct hier_node *n = &h->nodes[i];
			double m = 0;
			if (n->op != HIER_API_COLLECTION || n->order < 0)
				continue;
			for (size_t c = 0; c < n->nsub; c++)
				if (j[n->sub[c]].precision > m)
					m = j[n->sub[c]].precision;
			j[i].precision = m;
		}
	if (side)
		r->gj = j;
	else
		r->tj = j;
	strmap_release(&ids);
	strbuf_release(&in);
	strbuf_release(&out);
	strbuf_release(&st);
}

/* Nodes that differ after their rank's first divergence are propagated. */
static void mark_propagated(struct grun *r)
{
	uint64_t first_seq;
	struct strmap_slot *s;
	if (r->first < 0)
		return;
	s = strmap_find(&r->entries, r->th.nodes[r->first].name, r->th.nodes[r->first].name_len);
	first_seq = s ? ((const struct gentryinfo *)s->value.p)->seq : 0;
	for (size_t i = 0; i < r->th.n; i++) {
		const struct hier_node *n = &r->th.nodes[i];
		const struct gentryinfo *ei;
		if (strcmp(r->tj[i].verdict, "diff"))
			continue;
		s = strmap_find(&r->entries, n->name, n->name_len);
		ei = s ? s->value.p : NULL;
		if (ei && ei->seq > first_seq)
			r->tj[i].verdict = "propagated";
	}
}

static const char *mapped_name(void *ctx, const char *name, size_t len)
{
	return yamlmap_get(ctx, name, len);
}

static int build_run(struct graph_set *g, struct grun *r, struct strbuf *err)
{
	if (load_side(&r->th, &r->td, r->tdump, g->mode, &g->flat, err) < 0)
		return PROBE_ERR;
	if (r->gdump && load_side(&r->gh, &r->gd, r->gdump, g->mode, &g->flat, err) < 0) {
		hier_release(&r->th);
		gdata_release(&r->td);
		return PROBE_ERR;
	}
	r->built = true;
	if (r->gdump && g->mapping)
		hier_match_mapped(&r->th, &r->gh, mapped_name, (void *)g->mapping);
	else if (r->gdump && g->fuzzy)
		hier_match_fuzzy(&r->th, &r->gh);
	else if (r->gdump)
		hier_match(&r->th, &r->gh);
	r->micro_steps = hier_micro_steps(&r->th, r->gdump ? &r->gh : NULL);
	for (int side = 0; side < (r->gdump ? 2 : 1); side++) {
		struct strmap levels = STRMAP_INIT;
		if (g->overflow && overflow_scan(side ? r->gdump : r->tdump, &levels, err) < 0) {
			strmap_release(&levels);
			return PROBE_ERR;
		}
		judge_side(r, side, g->mode, g->overflow ? &levels : NULL);
		strmap_release(&levels);
	}
	mark_propagated(r);
	return 0;
}

static void place_marks(struct graph_set *g)
{
	for (size_t i = 0; i < first_found(g->first); i++) {
		struct first_mark m;
		first_mark_at(g->first, i, &m);
		if (m.n != 1)
			continue;
		if (m.started && g->started_rank < 0)
			g->started_rank = m.rank;
		for (size_t k = 0; k < g->n; k++) {
			struct grun *r = &g->runs[k];
			if (r->rank == m.rank && r->step == m.step && m.entry) {
				struct gentryinfo *e = entry_info(r, m.entry, strlen(m.entry));
				e->role = arena_memdupz(&r->arena, m.role, strlen(m.role));
			}
		}
	}
}

/* A later step of a rank that diverged before: what differs there was carried (through the optimizer). */
static void carried_from_earlier_steps(struct graph_set *g)
{
	for (size_t i = 0; i < g->n; i++) {
		struct grun *r = &g->runs[i];
		bool earlier = false;
		if (r->first >= 0 || !r->gdump)
			continue;
		for (size_t k = 0; k < g->n && !earlier; k++)
			earlier = g->runs[k].rank == r->rank && g->runs[k].step < r->step && g->runs[k].first >= 0;
		for (size_t n = 0; earlier && n < r->th.n; n++)
			if (!strcmp(r->tj[n].verdict, "diff"))
				r->tj[n].verdict = "propagated";
	}
}

static int cmp_run(const void *a, const void *b)
{
	const struct grun *x = a, *y = b;
	if (x->db_step != y->db_step)
		return x->db_step < y->db_step ? -1 : 1;
	if (x->db_rank != y->db_rank)
		return x->db_rank < y->db_rank ? -1 : 1;
	return strcmp(x->tdump, y->tdump);
}

static int sink_finish(void *ctx, struct strbuf *out, struct strbuf *err)
{
	struct graph_set *g = ctx;
	(void)out;
	if (!g->n) {
		strbuf_addstr(err, g->lines ? "no record names its dump.json: the graph needs records of probe-flatten, "
					      "probe-match or probe-metric"
					    : "no records: nothing to draw");
		return PROBE_ERR_INPUT;
	}
	if (g->two_runs) {
		int ret = first_finish(g->first, err);
		if (ret < 0)
			return ret;
		place_marks(g);
	}
	for (size_t i = 0; i < g->n; i++) {
		if (g->runs[i].step != g->runs[0].step)
			g->several_steps = true;
		if (g->runs[i].rank != g->runs[0].rank)
			g->several_ranks = true;
	}
	for (size_t i = 0; i < g->n; i++) {
		struct grun *r = &g->runs[i];
		r->db_rank = r->rank < 0 ? 0 : r->rank;
		r->db_step = g->several_steps && r->step >= 0 ? r->step : 0;
	}
	qsort(g->runs, g->n, sizeof(*g->runs), cmp_run);
	for (size_t i = 0; i < g->n; i++)
		if (build_run(g, &g->runs[i], err) < 0)
			return PROBE_ERR;
	carried_from_earlier_steps(g);
	graph_link_ranks(g);
	return 0;
}

struct line_sink graph_sink(struct graph_set *g)
{
	return (struct line_sink){ .ctx = g, .add = sink_add, .finish = sink_finish };
}

/* ---- shared by the writers -------------------------------------------------------------- */

void graph_id(const struct grun *r, bool golden, struct strbuf *out)
{
	strbuf_addf(out, "%s_%lld_%lld", golden ? "Bench" : "NPU", (long long)r->db_step, (long long)r->db_rank);
}

const char *graph_task(const struct graph_set *g)
{
	if (!g->two_runs)
		return "";
	return g->mode == GDATA_TENSOR ? "all" : g->mode == GDATA_MD5 ? "md5" : "summary";
}

bool gsink_flush(struct gsink *s, size_t threshold)
{
	if (s->err || s->buf.len <= threshold)
		return !s->err;
	if (s->o->emit(s->o->ctx, s->buf.buf, s->buf.len) < 0)
		s->err = -1;
	strbuf_reset(&s->buf);
	return !s->err;
}

/* ---- NDJSON ----------------------------------------------------------------------------- */

static const char *op_name(enum hier_op op)
{
	return op == HIER_API ? "api" : op == HIER_API_COLLECTION ? "collection" : "module";
}

void graph_add_precision(struct strbuf *out, double p)
{
	if (p < 0)
		strbuf_addstr(out, "null");
	else if (p == 0.5)
		strbuf_addstr(out, "0.5");
	else
		strbuf_addi(out, (int64_t)p);
}

static const char *precision_level(double p, bool matched, bool compare)
{
	if (!compare)
		return NULL;
	if (!matched)
		return "unmatched";
	if (p < 0)
		return NULL;
	return p >= 0.6 ? "error" : p >= 0.3 ? "warning" : "pass";
}

static void json_side(const struct grun *r, bool golden, struct gsink *sink)
{
	struct strbuf *out = &sink->buf;
	const struct hier *h = golden ? &r->gh : &r->th, *o = golden ? &r->th : &r->gh;
	const struct gjudge *j = golden ? r->gj : r->tj;
	for (size_t k = 0; k < h->nsorted; k++) {
		uint32_t i = h->sorted[k];
		const struct hier_node *n = &h->nodes[i];
		const char *level = precision_level(j[i].precision, n->match >= 0, r->gdump && !golden);
		strbuf_addstr(out, "{\"graph\":\"");
		graph_id(r, golden, out);
		strbuf_addstr(out, "\",\"side\":");
		jsonw_str(out, golden ? "golden" : "target");
		strbuf_addstr(out, ",\"rank\":");
		if (r->rank < 0)
			strbuf_addstr(out, "null");
		else
			strbuf_addi(out, r->rank);
		strbuf_addstr(out, ",\"step\":");
		strbuf_addi(out, r->step < 0 ? 0 : r->step);
		strbuf_addstr(out, ",\"order\":");
		strbuf_addi(out, n->order);
		strbuf_addstr(out, ",\"name\":");
		jsonw_string(out, n->name, n->name_len);
		strbuf_addstr(out, ",\"type\":");
		jsonw_str(out, op_name(n->op));
		strbuf_addstr(out, ",\"parent\":");
		if (n->parent < 0)
			strbuf_addstr(out, "null");
		else
			jsonw_str(out, h->nodes[n->parent].name);
		strbuf_addstr(out, ",\"children\":[");
		for (size_t c = 0; c < n->nsub; c++) {
			if (c)
				strbuf_addch(out, ',');
			jsonw_str(out, h->nodes[n->sub[c]].name);
		}
		strbuf_addstr(out, "],\"micro_step\":");
		strbuf_addi(out, n->micro_step < 0 ? 0 : n->micro_step);
		strbuf_addstr(out, ",\"matched\":");
		if (n->match >= 0 && r->gdump)
			jsonw_str(out, o->nodes[n->match].name);
		else
			strbuf_addstr(out, "null");
		strbuf_addstr(out, ",\"precision_index\":");
		graph_add_precision(out, j[i].precision);
		strbuf_addstr(out, ",\"precision\":");
		if (level)
			jsonw_str(out, level);
		else
			strbuf_addstr(out, "null");
		strbuf_addstr(out, ",\"overflow_level\":");
		if (j[i].overflow)
			jsonw_str(out, j[i].overflow);
		else
			strbuf_addstr(out, "null");
		strbuf_addstr(out, ",\"verdict\":");
		jsonw_str(out, j[i].verdict);
		strbuf_addstr(out, ",\"first_divergence\":");
		strbuf_addstr(out, !golden && (int64_t)i == r->first ? "true" : "false");
		strbuf_addstr(out, ",\"reason\":");
		jsonw_str(out, j[i].reason ? j[i].reason : "");
		strbuf_addstr(out, ",\"where\":");
		if (j[i].where)
			jsonw_str(out, j[i].where);
		else
			strbuf_addstr(out, "null");
		strbuf_addstr(out, ",\"matched_distributed\":");
		strbuf_addstr(out, j[i].distributed ? j[i].distributed : "{}");
		strbuf_addstr(out, ",\"stack\":");
		strbuf_addstr(out, r->stacks[golden][j[i].stack]);
		strbuf_addstr(out, ",\"input_data\":");
		strbuf_reset(&sink->scratch);
		graph_node_data(r, golden, i, out, &sink->scratch);
		strbuf_addstr(out, ",\"output_data\":");
		strbuf_addbuf(out, &sink->scratch);
		strbuf_addstr(out, "}\n");
		if (!gsink_flush(sink, 1 << 20))
			return;
	}
}

int graph_write_json(const struct graph_set *g, const struct graph_out *o)
{
	struct gsink sink = { STRBUF_INIT, STRBUF_INIT, o, 0 };
	for (size_t i = 0; i < g->n && !sink.err; i++) {
		json_side(&g->runs[i], false, &sink);
		if (g->runs[i].gdump && !sink.err)
			json_side(&g->runs[i], true, &sink);
	}
	gsink_flush(&sink, 0);
	strbuf_release(&sink.buf);
	strbuf_release(&sink.scratch);
	return sink.err;
}
