#include "plotmodel.h"
#include "../dumps/layout.h"
#include "../records/pair.h"
#include "../compare/verdict.h"
#include "../core/msg.h"
#include "../core/xalloc.h"

#include <float.h>
#include <math.h>

const char *const plot_metric_names[PLOT_NMETRICS] = {
	"auto", "rel", "abs", "md5", "max_rel", "max_abs", "ulp", "cos",
};

/* made by share/build/plotpalette.py (tests/cli/plot/palette.sh checks it): do not edit */
const char *const plot_palette[PLOT_NPALETTE] = {
	"#1f5fa8", "#b68b16", "#db54c4", "#0f3805", "#8a085a", "#2e057d", "#44a1b1", "#656019",
	"#835ff2", "#279936", "#8c5b88", "#4b1738", "#690ca5", "#554562", "#ab8696", "#167f75",
	"#bb208a", "#3f93f7", "#2833bd", "#163045", "#9a38c0", "#6b7db6", "#7f8462", "#045e17",
	"#3060e6", "#a57cd2", "#52226f", "#0b3880", "#493b1c", "#2b564e", "#644b9e", "#8f2e8a",
	"#5d7b0f", "#466178", "#b85c8b", "#593bcc", "#b964f0", "#74a06b", "#b156b7", "#5a76e4",
	"#0d5279", "#2c6c47", "#31779b", "#685acb", "#5d8893", "#6b1346", "#3e00a3", "#745262",
	"#3b4392", "#868604", "#8193b1", "#1a89c5", "#6f2e73", "#876a29", "#322255", "#513241",
	"#459173", "#0d844c", "#c272b2", "#8082f7", "#17444c", "#696c8c", "#8c7895", "#913968",
};

int plot_metric_by_name(const char *name)
{
	for (int i = 0; i < PLOT_NMETRICS; i++)
		if (!strcmp(name, plot_metric_names[i]))
			return i;
	return -1;
}

const char *plot_metric_title(enum plot_metric m)
{
	switch (m) {
	case PLOT_REL: return "Largest relative difference of max, min, mean and norm";
	case PLOT_ABS: return "Largest absolute difference of max, min, mean and norm";
	case PLOT_MD5: return "Leaves whose CRC-32 differs";
	case PLOT_MAX_REL: return "Largest relative error of the elements (msprobe MaxRelativeErr)";
	case PLOT_MAX_ABS: return "Largest absolute error of the elements";
	case PLOT_ULP: return "Largest error of the elements in units in the last place";
	case PLOT_COS: return "1 - cosine similarity of the elements (msprobe Cosine)";
	default: return "";
	}
}

const char *plot_metric_axis(enum plot_metric m)
{
	switch (m) {
	case PLOT_REL: return "relative difference of the statistics";
	case PLOT_ABS: return "absolute difference of the statistics";
	case PLOT_MD5: return "CRC-32";
	case PLOT_MAX_REL: return "max relative error";
	case PLOT_MAX_ABS: return "max absolute error";
	case PLOT_ULP: return "max error (ulps)";
	case PLOT_COS: return "1 - cosine";
	default: return "";
	}
}

void plot_options_init(struct plot_options *o)
{
	memset(o, 0, sizeof(*o));
	o->metric = PLOT_AUTO;
	o->to = -1;
	o->width = 1200;
	o->height = 600;
	o->module_depth = 3;
	o->table_rows = 2000;
	o->first.n = 1;
	o->source = "-";
}

struct plot *plot_new(const struct plot_options *o)
{
	struct plot *p = xcalloc(1, sizeof(*p));
	struct first_options nf = { .n = 1, .nonfinite = true };
	p->o = *o;
	p->exec_mode = -1;
	p->metric = o->metric;
	p->o.first.n = 1;
	p->first_div = first_new(&p->o.first);
	p->first_nf = first_new(&nf);
	strbuf_init(&p->scratch, 0);
	/* chain 0 is the empty chain */
	ALLOC_GROW(p->chains, 1, p->chains_alloc);
	p->chains[0].modules = NULL;
	p->chains[0].depth = 0;
	p->nchains = 1;
	return p;
}

void plot_free(struct plot *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nranks; i++) {
		free(p->ranks[i].v);
		free(p->ranks[i].steps);
		free(p->ranks[i].cols);
		free(p->ranks[i].proc);
		free(p->ranks[i].label);
	}
	for (size_t i = 0; i < p->nnames; i++)
		free(p->names[i]);
	free(p->names);
	strmap_release(&p->name_ids);
	for (int side = 0; side < 2; side++) {
		strmap_release(&p->dumps[side]);
		free(p->dump_dir[side]);
		free(p->dump_one[side]);
	}
	free(p->ranks);
	for (size_t i = 0; i < p->nmodules; i++)
		free(p->modules[i]);
	free(p->modules);
	for (size_t i = 0; i < p->nchains; i++)
		free(p->chains[i].modules);
	free(p->chains);
	strmap_release(&p->module_ids);
	strmap_release(&p->chain_ids);
	for (size_t i = 0; i < p->nrows; i++) {
		struct plot_row *r = &p->rows[i];
		free(r->leaf);
		free(r->state);
		free(r->verdict);
		free(r->reason);
		free(r->where);
	}
	free(p->rows);
	for (size_t i = 0; i < p->nmarks; i++) {
		struct plot_mark *m = &p->marks[i];
		free(m->entry);
		free(m->leaf);
		free(m->role);
		free(m->where);
		free(m->label);
	}
	free(p->marks);
	for (size_t i = 0; i < p->nlegend; i++)
		free(p->legend[i].text);
	free(p->legend);
	free(p->col_back);
	free(p->col_fwd);
	free(p->col_diff);
	free(p->col_nog);
	free(p->col_zero);
	free(p->col_g0);
	first_free(p->first_div);
	first_free(p->first_nf);
	strbuf_release(&p->scratch);
	free(p);
}

/* ---- reading -------------------------------------------------------------------- */

/* The rank of a target leaf, made at its first leaf (a run without a rank named by its proc<pid> folder). */
static struct plot_rank *rank_of(struct plot *p, const struct leafrec *t)
{
	int64_t rank = t->rank;
	struct plot_rank *r;
	if (p->nranks && p->ranks[p->last_rank].rank == rank)
		return &p->ranks[p->last_rank];
	for (size_t i = 0; i < p->nranks; i++)
		if (p->ranks[i].rank == rank) {
			p->last_rank = i;
			return &p->ranks[i];
		}
	ALLOC_GROW(p->ranks, p->nranks + 1, p->ranks_alloc);
	r = &p->ranks[p->nranks];
	memset(r, 0, sizeof(*r));
	r->rank = rank;
	if (rank < 0)
		r->proc = leafrec_proc_folder(t);
	p->last_rank = p->nranks++;
	return r;
}

