/* layermap.c: msprobe's layer mapping (see layermap.h). */
#include "layermap.h"

#include "../core/arena.h"
#include "../core/strmap.h"
#include "../core/xalloc.h"
#include "../dumps/construct.h"
#include "../dumps/dump.h"
#include "../dumps/stack.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#define TOP_LAYER "TopLayer"

/* ---- the rule file ---- */

struct layer_rule {
	char *type;    /* module class ("TopLayer" for the file's "Cell") */
	char *prefix;  /* the first name of origin */
	char *origin;  /* "a" or "a.b.c" */
	char *target;  /* the golden's name(s) */
	int level;     /* names in origin */
};

struct layer_rules {
	struct layer_rule *v;
	size_t nr, alloc;
};

static char *scalar_dup(const yaml_node_t *n)
{
	return xmemdupz(n->data.scalar.value, n->data.scalar.length);
}

static void *rules_fail(struct strbuf *err, const char *path, const yaml_node_t *n, const char *what)
{
	strbuf_addf(err, "%s:%zu:%zu: %s", path, n->start_mark.line + 1, n->start_mark.column + 1, what);
	return NULL;
}

static void add_rule(struct layer_rules *r, const char *type, const yaml_node_t *k, const yaml_node_t *v)
{
	struct layer_rule *x;
	const char *dot, *paren;
	ALLOC_GROW(r->v, r->nr + 1, r->alloc);
	x = &r->v[r->nr++];
	x->type = xstrdup(type);
	x->origin = scalar_dup(k);
	dot = strchr(x->origin, '.');
	x->prefix = dot ? xmemdupz(x->origin, (size_t)(dot - x->origin)) : xstrdup(x->origin);
	x->level = 1;
	for (const char *p = x->origin; (p = strchr(p, '.')); p++)
		x->level++;
	x->target = scalar_dup(v);
	paren = strchr(x->target, '(');
	if (paren)
		x->target[paren - x->target] = '\0';
}

/* One class's renames; "Cell" is the top layer (the old name of TopLayer). */
static bool load_class(struct layer_rules *r, yaml_document_t *doc, const yaml_node_t *key, const yaml_node_t *val,
		       const char *path, struct strbuf *err)
{
	const char *type;
	char *owned;
	if (key->type != YAML_SCALAR_NODE)
		return rules_fail(err, path, key, "a module class must be a name"), false;
	if (val->type != YAML_MAPPING_NODE)
		return rules_fail(err, path, val, "expected a mapping of child names to golden names"), false;
	owned = scalar_dup(key);
	type = strcmp(owned, "Cell") ? owned : TOP_LAYER;
	for (yaml_node_pair_t *p = val->data.mapping.pairs.start; p < val->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(doc, p->key), *v = yaml_document_get_node(doc, p->value);
		if (k->type != YAML_SCALAR_NODE || v->type != YAML_SCALAR_NODE || !k->data.scalar.length) {
			free(owned);
			return rules_fail(err, path, k, "a rename must map a child name to a golden name"), false;
		}
		add_rule(r, type, k, v);
	}
	free(owned);
	return true;
}

struct layer_rules *layer_rules_load(const char *path, struct strbuf *err)
{
	struct layer_rules *r = xcalloc(1, sizeof(*r));
	yaml_document_t doc;
	const yaml_node_t *root;
	bool ok = true;

	if (!path)
		return r;
	if (yaml_load_file(path, &doc, err) < 0) {
		free(r);
		return NULL;
	}
	root = yaml_document_get_root_node(&doc);
	if (!root)
		ok = !!rules_fail(err, path, &(yaml_node_t){ 0 }, "empty layer mapping file");
	else if (root->type != YAML_MAPPING_NODE)
		ok = !!rules_fail(err, path, root, "expected a mapping of module classes to renames");
	else
		for (yaml_node_pair_t *p = root->data.mapping.pairs.start; ok && p < root->data.mapping.pairs.top; p++)
			ok = load_class(r, &doc, yaml_document_get_node(&doc, p->key),
					yaml_document_get_node(&doc, p->value), path, err);
	yaml_document_delete(&doc);
	if (!ok) {
		layer_rules_free(r);
		return NULL;
	}
	return r;
}

