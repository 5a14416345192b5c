/*
 * consist.c: the pairing of verl's consistency compare (consist.h).
 *
 * Each side's leaves are kept as records; the keys msprobe's pandas code
 * derives with regular expressions are derived here by hand, one rule per
 * function, named after what msprobe computes (msprobe-verl.md, "How the
 * consistent compare works").
 */
#include "consist.h"
#include "match.h"
#include "../core/msg.h"
#include "../core/strmap.h"
#include "../core/xalloc.h"
#include "../dumps/flatten.h"
#include "../dumps/layout.h"
#include "../json/jsonw.h"
#include "../records/leafrec.h"
#include "../records/lines.h"

#include <ctype.h>

int consist_backend_parse(const char *s, enum consist_backend *out)
{
	if (!strcmp(s, "fsdp"))
		*out = CONSIST_FSDP;
	else if (!strcmp(s, "megatron"))
		*out = CONSIST_MEGATRON;
	else
		return -1;
	return 0;
}

const char *consist_backend_name(enum consist_backend b)
{
	return b == CONSIST_FSDP ? "fsdp" : "megatron";
}

/* ---- the records of a side ------------------------------------------------ */

struct crow {
	char *text;
	size_t len;
	char *name, *entry;
	int64_t rank, step;
	/* the keys, for the rows kept */
	char *call;     /* "forward.0", renumbered on the training side */
	char *suffix;   /* ".input.0" */
	char *module;   /* the module path msprobe takes the mapping from */
	char *mapping;  /* the mapped module name */
	int64_t layer;
	size_t pos;     /* parse order among the rows kept */
};

struct consist_side {
	struct crow *v;
	size_t nr, alloc;
};

struct consist_side *consist_side_new(void)
{
	return xcalloc(1, sizeof(struct consist_side));
}

static void crow_release(struct crow *r)
{
	free(r->text);
	free(r->name);
	free(r->entry);
	free(r->call);
	free(r->suffix);
	free(r->module);
	free(r->mapping);
}

void consist_side_free(struct consist_side *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nr; i++)
		crow_release(&s->v[i]);
	free(s->v);
	free(s);
}

int consist_side_add(struct consist_side *s, const char *line, size_t len, struct strbuf *err)
{
	struct leafrec r;
	struct strbuf sb = STRBUF_INIT;
	const char *why;
	struct crow *c;

	if (leafrec_parse(&r, line, len, &why) < 0) {
		strbuf_addstr(err, why);
		return PROBE_ERR_LINE;
	}
	ALLOC_GROW(s->v, s->nr + 1, s->alloc);
	c = &s->v[s->nr++];
	memset(c, 0, sizeof(*c));
	c->text = xmemdupz(line, len);
	c->len = len;
	leafrec_str(&r, LF_NAME, &sb);
	c->name = strbuf_detach(&sb, NULL);
	leafrec_str(&r, LF_ENTRY, &sb);
	c->entry = strbuf_detach(&sb, NULL);
	c->rank = r.rank;
	c->step = r.step;
	return 0;
}

struct side_loading {
	struct consist_side *s;
	struct strbuf err;
};

static int add_flattened(const char *record, size_t len, const struct leafrec *rec, void *ctx)
{
	struct side_loading *l = ctx;
	(void)rec;
	if (len && record[len - 1] == '\n')
		len--;
	return consist_side_add(l->s, record, len, &l->err) < 0 ? 1 : 0;
}

static int add_line(void *ctx, const char *line, size_t len, struct strbuf *out, struct strbuf *err)
{
	(void)out;
	return consist_side_add(ctx, line, len, err);
}

