#include "yamlmap.h"
#include "source.h"
#include "xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

static int fail_at(struct strbuf *err, const char *path, const yaml_mark_t *mark, const char *what)
{
	strbuf_addf(err, "%s:%zu:%zu: %s", path, mark->line + 1, mark->column + 1, what);
	return -1;
}

/* PROBE_MAX_YAML_NODES: a whole number above 0; 0 when not set, -1 (with the message) when not a count. */
static int64_t yaml_nodes_env(struct strbuf *err)
{
	const char *env = getenv("PROBE_MAX_YAML_NODES"), *p;
	uint64_t v = 0;
	if (!env || !*env)
		return 0;
	for (p = env; *p >= '0' && *p <= '9'; p++) {
		if (v > ((uint64_t)INT64_MAX - 9) / 10)
			break;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == env || *p || !v) {
		strbuf_addf(err, "PROBE_MAX_YAML_NODES=%s: not a whole number above 0", env);
		return -1;
	}
	return (int64_t)v;
}

/*
 * A first pass over the events of f, nothing built: the nesting depth
 * (YAML_MAX_DEPTH) and the nodes the document holds once its aliases are
 * expanded (YAML_NODES_PER_EVENT per event read, or PROBE_MAX_YAML_NODES
 * when that is more).  0, or -1 with "FILE:LINE:COL: what" in err; a
 * syntax error is left to the load that follows.
 */
static int yaml_check_bounds(FILE *f, const char *path, struct strbuf *err)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	struct strmap anchors = STRMAP_INIT; /* anchor -> nodes it stands for */
	uint64_t start[YAML_MAX_DEPTH + 1], nodes = 0, events = 0;
	char *named[YAML_MAX_DEPTH + 1];      /* the anchor of each open collection, or NULL */
	int64_t most = yaml_nodes_env(err);
	int depth = 0, ret = 0;

	if (most < 0)
		return -1;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, f);
	while (!ret && yaml_parser_parse(&parser, &ev)) {
		const yaml_char_t *anchor = NULL;
		uint64_t size = 0, bound;
		bool done = ev.type == YAML_STREAM_END_EVENT;
		events++;
		switch (ev.type) {
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (depth == YAML_MAX_DEPTH) {
				strbuf_addf(err, "%s:%zu:%zu: nested more than %d deep", path, ev.start_mark.line + 1,
					    ev.start_mark.column + 1, YAML_MAX_DEPTH);
				ret = -1;
				break;
			}
			anchor = ev.type == YAML_MAPPING_START_EVENT ? ev.data.mapping_start.anchor
								     : ev.data.sequence_start.anchor;
			named[depth] = anchor ? xstrdup((const char *)anchor) : NULL;
			anchor = NULL;
			start[depth++] = nodes++;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			if (depth > 0 && named[--depth]) {
				/* the collection's anchor was on its start event */
				bool created;
				char *a = named[depth];
				strmap_put(&anchors, a, strlen(a), &created)->value.u = nodes - start[depth];
				free(a);
			}
			break;
		case YAML_SCALAR_EVENT:
			nodes++;
			anchor = ev.data.scalar.anchor;
			size = 1;
			break;
		case YAML_ALIAS_EVENT: {
			const char *a = (const char *)ev.data.alias.anchor;
			struct strmap_slot *slot = a ? strmap_find(&anchors, a, strlen(a)) : NULL;
			size = slot ? slot->value.u : 1;
			nodes = size > UINT64_MAX - nodes ? UINT64_MAX : nodes + size;
			break;
		}
		default:
			break;
		}
		if (anchor) {
			bool created;
			const char *a = (const char *)anchor;
			strmap_put(&anchors, a, strlen(a), &created)->value.u = size;
		}
		yaml_event_delete(&ev);
		if (ret || done)
			break;
		bound = events > UINT64_MAX / YAML_NODES_PER_EVENT ? UINT64_MAX : events * YAML_NODES_PER_EVENT;
		if (most > 0 && (uint64_t)most > bound)
			bound = (uint64_t)most;
		if (nodes > bound) {
			strbuf_addf(err, "%s:%zu:%zu: aliases expand to more than %llu nodes (%d per event read; "
				    "PROBE_MAX_YAML_NODES raises the limit)", path, parser.mark.line + 1,
				    parser.mark.column + 1, (unsigned long long)bound, YAML_NODES_PER_EVENT);
			ret = -1;
		}
	}
	yaml_parser_delete(&parser);
	while (depth > 0)
		free(named[--depth]);
	strmap_release(&anchors);
	return ret;
}

