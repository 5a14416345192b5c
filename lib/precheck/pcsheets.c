/*
 * pcsheets.c: msprobe's result.xlsx of two config_check packs, its
 * algorithms replayed on the packs' values (precheck.h): the swapped env
 * columns, the colliding hyperparameter keys, the signed relative
 * differences, the random calls matched many to one, the rows of a set in
 * its order (pyset.h), pandas' cells (numbers, bools, empty for None and
 * NaN, "inf", str() of anything else).
 */
#include "precheck.h"
#include "difflib.h"
#include "pyset.h"
#include "../core/msg.h"
#include "../core/xalloc.h"
#include "../core/xlsxw.h"
#include "../msprobe/mscsv.h"
#include "../msprobe/pyfmt.h"

#include <math.h>

enum { MAX_COLS = 8 };

struct cell {
	struct xlsxw_cell x;
	bool py_str; /* a Python str in msprobe's DataFrame (what check_df_malicious looks at) */
};

struct sheet {
	const char *name;
	const char *const *header;
	size_t ncols;
	struct cell (*rows)[MAX_COLS];
	size_t n, alloc;
	const char *pass; /* its pass_check */
};

struct book {
	const struct precheck *c;
	struct sheet sheets[PACK_NCHECKS + 1];
	size_t nsheets;
	struct arena arena;
	bool warned;
};

static char *keep(struct book *b, const char *s, size_t n)
{
	return arena_memdupz(&b->arena, s, n);
}

static struct cell text_cell(struct book *b, const char *s)
{
	struct cell c = { { XLSXW_TEXT, keep(b, s, strlen(s)), 0 }, true };
	if (!*s)
		c.x.type = XLSXW_EMPTY; /* pandas writes "" as an empty inline string; libxlsxwriter writes no cell */
	return c;
}

static struct cell num_cell(double x)
{
	struct cell c = { { XLSXW_NUMBER, NULL, x }, false };
	if (isnan(x))
		c.x.type = XLSXW_EMPTY; /* pandas' na_rep */
	else if (isinf(x))
		c.x = (struct xlsxw_cell){ XLSXW_TEXT, x > 0 ? "inf" : "-inf", 0 }; /* its inf_rep */
	return c;
}

static struct cell bool_cell(bool v)
{
	struct cell c = { { v ? XLSXW_TRUE : XLSXW_FALSE, NULL, 0 }, false };
	return c;
}

static struct cell empty_cell(void)
{
	struct cell c = { { XLSXW_EMPTY, NULL, 0 }, false };
	return c;
}

/* A Python value as pandas writes it into a cell. */
static struct cell value_cell(struct book *b, const struct pyval *v)
{
	struct strbuf s = STRBUF_INIT;
	struct cell c;
	if (!v)
		return empty_cell();
	switch (v->kind) {
	case PY_NONE: return empty_cell();
	case PY_BOOL: return bool_cell(v->b);
	case PY_INT:
	case PY_FLOAT: return num_cell(pyval_float(v));
	case PY_STR:
		c = text_cell(b, "");
		if (v->len)
			c.x = (struct xlsxw_cell){ XLSXW_TEXT, keep(b, v->text, v->len), 0 };
		return c;
	default:
		pyval_str(&s, v);
		c = text_cell(b, s.buf);
		c.py_str = false; /* a list: not looked at by the formula guard */
		strbuf_release(&s);
		return c;
	}
}

static struct cell *new_row(struct sheet *s)
{
	if (s->n == s->alloc) {
		s->alloc = s->alloc ? 2 * s->alloc : 16;
		s->rows = xrealloc(s->rows, st_mult(s->alloc, sizeof(*s->rows)));
	}
	for (size_t i = 0; i < MAX_COLS; i++)
		s->rows[s->n][i] = empty_cell();
	return s->rows[s->n++];
}

static struct sheet *new_sheet(struct book *b, const char *name, const char *const *header, size_t ncols)
{
	struct sheet *s = &b->sheets[b->nsheets++];
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->header = header;
	s->ncols = ncols;
	return s;
}