int consist_side_load(struct consist_side *s, const char *operand, struct strbuf *err)
{
	struct dump_list list = { 0 };
	int ret = 0;

	if (strcmp(operand, "-") && matcher_operand_is_records(operand)) {
		struct line_sink sink = { .ctx = s, .add = add_line };
		struct line_reader *lr = line_reader_open(operand, err);
		if (!lr)
			return -1;
		ret = line_reader_feed(lr, &sink, NULL, err) < 0 ? -1 : 0;
		line_reader_close(lr);
		return ret;
	}
	if (layout_discover(operand, &list, err) < 0)
		return -1;
	for (size_t i = 0; i < list.nr && !ret; i++) {
		struct side_loading l = { s, STRBUF_INIT };
		if (flatten_dump(&list.v[i], -1, -1, add_flattened, &l, err) != 0) {
			if (l.err.len)
				strbuf_addf(err, "%s: %s", list.v[i].path, l.err.buf);
			ret = -1;
		}
		strbuf_release(&l.err);
	}
	layout_release(&list);
	if (!ret && !s->nr) {
		strbuf_addf(err, "%s: no leaves: nothing to compare", operand);
		ret = -1;
	}
	return ret;
}

/* ---- msprobe's name rules -------------------------------------------------- */

/* The parts of a dotted name, as pointers into a copy (freed by the caller through *copy). */
static size_t split_dots(const char *name, char **copy, char ***parts)
{
	size_t n = 1, k = 0;
	char *c = xstrdup(name);
	for (const char *p = name; *p; p++)
		n += *p == '.';
	*parts = xcalloc(n, sizeof(char *));
	(*parts)[k++] = c;
	for (char *p = c; *p; p++)
		if (*p == '.') {
			*p = '\0';
			(*parts)[k++] = p + 1;
		}
	*copy = c;
	return n;
}

static bool is_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/*
 * msprobe's split_data_name_components: the name without its call
 * (op_no_number) and the call ("forward.0", "0.forward", "parameters_grad");
 * false when the name has none of forward, backward, parameters_grad in
 * its last two parts.
 */
static bool split_entry(const char *entry, struct strbuf *base, struct strbuf *call, bool *forward)
{
	char *copy, **parts;
	size_t n = split_dots(entry, &copy, &parts);
	const char *last = parts[n - 1], *second = n >= 2 ? parts[n - 2] : "";
	bool ok = true;

	strbuf_reset(base);
	strbuf_reset(call);
	*forward = false;
	if (!strcmp(last, "parameters_grad") || !strcmp(second, "parameters_grad")) {
		for (size_t i = 0; i + 1 < n; i++)
			strbuf_addf(base, "%s%s", i ? "." : "", parts[i]);
		strbuf_addstr(call, "parameters_grad");
	} else if (!strcmp(last, "forward") || !strcmp(second, "forward") || !strcmp(last, "backward") ||
		   !strcmp(second, "backward")) {
		*forward = !strcmp(last, "forward") || !strcmp(second, "forward");
		for (size_t i = 0; n > 2 && i + 2 < n; i++)
			strbuf_addf(base, "%s%s", i ? "." : "", parts[i]);
		strbuf_addf(call, "%s.%s", second, last);
	} else {
		ok = false;
	}
	free(copy);
	free(parts);
	return ok && base->len;
}

static const char *const fsdp_stop[] = { "Qwen2Model", "Qwen3Model", "Qwen3MoeModel" };
static const char *const megatron_stop[] = { "GPTModel" };

/* msprobe's should_parse_op for one training entry: the parse flag after it. */
static bool parse_window(enum consist_backend b, bool flag, const char *entry, size_t *short_names)
{
	char *copy, **parts;
	size_t n = split_dots(entry, &copy, &parts);
	const char *const *stop = b == CONSIST_FSDP ? fsdp_stop : megatron_stop;
	size_t nstop = b == CONSIST_FSDP ? ARRAY_SIZE(fsdp_stop) : ARRAY_SIZE(megatron_stop);
	const char *begin = b == CONSIST_FSDP ? "Embedding" : "VocabParallelEmbedding";

	if (n < 3) {
		(*short_names)++;
		flag = false;
	} else {
		const char *module = parts[n - 3], *direction = parts[n - 2];
		bool stops = false;
		for (size_t i = 0; i < nstop; i++)
			stops |= !strcmp(module, stop[i]);
		if (stops && !strcmp(direction, "backward"))
			flag = false;
		else if (strstr(begin, module) && !strcmp(direction, "forward"))
			flag = true; /* msprobe: module_name in 'Embedding', a substring test */
	}
	free(copy);
	free(parts);
	return flag;
}

