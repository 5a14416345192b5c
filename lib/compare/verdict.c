#include "verdict.h"
#include "../core/opt.h"
#include "alike.h"
#include "../msprobe/pyfmt.h"
#include "../msprobe/mscell.h"
#include "../json/recscan.h"
#include "../json/jsonw.h"

#include <math.h>

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_SAME: return "same";
	case VERDICT_DIFF: return "diff";
	case VERDICT_UNMATCHED: return "unmatched";
	case VERDICT_GOLDEN_ONLY: return "golden_only";
	case VERDICT_UNREADABLE: return "unreadable";
	}
	return "?";
}

/* The fields compared as text, in the order a reason lists them. */
static const enum leaf_field compared[] = {
	LF_TYPE, LF_DTYPE, LF_SHAPE, LF_REQUIRES_GRAD, LF_MAX, LF_MIN, LF_MEAN, LF_NORM,
	LF_MD5, LF_VALUE, LF_ATTRS, LF_P2P,
};

static bool is_stat(enum leaf_field f)
{
	return f == LF_MAX || f == LF_MIN || f == LF_MEAN || f == LF_NORM;
}

bool verdict_stat_value(const struct span *s, double *out)
{
	char buf[64];
	if (s->kind == SPAN_STRING) {
		if (span_str_eq(s, "nan", 3)) { *out = NAN; return true; }
		if (span_str_eq(s, "inf", 3)) { *out = INFINITY; return true; }
		if (span_str_eq(s, "-inf", 4)) { *out = -INFINITY; return true; }
		if (span_str_eq(s, "-nan", 4)) { *out = NAN; return true; } /* what C's %f prints of a NaN with its sign bit set */
		return false;
	}
	if (s->kind != SPAN_NUMBER || s->n >= sizeof(buf))
		return false;
	memcpy(buf, s->p, s->n);
	buf[s->n] = '\0';
	*out = pyfmt_strtod(buf, NULL);
	return true;
}

static void add_span(struct strbuf *out, const struct span *s)
{
	if (s->kind == SPAN_NONE)
		strbuf_addstr(out, "(none)");
	else
		strbuf_add(out, s->p, s->n);
}
/* Field f differs: its bit, and "name A vs B" in the reason (after a "; "). */
static void add_difference(struct verdict_result *out, enum leaf_field f, const struct span *a, const struct span *b)
{
	out->differs |= 1u << f;
	if (out->reason.len)
		strbuf_addstr(&out->reason, "; ");
	strbuf_addf(&out->reason, "%s ", leaf_field_names[f]);
	add_span(&out->reason, a);
	strbuf_addstr(&out->reason, " vs ");
	add_span(&out->reason, b);
}


/*
 * Across frameworks (a MindSpore leaf against a PyTorch one), what differs
 * only by framework is no difference: mindspore.Tensor against
 * torch.Tensor, a dtype of the same element type under its two names
 * (mscell_dtype_same_across), and requires_grad, which MindSpore dumps do
 * not have.
 */
static bool same_across_frameworks(enum leaf_field f, const struct span *a, const struct span *b)
{
	struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;
	bool same = false;
	if (f == LF_REQUIRES_GRAD)
		return a->kind == SPAN_NONE || b->kind == SPAN_NONE;
	if ((f != LF_TYPE && f != LF_DTYPE) || a->kind != SPAN_STRING || b->kind != SPAN_STRING)
		return false;
	if (span_string(a, &x) == 0 && span_string(b, &y) == 0) {
		if (f == LF_DTYPE)
			same = mscell_dtype_same_across(x.buf, y.buf);
		else
			same = (!strcmp(x.buf, "mindspore.Tensor") && !strcmp(y.buf, "torch.Tensor")) ||
			       (!strcmp(y.buf, "mindspore.Tensor") && !strcmp(x.buf, "torch.Tensor"));
	}
	strbuf_release(&x);
	strbuf_release(&y);
	return same;
}

static int declared_dtype(const char *s, size_t n);