/* process_pass_check(): error if any row is, else warning if any is, else pass. */
static const char *pass_of_levels(const struct sheet *s, size_t col)
{
	bool warn = false;
	for (size_t i = 0; i < s->n; i++) {
		const char *t = s->rows[i][col].x.type == XLSXW_TEXT ? s->rows[i][col].x.text : "";
		if (!strcmp(t, "error"))
			return "error";
		warn |= !strcmp(t, "warning");
	}
	return warn ? "warning" : "pass";
}

/* "pass" if False not in the column, else "error". */
static const char *pass_of_bools(const struct sheet *s, size_t col)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->rows[i][col].x.type == XLSXW_FALSE)
			return "error";
	return "pass";
}

static void crash_warning(struct book *b, const char *what)
{
	if (b->warned)
		return;
	b->warned = true;
	warning("msprobe's config_check would fail on these inputs (%s); its workbook here holds what it would write "
		"without that fault", what);
}

static const struct pyval *dget(const struct pyval *d, const char *key, size_t len)
{
	if (!d || d->kind != PY_DICT)
		return NULL;
	for (size_t i = 0; i < d->n; i++)
		if (d->items[2 * i]->len == len && !memcmp(d->items[2 * i]->text, key, len))
			return d->items[2 * i + 1];
	return NULL;
}

static const struct pyval *dgets(const struct pyval *d, const char *key)
{
	return dget(d, key, strlen(key));
}

static bool truthy(const struct pyval *v)
{
	switch (v->kind) {
	case PY_NONE: return false;
	case PY_BOOL: return v->b;
	case PY_INT:
	case PY_FLOAT: return pyval_float(v) != 0;
	case PY_STR: return v->len > 0;
	default: return v->n > 0;
	}
}

/* ---- env (env_args_checker.compare_env_data, called with the packs swapped) */

static const struct ms_env {
	const char *npu, *gpu;
	int fallback; /* 0: False, 1: "None", 2: 0, 3: 1 */
	int gpu_fallback;
} ms_env[] = {
	{ "HCCL_DETERMINISTIC", "NCCL_DETERMINISTIC", 0, 0 },
	{ "HCCL_ALGO", "NCCL_ALGO", 1, 1 },
	{ "HCCL_INTRA_ROCE_ENABLE", NULL, 2, -1 },
	{ "HCCL_INTRA_ROCE_ENABLE", NULL, 3, -1 }, /* "HCCL_INTRA_PICE_ENABLE" in its env.yaml */
	{ "ASCEND_LAUNCH_BLOCKING", "CUDA_LAUNCH_BLOCKING", 2, 2 },
	{ "ASCEND_RT_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", 1, 1 },
};

static const struct pyval *fallback_value(struct book *b, int which)
{
	struct pyval *v = arena_alloc(&b->arena, sizeof(*v));
	memset(v, 0, sizeof(*v));
	switch (which) {
	case 0: v->kind = PY_BOOL; v->b = false; break;
	case 1: v->kind = PY_STR; v->text = "None"; v->len = 4; break;
	default: v->kind = PY_INT; v->text = which == 2 ? "0" : "1"; v->len = 1; break;
	}
	return v;
}