/* Where a leaf goes on its rank's axis: its seq, after the earlier steps. */
static int64_t x_of(struct plot_rank *r, int64_t step, int64_t seq)
{
	int64_t x;
	if (!r->nsteps || r->steps[r->nsteps - 1].step != step) {
		ALLOC_GROW(r->steps, r->nsteps + 1, r->steps_alloc);
		r->steps[r->nsteps].step = step;
		r->steps[r->nsteps].x = r->next_x;
		r->nsteps++;
	}
	x = seq >= 0 ? r->steps[r->nsteps - 1].x + seq : r->next_x;
	if (x + 1 > r->next_x)
		r->next_x = x + 1;
	return x;
}

/* The x a (step, seq) of the rank was given, or -1. */
static int64_t x_seen(const struct plot_rank *r, int64_t step, int64_t seq)
{
	if (seq < 0)
		return -1;
	for (size_t i = 0; i < r->nsteps; i++)
		if (r->steps[i].step == step)
			return r->steps[i].x + seq;
	return -1;
}

/* The text of a string span into sb, replacing what sb held: 0, or -1 when s is not a string. */
static int string_of(const struct span *s, struct strbuf *sb)
{
	strbuf_reset(sb);
	return span_string(s, sb);
}

static uint32_t module_id(struct plot *p, const char *name, size_t len)
{
	bool created;
	struct strmap_slot *s = strmap_put(&p->module_ids, name, len, &created);
	if (created) {
		ALLOC_GROW(p->modules, p->nmodules + 1, p->modules_alloc);
		p->modules[p->nmodules] = xmemdupz(name, len);
		s->value.u = p->nmodules++;
	}
	return (uint32_t)s->value.u;
}

/* The id of a leaf's name (a string span), interned; 0 ("") for a name that is not a string. */
static uint32_t name_id(struct plot *p, const struct span *name)
{
	bool created;
	struct strmap_slot *s;
	if (!p->nnames) {
		ALLOC_GROW(p->names, 1, p->names_alloc);
		p->names[p->nnames++] = xstrdup("");
	}
	if (string_of(name, &p->scratch) < 0)
		return 0;
	s = strmap_put(&p->name_ids, p->scratch.buf, p->scratch.len, &created);
	if (created) {
		ALLOC_GROW(p->names, p->nnames + 1, p->names_alloc);
		p->names[p->nnames] = xmemdupz(p->scratch.buf, p->scratch.len);
		s->value.u = p->nnames++;
	}
	return (uint32_t)s->value.u;
}

/* The folder part of a path ("a/b" of "a/b/dump.json"; "" for none), its length. */
static size_t folder_len(const char *path, size_t n)
{
	while (n && path[n - 1] != '/')
		n--;
	return n ? n - 1 : 0;
}

/*
 * A side's dump (its leaf's "dump") seen: counted once, and the folder all
 * of that side's dumps share shortened to hold it.
 */
static void note_dump(struct plot *p, int side, const struct leafrec *l)
{
	bool created;
	char *dir;
	size_t n, k = 0;
	if (string_of(&l->f[LF_DUMP], &p->scratch) < 0 || !p->scratch.len)
		return;
	strmap_put(&p->dumps[side], p->scratch.buf, p->scratch.len, &created);
	if (!created)
		return;
	n = folder_len(p->scratch.buf, p->scratch.len);
	if (!p->dump_one[side]) {
		p->dump_one[side] = xstrdup(p->scratch.buf);
		p->dump_dir[side] = xmemdupz(p->scratch.buf, n);
		return;
	}
	/* the common folder: whole components only */
	dir = p->dump_dir[side];
	while (k < n && dir[k] && dir[k] == p->scratch.buf[k])
		k++;
	if (!((!dir[k] || dir[k] == '/') && (k == n || p->scratch.buf[k] == '/'))) {
		while (k && dir[k - 1] != '/')
			k--;
		if (k)
			k--;
	}
	dir[k] = '\0';
}

static bool is_module_entry(const struct span *entry)
{
	const char *s;
	size_t n;
	return span_plain_string(entry, &s, &n) && n > 7 && !memcmp(s, "Module.", 7);
}

/*
 * The chain of modules a leaf ran inside: its "modules" (probe-stack), and
 * the entry itself when the entry is a module.  Interned on the raw text.
 */
static uint32_t chain_of(struct plot *p, const struct leafrec *t)
{
	const struct span *mods = &t->f[LF_MODULES], *entry = &t->f[LF_ENTRY];
	bool own = is_module_entry(entry), created;
	struct strmap_slot *s;
	struct plot_chain c = { NULL, 0 };
	struct rs_iter it;
	struct span v;
	size_t alloc = 0;

	if (mods->kind != SPAN_ARRAY && !own)
		return 0;
	strbuf_reset(&p->scratch);
	if (mods->kind == SPAN_ARRAY)
		strbuf_add(&p->scratch, mods->p, mods->n);
	strbuf_addch(&p->scratch, '\0');
	if (own)
		strbuf_add(&p->scratch, entry->p, entry->n);
	s = strmap_put(&p->chain_ids, p->scratch.buf, p->scratch.len, &created);
	if (!created)
		return (uint32_t)s->value.u;

	if (mods->kind == SPAN_ARRAY && rs_begin_array(&it, mods->p, mods->n) == 0)
		while (rs_next_item(&it, &v) == 1) {
			if (v.kind != SPAN_STRING || string_of(&v, &p->scratch) < 0)
				continue;
			ALLOC_GROW(c.modules, c.depth + 1, alloc);
			c.modules[c.depth++] = module_id(p, p->scratch.buf, p->scratch.len);
		}
	if (own && string_of(entry, &p->scratch) == 0) {
		ALLOC_GROW(c.modules, c.depth + 1, alloc);
		c.modules[c.depth++] = module_id(p, p->scratch.buf, p->scratch.len);
	}
	s->value.u = p->nchains;
	ALLOC_GROW(p->chains, p->nchains + 1, p->chains_alloc);
	p->chains[p->nchains] = c;
	if (c.depth)
		p->any_modules = true;
	return (uint32_t)p->nchains++;
}

/*
 * A number as the records write it: a JSON number, "nan"/"inf"/"-inf", or
 * an msprobe cell ("0.0123", "1.5%"); false for anything else ("N/A").
 */
static bool span_value(const struct span *s, struct strbuf *tmp, double *out)
{
	char *end;
	if (s->kind == SPAN_NUMBER) {
		strbuf_reset(tmp);
		strbuf_add(tmp, s->p, s->n);
		*out = strtod(tmp->buf, NULL);
		return true;
	}
	if (s->kind != SPAN_STRING || string_of(s, tmp) < 0 || !tmp->len)
		return false;
	if (!strcmp(tmp->buf, "nan") || !strcmp(tmp->buf, "inf") || !strcmp(tmp->buf, "-inf")) {
		*out = tmp->buf[0] == 'n' ? NAN : tmp->buf[0] == '-' ? -INFINITY : INFINITY;
		return true;
	}
	*out = strtod(tmp->buf, &end);
	if (end == tmp->buf)
		return false;
	if (*end == '%' && !end[1]) {
		*out /= 100;
		return true;
	}
	return !*end;
}

