#include "plain.h"
#include "launch.h"
#include "textlines.h"
#include "../core/msg.h"
#include "../core/source.h"
#include "../core/strmap.h"
#include "../core/xalloc.h"

#include <ctype.h>
#include <math.h>
#include <yaml.h>

enum { MAX_DEPTH = 100, MAX_KEYS = 1000000 };

const char *plain_kind_name(enum plain_kind k)
{
	static const char *const names[] = { "pack", "pip", "env", "config", "script", "unknown" };
	return (unsigned)k <= PLAIN_UNKNOWN ? names[k] : "unknown";
}

int plain_read_file(const char *path, struct strbuf *out, struct strbuf *err)
{
	struct source *src = !strcmp(path, "-") ? source_open(path, err) : source_open_regular(path, err);
	char buf[65536];
	ssize_t n;
	if (!src)
		return -1;
	while ((n = source_read(src, buf, sizeof(buf))) > 0) {
		if (out->len + (size_t)n > PACK_MAX_FILE) {
			source_close(src);
			return msg_fail(err, path, "larger than 1 GiB: not a file of a run's setup");
		}
		strbuf_add(out, buf, (size_t)n);
	}
	if (n < 0)
		msg_fail(err, path, "cannot read: %s", source_error(src));
	source_close(src);
	return n < 0 ? -1 : 0;
}

/* ---- dicts of names to values, built in order (a name again: its first place, its last value) */

struct dict {
	char **keys;
	struct pyval **vals;
	size_t n, alloc;
	struct strmap index;
};

static void dict_set(struct dict *d, const char *key, size_t klen, struct pyval *v)
{
	bool created;
	struct strmap_slot *slot = strmap_put(&d->index, key, klen, &created);
	if (!created) {
		d->vals[slot->value.u] = v;
		return;
	}
	if (d->n == d->alloc) {
		d->alloc = d->alloc ? 2 * d->alloc : 64;
		d->keys = xrealloc(d->keys, st_mult(d->alloc, sizeof(*d->keys)));
		d->vals = xrealloc(d->vals, st_mult(d->alloc, sizeof(*d->vals)));
	}
	slot->value.u = d->n;
	d->keys[d->n] = xmemdupz(key, klen);
	d->vals[d->n++] = v;
}

static struct pyval *new_val(struct pack *p, enum pykind kind)
{
	struct pyval *v = arena_alloc(&p->arena, sizeof(*v));
	memset(v, 0, sizeof(*v));
	v->kind = kind;
	return v;
}

static struct pyval *str_val(struct pack *p, const char *s, size_t n)
{
	struct pyval *v = new_val(p, PY_STR);
	v->text = arena_memdupz(&p->arena, s, n);
	v->len = n;
	return v;
}

/* The dict as a Python dict in p's arena; d is emptied. */
static struct pyval *dict_finish(struct pack *p, struct dict *d)
{
	struct pyval *v = new_val(p, PY_DICT);
	v->n = d->n;
	v->items = arena_alloc(&p->arena, st_mult(2 * d->n + 1, sizeof(*v->items)));
	for (size_t i = 0; i < d->n; i++) {
		v->items[2 * i] = str_val(p, d->keys[i], strlen(d->keys[i]));
		v->items[2 * i + 1] = d->vals[i];
		free(d->keys[i]);
	}
	free(d->keys);
	free(d->vals);
	strmap_release(&d->index);
	memset(d, 0, sizeof(*d));
	return v;
}

static void dict_release(struct dict *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->keys[i]);
	free(d->keys);
	free(d->vals);
	strmap_release(&d->index);
	memset(d, 0, sizeof(*d));
}

/* ---- environment dumps */

static bool env_name_start(unsigned char c)
{
	return isalpha(c) || c == '_';
}

/* NAME= at s: the name's length, or 0 (env prints any name without '='; the shell's are identifiers). */
static size_t env_name(const char *s, size_t n)
{
	size_t k = 0;
	if (!n || !env_name_start((unsigned char)s[0]))
		return 0;
	while (k < n && s[k] != '=' && !isspace((unsigned char)s[k]))
		k++;
	return k < n && s[k] == '=' ? k : 0;
}