/* The first "layers.N" of a name: N, or -1. */
static int64_t layer_of(const char *s)
{
	for (const char *p = strstr(s, "layers."); p; p = strstr(p + 1, "layers.")) {
		const char *d = p + 7;
		if (isdigit((unsigned char)*d)) {
			int64_t v = 0;
			for (; isdigit((unsigned char)*d) && v < INT64_MAX / 10; d++)
				v = v * 10 + (*d - '0');
			return v;
		}
	}
	return -1;
}

/* Where re.sub(r'^.*layers\.\d+\.', '', s) leaves s: just after the last "layers.N.", or s. */
static const char *after_last_layer(const char *s)
{
	const char *found = s;
	for (const char *p = strstr(s, "layers."); p; p = strstr(p + 1, "layers.")) {
		const char *d = p + 7;
		if (!isdigit((unsigned char)*d))
			continue;
		while (isdigit((unsigned char)*d))
			d++;
		if (*d == '.')
			found = d + 1;
	}
	return found;
}

/* re.split('_fsdp_wrapped_module.', s)[-1] (the dot is any character): after the last match, or s. */
static const char *after_fsdp_wrapper(const char *s)
{
	static const char w[] = "_fsdp_wrapped_module";
	const char *found = s, *p = s;
	while ((p = strstr(p, w)) && p[sizeof(w) - 1]) {
		p += sizeof(w); /* the word and any one character */
		found = p;
	}
	return found;
}

/* re.sub(r'^.*module.module\.', '', s): after the last "module?module.", or s. */
static const char *after_module_module(const char *s)
{
	size_t n = strlen(s);
	for (size_t p = n >= 14 ? n - 14 + 1 : 0; p-- > 0;)
		if (!memcmp(s + p, "module", 6) && !memcmp(s + p + 7, "module.", 7))
			return s + p + 14;
	return s;
}

/* re.sub(r'^Module.model\.', '', s). */
static const char *after_module_model(const char *s)
{
	if (!strncmp(s, "Module", 6) && s[6] && !strncmp(s + 7, "model.", 6))
		return s + 13;
	return s;
}

/* The module part of a row's module_class (everything before its last dot; "" without one). */
static char *module_of(enum consist_backend b, bool train, const char *base)
{
	const char *mc;
	const char *dot;
	if (train)
		mc = after_module_module(b == CONSIST_FSDP ? after_fsdp_wrapper(base) : after_last_layer(base));
	else
		mc = after_module_model(after_last_layer(base));
	dot = strrchr(mc, '.');
	return dot ? xmemdupz(mc, (size_t)(dot - mc)) : xstrdup("");
}

static const char *const fsdp_map[][2] = {
	{ "q_proj", "qkv_proj" }, { "k_proj", "qkv_proj" }, { "v_proj", "qkv_proj" },
	{ "gate_proj", "gate_up_proj" }, { "up_proj", "gate_up_proj" },
};
static const char *const megatron_map[][2] = {
	{ "word_embeddings", "embed_tokens" }, { "self_attention", "self_attn" }, { "linear_qkv", "qkv_proj" },
	{ "q_layernorm", "q_norm" }, { "k_layernorm", "k_norm" }, { "core_attention", "attn" },
	{ "linear_proj", "o_proj" }, { "router", "gate" }, { "linear_fc1", "gate_up_proj" },
	{ "linear_fc2", "down_proj" },
};

static const char *mapped(enum consist_backend b, const char *last)
{
	if (b == CONSIST_FSDP) {
		for (size_t i = 0; i < ARRAY_SIZE(fsdp_map); i++)
			if (!strcmp(last, fsdp_map[i][0]))
				return fsdp_map[i][1];
	} else {
		for (size_t i = 0; i < ARRAY_SIZE(megatron_map); i++)
			if (!strcmp(last, megatron_map[i][0]))
				return megatron_map[i][1];
	}
	return last;
}

/*
 * msprobe's process_module_mapping over the kept rows of one side: the
 * inference side of fsdp takes the module's last part; otherwise a module
 * of two parts or more gives what follows its first part, and every row's
 * part is then looked up in the backend's table, unless no row of the side
 * has two parts, when the module stays as it is.
 */
