#include "noise.h"
#include "verdict.h"
#include "../json/recscan.h"

#include <math.h>
#include <stdlib.h>

/* ---- dtypes ------------------------------------------------------------------- */

/* Whether s (n bytes) holds word, ignoring case. */
static bool has_word(const char *s, size_t n, const char *word)
{
	size_t w = strlen(word);
	for (size_t i = 0; i + w <= n; i++) {
		size_t k = 0;
		while (k < w && (s[i + k] | 0x20) == word[k])
			k++;
		if (k == w)
			return true;
	}
	return false;
}

double noise_unit(const char *dtype, size_t n, const char **name)
{
	static const struct {
		const char *word, *name;
		double unit;
	} kinds[] = {
		/* the longer names first: "bfloat16" holds "float16" */
		{ "bfloat16", "bfloat16", 0x1p-8 },
		{ "bf16", "bfloat16", 0x1p-8 }, /* ATB's names: bf16, float16, float */
		{ "fp16", "float16", 0x1p-11 },
		{ "fp32", "float32", 0x1p-24 },
		{ "float8_e5m2", "float8_e5m2", 0x1p-3 },
		{ "float8e5m2", "float8_e5m2", 0x1p-3 },
		{ "float8", "float8_e4m3", 0x1p-4 },
		{ "float16", "float16", 0x1p-11 },
		{ "half", "float16", 0x1p-11 },
		{ "complex64", "float32", 0x1p-24 },
		{ "complex128", "float64", 0x1p-53 },
		{ "float64", "float64", 0x1p-53 },
		{ "double", "float64", 0x1p-53 },
		{ "float32", "float32", 0x1p-24 },
		{ "float", "float32", 0x1p-24 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if (has_word(dtype, n, kinds[i].word)) {
			*name = kinds[i].name;
			return kinds[i].unit;
		}
	*name = "exact";
	return 0;
}

/* The unit of a leaf's dtype; a leaf without one (a statistic without a dtype) is taken as float32. */
static double leaf_unit(const struct leafrec *r, const char **name, bool *known)
{
	const char *p;
	size_t n;
	*known = r->f[LF_DTYPE].kind == SPAN_STRING && span_plain_string(&r->f[LF_DTYPE], &p, &n);
	if (!*known) {
		*name = "float32";
		return 0x1p-24;
	}
	return noise_unit(p, n, name);
}

/* ---- the measure ------------------------------------------------------------------ */

static int shape_dims(const char *s, double *dims, int max);
static double numel(const double *dims, int n);

/* The elements of a leaf's shape (1 when it has none). */
static double shape_numel(const struct span *shape)
{
	char buf[256];
	double dims[16];
	int n;
	if (shape->kind != SPAN_ARRAY || shape->n >= sizeof(buf))
		return 1;
	memcpy(buf, shape->p, shape->n);
	buf[shape->n] = '\0';
	n = shape_dims(buf, dims, 16);
	return n > 0 ? fmax(1, numel(dims, n)) : 1;
}

static bool stat_of(const struct leafrec *r, enum leaf_field f, double *x)
{
	return r->f[f].kind != SPAN_NONE && r->f[f].kind != SPAN_NULL && verdict_stat_value(&r->f[f], x);
}

static void set_structural(struct noise_leaf *out, const char *what)
{
	if (out->kind != NOISE_STRUCTURAL) {
		out->kind = NOISE_STRUCTURAL;
		out->structural = what;
	}
}

/*
 * A mean or norm that is not finite while max and min are, on both sides:
 * the dumper summed in a 16-bit type and overflowed (a float16 norm passes
 * 65504 when the sum of squares does), not a value of the tensor.
 */
static bool sum_overflowed(const struct leafrec *t, const struct leafrec *g)
{
	double x;
	for (int side = 0; side < 2; side++) {
		const struct leafrec *r = side ? g : t;
		for (int i = 0; i < 2; i++)
			if (!stat_of(r, LF_MAX + i, &x) || !isfinite(x))
				return false;
	}
	return true;
}

/* The statistics: delta, scale, and a non-finite value one side has alone. */
static void measure_stats(const struct leafrec *t, const struct leafrec *g, unsigned differs, struct noise_leaf *out)
{
	double tv[4], gv[4], scale = 0, d = 0, sums = 0;
	bool have[4];
	for (int i = 0; i < 4; i++) {
		have[i] = stat_of(t, LF_MAX + i, &tv[i]) && stat_of(g, LF_MAX + i, &gv[i]);
		if (!have[i]) {
			if (differs & (1u << (LF_MAX + i)))
				set_structural(out, "a statistic that is not a number");
			continue;
		}
		if (!isfinite(tv[i]) || !isfinite(gv[i])) {
			if (!(isnan(tv[i]) && isnan(gv[i])) && tv[i] != gv[i] && !(i >= 2 && sum_overflowed(t, g)))
				set_structural(out, "a non-finite value on one side only");
			have[i] = false; /* the same inf or NaN on both sides: nothing to measure */
			continue;
		}
		if (i < 2) /* max, min */
			scale = fmax(scale, fmax(fabs(tv[i]), fabs(gv[i])));
	}
	if (scale == 0 && have[2])
		scale = fmax(fabs(tv[2]), fabs(gv[2]));
	for (int i = 0; i < 2; i++)
		if (have[i] && tv[i] != gv[i])
			d = fmax(d, scale > 0 ? fabs(tv[i] - gv[i]) / scale : INFINITY);
	if (have[2] && tv[2] != gv[2])
		sums = scale > 0 ? fabs(tv[2] - gv[2]) / scale : INFINITY;
	if (have[3] && tv[3] != gv[3]) {
		double norm = fmax(fabs(tv[3]), fabs(gv[3]));
		sums = fmax(sums, fabs(tv[3] - gv[3]) / norm);
	}
	out->measured = have[0] || have[1] || have[2] || have[3];
	out->delta_exact = d;
	out->delta_sums = sums;
	out->delta = fmax(d, sums);
	out->scale = scale;
}

void noise_measure(const struct leafrec *t, const struct leafrec *g, unsigned differs, const struct tmetric *tm,
		   struct noise_leaf *out)
{
	const char *tn, *gn;
	bool tk, gk;
	double tu = leaf_unit(t, &tn, &tk), gu = leaf_unit(g, &gn, &gk);
	memset(out, 0, sizeof(*out));
	out->kind = NOISE_NUMERIC;
	/* the coarser of the two: an exact type on either side makes the pair exact */
	out->unit = tu == 0 || gu == 0 ? 0 : fmax(tu, gu);
	out->coarser = tu == 0 ? tn : gu == 0 ? gn : tu >= gu ? tn : gn;
	if (!tk && !gk && t->f[LF_MAX].kind == SPAN_NONE && g->f[LF_MAX].kind == SPAN_NONE)
		out->coarser = "none"; /* a scalar argument: no dtype */
	if (differs & (1u << LF_TYPE))
		set_structural(out, "the type");
	if (differs & (1u << LF_SHAPE))
		set_structural(out, "the shape");
	if (differs & (1u << LF_DTYPE)) {
		if (tu == 0 || gu == 0)
			set_structural(out, "the dtype (not a float-to-float change)");
		else
			out->dtypes_differ = true;
	}
	if (differs & (1u << LF_REQUIRES_GRAD))
		set_structural(out, "requires_grad");
	if (differs & (1u << LF_VALUE))
		set_structural(out, "a scalar argument");
	if (differs & (1u << LF_ATTRS))
		set_structural(out, "an attribute");
	if (differs & (1u << LF_P2P))
		set_structural(out, "a point-to-point peer");
	measure_stats(t, g, differs, out);
	if (tm && (tm->comparable || tm->widened) && !tm->same && tm->ndiff > 0) {
		double scale = fmax(tm->g_absmax, tm->t_absmax);
		if (isinf(tm->max_abs) || isnan(tm->max_abs))
			set_structural(out, "a non-finite value on one side only");
		else if (tm->max_abs > 0)
			out->delta_exact = fmax(out->delta_exact, scale > 0 ? tm->max_abs / scale : INFINITY);
		out->measured = true;
		out->delta = fmax(out->delta_exact, out->delta_sums);
		if (out->scale == 0)
			out->scale = scale;
	}
	if (out->unit >= 0x1p-11)
		out->stat_slack = out->unit * sqrt(shape_numel(&t->f[LF_SHAPE]));
}

double noise_ratio(const struct noise_leaf *m, double budget)
{
	double r;
	if (budget <= 0)
		return m->delta > 0 ? INFINITY : 0;
	r = m->delta_exact / budget;
	if (m->delta_sums > 0)
		r = fmax(r, m->delta_sums / (budget + m->stat_slack));
	return r;
}

/* ---- operators ------------------------------------------------------------------- */

/*
 * The API name of an entry, lowercased into buf: "Functional.linear.0.forward"
 * -> "linear", "Tensor.__matmul__.1.forward" -> "__matmul__"; a module's
 * class: "Module.fc1.Linear.forward.0" -> "linear".
 */
static const char *api_name(const char *entry, char *buf, size_t size)
{
	const char *p = strchr(entry, '.'), *end;
	size_t n = 0;
	if (!p) {
		buf[0] = '\0';
		return buf;
	}
	if (!strncmp(entry, "Module.", 7) || !strncmp(entry, "Cell.", 5)) {
		/* the component before ".forward" or ".backward" */
		const char *fw = strstr(entry, ".forward");
		if (!fw)
			fw = strstr(entry, ".backward");
		if (fw) {
			end = fw;
			p = end;
			while (p > entry && p[-1] != '.')
				p--;
			n = (size_t)(end - p);
		}
	} else {
		p++;
		end = strchr(p, '.');
		n = end ? (size_t)(end - p) : strlen(p);
	}
	if (n >= size)
		n = size - 1;
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)(p[i] >= 'A' && p[i] <= 'Z' ? p[i] - 'A' + 'a' : p[i]);
	buf[n] = '\0';
	return buf;
}

static bool in_list(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(name, *list))
			return true;
	return false;
}