void layer_rules_free(struct layer_rules *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nr; i++) {
		free(r->v[i].type);
		free(r->v[i].prefix);
		free(r->v[i].origin);
		free(r->v[i].target);
	}
	free(r->v);
	free(r);
}

/* ---- one side: its entries, their scopes, the tree ---- */

struct item {
	const char *name, *type_name, *api_name, *state;
	const char *layer_scope, *frame_scope, *full_scope; /* arena */
	uint32_t first_leaf, nleaves;
	bool bad;                                           /* fewer than four fields: maps to N/A */
};

struct node_state {
	const char *state;
	uint32_t *items;
	size_t n, alloc;
};

struct node {
	const char *type_name;
	struct strmap children; /* name -> struct node * */
	struct node_state *states;
	size_t nstates;
};

struct side {
	const char *path;
	struct arena arena;
	struct item *items;
	size_t nitems, items_alloc;
	const char **leaves;  /* leaf names, entry by entry */
	size_t nleaves, leaves_alloc;
	struct strmap by_name; /* entry -> item index */
	struct node **nodes;   /* every node, for freeing; nodes[0] is the root */
	size_t nnodes, nodes_alloc;
	bool mindspore;
	bool framework_known;
	struct stack_map *stack;
	struct construct_map *construct;
};

/* The fields of a dotted name (into an arena copy). */
struct fields {
	const char **v;
	size_t n;
};

static struct fields split_dots(struct arena *a, const char *s)
{
	struct fields f = { 0 };
	char *copy = arena_memdupz(a, s, strlen(s));
	size_t n = 1;
	for (const char *p = copy; *p; p++)
		n += *p == '.';
	f.v = arena_alloc(a, n * sizeof(*f.v));
	f.v[f.n++] = copy;
	for (char *p = copy; *p; p++)
		if (*p == '.') {
			*p = '\0';
			f.v[f.n++] = p + 1;
		}
	return f;
}

static const char *join_fields(struct arena *a, const char *const *v, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	const char *out;
	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_addch(&sb, '.');
		strbuf_addstr(&sb, v[i]);
	}
	out = arena_memdupz(a, sb.buf ? sb.buf : "", sb.len);
	strbuf_release(&sb);
	return out;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static bool is_layer(const char *api_type)
{
	return !strcmp(api_type, "Cell") || !strcmp(api_type, "Module");
}

/* What the entry's name says: kind, class, call name, state; and the module scope of a module entry. */
static void name_item(struct side *s, struct item *it, const struct fields *f)
{
	const char *last = f->v[f->n - 1];
	if (!strcmp(last, "parameters_grad") || (!strcmp(f->v[f->n - 2], "parameters_grad") && all_digits(last))) {
		size_t end = strcmp(last, "parameters_grad") ? f->n - 1 : f->n;
		it->api_name = f->v[end - 3];
		it->type_name = f->v[end - 2];
		it->state = "parameters_grad";
		it->layer_scope = join_fields(&s->arena, f->v, f->n - 3);
		return;
	}
	it->type_name = f->v[f->n - 3];
	if (is_layer(f->v[0])) {
		it->api_name = f->v[f->n - 4];
		it->state = f->v[f->n - 2];
		it->layer_scope = join_fields(&s->arena, f->v, f->n - 4);
	} else {
		it->api_name = it->type_name;
		it->state = last;
	}
}

/* An API entry's module scope: its construct.json parent without the class and call fields. */
static void scope_from_parent(struct side *s, struct item *it)
{
	const struct construct_node *c = construct_get(s->construct, it->name, strlen(it->name));
	if (!c || !c->parent || !*c->parent) {
		it->layer_scope = TOP_LAYER;
		return;
	}
	struct fields pf = split_dots(&s->arena, c->parent);
	it->layer_scope = join_fields(&s->arena, pf.v, pf.n > 3 ? pf.n - 3 : 0);
}

/* The comma-separated field i of a frame (trimmed of nothing, as msprobe splits it), or NULL. */
static const char *frame_field(struct arena *a, const char *frame, int i)
{
	const char *p = frame, *end;
	for (int k = 0; k < i; k++) {
		p = strchr(p, ',');
		if (!p)
			return NULL;
		p++;
	}
	end = strchr(p, ',');
	return arena_memdupz(a, p, end ? (size_t)(end - p) : strlen(p));
}

