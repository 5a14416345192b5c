/* msapiuser.c: msprobe's -am FILE (see msapiuser.h). */
#include "msapiuser.h"

#include "../core/xalloc.h"
#include "../core/yamlmap.h"

#include <errno.h>
#include <string.h>
#include <yaml.h>

static const char *const term_names[MSAPI_TERMS] = { "args", "outputs", "parameters", "parameters_grad" };
static const char *const term_patterns[MSAPI_TERMS] = { ".input.", ".output.", ".parameters.", ".parameters_grad." };

static int node_fail(struct strbuf *err, const char *path, const yaml_node_t *n, const char *what)
{
	strbuf_addf(err, "%s:%zu:%zu: %s", path, n->start_mark.line + 1, n->start_mark.column + 1, what);
	return -1;
}

static bool key_is(const yaml_node_t *k, const char *s)
{
	return k->type == YAML_SCALAR_NODE && k->data.scalar.length == strlen(s) &&
	       !memcmp(k->data.scalar.value, s, k->data.scalar.length);
}

static char *scalar(const yaml_node_t *n)
{
	return xmemdupz(n->data.scalar.value, n->data.scalar.length);
}

/* A list of indexes into *out (its length into *n). */
static int load_list(yaml_document_t *doc, const yaml_node_t *v, char ***out, size_t *n, const char *path,
		     struct strbuf *err)
{
	if (v->type != YAML_SEQUENCE_NODE)
		return node_fail(err, path, v, "expected a list of indexes");
	*n = 0;
	*out = xcalloc((size_t)(v->data.sequence.items.top - v->data.sequence.items.start) + 1, sizeof(**out));
	for (yaml_node_item_t *i = v->data.sequence.items.start; i < v->data.sequence.items.top; i++) {
		const yaml_node_t *x = yaml_document_get_node(doc, *i);
		if (x->type != YAML_SCALAR_NODE)
			return node_fail(err, path, x, "an index must be a number or a name");
		(*out)[(*n)++] = scalar(x);
	}
	return 0;
}

static int load_entry(struct msapi_user_entry *e, yaml_document_t *doc, const yaml_node_t *m, const char *path,
		      struct strbuf *err)
{
	if (m->type != YAML_MAPPING_NODE)
		return node_fail(err, path, m, "expected a mapping with ms_api and pt_api");
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(doc, p->key), *v = yaml_document_get_node(doc, p->value);
		bool known = false;
		if (key_is(k, "ms_api") || key_is(k, "pt_api")) {
			char **slot = key_is(k, "ms_api") ? &e->ms_api : &e->pt_api;
			if (v->type != YAML_SCALAR_NODE)
				return node_fail(err, path, v, "an API must be a name");
			free(*slot);
			*slot = scalar(v);
			continue;
		}
		for (int t = 0; t < MSAPI_TERMS && !known; t++)
			for (int side = 0; side < 2 && !known; side++) {
				struct strbuf want = STRBUF_INIT;
				size_t n;
				strbuf_addf(&want, "%s_%s", side ? "pt" : "ms", term_names[t]);
				known = key_is(k, want.buf);
				strbuf_release(&want);
				if (known && load_list(doc, v, side ? &e->pt[t] : &e->ms[t], &n, path, err) < 0)
					return -1;
			}
	}
	if (!e->ms_api || !e->pt_api)
		return node_fail(err, path, m, "an entry needs ms_api and pt_api");
	return 0;
}

static size_t list_len(char **l)
{
	size_t n = 0;
	while (l && l[n])
		n++;
	return n;
}

static void free_entry(struct msapi_user_entry *e)
{
	free(e->ms_api);
	free(e->pt_api);
	for (int t = 0; t < MSAPI_TERMS; t++) {
		for (size_t i = 0; e->ms[t] && e->ms[t][i]; i++)
			free(e->ms[t][i]);
		for (size_t i = 0; e->pt[t] && e->pt[t][i]; i++)
			free(e->pt[t][i]);
		free(e->ms[t]);
		free(e->pt[t]);
	}
}

