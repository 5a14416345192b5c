#include "jtree.h"

#include <math.h>
#include <stdlib.h>
#include "../core/xalloc.h"

static struct jnode *new_node(struct arena *a, const struct json_token *tok)
{
	struct jnode *n = arena_alloc(a, sizeof(*n));
	memset(n, 0, sizeof(*n));
	n->line = tok->line;
	n->col = tok->col;
	switch (tok->type) {
	case JSON_NULL: n->kind = J_NULL; break;
	case JSON_FALSE: n->kind = J_FALSE; break;
	case JSON_TRUE: n->kind = J_TRUE; break;
	case JSON_NUMBER:
		n->kind = J_NUMBER;
		n->nonfinite = tok->nonfinite;
		n->text = arena_memdupz(a, tok->text, tok->len);
		n->len = tok->len;
		break;
	case JSON_STRING:
		n->kind = J_STRING;
		n->text = arena_memdupz(a, tok->text, tok->len);
		n->len = tok->len;
		break;
	case JSON_ARRAY_BEGIN: n->kind = J_ARRAY; break;
	case JSON_OBJECT_BEGIN: n->kind = J_OBJECT; break;
	default: break;
	}
	return n;
}

/* n's memory (the node, its text) added to the budget: whether it is now past its limit. */
static inline bool count_node(struct jtree_budget *b, const struct jnode *n)
{
	b->bytes += sizeof(*n) + n->len + (n->text != NULL);
	b->values++;
	return b->bytes > b->limit;
}

static int key_cmp(const void *pa, const void *pb)
{
	const struct jnode *a = *(const struct jnode *const *)pa;
	const struct jnode *b = *(const struct jnode *const *)pb;
	size_t n = a->key_len < b->key_len ? a->key_len : b->key_len;
	int c = memcmp(a->key, b->key, n);
	if (c)
		return c;
	return a->key_len < b->key_len ? -1 : a->key_len > b->key_len;
}

static bool same_key(const struct jnode *a, const struct jnode *b)
{
	return a->key_len == b->key_len && !memcmp(a->key, b->key, a->key_len);
}

/* The first member whose key repeats an earlier one, or NULL. */
static const struct jnode *find_duplicate_key(const struct jnode *obj)
{
	const struct jnode *m, *k;
	if (obj->count < 2)
		return NULL;
	if (obj->count <= 16) {
		for (m = obj->child->next; m; m = m->next)
			for (k = obj->child; k != m; k = k->next)
				if (same_key(k, m))
					return m;
		return NULL;
	}
	const struct jnode **v = xmalloc(st_mult(obj->count, sizeof(*v)));
	const struct jnode *dup = NULL;
	size_t i = 0;
	for (m = obj->child; m; m = m->next)
		v[i++] = m;
	qsort(v, obj->count, sizeof(*v), key_cmp);
	for (i = 1; i < obj->count && !dup; i++)
		if (same_key(v[i - 1], v[i]))
			dup = v[i]->line > v[i - 1]->line ||
			      (v[i]->line == v[i - 1]->line && v[i]->col > v[i - 1]->col) ? v[i] : v[i - 1];
	free(v);
	return dup;
}

struct jnode *jtree_build(struct json_reader *r, const struct json_token *first, struct arena *a)
{
	return jtree_build_within(r, first, a, NULL);
}

struct jnode *jtree_build_within(struct json_reader *r, const struct json_token *first, struct arena *a,
				 struct jtree_budget *b)
{
	/* explicit stack of open containers and their last child */
	struct frame { struct jnode *node, *last; } *stack = NULL;
	size_t depth = 0, alloc = 0;
	struct jtree_budget unlimited = { .limit = SIZE_MAX };
	struct jnode *root = new_node(a, first);
	struct json_token tok;
	const char *key = NULL;
	size_t key_len = 0;
	uint64_t key_line = 0, key_col = 0;