static bool holds_any(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(s, list[i]))
			return true;
	return false;
}

static const char *const framework_files[] = { "site-packages/torch", "package/torch", "site-packages/mindspore",
					       "package/mindspore" };
static const char *const skipped_files[] = { "msprobe", "MindSpeed" };
static const char *const skipped_funcs[] = { "construct", "__call__" };

/* Does the frame end the hook's part of the stack (the module's construct / forward)? */
static bool ends_region(const struct side *s, const char *frame)
{
	if (s->mindspore)
		return strstr(frame, "construct") != NULL;
	return strstr(frame, "in forward,") || strstr(frame, "in backward,");
}

/*
 * The framework function an API call came through: in the frames after the
 * last "Template" frame (the hook) and before the module's own frame, the
 * last of the leading framework frames, unless it is msprobe's or a
 * construct / __call__.
 */
static const char *frame_scope(struct side *s, const struct stack *st)
{
	size_t start = 0, end = st->n;
	bool seen = false;
	const char *last_framework = NULL, *file, *func;
	for (size_t i = 0; i < st->n; i++) {
		if (strstr(st->frames[i], "Template")) {
			start = i + 1;
			seen = true;
		} else if (seen && ends_region(s, st->frames[i])) {
			end = i;
			break;
		}
	}
	for (size_t i = start; i < end; i++) {
		file = frame_field(&s->arena, st->frames[i], 0);
		if (!holds_any(file, framework_files, 4))
			break;
		last_framework = st->frames[i];
	}
	if (!last_framework)
		return "";
	file = frame_field(&s->arena, last_framework, 0);
	func = frame_field(&s->arena, last_framework, 2);
	if (!func || holds_any(file, skipped_files, 2) || holds_any(func, skipped_funcs, 2))
		return "";
	/* " in <function>": the second word */
	while (*func == ' ' || *func == '\t' || *func == '\n')
		func++;
	func += strcspn(func, " \t\n");
	while (*func == ' ' || *func == '\t' || *func == '\n')
		func++;
	if (!*func)
		return "";
	return arena_memdupz(&s->arena, func, strcspn(func, " \t\n"));
}

static void scope_item(struct side *s, struct item *it)
{
	struct fields f = split_dots(&s->arena, it->name);
	struct strbuf sb = STRBUF_INIT;
	if (f.n < 4) {
		it->bad = true;
		it->full_scope = "";
		return;
	}
	name_item(s, it, &f);
	it->frame_scope = "";
	/* module entries have no stack of their own; parameters_grad takes its scope from its name */
	if (!is_layer(f.v[0])) {
		if (strcmp(it->state, "parameters_grad"))
			scope_from_parent(s, it);
		const struct stack *st = s->stack ? stack_map_get(s->stack, it->name, strlen(it->name)) : NULL;
		if (st && st->n && strcmp(f.v[0], "Primitive") && strcmp(f.v[0], "Jit"))
			it->frame_scope = frame_scope(s, st);
	}
	strbuf_addstr(&sb, it->layer_scope);
	if (*it->frame_scope)
		strbuf_addf(&sb, ".%s", it->frame_scope);
	strbuf_addf(&sb, ".%s", it->api_name);
	it->full_scope = arena_memdupz(&s->arena, sb.buf, sb.len);
	strbuf_release(&sb);
}

/* Backward entries take their forward entry's scope (backward has no stack). */
static void backward_scopes(struct side *s)
{
	struct strbuf fwd = STRBUF_INIT;
	struct arena scratch = ARENA_INIT;
	for (size_t i = 0; i < s->nitems; i++) {
		struct item *it = &s->items[i];
		if (it->bad)
			continue;
		arena_reset(&scratch);
		struct fields f = split_dots(&scratch, it->name);
		if (strcmp(f.v[f.n - 1], "backward") && strcmp(f.v[f.n - 2], "backward"))
			continue;
		strbuf_reset(&fwd);
		for (size_t k = 0; k < f.n; k++) {
			const char *p = f.v[k], *b;
			if (k)
				strbuf_addch(&fwd, '.');
			if (k + 2 < f.n) {
				strbuf_addstr(&fwd, p);
				continue;
			}
			while ((b = strstr(p, "backward"))) {
				strbuf_add(&fwd, p, (size_t)(b - p));
				strbuf_addstr(&fwd, "forward");
				p = b + 8;
			}
			strbuf_addstr(&fwd, p);
		}
		struct strmap_slot *slot = strmap_find(&s->by_name, fwd.buf, fwd.len);
		if (!slot)
			continue;
		const struct item *f_it = &s->items[slot->value.u];
		it->frame_scope = f_it->frame_scope;
		it->full_scope = f_it->full_scope;
		it->layer_scope = f_it->layer_scope;
	}
	strbuf_release(&fwd);
	arena_release(&scratch);
}

