/*
 * gdata.c: the input_data and output_data of msprobe's graph nodes (see gdata.h).
 */
#include "../core/compat.h"

#include <math.h>
#include <stdlib.h>
#include <zlib.h>

#include "gdata.h"
#include "../core/msg.h"
#include "../core/xalloc.h"
#include "../dumps/dump.h"
#include "../json/jsonw.h"
#include "../msprobe/pyfmt.h"
#include "../msprobe/pyval.h"

/* ---- Python values of a leaf's fields -------------------------------------------------- */

enum pkind { PK_NONE, PK_STR, PK_OTHER };

/* One field of msprobe's op_item: its key and str() of its value, and whether the value is a str. */
struct pfield {
	const char *key;
	enum pkind kind;
	struct strbuf text;
};

struct item {
	struct pfield f[48];
	size_t n;
	bool overflow; /* more members than f holds: the rest are dropped (no dump leaf has so many) */
};

static void py_str(struct strbuf *out, const struct jnode *v, bool repr);

static void py_number(struct strbuf *out, const struct jnode *v)
{
	/* an int as written; a float whose text is already its repr */
	if (jtree_is_int(v) || (!v->nonfinite && pyfmt_is_canonical(v->text, v->len)))
		strbuf_add(out, v->text, v->len);
	else
		pyfmt_double(out, jtree_number(v));
}

/* str(value) (repr: repr(value), as inside a list or dict) of the Python object json.load() makes. */
static void py_str(struct strbuf *out, const struct jnode *v, bool repr)
{
	const struct jnode *c;
	switch (v->kind) {
	case J_NULL: strbuf_addstr(out, "None"); return;
	case J_TRUE: strbuf_addstr(out, "True"); return;
	case J_FALSE: strbuf_addstr(out, "False"); return;
	case J_NUMBER: py_number(out, v); return;
	case J_STRING:
		if (repr)
			pyval_repr_string(out, v->text, v->len);
		else
			strbuf_add(out, v->text, v->len);
		return;
	case J_ARRAY:
		strbuf_addch(out, '[');
		for (c = v->child; c; c = c->next) {
			py_str(out, c, true);
			if (c->next)
				strbuf_addstr(out, ", ");
		}
		strbuf_addch(out, ']');
		return;
	case J_OBJECT:
		strbuf_addch(out, '{');
		for (c = v->child; c; c = c->next) {
			pyval_repr_string(out, c->key, c->key_len);
			strbuf_addstr(out, ": ");
			py_str(out, c, true);
			if (c->next)
				strbuf_addstr(out, ", ");
		}
		strbuf_addch(out, '}');
		return;
	}
}

static struct pfield *item_get(struct item *it, const char *key);

/* The field named key, made (empty) when the item has none yet; NULL when the item is full. */
static struct pfield *item_field(struct item *it, const char *key)
{
	struct pfield *f = item_get(it, key);
	if (f)
		return f;
	if (it->n == ARRAY_SIZE(it->f)) {
		it->overflow = true;
		return NULL;
	}
	it->f[it->n].key = key;
	strbuf_reset(&it->f[it->n].text);
	return &it->f[it->n++];
}

/* op_item[key] = the Python object of v (bools made str, as gen_op_item does with the leaf's own members). */
static void item_set_value(struct item *it, const char *key, const struct jnode *v, bool bool_as_str)
{
	struct pfield *f = item_field(it, key);
	if (!f)
		return;
	strbuf_reset(&f->text);
	if (!v || v->kind == J_NULL) {
		f->kind = PK_NONE;
		return;
	}
	f->kind = v->kind == J_STRING || (bool_as_str && (v->kind == J_TRUE || v->kind == J_FALSE)) ? PK_STR : PK_OTHER;
	py_str(&f->text, v, false);
}

static void item_set_text(struct item *it, const char *key, enum pkind kind, const char *text, size_t len)
{
	struct pfield *f = item_field(it, key);
	if (!f)
		return;
	strbuf_reset(&f->text);
	strbuf_add(&f->text, text, len);
	f->kind = kind;
}

static struct pfield *item_get(struct item *it, const char *key)
{
	for (size_t i = 0; i < it->n; i++)
		if (!strcmp(it->f[i].key, key))
			return &it->f[i];
	return NULL;
}