static const char *const exp_ops[] = { "softmax", "log_softmax", "softmin", "exp", "exp2", "expm1", "cross_entropy",
				       "logsumexp", "sigmoid", "tanh", "scaled_dot_product_attention",
				       "npu_fusion_attention", "npu_flash_attention", "flash_attn_func", NULL };
static const char *const sum_ops[] = { "add", "__add__", "__radd__", "__iadd__", "add_", "sub", "__sub__", "__rsub__",
				       "__isub__", "sub_", "mean", "sum", "cumsum", "all_reduce", "reduce_scatter",
				       "reduce_scatter_tensor", "reduce", "lerp", "addcmul", "addcdiv", "mse_loss",
				       "l1_loss", "smooth_l1_loss", "huber_loss", "var", "std", NULL };

enum noise_op noise_op_of(const char *entry)
{
	char name[64];
	api_name(entry, name, sizeof(name));
	if (in_list(name, exp_ops))
		return NOISE_OP_EXP;
	if (in_list(name, sum_ops))
		return NOISE_OP_SUM;
	return NOISE_OP_PRODUCT;
}

double noise_carried(enum noise_op op, double in_rel, double in_abs, double out_scale)
{
	switch (op) {
	case NOISE_OP_SUM:
		return out_scale > 0 ? fmax(in_rel, in_abs / out_scale) : in_rel;
	case NOISE_OP_EXP:
		return fmax(in_rel, in_abs);
	default:
		return in_rel;
	}
}

