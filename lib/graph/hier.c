#include "hier.h"
#include "../core/msg.h"
#include "../core/source.h"
#include "../core/xalloc.h"
#include "../msprobe/naming.h"
#include "../json/json.h"

#define ROOT_NAME "DefaultModel"
#define COLLECTION_NAME "Apis_Between_Modules"

enum hier_op hier_op_of(const char *name, size_t len)
{
	/* msprobe's op_patterns, tried in order: '.' there is any character, as in its regular expressions */
	static const char *const modules[] = { "Module?", "Cell?", "optimizer", "clip_grad", ROOT_NAME };
	static const char *const apis[] = { "Tensor?", "Torch?", "Functional?", "NPU?", "VF?", "Distributed?", "Aten?",
					    "Mint?", "Primitive?", "Jit?", "MintFunctional?", "MindSpeed?" };
	const char *const *sets[] = { modules, apis };
	const size_t sizes[] = { ARRAY_SIZE(modules), ARRAY_SIZE(apis) };
	for (size_t s = 0; s < 2; s++)
		for (size_t i = 0; i < sizes[s]; i++) {
			const char *p = sets[s][i];
			size_t k = strlen(p), j;
			if (len < k)
				continue;
			for (j = 0; j < k && (p[j] == '?' || p[j] == name[j]); j++)
				;
			if (j == k)
				return s == 0 ? HIER_MODULE : HIER_API;
		}
	return HIER_MODULE;
}

int64_t hier_find(const struct hier *h, const char *name, size_t len)
{
	const struct strmap_slot *s = strmap_find(&h->by_name, name, len);
	return s ? (int64_t)s->value.u - 1 : -1;
}

static uint32_t add_node(struct hier *h, const char *name, size_t len, enum hier_op op)
{
	struct hier_node *n;
	ALLOC_GROW(h->nodes, h->n + 1, h->alloc);
	n = &h->nodes[h->n];
	memset(n, 0, sizeof(*n));
	n->name = arena_memdupz(&h->arena, name, len);
	n->name_len = len;
	n->op = op;
	n->parent = -1;
	n->order = -1;
	n->match = -1;
	n->micro_step = -1;
	strmap_put(&h->by_name, name, len, NULL)->value.u = h->n + 1;
	return (uint32_t)h->n++;
}

static void append_child(struct hier *h, uint32_t parent, uint32_t child)
{
	struct hier_node *p = &h->nodes[parent];
	ALLOC_GROW(p->sub, p->nsub + 1, p->sub_alloc);
	p->sub[p->nsub++] = child;
}

/* BaseNode.add_upnode: the first parent wins, and a node is not its own parent. */
static void attach(struct hier *h, uint32_t node, int64_t parent)
{
	if (parent < 0 || (uint32_t)parent == node || h->nodes[node].parent >= 0)
		return;
	h->nodes[node].parent = parent;
	append_child(h, (uint32_t)parent, node);
}

static ssize_t numbered_suffix(const char *name, size_t len, const char *word);
static void replace_all(struct strbuf *out, const char *s, size_t len, const char *from, const char *to);
static bool ends_with(const char *s, size_t n, const char *w);

/*
 * GraphBuilder._create_or_get_node's stack: stack.json's, or for a backward
 * node without one its forward twin's (.backward.N -> .forward.0, the same
 * module's stack whatever the call; X.backward -> X.forward), when the twin
 * exists by now; else msprobe's note.
 */
static void take_stack(struct hier *h, uint32_t k)
{
	struct hier_node *n = &h->nodes[k];
	const struct stack *s = h->stacks ? stack_map_get(h->stacks, n->name, n->name_len) : NULL;
	ssize_t at;
	if (s && s->n) {
		n->stack = s;
		return;
	}
	at = numbered_suffix(n->name, n->name_len, "backward");
	if (at >= 0 || ends_with(n->name, n->name_len, ".backward")) {
		struct strbuf twin = STRBUF_INIT;
		int64_t f;
		if (at >= 0) {
			strbuf_add(&twin, n->name, (size_t)at);
			strbuf_addstr(&twin, ".forward.0");
		} else {
			replace_all(&twin, n->name, n->name_len, "backward", "forward");
		}
		f = hier_find(h, twin.buf, twin.len);
		n = &h->nodes[k];
		if (f >= 0) {
			n->stack = h->nodes[f].stack;
			n->no_forward = h->nodes[f].no_forward;
		} else {
			n->no_forward = true;
		}
		strbuf_release(&twin);
	}
}

/* A node of construct.json, made when first named; in the Megatron form with its micro step (0 when not a key). */
static uint32_t node_of(struct hier *h, const struct strmap *micro, const char *name, size_t len)
{
	int64_t i = hier_find(h, name, len);
	uint32_t k;
	const struct strmap_slot *s;
	if (i >= 0)
		return (uint32_t)i;
	k = add_node(h, name, len, hier_op_of(name, len));
	if (h->micro_step_num >= 0)
		h->nodes[k].micro_step = (s = strmap_find(micro, name, len)) ? (int64_t)s->value.u : 0;
	take_stack(h, k);
	return k;
}

/* ---- construct.json as Python's dict ------------------------------------------------ */

struct cdict {
	const struct hier_entry **v; /* first place of each key, with its last value */
	size_t n;
	struct strmap at;            /* key -> index + 1 */
	struct strmap micro;         /* key -> micro step (the Megatron form) */
};

static void cdict_init(struct cdict *d, const struct hier_entry *e, size_t n)
{
	memset(d, 0, sizeof(*d));
	d->v = xcalloc(n ? n : 1, sizeof(*d->v));
	for (size_t i = 0; i < n; i++) {
		bool created;
		struct strmap_slot *s = strmap_put(&d->at, e[i].name, e[i].name_len, &created);
		if (created) {
			s->value.u = d->n + 1;
			d->v[d->n++] = &e[i];
		} else {
			d->v[s->value.u - 1] = &e[i];
		}
		strmap_put(&d->micro, e[i].name, e[i].name_len, NULL)->value.u = (uint64_t)e[i].micro_step;
	}
}