static enum plot_ykind ykind_of(double y)
{
	if (!isfinite(y))
		return Y_INF;
	return y > 0 ? Y_VALUE : Y_ZERO;
}

/*
 * Is the golden's statistic i (LF_MAX + i) exactly 0 while the target's is
 * finite?  Then a relative difference against it is no number at all.
 */
static bool golden_zero(const struct pair *pr, int i)
{
	double t, g;
	return pr->has_g && verdict_stat_value(&pr->g.f[LF_MAX + i], &g) && g == 0 &&
	       verdict_stat_value(&pr->t.f[LF_MAX + i], &t) && isfinite(t);
}

/*
 * The largest "abs" or "rel" of the four statistics.  A non-finite absolute
 * difference is an inf or a NaN in the values (Y_INF, *y that value).  A
 * relative difference against a golden of 0 (probe-metric writes "inf")
 * is not: unless another statistic is non-finite, the leaf goes to the
 * golden 0 strip, *y the largest absolute difference of those statistics.
 */
static enum plot_ykind stats_value(struct plot *p, const struct pair *pr, bool rel, double *y)
{
	static const char *const stats[] = { "max", "min", "mean", "norm" };
	static const char *const keys[2] = { "abs", "rel" };
	const struct span *metrics = &pr->metrics;
	struct span v[4], inner[2];
	struct rs_iter it;
	bool any = false, g0 = false;
	double best = 0, g0_abs = 0;

	if (rs_begin(&it, metrics->p, metrics->n) < 0 || rs_fields(&it, stats, 4, v) < 0)
		return Y_NONE;
	for (int i = 0; i < 4; i++) {
		double a, r;
		bool has_a, has_r;
		if (v[i].kind != SPAN_OBJECT || rs_begin(&it, v[i].p, v[i].n) < 0 || rs_fields(&it, keys, 2, inner) < 0)
			continue;
		has_a = span_value(&inner[0], &p->scratch, &a);
		has_r = rel && span_value(&inner[1], &p->scratch, &r);
		if (has_a && !isfinite(a)) {
			*y = a;
			return Y_INF;
		}
		if (!rel) {
			if (has_a) {
				best = fmax(best, fabs(a));
				any = true;
			}
			continue;
		}
		if (!has_r)
			continue;
		if (isnan(r) || (!has_a && !isfinite(r))) {
			*y = r;
			return Y_INF;
		}
		if (isinf(r) && golden_zero(pr, i)) {
			double d = has_a ? fabs(a) : 0, t;
			/* without "abs": the golden is 0, so the difference is the target's value */
			if (!has_a && verdict_stat_value(&pr->t.f[LF_MAX + i], &t))
				d = fabs(t);
			g0 = true;
			g0_abs = fmax(g0_abs, d);
			continue;
		}
		/* a quotient too large for a double, against a golden that is not 0: the largest there is */
		best = fmax(best, isinf(r) ? DBL_MAX : fabs(r));
		any = true;
	}
	if (g0) {
		*y = g0_abs;
		return Y_GOLDEN0;
	}
	if (!any)
		return Y_NONE;
	*y = best;
	return ykind_of(best);
}

/* A member of an object span, by plain key. */
static struct span member(const struct span *obj, const char *key)
{
	struct span v = { NULL, 0, SPAN_NONE };
	struct rs_iter it;
	const char *keys[1] = { key };
	if (obj->kind == SPAN_OBJECT && rs_begin(&it, obj->p, obj->n) == 0)
		rs_fields(&it, keys, 1, &v);
	return v;
}

/* The first record with metrics says which the auto metric is. */
static void resolve_auto(struct plot *p, const struct span *metrics)
{
	struct span tensor = member(metrics, "tensor");
	if (tensor.kind == SPAN_OBJECT && member(&tensor, "compared").kind == SPAN_TRUE)
		p->metric = PLOT_MAX_REL;
	else if (member(metrics, "max").kind == SPAN_OBJECT || member(metrics, "norm").kind == SPAN_OBJECT)
		p->metric = PLOT_REL;
	else if (member(metrics, "md5_match").kind != SPAN_NONE)
		p->metric = PLOT_MD5;
}

/* The largest absolute difference of the elements (tensor mode), or of the maxima; 0 when neither is there. */
static double abs_difference(struct plot *p, const struct pair *pr, int stat)
{
	struct span tensor = member(&pr->metrics, "tensor"), v = member(&tensor, "max_abs");
	double a, t, g;
	if (span_value(&v, &p->scratch, &a) && isfinite(a))
		return fabs(a);
	if (verdict_stat_value(&pr->t.f[LF_MAX + stat], &t) && verdict_stat_value(&pr->g.f[LF_MAX + stat], &g))
		return fabs(t - g);
	return 0;
}

/*
 * msprobe's cell *y as the plot has it.  Its MaxRelativeErr of statistics
 * is "inf" against a golden max of 0, and its Cosine "Nan" against a
 * golden of zeros (a norm of 0): golden 0, not inf/nan, unless the target
 * holds an inf or a NaN.  Its Cosine of a target of zeros is "Nan" too: no
 * value (Y_NONE), since no value of either side is a NaN.
 */
static enum plot_ykind msprobe_value(struct plot *p, const struct pair *pr, const struct span *ms, double *y)
{
	struct span mode = member(ms, "mode");
	if (p->metric == PLOT_COS) {
		double t;
		if (isnan(*y) && golden_zero(pr, 3)) {
			*y = abs_difference(p, pr, 0);
			return Y_GOLDEN0;
		}
		/* a target of zeros against a golden that is not: no cosine, and no NaN in the values either */
		if (isnan(*y) && verdict_stat_value(&pr->t.f[LF_NORM], &t) && t == 0)
			return Y_NONE;
		if (isfinite(*y))
			*y = *y >= 1 ? 0 : 1 - *y;
		return ykind_of(fabs(*y));
	}
	if (isinf(*y) && span_str_eq(&mode, "statistics", 10) && golden_zero(pr, 0)) {
		*y = abs_difference(p, pr, 0);
		return Y_GOLDEN0;
	}
	return ykind_of(fabs(*y));
}