/*
 * The field after "<prefix>." in scope, when scope starts so: its start and
 * length, and the last run of digits in it (-1 when none).
 */
static long long next_index(const char *scope, const char *prefix, size_t plen, const char **at, size_t *len)
{
	const char *p, *digits = NULL;
	size_t n;
	long long v = 0;
	if (strncmp(scope, prefix, plen) || scope[plen] != '.')
		return -1;
	p = scope + plen + 1;
	n = strcspn(p, ". \t\n\r\f\v");
	if (!n || (p[n] && p[n] != '.'))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (p[i] >= '0' && p[i] <= '9' && (i == 0 || p[i - 1] < '0' || p[i - 1] > '9'))
			digits = p + i;
	if (!digits)
		return -1;
	for (; digits < p + n && *digits >= '0' && *digits <= '9'; digits++)
		v = v * 10 + (*digits - '0');
	*at = p;
	*len = n;
	return v;
}

/* The layers of each ParallelTransformer renumbered from 0 (pipeline stages number them globally). */
static void renumber_layers(struct side *s)
{
	const char **prefixes = NULL;
	long long *mins = NULL;
	size_t np = 0, alloc = 0;
	struct strmap seen = STRMAP_INIT;
	for (size_t i = 0; i < s->nitems; i++) {
		struct strbuf sb = STRBUF_INIT;
		bool created;
		if (s->items[i].bad || strcmp(s->items[i].type_name, "ParallelTransformer"))
			continue;
		strbuf_addf(&sb, "%s.layers", s->items[i].full_scope);
		const char *p = arena_memdupz(&s->arena, sb.buf, sb.len);
		strbuf_release(&sb);
		strmap_put(&seen, p, strlen(p), &created);
		if (!created)
			continue;
		ALLOC_GROW(prefixes, np + 1, alloc);
		mins = xrealloc(mins, alloc * sizeof(*mins));
		prefixes[np] = p;
		mins[np++] = -1;
	}
	for (size_t k = 0; k < np; k++)
		for (size_t i = 0; i < s->nitems; i++) {
			const char *at;
			size_t len;
			long long v = next_index(s->items[i].full_scope, prefixes[k], strlen(prefixes[k]), &at, &len);
			if (v >= 0 && (mins[k] < 0 || v < mins[k]))
				mins[k] = v;
		}
	for (size_t k = 0; k < np; k++)
		for (size_t i = 0; i < s->nitems; i++) {
			struct item *it = &s->items[i];
			const char *at;
			size_t len;
			long long v = next_index(it->full_scope, prefixes[k], strlen(prefixes[k]), &at, &len);
			if (v < 0)
				continue;
			struct strbuf sb = STRBUF_INIT;
			strbuf_add(&sb, it->full_scope, (size_t)(at - it->full_scope));
			strbuf_addf(&sb, "%lld%s", v - mins[k], at + len);
			it->full_scope = arena_memdupz(&s->arena, sb.buf, sb.len);
			strbuf_release(&sb);
		}
	strmap_release(&seen);
	free(prefixes);
	free(mins);
}

static struct node *new_node(struct side *s, const char *type_name)
{
	struct node *n = xcalloc(1, sizeof(*n));
	n->type_name = type_name;
	ALLOC_GROW(s->nodes, s->nnodes + 1, s->nodes_alloc);
	s->nodes[s->nnodes++] = n;
	return n;
}

static struct node *child(const struct node *n, const char *name)
{
	struct strmap_slot *slot = strmap_find(&n->children, name, strlen(name));
	return slot ? slot->value.p : NULL;
}

