#include "construct.h"
#include "json.h"
#include "jsonw.h"
#include "jtree.h"
#include "source.h"
#include "xalloc.h"

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

struct construct_map *construct_load(const char *path, struct strbuf *err)
{
	struct source *src = source_open(path, err);
	struct construct_map *m;
	struct json_reader r;
	struct json_token tok;
	struct arena scratch = ARENA_INIT;
	bool failed = false;

	if (!src)
		return NULL;
	m = xcalloc(1, sizeof(*m));
	json_reader_init(&r, src, 0, 0);
	if (json_reader_next(&r, &tok) != JSON_OBJECT_BEGIN) {
		if (tok.type != JSON_ERROR)
			json_reader_fail_at(&r, &tok, "construct.json is not a JSON object");
		failed = true;
	}
	while (!failed) {
		enum json_type t = json_reader_next(&r, &tok);
		struct json_token key = tok, at;
		char *name;
		struct jnode *v;
		if (t == JSON_OBJECT_END)
			break;
		if (t != JSON_KEY) {
			failed = true;
			break;
		}
		arena_reset(&scratch);
		name = arena_memdupz(&scratch, key.text, key.len);
		if (json_reader_next(&r, &tok) == JSON_ERROR) {
			failed = true;
			break;
		}
		at = tok;
		if (!(v = jtree_build(&r, &tok, &scratch))) {
			failed = true;
			break;
		}
		if (key.len == 26 && !memcmp(name, "megatron_micro_step_number", 26))
			continue; /* Megatron's count, not a node */
		if (add_node(m, &r, name, key.len, v, &at) < 0) {
			failed = true;
			break;
		}
	}
	if (!failed && json_reader_next(&r, &tok) == JSON_ERROR)
		failed = true;
	if (failed)
		strbuf_addstr(err, json_reader_error(&r));
	json_reader_release(&r);
	source_close(src);
	arena_release(&scratch);
	if (failed) {
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