static void item_remove(struct item *it, const char *key)
{
	for (size_t i = 0; i < it->n; i++)
		if (!strcmp(it->f[i].key, key)) {
			struct strbuf keep = it->f[i].text;
			memmove(&it->f[i], &it->f[i + 1], (it->n - i - 1) * sizeof(it->f[0]));
			it->f[--it->n].text = keep; /* the buffer moves to the free end */
			return;
		}
}

static const char *const stat_keys[4] = { "Max", "Min", "Mean", "Norm" };

static const char *last_segment(const char *name)
{
	const char *dot = strrchr(name, '.');
	return dot ? dot + 1 : name;
}

/* gen_op_item's special cases, for a leaf without a dtype. */
static void scalar_fields(struct item *it, const struct jnode *obj, const char *row)
{
	const struct jnode *type = jtree_get(obj, "type"), *value = jtree_get(obj, "value");
	const char *seg = last_segment(row);
	struct strbuf s = STRBUF_INIT;
	bool set_stats_str = false, set_stats_value = false;
	item_set_value(it, "dtype", type, true);
	if (jtree_is_str(type, "torch.Size")) {
		if (value)
			py_str(&s, value, false);
		else
			strbuf_addstr(&s, "None");
		item_set_text(it, "shape", PK_STR, s.buf, s.len);
	} else if (jtree_is_str(type, "slice")) {
		/* str(np.shape(np.array(value))): a list's length, () for anything else */
		if (value && value->kind == J_ARRAY)
			strbuf_addf(&s, "(%u,)", value->count);
		else
			strbuf_addstr(&s, "()");
		item_set_text(it, "shape", PK_STR, s.buf, s.len);
	} else if (jtree_is_str(type, "ellipsis")) {
		item_set_text(it, "shape", PK_STR, "[]", 2);
		set_stats_value = true;
	} else if (!strcmp(seg, "src") || !strcmp(seg, "dst") || !strcmp(seg, "group_src") || !strcmp(seg, "group_dst")) {
		item_set_text(it, "shape", PK_STR, "[]", 2);
		set_stats_str = true;
	} else if (jtree_is_str(type, "torch.ProcessGroup")) {
		item_set_text(it, "shape", PK_STR, "[]", 2);
		value = jtree_get(obj, "group_ranks");
		set_stats_str = true;
	} else {
		/* str(type(value)), quotes and all: "<class 'int'>" */
		const char *cls = "NoneType";
		if (value) {
			switch (value->kind) {
			case J_TRUE:
			case J_FALSE: cls = "bool"; break;
			case J_NUMBER: cls = jtree_is_int(value) ? "int" : "float"; break;
			case J_STRING: cls = "str"; break;
			case J_ARRAY: cls = "list"; break;
			case J_OBJECT: cls = "dict"; break;
			case J_NULL: break;
			}
		}
		strbuf_addf(&s, "<class '%s'>", cls);
		item_set_text(it, "dtype", PK_STR, s.buf, s.len);
		item_set_text(it, "shape", PK_STR, "[]", 2);
		set_stats_value = true;
	}
	for (size_t i = 0; i < 4; i++) {
		if (set_stats_value) {
			item_set_value(it, stat_keys[i], value, false);
		} else if (set_stats_str) {
			strbuf_reset(&s);
			if (value)
				py_str(&s, value, false);
			else
				strbuf_addstr(&s, "None");
			item_set_text(it, stat_keys[i], PK_STR, s.buf, s.len);
		}
	}
	strbuf_release(&s);
}

/* ---- msprobe's _format_data ------------------------------------------------------------- */

/* ^\d{1,20}\.\d{1,20}%?$ with more than six decimals: rounded to six (the '%' kept). */
static void round_decimal_string(struct strbuf *s)
{
	size_t i = 0, int_digits, dec_digits;
	bool percent;
	char tmp[64];
	while (i < s->len && s->buf[i] >= '0' && s->buf[i] <= '9')
		i++;
	int_digits = i;
	if (int_digits < 1 || int_digits > 20 || i >= s->len || s->buf[i] != '.')
		return;
	i++;
	while (i < s->len && s->buf[i] >= '0' && s->buf[i] <= '9')
		i++;
	dec_digits = i - int_digits - 1;
	percent = i < s->len && s->buf[i] == '%';
	if (i + percent != s->len || dec_digits < 1 || dec_digits > 20 || dec_digits <= 6)
		return;
	memcpy(tmp, s->buf, int_digits + 1 + dec_digits);
	tmp[int_digits + 1 + dec_digits] = '\0';
	strbuf_reset(s);
	strbuf_addf(s, "%.6f%s", strtod(tmp, NULL), percent ? "%" : "");
}