static enum plot_ykind metric_value(struct plot *p, const struct pair *pr, double *y)
{
	struct span v, obj;
	if (pr->metrics.kind != SPAN_OBJECT)
		return Y_NONE;
	if (p->metric == PLOT_AUTO)
		resolve_auto(p, &pr->metrics);
	switch (p->metric) {
	case PLOT_REL:
		return stats_value(p, pr, true, y);
	case PLOT_ABS:
		return stats_value(p, pr, false, y);
	case PLOT_MD5:
		v = member(&pr->metrics, "md5_match");
		if (v.kind != SPAN_TRUE && v.kind != SPAN_FALSE)
			return Y_NONE;
		*y = v.kind == SPAN_FALSE;
		return ykind_of(*y);
	case PLOT_MAX_ABS:
	case PLOT_ULP:
		obj = member(&pr->metrics, "tensor");
		v = member(&obj, p->metric == PLOT_ULP ? "max_ulp" : "max_abs");
		if (!span_value(&v, &p->scratch, y))
			return Y_NONE;
		*y = fabs(*y);
		return ykind_of(*y);
	case PLOT_MAX_REL:
	case PLOT_COS: {
		struct span whole = { pr->line, pr->len, SPAN_OBJECT };
		obj = member(&whole, "msprobe");
		v = member(&obj, p->metric == PLOT_COS ? "Cosine" : "MaxRelativeErr");
		if (v.kind == SPAN_NONE && p->metric == PLOT_MAX_REL) /* msprobe's ATB table spells it so */
			v = member(&obj, "Max Relative Err");
		if (!span_value(&v, &p->scratch, y))
			return Y_NONE;
		return msprobe_value(p, pr, &obj, y);
	}
	default:
		return Y_NONE;
	}
}

static bool is_backward(const struct leafrec *t)
{
	const char *s;
	size_t n;
	if (!span_plain_string(&t->f[LF_ENTRY], &s, &n))
		return false;
	for (size_t i = 0; i + 9 <= n; i++)
		if (s[i] == '.' && (!memcmp(s + i, ".backward", 9) || (i + 16 <= n && !memcmp(s + i, ".parameters_grad", 16))))
			return true;
	return false;
}

/* "file:line" of a leaf's "where" (probe-stack), or NULL. */
static char *where_of(struct plot *p, const struct leafrec *t)
{
	struct span obj = { t->text, t->len, SPAN_OBJECT }, w = member(&obj, "where"), file, line;
	const char *slash;
	if (w.kind != SPAN_OBJECT)
		return NULL;
	file = member(&w, "file");
	line = member(&w, "line");
	if (string_of(&file, &p->scratch) < 0)
		return NULL;
	slash = strrchr(p->scratch.buf, '/');
	if (slash) {
		size_t skip = (size_t)(slash + 1 - p->scratch.buf);
		memmove(p->scratch.buf, slash + 1, p->scratch.len - skip + 1);
		strbuf_setlen(&p->scratch, p->scratch.len - skip);
	}
	if (line.kind == SPAN_NUMBER) {
		strbuf_addch(&p->scratch, ':');
		strbuf_add(&p->scratch, line.p, line.n);
	}
	return xstrdup(p->scratch.buf);
}

static char *span_text(struct plot *p, const struct span *s)
{
	if (s->kind == SPAN_STRING && string_of(s, &p->scratch) == 0)
		return xstrdup(p->scratch.buf);
	return xstrdup("");
}

static void keep_row(struct plot *p, const struct pair *pr, const struct plot_point *pt)
{
	struct plot_row *r;
	ALLOC_GROW(p->rows, p->nrows + 1, p->rows_alloc);
	r = &p->rows[p->nrows++];
	r->rank = pr->t.rank;
	r->x = pt->x;
	r->seq = pr->t.seq;
	r->leaf = span_text(p, &pr->t.f[LF_NAME]);
	r->state = span_text(p, &pr->t.f[LF_STATE]);
	r->verdict = span_text(p, &pr->verdict);
	r->reason = span_text(p, &pr->reason);
	r->where = where_of(p, &pr->t);
	r->y = pt->y;
	r->ykind = pt->ykind;
	r->chain = pt->chain;
}

static int add_record(struct plot *p, const char *line, size_t len, struct strbuf *err)
{
	struct pair pr;
	struct plot_rank *r;
	struct plot_point pt;
	bool same;

	if (pair_parse(&pr, line, len, err) < 0) {
		if (pair_line_is_leaf(line, len)) {
			strbuf_reset(err);
			strbuf_addstr(err, "a leaf record: probe-plot draws the comparison of two runs "
					   "(probe-match GOLDEN | probe-metric | probe-plot)");
		}
		return -1;
	}
	if (pr.verdict.kind != SPAN_STRING) {
		strbuf_addstr(err, "a pair record without a verdict: compare the pairs first (probe-metric | probe-plot)");
		return -1;
	}
	if (leafrec_exec_mode_same(&p->exec_mode, pr.has_t ? pr.t.exec_mode : pr.g.exec_mode, "probe-plot", err) < 0)
		return -1;
	p->records++;
	if (pr.has_t)
		note_dump(p, 0, &pr.t);
	if (pr.has_g)
		note_dump(p, 1, &pr.g);
	if (!pr.has_t) {
		p->golden_only++;
		/* counted with the target rank before it, when that one is drawn */
		return p->last_drawn ? first_add(p->first_div, line, len, err) : 0;
	}
	p->last_drawn = !p->o.ranks || layout_rank_in(p->o.ranks, pr.t.rank) == 1;
	if (!p->last_drawn) {
		p->other_ranks++;
		return 0;
	}
	if (first_add(p->first_div, line, len, err) < 0 || first_add(p->first_nf, pr.t.text, pr.t.len, err) < 0)
		return -1;

	r = rank_of(p, &pr.t);
	memset(&pt, 0, sizeof(pt));
	pt.x = x_of(r, pr.t.step, pr.t.seq);
	if (pt.x < p->o.from || (p->o.to >= 0 && pt.x > p->o.to)) {
		p->out_of_range++;
		return 0;
	}
	same = span_str_eq(&pr.verdict, "same", 4);
	if (span_str_eq(&pr.verdict, "diff", 4))
		pt.flags |= PF_DIFF;
	if (!pr.has_g || span_str_eq(&pr.verdict, "unmatched", 9) || span_str_eq(&pr.verdict, "unreadable", 10)) {
		pt.flags |= PF_UNMATCHED;
		p->unmatched++;
	}
	if (is_backward(&pr.t))
		pt.flags |= PF_BACKWARD;
	pt.ykind = (uint8_t)(pt.flags & PF_UNMATCHED ? Y_NONE : metric_value(p, &pr, &pt.y));
	if (pt.ykind == Y_VALUE)
		p->values++;
	else if (pt.ykind == Y_INF)
		p->nonfinite++;
	else if (pt.ykind == Y_GOLDEN0)
		p->golden0++;
	pt.chain = chain_of(p, &pr.t);
	pt.name = name_id(p, &pr.t.f[LF_NAME]);
	if (!same) {
		p->diverging += !!(pt.flags & PF_DIFF);
		if (p->nrows < p->o.table_rows)
			keep_row(p, &pr, &pt);
	}
	ALLOC_GROW(r->v, r->n + 1, r->alloc);
	r->v[r->n++] = pt;
	return 0;
}