static void sheet_env(struct book *b)
{
	static const char *const header[] = { "bench_env_name", "cmp_env_name", "bench_value", "cmp_value", "level" };
	struct sheet *s = new_sheet(b, "env", header, 5);
	/* compare_env_data(npu_path=bench, bench_path=cmp): its "cmp" is our bench, its "bench" our cmp */
	const struct pyval *x = b->c->bench->env.value, *y = b->c->cmp->env.value;
	bool xn = precheck_npu_side(x), yn = precheck_npu_side(y);
	for (size_t i = 0; i < ARRAY_SIZE(ms_env); i++) {
		const struct ms_env *e = &ms_env[i];
		const char *xe = xn ? e->npu : e->gpu, *ye = yn ? e->npu : e->gpu;
		int xf = xn ? e->fallback : e->gpu_fallback, yf = yn ? e->fallback : e->gpu_fallback;
		const struct pyval *xv, *yv;
		struct cell *r;
		if (!xe && !ye)
			continue;
		if (xe) {
			xv = dgets(x, xe);
			if (!xv)
				xv = fallback_value(b, xf);
			if (!ye) {
				r = new_row(s);
				r[0] = text_cell(b, "only cmp has this env");
				r[1] = text_cell(b, xe);
				r[2] = text_cell(b, "");
				r[3] = value_cell(b, xv);
				r[4] = text_cell(b, "warning");
				continue;
			}
			yv = dgets(y, ye);
			if (!yv)
				yv = fallback_value(b, yf);
			if (precheck_py_eq(xv, yv))
				continue;
			r = new_row(s);
			r[0] = text_cell(b, ye);
			r[1] = text_cell(b, xe);
			r[2] = value_cell(b, yv);
			r[3] = value_cell(b, xv);
			r[4] = text_cell(b, "error");
		} else {
			yv = dgets(y, ye);
			if (!yv || !truthy(yv))
				yv = fallback_value(b, yf);
			r = new_row(s);
			r[0] = text_cell(b, ye);
			r[1] = text_cell(b, "only bench has this env");
			r[2] = value_cell(b, yv);
			r[3] = text_cell(b, "");
			r[4] = text_cell(b, "warning");
		}
	}
	s->pass = pass_of_levels(s, 4);
}

/* ---- pip */

static void sheet_pip(struct book *b)
{
	static const char *const header[] = { "package", "bench version", "cmp version", "level" };
	static const char *const deps[] = { "transformers", "deepspeed", "megatron", "numpy", "datasets", "peft",
					    "mindspore", "torch" };
	struct sheet *s = new_sheet(b, "pip", header, 4);
	for (size_t i = 0; i < ARRAY_SIZE(deps); i++) {
		const struct piplist_entry *x = piplist_get(&b->c->bench->ms_pip, deps[i]);
		const struct piplist_entry *y = piplist_get(&b->c->cmp->ms_pip, deps[i]);
		struct cell *r;
		bool same = !x && !y;
		if (x && y)
			same = !strcmp(x->version, y->version);
		if (same)
			continue;
		r = new_row(s);
		r[0] = text_cell(b, deps[i]);
		r[1] = text_cell(b, x && *x->version ? x->version : "None");
		r[2] = text_cell(b, y && *y->version ? y->version : "None");
		r[3] = text_cell(b, "error");
	}
	s->pass = pass_of_levels(s, 3);
}

/* ---- statistics */

static const char *const stats[4] = { "max", "min", "mean", "norm" };

/* (abs(b - c) / b) if b != 0 else None, for one statistic (NaN where msprobe's own arithmetic fails). */
static struct cell signed_rel(struct book *b, const struct pyval *x, const struct pyval *y, int k)
{
	const struct pyval *u = dgets(x, stats[k]), *v = y && y->kind == PY_DICT ? dgets(y, stats[k]) : NULL;
	double p, q;
	if (!u || !v || u->kind == PY_STR || v->kind == PY_STR || u->kind == PY_LIST || v->kind == PY_LIST) {
		crash_warning(b, "a statistic missing on one side");
		return empty_cell();
	}
	p = u->kind == PY_BOOL ? u->b : pyval_float(u);
	q = v->kind == PY_BOOL ? v->b : pyval_float(v);
	if (p == 0)
		return empty_cell();
	return num_cell(fabs(p - q) / p);
}

static bool stats_dict(const struct pyval *v)
{
	if (v->kind != PY_DICT || v->n != 4)
		return false;
	for (int k = 0; k < 4; k++)
		if (!dgets(v, stats[k]))
			return false;
	return true;
}

static void dataset_row(struct book *b, struct sheet *s, const struct pack_json *f, const char *tag, bool equal,
			const struct pyval *x, const struct pyval *y)
{
	struct cell *r = new_row(s);
	r[0] = num_cell((double)f->step);
	r[1] = num_cell((double)f->rank);
	r[2] = text_cell(b, tag);
	r[3] = bool_cell(equal);
	if (x)
		for (int k = 0; k < 4; k++)
			r[4 + k] = signed_rel(b, x, y, k);
}