static void map_modules(enum consist_backend b, bool train, struct crow **rows, size_t n)
{
	bool any_long = false;
	for (size_t i = 0; i < n; i++)
		any_long |= strchr(rows[i]->module, '.') != NULL;
	for (size_t i = 0; i < n; i++) {
		const char *m = rows[i]->module, *dot = strchr(m, '.');
		if (!train && b == CONSIST_FSDP) {
			const char *last = strrchr(m, '.');
			rows[i]->mapping = xstrdup(last ? last + 1 : m);
		} else if (!any_long) {
			rows[i]->mapping = xstrdup(m);
		} else {
			rows[i]->mapping = xstrdup(mapped(b, dot ? dot + 1 : m));
		}
	}
}

/* "forward.N" (or "N.forward") with N the count of earlier parsed forward calls of the name. */
static void renumber_call(struct strbuf *call, uint64_t order)
{
	char *dot = strrchr(call->buf, '.');
	struct strbuf out = STRBUF_INIT;
	if (!dot)
		return;
	*dot = '\0';
	if (is_digits(call->buf))
		strbuf_addf(&out, "%llu", (unsigned long long)order);
	else
		strbuf_addstr(&out, call->buf);
	strbuf_addch(&out, '.');
	if (is_digits(dot + 1))
		strbuf_addf(&out, "%llu", (unsigned long long)order);
	else
		strbuf_addstr(&out, dot + 1);
	strbuf_reset(call);
	strbuf_addbuf(call, &out);
	strbuf_release(&out);
}

/*
 * The rows of one (step, rank) group that msprobe parses, with their keys;
 * rows is filled with pointers in order and their count returned.
 */
static size_t key_rows(enum consist_backend b, bool train, struct crow **rows, size_t n, size_t *skipped,
		       size_t *short_names)
{
	struct strmap calls = STRMAP_INIT;
	struct strbuf base = STRBUF_INIT, call = STRBUF_INIT;
	bool flag = true, keep = false, forward = false;
	const char *entry = NULL;
	size_t kept = 0;

	for (size_t i = 0; i < n; i++) {
		struct crow *r = rows[i];
		if (!entry || strcmp(entry, r->entry)) {
			entry = r->entry;
			if (train)
				flag = parse_window(b, flag, entry, short_names);
			keep = flag && split_entry(entry, &base, &call, &forward);
			if (keep && train && forward) {
				bool created;
				struct strmap_slot *s = strmap_put(&calls, base.buf, base.len, &created);
				if (created)
					s->value.u = 0;
				renumber_call(&call, s->value.u++);
			}
		}
		if (!keep) {
			*skipped += train;
			continue;
		}
		size_t el = strlen(r->entry);
		r->call = xstrdup(call.buf);
		r->suffix = xstrdup(!strncmp(r->name, r->entry, el) ? r->name + el : r->name);
		r->layer = layer_of(base.buf);
		r->module = module_of(b, train, base.buf);
		r->pos = kept;
		rows[kept++] = r;
	}
	map_modules(b, train, rows, kept);
	strmap_release(&calls);
	strbuf_release(&base);
	strbuf_release(&call);
	return kept;
}

static void match_key(const struct crow *r, struct strbuf *out)
{
	strbuf_reset(out);
	strbuf_addf(out, "%lld:%s:%s%s", (long long)r->layer, r->mapping, r->call, r->suffix);
}

/* ---- joining and ordering --------------------------------------------------- */

struct jrow {
	size_t *t, *g;  /* indexes into the kept rows */
	size_t nt, ng, tal, gal;
	int64_t p1, p2; /* parse positions of the first of each side, -1 for none */
};

static void jrow_add(size_t **v, size_t *n, size_t *al, size_t x)
{
	ALLOC_GROW(*v, *n + 1, *al);
	(*v)[(*n)++] = x;
}

/* Rows of the other side by key: a list of indexes per key (slot u: 1 + the list's index). */
struct keyed {
	struct strmap map;
	size_t **lists;
	size_t *lens, *als;
	size_t nr, alloc;
};