int plot_add(struct plot *p, const char *line, size_t len, struct strbuf *err)
{
	return add_record(p, line, len, err) < 0 ? PROBE_ERR_LINE : 0;
}

/* ---- the model ------------------------------------------------------------------ */

double plot_text_width(const char *s, double font_size, bool mono)
{
	size_t chars = 0;
	for (; *s; s++)
		chars += ((unsigned char)*s & 0xc0) != 0x80; /* UTF-8: count the first bytes */
	return (double)chars * font_size * (mono ? PLOT_MONO_EM : PLOT_SANS_EM);
}

double plot_x_px(const struct plot *p, int64_t x)
{
	double slots = (double)(p->xmax - p->xmin + 1);
	return p->g.left + ((double)(x - p->xmin) + 0.5) * (p->g.right - p->g.left) / slots;
}

double plot_point_y(const struct plot *p, const struct plot_point *pt)
{
	const struct plot_geom *g = &p->g;
	if (pt->ykind == Y_INF)
		return g->inf_top + g->inf_h / 2;
	if (pt->ykind == Y_GOLDEN0)
		return g->g0_top + g->g0_h / 2;
	if (pt->ykind != Y_VALUE)
		return g->zero_top + g->zero_h / 2;
	{
		double t = (log10(pt->y) - p->dec_lo) / (double)(p->dec_hi - p->dec_lo);
		if (t < 0)
			t = 0;
		if (t > 1)
			t = 1;
		return g->log_bottom - t * (g->log_bottom - g->log_top);
	}
}

/* One side's dumps: the folder of the one dump.json, else the folder they share and how many. */
static bool add_side(const struct plot *p, int side, struct strbuf *out)
{
	size_t n = p->dumps[side].size;
	const char *one = p->dump_one[side], *base;
	if (!n)
		return false;
	if (n == 1) {
		base = strrchr(one, '/');
		if (base && !strcmp(base + 1, "dump.json"))
			strbuf_add(out, one, (size_t)(base - one));
		else
			strbuf_addstr(out, one);
		return true;
	}
	if (*p->dump_dir[side])
		strbuf_addf(out, "%s (%zu dumps)", p->dump_dir[side], n);
	else
		strbuf_addf(out, "%zu dumps", n);
	return true;
}

void plot_inputs_label(const struct plot *p, struct strbuf *out)
{
	bool stdin_ = !strcmp(p->o.source, "-");
	size_t start = out->len;
	if (add_side(p, 0, out)) {
		strbuf_addstr(out, " vs ");
		if (!add_side(p, 1, out))
			strbuf_addstr(out, "no golden");
	}
	if (out->len == start)
		strbuf_addstr(out, stdin_ ? "standard input" : p->o.source);
	else if (!stdin_)
		strbuf_addf(out, " (%s)", p->o.source);
}

void plot_module_label(const char *module, struct strbuf *out)
{
	const char *s = module, *end;
	size_t n;
	strbuf_reset(out);
	if (!strncmp(s, "Module.", 7))
		s += 7;
	n = strlen(s);
	/* drop ".forward.N", ".backward.N", ".parameters_grad.N" */
	end = s + n;
	while (end > s && end[-1] >= '0' && end[-1] <= '9')
		end--;
	if (end > s && end[-1] == '.') {
		const char *dot = end - 1, *q = dot;
		while (q > s && q[-1] != '.')
			q--;
		if (q > s && (!strncmp(q, "forward.", 8) || !strncmp(q, "backward.", 9) ||
			      !strncmp(q, "parameters_grad.", 16)))
			end = q - 1;
		else
			end = s + n;
	} else {
		end = s + n;
	}
	/* the last path component and the class: "layers.0 ParallelMLP", "fc2 Linear" */
	{
		const char *cls = end, *name, *name_start;
		while (cls > s && cls[-1] != '.')
			cls--;
		if (cls == s) {
			strbuf_add(out, s, (size_t)(end - s));
			return;
		}
		name = cls - 1;
		name_start = name;
		while (name_start > s && name_start[-1] != '.')
			name_start--;
		/* a numbered layer keeps its list's name: "layers.0" */
		if (name_start > s + 1 && name_start[0] >= '0' && name_start[0] <= '9') {
			const char *q = name_start - 1;
			while (q > s && q[-1] != '.')
				q--;
			name_start = q;
		}
		strbuf_add(out, name_start, (size_t)(name - name_start));
		strbuf_addch(out, ' ');
		strbuf_add(out, cls, (size_t)(end - cls));
	}
}

static int by_rank(const void *a, const void *b)
{
	const struct plot_rank *x = a, *y = b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* "0-3,5": a compact list of the ranks (sorted) into out. */
static void add_rank_list(struct strbuf *out, const int64_t *v, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && v[j + 1] == v[j] + 1)
			j++;
		if (i)
			strbuf_addch(out, ',');
		strbuf_addi(out, v[i]);
		if (j > i)
			strbuf_addf(out, "%s%lld", j > i + 1 ? "-" : ",", (long long)v[j]);
		i = j + 1;
	}
}

static void add_mark(struct plot *p, enum plot_mark_kind kind, const struct first_mark *fm)
{
	struct plot_mark *m;
	p->marks = xrealloc(p->marks, (p->nmarks + 1) * sizeof(*p->marks));
	m = &p->marks[p->nmarks++];
	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->rank = fm->rank;
	m->step = fm->step;
	m->seq = fm->seq;
	m->entry = xstrdup(fm->entry ? fm->entry : "");
	m->leaf = xstrdup(fm->leaf ? fm->leaf : "");
	m->role = xstrdup(fm->role ? fm->role : "");
	m->x = -1;
	m->lane = -1;
	for (size_t i = 0; i < p->nranks; i++)
		if (p->ranks[i].rank == fm->rank)
			m->x = x_seen(&p->ranks[i], fm->step, fm->seq);
	m->shown = m->x >= 0 && m->x >= p->xmin && m->x <= p->xmax;
}

static void collect_marks(struct plot *p)
{
	struct first_mark fm;
	for (size_t i = 0; i < first_found(p->first_div); i++) {
		first_mark_at(p->first_div, i, &fm);
		add_mark(p, MARK_DIVERGENCE, &fm);
	}
	for (size_t i = 0; i < first_found(p->first_nf); i++) {
		first_mark_at(p->first_nf, i, &fm);
		add_mark(p, MARK_NONFINITE, &fm);
	}
}

