/*
 * overflow.c: msprobe's overflow levels of a dump's entries (see overflow.h).
 */
#include "../core/compat.h"

#include <math.h>
#include <strings.h>

#include "overflow.h"
#include "../core/arena.h"
#include "../core/msg.h"
#include "../core/source.h"
#include "../core/xalloc.h"
#include "../json/jtree.h"

const char *overflow_level_name(enum overflow_level l)
{
	switch (l) {
	case OVERFLOW_MEDIUM: return "medium";
	case OVERFLOW_HIGH: return "high";
	case OVERFLOW_CRITICAL: return "critical";
	case OVERFLOW_NONE: break;
	}
	return NULL;
}

/* str(v).lower() in ("inf", "-inf", "nan"). */
static bool nonfinite_text(const struct jnode *v)
{
	if (v->kind == J_NUMBER) {
		double x;
		if (jtree_is_int(v))
			return false;
		x = jtree_number(v);
		return isinf(x) || isnan(x);
	}
	if (v->kind == J_STRING)
		return (v->len == 3 && (!strncasecmp(v->text, "inf", 3) || !strncasecmp(v->text, "nan", 3))) ||
		       (v->len == 4 && !strncasecmp(v->text, "-inf", 4));
	return false;
}

/* has_nan_inf: an object whose own Max, Min or Mean is inf, -inf or nan. */
static bool has_nan_inf(const struct jnode *v)
{
	static const char *const keys[] = { "Max", "Min", "Mean" };
	if (!v || v->kind != J_OBJECT)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const struct jnode *x = jtree_get(v, keys[i]);
		if (x && nonfinite_text(x))
			return true;
	}
	return false;
}

/* AnomalyScene._has_anomaly: an object as above, or a list holding one at any depth of lists. */
static bool anomalous(const struct jnode *v)
{
	if (!v)
		return false;
	if (v->kind == J_OBJECT)
		return has_nan_inf(v);
	if (v->kind == J_ARRAY)
		for (const struct jnode *c = v->child; c; c = c->next)
			if (anomalous(c))
				return true;
	return false;
}

/* The items Python's `for x in value` gives that can matter: a list's items (a dict's keys are strings). */
static const struct jnode *items_of(const struct jnode *v)
{
	return v && v->kind == J_ARRAY ? v->child : NULL;
}

static bool any_anomalous(const struct jnode *first)
{
	for (const struct jnode *c = first; c; c = c->next)
		if (anomalous(c))
			return true;
	return false;
}

struct call {
	const struct jnode *args;   /* first item of input_args (or input) */
	const struct jnode *kwargs; /* first member of input_kwargs */
	const struct jnode *out;    /* first item of output */
};

/* The largest non-NaN Norm of the top-level tensor items; false when there is none. */
static bool max_norm(const struct jnode *first, double *m)
{
	bool any = false;
	for (const struct jnode *c = first; c; c = c->next) {
		const struct jnode *norm;
		double x;
		if (c->kind != J_OBJECT || !jtree_is_str(jtree_get(c, "type"), "torch.Tensor"))
			continue;
		norm = jtree_get(c, "Norm");
		if (!norm || norm->kind != J_NUMBER)
			continue;
		x = jtree_number(norm);
		if (isnan(x))
			continue;
		if (!any || x > *m)
			*m = x;
		any = true;
	}
	return any;
}

static enum overflow_level scene_of(const struct call *c)
{
	bool in = any_anomalous(c->args) || any_anomalous(c->kwargs), out = any_anomalous(c->out);
	double a = 0, k = 0, o = 0;
	bool has_a, has_k;
	if (!in && out)
		return OVERFLOW_CRITICAL;
	if (in && out)
		return OVERFLOW_HIGH;
	if (in)
		return OVERFLOW_MEDIUM;
	/* NumericalMutationScene */
	has_a = max_norm(c->args, &a);
	has_k = max_norm(c->kwargs, &k);
	if ((!has_a && !has_k) || !max_norm(c->out, &o))
		return OVERFLOW_NONE;
	if (!has_a || (has_k && k > a))
		a = k;
	if (a == 0)
		return o > 100 ? OVERFLOW_HIGH : OVERFLOW_NONE;
	return o / a > 100 ? OVERFLOW_HIGH : OVERFLOW_NONE;
}

/* ignore_rules.yaml: the places of an API's anomalous values that are not an overflow. */
struct rule {
	const char *api;
	int input_index, output_index; /* -1: none */
	const char *input_name;        /* NULL: none */
};

static const struct rule rules[] = {
	{ "torch.empty", -1, 0, NULL },
	{ "torch.empty_like", -1, 0, NULL },
	{ "torch.empty_strided", -1, 0, NULL },
	{ "distributed.recv", 0, -1, "tensor" },
	{ "distributed.all_gather", 0, -1, NULL },
	{ "distributed.reduce_scatter", 0, -1, "output" },
	{ "distributed._reduce_scatter_base", 0, -1, NULL },
	{ "distributed.all_gather_into_tensor", 0, -1, NULL },
	{ "distributed.reduce_scatter_tensor", 0, -1, NULL },
	{ "tensor.masked_fill_", 0, -1, NULL },
};