static void keyed_build(struct keyed *k, struct crow **rows, size_t n)
{
	struct strbuf key = STRBUF_INIT;
	memset(k, 0, sizeof(*k));
	for (size_t i = 0; i < n; i++) {
		bool created;
		match_key(rows[i], &key);
		struct strmap_slot *s = strmap_put(&k->map, key.buf, key.len, &created);
		if (created) {
			ALLOC_GROW(k->lists, k->nr + 1, k->alloc);
			k->lens = xrealloc(k->lens, k->alloc * sizeof(*k->lens));
			k->als = xrealloc(k->als, k->alloc * sizeof(*k->als));
			k->lists[k->nr] = NULL;
			k->lens[k->nr] = k->als[k->nr] = 0;
			s->value.u = ++k->nr;
		}
		jrow_add(&k->lists[s->value.u - 1], &k->lens[s->value.u - 1], &k->als[s->value.u - 1], i);
	}
	strbuf_release(&key);
}

static const size_t *keyed_find(const struct keyed *k, const struct crow *r, size_t *n, struct strbuf *key)
{
	struct strmap_slot *s;
	match_key(r, key);
	s = strmap_find(&k->map, key->buf, key->len);
	if (!s || !k->lens || !k->lists) {
		*n = 0;
		return NULL;
	}
	*n = k->lens[s->value.u - 1];
	return k->lists[s->value.u - 1];
}

static void keyed_release(struct keyed *k)
{
	for (size_t i = 0; i < k->nr; i++)
		free(k->lists[i]);
	free(k->lists);
	free(k->lens);
	free(k->als);
	strmap_release(&k->map);
}

/*
 * The rows of the table: with fsdp one per inference row (the training
 * rows of its key joined), then the training rows no inference row took;
 * with megatron the other way round.
 */
static size_t join_rows(enum consist_backend b, struct crow **tr, size_t nt, struct crow **ir, size_t ni,
			struct jrow **out)
{
	bool fsdp = b == CONSIST_FSDP;
	struct crow **one = fsdp ? ir : tr, **many = fsdp ? tr : ir;
	size_t none = fsdp ? ni : nt, nmany = fsdp ? nt : ni, n = 0, alloc = 0;
	bool *taken = xcalloc(nmany + 1, sizeof(bool));
	struct strbuf key = STRBUF_INIT;
	struct keyed k;
	struct jrow *v = NULL;

	keyed_build(&k, many, nmany);
	for (size_t i = 0; i < none; i++) {
		size_t nm;
		const size_t *m = keyed_find(&k, one[i], &nm, &key);
		ALLOC_GROW(v, n + 1, alloc);
		struct jrow *j = &v[n++];
		memset(j, 0, sizeof(*j));
		if (fsdp)
			jrow_add(&j->g, &j->ng, &j->gal, i);
		else
			jrow_add(&j->t, &j->nt, &j->tal, i);
		for (size_t x = 0; x < nm; x++) {
			taken[m[x]] = true;
			if (fsdp)
				jrow_add(&j->t, &j->nt, &j->tal, m[x]);
			else
				jrow_add(&j->g, &j->ng, &j->gal, m[x]);
		}
	}
	for (size_t i = 0; i < nmany; i++) {
		if (taken[i])
			continue;
		ALLOC_GROW(v, n + 1, alloc);
		struct jrow *j = &v[n++];
		memset(j, 0, sizeof(*j));
		if (fsdp)
			jrow_add(&j->t, &j->nt, &j->tal, i);
		else
			jrow_add(&j->g, &j->ng, &j->gal, i);
	}
	for (size_t i = 0; i < n; i++) {
		v[i].p1 = v[i].nt ? (int64_t)tr[v[i].t[0]]->pos : -1;
		v[i].p2 = v[i].ng ? (int64_t)ir[v[i].g[0]]->pos : -1;
	}
	keyed_release(&k);
	strbuf_release(&key);
	free(taken);
	*out = v;
	return n;
}

struct ranked {
	int64_t pos; /* INT64_MAX for none: na_position="last" */
	size_t row;
};