/* The value of export -p / declare -x: its quotes and backslashes resolved. */
static void unquote(struct strbuf *out, const char *s, size_t n)
{
	char q = n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0] ? s[0] : 0;
	if (!q) {
		strbuf_add(out, s, n);
		return;
	}
	for (size_t i = 1; i + 1 < n; i++) {
		if (q == '"' && s[i] == '\\' && i + 2 < n)
			i++;
		strbuf_addch(out, s[i]);
	}
}

static int read_env_text(struct pack *p, const char *data, size_t len, struct strbuf *err)
{
	struct textlines t;
	struct dict d = { 0 };
	struct strbuf value = STRBUF_INIT, name = STRBUF_INIT;
	const char *s;
	size_t n;
	bool open = false;
	textlines_init(&t, data, len);
	while (textlines_next(&t, &s, &n)) {
		size_t k;
		bool quoted = false;
		if (n >= 7 && !memcmp(s, "export ", 7))
			s += 7, n -= 7, quoted = true;
		else if (n >= 11 && !memcmp(s, "declare -x ", 11))
			s += 11, n -= 11, quoted = true;
		k = env_name(s, n);
		if (!k) {
			if (quoted && n) { /* declare -x NAME (without a value) */
				if (open)
					dict_set(&d, name.buf, name.len, str_val(p, value.buf, value.len));
				open = false;
				continue;
			}
			if (!open) {
				if (!n)
					continue;
				dict_release(&d);
				strbuf_release(&value);
				strbuf_release(&name);
				strbuf_addf(err, "%s:%zu: not NAME=value, as env prints the environment", p->path, t.line);
				return PROBE_ERR;
			}
			strbuf_addch(&value, '\n'); /* a value of several lines */
			strbuf_add(&value, s, n);
			continue;
		}
		if (open)
			dict_set(&d, name.buf, name.len, str_val(p, value.buf, value.len));
		strbuf_reset(&name);
		strbuf_reset(&value);
		strbuf_add(&name, s, k);
		if (quoted)
			unquote(&value, s + k + 1, n - k - 1);
		else
			strbuf_add(&value, s + k + 1, n - k - 1);
		open = true;
	}
	if (open)
		dict_set(&d, name.buf, name.len, str_val(p, value.buf, value.len));
	strbuf_release(&value);
	strbuf_release(&name);
	if (!d.n) {
		dict_release(&d);
		return msg_fail(err, p->path, "no NAME=value line: not an environment dump");
	}
	p->env.member = "env";
	p->env.where = p->path;
	p->env.step = p->env.rank = -1;
	p->env.value = p->env.ms_value = dict_finish(p, &d);
	p->has |= 1u << PACK_ENV;
	return 0;
}

/* ---- YAML, as PyYAML's safe_load types it */