static void find_extent(struct plot *p)
{
	double lo = INFINITY, hi = 0;
	p->xmin = INT64_MAX;
	p->xmax = INT64_MIN;
	for (size_t i = 0; i < p->nranks; i++) {
		const struct plot_rank *r = &p->ranks[i];
		for (size_t k = 0; k < r->n; k++) {
			const struct plot_point *pt = &r->v[k];
			if (pt->x < p->xmin)
				p->xmin = pt->x;
			if (pt->x > p->xmax)
				p->xmax = pt->x;
			if (pt->ykind == Y_VALUE) {
				lo = fmin(lo, pt->y);
				hi = fmax(hi, pt->y);
			}
		}
		if (r->nsteps > 1)
			p->multi_step = true;
	}
	if (p->metric == PLOT_MD5 || !(hi > 0)) {
		/* nothing on the log scale (or only "differs"): one decade either side of 1 */
		p->dec_lo = -1;
		p->dec_hi = 1;
		return;
	}
	p->dec_lo = (int)floor(log10(lo));
	p->dec_hi = (int)ceil(log10(hi));
	if (p->dec_hi <= p->dec_lo)
		p->dec_hi = p->dec_lo + 1;
}

static void add_legend(struct plot *p, int kind, const char *color, const char *text)
{
	struct plot_legend_item *it;
	p->legend = xrealloc(p->legend, (p->nlegend + 1) * sizeof(*p->legend));
	it = &p->legend[p->nlegend++];
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	it->color = color;
	it->text = xstrdup(text);
}

static void add_rank_legend(struct plot *p, const struct plot_rank *r, struct strbuf *sb)
{
	strbuf_reset(sb);
	strbuf_addstr(sb, r->label);
	if (r->started && p->nranks > 1)
		strbuf_addstr(sb, " (started it)");
	add_legend(p, LEGEND_RANK, r->color, sb->buf);
}

/*
 * The ranks in the legend: all of them up to MAX_RANKS_LISTED; beyond, the
 * ranks that started it first, then the lowest others, then how many more.
 */
static void legend_ranks(struct plot *p, struct strbuf *sb)
{
	enum { MAX_RANKS_LISTED = 8 };
	size_t listed = 0;
	if (p->nranks <= MAX_RANKS_LISTED) {
		for (size_t i = 0; i < p->nranks; i++)
			add_rank_legend(p, &p->ranks[i], sb);
		return;
	}
	for (size_t i = 0; i < p->nranks && listed < MAX_RANKS_LISTED; i++)
		if (p->ranks[i].started) {
			add_rank_legend(p, &p->ranks[i], sb);
			listed++;
		}
	for (size_t i = 0; i < p->nranks && listed < MAX_RANKS_LISTED; i++)
		if (!p->ranks[i].started) {
			add_rank_legend(p, &p->ranks[i], sb);
			listed++;
		}
	strbuf_reset(sb);
	strbuf_addf(sb, "and %zu more ranks", p->nranks - listed);
	add_legend(p, LEGEND_NOTE, NULL, sb->buf);
}

/* The legend's items, and where each goes: a row under the subtitle, wrapping. */
static double lay_out_legend(struct plot *p, double top)
{
	bool any_back = false, any_fwd = false, any_div = false, any_nf = false;
	double x = p->g.left, y = top + 11, right = p->g.right;
	struct strbuf sb = STRBUF_INIT;

	legend_ranks(p, &sb);
	strbuf_release(&sb);
	for (size_t i = 0; i < p->nmarks; i++) {
		any_div |= p->marks[i].shown && p->marks[i].kind == MARK_DIVERGENCE;
		any_nf |= p->marks[i].shown && p->marks[i].kind == MARK_NONFINITE;
	}
	for (size_t i = 0; i < p->nranks; i++)
		for (size_t k = 0; k < p->ranks[i].n; k++) {
			any_back |= (p->ranks[i].v[k].flags & PF_BACKWARD) != 0;
			any_fwd |= !(p->ranks[i].v[k].flags & PF_BACKWARD);
		}
	if (any_div)
		add_legend(p, LEGEND_DIVERGENCE, NULL, "first divergence");
	if (any_nf)
		add_legend(p, LEGEND_NONFINITE, NULL, "first non-finite");
	if (p->diverging)
		add_legend(p, LEGEND_DIVERGES, NULL, "leaf diverges");
	if (any_back && any_fwd)
		add_legend(p, LEGEND_BACKWARD, NULL, "backward");
	if (p->o.module_depth > 0 && !p->any_modules)
		add_legend(p, LEGEND_NOTE, NULL, "no module bands: pipe through probe-stack");

	for (size_t i = 0; i < p->nlegend; i++) {
		struct plot_legend_item *it = &p->legend[i];
		double w = 22 + plot_text_width(it->text, 11, false) + 14;
		if (x + w > right && x > p->g.left) {
			x = p->g.left;
			y += 16;
		}
		it->x = x;
		it->y = y;
		x += w;
	}
	return y + 6;
}

/* Does [a0, a1] overlap [b0, b1], with a gap of pad? */
static bool overlaps(double a0, double a1, double b0, double b1, double pad)
{
	return a0 < b1 + pad && b0 < a1 + pad;
}

/* Can the label of m go in lane l without covering another label or crossing a leader line? */
static bool lane_is_free(const struct plot *p, const struct plot_mark *m, int l)
{
	for (size_t i = 0; i < p->nmarks; i++) {
		const struct plot_mark *o = &p->marks[i];
		if (o == m || !o->leads || o->lane < 0)
			continue;
		if (o->lane == l && overlaps(m->label_x, m->label_x + m->label_w, o->label_x, o->label_x + o->label_w, 12))
			return false;
		/*
		 * A leader runs down from its lane through the lanes under it
		 * (lane 0 is nearest the plot); two leaders on one x are one line.
		 */
		if (fabs(o->px - m->px) < 3)
			continue;
		if (o->lane < l && m->px >= o->label_x - 4 && m->px <= o->label_x + o->label_w + 4)
			return false;
		if (o->lane > l && o->px >= m->label_x - 4 && o->px <= m->label_x + m->label_w + 4)
			return false;
	}
	return true;
}

/* Right to left: a label runs right from its mark, so one placed later sits above the ones to its right. */
static int by_px_descending(const void *a, const void *b)
{
	const struct plot_mark *const *x = a, *const *y = b;
	return ((*x)->px < (*y)->px) - ((*x)->px > (*y)->px);
}

const struct plot_rank *plot_rank_drawn(const struct plot *p, int64_t rank)
{
	for (size_t i = 0; i < p->nranks; i++)
		if (p->ranks[i].rank == rank)
			return &p->ranks[i];
	return NULL;
}

const char *plot_rank_label(const struct plot *p, int64_t rank)
{
	const struct plot_rank *r = plot_rank_drawn(p, rank);
	return r ? r->label : "no rank";
}