static void cdict_release(struct cdict *d)
{
	free(d->v);
	strmap_release(&d->at);
	strmap_release(&d->micro);
}

static bool cdict_has(const struct cdict *d, const struct strbuf *key)
{
	return strmap_find(&d->at, key->buf, key->len) != NULL;
}

/* The parent recorded for key; NULL when key is absent or its parent is null (or empty: falsy in Python). */
static const struct hier_entry *cdict_get(const struct cdict *d, const struct strbuf *key)
{
	const struct strmap_slot *s = strmap_find(&d->at, key->buf, key->len);
	const struct hier_entry *e = s ? d->v[s->value.u - 1] : NULL;
	return e && e->parent && e->parent_len ? e : NULL;
}

/* Where name ends in ".<word>.<digits>": the offset of that '.', else -1. */
static ssize_t numbered_suffix(const char *name, size_t len, const char *word)
{
	size_t k = strlen(word), i = len;
	while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
		i--;
	if (i == len || i < k + 2 || name[i - 1] != '.' || memcmp(name + i - 1 - k, word, k) || name[i - 2 - k] != '.')
		return -1;
	return (ssize_t)(i - 2 - k);
}

/* name with its ".from.N" end made ".to.N" (name as it is without one), into out. */
static void swap_suffix(struct strbuf *out, const char *name, size_t len, const char *from, const char *to)
{
	ssize_t at = numbered_suffix(name, len, from);
	strbuf_reset(out);
	if (at < 0) {
		strbuf_add(out, name, len);
		return;
	}
	strbuf_add(out, name, (size_t)at);
	strbuf_addf(out, ".%s.", to);
	strbuf_add(out, name + at + 2 + strlen(from), len - (size_t)at - 2 - strlen(from));
}

/* Python's str.replace(from, to) into out (reset first). */
static void replace_all(struct strbuf *out, const char *s, size_t len, const char *from, const char *to)
{
	strbuf_reset(out);
	strbuf_add_replacing(out, s, len, from, to);
}

static bool ends_with(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);
	return n >= k && !memcmp(s + n - k, w, k);
}

struct fix_scratch {
	struct strbuf a, b;
};

/*
 * GraphBuilder._handle_backward_upnode_missing: a backward node without a
 * parent takes its forward twin's, renamed, when construct.json has it.
 * The parent to use (in s->b) or NULL for the root.
 */
static const struct strbuf *parent_when_missing(const struct cdict *d, const struct hier_entry *e, struct fix_scratch *s)
{
	const struct hier_entry *fwd;
	if (numbered_suffix(e->name, e->name_len, "backward") >= 0) {
		swap_suffix(&s->a, e->name, e->name_len, "backward", "forward");
		if ((fwd = cdict_get(d, &s->a)) != NULL) {
			swap_suffix(&s->b, fwd->parent, fwd->parent_len, "forward", "backward");
			if (cdict_has(d, &s->b))
				return &s->b;
		}
	}
	if (ends_with(e->name, e->name_len, ".backward")) {
		replace_all(&s->a, e->name, e->name_len, "backward", "forward");
		if ((fwd = cdict_get(d, &s->a)) != NULL) {
			replace_all(&s->b, fwd->parent, fwd->parent_len, "forward", "backward");
			if (cdict_has(d, &s->b))
				return &s->b;
		}
	}
	return NULL;
}

/* The dotted parts of s before its last `drop` ones, into out; false when s has fewer than `least` parts. */
static bool leading_parts(struct strbuf *out, const char *s, size_t len, size_t least, size_t drop)
{
	size_t parts = 1, cut, seen = 0;
	for (size_t i = 0; i < len; i++)
		parts += s[i] == '.';
	if (parts < least)
		return false;
	cut = parts - drop; /* parts kept */
	strbuf_reset(out);
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '.' && ++seen == cut)
			break;
		strbuf_addch(out, s[i]);
	}
	return true;
}

/*
 * GraphBuilder._handle_backward_inplace: a backward module whose parent is
 * in another module (an inplace layer fired no backward hook) takes its
 * forward twin's parent, renamed.  The parent to use: e's own, s->b, or
 * NULL for the root.
 */
static const char *parent_when_inplace(const struct cdict *d, const struct hier_entry *e, struct fix_scratch *s,
				       size_t *len)
{
	const struct hier_entry *fwd;
	const struct strmap_slot *slot;
	*len = e->parent_len;
	if (numbered_suffix(e->name, e->name_len, "backward") < 0 ||
	    !leading_parts(&s->a, e->name, e->name_len, 5, 4) ||
	    !leading_parts(&s->b, e->parent, e->parent_len, 4, 3) ||
	    (s->a.len == s->b.len && !memcmp(s->a.buf, s->b.buf, s->a.len)))
		return e->parent;
	swap_suffix(&s->a, e->name, e->name_len, "backward", "forward");
	if (!(slot = strmap_find(&d->at, s->a.buf, s->a.len)))
		return e->parent;
	fwd = d->v[slot->value.u - 1];
	if (!fwd->parent || !fwd->parent_len)
		return NULL; /* the twin's parent is null: the root */
	swap_suffix(&s->b, fwd->parent, fwd->parent_len, "forward", "backward");
	if (!cdict_has(d, &s->b))
		return e->parent;
	*len = s->b.len;
	return s->b.buf;
}

/* GraphBuilder._init_nodes. */
static void init_nodes(struct hier *h, const struct cdict *d)
{
	struct fix_scratch s = { STRBUF_INIT, STRBUF_INIT };
	for (size_t i = 0; i < d->n; i++) {
		const struct hier_entry *e = d->v[i];
		const char *up = NULL;
		size_t up_len = 0;
		int64_t parent = 0;
		if (e->parent && e->parent_len) {
			up = parent_when_inplace(d, e, &s, &up_len);
		} else {
			const struct strbuf *fixed = parent_when_missing(d, e, &s);
			if (fixed) {
				up = fixed->buf;
				up_len = fixed->len;
			}
		}
		if (up)
			parent = node_of(h, &d->micro, up, up_len);
		attach(h, node_of(h, &d->micro, e->name, e->name_len), parent);
	}
	strbuf_release(&s.a);
	strbuf_release(&s.b);
}