/* The text msprobe stores for a field. */
static void format_value(struct strbuf *out, const struct pfield *f)
{
	if (f->kind == PK_NONE) {
		strbuf_addstr(out, "null");
		return;
	}
	if (f->kind == PK_OTHER) {
		strbuf_addbuf(out, &f->text);
		return;
	}
	/* a str: quotes removed, None made null, then the decimal rounding */
	struct strbuf s = STRBUF_INIT;
	for (size_t i = 0; i < f->text.len; i++) {
		if (f->text.buf[i] == '\'')
			continue;
		if (i + 4 <= f->text.len && !memcmp(f->text.buf + i, "None", 4)) {
			strbuf_addstr(&s, "null");
			i += 3;
			continue;
		}
		strbuf_addch(&s, f->text.buf[i]);
	}
	round_decimal_string(&s);
	strbuf_addbuf(out, &s);
	strbuf_release(&s);
}

static void add_member(struct strbuf *out, const char *key, const char *val, size_t len)
{
	if (out->len)
		strbuf_addstr(out, ", ");
	jsonw_str(out, key);
	strbuf_addstr(out, ": ");
	jsonw_string(out, val, len);
}

/* ---- reading ---------------------------------------------------------------------------- */

struct loader {
	struct gdata *d;
	struct item it;
	struct strbuf fields, scratch;
	uint64_t entry_seq;
	bool any;
};

static unsigned group_of(enum leaf_state s)
{
	switch (s) {
	case STATE_INPUT: return 0;
	case STATE_PARAMETERS: return 1;
	case STATE_OUTPUT: return 2;
	case STATE_PARAMS_GRAD: return 3;
	case STATE_DEBUG: return 4;
	}
	return 4;
}

static void note_stats(struct gleaf *g, const struct jnode *obj, const struct item *it)
{
	for (size_t i = 0; i < 4; i++) {
		const struct jnode *v = NULL;
		const struct pfield *f = NULL;
		for (size_t k = 0; k < it->n; k++)
			if (!strcmp(it->f[k].key, stat_keys[i]))
				f = &it->f[k];
		/* a number of the dump (the leaf's own statistic, or a scalar's value) */
		if (f && f->kind == PK_OTHER) {
			v = obj ? jtree_get(obj, stat_keys[i]) : NULL;
			if (!v || v->kind != J_NUMBER)
				v = obj ? jtree_get(obj, "value") : NULL;
		}
		if (v && v->kind == J_NUMBER) {
			g->stat_is_num[i] = true;
			g->stat_is_int[i] = jtree_is_int(v);
			g->stat[i] = jtree_number(v);
		}
	}
}

static void new_entry(struct loader *l, const char *name)
{
	struct gdata *d = l->d;
	struct strmap_slot *slot;
	ALLOC_GROW(d->entries, d->nentries + 1, d->ealloc);
	d->entries[d->nentries].first = (uint32_t)d->n;
	d->entries[d->nentries].count = 0;
	d->entries[d->nentries].name_len = strlen(name);
	d->entries[d->nentries].name = arena_memdupz(&d->arena, name, strlen(name));
	slot = strmap_put(&d->by_entry, name, strlen(name), NULL);
	if (!slot->value.u) /* an entry given twice keeps its first leaves */
		slot->value.u = d->nentries + 1;
	d->nentries++;
}