/* compare_dataset_dicts(). */
static void dataset_dicts(struct book *b, struct sheet *s, const struct pack_json *f, const struct pyval *d1,
			  const struct pyval *d2, struct strbuf *tag)
{
	size_t base = tag->len;
	if (!d2 || d2->kind != PY_DICT) {
		crash_warning(b, "an input that is a dict on one side only");
		return;
	}
	for (size_t i = 0; i < d1->n; i++) {
		const struct pyval *k = d1->items[2 * i], *v1 = d1->items[2 * i + 1], *v2 = dget(d2, k->text, k->len);
		if (base)
			strbuf_addch(tag, '.');
		strbuf_add(tag, k->text, k->len);
		if (!v2)
			dataset_row(b, s, f, tag->buf, false, NULL, NULL);
		else if (v1->kind == PY_DICT && stats_dict(v1))
			dataset_row(b, s, f, tag->buf, precheck_py_eq(v1, v2), v1, v2);
		else if (v1->kind == PY_DICT)
			dataset_dicts(b, s, f, v1, v2, tag);
		strbuf_setlen(tag, base);
	}
	for (size_t i = 0; i < d2->n; i++) {
		const struct pyval *k = d2->items[2 * i];
		if (dget(d1, k->text, k->len))
			continue;
		if (base)
			strbuf_addch(tag, '.');
		strbuf_add(tag, k->text, k->len);
		dataset_row(b, s, f, tag->buf, false, NULL, NULL);
		strbuf_setlen(tag, base);
	}
}

static void sheet_dataset(struct book *b)
{
	static const char *const header[] = { "step", "rank", "tag", "equal", "max_relative_diff", "min_relative_diff",
					      "mean_relative_diff", "norm_relative_diff" };
	struct sheet *s = new_sheet(b, "dataset", header, 8);
	const struct pack *x = b->c->bench, *y = b->c->cmp;
	struct strbuf tag = STRBUF_INIT;
	for (size_t i = 0; i < x->ndataset; i++) {
		const struct pack_json *o = pack_find(y->dataset, y->ndataset, &x->dataset[i]);
		if (o)
			dataset_dicts(b, s, &x->dataset[i], x->dataset[i].value, o->value, &tag);
	}
	strbuf_release(&tag);
	s->pass = pass_of_bools(s, 3);
}

static void weight_row(struct book *b, struct sheet *s, const struct pack_json *f, const char *name,
		       const struct pyval *x, const struct pyval *y)
{
	struct cell *r = new_row(s);
	r[0] = num_cell((double)f->step);
	r[1] = num_cell((double)f->rank);
	r[2] = text_cell(b, name);
	if (!y || !x) {
		r[3] = text_cell(b, x ? "only bench have" : "only cmp have");
		return;
	}
	{
		bool equal = true;
		for (int k = 0; k < 4; k++)
			equal &= precheck_py_eq(dgets(x, stats[k]), dgets(y, stats[k]));
		r[3] = bool_cell(equal);
	}
	for (int k = 0; k < 4; k++)
		r[4 + k] = signed_rel(b, x, y, k);
}

static void sheet_weights(struct book *b)
{
	static const char *const header[] = { "step", "rank", "weight_name", "equal", "max_relative_diff",
					      "min_relative_diff", "mean_relative_diff", "norm_relative_diff" };
	struct sheet *s = new_sheet(b, "weights", header, 8);
	const struct pack *x = b->c->bench, *y = b->c->cmp;
	for (size_t i = 0; i < x->nweights; i++) {
		const struct pack_json *f = &x->weights[i], *o = pack_find(y->weights, y->nweights, f);
		const struct pyval *bd = f->value, *cd = o ? o->value : NULL;
		const char **bk, **ck, **order;
		size_t n;
		if (!o) {
			for (size_t k = 0; k < bd->n; k++)
				weight_row(b, s, f, bd->items[2 * k]->text, bd->items[2 * k + 1], NULL);
			continue;
		}
		/* set(bench) | set(cmp): a set's order */
		bk = xmalloc(st_mult(bd->n + 1, sizeof(*bk)));
		ck = xmalloc(st_mult(cd->n + 1, sizeof(*ck)));
		for (size_t k = 0; k < bd->n; k++)
			bk[k] = bd->items[2 * k]->text;
		for (size_t k = 0; k < cd->n; k++)
			ck[k] = cd->items[2 * k]->text;
		n = pyset_union_order(bk, bd->n, ck, cd->n, &order);
		for (size_t k = 0; k < n; k++)
			weight_row(b, s, f, order[k], dgets(bd, order[k]), dgets(cd, order[k]));
		free(order);
		free(bk);
		free(ck);
	}
	s->pass = pass_of_bools(s, 3);
}