/* A dtype as the dump names it that is a real floating type (float64 down to float8). */
static bool is_float_dtype(const struct span *a)
{
	const char *p;
	size_t n;
	int d;
	if (!span_plain_string(a, &p, &n) || (d = declared_dtype(p, n)) < 0)
		return false;
	switch ((enum dtype)d) {
	case DT_FLOAT64: case DT_FLOAT32: case DT_FLOAT16: case DT_BFLOAT16: case DT_FLOAT8_E4M3FN: case DT_FLOAT8_E5M2:
		return true;
	default:
		return false;
	}
}

/* Two dtypes that are both floating types (float32 and bfloat16, Float16 and float64...). */
static bool float_to_float(const struct span *a, const struct span *b)
{
	return is_float_dtype(a) && is_float_dtype(b);
}

/* Whether two statistics agree within the band (bitwise when the band is 0). */
static bool stats_agree(double t, double g, const struct verdict_options *o)
{
	if (isnan(t) || isnan(g))
		return isnan(t) && isnan(g);
	if (isinf(t) || isinf(g))
		return t == g; /* a non-finite value the golden does not have differs under every band */
	return fabs(t - g) <= o->atol + o->rtol * fabs(g);
}

void verdict_pair(const struct leafrec *t, const struct leafrec *g, const struct verdict_options *opts,
		  struct verdict_result *out)
{
	bool cross;
	bool banded = opts->rtol > 0 || opts->atol > 0;
	out->differs = 0;
	out->within_band = 0;
	strbuf_reset(&out->reason);
	if (!g) {
		out->verdict = VERDICT_UNMATCHED;
		strbuf_addstr(&out->reason, "no golden leaf with this key");
		return;
	}
	if (!t) {
		out->verdict = VERDICT_GOLDEN_ONLY;
		strbuf_addstr(&out->reason, "no target leaf with this key");
		return;
	}
	cross = alike_frameworks_differ(t, g);
	for (size_t i = 0; i < ARRAY_SIZE(compared); i++) {
		enum leaf_field f = compared[i];
		const struct span *a = &t->f[f], *b = &g->f[f];
		double x, y;
		if (span_same(a, b) || (f == LF_MD5 && !alike_compares_md5(t, g)))
			continue;
		if (cross && same_across_frameworks(f, a, b))
			continue;
		if (f == LF_DTYPE && (banded || opts->banded) && float_to_float(a, b)) {
			out->within_band |= 1u << f;
			continue;
		}
		if (is_stat(f) && verdict_stat_value(a, &x) && verdict_stat_value(b, &y)) {
			if (x == y && signbit(x) == signbit(y) && !banded)
				continue; /* the same number written differently, e.g. 1E5 and 100000.0 */
			if (banded && stats_agree(x, y, opts)) {
				out->within_band |= 1u << f;
				continue;
			}
			add_difference(out, f, a, b);
			if (isfinite(x) && isfinite(y) && y != 0) {
				strbuf_addstr(&out->reason, " (rel ");
				pyfmt_double(&out->reason, fabs(x - y) / fabs(y));
				strbuf_addch(&out->reason, ')');
			} else if (!isfinite(x) && isfinite(y)) {
				strbuf_addstr(&out->reason, " (non-finite in the target only)");
			}
			continue;
		}
		add_difference(out, f, a, b);
	}
	out->verdict = out->differs ? VERDICT_DIFF : VERDICT_SAME;
}

/* A value for people: a string without its quotes, JSON text with a space after each comma. */
static void add_value_text(struct strbuf *out, const struct span *s)
{
	if (s->kind == SPAN_NONE) {
		strbuf_addstr(out, "(none)");
		return;
	}
	if (s->kind == SPAN_STRING && span_string(s, out) == 0)
		return;
	for (size_t i = 0; i < s->n; i++) {
		strbuf_addch(out, s->p[i]);
		if (s->p[i] == ',' && s->kind != SPAN_STRING)
			strbuf_addch(out, ' ');
	}
}

