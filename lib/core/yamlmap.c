#include "yamlmap.h"
#include "xalloc.h"

#include <yaml.h>

static int fail_at(struct strbuf *err, const char *path, const yaml_mark_t *mark, const char *what)
{
	strbuf_addf(err, "%s:%zu:%zu: %s", path, mark->line + 1, mark->column + 1, what);
	return -1;
}

int yamlmap_load(struct yamlmap *m, const char *path, struct strbuf *err)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	FILE *f = fopen(path, "rb");
	int depth = 0, ret = 0;
	char *key = NULL;
	bool seen_root = false;

	if (!f) {
		strbuf_addf(err, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
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