static bool one_of(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

static bool yaml_null(const char *s)
{
	static const char *const v[] = { "", "~", "null", "Null", "NULL", NULL };
	return one_of(s, v);
}

/* 1 true, 0 false, -1 not a bool. */
static int yaml_bool(const char *s)
{
	static const char *const t[] = { "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", NULL };
	static const char *const f[] = { "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF", NULL };
	return one_of(s, t) ? 1 : one_of(s, f) ? 0 : -1;
}

static size_t run_of(const char *s, const char *set)
{
	size_t k = 0;
	while (s[k] && strchr(set, s[k]))
		k++;
	return k;
}

static const char *skip_sign(const char *s)
{
	return *s == '-' || *s == '+' ? s + 1 : s;
}

/* (?::[0-5]?[0-9])+ from s: its end, or NULL when there is none. */
static const char *sexagesimal_tail(const char *s)
{
	const char *p = s;
	while (*p == ':') {
		if (p[1] >= '0' && p[1] <= '5' && p[2] >= '0' && p[2] <= '9')
			p += 3;
		else if (p[1] >= '0' && p[1] <= '9')
			p += 2;
		else
			return NULL;
	}
	return p == s ? NULL : p;
}

static bool yaml_int(const char *s)
{
	const char *p = skip_sign(s), *q;
	if (p[0] == '0' && p[1] == 'b')
		return p[2] && !p[2 + run_of(p + 2, "01_")];
	if (p[0] == '0' && p[1] == 'x')
		return p[2] && !p[2 + run_of(p + 2, "0123456789abcdefABCDEF_")];
	if (p[0] == '0')
		return !p[1] || (!p[1 + run_of(p + 1, "01234567_")]);
	if (!(p[0] >= '1' && p[0] <= '9'))
		return false;
	q = p + 1 + run_of(p + 1, "0123456789_");
	if (!*q)
		return true;
	q = sexagesimal_tail(q);
	return q && !*q;
}

static bool yaml_float(const char *s)
{
	const char *p = skip_sign(s), *q;
	if (!strcmp(p, ".inf") || !strcmp(p, ".Inf") || !strcmp(p, ".INF"))
		return true;
	if (!strcmp(s, ".nan") || !strcmp(s, ".NaN") || !strcmp(s, ".NAN"))
		return true;
	if (s[0] == '.' ) { /* \.[0-9_]+(?:[eE][-+][0-9]+)?, no sign */
		q = s + 1;
		if (!run_of(q, "0123456789_"))
			return false;
		q += run_of(q, "0123456789_");
	} else {
		if (!(p[0] >= '0' && p[0] <= '9'))
			return false;
		q = p + 1 + run_of(p + 1, "0123456789_");
		if (*q == ':') {
			q = sexagesimal_tail(q);
			return q && *q == '.' && !q[1 + run_of(q + 1, "0123456789_")];
		}
		if (*q != '.')
			return false;
		q += 1 + run_of(q + 1, "0123456789_");
	}
	if (*q == 'e' || *q == 'E') {
		if (q[1] != '-' && q[1] != '+')
			return false;
		if (!run_of(q + 2, "0123456789"))
			return false;
		q += 2 + run_of(q + 2, "0123456789");
	}
	return !*q;
}

static bool digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* PyYAML's timestamp: 2002-12-14, or 2001-12-14t21:59:43.10-05:00 and the like. */
static bool yaml_timestamp(const char *s)
{
	size_t n = strlen(s), i;
	if (n < 8 || !digits(s, 4) || s[4] != '-')
		return false;
	if (n == 10 && digits(s + 5, 2) && s[7] == '-' && digits(s + 8, 2))
		return true;
	i = 5 + (isdigit((unsigned char)s[6]) ? 2 : 1);
	if (!isdigit((unsigned char)s[5]) || s[i] != '-' || !isdigit((unsigned char)s[i + 1]))
		return false;
	i += isdigit((unsigned char)s[i + 2]) ? 3 : 2;
	if (s[i] == 'T' || s[i] == 't')
		i++;
	else if (s[i] == ' ' || s[i] == '\t')
		i += strspn(s + i, " \t");
	else
		return false;
	if (!isdigit((unsigned char)s[i]))
		return false;
	i += isdigit((unsigned char)s[i + 1]) ? 2 : 1;
	if (s[i] != ':' || !digits(s + i + 1, 2) || s[i + 3] != ':' || !digits(s + i + 4, 2))
		return false;
	i += 6;
	if (s[i] == '.')
		i += 1 + strspn(s + i + 1, "0123456789");
	i += strspn(s + i, " \t");
	if (s[i] == 'Z')
		i++;
	else if (s[i] == '-' || s[i] == '+') {
		if (!isdigit((unsigned char)s[i + 1]))
			return false;
		i += isdigit((unsigned char)s[i + 2]) ? 3 : 2;
		if (s[i] == ':') {
			if (!digits(s + i + 1, 2))
				return false;
			i += 3;
		}
	}
	return !s[i];
}

/* The text without '_' (and lower case when asked). */
static char *cleaned(const char *s, bool lower)
{
	char *c = xstrdup(s), *w = c;
	for (const char *r = s; *r; r++)
		if (*r != '_')
			*w++ = lower ? (char)tolower((unsigned char)*r) : *r;
	*w = 0;
	return c;
}

/* construct_yaml_int: NULL when the digits do not fit 64 bits (kept as a string then). */
static struct pyval *int_value(struct pack *p, const char *s)
{
	char *c = cleaned(s, false), *q = c;
	int sign = *q == '-' ? -1 : 1;
	unsigned long long v = 0;
	struct strbuf t = STRBUF_INIT;
	struct pyval *r = NULL;
	int base = 10;
	bool ok = true;
	if (*q == '-' || *q == '+')
		q++;
	if (q[0] == '0' && (q[1] == 'b' || q[1] == 'x'))
		base = q[1] == 'b' ? 2 : 16, q += 2;
	else if (q[0] == '0' && q[1])
		base = 8, q++;
	if (strchr(q, ':')) {
		for (char *part = q; ok; ) {
			char *colon = strchr(part, ':');
			unsigned long long d = strtoull(part, NULL, 10);
			ok = v <= (ULLONG_MAX - d) / 60;
			v = v * 60 + d;
			if (!colon)
				break;
			part = colon + 1;
		}
	} else if (base != 10 || strlen(q) <= 18) {
		errno = 0;
		v = *q ? strtoull(q, NULL, base) : 0;
		ok = *q && !errno;
	} else { /* a long decimal: Python's int keeps every digit */
		strbuf_addstr(&t, sign < 0 ? "-" : "");
		strbuf_addstr(&t, q);
		r = new_val(p, PY_INT);
		r->text = arena_memdupz(&p->arena, t.buf, t.len);
		r->len = t.len;
		goto done;
	}
	if (!ok)
		goto done;
	if (sign < 0 && v)
		strbuf_addch(&t, '-');
	strbuf_addf(&t, "%llu", v);
	r = new_val(p, PY_INT);
	r->text = arena_memdupz(&p->arena, t.buf, t.len);
	r->len = t.len;
done:
	strbuf_release(&t);
	free(c);
	return r;
}

/* construct_yaml_float. */
static struct pyval *float_value(struct pack *p, const char *s)
{
	char *c = cleaned(s, true), *q = c;
	double sign = *q == '-' ? -1.0 : 1.0, v = 0;
	struct pyval *r = new_val(p, PY_FLOAT);
	if (*q == '-' || *q == '+')
		q++;
	if (!strcmp(q, ".inf"))
		v = sign * INFINITY;
	else if (!strcmp(q, ".nan"))
		v = NAN;
	else if (strchr(q, ':')) {
		/* the parts from the last, each times a power of 60, summed as Python sums them */
		size_t np = 1, k = 0;
		double base = 1, *parts;
		for (char *x = q; *x; x++)
			np += *x == ':';
		parts = xmalloc(np * sizeof(*parts));
		for (char *part = q;; part = strchr(part, ':') + 1) {
			parts[k++] = strtod(part, NULL);
			if (!strchr(part, ':'))
				break;
		}
		for (size_t i = np; i-- > 0;) {
			v += parts[i] * base;
			base *= 60;
		}
		v *= sign;
		free(parts);
	} else {
		v = sign * strtod(q, NULL);
	}
	pyval_set_float(r, v);
	free(c);
	return r;
}

struct yaml_walk {
	struct pack *p;
	yaml_document_t *doc;
	const struct pyval **dates; /* values PyYAML makes datetime of: no scalar to msprobe's parser */
	size_t ndates, alloc;
	size_t nodes;
	struct strbuf *err;
};

static int yaml_fail(struct yaml_walk *w, const yaml_node_t *n, const char *what)
{
	strbuf_addf(w->err, "%s:%zu:%zu: %s", w->p->path, n->start_mark.line + 1, n->start_mark.column + 1, what);
	return PROBE_ERR;
}

static struct pyval *yaml_scalar(struct yaml_walk *w, const yaml_node_t *n)
{
	const char *s = (const char *)n->data.scalar.value, *tag = (const char *)n->tag;
	size_t len = n->data.scalar.length;
	bool plain = n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	struct pyval *v = NULL;
	int b;
	if (strlen(s) != len) /* a NUL inside: a string as it is */
		return str_val(w->p, s, len);
	if (tag && !strcmp(tag, YAML_NULL_TAG))
		return new_val(w->p, PY_NONE);
	if (tag && !strcmp(tag, YAML_INT_TAG) && (v = int_value(w->p, s)))
		return v;
	if (tag && !strcmp(tag, YAML_FLOAT_TAG))
		return float_value(w->p, s);
	if (!plain || (tag && strcmp(tag, YAML_STR_TAG)))
		return str_val(w->p, s, len);
	if (yaml_null(s))
		return new_val(w->p, PY_NONE);
	if ((b = yaml_bool(s)) >= 0) {
		v = new_val(w->p, PY_BOOL);
		v->b = b;
		return v;
	}
	if (yaml_float(s))
		return float_value(w->p, s);
	if (yaml_int(s) && (v = int_value(w->p, s)))
		return v;
	v = str_val(w->p, s, len);
	if (yaml_timestamp(s)) {
		if (w->ndates == w->alloc) {
			w->alloc = w->alloc ? 2 * w->alloc : 16;
			w->dates = xrealloc(w->dates, st_mult(w->alloc, sizeof(*w->dates)));
		}
		w->dates[w->ndates++] = v;
	}
	return v;
}

static struct pyval *yaml_value(struct yaml_walk *w, int id, int depth);

struct ypair {
	int key, value;
};

/* PyYAML's flatten_mapping: the pairs of the merged mappings ("<<") first, then the node's own. */
static int yaml_pairs(struct yaml_walk *w, const yaml_node_t *n, struct ypair **v, size_t *nv, size_t *alloc,
		      int depth)
{
	size_t own_start;
	struct ypair *own = NULL;
	size_t nown = 0, oalloc = 0;
	if (depth > MAX_DEPTH)
		return yaml_fail(w, n, "merges nested deeper than 100 levels");
	for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(w->doc, pr->key), *val = yaml_document_get_node(w->doc, pr->value);
		if (k && val && k->type == YAML_SCALAR_NODE && k->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
		    !strcmp((const char *)k->data.scalar.value, "<<")) {
			if (val->type == YAML_MAPPING_NODE) {
				if (yaml_pairs(w, val, v, nv, alloc, depth + 1) < 0)
					return -1;
			} else if (val->type == YAML_SEQUENCE_NODE) {
				/* the later mappings first, so that the earlier ones win */
				for (yaml_node_item_t *it = val->data.sequence.items.top; it > val->data.sequence.items.start;) {
					yaml_node_t *m = yaml_document_get_node(w->doc, *--it);
					if (!m || m->type != YAML_MAPPING_NODE)
						return yaml_fail(w, val, "a merge (<<) of something other than mappings");
					if (yaml_pairs(w, m, v, nv, alloc, depth + 1) < 0)
						return -1;
				}
			} else {
				return yaml_fail(w, val, "a merge (<<) of something other than a mapping");
			}
			continue;
		}
		if (nown == oalloc) {
			oalloc = oalloc ? 2 * oalloc : 16;
			own = xrealloc(own, st_mult(oalloc, sizeof(*own)));
		}
		own[nown++] = (struct ypair){ pr->key, pr->value };
	}
	own_start = *nv;
	for (size_t i = 0; i < nown; i++) {
		if (*nv == *alloc) {
			*alloc = *alloc ? 2 * *alloc : 16;
			*v = xrealloc(*v, st_mult(*alloc, sizeof(**v)));
		}
		(*v)[(*nv)++] = own[i];
	}
	(void)own_start;
	free(own);
	return 0;
}