/* GraphBuilder._collect_apis_between_modules: runs of 2 or more API children of the root. */
static void collect_apis_between_modules(struct hier *h)
{
	size_t n = h->nodes[0].nsub, out = 0;
	uint32_t *sub = h->nodes[0].sub, *kept = xcalloc(n ? n : 1, sizeof(*kept));
	struct strbuf name = STRBUF_INIT;
	for (size_t i = 0; i < n;) {
		size_t run = i;
		while (run < n && h->nodes[sub[run]].op == HIER_API)
			run++;
		if (run - i < 2) {
			kept[out++] = sub[i++];
			continue;
		}
		strbuf_reset(&name);
		strbuf_addf(&name, COLLECTION_NAME ".%u", h->collections++);
		uint32_t c = add_node(h, name.buf, name.len, HIER_API_COLLECTION);
		sub = h->nodes[0].sub; /* add_node may move the nodes, not the children arrays */
		h->nodes[c].parent = 0;
		h->nodes[c].micro_step = h->nodes[sub[i]].micro_step;
		for (; i < run; i++) {
			append_child(h, c, sub[i]);
			h->nodes[sub[i]].parent = c;
		}
		kept[out++] = c;
	}
	if (out) /* a root without children has no array to copy into */
		memcpy(h->nodes[0].sub, kept, out * sizeof(*kept));
	h->nodes[0].nsub = out;
	free(kept);
	strbuf_release(&name);
}

/* A dump entry <prefix>.parameters_grad[.N]: the length of prefix, or -1. */
static ssize_t params_grad_prefix(const char *s, size_t len)
{
	static const char word[] = ".parameters_grad";
	size_t k = sizeof(word) - 1, i = len;
	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i < len && i > 0 && s[i - 1] == '.' && i - 1 >= k && !memcmp(s + i - 1 - k, word, k))
		return (ssize_t)(i - 1 - k);
	if (len >= k && !memcmp(s + len - k, word, k))
		return (ssize_t)(len - k);
	return -1;
}

/* GraphBuilder._add_parameters_grad. */
static void add_parameters_grad(struct hier *h, const char *const *entries, const size_t *lens, size_t n)
{
	struct strmap prefixes = STRMAP_INIT; /* prefix -> its group + 1 */
	struct group {
		const char *prefix;
		size_t prefix_len;
		uint64_t highest;
		size_t count, at; /* its entries: byg[at .. at + count) */
	} *groups = NULL;
	size_t ngroups = 0, galloc = 0;
	size_t *gid = xcalloc(n ? n : 1, sizeof(*gid)), *byg = xcalloc(n ? n : 1, sizeof(*byg));
	struct strbuf id = STRBUF_INIT;

	/* the entries that are not nodes, grouped by prefix in the order the prefixes come */
	for (size_t i = 0; i < n; i++) {
		ssize_t p;
		bool created;
		struct strmap_slot *s;
		gid[i] = 0;
		if (hier_find(h, entries[i], lens[i]) >= 0 || (p = params_grad_prefix(entries[i], lens[i])) < 0)
			continue;
		s = strmap_put(&prefixes, entries[i], (size_t)p, &created);
		if (created) {
			ALLOC_GROW(groups, ngroups + 1, galloc);
			groups[ngroups] = (struct group){ entries[i], (size_t)p, 0, 0, 0 };
			s->value.u = ++ngroups;
		}
		gid[i] = s->value.u;
		groups[gid[i] - 1].count++;
	}
	for (size_t g = 0, at = 0; g < ngroups; at += groups[g++].count)
		groups[g].at = at;
	for (size_t g = 0; g < ngroups; g++)
		groups[g].count = 0;
	for (size_t i = 0; i < n; i++)
		if (gid[i]) {
			struct group *gr = &groups[gid[i] - 1];
			byg[gr->at + gr->count++] = i;
		}
	/* the highest N of each prefix's <prefix>.backward.N nodes (0 when none) */
	for (size_t k = 0; k < h->n && ngroups; k++) {
		const struct hier_node *nd = &h->nodes[k];
		ssize_t at = numbered_suffix(nd->name, nd->name_len, "backward");
		const struct strmap_slot *s;
		uint64_t num = 0;
		if (at < 0 || !(s = strmap_find(&prefixes, nd->name, (size_t)at)))
			continue;
		for (size_t j = (size_t)at + 10; j < nd->name_len; j++)
			num = num > (UINT64_MAX - 9) / 10 ? UINT64_MAX : num * 10 + (uint64_t)(nd->name[j] - '0');
		if (num > groups[s->value.u - 1].highest)
			groups[s->value.u - 1].highest = num;
	}
	for (size_t g = 0; g < ngroups; g++) {
		int64_t owner;
		strbuf_reset(&id);
		strbuf_add(&id, groups[g].prefix, groups[g].prefix_len);
		strbuf_addf(&id, ".backward.%llu", (unsigned long long)groups[g].highest);
		if ((owner = hier_find(h, id.buf, id.len)) < 0)
			continue; /* no backward node to hang them on: dropped, as msprobe drops them */
		for (size_t m = 0; m < groups[g].count; m++) {
			size_t e = byg[groups[g].at + m];
			if (hier_find(h, entries[e], lens[e]) < 0) /* a key dump.json gives twice */
				attach(h, add_node(h, entries[e], lens[e], HIER_MODULE), owner);
		}
	}
	free(gid);
	free(byg);
	free(groups);
	strmap_release(&prefixes);
	strbuf_release(&id);
}

/* ---- Megatron's recomputation (GraphBuilder._handle_recompute) ------------------------- */

static size_t memchr_count(const char *s, size_t n, char c)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += s[i] == c;
	return k;
}