/* ---- hyperparameters (HyperparameterChecker.compare_param) */

struct refined {
	char **name;      /* refined name -> */
	const char **key; /* its original key (the last one refined to it) */
	size_t n;
};

static void refine_keys(const struct pyval *d, struct refined *r)
{
	struct strbuf s = STRBUF_INIT;
	r->name = xmalloc(st_mult(d->n + 1, sizeof(*r->name)));
	r->key = xmalloc(st_mult(d->n + 1, sizeof(*r->key)));
	r->n = 0;
	for (size_t i = 0; i < d->n; i++) {
		const char *k = d->items[2 * i]->text, *dot = strrchr(k, '.');
		size_t j;
		strbuf_reset(&s);
		for (const char *p = dot ? dot + 1 : k; *p; p++)
			strbuf_addch(&s, *p == '-' ? '_' : *p);
		for (j = 0; j < r->n && strcmp(r->name[j], s.buf); j++)
			;
		if (j == r->n)
			r->name[r->n++] = xstrdup(s.buf);
		r->key[j] = k; /* the collision: the last key wins, the first place stays */
	}
	strbuf_release(&s);
}

static void free_refined(struct refined *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->name[i]);
	free(r->name);
	free(r->key);
}

static long find_refined(const struct refined *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->name[i], name))
			return (long)i;
	return -1;
}

/* _fuzzy_match_parameter(): the refined name matched in avail (-1: none) and how. */
static long fuzzy_match(const char *name, const struct refined *avail, struct strbuf *how)
{
	long i = find_refined(avail, name), best = -1;
	double best_ratio = 0.8;
	struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;
	const struct pc_alias_group *g = NULL;
	if (i >= 0) {
		strbuf_addstr(how, "pure name");
		return i;
	}
	for (size_t k = 0; k < precheck_nalias_groups && !g; k++) {
		const struct pc_alias_group *a = &precheck_alias_groups[k];
		if (!strcmp(name, a->name))
			g = a;
		for (int j = 0; j < 4 && a->aliases[j] && !g; j++)
			if (!strcmp(name, a->aliases[j]))
				g = a;
	}
	if (g) {
		strbuf_addstr(how, "mapping");
		if ((i = find_refined(avail, g->name)) >= 0)
			return i;
		for (int j = 0; j < 4 && g->aliases[j]; j++)
			if ((i = find_refined(avail, g->aliases[j])) >= 0)
				return i;
		strbuf_reset(how);
	}
	for (const char *p = name; *p; p++)
		strbuf_addch(&x, (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p));
	for (size_t k = 0; k < avail->n; k++) {
		double r;
		strbuf_reset(&y);
		for (const char *p = avail->name[k]; *p; p++)
			strbuf_addch(&y, (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p));
		r = difflib_ratio_utf8(x.buf, x.len, y.buf, y.len);
		if (r > best_ratio)
			best_ratio = r, best = (long)k;
	}
	if (best >= 0) {
		strbuf_addstr(how, "similarity:");
		pyfmt_double(how, best_ratio);
	}
	strbuf_release(&x);
	strbuf_release(&y);
	return best;
}

/* to_str_if_number() into a cell. */
static struct cell str_if_number(struct book *b, const struct pyval *v)
{
	struct strbuf s = STRBUF_INIT;
	struct cell c;
	if (!precheck_to_str(v, &s))
		return value_cell(b, v);
	c = text_cell(b, s.buf);
	strbuf_release(&s);
	return c;
}