static int take_leaf(const struct dump_reader *r, const struct leaf *leaf, void *ctx)
{
	struct loader *l = ctx;
	struct gdata *d = l->d;
	struct item *it = &l->it;
	const struct jnode *obj = leaf->obj;
	const char *full = leaf->name;
	size_t full_len = strlen(full);
	struct gleaf *g;
	(void)r;
	if (!l->any || leaf->entry_seq != l->entry_seq) {
		new_entry(l, leaf->entry);
		l->entry_seq = leaf->entry_seq;
		l->any = true;
	}
	it->n = 0;
	if (obj)
		for (const struct jnode *c = obj->child; c; c = c->next)
			item_set_value(it, c->key, c, true); /* (keys are NUL-terminated, and live as long as the item) */
	if (leaf->p2p)
		for (size_t i = 0; i < 5; i++) {
			static const char *const keys[] = { "class_type", "op", "peer", "tag", "group_id" };
			item_set_value(it, keys[i], jtree_get(leaf->p2p, keys[i]), true);
		}
	item_set_text(it, "data_name", PK_STR, leaf->data_name ? leaf->data_name : "-1",
		      leaf->data_name ? strlen(leaf->data_name) : 2);
	if (leaf->data_name) { /* full_op_name: the file name without its suffix */
		const char *dot = strrchr(leaf->data_name, '.');
		full = leaf->data_name;
		full_len = dot ? (size_t)(dot - full) : strlen(full);
	}
	if (obj) {
		struct pfield *dtype;
		if (!item_get(it, "requires_grad"))
			item_set_value(it, "requires_grad", NULL, false);
		for (size_t i = 0; i < 4; i++)
			if (!item_get(it, stat_keys[i]))
				item_set_value(it, stat_keys[i], NULL, false);
		dtype = item_get(it, "dtype");
		if (!dtype || dtype->kind == PK_NONE || !dtype->text.len || (dtype->kind == PK_OTHER && !strcmp(dtype->text.buf, "0")))
			scalar_fields(it, obj, leaf->name);
	} else { /* a null slot: msprobe's default item */
		static const char *const keys[] = { "type", "Max", "Min", "Mean", "Norm", "dtype", "shape", "md5", "value", "requires_grad" };
		for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
			item_set_value(it, keys[i], NULL, false);
	}
	if (d->mode == GDATA_MD5 && !item_get(it, "md5")) {
		const struct jnode *value = obj ? jtree_get(obj, "value") : NULL;
		char hex[9];
		strbuf_reset(&l->scratch);
		if (value)
			py_str(&l->scratch, value, false);
		snprintf(hex, sizeof(hex), "%08lx", crc32(0, (const Bytef *)l->scratch.buf, (uInt)l->scratch.len));
		item_set_text(it, "md5", PK_STR, hex, 8);
	}

	ALLOC_GROW(d->leaves, d->n + 1, d->alloc);
	g = &d->leaves[d->n++];
	memset(g, 0, sizeof(*g));
	d->entries[d->nentries - 1].count++;
	g->key = arena_memdupz(&d->arena, full, full_len);
	g->key_len = full_len;
	g->row_len = strlen(leaf->name);
	/* the row name is the key but for a tensor file's: one copy when they agree */
	g->row = g->row_len == full_len && !memcmp(full, leaf->name, full_len) ? g->key
									  : arena_memdupz(&d->arena, leaf->name, g->row_len);
	g->group = group_of(leaf->state);
	g->output = strstr(g->key, ".output.") && !strstr(g->key, ".input.");
	note_stats(g, obj, it);
	{
		struct pfield *rg = item_get(it, "requires_grad");
		if (rg && rg->kind != PK_NONE)
			g->requires_grad = !strcmp(rg->text.buf, "True") ? "True" : !strcmp(rg->text.buf, "False") ? "False"
					   : arena_memdupz(&d->arena, rg->text.buf, rg->text.len);
	}

	/* format_node_data */
	if (d->mode != GDATA_MD5)
		item_remove(it, "md5");
	if (strstr(leaf->entry, "batch_isend_irecv"))
		for (size_t i = 0; i < 4; i++) {
			static const char *const keys[] = { "op", "peer", "tag", "group_id" };
			item_remove(it, keys[i]);
		}
	{
		struct pfield *type = item_get(it, "type");
		bool group = type && type->kind == PK_STR && !strcmp(type->text.buf, "torch.ProcessGroup");
		g->process_group = group;
		strbuf_reset(&l->fields);
		for (size_t i = 0; i < it->n; i++) {
			const struct pfield *f = &it->f[i];
			if (group && strcmp(f->key, "type") && strcmp(f->key, "group_ranks") && strcmp(f->key, "group_id") &&
			    strcmp(f->key, "data_name"))
				continue;
			strbuf_reset(&l->scratch);
			format_value(&l->scratch, f);
			if (!strcmp(f->key, "Max") && !strcmp(l->scratch.buf, "null"))
				g->all_null = true;
			add_member(&l->fields, f->key, l->scratch.buf, l->scratch.len);
		}
	}
	if (!g->all_null) {
		g->fields = arena_memdupz(&d->arena, l->fields.buf, l->fields.len);
		g->fields_len = l->fields.len;
	} else {
		g->fields = "";
	}
	return 0;
}