struct pframe {
	char *file, *func; /* NULL: the frame did not parse (msprobe skips it) */
};

static char *trimmed(const char *s, const char *e)
{
	while (s < e && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		e--;
	return xmemdupz(s, (size_t)(e - s));
}

/* stack_str.strip().replace("File ", ""); the path before ", line ", the function after ", in " up to a comma. */
static void parse_frame(const char *text, struct pframe *out)
{
	struct strbuf f = STRBUF_INIT;
	const char *t = text, *end = t + strlen(t), *line, *in, *comma;
	char *body;
	body = trimmed(t, end);
	for (const char *q = body; *q;) {
		if (!strncmp(q, "File ", 5)) {
			q += 5;
			continue;
		}
		strbuf_addch(&f, *q++);
	}
	free(body);
	out->file = out->func = NULL;
	if ((in = strstr(f.buf, ", in "))) {
		line = strstr(f.buf, ", line ");
		comma = strchr(in + 5, ',');
		out->file = trimmed(f.buf, line ? line : f.buf + f.len);
		out->func = trimmed(in + 5, comma ? comma : f.buf + f.len);
	}
	strbuf_release(&f);
}

static bool file_ends(const struct pframe *f, const char *w)
{
	size_t n = strlen(f->file), k = strlen(w);
	return n >= k && !memcmp(f->file + n - k, w, k);
}

/* _is_recompute_by_stack_torch: a recompute_fn frame of torch's checkpoint, or a backward that autograd called. */
static bool recomputed_by_stack(const struct stack *st)
{
	struct pframe *p;
	size_t n = 0;
	bool yes = false;
	if (!st || !st->n)
		return false;
	p = xcalloc(st->n, sizeof(*p));
	for (size_t i = 0; i < st->n; i++) {
		parse_frame(st->frames[i], &p[n]);
		if (p[n].func)
			n++;
	}
	for (size_t i = 0; i < n && !yes; i++)
		yes = !strcmp(p[i].func, "recompute_fn") && file_ends(&p[i], "torch/utils/checkpoint.py");
	for (size_t i = 0; i < n && !yes; i++) {
		if (strcmp(p[i].func, "backward") &&
		    !(!strcmp(p[i].func, "checkpoint_function_backward") && strstr(p[i].file, "megatron")))
			continue;
		yes = (i + 1 < n && file_ends(&p[i + 1], "torch/autograd/function.py")) ||
		      (i + 2 < n && file_ends(&p[i + 2], "torch/autograd/function.py"));
	}
	for (size_t i = 0; i < n; i++) {
		free(p[i].file);
		free(p[i].func);
	}
	free(p);
	return yes;
}


/* The dotted segments of a name: their starts and lengths (at most max). */
static size_t segments(const char *name, size_t len, const char **seg, size_t *seg_len, size_t max)
{
	size_t k = 0;
	const char *p = name, *end = name + len;
	while (k < max) {
		const char *dot = memchr(p, '.', (size_t)(end - p));
		seg[k] = p;
		seg_len[k] = dot ? (size_t)(dot - p) : (size_t)(end - p);
		k++;
		if (!dot)
			break;
		p = dot + 1;
	}
	return k;
}

/* _is_recompute_node_id: a top-level layer not named Module.{n}.name.{n}.Class.forward.N is a recomputed one. */
static bool recompute_name(const char **seg, const size_t *seg_len, size_t n)
{
	if (n > 7)
		return true;
	if (n == 7)
		return !(naming_all_digits(seg[1], seg_len[1]) && naming_all_digits(seg[3], seg_len[3]));
	if (n == 6)
		return !naming_all_digits(seg[1], seg_len[1]);
	return false;
}

/* _get_recompute_map: the root's children that are recomputed layers, each with its name prefix. */
struct recomputed {
	uint32_t node;
	size_t index;     /* among the root's children */
	size_t prefix_len;
	bool forward;
};

static size_t recompute_map(struct hier *h, struct recomputed *out)
{
	const struct hier_node *root = &h->nodes[0];
	struct strmap cache = STRMAP_INIT, root_ids = STRMAP_INIT;
	struct strbuf id = STRBUF_INIT;
	size_t n = 0;
	for (size_t i = 0; i < root->nsub; i++) {
		const struct hier_node *c = &h->nodes[root->sub[i]];
		strmap_put(&root_ids, c->name, c->name_len, NULL);
	}
	for (size_t i = 0; i < root->nsub; i++) {
		uint32_t k = root->sub[i];
		const struct hier_node *c = &h->nodes[k];
		const char *seg[64];
		size_t seg_len[64], ns, prefix_len;
		ssize_t at;
		if (hier_op_of(c->name, c->name_len) != HIER_MODULE)
			continue;
		if (!h->mindspore) {
			const struct stack *st;
			strbuf_reset(&id);
			if ((at = numbered_suffix(c->name, c->name_len, "backward")) >= 0) {
				strbuf_add(&id, c->name, (size_t)at);
				strbuf_addstr(&id, ".forward.");
				strbuf_add(&id, c->name + at + 10, c->name_len - (size_t)at - 10);
			} else {
				strbuf_add(&id, c->name, c->name_len);
			}
			st = h->stacks ? stack_map_get(h->stacks, id.buf, id.len) : NULL;
			if (!recomputed_by_stack(st))
				continue;
		}
		if (memchr_count(c->name, c->name_len, '.') >= ARRAY_SIZE(seg))
			continue; /* (no module name has so many parts) */
		ns = segments(c->name, c->name_len, seg, seg_len, ARRAY_SIZE(seg));
		if (ns < 2)
			continue;
		prefix_len = ns >= 3 ? (size_t)(seg[ns - 2] - c->name - 1) : 0;
		if (!strmap_find(&cache, c->name, c->name_len)) {
			bool fwd;
			if (!recompute_name(seg, seg_len, ns))
				continue;
			fwd = seg_len[ns - 2] == 7 && !memcmp(seg[ns - 2], "forward", 7);
			/* a recomputed layer comes as a forward and backward pair */
			strbuf_reset(&id);
			strbuf_add(&id, c->name, (size_t)(seg[ns - 2] - c->name));
			strbuf_addstr(&id, fwd ? "backward" : "forward");
			strbuf_add(&id, seg[ns - 2] + seg_len[ns - 2], c->name_len - (size_t)(seg[ns - 2] + seg_len[ns - 2] - c->name));
			if (!strmap_find(&root_ids, id.buf, id.len))
				continue;
			strmap_put(&cache, id.buf, id.len, NULL);
		}
		out[n].node = k;
		out[n].index = i;
		out[n].prefix_len = prefix_len;
		out[n].forward = numbered_suffix(c->name, c->name_len, "forward") >= 0;
		n++;
	}
	strmap_release(&cache);
	strmap_release(&root_ids);
	strbuf_release(&id);
	return n;
}

static bool is_ancestor(const struct hier *h, uint32_t node, int64_t of)
{
	for (int64_t a = h->nodes[of].parent; a >= 0; a = h->nodes[a].parent)
		if ((uint32_t)a == node)
			return true;
	return false;
}

/*
 * _handle_recompute: each recomputed layer at the root moves under the
 * backward twin of the parent of the first (then the next) layer of its
 * prefix that is not at the root, forwards and backwards each taking those
 * layers in order.
 */
static void handle_recompute(struct hier *h)
{
	struct recomputed *rc = xcalloc(h->nodes[0].nsub + 1, sizeof(*rc));
	size_t nrc = recompute_map(h, rc), ndel = 0;
	size_t *del = xcalloc(nrc + 1, sizeof(*del));
	struct strmap fwd_next = STRMAP_INIT, bwd_next = STRMAP_INIT;
	struct strbuf up = STRBUF_INIT;
	/* _get_no_recompute_map, before anything moves: module forwards that are not at the root */
	bool *layer_ok = xcalloc(h->n + 1, sizeof(*layer_ok));
	for (size_t k = 0; k < h->n; k++) {
		const struct hier_node *x = &h->nodes[k];
		layer_ok[k] = x->parent > 0 && hier_op_of(x->name, x->name_len) == HIER_MODULE &&
			      numbered_suffix(x->name, x->name_len, "forward") >= 0;
	}
	for (size_t i = 0; i < nrc; i++) {
		const struct hier_node *c = &h->nodes[rc[i].node];
		struct strmap *next = rc[i].forward ? &fwd_next : &bwd_next;
		struct strmap_slot *pos = strmap_put(next, c->name, rc[i].prefix_len, NULL);
		int64_t layer = -1, parent;
		ssize_t at;
		/* the layers of the prefix, in creation order, not at the root: take the next */
		for (size_t k = pos->value.u; k < h->n; k++) {
			const struct hier_node *x = &h->nodes[k];
			if (!layer_ok[k] || (at = numbered_suffix(x->name, x->name_len, "forward")) < 0 ||
			    (size_t)at != rc[i].prefix_len || memcmp(x->name, c->name, rc[i].prefix_len))
				continue;
			layer = (int64_t)k;
			break;
		}
		if (layer < 0) {
			pos->value.u = h->n;
			continue;
		}
		pos->value.u = (uint64_t)layer + 1;
		/* its parent's backward twin */
		{
			const struct hier_node *p = &h->nodes[h->nodes[layer].parent];
			strbuf_reset(&up);
			if ((at = numbered_suffix(p->name, p->name_len, "forward")) >= 0) {
				strbuf_add(&up, p->name, (size_t)at);
				strbuf_addstr(&up, ".backward.");
				strbuf_add(&up, p->name + at + 9, p->name_len - (size_t)at - 9);
			} else {
				strbuf_add(&up, p->name, p->name_len);
			}
		}
		if ((parent = hier_find(h, up.buf, up.len)) < 0 || is_ancestor(h, rc[i].node, parent) ||
		    (uint32_t)parent == rc[i].node)
			continue;
		h->nodes[rc[i].node].parent = parent;
		append_child(h, (uint32_t)parent, rc[i].node);
		del[ndel++] = rc[i].index;
	}
	/* off the root's children, from the back */
	for (size_t k = ndel; k > 0; k--) {
		struct hier_node *root = &h->nodes[0];
		size_t at = del[k - 1];
		memmove(&root->sub[at], &root->sub[at + 1], (root->nsub - at - 1) * sizeof(*root->sub));
		root->nsub--;
	}
	strmap_release(&fwd_next);
	strmap_release(&bwd_next);
	strbuf_release(&up);
	free(layer_ok);
	free(del);
	free(rc);
}

/* Graph.get_sorted_nodes: post-order from the root, each node once. */
static void sort_nodes(struct hier *h)
{
	struct frame {
		uint32_t node;
		bool processed;
	} *stack = NULL;
	size_t depth = 0, alloc = 0;
	h->sorted = xcalloc(h->n ? h->n : 1, sizeof(*h->sorted));
	h->nsorted = 0;
	ALLOC_GROW(stack, 1, alloc);
	stack[depth++] = (struct frame){ 0, false };
	while (depth) {
		struct frame f = stack[--depth];
		struct hier_node *nd = &h->nodes[f.node];
		if (nd->order >= 0)
			continue;
		if (f.processed) {
			nd->order = (int64_t)h->nsorted;
			h->sorted[h->nsorted++] = f.node;
			continue;
		}
		ALLOC_GROW(stack, depth + 1 + nd->nsub, alloc);
		stack[depth++] = (struct frame){ f.node, true };
		for (size_t i = nd->nsub; i > 0; i--)
			if (h->nodes[nd->sub[i - 1]].order < 0)
				stack[depth++] = (struct frame){ nd->sub[i - 1], false };
	}
	free(stack);
}

static void build(struct hier *h, const struct hier_entry *construct, size_t n, int64_t micro_step_num,
		  const char *const *entries, const size_t *entry_lens, size_t nentries, const struct stack_map *stacks,
		  bool mindspore)
{
	struct cdict d;
	memset(h, 0, sizeof(*h));
	h->mindspore = mindspore;
	h->micro_step_num = micro_step_num;
	h->stacks = stacks;
	add_node(h, ROOT_NAME, strlen(ROOT_NAME), HIER_MODULE);
	cdict_init(&d, construct, n);
	init_nodes(h, &d);
	handle_recompute(h);
	collect_apis_between_modules(h);
	add_parameters_grad(h, entries, entry_lens, nentries);
	sort_nodes(h);
	cdict_release(&d);
}

void hier_build(struct hier *h, const struct hier_entry *construct, size_t n, int64_t micro_step_num,
		const char *const *entries, const size_t *entry_lens, size_t nentries, const struct stack_map *stacks)
{
	build(h, construct, n, micro_step_num, entries, entry_lens, nentries, stacks, false);
}

int hier_check(const struct hier *h, const char *what, struct strbuf *err)
{
	for (size_t i = 1; i < h->n; i++) {
		const struct hier_node *n = &h->nodes[i];
		int64_t slow = (int64_t)i, fast = (int64_t)i;
		if (n->order >= 0)
			continue;
		/* Floyd's walk up the parents: a cycle, or a top that is not the root */
		while (fast >= 0 && h->nodes[fast].parent >= 0) {
			fast = h->nodes[h->nodes[fast].parent].parent;
			slow = h->nodes[slow].parent;
			if (fast >= 0 && fast == slow)
				return msg_fail(err, what, "node %s: its parents form a cycle (through %s), so it never reaches "
							   "the root", n->name, h->nodes[slow].name);
		}
		for (slow = (int64_t)i; h->nodes[slow].parent >= 0; slow = h->nodes[slow].parent)
			;
		return msg_fail(err, what, "node %s: its parent %s is named but never given a parent of its own, so it "
					   "never reaches the root (msprobe leaves such nodes out of its graph)",
				n->name, h->nodes[slow].name);
	}
	return 0;
}

void hier_release(struct hier *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->nodes[i].sub);
	free(h->nodes);
	free(h->sorted);
	arena_release(&h->arena);
	strmap_release(&h->by_name);
	stack_map_free(h->owned_stacks);
	memset(h, 0, sizeof(*h));
}