int msapi_user_load(struct msapi_user *u, const char *path, struct strbuf *warn, struct strbuf *err)
{
	yaml_document_t doc;
	const yaml_node_t *root;
	int ret = 0;

	if (yaml_load_file(path, &doc, err) < 0)
		return -1;
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		strbuf_addf(err, "%s: empty API mapping file", path);
		ret = -1;
	} else if (root->type != YAML_SEQUENCE_NODE) {
		ret = node_fail(err, path, root, "expected a list of {ms_api, pt_api, ms_args, pt_args, ...}");
	}
	for (yaml_node_item_t *i = root && !ret ? root->data.sequence.items.start : NULL;
	     i && i < root->data.sequence.items.top && !ret; i++) {
		const yaml_node_t *m = yaml_document_get_node(&doc, *i);
		struct msapi_user_entry e = { 0 };
		bool equal = true;
		ret = load_entry(&e, &doc, m, path, err);
		for (int t = 0; !ret && t < MSAPI_TERMS; t++)
			equal = equal && list_len(e.ms[t]) == list_len(e.pt[t]);
		if (!ret && !equal)
			strbuf_addf(warn, "%s%s:%zu: %s -> %s dropped: its ms_ and pt_ lists differ in length (msprobe drops it too)",
				    warn->len ? "\n" : "", path, m->start_mark.line + 1, e.ms_api, e.pt_api);
		if (ret || !equal) {
			free_entry(&e);
			continue;
		}
		for (int t = 0; t < MSAPI_TERMS; t++)
			e.n[t] = list_len(e.ms[t]);
		ALLOC_GROW(u->v, u->nr + 1, u->alloc);
		u->v[u->nr++] = e;
	}
	yaml_document_delete(&doc);
	return ret;
}

void msapi_user_release(struct msapi_user *u)
{
	for (size_t i = 0; i < u->nr; i++)
		free_entry(&u->v[i]);
	free(u->v);
	*u = (struct msapi_user)MSAPI_USER_INIT;
}

/* s with its first `from` made `to` (every one when all), into out. */
static void replace(struct strbuf *out, const char *s, const char *from, const char *to, bool all)
{
	size_t n = strlen(from);
	const char *p;
	strbuf_reset(out);
	while (n && (p = strstr(s, from))) {
		strbuf_add(out, s, (size_t)(p - s));
		strbuf_addstr(out, to);
		s = p + n;
		if (!all)
			break;
	}
	strbuf_addstr(out, s);
}

static int term_of(const char *state)
{
	if (!strcmp(state, "input"))
		return MSAPI_ARGS;
	if (!strcmp(state, "output"))
		return MSAPI_OUTPUTS;
	if (!strcmp(state, "parameters"))
		return MSAPI_PARAMETERS;
	if (!strcmp(state, "parameters_grad"))
		return MSAPI_PARAMETERS_GRAD;
	return -1;
}

/* The key entry e gives the row, into out. */
static void entry_key(const struct msapi_user_entry *e, const char *name, const char *entry, int t,
		      struct strbuf *out)
{
	struct strbuf op = STRBUF_INIT, origin = STRBUF_INIT, from = STRBUF_INIT, to = STRBUF_INIT;
	const char *rest;
	bool hit = false;
	replace(&op, name, e->ms_api, e->pt_api, false);
	replace(&origin, entry, e->ms_api, e->pt_api, false);
	strbuf_addstr(&origin, term_patterns[t]);
	rest = !strncmp(op.buf, origin.buf, origin.len) ? op.buf + origin.len : op.buf;
	for (size_t i = 0; i < e->n[t]; i++) {
		if (strcmp(rest, e->ms[t][i]))
			continue;
		strbuf_reset(&from);
		strbuf_reset(&to);
		strbuf_addf(&from, "%s%s", term_patterns[t], e->ms[t][i]);
		strbuf_addf(&to, "%s%s", term_patterns[t], e->pt[t][i]);
		replace(out, op.buf, from.buf, to.buf, true);
		hit = true;
	}
	if (!hit) {
		strbuf_reset(out);
		strbuf_addf(out, "%sabandoned", op.buf);
	}
	strbuf_release(&op);
	strbuf_release(&origin);
	strbuf_release(&from);
	strbuf_release(&to);
}

bool msapi_user_key(const struct msapi_user *u, const char *name, const char *entry, const char *state,
		    bool (*golden_has)(void *ctx, const char *api, size_t len), void *ctx, struct strbuf *out)
{
	const char *dot = strchr(name, '.');
	size_t api_len;
	int t = term_of(state);
	bool applied = false;
	if (!dot)
		return false;
	dot = strchr(dot + 1, '.');
	api_len = dot ? (size_t)(dot - name) : strlen(name);
	for (size_t i = 0; i < u->nr; i++) {
		const struct msapi_user_entry *e = &u->v[i];
		if (strlen(e->ms_api) != api_len || memcmp(e->ms_api, name, api_len) ||
		    !golden_has(ctx, e->pt_api, strlen(e->pt_api)))
			continue;
		if (t < 0)
			continue; /* msprobe stops on such a row; a debug row is not an API's */
		entry_key(e, name, entry, t, out);
		applied = true;
	}
	return applied;
}