/* msprobe's dump_data_dir: the absolute folder of the dump, and dump_tensor_data in it. */
static char *tensor_folder(const char *dump_path)
{
	struct strbuf s = STRBUF_INIT;
	const char *slash = strrchr(dump_path, '/');
	char *dir, *abs;
	if (slash)
		strbuf_add(&s, dump_path, (size_t)(slash - dump_path));
	else
		strbuf_addch(&s, '.');
	dir = strbuf_detach(&s, NULL);
	abs = realpath(dir, NULL);
	strbuf_addstr(&s, abs ? abs : dir);
	strbuf_addstr(&s, "/dump_tensor_data");
	free(abs);
	free(dir);
	return strbuf_detach(&s, NULL);
}

int gdata_load(struct gdata *d, const char *dump_path, enum gdata_mode mode, struct strbuf *err)
{
	struct dump_reader r;
	struct loader l;
	int ret;
	memset(d, 0, sizeof(*d));
	d->mode = mode;
	memset(&l, 0, sizeof(l));
	l.d = d;
	for (size_t i = 0; i < ARRAY_SIZE(l.it.f); i++)
		strbuf_init(&l.it.f[i].text, 0);
	strbuf_init(&l.fields, 256);
	strbuf_init(&l.scratch, 64);
	dump_reader_init(&r, dump_path);
	ret = dump_read(&r, take_leaf, &l);
	if (ret < 0)
		strbuf_addbuf(err, &r.err);
	else if (mode == GDATA_TENSOR)
		d->dump_data_dir = tensor_folder(dump_path);
	dump_reader_release(&r);
	for (size_t i = 0; i < ARRAY_SIZE(l.it.f); i++)
		strbuf_release(&l.it.f[i].text);
	strbuf_release(&l.fields);
	strbuf_release(&l.scratch);
	if (ret < 0) {
		gdata_release(d);
		return PROBE_ERR;
	}
	return 0;
}

void gdata_release(struct gdata *d)
{
	free(d->leaves);
	free(d->entries);
	free(d->dump_data_dir);
	strmap_release(&d->by_entry);
	arena_release(&d->arena);
	memset(d, 0, sizeof(*d));
}

const struct gentry *gdata_entry(const struct gdata *d, const char *name, size_t len)
{
	struct strmap_slot *s = strmap_find(&d->by_entry, name, len);
	return s ? &d->entries[s->value.u - 1] : NULL;
}

/* ---- the compare columns ---------------------------------------------------------------- */

static bool stat_is_int(const struct gleaf *g, size_t i)
{
	return g->stat_is_num[i] && g->stat_is_int[i] && fabs(g->stat[i]) < 9007199254740992.0;
}

/* get_rela_diff_summary_mode, one statistic: the difference and the relative error as msprobe writes them. */
static void summary_columns(const struct gleaf *t, const struct gleaf *g, size_t i, struct strbuf *diff, struct strbuf *rel,
			    bool ints)
{
	double dv;
	strbuf_reset(diff);
	strbuf_reset(rel);
	if (!t->stat_is_num[i] || !g->stat_is_num[i]) {
		strbuf_addstr(diff, "N/A");
		strbuf_addstr(rel, "N/A");
		return;
	}
	dv = t->stat[i] - g->stat[i];
	if (isnan(dv)) {
		strbuf_addstr(diff, "Nan");
		strbuf_addstr(rel, "Nan");
		return;
	}
	if (ints)
		strbuf_addi(diff, (int64_t)dv);
	else
		pyfmt_double(diff, dv);
	if (isinf(dv))
		strbuf_addch(diff, '\t');
	if (g->stat[i] == 0) {
		strbuf_addstr(rel, "N/A");
		return;
	}
	pyfmt_double(rel, fabs(dv / g->stat[i] * 100));
	strbuf_addch(rel, '%');
	if (!strcmp(rel->buf, "nan%") || !strcmp(rel->buf, "inf%")) /* str() of them, then the same check */
		return;
	round_decimal_string(rel);
}

static double result_rank(const char *r)
{
	if (!r)
		return -1;
	if (!strcmp(r, "error"))
		return 1;
	if (!strcmp(r, "warning"))
		return 0.5;
	if (!strcmp(r, "pass"))
		return 0;
	return -1;
}