static struct node_state *node_state(struct node *n, const char *state, bool create)
{
	for (size_t i = 0; i < n->nstates; i++)
		if (!strcmp(n->states[i].state, state))
			return &n->states[i];
	if (!create)
		return NULL;
	n->states = xrealloc(n->states, (n->nstates + 1) * sizeof(*n->states));
	n->states[n->nstates] = (struct node_state){ .state = state };
	return &n->states[n->nstates++];
}

/* The tree of scopes: the first field of a scope is the root, each further field a child. */
static void build_tree(struct side *s)
{
	struct node *root = new_node(s, TOP_LAYER);
	struct arena scratch = ARENA_INIT;
	for (size_t i = 0; i < s->nitems; i++) {
		struct item *it = &s->items[i];
		struct node *n = root;
		if (it->bad)
			continue;
		arena_reset(&scratch);
		struct fields f = split_dots(&scratch, it->full_scope);
		for (size_t k = 1; k < f.n; k++) {
			struct node *c = child(n, f.v[k]);
			if (!c) {
				bool created;
				const char *name = arena_memdupz(&s->arena, f.v[k], strlen(f.v[k]));
				c = new_node(s, name);
				strmap_put(&n->children, name, strlen(name), &created)->value.p = c;
			}
			n = c;
		}
		struct node_state *ns = node_state(n, it->state, true);
		ALLOC_GROW(ns->items, ns->n + 1, ns->alloc);
		ns->items[ns->n++] = (uint32_t)i;
		n->type_name = it->type_name;
	}
	arena_release(&scratch);
}

static int on_entry(const char *entry, void *ctx)
{
	struct side *s = ctx;
	bool created;
	ALLOC_GROW(s->items, s->nitems + 1, s->items_alloc);
	s->items[s->nitems] = (struct item){ .name = arena_memdupz(&s->arena, entry, strlen(entry)),
					     .first_leaf = (uint32_t)s->nleaves };
	strmap_put(&s->by_name, s->items[s->nitems].name, strlen(entry), &created)->value.u = s->nitems;
	s->nitems++;
	return 0;
}

static int on_leaf(const struct dump_reader *d, const struct leaf *leaf, void *ctx)
{
	struct side *s = ctx;
	(void)d;
	if (!s->framework_known && leaf->obj) {
		const struct jnode *t = jtree_get(leaf->obj, "type");
		if (t && t->kind == J_STRING && (!strncmp(t->text, "mindspore", 9) || !strncmp(t->text, "torch", 5))) {
			s->mindspore = !strncmp(t->text, "mindspore", 9);
			s->framework_known = true;
		}
	}
	ALLOC_GROW(s->leaves, s->nleaves + 1, s->leaves_alloc);
	s->leaves[s->nleaves++] = arena_memdupz(&s->arena, leaf->name, strlen(leaf->name));
	s->items[s->nitems - 1].nleaves++;
	return 0;
}

static bool file_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* stack.json and construct.json beside the dump: both, or neither (then *none). */
static int load_beside(struct side *s, bool *none, struct strbuf *warn, struct strbuf *err)
{
	struct strbuf dir = STRBUF_INIT, sp = STRBUF_INIT, cp = STRBUF_INIT;
	const char *slash = strrchr(s->path, '/');
	int ret = 0;
	if (slash)
		strbuf_add(&dir, s->path, (size_t)(slash - s->path + 1));
	strbuf_addf(&sp, "%sstack.json", dir.buf ? dir.buf : "");
	strbuf_addf(&cp, "%sconstruct.json", dir.buf ? dir.buf : "");
	*none = false;
	if (!file_exists(sp.buf) && !file_exists(cp.buf)) {
		*none = true;
		strbuf_addf(warn, "%s: no stack.json and construct.json beside it: the layer mapping has no scopes "
			    "for this side", s->path);
	} else if (!file_exists(sp.buf) || !file_exists(cp.buf)) {
		strbuf_addf(err, "%s: the layer mapping needs both stack.json and construct.json beside the dump",
			    file_exists(sp.buf) ? cp.buf : sp.buf);
		ret = -1;
	} else if (!(s->stack = stack_map_load(sp.buf, err)) || !(s->construct = construct_load(cp.buf, err))) {
		ret = -1;
	}
	strbuf_release(&dir);
	strbuf_release(&sp);
	strbuf_release(&cp);
	return ret;
}