static struct pyval *yaml_mapping(struct yaml_walk *w, const yaml_node_t *n, int depth)
{
	struct ypair *pairs = NULL;
	size_t np = 0, alloc = 0;
	struct pyval *v = NULL, **keys, **vals;
	size_t nk = 0;
	if (yaml_pairs(w, n, &pairs, &np, &alloc, 0) < 0)
		goto out;
	keys = xmalloc(st_mult(np + 1, sizeof(*keys)));
	vals = xmalloc(st_mult(np + 1, sizeof(*vals)));
	for (size_t i = 0; i < np; i++) {
		yaml_node_t *kn = yaml_document_get_node(w->doc, pairs[i].key);
		struct pyval *k, *val;
		size_t j;
		if (!kn || kn->type != YAML_SCALAR_NODE) {
			yaml_fail(w, kn ? kn : n, "a key that is not a scalar (PyYAML refuses it)");
			goto fail;
		}
		if (!(k = yaml_scalar(w, kn)) || !(val = yaml_value(w, pairs[i].value, depth + 1)))
			goto fail;
		for (j = 0; j < nk && !pyval_eq(keys[j], k); j++)
			;
		keys[j] = k; /* a key again: its first place, its last value */
		vals[j] = val;
		if (j == nk)
			nk++;
	}
	v = new_val(w->p, PY_DICT);
	v->n = nk;
	v->items = arena_alloc(&w->p->arena, st_mult(2 * nk + 1, sizeof(*v->items)));
	for (size_t i = 0; i < nk; i++)
		v->items[2 * i] = keys[i], v->items[2 * i + 1] = vals[i];
fail:
	free(keys);
	free(vals);
out:
	free(pairs);
	return v;
}