static void compare_columns(const struct gdata *d, const struct gleaf *t, const struct gleaf *g, gdata_lookup_fn lookup,
			    void *ctx, struct strbuf *fields, double *worst, const struct gdata *gd)
{
	struct strbuf diff = STRBUF_INIT, rel = STRBUF_INIT;
	struct grow_result res = { NULL, NULL, NULL };
	static const char *const diff_keys[4] = { "Max diff", "Min diff", "Mean diff", "L2norm diff" };
	static const char *const rel_keys[4] = { "MaxRelativeErr", "MinRelativeErr", "MeanRelativeErr", "NormRelativeErr" };
	bool found = lookup && lookup(ctx, t->row, t->row_len, &res);
	(void)gd;
	if (d->mode == GDATA_STATISTICS) {
		for (size_t i = 0; i < 4; i++) {
			if (g) {
				summary_columns(t, g, i, &diff, &rel, stat_is_int(t, i) && stat_is_int(g, i));
			} else {
				strbuf_reset(&diff);
				strbuf_addch(&diff, ' ');
				strbuf_reset(&rel);
				strbuf_addch(&rel, ' ');
			}
			add_member(fields, diff_keys[i], diff.buf, diff.len);
			add_member(fields, rel_keys[i], rel.buf, rel.len);
		}
	} else if (d->mode == GDATA_TENSOR && found && res.metrics && *res.metrics) {
		strbuf_addstr(fields, ", ");
		strbuf_addstr(fields, res.metrics);
	}
	{
		bool same = g && ((!t->requires_grad && !g->requires_grad) ||
				  (t->requires_grad && g->requires_grad && !strcmp(t->requires_grad, g->requires_grad)));
		add_member(fields, "Requires_grad Consistent", same ? "True" : "False", same ? 4 : 5);
	}
	if (found && res.result) {
		add_member(fields, "Result", res.result, strlen(res.result));
		if (result_rank(res.result) > *worst)
			*worst = result_rank(res.result);
	} else if (!g) {
		add_member(fields, "Result", "pass", 4);
		if (*worst < 0)
			*worst = 0;
	}
	if (found && res.result && res.err_message)
		add_member(fields, "Err_message", res.err_message, strlen(res.err_message));
	else if (!g)
		add_member(fields, "Err_message", "", 0);
	strbuf_release(&diff);
	strbuf_release(&rel);
}

void gdata_render(const struct gdata *d, const struct gentry *e, const struct gdata *gd, const struct gentry *golden,
		  bool compared, gdata_lookup_fn lookup, void *ctx, struct strbuf *in, struct strbuf *out, double *worst)
{
	size_t in0 = in->len, out0 = out->len;
	unsigned seen[5] = { 0 }, gcount[5] = { 0 };
	struct strbuf fields = STRBUF_INIT;
	*worst = -1;
	if (compared && golden)
		for (uint32_t k = 0; k < golden->count; k++)
			gcount[gd->leaves[golden->first + k].group]++;
	strbuf_addch(in, '{');
	strbuf_addch(out, '{');
	for (uint32_t k = 0; e && k < e->count; k++) {
		const struct gleaf *l = &d->leaves[e->first + k];
		struct strbuf *dst = l->output ? out : in;
		size_t base = dst == in ? in0 : out0;
		unsigned pos = seen[l->group]++;
		if (dst->len - base > 1)
			strbuf_addstr(dst, ", ");
		jsonw_string(dst, l->key, l->key_len);
		strbuf_addstr(dst, ": {");
		strbuf_reset(&fields);
		if (l->all_null)
			strbuf_addstr(&fields, "\"value\": \"null\"");
		else
			strbuf_add(&fields, l->fields, l->fields_len);
		if (compared) {
			const struct gleaf *g = NULL;
			if (pos < gcount[l->group]) {
				unsigned want = pos;
				for (uint32_t j = 0; golden && j < golden->count; j++) {
					const struct gleaf *c = &gd->leaves[golden->first + j];
					if (c->group == l->group && want-- == 0) {
						g = c;
						break;
					}
				}
			}
			/*
			 * an all-null leaf loses its columns (format_node_data clears it), a
			 * ProcessGroup keeps four fields; their Results count
			 */
			if (l->all_null || l->process_group) {
				struct strbuf dropped = STRBUF_INIT;
				compare_columns(d, l, g, lookup, ctx, &dropped, worst, gd);
				strbuf_release(&dropped);
			} else {
				compare_columns(d, l, g, lookup, ctx, &fields, worst, gd);
			}
		}
		strbuf_addbuf(dst, &fields);
		strbuf_addch(dst, '}');
	}
	strbuf_addch(in, '}');
	strbuf_addch(out, '}');
	strbuf_release(&fields);
}