void verdict_write_text(const struct leafrec *t, const struct leafrec *g, unsigned differs, const char *head,
			const char *indent, struct strbuf *out)
{
	bool first = true;
	for (size_t i = 0; i < ARRAY_SIZE(compared); i++) {
		enum leaf_field f = compared[i];
		double x, y;
		if (!(differs & 1u << f))
			continue;
		strbuf_addf(out, "%s%s: target ", first ? head : indent, leaf_field_names[f]);
		add_value_text(out, &t->f[f]);
		strbuf_addstr(out, ", golden ");
		add_value_text(out, &g->f[f]);
		if (is_stat(f) && verdict_stat_value(&t->f[f], &x) && verdict_stat_value(&g->f[f], &y)) {
			if (isfinite(x) && isfinite(y) && y != 0)
				strbuf_addf(out, " (%+.3g %%)", 100 * (x - y) / fabs(y));
			else if (!isfinite(x) && isfinite(y))
				strbuf_addstr(out, " (non-finite in the target only)");
		}
		strbuf_addch(out, '\n');
		first = false;
	}
}

void verdict_tensor(struct verdict_result *out, const struct tmetric *tm, const char *problem)
{
	const unsigned stats = 1u << LF_MAX | 1u << LF_MIN | 1u << LF_MEAN | 1u << LF_NORM;
	if (out->verdict == VERDICT_UNMATCHED || out->verdict == VERDICT_GOLDEN_ONLY)
		return;
	if (!tm) {
		if (out->reason.len)
			strbuf_addstr(&out->reason, "; ");
		strbuf_addf(&out->reason, "tensor not compared: %s", problem ? problem : "no file");
		if (out->verdict == VERDICT_SAME)
			out->verdict = VERDICT_UNREADABLE;
		return;
	}
	/* widened: the leaves say the dtypes differ (or the band let them); files that differ where the dumps agree do not */
	if (!tm->comparable && (!tm->widened || !((out->differs | out->within_band) & (1u << LF_DTYPE)))) {
		/* the files' dtypes or shapes differ: the leaves' do too, and say it, or the files are a difference of their own */
		if (!(out->differs & (1u << LF_DTYPE | 1u << LF_SHAPE))) {
			out->differs |= 1u << LF_DATA;
			if (out->reason.len)
				strbuf_addstr(&out->reason, "; ");
			strbuf_addstr(&out->reason, "tensor: the two files differ in dtype or shape");
			out->verdict = VERDICT_DIFF;
		}
		return;
	}
	/* the elements decide for the statistics computed from them */
	out->within_band |= out->differs & stats;
	out->differs &= ~stats;
	if (tm->widened && !tm->ndiff) {
		/* the same values in two float types: the dtype, when it counts, is the leaves' difference */
		out->verdict = out->differs ? VERDICT_DIFF : VERDICT_SAME;
		return;
	}
	if (!tm->same && !tm->nbeyond)
		out->within_band |= 1u << LF_DATA;
	if (!tm->same && tm->nbeyond) {
		out->differs |= 1u << LF_DATA;
		if (out->reason.len)
			strbuf_addstr(&out->reason, "; ");
		strbuf_addf(&out->reason, "tensor: %lld of %lld elements differ", (long long)tm->ndiff,
			    (long long)tm->numel);
		if (tm->nbeyond != tm->ndiff)
			strbuf_addf(&out->reason, " (%lld beyond the band)", (long long)tm->nbeyond);
		strbuf_addf(&out->reason, ", the first at index %lld, up to ", (long long)tm->first_diff);
		if (isinf(tm->max_ulp))
			strbuf_addstr(&out->reason, "a NaN against a number");
		else {
			pyfmt_double(&out->reason, tm->max_ulp);
			strbuf_addstr(&out->reason, " ulp, max |t - g| ");
			pyfmt_double(&out->reason, tm->max_abs);
		}
	}
	out->verdict = out->differs ? VERDICT_DIFF : VERDICT_SAME;
}

/* ---- what a tensor file holds against what its dump says -------------------- */

/* c as a lowercase letter (ASCII). */
static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/*
 * A dump's dtype as ours: torch's "torch.float32", numpy's "float32", or
 * MindSpore's "Float32", "BFloat16", "Float8E4M3FN" (numpy's name in other
 * letters and without its underscores); -1 for one probe does not know
 * ("torch_npu.HiFloat8Tensor", "<class 'int'>").
 */