static struct pyval *yaml_value(struct yaml_walk *w, int id, int depth)
{
	yaml_node_t *n = yaml_document_get_node(w->doc, id);
	struct pyval *v;
	size_t k = 0;
	if (!n)
		return new_val(w->p, PY_NONE);
	if (depth > MAX_DEPTH) {
		yaml_fail(w, n, "nested deeper than 100 levels");
		return NULL;
	}
	if (++w->nodes > MAX_KEYS) {
		yaml_fail(w, n, "more than a million values (aliases repeating a large node?)");
		return NULL;
	}
	switch (n->type) {
	case YAML_SCALAR_NODE: return yaml_scalar(w, n);
	case YAML_SEQUENCE_NODE:
		v = new_val(w->p, PY_LIST);
		v->n = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
		v->items = arena_alloc(&w->p->arena, st_mult(v->n + 1, sizeof(*v->items)));
		for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++)
			if (!(v->items[k++] = yaml_value(w, *it, depth + 1)))
				return NULL;
		return v;
	case YAML_MAPPING_NODE: return yaml_mapping(w, n, depth);
	default: return new_val(w->p, PY_NONE);
	}
}

/* The first document of a YAML text as Python values (NULL for an empty text: safe_load's None). */
static int yaml_read(struct pack *p, const char *data, size_t len, struct pyval **out, struct yaml_walk *w,
		     struct strbuf *err)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	int rc = 0;
	*out = NULL;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	if (!yaml_parser_load(&parser, &doc)) {
		strbuf_addf(err, "%s:%zu:%zu: %s", p->path, parser.problem_mark.line + 1, parser.problem_mark.column + 1,
			    parser.problem ? parser.problem : "not YAML");
		rc = PROBE_ERR;
		yaml_parser_delete(&parser);
		return rc;
	}
	w->p = p;
	w->doc = &doc;
	w->err = err;
	if (yaml_document_get_root_node(&doc) && !(*out = yaml_value(w, 1, 0)))
		rc = -1;
	w->doc = NULL; /* the document dies here; the values live in the pack's arena */
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return rc;
}