	if (!b)
		b = &unlimited;
	count_node(b, root);
	if (root->kind != J_ARRAY && root->kind != J_OBJECT) {
		if (first->type == JSON_EOF || first->type == JSON_ERROR ||
		    first->type == JSON_KEY || first->type == JSON_OBJECT_END ||
		    first->type == JSON_ARRAY_END)
			return NULL;
		return root;
	}
	ALLOC_GROW(stack, depth + 1, alloc);
	stack[depth++] = (struct frame){ root, NULL };
	while (depth) {
		enum json_type t = json_reader_next(r, &tok);
		struct frame *top = &stack[depth - 1];
		struct jnode *n;
		switch (t) {
		case JSON_ERROR:
		case JSON_EOF:
			free(stack);
			return NULL;
		case JSON_KEY:
			key = arena_memdupz(a, tok.text, tok.len);
			b->bytes += tok.len + 1;
			key_len = tok.len;
			key_line = tok.line;
			key_col = tok.col;
			continue;
		case JSON_OBJECT_END:
		case JSON_ARRAY_END:
			if (t == JSON_OBJECT_END) {
				const struct jnode *dup = find_duplicate_key(top->node);
				if (dup) {
					json_reader_fail_at(r, &(struct json_token){ .line = dup->line, .col = dup->col },
							    "duplicate key \"%s\" in object", dup->key);
					free(stack);
					return NULL;
				}
			}
			depth--;
			continue;
		default:
			break;
		}
		n = new_node(a, &tok);
		if (UNLIKELY(count_node(b, n))) {
			b->exceeded = true;
			free(stack);
			return NULL;
		}
		if (top->node->kind == J_OBJECT) {
			n->key = key;
			n->key_len = key_len;
			n->line = key_line; /* a member is located by its key */
			n->col = key_col;
		}
		if (top->last)
			top->last->next = n;
		else
			top->node->child = n;
		top->last = n;
		top->node->count++;
		if (n->kind == J_ARRAY || n->kind == J_OBJECT) {
			ALLOC_GROW(stack, depth + 1, alloc);
			stack[depth++] = (struct frame){ n, NULL };
		}
	}
	free(stack);
	return root;
}

const struct jnode *jtree_get(const struct jnode *obj, const char *key)
{
	size_t n;
	if (!obj || obj->kind != J_OBJECT)
		return NULL;
	n = strlen(key);
	for (const struct jnode *m = obj->child; m; m = m->next)
		if (m->key_len == n && !memcmp(m->key, key, n))
			return m;
	return NULL;
}

double jtree_number(const struct jnode *node)
{
	if (node->nonfinite)
		return node->text[0] == 'N' ? NAN : node->text[0] == '-' ? -INFINITY : INFINITY;
	return strtod(node->text, NULL);
}

bool jtree_is_int(const struct jnode *node)
{
	return node->kind == J_NUMBER && !node->nonfinite && !memchr(node->text, '.', node->len) &&
	       !memchr(node->text, 'e', node->len) && !memchr(node->text, 'E', node->len);
}

bool jtree_is_str(const struct jnode *node, const char *s)
{
	return node && node->kind == J_STRING && node->len == strlen(s) && !memcmp(node->text, s, node->len);
}

int jtree_each_member(struct source *src, const char *what, jtree_member_fn *each, void *ctx,
		      struct strbuf *err)
{
	struct json_reader r;
	struct json_token tok;
	struct arena scratch = ARENA_INIT;
	bool failed = false;

	json_reader_init(&r, src, 0, 0);
	if (json_reader_next(&r, &tok) != JSON_OBJECT_BEGIN) {
		if (tok.type != JSON_ERROR)
			json_reader_fail_at(&r, &tok, "%s is not a JSON object", what);
		failed = true;
	}
	while (!failed) {
		enum json_type t = json_reader_next(&r, &tok);
		struct json_token at;
		const char *name;
		size_t len;
		struct jnode *v;
		if (t == JSON_OBJECT_END)
			break;
		if (t != JSON_KEY) {
			failed = true;
			break;
		}
		arena_reset(&scratch);
		name = arena_memdupz(&scratch, tok.text, tok.len);
		len = tok.len;
		if (json_reader_next(&r, &tok) == JSON_ERROR) {
			failed = true;
			break;
		}
		at = tok;
		if (!(v = jtree_build(&r, &tok, &scratch)) || each(ctx, &r, name, len, v, &at) < 0)
			failed = true;
	}
	if (!failed && json_reader_next(&r, &tok) == JSON_ERROR)
		failed = true;
	if (failed)
		strbuf_addstr(err, json_reader_error(&r));
	json_reader_release(&r);
	arena_release(&scratch);
	return failed ? -1 : 0;
}