void hier_stack_json(const struct hier *h, uint32_t node, struct strbuf *out)
{
	const struct hier_node *n = &h->nodes[node];
	size_t len;
	if (n->stack && n->stack->n)
		strbuf_addstr(out, stack_json(h->stacks, n->stack, &len));
	else if (n->no_forward)
		strbuf_addstr(out, "[\"This backward node cannot find the forward node and cannot retrieve stack information.\"]");
	else
		strbuf_addstr(out, "[]");
}

/* ---- two hierarchies ---------------------------------------------------------------- */

/* Whether a's and b's ancestors have the same names, all the way up. */
static bool same_ancestors(const struct hier *ha, int64_t a, const struct hier *hb, int64_t b)
{
	a = ha->nodes[a].parent;
	b = hb->nodes[b].parent;
	while (a >= 0 && b >= 0) {
		const struct hier_node *x = &ha->nodes[a], *y = &hb->nodes[b];
		if (x->name_len != y->name_len || memcmp(x->name, y->name, x->name_len))
			return false;
		a = x->parent;
		b = y->parent;
	}
	return a < 0 && b < 0;
}

size_t hier_match(struct hier *target, struct hier *golden)
{
	size_t matched = 0;
	for (size_t i = 0; i < target->nsorted; i++) {
		uint32_t t = target->sorted[i];
		const struct hier_node *n = &target->nodes[t];
		int64_t g = hier_find(golden, n->name, n->name_len);
		/* a golden node the root does not reach has ancestors that end before the root's */
		if (g < 0 || golden->nodes[g].order < 0 || !same_ancestors(target, t, golden, g))
			continue;
		target->nodes[t].match = g;
		golden->nodes[g].match = t;
		matched++;
	}
	return matched;
}