/* ---- flattened to dotted keys, as msprobe's YamlParser does */

struct flat {
	struct pack *p;
	struct dict d;
	bool ms;              /* msprobe's rules: only int, float, str, bool; no key but a str */
	bool ms_failed;       /* a key that is not a str: msprobe's parser gives nothing */
	const struct pyval *const *dates;
	size_t ndates;
};

static bool is_date(const struct flat *f, const struct pyval *v)
{
	for (size_t i = 0; i < f->ndates; i++)
		if (f->dates[i] == v)
			return true;
	return false;
}

/* isinstance(v, (int, float, str, bool)), msprobe's test of a value (a date is a datetime). */
static bool ms_scalar(const struct flat *f, const struct pyval *v)
{
	return (v->kind == PY_INT || v->kind == PY_FLOAT || v->kind == PY_STR || v->kind == PY_BOOL) && !is_date(f, v);
}

static bool list_kept(const struct flat *f, const struct pyval *v)
{
	for (size_t i = 0; i < v->n; i++) {
		const struct pyval *x = v->items[i];
		if (x->kind == PY_LIST)
			continue;
		if (f->ms ? !ms_scalar(f, x) : x->kind == PY_DICT)
			return false;
	}
	return true;
}

static void flatten(struct flat *f, const struct pyval *v, struct strbuf *prefix)
{
	size_t base = prefix->len;
	if (v->kind == PY_DICT) {
		for (size_t i = 0; i < v->n; i++) {
			const struct pyval *k = v->items[2 * i];
			if (k->kind != PY_STR && f->ms) {
				f->ms_failed = true;
				return;
			}
			if (base)
				strbuf_addch(prefix, '.');
			pyval_str(prefix, k);
			flatten(f, v->items[2 * i + 1], prefix);
			strbuf_setlen(prefix, base);
		}
		return;
	}
	if (v->kind == PY_LIST && !list_kept(f, v)) {
		for (size_t i = 0; i < v->n; i++) {
			if (base)
				strbuf_addch(prefix, '.');
			strbuf_addf(prefix, "%zu", i);
			flatten(f, v->items[i], prefix);
			strbuf_setlen(prefix, base);
		}
		return;
	}
	if (f->ms && v->kind != PY_LIST && !ms_scalar(f, v))
		return;
	dict_set(&f->d, prefix->buf, prefix->len, (struct pyval *)v);
}