/* " (rank 2)", " (ranks 0-3,5)"; a run without a rank by its label: " (proc2016, rank 1)". */
static void add_group_ranks(const struct plot *p, struct strbuf *sb, const int64_t *ranks, size_t nr)
{
	size_t numbered = 0;
	for (size_t k = 0; k < nr; k++)
		numbered += ranks[k] >= 0;
	strbuf_addstr(sb, " (");
	for (size_t k = 0; k < nr; k++)
		if (ranks[k] < 0)
			strbuf_addf(sb, "%s%s", k ? ", " : "", plot_rank_label(p, ranks[k]));
	if (numbered) {
		if (numbered < nr)
			strbuf_addstr(sb, ", ");
		strbuf_addstr(sb, numbered > 1 ? "ranks " : "rank ");
		add_rank_list(sb, ranks + (nr - numbered), numbered);
	}
	strbuf_addch(sb, ')');
}

/* Shorten a label to at most max characters by cutting the middle of the leaf name. */
static void fit_label(struct strbuf *sb, size_t max)
{
	size_t n = sb->len, keep_head, cut;
	if (n <= max || max < 12)
		return;
	keep_head = max / 2;
	cut = n - max + 3; /* "…" is 3 bytes and draws as one character */
	memmove(sb->buf + keep_head + 3, sb->buf + keep_head + cut, n - keep_head - cut + 1);
	memcpy(sb->buf + keep_head, "\xe2\x80\xa6", 3);
	sb->len = n - cut + 3;
}

/*
 * Group the marks shown by kind, leaf and x (ranks that diverge at the same
 * place get one label), write the labels, and place them in lanes.
 */
static void label_marks(struct plot *p)
{
	struct plot_mark **order = xcalloc(p->nmarks + 1, sizeof(*order));
	size_t n = 0, max_chars = (size_t)((p->g.right - p->g.left) / (11 * PLOT_MONO_EM));
	int64_t *ranks = xcalloc(p->nmarks + 1, sizeof(*ranks));
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < p->nmarks; i++) {
		struct plot_mark *m = &p->marks[i];
		size_t nr = 0;
		bool grouped = false;
		if (!m->shown)
			continue;
		m->px = plot_x_px(p, m->x);
		for (size_t k = 0; k < i; k++) {
			const struct plot_mark *o = &p->marks[k];
			if (o->shown && o->kind == m->kind && o->x == m->x && !strcmp(o->leaf, m->leaf))
				grouped = true;
		}
		if (grouped)
			continue;
		for (size_t k = i; k < p->nmarks; k++) {
			const struct plot_mark *o = &p->marks[k];
			if (o->shown && o->kind == m->kind && o->x == m->x && !strcmp(o->leaf, m->leaf))
				ranks[nr++] = o->rank;
		}
		strbuf_reset(&sb);
		strbuf_addstr(&sb, m->kind == MARK_DIVERGENCE ? "first divergence: " : "first non-finite: ");
		strbuf_addstr(&sb, m->leaf);
		if (p->nranks > 1)
			add_group_ranks(p, &sb, ranks, nr);
		fit_label(&sb, max_chars);
		m->leads = true;
		m->label = xstrdup(sb.buf);
		m->label_w = plot_text_width(m->label, 11, true);
		m->label_x = m->px - 5;
		if (m->label_x + m->label_w > p->g.right)
			m->label_x = p->g.right - m->label_w;
		if (m->label_x < p->g.left)
			m->label_x = p->g.left;
		order[n++] = m;
	}
	qsort(order, n, sizeof(*order), by_px_descending);
	for (size_t i = 0; i < n; i++)
		for (int l = 0; l < PLOT_MAX_LANES; l++)
			if (lane_is_free(p, order[i], l)) {
				order[i]->lane = l;
				if (l + 1 > p->g.lanes)
					p->g.lanes = l + 1;
				break;
			}
	free(order);
	free(ranks);
	strbuf_release(&sb);
}

static void lay_out(struct plot *p)
{
	struct plot_geom *g = &p->g;
	double bottom_fixed, top, strips;
	uint32_t depth = 0;

	g->width = p->o.width;
	g->height = p->o.height;
	g->left = 82;
	g->right = g->width - 18;
	g->ncols = (int)(g->right - g->left);
	if (g->ncols < 1)
		g->ncols = 1;
	g->title_y = 24;
	g->inputs_y = 42;
	g->subtitle_y = 57;
	g->legend_top = 65;
	top = lay_out_legend(p, g->legend_top);
	label_marks(p);
	g->lanes_top = top + 4;
	g->area_top = g->lanes_top + g->lanes * PLOT_LANE_H + (g->lanes ? 8 : 0);

	for (size_t i = 0; i < p->nchains; i++)
		if (p->chains[i].depth > depth)
			depth = p->chains[i].depth;
	g->band_rows = (int)(depth < (uint32_t)p->o.module_depth ? depth : (uint32_t)p->o.module_depth);

	g->nog_h = p->unmatched ? 10 : 0;
	g->inf_h = 18;
	g->g0_h = p->golden0 ? 18 : 0;
	g->zero_h = 18;
	g->rug_h = 8;
	bottom_fixed = 22 + g->band_rows * PLOT_BAND_H + (g->band_rows ? 8 : 0) + 22;
	strips = g->nog_h + g->inf_h + g->g0_h + g->zero_h + g->rug_h + 16;
	if (g->height - bottom_fixed - g->area_top - strips < 120)
		g->height = (int)ceil(bottom_fixed + g->area_top + strips + 120);
	g->area_bottom = g->height - bottom_fixed;
	g->nog_top = g->area_top;
	g->inf_top = g->nog_top + g->nog_h;
	g->g0_top = g->inf_top + g->inf_h;
	g->log_top = g->g0_top + g->g0_h + 8;
	g->rug_top = g->area_bottom - g->rug_h;
	g->zero_top = g->rug_top - g->zero_h;
	g->log_bottom = g->zero_top - 8;
	g->ticks_y = g->area_bottom + 16;
	g->bands_top = g->area_bottom + 24;
	g->xtitle_y = g->bands_top + g->band_rows * PLOT_BAND_H + (g->band_rows ? 8 : 0) + 14;
}

int plot_col_of(const struct plot *p, int64_t x)
{
	int c = (int)floor(plot_x_px(p, x) - p->g.left);
	return c < 0 ? 0 : c >= p->g.ncols ? p->g.ncols - 1 : c;
}

