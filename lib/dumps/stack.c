#include "stack.h"
#include "../msprobe/mscsv.h"
#include "../json/json.h"
#include "../json/jsonw.h"
#include "../json/jtree.h"
#include "../msprobe/pyval.h"
#include "../core/source.h"
#include "../core/xalloc.h"

static bool all_strings(const struct jnode *list)
{
	if (list->kind != J_ARRAY)
		return false;
	for (const struct jnode *c = list->child; c; c = c->next)
		if (c->kind != J_STRING)
			return false;
	return true;
}

static struct stack *make_stack(struct stack_map *m, const struct jnode *frames)
{
	struct stack *s = arena_alloc(&m->arena, sizeof(*s));
	size_t i = 0;
	memset(s, 0, sizeof(*s));
	s->n = frames->count;
	s->frames = arena_alloc(&m->arena, (s->n ? s->n : 1) * sizeof(*s->frames));
	for (const struct jnode *c = frames->child; c; c = c->next) {
		s->frames[i++] = arena_memdupz(&m->arena, c->text, c->len);
		s->special = s->special || mscsv_special(c->text, c->len);
	}
	m->nstacks++;
	return s;
}

static void map_entry(struct stack_map *m, const char *name, size_t len, struct stack *s)
{
	/* later duplicates overwrite, as msprobe's dict does */
	strmap_put(&m->by_entry, name, len, NULL)->value.p = s;
}

/* {"0": [[names], [frames]], ...}: one value */
static void add_new_format(struct stack_map *m, const struct jnode *v)
{
	const struct jnode *names, *frames;
	struct stack *s;
	if (v->kind != J_ARRAY || v->count != 2)
		return;
	names = v->child;
	frames = names->next;
	if (names->kind != J_ARRAY || !all_strings(frames))
		return;
	s = make_stack(m, frames);
	for (const struct jnode *c = names->child; c; c = c->next)
		if (c->kind == J_STRING)
			map_entry(m, c->text, c->len, s);
}

struct loading {
	struct stack_map *m;
	bool first;
};

/* One member; the first says which format the file has ({"0": [[names], [frames]]} or {name: [frames]}). */
static int take_member(void *ctx, struct json_reader *r, const char *key, size_t key_len, const struct jnode *v,
		       const struct json_token *at)
{
	struct loading *l = ctx;
	struct stack_map *m = l->m;
	(void)r;
	(void)at;
	if (l->first)
		m->new_format = key_len == 1 && key[0] == '0' && v->kind == J_ARRAY && v->count == 2 &&
				v->child->kind == J_ARRAY;
	l->first = false;
	if (m->new_format)
		add_new_format(m, v);
	else if (all_strings(v))
		map_entry(m, key, key_len, make_stack(m, v));
	return 0;
}

struct stack_map *stack_map_load(const char *path, struct strbuf *err)
{
	struct strbuf serr = STRBUF_INIT;
	struct source *src = source_open_regular(path, &serr);
	struct loading l;
	int ret;

	if (!src) {
		strbuf_addbuf(err, &serr);
		strbuf_release(&serr);
		return NULL;
	}
	strbuf_release(&serr);
	l.m = xcalloc(1, sizeof(*l.m));
	l.first = true;
	ret = jtree_each_member(src, "stack.json", take_member, &l, err);
	source_close(src);
	if (ret < 0) {
		stack_map_free(l.m);
		return NULL;
	}
	return l.m;
}

void stack_map_free(struct stack_map *m)
{
	if (!m)
		return;
	strmap_release(&m->by_entry);
	arena_release(&m->arena);
	free(m);
}

const struct stack *stack_map_get(const struct stack_map *m, const char *entry, size_t len)
{
	struct strmap_slot *s = strmap_find(&m->by_entry, entry, len);
	return s ? s->value.p : NULL;
}

const char *stack_repr(const struct stack_map *m, const struct stack *cs, size_t *len)
{
	struct stack *s = (struct stack *)cs; /* the cache is the only thing written */
	if (!s->repr) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addch(&sb, '[');
		for (size_t i = 0; i < s->n; i++) {
			if (i)
				strbuf_addstr(&sb, ", ");
			pyval_repr_string(&sb, s->frames[i], strlen(s->frames[i]));
		}
		strbuf_addch(&sb, ']');
		s->repr = arena_memdupz((struct arena *)&m->arena, sb.buf, sb.len);
		s->repr_len = sb.len;
		strbuf_release(&sb);
	}
	*len = s->repr_len;
	return s->repr;
}

const char *stack_json(const struct stack_map *m, const struct stack *cs, size_t *len)
{
	struct stack *s = (struct stack *)cs;
	if (!s->json) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addch(&sb, '[');
		for (size_t i = 0; i < s->n; i++) {
			if (i)
				strbuf_addch(&sb, ',');
			jsonw_str(&sb, s->frames[i]);
		}
		strbuf_addch(&sb, ']');
		s->json = arena_memdupz((struct arena *)&m->arena, sb.buf, sb.len);
		s->json_len = sb.len;
		strbuf_release(&sb);
	}
	*len = s->json_len;
	return s->json;
}

const char *stack_csv(const struct stack_map *m, const struct stack *cs, size_t *len)
{
	struct stack *s = (struct stack *)cs;
	if (!s->csv) {
		struct strbuf sb = STRBUF_INIT;
		size_t rlen;
		mscsv_add_cell(&sb, stack_repr(m, s, &rlen), true);
		s->csv = arena_memdupz((struct arena *)&m->arena, sb.buf, sb.len);
		s->csv_len = sb.len;
		strbuf_release(&sb);
	}
	*len = s->csv_len;
	return s->csv;
}

static const char *find_in(const char *s, size_t n, const char *word)
{
	size_t w = strlen(word);
	for (size_t i = 0; i + w <= n; i++)
		if (s[i] == word[0] && !memcmp(s + i, word, w))
			return s + i;
	return NULL;
}

bool stack_frame_parse(const char *text, struct frame *out)
{
	const char *end = text + strlen(text), *p, *comma;
	memset(out, 0, sizeof(*out));
	out->file = text;
	out->file_len = (size_t)(end - text);
	out->line = -1;
	if (strncmp(text, "File ", 5))
		return false;
	p = text + 5;
	comma = find_in(p, (size_t)(end - p), ", line ");
	if (!comma)
		return false;
	out->file = p;
	out->file_len = (size_t)(comma - p);
	p = comma + 7;
	out->line = strtol(p, (char **)&p, 10);
	if (strncmp(p, ", in ", 5))
		return true;
	p += 5;
	comma = find_in(p, (size_t)(end - p), ", \n");
	out->function = p;
	out->function_len = comma ? (size_t)(comma - p) : (size_t)(end - p);
	if (comma) {
		p = comma + 3;
		while (*p == ' ')
			p++;
		out->code = p;
		out->code_len = (size_t)(end - p);
	}
	return true;
}

bool stack_frame_is_framework(const struct frame *f, const char *const *extra, size_t nextra)
{
	const char *py;
	if (find_in(f->file, f->file_len, "/site-packages/") || find_in(f->file, f->file_len, "/dist-packages/") ||
	    find_in(f->file, f->file_len, "<frozen "))
		return true;
	/* the standard library: .../lib/python3.X/<module>, not one of its package dirs */
	py = find_in(f->file, f->file_len, "/lib/python3");
	if (py && !find_in(f->file, f->file_len, "-packages/"))
		return true;
	for (size_t i = 0; i < nextra; i++)
		if (find_in(f->file, f->file_len, extra[i]))
			return true;
	return false;
}