static int read_side(struct side *s, const char *path, bool *none, struct strbuf *warn, struct strbuf *err)
{
	struct dump_reader d;
	s->path = path;
	s->arena = (struct arena)ARENA_INIT;
	if (load_beside(s, none, warn, err) < 0 || *none)
		return *none ? 0 : -1;
	dump_reader_init(&d, path);
	d.on_entry = on_entry;
	d.entry_ctx = s;
	if (dump_read(&d, on_leaf, s) < 0) {
		strbuf_addbuf(err, &d.err);
		dump_reader_release(&d);
		return -1;
	}
	if (d.meta.framework && (!strcmp(d.meta.framework, "mindspore") || !strcmp(d.meta.framework, "pytorch"))) {
		s->mindspore = !strcmp(d.meta.framework, "mindspore");
		s->framework_known = true;
	}
	dump_reader_release(&d);
	for (size_t i = 0; i < s->nitems; i++)
		scope_item(s, &s->items[i]);
	backward_scopes(s);
	renumber_layers(s);
	build_tree(s);
	return 0;
}

static void release_side(struct side *s)
{
	for (size_t i = 0; i < s->nnodes; i++) {
		for (size_t k = 0; k < s->nodes[i]->nstates; k++)
			free(s->nodes[i]->states[k].items);
		free(s->nodes[i]->states);
		strmap_release(&s->nodes[i]->children);
		free(s->nodes[i]);
	}
	free(s->nodes);
	free(s->items);
	free(s->leaves);
	strmap_release(&s->by_name);
	if (s->stack)
		stack_map_free(s->stack);
	if (s->construct)
		construct_free(s->construct);
	arena_release(&s->arena);
}

/* ---- mapping one side onto the other ---- */

/* The rule of the class for the names at f[idx + 1 ...]: the longest that matches, the file's first among equals. */
static const struct layer_rule *find_rule(const struct layer_rules *r, const char *type, const struct fields *f,
					  size_t idx)
{
	const struct layer_rule *best = NULL;
	for (size_t i = 0; i < r->nr; i++) {
		const struct layer_rule *x = &r->v[i];
		if (strcmp(x->type, type) || strcmp(x->prefix, f->v[idx + 1]) || (best && x->level <= best->level) ||
		    idx + (size_t)x->level >= f->n)
			continue;
		/* origin must equal the names f[idx + 1 .. idx + level] joined by dots */
		const char *o = x->origin;
		bool same = true;
		for (int k = 1; k <= x->level && same; k++) {
			size_t n = strlen(f->v[idx + (size_t)k]);
			same = !strncmp(o, f->v[idx + (size_t)k], n) && (o[n] == (k == x->level ? '\0' : '.'));
			o += n + 1;
		}
		if (same)
			best = x;
	}
	return best;
}

/* The golden item the target item maps to, or NULL. */
static const struct item *map_item(const struct side *t, const struct side *g, const struct layer_rules *r,
				   size_t i, struct arena *a)
{
	const struct item *it = &t->items[i];
	struct fields f = split_dots(a, it->full_scope);
	struct strbuf scope = STRBUF_INIT;
	const struct node *cur = t->nodes[0];
	size_t idx = 0, index = 0;
	const struct item *hit = NULL;

	strbuf_addstr(&scope, TOP_LAYER);
	while (idx + 1 < f.n) {
		const struct layer_rule *x = find_rule(r, cur->type_name, &f, idx);
		size_t step = x ? (size_t)x->level : 1;
		strbuf_addf(&scope, ".%s", x ? x->target : f.v[idx + 1]);
		for (size_t k = 0; k < step; k++)
			cur = child(cur, f.v[++idx]);
	}
	const struct node_state *ns = node_state((struct node *)cur, it->state, false);
	for (size_t k = 0; ns && k < ns->n; k++)
		if (ns->items[k] == i)
			index = k;
	struct fields gf = split_dots(a, scope.buf);
	const struct node *gn = g->nnodes ? g->nodes[0] : NULL;
	for (size_t k = 1; gn && k < gf.n; k++)
		gn = child(gn, gf.v[k]);
	const struct node_state *gs = gn ? node_state((struct node *)gn, it->state, false) : NULL;
	if (gs && index < gs->n)
		hit = &g->items[gs->items[index]];
	strbuf_release(&scope);
	return hit;
}