/* msprobe's recount key of an API: ".<digits>." made "." throughout (left to right), "_rank<digits>" removed. */
static void fuzzy_key(const char *name, size_t len, struct strbuf *out)
{
	struct strbuf a = STRBUF_INIT;
	size_t i = 0;
	while (i < len) {
		size_t j = i + 1;
		if (name[i] == '.') {
			while (j < len && name[j] >= '0' && name[j] <= '9')
				j++;
			if (j > i + 1 && j < len && name[j] == '.') {
				strbuf_addch(&a, '.');
				i = j + 1;
				continue;
			}
		}
		strbuf_addch(&a, name[i]);
		i++;
	}
	strbuf_reset(out);
	for (i = 0; i < a.len;) {
		if (a.len - i > 5 && !memcmp(a.buf + i, "_rank", 5) && a.buf[i + 5] >= '0' && a.buf[i + 5] <= '9') {
			i += 5;
			while (i < a.len && a.buf[i] >= '0' && a.buf[i] <= '9')
				i++;
			continue;
		}
		strbuf_addch(out, a.buf[i++]);
	}
	strbuf_release(&a);
}

/* The API children of a node by recount key (key + occurrence number) -> child index + 1. */
static void recount_apis(const struct hier *h, uint32_t node, struct strmap *out)
{
	struct strmap counts = STRMAP_INIT;
	struct strbuf key = STRBUF_INIT;
	const struct hier_node *n = &h->nodes[node];
	for (size_t c = 0; c < n->nsub; c++) {
		const struct hier_node *k = &h->nodes[n->sub[c]];
		struct strmap_slot *slot;
		if (k->op != HIER_API)
			continue;
		fuzzy_key(k->name, k->name_len, &key);
		slot = strmap_put(&counts, key.buf, key.len, NULL);
		slot->value.u++;
		strbuf_addu(&key, slot->value.u);
		slot = strmap_put(out, key.buf, key.len, NULL);
		slot->value.u = n->sub[c] + 1;
	}
	strmap_release(&counts);
	strbuf_release(&key);
}