static bool str_if_number_eq(const struct pyval *a, const struct pyval *b)
{
	struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;
	bool xs = precheck_to_str(a, &x), ys = precheck_to_str(b, &y), eq;
	if (xs && ys)
		eq = !strcmp(x.buf, y.buf);
	else if (xs)
		eq = b->kind == PY_STR && b->len == x.len && !memcmp(b->text, x.buf, x.len);
	else if (ys)
		eq = a->kind == PY_STR && a->len == y.len && !memcmp(a->text, y.buf, y.len);
	else
		eq = precheck_py_eq(a, b);
	strbuf_release(&x);
	strbuf_release(&y);
	return eq;
}

struct hrow {
	struct cell c[7];
	const char *k[3]; /* file, bench_para, cmp_para: the sort's keys */
};

static int cmp_hrow(const void *x, const void *y)
{
	const struct hrow *a = x, *b = y;
	int d;
	for (int i = 0; i < 3; i++)
		if ((d = strcmp(a->k[i], b->k[i])))
			return d;
	return 0;
}

static void hyper_file(struct book *b, struct sheet *s, const char *file, const struct pyval *bd, const struct pyval *cd)
{
	struct refined br, cr;
	bool *deleted = xcalloc(cd->n + 1, sizeof(*deleted));
	struct hrow *rows = xmalloc(st_mult(bd->n + cd->n + 1, sizeof(*rows)));
	size_t n = 0;
	struct strbuf how = STRBUF_INIT;
	refine_keys(bd, &br);
	refine_keys(cd, &cr);
	for (size_t i = 0; i < br.n; i++) {
		long m;
		const char *bk = br.key[i];
		const struct pyval *bv = dgets(bd, bk);
		struct hrow *r;
		strbuf_reset(&how);
		m = fuzzy_match(br.name[i], &cr, &how);
		if (m >= 0 && *cr.key[m]) {
			const char *ck = cr.key[m];
			const struct pyval *cv = dgets(cd, ck);
			size_t ci = 0;
			while (strcmp(cd->items[2 * ci]->text, ck))
				ci++;
			if (deleted[ci])
				crash_warning(b, "KeyError: two bench keys match one cmp key");
			deleted[ci] = true;
			if (str_if_number_eq(bv, cv))
				continue;
			r = &rows[n++];
			r->c[0] = text_cell(b, file);
			r->c[1] = text_cell(b, bk);
			r->c[2] = text_cell(b, ck);
			r->c[3] = str_if_number(b, bv);
			r->c[4] = str_if_number(b, cv);
			r->c[5] = text_cell(b, how.buf);
			r->c[6] = text_cell(b, "error");
			r->k[0] = file, r->k[1] = bk, r->k[2] = ck;
		} else {
			r = &rows[n++];
			r->c[0] = text_cell(b, file);
			r->c[1] = text_cell(b, bk);
			r->c[2] = text_cell(b, "Only in benchmark");
			r->c[3] = str_if_number(b, bv);
			r->c[4] = text_cell(b, "");
			r->c[5] = text_cell(b, "");
			r->c[6] = text_cell(b, "warning");
			r->k[0] = file, r->k[1] = bk, r->k[2] = "Only in benchmark";
		}
	}
	for (size_t j = 0; j < cd->n; j++) {
		struct hrow *r;
		if (deleted[j])
			continue;
		r = &rows[n++];
		r->c[0] = text_cell(b, file);
		r->c[1] = text_cell(b, "Only in comparison");
		r->c[2] = text_cell(b, cd->items[2 * j]->text);
		r->c[3] = text_cell(b, "");
		r->c[4] = value_cell(b, cd->items[2 * j + 1]);
		r->c[5] = text_cell(b, "");
		r->c[6] = text_cell(b, "warning");
		r->k[0] = file, r->k[1] = "Only in comparison", r->k[2] = cd->items[2 * j]->text;
	}
	if (n)
		qsort(rows, n, sizeof(*rows), cmp_hrow); /* all_diffs.sort(): the keys never tie */
	for (size_t i = 0; i < n; i++)
		memcpy(new_row(s), rows[i].c, sizeof(rows[i].c));
	strbuf_release(&how);
	free_refined(&br);
	free_refined(&cr);
	free(deleted);
	free(rows);
}