static const struct pyval *flattened(struct pack *p, const struct pyval *v, bool ms, const struct yaml_walk *w)
{
	struct flat f = { .p = p, .ms = ms };
	struct strbuf prefix = STRBUF_INIT;
	if (w)
		f.dates = w->dates, f.ndates = w->ndates;
	if (v)
		flatten(&f, v, &prefix);
	strbuf_release(&prefix);
	if (f.ms_failed)
		dict_release(&f.d);
	return dict_finish(p, &f.d);
}

static void set_static(struct pack *p, const struct pyval *ours, const struct pyval *ms)
{
	struct pack_json *h = &p->hyper[0];
	h->member = "hyperparameters/hyperparameters_static.json";
	h->where = p->path;
	h->step = h->rank = -1;
	h->value = ours;
	h->ms_value = ms;
	p->has |= 1u << PACK_HYPER;
}

static bool json_text(const char *data, size_t len)
{
	while (len && textlines_space((unsigned char)*data))
		data++, len--;
	return len && (*data == '{' || *data == '[');
}

static int read_config(struct pack *p, const char *data, size_t len, struct strbuf *err)
{
	struct yaml_walk w = { 0 };
	struct pyval *v = NULL;
	if (json_text(data, len)) {
		const struct jnode *tree = pack_parse_json(p, p->path, data, len, err);
		if (!tree)
			return -1;
		v = pack_pyval(p, tree);
	} else if (yaml_read(p, data, len, &v, &w, err) < 0) {
		free(w.dates);
		return -1;
	}
	if (v && v->kind != PY_DICT && v->kind != PY_LIST) {
		free(w.dates);
		return msg_fail(err, p->path, "not a mapping of settings: not a config");
	}
	set_static(p, flattened(p, v, false, &w), flattened(p, v, true, &w));
	free(w.dates);
	return 0;
}

/* ---- launch scripts */

static const struct pyval *script_dict(struct pack *p, const char *data, size_t len, enum launch_rules rules, bool *found)
{
	struct launch_args a = LAUNCH_ARGS_INIT;
	struct dict d = { 0 };
	launch_parse(&a, data, len, rules);
	for (size_t i = 0; i < a.n; i++) {
		struct pyval *v;
		if (a.v[i].value) {
			v = str_val(p, a.v[i].value, strlen(a.v[i].value));
		} else {
			v = new_val(p, PY_BOOL);
			v->b = true;
		}
		dict_set(&d, a.v[i].key, strlen(a.v[i].key), v);
	}
	*found = a.found;
	launch_release(&a);
	return dict_finish(p, &d);
}

static int read_script(struct pack *p, const char *data, size_t len, struct strbuf *err)
{
	bool found, ms_found;
	const struct pyval *ours = script_dict(p, data, len, LAUNCH_PROBE, &found);
	const struct pyval *ms = script_dict(p, data, len, LAUNCH_MSPROBE, &ms_found);
	if (!found)
		return msg_fail(err, p->path, "no launch command (torchrun, msrun, python -m torch.distributed.launch "
					      "or .run, deepspeed, python SCRIPT.py): no arguments to compare");
	set_static(p, ours, ms);
	return 0;
}

/* ---- pip */

static int read_pip(struct pack *p, const char *data, size_t len, struct strbuf *err)
{
	if (piplist_parse(&p->pip, p->path, data, len, err) < 0)
		return -1;
	if (!p->pip.n)
		return msg_fail(err, p->path, "no package: not a pip list");
	for (size_t i = 0; i < p->pip.n; i++) /* what msprobe's packer would have written: Name=version */
		piplist_set(&p->ms_pip, p->pip.v[i].name, strlen(p->pip.v[i].name), p->pip.v[i].version,
			    strlen(p->pip.v[i].version), p->pip.v[i].line);
	p->pip_where = p->path;
	p->has |= 1u << PACK_PIP;
	return 0;
}

