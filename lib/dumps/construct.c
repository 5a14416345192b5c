#include "construct.h"
#include "../json/json.h"
#include "../json/jsonw.h"
#include "../json/jtree.h"
#include "../core/source.h"
#include "../core/xalloc.h"

#define MAX_DEPTH 4096

static int add_node(struct construct_map *m, struct json_reader *r, const char *name, size_t len,
		    const struct jnode *v, const struct json_token *where)
{
	struct construct_node *n = arena_alloc(&m->arena, sizeof(*n));
	n->parent = NULL;
	n->micro_step = -1;
	if (v->kind == J_STRING) {
		n->parent = arena_memdupz(&m->arena, v->text, v->len);
	} else if (v->kind == J_ARRAY && v->count == 2 && v->child->kind == J_STRING &&
		   v->child->next->kind == J_NUMBER) {
		n->parent = arena_memdupz(&m->arena, v->child->text, v->child->len);
		n->micro_step = strtoll(v->child->next->text, NULL, 10);
	} else if (v->kind == J_ARRAY && v->count == 2 && v->child->kind == J_NULL) {
		n->micro_step = v->child->next->kind == J_NUMBER ? strtoll(v->child->next->text, NULL, 10) : -1;
	} else if (v->kind != J_NULL) {
		return json_reader_fail_at(r, where, "the parent of %.*s is %s, expected a node name, null or "
						   "[parent, micro_step]",
					   (int)(len > 80 ? 80 : len), name, v->kind == J_ARRAY ? "another array" : "not a name");
	}
	strmap_put(&m->nodes, name, len, NULL)->value.p = n;
	return 0;
}

static int take_member(void *ctx, struct json_reader *r, const char *name, size_t len, const struct jnode *v,
		       const struct json_token *at)
{
	if (len == 26 && !memcmp(name, "megatron_micro_step_number", 26))
		return 0; /* Megatron's count, not a node */
	return add_node(ctx, r, name, len, v, at);
}

struct construct_map *construct_load(const char *path, struct strbuf *err)
{
	struct source *src = source_open_regular(path, err);
	struct construct_map *m;
	int ret;

	if (!src)
		return NULL;
	m = xcalloc(1, sizeof(*m));
	ret = jtree_each_member(src, "construct.json", take_member, m, err);
	source_close(src);
	if (ret < 0) {
		construct_free(m);
		return NULL;
	}
	return m;
}

void construct_free(struct construct_map *m)
{
	if (!m)
		return;
	arena_release(&m->arena);
	strmap_release(&m->nodes);
	free(m);
}

const struct construct_node *construct_get(const struct construct_map *m, const char *node, size_t len)
{
	struct strmap_slot *s = strmap_find(&m->nodes, node, len);
	return s ? s->value.p : NULL;
}

int construct_chain_json(const struct construct_map *m, const char *node, size_t len, struct strbuf *out)
{
	const char *chain[MAX_DEPTH];
	const struct construct_node *n = construct_get(m, node, len);
	int depth = 0;
	if (!n)
		return -1;
	while (n && n->parent && depth < MAX_DEPTH) {
		bool seen = false;
		for (int i = 0; i < depth; i++)
			if (!strcmp(chain[i], n->parent))
				seen = true;
		if (seen || (!strcmp(n->parent, node) && strlen(node) == len))
			break; /* a cycle: msprobe stops too */
		chain[depth++] = n->parent;
		n = construct_get(m, n->parent, strlen(n->parent));
	}
	strbuf_addch(out, '[');
	for (int i = depth - 1; i >= 0; i--) {
		jsonw_str(out, chain[i]);
		if (i)
			strbuf_addch(out, ',');
	}
	strbuf_addch(out, ']');
	return depth;
}