size_t hier_match_fuzzy(struct hier *target, struct hier *golden)
{
	uint32_t *queue = xcalloc(target->n + 1, sizeof(*queue));
	size_t head = 0, tail = 0, matched = 0;
	queue[tail++] = 0;
	while (head < tail) {
		uint32_t t = queue[head++];
		struct hier_node *n = &target->nodes[t];
		for (size_t c = 0; c < n->nsub && tail < target->n + 1; c++)
			queue[tail++] = n->sub[c];
		if (n->op == HIER_API || n->order < 0)
			continue;
		int64_t g = hier_find(golden, n->name, n->name_len);
		if (g < 0 || golden->nodes[g].order < 0)
			continue;
		n->match = g;
		golden->nodes[g].match = t;
		matched++;
		struct strmap tn = STRMAP_INIT, gn = STRMAP_INIT;
		recount_apis(target, t, &tn);
		recount_apis(golden, (uint32_t)g, &gn);
		for (size_t k = 0; k < tn.cap; k++) {
			const struct strmap_slot *ts = &tn.slots[k];
			struct strmap_slot *gs;
			if (!ts->hash || !(gs = strmap_find(&gn, ts->key, ts->key_len)))
				continue;
			target->nodes[ts->value.u - 1].match = (int64_t)gs->value.u - 1;
			golden->nodes[gs->value.u - 1].match = (int64_t)ts->value.u - 1;
			matched++;
		}
		strmap_release(&tn);
		strmap_release(&gn);
	}
	free(queue);
	return matched;
}

size_t hier_match_mapped(struct hier *target, struct hier *golden, hier_map_fn *map, void *ctx)
{
	size_t matched = 0;
	for (size_t i = 0; i < target->nsorted; i++) {
		uint32_t t = target->sorted[i];
		struct hier_node *n = &target->nodes[t];
		const char *to = map(ctx, n->name, n->name_len);
		int64_t g = to ? hier_find(golden, to, strlen(to)) : hier_find(golden, n->name, n->name_len);
		if (g < 0 || golden->nodes[g].order < 0)
			continue;
		n->match = g;
		golden->nodes[g].match = t;
		matched++;
	}
	return matched;
}

/* Children take their parent's micro step where they have none (from the root down, in order). */
static void inherit_micro_steps(struct hier *h)
{
	for (size_t i = h->nsorted; i > 0; i--) {
		struct hier_node *n = &h->nodes[h->sorted[i - 1]];
		for (size_t k = 0; k < n->nsub; k++) {
			struct hier_node *c = &h->nodes[n->sub[k]];
			if (c->micro_step < 0)
				c->micro_step = n->micro_step;
		}
	}
}

static bool has_forward_part(const struct hier_node *n)
{
	for (size_t i = 0; i + 9 <= n->name_len; i++)
		if (!memcmp(n->name + i, ".forward.", 9))
			return true;
	return false;
}

size_t hier_micro_steps(struct hier *target, struct hier *golden)
{
	const struct hier_node *root = &target->nodes[0];
	int64_t step = 0;
	bool backward = false;
	if (target->micro_step_num >= 0)
		return (size_t)target->micro_step_num + 1; /* msprobe returns before it sets anything */
	for (size_t k = 0; k < root->nsub; k++) {
		struct hier_node *n = &target->nodes[root->sub[k]];
		if (n->op == HIER_MODULE) {
			if (!has_forward_part(n))
				backward = true;
			else if (backward) {
				step++;
				backward = false;
			}
		}
		n->micro_step = step;
		if (golden && n->match >= 0)
			golden->nodes[n->match].micro_step = step;
	}
	inherit_micro_steps(target);
	if (golden) {
		const struct hier_node *groot = &golden->nodes[0];
		for (size_t k = 0; k < groot->nsub; k++) {
			struct hier_node *n = &golden->nodes[groot->sub[k]];
			const char *end = n->name + n->name_len, *dot = end;
			while (dot > n->name && dot[-1] != '.')
				dot--;
			const char *p = dot, *start = dot;
			int64_t v = 0;
			if (n->micro_step >= 0)
				continue;
			/* Python's int() of the last dotted part; anything but digits is 0 here */
			for (; p < end && *p >= '0' && *p <= '9' && v < INT64_MAX / 10; p++)
				v = v * 10 + (*p - '0');
			n->micro_step = p == end && end > start ? v : 0;
		}
		inherit_micro_steps(golden);
	}
	return (size_t)step + 1;
}

/* ---- the files ------------------------------------------------------------------------- */

struct loaded {
	struct arena arena;
	bool mindspore;         /* dump.json's framework */
	int64_t micro_step_num; /* megatron_micro_step_number, -1 without one */
	struct hier_entry *construct;
	size_t nconstruct, calloc;
	const char **entries;
	size_t *lens, nentries, ealloc;
};

static char *keep(struct loaded *l, const struct json_token *t)
{
	return arena_memdupz(&l->arena, t->text, t->len);
}

/* One construct.json value: a name, null, or [name or null, micro step]. */
static int read_parent(struct json_reader *r, struct loaded *l, struct hier_entry *e)
{
	struct json_token t;
	enum json_type type = json_reader_next(r, &t);
	bool list = type == JSON_ARRAY_BEGIN;
	if (list)
		type = json_reader_next(r, &t);
	if (type == JSON_STRING) {
		e->parent = keep(l, &t);
		e->parent_len = t.len;
	} else if (type != JSON_NULL) {
		return type == JSON_ERROR ? -1 : json_reader_fail_at(r, &t, "the parent of %s is %s, expected a node name, null "
									      "or [parent, micro step]",
								   e->name, json_type_name(type));
	}
	if (list) {
		if ((type = json_reader_next(r, &t)) != JSON_NUMBER || t.nonfinite)
			return type == JSON_ERROR ? -1 : json_reader_fail_at(r, &t, "the micro step of %s is %s, expected a number",
									   e->name, json_type_name(type));
		e->micro_step = strtoll(t.text, NULL, 10);
		if ((type = json_reader_next(r, &t)) != JSON_ARRAY_END)
			return type == JSON_ERROR ? -1 : json_reader_fail_at(r, &t, "the value of %s holds more than "
										      "[parent, micro step]", e->name);
	}
	return 0;
}