static int declared_dtype(const char *s, size_t n)
{
	int d = dtype_from_torch(s, n);
	if (d >= 0)
		return d;
	for (d = 0; d < DT_COUNT; d++) {
		const char *w = dtype_info((enum dtype)d)->name;
		size_t i = 0;
		for (; *w && i < n; w++) {
			if (*w == '_')
				continue;
			if (lower((unsigned char)s[i]) != *w)
				break;
			i++;
		}
		if (!*w && i == n)
			return d;
	}
	return -1;
}

/* A JSON array of non-negative integers, as the dump's shape is: [4, 4], [] (at most TENSOR_MAX_DIMS). */
static bool declared_shape(const struct span *sp, int64_t *dims, int *ndim)
{
	struct rs_iter it;
	struct span v;
	int r;
	*ndim = 0;
	if (sp->kind != SPAN_ARRAY || rs_begin_array(&it, sp->p, sp->n) < 0)
		return false;
	while ((r = rs_next_item(&it, &v)) == 1) {
		int64_t d = 0;
		if (v.kind != SPAN_NUMBER || *ndim >= TENSOR_MAX_DIMS)
			return false;
		for (size_t i = 0; i < v.n; i++) {
			if (v.p[i] < '0' || v.p[i] > '9' || d > (INT64_MAX - (v.p[i] - '0')) / 10)
				return false;
			d = d * 10 + (v.p[i] - '0');
		}
		dims[(*ndim)++] = d;
	}
	return r == 0;
}

static void add_shape(struct strbuf *out, const int64_t *dims, int ndim)
{
	strbuf_addch(out, '[');
	for (int i = 0; i < ndim; i++)
		strbuf_addf(out, "%s%lld", i ? ", " : "", (long long)dims[i]);
	strbuf_addch(out, ']');
}

int verdict_tensor_declared(const struct leafrec *r, const struct tensor *t, const char *path, struct strbuf *why)
{
	const struct span *ds = &r->f[LF_DTYPE], *ss = &r->f[LF_SHAPE];
	struct strbuf dtype = STRBUF_INIT;
	int64_t dims[TENSOR_MAX_DIMS];
	int ndim = 0, d = -1;
	bool dtype_ok = true, shape_ok = true, parsed = false, has_shape = ss->kind != SPAN_NONE && ss->kind != SPAN_NULL;

	if (ds->kind == SPAN_STRING && span_string(ds, &dtype) == 0 && (d = declared_dtype(dtype.buf, dtype.len)) >= 0)
		/* numpy has no bfloat16 nor float8: MindSpore saves those as float32 .npy */
		dtype_ok = (enum dtype)d == t->dtype ||
			   (t->format == TENSOR_NPY && t->dtype == DT_FLOAT32 &&
			    (d == DT_BFLOAT16 || d == DT_FLOAT8_E4M3FN || d == DT_FLOAT8_E5M2));
	if (has_shape) {
		parsed = declared_shape(ss, dims, &ndim);
		shape_ok = parsed && ndim == t->ndim && !memcmp(dims, t->shape, sizeof(dims[0]) * (size_t)ndim);
	}
	if (dtype_ok && shape_ok) {
		strbuf_release(&dtype);
		return 0;
	}
	strbuf_addf(why, "%s: the file holds %s ", path, dtype_info(t->dtype)->name);
	add_shape(why, t->shape, t->ndim);
	strbuf_addstr(why, ", the dump says ");
	if (ds->kind == SPAN_STRING)
		strbuf_addf(why, "%s%s", dtype.buf, has_shape ? " " : "");
	if (has_shape && parsed)
		add_shape(why, dims, ndim);
	else if (has_shape)
		strbuf_addf(why, "the shape %.*s", (int)ss->n, ss->p);
	strbuf_release(&dtype);
	return -1;
}

bool verdict_band_option(const struct tool_spec *spec, int c, const char *arg, struct tm_band *band, double *cos_min)
{
	switch (c) {
	case OPT_BAND_RTOL:
		band->rtol = opt_tolerance(spec, "--rtol", arg);
		return true;
	case OPT_BAND_ATOL:
		band->atol = opt_tolerance(spec, "--atol", arg);
		return true;
	case OPT_BAND_ULPS:
		band->ulps = opt_tolerance(spec, "--ulps", arg);
		return true;
	case OPT_BAND_COS_MIN:
		*cos_min = opt_tolerance(spec, "--cos-min", arg);
		if (*cos_min > 1)
			opt_usage_error(spec, "--cos-min value is above 1: %s", arg);
		return true;
	default:
		return false;
	}
}