static void map_leaves(const struct side *t, const struct side *g, const struct item *it, const struct item *gi,
		       struct strmap *suffixes, struct yamlmap *out)
{
	size_t tlen = strlen(it->name);
	strmap_clear(suffixes);
	for (uint32_t k = 0; gi && k < gi->nleaves; k++) {
		const char *name = g->leaves[gi->first_leaf + k];
		size_t glen = strlen(gi->name);
		bool created;
		if (strncmp(name, gi->name, glen))
			continue;
		strmap_put(suffixes, name + glen, strlen(name + glen), &created)->value.p = (void *)name;
	}
	for (uint32_t k = 0; k < it->nleaves; k++) {
		const char *name = t->leaves[it->first_leaf + k];
		const struct strmap_slot *hit = gi && !strncmp(name, it->name, tlen) ? strmap_find(suffixes, name + tlen, strlen(name + tlen)) : NULL;
		yamlmap_set(out, name, hit ? hit->value.p : "N/A");
	}
}

int layermap_derive(const char *target_dump, const char *golden_dump, const struct layer_rules *r,
		    struct yamlmap *out, struct strbuf *warn, struct strbuf *err)
{
	struct side t = { 0 }, g = { 0 };
	struct strmap suffixes = STRMAP_INIT;
	struct arena scratch = ARENA_INIT;
	bool tnone = false, gnone = false;
	int ret = 0;

	if (read_side(&t, target_dump, &tnone, warn, err) < 0 || (!tnone && read_side(&g, golden_dump, &gnone, warn, err) < 0))
		ret = -1;
	if (!ret && (tnone || gnone))
		strbuf_addstr(warn, tnone ? " (so no mapping: the leaves pair by their names, as msprobe does)"
					  : " (so every target leaf maps to N/A, as in msprobe)");
	for (size_t i = 0; !ret && !tnone && i < t.nitems; i++) {
		const struct item *it = &t.items[i];
		const struct item *gi = it->bad || gnone ? NULL : map_item(&t, &g, r, i, &scratch);
		if (it->bad)
			strbuf_addf(warn, "%s%s: entry \"%s\" has fewer than four fields: its leaves map to N/A",
				    warn->len ? "\n" : "", target_dump, it->name);
		map_leaves(&t, &g, it, gi, &suffixes, out);
		if (i % 1024 == 1023)
			arena_reset(&scratch);
	}
	strmap_release(&suffixes);
	arena_release(&scratch);
	release_side(&t);
	if (g.path)
		release_side(&g);
	return ret;
}

/* ---- writing it as msprobe does ---- */

static bool yaml_plain(const char *s)
{
	static const char *const words[] = { "yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE",
					     "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF",
					     "null", "Null", "NULL", "~" };
	if (!*s || !((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
		return false;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      strchr("_./-()[]<>", *p)))
			return false;
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (!strcmp(s, words[i]))
			return false;
	return !strpbrk(s, "[]");
}

static void yaml_scalar(struct strbuf *out, const char *s)
{
	if (yaml_plain(s)) {
		strbuf_addstr(out, s);
		return;
	}
	strbuf_addch(out, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addch(out, '\'');
		strbuf_addch(out, *s);
	}
	strbuf_addch(out, '\'');
}

void layermap_write_yaml(const struct yamlmap *m, struct strbuf *out)
{
	for (size_t i = 0; i < m->nr; i++) {
		/* PyYAML writes a key of 128 characters or more as an explicit "? key" */
		bool explicit = strlen(m->keys[i]) >= 128;
		if (explicit)
			strbuf_addstr(out, "? ");
		yaml_scalar(out, m->keys[i]);
		strbuf_addstr(out, explicit ? "\n: " : ": ");
		yaml_scalar(out, m->values[i]);
		strbuf_addch(out, '\n');
	}
	if (!m->nr)
		strbuf_addstr(out, "{}\n");
}