int yaml_load_file(const char *path, yaml_document_t *doc, struct strbuf *err)
{
	yaml_parser_t parser;
	FILE *f = source_fopen_regular(path, err);
	int ret = 0;
	if (!f)
		return -1;
	if (yaml_check_bounds(f, path, err) < 0) {
		fclose(f);
		return -1;
	}
	if (fseek(f, 0, SEEK_SET) != 0) {
		strbuf_addf(err, "%s: cannot read it again: %s", path, strerror(errno));
		fclose(f);
		return -1;
	}
	clearerr(f);
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, doc)) {
		strbuf_addf(err, "%s:%zu:%zu: %s", path, parser.problem_mark.line + 1, parser.problem_mark.column + 1,
			    parser.problem ? parser.problem : "YAML error");
		ret = -1;
	}
	yaml_parser_delete(&parser);
	fclose(f);
	return ret;
}

int yamlmap_load(struct yamlmap *m, const char *path, struct strbuf *err)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	FILE *f = source_fopen_regular(path, err);
	int depth = 0, ret = 0;
	char *key = NULL;
	bool seen_root = false;

	if (!f)
		return -1;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, f);
	for (;;) {
		if (!yaml_parser_parse(&parser, &ev)) {
			strbuf_addf(err, "%s:%zu:%zu: %s", path, parser.problem_mark.line + 1,
				    parser.problem_mark.column + 1, parser.problem ? parser.problem : "YAML error");
			ret = -1;
			break;
		}
		yaml_event_type_t t = ev.type;
		if (t == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		switch (t) {
		case YAML_MAPPING_START_EVENT:
			if (depth > 0 || seen_root)
				ret = fail_at(err, path, &ev.start_mark, "a mapping file maps names to names; found a nested mapping");
			depth++;
			seen_root = true;
			break;
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_SEQUENCE_START_EVENT:
			ret = fail_at(err, path, &ev.start_mark, "a mapping file maps names to names; found a list");
			break;
		case YAML_ALIAS_EVENT:
			ret = fail_at(err, path, &ev.start_mark, "aliases are not supported in mapping files");
			break;
		case YAML_SCALAR_EVENT: {
			const char *s = (const char *)ev.data.scalar.value;
			size_t n = ev.data.scalar.length;
			if (depth != 1) {
				ret = fail_at(err, path, &ev.start_mark, "a mapping file must be a YAML mapping");
				break;
			}
			/* an escaped "\0" would cut the name short wherever it is used */
			if (memchr(s, '\0', n)) {
				ret = fail_at(err, path, &ev.start_mark, "a name with a NUL byte");
				break;
			}
			if (!key) {
				bool created;
				key = xmemdupz(s, n);
				strmap_put(&m->index, key, n, &created);
				if (!created) {
					struct strbuf what = STRBUF_INIT;
					strbuf_addf(&what, "\"%s\" is mapped twice", key);
					ret = fail_at(err, path, &ev.start_mark, what.buf);
					strbuf_release(&what);
				}
			} else {
				ALLOC_GROW(m->keys, m->nr + 1, m->alloc);
				m->values = xrealloc(m->values, m->alloc * sizeof(*m->values));
				m->keys[m->nr] = key;
				m->values[m->nr] = xmemdupz(s, n);
				strmap_find(&m->index, key, strlen(key))->value.u = m->nr;
				m->nr++;
				key = NULL;
			}
			break;
		}
		default:
			break;
		}
		yaml_event_delete(&ev);
		if (ret < 0)
			break;
	}
	free(key);
	yaml_parser_delete(&parser);
	fclose(f);
	if (!ret && !seen_root) {
		strbuf_addf(err, "%s: empty mapping file", path);
		ret = -1;
	}
	return ret;
}

const char *yamlmap_get(const struct yamlmap *m, const char *key, size_t len)
{
	struct strmap_slot *s = strmap_find(&m->index, key, len);
	return s && s->value.u < m->nr ? m->values[s->value.u] : NULL;
}

void yamlmap_set(struct yamlmap *m, const char *key, const char *value)
{
	size_t n = strlen(key);
	bool created;
	struct strmap_slot *s = strmap_find(&m->index, key, n);
	if (s) {
		free(m->values[s->value.u]);
		m->values[s->value.u] = xstrdup(value);
		return;
	}
	ALLOC_GROW(m->keys, m->nr + 1, m->alloc);
	m->values = xrealloc(m->values, m->alloc * sizeof(*m->values));
	m->keys[m->nr] = xmemdupz(key, n);
	m->values[m->nr] = xstrdup(value);
	strmap_put(&m->index, m->keys[m->nr], n, &created)->value.u = m->nr;
	m->nr++;
}

void yamlmap_release(struct yamlmap *m)
{
	for (size_t i = 0; i < m->nr; i++) {
		free(m->keys[i]);
		free(m->values[i]);
	}
	free(m->keys);
	free(m->values);
	strmap_release(&m->index);
	memset(m, 0, sizeof(*m));
}