/* APIInfo.extract_torch_api: the first two dotted parts, lower-cased. */
static const struct rule *rule_of(const char *name, size_t len)
{
	char api[128];
	size_t n = 0, dots = 0;
	for (size_t i = 0; i < len && n < sizeof(api) - 1; i++) {
		if (name[i] == '.' && ++dots == 2)
			break;
		api[n++] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] - 'A' + 'a' : name[i]);
	}
	api[n] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(rules); i++)
		if (!strcmp(rules[i].api, api))
			return &rules[i];
	return NULL;
}

/* Rule.match: every value it checks that has_nan_inf holds sits at an ignored place. */
static bool rule_covers(const struct rule *r, const struct call *c)
{
	int i = 0;
	if (r->input_index >= 0)
		for (const struct jnode *x = c->args; x; x = x->next, i++)
			if (has_nan_inf(x) && i != r->input_index)
				return false;
	if (r->input_name)
		for (const struct jnode *x = c->kwargs; x; x = x->next)
			if (has_nan_inf(x) && strcmp(x->key, r->input_name))
				return false;
	i = 0;
	if (r->output_index >= 0)
		for (const struct jnode *x = c->out; x; x = x->next, i++)
			if (has_nan_inf(x) && i != r->output_index)
				return false;
	return true;
}

static enum overflow_level entry_level(const char *name, size_t len, const struct jnode *data)
{
	struct call c;
	const struct jnode *args = jtree_get(data, "input_args"), *kwargs = jtree_get(data, "input_kwargs");
	const struct rule *r;
	enum overflow_level l;
	if (!args)
		args = jtree_get(data, "input");
	c.args = items_of(args);
	c.kwargs = kwargs && kwargs->kind == J_OBJECT ? kwargs->child : NULL;
	c.out = items_of(jtree_get(data, "output"));
	l = scene_of(&c);
	if (l != OVERFLOW_NONE && (r = rule_of(name, len)) && rule_covers(r, &c))
		return OVERFLOW_NONE;
	return l;
}

static int scan_data(struct json_reader *r, struct strmap *levels)
{
	struct arena a = ARENA_INIT;
	struct json_token t;
	enum json_type type;
	int ret = -1;
	if ((type = json_reader_next(r, &t)) != JSON_OBJECT_BEGIN) {
		if (type != JSON_ERROR)
			json_reader_fail_at(r, &t, "\"data\" is %s, expected an object", json_type_name(type));
		goto out;
	}
	while ((type = json_reader_next(r, &t)) == JSON_KEY) {
		char *name = xmemdupz(t.text, t.len);
		size_t len = t.len;
		struct jnode *v;
		enum overflow_level l;
		if (json_reader_next(r, &t) == JSON_ERROR || !(v = jtree_build(r, &t, &a))) {
			free(name);
			goto out;
		}
		l = v->kind == J_OBJECT ? entry_level(name, len, v) : OVERFLOW_NONE;
		if (l != OVERFLOW_NONE)
			strmap_put(levels, name, len, NULL)->value.u = l;
		free(name);
		arena_reset(&a);
	}
	ret = type == JSON_OBJECT_END ? 0 : -1;
out:
	arena_release(&a);
	return ret;
}

int overflow_scan(const char *dump_path, struct strmap *levels, struct strbuf *err)
{
	struct source *src = source_open(dump_path, err);
	struct json_reader r;
	struct json_token t;
	enum json_type type;
	int ret = -1;
	if (!src)
		return PROBE_ERR;
	json_reader_init(&r, src, 0, 0);
	if ((type = json_reader_next(&r, &t)) != JSON_OBJECT_BEGIN) {
		if (type != JSON_ERROR)
			json_reader_fail_at(&r, &t, "expected a dump object, found %s", json_type_name(type));
		goto out;
	}
	while ((type = json_reader_next(&r, &t)) == JSON_KEY) {
		bool data = t.len == 4 && !memcmp(t.text, "data", 4);
		if (data) {
			if (scan_data(&r, levels) < 0)
				goto out;
			continue;
		}
		if ((type = json_reader_next(&r, &t)) == JSON_ERROR)
			goto out;
		if ((type == JSON_OBJECT_BEGIN || type == JSON_ARRAY_BEGIN) && json_reader_skip(&r) < 0)
			goto out;
	}
	ret = type == JSON_OBJECT_END ? 0 : -1;
out:
	if (ret < 0)
		strbuf_addstr(err, *json_reader_error(&r) ? json_reader_error(&r) : dump_path);
	json_reader_release(&r);
	source_close(src);
	return ret < 0 ? PROBE_ERR : 0;
}