/* ---- our numbers in a metric record ---------------------------------------------- */

static void add_number_or_null(struct strbuf *out, double x)
{
	if (isnan(x))
		strbuf_addstr(out, "\"nan\"");
	else if (isinf(x))
		strbuf_addstr(out, x > 0 ? "\"inf\"" : "\"-inf\"");
	else
		pyfmt_double(out, x);
}

/* Ours for two tensor files: whether their bytes are the same, and how far apart they are. */
static void add_tensor_metrics(struct strbuf *out, const struct tmetric *tm, bool was_compared, const char *problem)
{
	char hex[17];
	strbuf_addstr(out, "\"tensor\":{");
	if (!was_compared) {
		strbuf_addstr(out, "\"compared\":false,\"problem\":");
		jsonw_str(out, problem ? problem : "no golden tensor");
		strbuf_addch(out, '}');
		return;
	}
	strbuf_addf(out, "\"compared\":true,\"comparable\":%s,\"same\":%s", tm->comparable ? "true" : "false",
		    tm->same ? "true" : "false");
	if (tm->widened)
		strbuf_addstr(out, ",\"widened\":true");
	if (tm->comparable || tm->widened) {
		strbuf_addf(out, ",\"elements\":%lld,\"differ\":%lld,\"beyond_band\":%lld,\"first_diff\":",
			    (long long)tm->numel, (long long)tm->ndiff, (long long)tm->nbeyond);
		if (tm->first_diff < 0)
			strbuf_addstr(out, "null");
		else
			strbuf_addf(out, "%lld", (long long)tm->first_diff);
		strbuf_addstr(out, ",\"max_ulp\":");
		add_number_or_null(out, tm->max_ulp);
		strbuf_addstr(out, ",\"max_abs\":");
		add_number_or_null(out, tm->max_abs);
	}
	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)tm->t_hash);
	strbuf_addf(out, ",\"t_xxh3\":\"%s\"", hex);
	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)tm->g_hash);
	strbuf_addf(out, ",\"g_xxh3\":\"%s\"", hex);
	if (tm->notes[0]) {
		strbuf_addstr(out, ",\"msprobe_notes\":");
		jsonw_str(out, tm->notes);
	}
	strbuf_addch(out, '}');
}

void verdict_write_metrics(struct strbuf *out, const struct leafrec *t, const struct leafrec *g, const struct tmetric *tm,
			   bool tm_compared, const char *problem)
{
	static const char *const names[] = { "max", "min", "mean", "norm" };
	bool first = true;
	strbuf_addstr(out, ",\"metrics\":{");
	for (int i = 0; i < 4; i++) {
		double x, y;
		if (!verdict_stat_value(&t->f[LF_MAX + i], &x) || !verdict_stat_value(&g->f[LF_MAX + i], &y))
			continue;
		strbuf_addf(out, "%s\"%s\":{\"abs\":", first ? "" : ",", names[i]);
		add_number_or_null(out, fabs(x - y));
		strbuf_addstr(out, ",\"rel\":");
		if (y == 0 && x == 0)
			strbuf_addstr(out, "0.0");
		else if (y == 0)
			strbuf_addstr(out, "\"inf\"");
		else
			add_number_or_null(out, fabs(x - y) / fabs(y));
		strbuf_addch(out, '}');
		first = false;
	}
	if (t->f[LF_MD5].kind == SPAN_STRING && g->f[LF_MD5].kind == SPAN_STRING) {
		strbuf_addf(out, "%s\"md5_match\":%s", first ? "" : ",",
			    span_same(&t->f[LF_MD5], &g->f[LF_MD5]) ? "true" : "false");
		first = false;
	}
	if (tm) {
		if (!first)
			strbuf_addch(out, ',');
		add_tensor_metrics(out, tm, tm_compared, problem);
	}
	strbuf_addch(out, '}');
}