/* A shape's dimensions from its JSON text ("[4, 16]"); -1 when it is not one. */
static int shape_dims(const char *s, double *dims, int max)
{
	int n = 0;
	if (!s || *s != '[')
		return -1;
	s++;
	while (*s == ' ')
		s++;
	if (*s == ']')
		return 0;
	for (;;) {
		char *end;
		long long d = strtoll(s, &end, 10);
		if (end == s || d < 0 || n >= max)
			return -1;
		dims[n++] = (double)d;
		s = end;
		while (*s == ' ')
			s++;
		if (*s == ']')
			return n;
		if (*s != ',')
			return -1;
		s++;
		while (*s == ' ')
			s++;
	}
}

static double numel(const double *dims, int n)
{
	double x = 1;
	for (int i = 0; i < n; i++)
		x *= dims[i];
	return x;
}

static const char *const inner_ops[] = { "linear", "matmul", "__matmul__", "__rmatmul__", "mm", "bmm", "baddbmm",
					 "addmm", "addbmm", "addmv", "mv", "dot", "bilinear", "npu_linear",
					 "scaled_dot_product_attention", "npu_fusion_attention", "npu_flash_attention",
					 "flash_attn_func", "dense", "batchmatmul", NULL };
static const char *const last_dim_ops[] = { "softmax", "log_softmax", "softmin", "layer_norm", "layernorm", "rms_norm",
					    "rmsnorm", "npu_rms_norm", "normalize", "cross_entropy", "nll_loss",
					    "logsumexp", "group_norm", "llamarmsnorm", NULL };

double noise_reduction(const char *entry, const char *in0, const char *in1, const char *out)
{
	enum { MAXD = 16 };
	double a[MAXD], b[MAXD], o[MAXD];
	int na = shape_dims(in0, a, MAXD), nb = shape_dims(in1, b, MAXD), no = shape_dims(out, o, MAXD);
	char name[64];
	api_name(entry, name, sizeof(name));
	if ((in_list(name, inner_ops) || in_list(name, last_dim_ops)) && na > 0)
		return fmax(1, a[na - 1]);
	if (!strncmp(name, "conv", 4) && nb > 1 && b[0] > 0)
		return fmax(1, numel(b, nb) / b[0]);
	if (na >= 0 && no >= 0 && numel(o, no) > 0 && numel(a, na) > numel(o, no))
		return numel(a, na) / numel(o, no);
	return 1;
}