static int by_position(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/* The rows by one side's position. */
static void sort_rows(const struct jrow *v, size_t n, bool second, size_t *order)
{
	struct ranked *r = xcalloc(n + 1, sizeof(*r));
	for (size_t x = 0; x < n; x++) {
		int64_t p = second ? v[x].p2 : v[x].p1;
		r[x] = (struct ranked){ p < 0 ? INT64_MAX : p, x };
	}
	qsort(r, n, sizeof(*r), by_position);
	for (size_t x = 0; x < n; x++)
		order[x] = r[x].row;
	free(r);
}

/*
 * msprobe's dual_monotonic_sort: take, of the smallest unused row by the
 * training position and the smallest by the inference position, the first
 * that is smallest in every position it has.  -1 when neither is.
 */
static int dual_monotonic_order(const struct jrow *v, size_t n, size_t *order)
{
	size_t *o1 = xcalloc(n + 1, sizeof(size_t)), *o2 = xcalloc(n + 1, sizeof(size_t));
	bool *used = xcalloc(n + 1, sizeof(bool));
	size_t i = 0, j = 0, k = 0;
	int ret = 0;

	sort_rows(v, n, false, o1);
	sort_rows(v, n, true, o2);
	while (k < n) {
		while (i < n && used[o1[i]])
			i++;
		while (j < n && used[o2[j]])
			j++;
		size_t cand[2] = { i < n ? o1[i] : SIZE_MAX, j < n ? o2[j] : SIZE_MAX }, picked = SIZE_MAX;
		for (int c = 0; c < 2 && picked == SIZE_MAX; c++) {
			size_t r = cand[c];
			if (r == SIZE_MAX)
				continue;
			if (v[r].p1 >= 0 && r != cand[0])
				continue;
			if (v[r].p2 >= 0 && r != cand[1])
				continue;
			picked = r;
		}
		if (picked == SIZE_MAX) {
			ret = -1;
			break;
		}
		used[picked] = true;
		order[k++] = picked;
	}
	free(o1);
	free(o2);
	free(used);
	return ret;
}

/* ---- the pair records ---------------------------------------------------------- */

static void add_leaves(struct strbuf *out, const char *member, struct crow **rows, const size_t *idx, size_t n)
{
	strbuf_addf(out, ",\"%s\":", member);
	if (!n) {
		strbuf_addstr(out, "null");
		return;
	}
	strbuf_add(out, rows[idx[0]]->text, rows[idx[0]]->len);
}

static void add_join(struct strbuf *out, const char *member, struct crow **rows, const size_t *idx, size_t n)
{
	if (n < 2)
		return;
	strbuf_addf(out, ",\"%s\":[", member);
	for (size_t i = 1; i < n; i++) {
		if (i > 1)
			strbuf_addch(out, ',');
		strbuf_add(out, rows[idx[i]]->text, rows[idx[i]]->len);
	}
	strbuf_addch(out, ']');
}

static void emit_row(enum consist_backend b, const struct jrow *j, struct crow **tr, struct crow **ir,
		     struct strbuf *key, struct strbuf *out)
{
	match_key(j->nt ? tr[j->t[0]] : ir[j->g[0]], key);
	strbuf_addstr(out, "{\"key\":");
	jsonw_string(out, key->buf, key->len);
	strbuf_addf(out, ",\"consistency\":\"%s\"", consist_backend_name(b));
	add_leaves(out, "t", tr, j->t, j->nt);
	add_leaves(out, "g", ir, j->g, j->ng);
	add_join(out, "t_join", tr, j->t, j->nt);
	add_join(out, "g_join", ir, j->g, j->ng);
	if (!j->nt || !j->ng)
		strbuf_addstr(out, ",\"partial\":true"); /* by design: msprobe keeps the rows of either side alone */
	strbuf_addstr(out, "}\n");
}

static void count_row(const struct jrow *j, struct consist_stats *st)
{
	st->rows++;
	if (j->nt && j->ng)
		st->matched++;
	else if (j->nt)
		st->train_only++;
	else
		st->infer_only++;
	st->joined += j->nt > 1 || j->ng > 1;
}

/* One (step, rank) of each side. */
static int match_group(enum consist_backend b, struct crow **tr, size_t nt, struct crow **ir, size_t ni,
		       struct strbuf *out, struct consist_stats *st, struct strbuf *err)
{
	size_t short_names = 0, none = 0;
	struct strbuf key = STRBUF_INIT;
	struct jrow *v;
	size_t n, *order;
	int ret = 0;

	nt = key_rows(b, true, tr, nt, &st->skipped, &short_names);
	ni = key_rows(b, false, ir, ni, &none, &short_names);
	if (short_names)
		warning("%zu entry names of fewer than three parts: msprobe stops parsing the training side there",
			short_names);
	n = join_rows(b, tr, nt, ir, ni, &v);
	order = xcalloc(n + 1, sizeof(size_t));
	if (dual_monotonic_order(v, n, order) < 0) {
		strbuf_addf(err, "conflicting comparison data: the rows cannot follow the training order and the "
				 "inference order at once (msprobe stops with the same ValueError); the consistency compare is "
				 "for module dumps (level L0) of a training and an inference run");
		ret = -1;
	}
	for (size_t i = 0; !ret && i < n; i++) {
		emit_row(b, &v[order[i]], tr, ir, &key, out);
		count_row(&v[order[i]], st);
	}
	for (size_t i = 0; i < n; i++) {
		free(v[i].t);
		free(v[i].g);
	}
	free(v);
	free(order);
	strbuf_release(&key);
	return ret;
}

/* The (step, rank) groups of a side, sorted: starts[k] .. starts[k + 1] in rows (pointers, in dump order). */
static size_t group_side(const struct consist_side *s, struct crow **rows, size_t *starts)
{
	size_t n = 0, ng = 0;
	bool *done = xcalloc(s->nr + 1, sizeof(bool));
	for (;;) {
		const struct crow *least = NULL;
		for (size_t i = 0; i < s->nr; i++) {
			const struct crow *c = &s->v[i];
			if (done[i])
				continue;
			if (!least || c->step < least->step || (c->step == least->step && c->rank < least->rank))
				least = c;
		}
		if (!least)
			break;
		starts[ng++] = n;
		int64_t step = least->step, rank = least->rank;
		for (size_t i = 0; i < s->nr; i++)
			if (!done[i] && s->v[i].step == step && s->v[i].rank == rank) {
				done[i] = true;
				rows[n++] = &s->v[i];
			}
	}
	starts[ng] = n;
	free(done);
	return ng;
}

int consist_match(enum consist_backend b, const struct consist_side *train, const struct consist_side *infer,
		  struct strbuf *out, struct consist_stats *stats, struct strbuf *err)
{
	struct crow **tr = xcalloc(train->nr + 1, sizeof(*tr)), **ir = xcalloc(infer->nr + 1, sizeof(*ir));
	size_t *ts = xcalloc(train->nr + 2, sizeof(size_t)), *is = xcalloc(infer->nr + 2, sizeof(size_t));
	size_t ntg = group_side(train, tr, ts), nig = group_side(infer, ir, is);
	int ret = 0;

	memset(stats, 0, sizeof(*stats));
	if (!train->nr) {
		strbuf_addstr(err, "no training leaves: nothing to compare");
		ret = -1;
	} else if (ntg != nig) {
		strbuf_addf(err, "the training side has %zu ranks (or steps), the inference side %zu: msprobe pairs "
				 "them in order and needs as many on each side", ntg, nig);
		ret = -1;
	}
	for (size_t k = 0; !ret && k < ntg; k++) {
		size_t before = stats->matched;
		ret = match_group(b, tr + ts[k], ts[k + 1] - ts[k], ir + is[k], is[k + 1] - is[k], out, stats, err);
		if (!ret && stats->matched == before) {
			strbuf_addf(err, "no training leaf of rank %lld, step %lld matches an inference leaf: is this a %s "
					 "training dump against a vLLM one?",
				    (long long)tr[ts[k]]->rank, (long long)tr[ts[k]]->step, consist_backend_name(b));
			ret = -1;
		}
	}
	free(tr);
	free(ir);
	free(ts);
	free(is);
	return ret;
}