int plain_read(struct pack *p, enum plain_kind k, const char *data, size_t len, struct strbuf *err)
{
	switch (k) {
	case PLAIN_PIP: return read_pip(p, data, len, err);
	case PLAIN_ENV:
		if (json_text(data, len))
			return pack_add_member(p, "env", p->path, data, len, err) < 0 ? -1 : 0;
		return read_env_text(p, data, len, err);
	case PLAIN_CONFIG: return read_config(p, data, len, err);
	case PLAIN_SCRIPT: return read_script(p, data, len, err);
	default: return msg_fail(err, p->path, "not a plain file probe-config reads");
	}
}

/* ---- which kind a file is */

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);
	return n >= t && !strcmp(s + n - t, tail);
}

static bool env_like_json(struct pack *scratch, const char *data, size_t len)
{
	struct strbuf err = STRBUF_INIT;
	const struct jnode *t = pack_parse_json(scratch, "-", data, len, &err);
	bool env = t && t->kind == J_OBJECT && t->count > 0;
	strbuf_release(&err);
	for (const struct jnode *c = env ? t->child : NULL; c && env; c = c->next)
		env = c->kind == J_STRING;
	return env && (jtree_get(t, "PATH") || jtree_get(t, "HOME") || jtree_get(t, "PWD"));
}

/* NAME=value lines: ENV when the names are the environment's, PIP when they are packages' (msprobe's pip member). */
static enum plain_kind assignment_lines(const char *data, size_t len)
{
	struct textlines t;
	const char *s;
	size_t n, env = 0, pkgs = 0, lines = 0;
	textlines_init(&t, data, len);
	while (textlines_next(&t, &s, &n)) {
		size_t k = env_name(s, n);
		bool upper = true;
		if (!n)
			continue;
		lines++;
		if (!k)
			continue;
		for (size_t i = 0; i < k; i++)
			if (islower((unsigned char)s[i]) || s[i] == '-' || s[i] == '.')
				upper = false;
		if (upper)
			env++;
		else if (k + 1 < n && isdigit((unsigned char)s[k + 1]))
			pkgs++;
	}
	if (!lines)
		return PLAIN_UNKNOWN;
	if (pkgs * 2 > lines)
		return PLAIN_PIP;
	return env ? PLAIN_ENV : PLAIN_UNKNOWN;
}

enum plain_kind plain_detect(const char *path, const char *data, size_t len)
{
	const char *b = base_name(path);
	struct pack *scratch;
	enum plain_kind k = PLAIN_UNKNOWN;
	struct yaml_walk w = { 0 };
	struct strbuf err = STRBUF_INIT;
	struct pyval *v;
	if (len >= 4 && !memcmp(data, "PK", 2) && ((data[2] == 3 && data[3] == 4) || (data[2] == 5 && data[3] == 6)))
		return PLAIN_PACK;
	if (!strcmp(b, "env") || ends_with(b, ".env"))
		return PLAIN_ENV;
	if (!strcmp(b, "pip") || (ends_with(b, ".txt") && (strstr(b, "pip") || strstr(b, "freeze") || strstr(b, "requirements"))))
		return PLAIN_PIP;
	if (ends_with(b, ".sh") || ends_with(b, ".bash"))
		return PLAIN_SCRIPT;
	if (ends_with(b, ".yaml") || ends_with(b, ".yml"))
		return PLAIN_CONFIG;
	scratch = pack_new(path, PACK_CONFIG);
	if (json_text(data, len))
		k = env_like_json(scratch, data, len) ? PLAIN_ENV : PLAIN_CONFIG;
	else if (launch_sniff(data, len))
		k = PLAIN_SCRIPT;
	else if (piplist_sniff(data, len) > 0)
		k = PLAIN_PIP;
	else if ((k = assignment_lines(data, len)) == PLAIN_UNKNOWN && yaml_read(scratch, data, len, &v, &w, &err) == 0 &&
		 v && v->kind == PY_DICT)
		k = PLAIN_CONFIG;
	free(w.dates);
	strbuf_release(&err);
	pack_free(scratch);
	return k;
}