/* ---- mappings of names to lists ------------------------------------------------ */

static bool yaml_null(const yaml_event_t *ev)
{
	const char *s = (const char *)ev->data.scalar.value;
	return ev->data.scalar.plain_implicit &&
	       (!ev->data.scalar.length || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
		!strcmp(s, "NULL"));
}

static void lists_add_key(struct yamllists *l, const char *s, size_t n, bool scalar)
{
	ALLOC_GROW(l->keys, l->nr + 1, l->alloc);
	l->items = xrealloc(l->items, l->alloc * sizeof(*l->items));
	l->nitems = xrealloc(l->nitems, l->alloc * sizeof(*l->nitems));
	l->scalar = xrealloc(l->scalar, l->alloc * sizeof(*l->scalar));
	l->keys[l->nr] = xmemdupz(s, n);
	l->items[l->nr] = NULL;
	l->nitems[l->nr] = 0;
	l->scalar[l->nr] = scalar;
	l->nr++;
}

static void lists_add_item(struct yamllists *l, const char *s, size_t n)
{
	size_t k = l->nr - 1;
	l->items[k] = xrealloc(l->items[k], (l->nitems[k] + 1) * sizeof(**l->items));
	l->items[k][l->nitems[k]++] = xmemdupz(s, n);
}

int yamllists_load(struct yamllists *l, const char *path, struct strbuf *err)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	FILE *f = source_fopen_regular(path, err);
	int depth = 0, ret = 0;
	char *key = NULL;
	bool seen_root = false, in_list = false;

	if (!f)
		return -1;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, f);
	while (!ret) {
		if (!yaml_parser_parse(&parser, &ev)) {
			strbuf_addf(err, "%s:%zu:%zu: %s", path, parser.problem_mark.line + 1,
				    parser.problem_mark.column + 1, parser.problem ? parser.problem : "YAML error");
			ret = -1;
			break;
		}
		if (ev.type == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		switch (ev.type) {
		case YAML_MAPPING_START_EVENT:
			if (depth > 0 || seen_root)
				ret = fail_at(err, path, &ev.start_mark, "a mapping inside the config: it maps names to lists");
			depth++;
			seen_root = true;
			break;
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_SEQUENCE_START_EVENT:
			if (depth != 1 || !key || in_list)
				ret = fail_at(err, path, &ev.start_mark, "a list where a name should be");
			else {
				lists_add_key(l, key, strlen(key), false);
				in_list = true;
			}
			break;
		case YAML_SEQUENCE_END_EVENT:
			in_list = false;
			free(key);
			key = NULL;
			break;
		case YAML_ALIAS_EVENT:
			ret = fail_at(err, path, &ev.start_mark, "aliases are not supported here");
			break;
		case YAML_SCALAR_EVENT: {
			const char *s = (const char *)ev.data.scalar.value;
			size_t n = ev.data.scalar.length;
			if (depth != 1) {
				ret = fail_at(err, path, &ev.start_mark, "the config must be a YAML mapping");
			} else if (memchr(s, '\0', n)) {
				ret = fail_at(err, path, &ev.start_mark, "a name with a NUL byte");
			} else if (in_list) {
				lists_add_item(l, s, n);
			} else if (!key) {
				if (yamllists_find(l, s) >= 0) {
					struct strbuf what = STRBUF_INIT;
					strbuf_addf(&what, "\"%s\" is given twice", s);
					ret = fail_at(err, path, &ev.start_mark, what.buf);
					strbuf_release(&what);
				}
				key = xmemdupz(s, n);
			} else {
				lists_add_key(l, key, strlen(key), !yaml_null(&ev));
				free(key);
				key = NULL;
			}
			break;
		}
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	free(key);
	yaml_parser_delete(&parser);
	fclose(f);
	if (!ret && !seen_root) {
		strbuf_addf(err, "%s: the config is empty", path);
		ret = -1;
	}
	return ret;
}

ssize_t yamllists_find(const struct yamllists *l, const char *key)
{
	for (size_t i = 0; i < l->nr; i++)
		if (!strcmp(l->keys[i], key))
			return (ssize_t)i;
	return -1;
}

void yamllists_release(struct yamllists *l)
{
	for (size_t i = 0; i < l->nr; i++) {
		for (size_t k = 0; k < l->nitems[i]; k++)
			free(l->items[i][k]);
		free(l->items[i]);
		free(l->keys[i]);
	}
	free(l->keys);
	free(l->items);
	free(l->nitems);
	free(l->scalar);
	memset(l, 0, sizeof(*l));
}