static void sheet_hyper(struct book *b)
{
	static const char *const header[] = { "file_name", "bench_para", "cmp_para", "bench_value", "cmp_value",
					      "matched_with", "level" };
	struct sheet *s = new_sheet(b, "hyperparameters", header, 7);
	for (int i = 0; i < 2; i++) {
		const struct pyval *x = b->c->bench->hyper[i].ms_value, *y = b->c->cmp->hyper[i].ms_value;
		if (x && y)
			hyper_file(b, s, pack_hyper_files[i], x, y);
	}
	s->pass = pass_of_levels(s, 6);
}

/* ---- random (compare_random_calls) */

static void stack_text(struct strbuf *out, const struct pyval *stack)
{
	for (size_t i = 0; i < stack->n; i++) {
		if (i)
			strbuf_addch(out, '\n');
		strbuf_add(out, stack->items[i]->text, stack->items[i]->len);
	}
}

static void random_row(struct book *b, struct sheet *s, const char *op, int64_t rank, const struct pyval *be,
		       const struct pyval *ce)
{
	struct cell *r = new_row(s);
	struct strbuf t = STRBUF_INIT;
	const struct pyval *bc = be ? dgets(be, "count") : NULL, *cc = ce ? dgets(ce, "count") : NULL;
	r[0] = text_cell(b, op);
	r[1] = num_cell((double)rank);
	if (be)
		stack_text(&t, dgets(be, "stack"));
	r[2] = text_cell(b, be ? t.buf : "no match stack");
	strbuf_reset(&t);
	if (ce)
		stack_text(&t, dgets(ce, "stack"));
	r[3] = text_cell(b, ce ? t.buf : "no match stack");
	r[4] = be ? value_cell(b, bc) : num_cell(0);
	r[5] = ce ? value_cell(b, cc) : num_cell(0);
	r[6] = bool_cell(be && ce && precheck_py_eq(bc, cc));
	strbuf_release(&t);
}

static const struct pack_json *rank_file(const struct pack *p, int64_t rank)
{
	for (size_t i = 0; i < p->nrandom; i++)
		if (p->random[i].rank == rank)
			return &p->random[i];
	return NULL;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? -1 : a > b;
}

static const struct pyval *calls(const struct pyval *d, const char *op)
{
	const struct pyval *v = dgets(d, op);
	return v && v->kind == PY_LIST ? v : NULL;
}

static void random_rank(struct book *b, struct sheet *s, int64_t rank)
{
	const struct pack_json *x = rank_file(b->c->bench, rank), *y = rank_file(b->c->cmp, rank);
	const struct pyval *bd = x ? x->value : NULL, *cd = y ? y->value : NULL;
	size_t nb = bd ? bd->n : 0, nc = cd ? cd->n : 0, n;
	const char **bk = xmalloc(st_mult(nb + 1, sizeof(*bk))), **ck = xmalloc(st_mult(nc + 1, sizeof(*ck))), **ops;
	for (size_t i = 0; i < nb; i++)
		bk[i] = bd->items[2 * i]->text;
	for (size_t i = 0; i < nc; i++)
		ck[i] = cd->items[2 * i]->text;
	n = pyset_union_order(bk, nb, ck, nc, &ops);
	for (size_t k = 0; k < n; k++) {
		const struct pyval *bl = bd ? calls(bd, ops[k]) : NULL, *cl = cd ? calls(cd, ops[k]) : NULL;
		size_t bn = bl ? bl->n : 0, cn = cl ? cl->n : 0;
		for (size_t i = 0; i < bn; i++) {
			const struct pyval *be = bl->items[i], *match = NULL;
			for (size_t j = 0; j < cn && !match; j++)
				if (precheck_stack_match(dgets(cl->items[j], "stack"), dgets(be, "stack"), NULL))
					match = cl->items[j];
			random_row(b, s, ops[k], rank, be, match);
		}
		for (size_t j = 0; j < cn; j++) {
			const struct pyval *ce = cl->items[j];
			bool any = false;
			for (size_t i = 0; i < bn && !any; i++)
				any = precheck_stack_match(dgets(bl->items[i], "stack"), dgets(ce, "stack"), NULL);
			if (!any)
				random_row(b, s, ops[k], rank, NULL, ce);
		}
	}
	free(ops);
	free(bk);
	free(ck);
}