static int read_construct(struct json_reader *r, struct loaded *l)
{
	struct json_token t;
	enum json_type type = json_reader_next(r, &t);
	if (type != JSON_OBJECT_BEGIN)
		return type == JSON_ERROR ? -1 : json_reader_fail_at(r, &t, "expected an object of node names, found %s",
								   json_type_name(type));
	while ((type = json_reader_next(r, &t)) == JSON_KEY) {
		struct hier_entry *e;
		if (t.len == 26 && !memcmp(t.text, "megatron_micro_step_number", 26)) {
			if ((type = json_reader_next(r, &t)) != JSON_NUMBER || t.nonfinite)
				return type == JSON_ERROR ? -1 : json_reader_fail_at(r, &t, "megatron_micro_step_number is %s, "
											      "expected a number", json_type_name(type));
			l->micro_step_num = strtoll(t.text, NULL, 10);
			if (l->micro_step_num < 0)
				return json_reader_fail_at(r, &t, "megatron_micro_step_number is negative");
			continue;
		}
		ALLOC_GROW(l->construct, l->nconstruct + 1, l->calloc);
		e = &l->construct[l->nconstruct++];
		memset(e, 0, sizeof(*e));
		e->name = keep(l, &t);
		e->name_len = t.len;
		if (read_parent(r, l, e) < 0)
			return -1;
	}
	return type == JSON_OBJECT_END ? 0 : -1;
}

static int skip_value(struct json_reader *r)
{
	struct json_token t;
	enum json_type type = json_reader_next(r, &t);
	if (type == JSON_ERROR)
		return -1;
	return type == JSON_OBJECT_BEGIN || type == JSON_ARRAY_BEGIN ? json_reader_skip(r) : 0;
}

/* dump.json's "data" keys, in order; the values skipped. */
static int read_dump_entries(struct json_reader *r, struct loaded *l)
{
	struct json_token t;
	enum json_type type = json_reader_next(r, &t);
	if (type != JSON_OBJECT_BEGIN)
		return type == JSON_ERROR ? -1 : json_reader_fail_at(r, &t, "expected a dump object, found %s",
								   json_type_name(type));
	while ((type = json_reader_next(r, &t)) == JSON_KEY) {
		if (t.len == 9 && !memcmp(t.text, "framework", 9)) {
			if ((type = json_reader_next(r, &t)) == JSON_ERROR)
				return -1;
			l->mindspore = type == JSON_STRING && t.len == 9 && !memcmp(t.text, "mindspore", 9);
			if ((type == JSON_OBJECT_BEGIN || type == JSON_ARRAY_BEGIN) && json_reader_skip(r) < 0)
				return -1;
			continue;
		}
		if (!(t.len == 4 && !memcmp(t.text, "data", 4))) {
			if (skip_value(r) < 0)
				return -1;
			continue;
		}
		if ((type = json_reader_next(r, &t)) != JSON_OBJECT_BEGIN)
			return type == JSON_ERROR ? -1 : json_reader_fail_at(r, &t, "\"data\" is %s, expected an object",
									   json_type_name(type));
		while ((type = json_reader_next(r, &t)) == JSON_KEY) {
			if (l->nentries == l->ealloc) { /* the two arrays grow together */
				ALLOC_GROW(l->entries, l->nentries + 1, l->ealloc);
				l->lens = xrealloc(l->lens, l->ealloc * sizeof(*l->lens));
			}
			l->entries[l->nentries] = keep(l, &t);
			l->lens[l->nentries++] = t.len;
			if (skip_value(r) < 0)
				return -1;
		}
		if (type != JSON_OBJECT_END)
			return -1;
	}
	return type == JSON_OBJECT_END ? 0 : -1;
}

static int read_file(const char *path, int (*read)(struct json_reader *, struct loaded *), struct loaded *l,
		     struct strbuf *err)
{
	struct source *src = strcmp(path, "-") ? source_open_regular(path, err) : source_open(path, err);
	struct json_reader r;
	int ret;
	if (!src)
		return PROBE_ERR;
	json_reader_init(&r, src, 0, 0);
	ret = read(&r, l);
	if (ret == 0) {
		struct json_token t;
		enum json_type type = json_reader_next(&r, &t);
		if (type != JSON_EOF)
			ret = type == JSON_ERROR ? -1 : json_reader_fail_at(&r, &t, "more after the top-level object");
	}
	if (ret < 0) {
		const char *why = json_reader_error(&r);
		strbuf_addstr(err, *why ? why : path);
	}
	json_reader_release(&r);
	source_close(src);
	return ret < 0 ? PROBE_ERR : 0;
}

int hier_load(struct hier *h, const char *construct_path, const char *dump_path, const char *stack_path,
	      struct strbuf *err)
{
	struct loaded l;
	struct stack_map *stacks = NULL;
	int ret = PROBE_ERR;
	memset(&l, 0, sizeof(l));
	l.micro_step_num = -1;
	memset(h, 0, sizeof(*h));
	if (read_file(construct_path, read_construct, &l, err) < 0 || read_file(dump_path, read_dump_entries, &l, err) < 0)
		goto out;
	if (stack_path && !(stacks = stack_map_load(stack_path, err)))
		goto out;
	if (!l.nconstruct) {
		msg_fail(err, construct_path, "no node: the hierarchy needs a dump of level L0 or mix (construct.json is "
					      "empty at level L1)");
		goto out;
	}
	build(h, l.construct, l.nconstruct, l.micro_step_num, l.entries, l.lens, l.nentries, stacks, l.mindspore);
	h->owned_stacks = stacks;
	stacks = NULL;
	ret = 0;
out:
	stack_map_free(stacks);
	free(l.construct);
	free(l.entries);
	free(l.lens);
	arena_release(&l.arena);
	return ret;
}