/* Per rank and pixel column: first, lowest, highest, last; per column: backward or not, any divergence. */
static void aggregate(struct plot *p)
{
	size_t ncols = (size_t)p->g.ncols;
	p->col_back = xcalloc(ncols, sizeof(*p->col_back));
	p->col_fwd = xcalloc(ncols, sizeof(*p->col_fwd));
	p->col_diff = xcalloc(ncols, 1);
	p->col_nog = xcalloc(ncols, 1);
	p->col_zero = xcalloc(ncols, 1);
	p->col_g0 = xcalloc(ncols, 1);
	for (size_t i = 0; i < p->nranks; i++) {
		struct plot_rank *r = &p->ranks[i];
		size_t gap = 0;
		float last_x = 0;
		r->cols = xcalloc(ncols, sizeof(*r->cols));
		for (size_t k = 0; k < r->n; k++) {
			const struct plot_point *pt = &r->v[k];
			int c = plot_col_of(p, pt->x);
			struct plot_col *col = &r->cols[c];
			float x = (float)plot_x_px(p, pt->x), y = (float)plot_point_y(p, pt);
			if (pt->flags & PF_BACKWARD)
				p->col_back[c]++;
			else
				p->col_fwd[c]++;
			if (pt->flags & PF_DIFF)
				p->col_diff[c] = 1;
			if (pt->flags & PF_UNMATCHED) {
				p->col_nog[c] = 1;
				continue; /* no value: not on the line */
			}
			if (pt->ykind == Y_ZERO || pt->ykind == Y_NONE || pt->ykind == Y_GOLDEN0) {
				/* not on the line: no relative difference (golden 0) is no small one either */
				if (pt->ykind == Y_GOLDEN0)
					p->col_g0[c] = 1;
				else
					p->col_zero[c] = 1;
				gap++;
				continue;
			}
			if (!col->n) {
				/* a few leaves at 0 between two values do not break the line; a long run does */
				col->gap = gap >= PLOT_GAP_LEAVES && x - last_x > PLOT_GAP;
				col->first_x = x;
				col->first_y = col->min_y = col->max_y = y;
				col->first_i = col->min_i = col->max_i = (uint32_t)k;
			}
			if (y < col->min_y) {
				col->min_y = y;
				col->min_at = col->n;
				col->min_i = (uint32_t)k;
			}
			if (y > col->max_y) {
				col->max_y = y;
				col->max_at = col->n;
				col->max_i = (uint32_t)k;
			}
			col->last_x = x;
			col->last_y = y;
			col->last_i = (uint32_t)k;
			col->n++;
			gap = 0;
			last_x = x;
		}
	}
}

static void place_marks(struct plot *p)
{
	for (size_t i = 0; i < p->nmarks; i++) {
		struct plot_mark *m = &p->marks[i];
		m->py = p->g.zero_top + p->g.zero_h / 2;
		for (size_t k = 0; k < p->nranks; k++) {
			const struct plot_rank *r = &p->ranks[k];
			if (r->rank != m->rank)
				continue;
			for (size_t j = 0; j < r->n; j++)
				if (r->v[j].x == m->x) {
					m->py = plot_point_y(p, &r->v[j]);
					break;
				}
		}
	}
}

/* The "where" of the marks, from the records the first-divergence code kept. */
static void marks_where(struct plot *p)
{
	for (size_t i = 0; i < p->nrows; i++)
		for (size_t k = 0; k < p->nmarks; k++) {
			struct plot_mark *m = &p->marks[k];
			if (!m->where && p->rows[i].where && m->rank == p->rows[i].rank && m->x == p->rows[i].x)
				m->where = xstrdup(p->rows[i].where);
		}
}

/*
 * After the ranks are sorted: each one's label and colour, the ranks that
 * started it (probe-first's), and the rank of each row of the table.
 */
static void name_ranks(struct plot *p)
{
	struct strbuf sb = STRBUF_INIT;
	struct first_mark fm;
	for (size_t i = 0; i < p->nranks; i++) {
		struct plot_rank *r = &p->ranks[i];
		strbuf_reset(&sb);
		leafrec_rank_label(&sb, r->rank, r->proc);
		r->label = xstrdup(sb.buf);
		r->color = plot_palette[i % PLOT_NPALETTE];
	}
	for (size_t k = 0; k < first_found(p->first_div); k++) {
		first_mark_at(p->first_div, k, &fm);
		for (size_t i = 0; i < p->nranks; i++)
			if (fm.started && p->ranks[i].rank == fm.rank)
				p->ranks[i].started = true;
	}
	for (size_t k = 0; k < p->nrows; k++)
		for (size_t i = 0; i < p->nranks; i++)
			if (p->ranks[i].rank == p->rows[k].rank)
				p->rows[k].rank_index = i;
	strbuf_release(&sb);
}

static int finish_plot(struct plot *p, struct strbuf *err)
{
	size_t points = 0;
	if (first_finish(p->first_div, err) < 0) {
		if (p->other_ranks && !p->nranks) {
			strbuf_reset(err);
			strbuf_addf(err, "ranks %s: none of them is in the records", p->o.ranks);
		}
		return -1;
	}
	if (first_finish(p->first_nf, err) < 0)
		return -1;
	for (size_t i = 0; i < p->nranks; i++)
		points += p->ranks[i].n;
	if (!points) {
		strbuf_addf(err, "nothing in the range %lld:", (long long)p->o.from);
		if (p->o.to >= 0)
			strbuf_addi(err, p->o.to);
		strbuf_addf(err, " (%llu leaves outside it)", (unsigned long long)p->out_of_range);
		return -1;
	}
	if (p->metric == PLOT_AUTO)
		p->metric = PLOT_REL; /* no record had metrics: every leaf goes on the zero band */
	if (!p->values && !p->nonfinite && !p->golden0 && p->diverging) {
		/* divergences the metric cannot show: say so rather than draw a flat line */
		bool any = false;
		for (size_t i = 0; i < p->nranks && !any; i++)
			for (size_t k = 0; k < p->ranks[i].n && !any; k++)
				any = p->ranks[i].v[k].ykind != Y_NONE;
		if (!any) {
			strbuf_addf(err, "no leaf has the metric %s (see --metric in probe-plot(1))",
				    plot_metric_names[p->metric]);
			return -1;
		}
	}
	qsort(p->ranks, p->nranks, sizeof(*p->ranks), by_rank);
	name_ranks(p);
	find_extent(p);
	collect_marks(p);
	marks_where(p);
	lay_out(p);
	aggregate(p);
	place_marks(p);
	return 0;
}

int plot_finish(struct plot *p, struct strbuf *err)
{
	return finish_plot(p, err) < 0 ? PROBE_ERR_INPUT : 0;
}

static int sink_add(void *ctx, const char *line, size_t len, struct strbuf *out, struct strbuf *err)
{
	return plot_add(ctx, line, len, err);
}

static int sink_finish(void *ctx, struct strbuf *out, struct strbuf *err)
{
	return plot_finish(ctx, err);
}

struct line_sink plot_sink(struct plot *ctx)
{
	return (struct line_sink){ .ctx = ctx, .add = sink_add, .finish = sink_finish };
}