static void sheet_random(struct book *b)
{
	static const char *const header[] = { "op", "rank", "bench_stack", "cmp_stack", "bench_count", "cmp_count",
					      "check_result" };
	struct sheet *s = new_sheet(b, "random", header, 7);
	const struct pack *x = b->c->bench, *y = b->c->cmp;
	int64_t *ranks = xmalloc(st_mult(x->nrandom + y->nrandom + 1, sizeof(*ranks)));
	size_t n = 0;
	for (size_t i = 0; i < x->nrandom; i++)
		ranks[n++] = x->random[i].rank;
	for (size_t i = 0; i < y->nrandom; i++)
		ranks[n++] = y->random[i].rank;
	if (n)
		qsort(ranks, n, sizeof(*ranks), cmp_i64);
	for (size_t i = 0; i < n; i++)
		if (!i || ranks[i] != ranks[i - 1])
			random_rank(b, s, ranks[i]);
	free(ranks);
	s->pass = pass_of_bools(s, 6);
}

/* ---- the workbook */

static void build(struct book *b)
{
	static const char *const header[] = { "filename", "pass_check" };
	static void (*const makers[PACK_NCHECKS])(struct book *) = { sheet_env, sheet_pip, sheet_dataset,
								     sheet_weights, sheet_hyper, sheet_random };
	struct sheet *summary = new_sheet(b, "summary", header, 2);
	for (int k = 0; k < PACK_NCHECKS; k++) {
		struct cell *r;
		if (!b->c->sum[k].compared)
			continue;
		makers[k](b);
		r = new_row(summary);
		r[0] = text_cell(b, pack_check_name((enum pack_check)k));
		r[1] = text_cell(b, b->sheets[b->nsheets - 1].pass);
	}
}

/* check_df_malicious() over the sheets in msprobe's order: the first cell it refuses, or NULL. */
static const char *refused(const struct book *b)
{
	for (size_t i = 0; i < b->nsheets; i++) {
		const struct sheet *s = &b->sheets[i];
		for (size_t c = 0; c < s->ncols; c++)
			if (mscsv_refused(s->header[c]))
				return s->header[c];
		for (size_t r = 0; r < s->n; r++)
			for (size_t c = 0; c < s->ncols; c++)
				if (s->rows[r][c].py_str && s->rows[r][c].x.type == XLSXW_TEXT && mscsv_refused(s->rows[r][c].x.text))
					return s->rows[r][c].x.text;
	}
	return NULL;
}

static int write_book(const struct book *b, const char *path, const char *tmpdir, struct strbuf *err)
{
	struct xlsxw_options xo = { .tmpdir = tmpdir };
	struct xlsxw *w = xlsxw_new(path, &xo, err);
	int rc = 0;
	if (!w)
		return -1;
	for (size_t i = 0; i < b->nsheets && !rc; i++) {
		const struct sheet *s = &b->sheets[i];
		rc = xlsxw_begin(w, s->name, s->header, s->ncols, err);
		for (size_t r = 0; r < s->n && !rc; r++) {
			struct xlsxw_cell cells[MAX_COLS];
			for (size_t c = 0; c < s->ncols; c++)
				cells[c] = s->rows[r][c].x;
			rc = xlsxw_row(w, cells, s->ncols, XLSXW_ROW_PLAIN, err);
		}
		if (!rc)
			rc = xlsxw_end(w, err);
	}
	if (!rc)
		rc = xlsxw_close(w, err);
	xlsxw_free(w);
	return rc;
}

int precheck_write_xlsx(const struct precheck *c, const char *path, const char *tmpdir, struct strbuf *err)
{
	struct book b = { .c = c, .arena = ARENA_INIT };
	const char *bad;
	int rc;
	build(&b);
	if (!path) {
		rc = 0;
	} else if ((bad = refused(&b))) {
		strbuf_addf(err, "msprobe refuses to write this workbook: Malicious value [%s] not allowed to be written "
				 "into the excel: result.xlsx", bad);
		rc = -1;
	} else {
		rc = write_book(&b, path, tmpdir, err);
	}
	for (size_t i = 0; i < b.nsheets; i++)
		free(b.sheets[i].rows);
	arena_release(&b.arena);
	return rc;
}
