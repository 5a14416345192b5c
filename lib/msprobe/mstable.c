#include "mstable.h"

#include <pthread.h>

#include <ctype.h>
#include <strings.h>
#include "../json/jsonw.h"
#include "pyfmt.h"

#include <math.h>

const char *ms_mode_name(enum ms_mode m)
{
	switch (m) {
	case MS_MODE_STATISTICS: return "statistics";
	case MS_MODE_MD5: return "md5";
	case MS_MODE_TENSOR: return "tensor";
	}
	return "?";
}

/* ---- header --------------------------------------------------------------- */

#define PREFIX "NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape", \
	       "Bench Tensor Shape", "NPU Requires_grad", "Bench Requires_grad"
#define STATS "NPU max", "NPU min", "NPU mean", "NPU l2norm", "Bench max", "Bench min", "Bench mean", \
	      "Bench l2norm"
#define TAIL "Requires_grad Consistent", "Result", "Err_message"

static const char *const statistics_header[] = {
	PREFIX, "Max diff", "Min diff", "Mean diff", "L2norm diff", "MaxRelativeErr", "MinRelativeErr",
	"MeanRelativeErr", "NormRelativeErr", STATS, TAIL, "NPU_Stack_Info",
};
static const char *const md5_header[] = { PREFIX, "NPU MD5", "BENCH MD5", TAIL, "NPU_Stack_Info" };
#define TENSOR_METRICS "Cosine", "EucDist", "MaxAbsErr", "MaxRelativeErr", "One Thousandth Err Ratio", \
	"Five Thousandths Err Ratio"
static const char *const tensor_header[] = { PREFIX, TENSOR_METRICS, STATS, TAIL, "NPU_Stack_Info", "Data_name" };
static const char *const tensor_header_nostack[] = { PREFIX, TENSOR_METRICS, STATS, TAIL, "Data_name" };

enum { C_NPU_NAME, C_BENCH_NAME, C_NPU_DTYPE, C_BENCH_DTYPE, C_NPU_SHAPE, C_BENCH_SHAPE, C_NPU_RG, C_BENCH_RG };

/* Where the statistics block and the Result column are. */
static int stats_col(const struct ms_table *t)
{
	return t->mode == MS_MODE_TENSOR ? 14 : 16;
}

int ms_result_col(const struct ms_table *t)
{
	switch (t->mode) {
	case MS_MODE_MD5: return 11;
	case MS_MODE_TENSOR: return 23;
	default: return 25;
	}
}

const char *const *ms_header(const struct ms_table *t, size_t *n)
{
	switch (t->mode) {
	case MS_MODE_MD5:
		*n = ARRAY_SIZE(md5_header) - !t->stack_mode;
		return md5_header;
	case MS_MODE_TENSOR:
		/* the stack column sits before Data_name */
		if (!t->stack_mode) {
			*n = ARRAY_SIZE(tensor_header_nostack);
			return tensor_header_nostack;
		}
		*n = ARRAY_SIZE(tensor_header);
		return tensor_header;
	default:
		*n = ARRAY_SIZE(statistics_header) - !t->stack_mode;
		return statistics_header;
	}
}

void ms_table_init(struct ms_table *t, enum ms_mode mode, bool stack_mode)
{
	memset(t, 0, sizeof(*t));
	t->mode = mode;
	t->stack_mode = stack_mode;
}

/* ---- whole-table inference ------------------------------------------------ */

static bool is_numeric(const struct pyval *v)
{
	return v->kind == PY_INT || v->kind == PY_FLOAT;
}

/* str(v) parses as an integer (what pandas.to_numeric keeps as int64). */
static bool is_intstr(const struct pyval *v)
{
	const char *s;
	size_t n, i = 0;
	if (v->kind == PY_INT)
		return true;
	if (v->kind != PY_STR)
		return false;
	s = v->text;
	n = v->len;
	if (n && (s[0] == '-' || s[0] == '+'))
		i = 1;
	if (i >= n)
		return false;
	for (; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static void observe_cell(struct ms_colstate *c, const struct pyval *v)
{
	if (!is_numeric(v))
		c->nonnumeric = true;
	else if (v->kind == PY_FLOAT)
		c->has_float = true;
	if (!is_intstr(v))
		c->nonintstr = true;
}

static const char *const na_text = "N/A";

static struct pyval na_value = { .kind = PY_STR, .text = "N/A", .len = 3 };

static const struct pyval *bench_stat(const struct ms_row *r, int i)
{
	return r->matched ? r->g.stat[i] : &na_value;
}

void ms_table_observe(struct ms_table *t, const struct ms_row *row)
{
	if (t->mode == MS_MODE_MD5)
		return;
	for (int i = 0; i < 4; i++) {
		observe_cell(&t->col[i], row->t.stat[i]);
		observe_cell(&t->col[4 + i], bench_stat(row, i));
		if (!row->matched)
			observe_cell(&t->unmatched[i], row->t.stat[i]);
	}
}

bool ms_row_final(const struct ms_table *t, const struct ms_row *row)
{
	if (t->at_end || t->mode == MS_MODE_MD5)
		return true;
	for (int i = 0; i < 8; i++)
		if (!t->col[i].nonnumeric)
			return false; /* a numeric column prints its ints as floats if a float comes */
	for (int i = 0; i < 4; i++)
		if (!t->col[i].nonintstr && !t->col[4 + i].nonintstr)
			return false; /* integer diffs while every cell is an integer */
	if (!row->matched)
		for (int i = 0; i < 4; i++)
			if (row->t.stat[i]->kind == PY_INT && !t->unmatched[i].nonnumeric)
				return false;
	return true;
}

/* The statistic as the table holds it once pandas has typed its column. */
static const struct pyval *typed_stat(const struct ms_table *t, const struct ms_row *r, int col, struct pyval *tmp)
{
	const struct pyval *v = col < 4 ? r->t.stat[col] : bench_stat(r, col - 4);
	bool to_float = false;
	if (v->kind != PY_INT)
		return v;
	if (!t->col[col].nonnumeric) {
		/*
		 * A side's four statistics columns are built as one block: a block of
		 * numbers with a float anywhere is float64 throughout; otherwise each
		 * numeric column is float64 when it holds a float.
		 */
		int first = col < 4 ? 0 : 4;
		bool block_numeric = true, block_float = false;
		for (int i = first; i < first + 4; i++) {
			block_numeric &= !t->col[i].nonnumeric;
			block_float |= t->col[i].has_float;
		}
		to_float = t->col[col].has_float || (block_numeric && block_float);
	} else if (col < 4 && !r->matched && !t->unmatched[col].nonnumeric) {
		to_float = t->unmatched[col].has_float;
	}
	if (!to_float)
		return v;
	pyval_set_float(tmp, pyval_float(v));
	return tmp;
}

/* ---- cell text ------------------------------------------------------------ */

static const char *arena_text(struct arena *a, const struct strbuf *sb)
{
	return arena_memdupz(a, sb->buf, sb->len);
}

/* A statistics cell: str(), with pandas' " inf" for float infinities in the CSV. */
static _Thread_local struct strbuf scratch[3] = {
	{ 0, 0, strbuf_empty }, { 0, 0, strbuf_empty }, { 0, 0, strbuf_empty },
};

void ms_release_thread(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(scratch); i++)
		strbuf_release(&scratch[i]);
}

static const char *stat_cell(const struct pyval *v, struct arena *a)
{
	if (pyval_is_inf(v, 0))
		return pyval_is_inf(v, 1) ? " inf" : " -inf";
	if ((v->kind == PY_STR || v->kind == PY_INT || (v->kind == PY_FLOAT && v->canonical)) && v->text)
		return v->text; /* already its own str() */
	strbuf_reset(&scratch[0]);
	pyval_str(&scratch[0], v);
	return arena_text(a, &scratch[0]);
}

/* ---- the workbook's cell types ---------------------------------------------- */

static enum ms_cell_type number_type(double x, double *num)
{
	if (isnan(x))
		return MS_CELL_EMPTY;
	if (isinf(x))
		return MS_CELL_TEXT;
	*num = x;
	return MS_CELL_NUMBER;
}

/* A statistic after pandas has typed its column (typed_stat). */
static enum ms_cell_type stat_type(const struct pyval *v, double *num)
{
	switch (v->kind) {
	case PY_BOOL: return v->b ? MS_CELL_TRUE : MS_CELL_FALSE;
	case PY_INT:
	case PY_FLOAT: return number_type(pyval_float(v), num);
	default: return MS_CELL_TEXT;
	}
}

/* A tensor metric: msprobe's float (its repr is the cell) or one of its words ("N/A", "Nan", "unsupported"). */
enum ms_cell_type ms_metric_cell_type(const char *cell, double *num)
{
	size_t n = strlen(cell);
	if (!n || !pyfmt_float_accepts(cell, n) || cell[0] == ' ' || cell[n - 1] == ' ')
		return MS_CELL_TEXT;
	if (!strcmp(cell, "nan") || !strcmp(cell, "-nan"))
		return MS_CELL_EMPTY;
	if (!pyfmt_is_canonical(cell, n) && strspn(cell + (cell[0] == '-'), "0123456789") != n - (cell[0] == '-'))
		return MS_CELL_TEXT; /* a float's repr, or an int's digits, only */
	return number_type(pyfmt_strtod(cell, NULL), num);
}

enum ms_cell_type ms_cell_type(const struct ms_table *t, const struct ms_row *r, size_t col, double *num)
{
	int s = stats_col(t);
	size_t n;
	ms_header(t, &n);
	if (col >= n)
		return MS_CELL_EMPTY;
	if (t->mode == MS_MODE_MD5)
		return col == 10 ? (!strcmp(r->cells[col], "True") ? MS_CELL_TRUE : MS_CELL_FALSE) : MS_CELL_TEXT;
	if (t->mode == MS_MODE_TENSOR && col >= 8 && col < 14)
		return ms_metric_cell_type(r->cells[col], num);
	if ((int)col >= s && (int)col < s + 8) {
		struct pyval tmp;
		return stat_type(typed_stat(t, r, (int)col - s, &tmp), num);
	}
	if ((int)col == s + 8)
		return !strcmp(r->cells[col], "True") ? MS_CELL_TRUE : MS_CELL_FALSE;
	return MS_CELL_TEXT;
}

/* ---- statistics diffs (section 5) ----------------------------------------- */

enum vclass { V_NAN, V_INF, V_NEG_INF, V_NUM, V_DEVICE, V_NA, V_OTHER };

static bool lower_is(const char *s, size_t n, const char *w)
{
	size_t wn = strlen(w);
	if (n != wn)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]) != w[i])
			return false;
	return true;
}

static bool contains_ci(const char *s, size_t n, const char *w)
{
	size_t wn = strlen(w);
	for (size_t i = 0; i + wn <= n; i++)
		if (lower_is(s + i, wn, w))
			return true;
	return false;
}

/*
 * pandas.to_numeric() of a string: pandas' own parser (precise_xstrtod),
 * which keeps 17 significant digits and scales them by one exact power of
 * ten.  It is not always correctly rounded, and msprobe's diffs carry its
 * last-digit differences, so they are reproduced here.  Leading and
 * trailing blanks are allowed; the whole text must be consumed.
 */
static double pow10[309];

static void pow10_init(void)
{
	for (int i = 0; i <= 308; i++) {
		char buf[16];
		snprintf(buf, sizeof(buf), "1e%d", i);
		pow10[i] = strtod(buf, NULL);
	}
}

static bool pandas_number(const char *s, size_t n, double *out)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	const char *p = s, *end = s + n;
	double number = 0;
	int exponent = 0, digits = 0, decimals = 0;
	bool negative = false;

	pthread_once(&once, pow10_init);
	while (p < end && isspace((unsigned char)*p))
		p++;
	if (p < end && (*p == '-' || *p == '+'))
		negative = *p++ == '-';
	for (; p < end && isdigit((unsigned char)*p); p++) {
		if (digits < 17) {
			number = number * 10. + (*p - '0');
			digits++;
		} else {
			exponent++;
		}
	}
	if (p < end && *p == '.') {
		p++;
		for (; p < end && digits < 17 && isdigit((unsigned char)*p); p++) {
			number = number * 10. + (*p - '0');
			digits++;
			decimals++;
		}
		while (p < end && isdigit((unsigned char)*p))
			p++;
		exponent -= decimals;
	}
	if (!digits)
		return false;
	if (negative)
		number = -number;
	if (p < end && (*p == 'e' || *p == 'E')) {
		const char *e = p++;
		bool eneg = false;
		int k = 0, ed = 0;
		if (p < end && (*p == '-' || *p == '+'))
			eneg = *p++ == '-';
		for (; p < end && ed < 4 && isdigit((unsigned char)*p); p++, ed++)
			k = k * 10 + (*p - '0');
		if (!ed)
			p = e; /* "1e": the e is not part of the number */
		exponent += eneg ? -k : k;
	}
	while (p < end && isspace((unsigned char)*p))
		p++;
	if (p != end)
		return false;
	if (exponent > 308)
		return false; /* pandas: out of range, not a number */
	else if (exponent > 0)
		number *= pow10[exponent];
	else if (exponent < -308)
		number = exponent < -616 ? 0. : number / pow10[-308 - exponent] / pow10[308];
	else
		number /= pow10[-exponent];
	if (isinf(number))
		return false;
	*out = number;
	return true;
}

/* pandas.to_numeric() of a string: its parser, and then the spellings of infinity it knows. */
static bool pandas_to_numeric(const char *s, size_t n, double *out)
{
	static const char *const pos[] = { "inf", "+inf", "infinity", "+infinity" };
	static const char *const neg[] = { "-inf", "-infinity" };
	if (pandas_number(s, n, out))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(pos); i++)
		if (n == strlen(pos[i]) && !strncasecmp(s, pos[i], n)) {
			*out = INFINITY;
			return true;
		}
	for (size_t i = 0; i < ARRAY_SIZE(neg); i++)
		if (n == strlen(neg[i]) && !strncasecmp(s, neg[i], n)) {
			*out = -INFINITY;
			return true;
		}
	return false;
}

static enum vclass classify(const struct pyval *v, const char *text, size_t n, double *num)
{
	if (pyval_is_nan(v) || lower_is(text, n, "nan"))
		return V_NAN;
	if (pyval_is_inf(v, 1) || lower_is(text, n, "inf"))
		return V_INF;
	if (pyval_is_inf(v, -1) || lower_is(text, n, "-inf"))
		return V_NEG_INF;
	/* the diff is taken on pandas.to_numeric(str(cell)), whatever the cell held */
	if ((v->kind == PY_INT || v->kind == PY_FLOAT || v->kind == PY_STR) && pandas_to_numeric(text, n, num))
		return V_NUM;
	if (contains_ci(text, n, "npu") || contains_ci(text, n, "cpu") || contains_ci(text, n, "cuda"))
		return V_DEVICE;
	if (n == 3 && !memcmp(text, "N/A", 3))
		return V_NA;
	return V_OTHER;
}

/* Fixed results of the rules table; NULL for NUM x NUM. */
static const char *rule(enum vclass a, enum vclass b)
{
	bool a_fin = a == V_NUM || a == V_NAN || a == V_INF || a == V_NEG_INF;
	bool b_fin = b == V_NUM || b == V_NAN || b == V_INF || b == V_NEG_INF;
	if (a == V_NUM && b == V_NUM)
		return NULL;
	if ((a == V_NAN && b_fin) || (b == V_NAN && a_fin))
		return "Nan";
	if (a == V_INF && (b == V_NUM || b == V_NEG_INF))
		return "inf";
	if (a == V_NEG_INF && (b == V_NUM || b == V_INF))
		return "-inf";
	if (a == V_NUM && b == V_INF)
		return "-inf";
	if (a == V_NUM && b == V_NEG_INF)
		return "inf";
	if (a == V_NA || b == V_NA)
		return "N/A";
	if (a == V_DEVICE && b == V_DEVICE)
		return "N/A";
	if ((a == V_DEVICE || a == V_OTHER) && b != V_NA)
		return "Diff";
	if ((b == V_DEVICE || b == V_OTHER) && a != V_NA)
		return "Diff";
	return "N/A";
}

void ms_stat_diff(const struct pyval *nv, const struct pyval *bv, bool integral, struct arena *a, const char **diff,
		  const char **rel)
{
	struct strbuf *ns = &scratch[0], *bs = &scratch[1], *out = &scratch[2];
	double x = 0, y = 0;
	enum vclass nc, bc;
	const char *fixed;

	strbuf_reset(ns);
	strbuf_reset(bs);
	strbuf_reset(out);
	pyval_str(ns, nv);
	pyval_str(bs, bv);
	if (ns->len == bs->len && !memcmp(ns->buf, bs->buf, ns->len)) {
		*diff = *rel = "0";
		return;
	}
	nc = classify(nv, ns->buf, ns->len, &x);
	bc = classify(bv, bs->buf, bs->len, &y);
	fixed = rule(nc, bc);
	if (fixed) {
		*diff = *rel = fixed;
		return;
	}
	if (integral) {
		/* both columns integral: pandas subtracts int64s */
		long long d = (long long)strtoll(ns->buf, NULL, 10) - (long long)strtoll(bs->buf, NULL, 10);
		strbuf_addf(out, "%lld", d);
		x = (double)d + y; /* keep x - y = d for the ratio */
	} else if (isinf(x - y)) {
		/* a float infinity: pandas' CSV writer shows it with a leading space, as any float inf */
		strbuf_addstr(out, x - y > 0 ? " inf" : " -inf");
	} else {
		pyfmt_double(out, x - y);
	}
	*diff = arena_text(a, out);
	strbuf_reset(out);
	if (y == 0) {
		*rel = "inf";
	} else {
		pyfmt_double(out, fabs((x - y) / y * 100));
		strbuf_addch(out, '%');
		*rel = arena_text(a, out);
	}
}

static void stat_diff(const struct ms_table *t, const struct ms_row *r, int i, struct arena *a, const char **diff,
		      const char **rel)
{
	struct pyval tn, tb;
	const struct pyval *nv = typed_stat(t, r, i, &tn), *bv = typed_stat(t, r, 4 + i, &tb);
	ms_stat_diff(nv, bv, !t->col[i].nonintstr && !t->col[4 + i].nonintstr, a, diff, rel);
}

/* ---- checkers (section 7) ------------------------------------------------- */

enum ignore { NO_IGNORE, INPUT_IGNORE, ALL_IGNORE };

static bool is_output_row(const struct ms_row *r)
{
	return r->t.output_row;
}

static enum ignore ignore_of(struct ms_row **rows, size_t n)
{
	static const char *const all[] = { "empty", "empty_like", "numpy", "to", "__setitem__", "empty_with_format",
					   "new_empty_strided", "new_empty", "empty_strided" };
	static const char *const inputs[] = { "_reduce_scatter_base", "_all_gather_base", "all_to_all_single",
					      "batch_isend_irecv" };
	for (size_t i = 0; i < n; i++) {
		const char *name = rows[i]->t.name, *a, *b;
		size_t len;
		if (is_output_row(rows[i]))
			continue;
		/* the second dot-separated part of the first input row's name */
		a = strchr(name, '.');
		if (!a)
			return NO_IGNORE;
		a++;
		b = strchr(a, '.');
		len = b ? (size_t)(b - a) : strlen(a);
		for (size_t k = 0; k < ARRAY_SIZE(all); k++)
			if (strlen(all[k]) == len && !memcmp(a, all[k], len))
				return ALL_IGNORE;
		for (size_t k = 0; k < ARRAY_SIZE(inputs); k++)
			if (strlen(inputs[k]) == len && !memcmp(a, inputs[k], len))
				return INPUT_IGNORE;
		return NO_IGNORE;
	}
	return NO_IGNORE;
}

static void raise_row(struct ms_row *r, enum ms_level level, const char *msg)
{
	if (level > r->result)
		r->result = level;
	if (r->nmsgs < MS_MAX_MSGS)
		r->msgs[r->nmsgs++] = msg;
}

/* Rows a per-row checker looks at under an ignore rule. */
static bool checked(const struct ms_row *r, enum ignore ig)
{
	return ig == NO_IGNORE || (ig == INPUT_IGNORE && is_output_row(r));
}

static bool inf_or_nan(const struct pyval *v)
{
	if (v->kind == PY_FLOAT)
		return pyval_is_nan(v) || pyval_is_inf(v, 0);
	if (v->kind == PY_STR) {
		const char *s = v->text;
		size_t n = v->len;
		while (n && isspace((unsigned char)*s))
			s++, n--;
		while (n && isspace((unsigned char)s[n - 1]))
			n--;
		return lower_is(s, n, "inf") || lower_is(s, n, "-inf") || lower_is(s, n, "nan");
	}
	return false;
}

double ms_str2float(const char *s)
{
	size_t n = strlen(s);
	char buf[128], *end;
	double v;
	while (n && s[0] == '%')
		s++, n--;
	while (n && s[n - 1] == '%')
		n--;
	if (!n || n >= sizeof(buf))
		return 0;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (lower_is(buf, n, "nan"))
		return NAN;
	if (lower_is(buf, n, "inf") || lower_is(buf, n, "+inf") || lower_is(buf, n, "infinity"))
		return INFINITY;
	if (lower_is(buf, n, "-inf") || lower_is(buf, n, "-infinity"))
		return -INFINITY;
	v = pyfmt_strtod(buf, &end);
	while (*end == ' ')
		end++;
	return *end ? 0 : v / 100;
}

/* ApiData.get_min_or_max_value over NormRelativeErr texts. */
static double norm_rel_max(struct ms_row **rows, size_t n, bool inputs)
{
	double m = 0.0;
	for (size_t i = 0; i < n; i++) {
		const char *v;
		size_t len;
		if (is_output_row(rows[i]) == inputs)
			continue;
		v = rows[i]->cells[15];
		len = strlen(v);
		if (!strcmp(v, "Nan") || !strcmp(v, "N/A") || !len || v[len - 1] != '%')
			continue; /* texts: "0", "inf", "Diff" are skipped like None */
		double x = ms_str2float(v);
		if (x > m) /* Python max(): a NaN never replaces the current value */
			m = x;
	}
	return m;
}

static const char MSG_INFNAN[] = "error: There is nan/inf/-inf in the maximum or minimum value of NPU.";
static const char MSG_RELERR[] = "error: The NormRelativeErr of output is greater than 0.5.";
static const char MSG_REQGRAD[] = "error: The Required_Grad of NPU and Bench are inconsistent";
static const char MSG_PARAMS[] = "error: The scalar parameters of NPU and Bench are inconsistent.";
static const char MSG_DTYPE[] = "error: The dtype of NPU and Bench are inconsistent.";
static const char MSG_SHAPE[] = "error: The shape of NPU and Bench are inconsistent.";
static const char MSG_RELWARN[] = "warning: The norm relative error of output is 10 times that of input.";
static const char MSG_CRC_ERR[] = "error: The CRC-32 value of NPU differs from that of the bench.";
static const char MSG_CRC_WARN[] = "warning: The parameter of NPU does not match the bench.";

static void check_inf_nan(const struct ms_table *t, struct ms_row **rows, size_t n, enum ignore ig)
{
	for (size_t i = 0; i < n; i++) {
		struct ms_row *r = rows[i];
		struct pyval a, b;
		if (!checked(r, ig))
			continue;
		if (inf_or_nan(typed_stat(t, r, 4, &a)) || inf_or_nan(typed_stat(t, r, 5, &b)))
			continue;
		if (inf_or_nan(typed_stat(t, r, 0, &a)) || inf_or_nan(typed_stat(t, r, 1, &b)))
			raise_row(r, MS_ERROR, MSG_INFNAN);
	}
}

static void check_relative_err(struct ms_row **rows, size_t n, enum ignore ig)
{
	if (ig != NO_IGNORE || fabs(norm_rel_max(rows, n, true)) >= 0.1)
		return;
	for (size_t i = 0; i < n; i++)
		if (is_output_row(rows[i]) && fabs(ms_str2float(rows[i]->cells[15])) > 0.5)
			raise_row(rows[i], MS_ERROR, MSG_RELERR);
}

static void check_requires_grad(struct ms_row **rows, size_t n, enum ignore ig)
{
	for (size_t i = 0; i < n; i++) {
		struct ms_row *r = rows[i];
		if (!checked(r, ig) || !r->matched)
			continue;
		if (strcmp(r->cells[C_NPU_RG], r->cells[C_BENCH_RG]))
			raise_row(r, MS_ERROR, MSG_REQGRAD);
	}
}

static void check_parameters(const struct ms_table *t, struct ms_row **rows, size_t n, enum ignore ig)
{
	if (ig != NO_IGNORE)
		return;
	for (size_t i = 0; i < n; i++) {
		struct ms_row *r = rows[i];
		struct pyval a, b;
		if (is_output_row(r) || !r->matched)
			continue;
		if (strcmp(r->t.shape, "[]") || !strstr(r->t.dtype, "class") || !strstr(r->g.dtype, "class"))
			continue; /* the cheapest test first: most rows are tensors with a shape */
		if (!pyval_eq(typed_stat(t, r, 0, &a), typed_stat(t, r, 4, &b)))
			raise_row(r, MS_ERROR, MSG_PARAMS);
	}
}

static void check_dtype(struct ms_row **rows, size_t n, enum ignore ig)
{
	for (size_t i = 0; i < n; i++) {
		struct ms_row *r = rows[i];
		if (!checked(r, ig) || !r->matched || !*r->t.dtype || !*r->g.dtype || !strcmp(r->t.dtype, r->g.dtype))
			continue;
		/* dtypes differ: an error unless the name is one msprobe lets through (searched only now) */
		if (!strstr(r->g.name, "qkv") && !strstr(r->g.name, "gate_up"))
			raise_row(r, MS_ERROR, MSG_DTYPE);
	}
}

static void check_shape(struct ms_row **rows, size_t n, enum ignore ig)
{
	for (size_t i = 0; i < n; i++) {
		struct ms_row *r = rows[i];
		if (!checked(r, ig) || !r->matched)
			continue;
		if (strcmp(r->t.shape, r->g.shape))
			raise_row(r, MS_ERROR, MSG_SHAPE);
	}
}

static struct ms_row *first_output(struct ms_row **rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (is_output_row(rows[i]))
			return rows[i];
	return NULL;
}

static void check_relative_warn(struct ms_row **rows, size_t n, enum ignore ig)
{
	struct ms_row *out = first_output(rows, n);
	double in_max, out_max;
	if (ig != NO_IGNORE || !out)
		return;
	in_max = fabs(norm_rel_max(rows, n, true));
	out_max = fabs(norm_rel_max(rows, n, false));
	if ((in_max == 0 && out_max > 0.1) || (in_max != 0 && out_max / in_max > 10))
		raise_row(out, MS_WARNING, MSG_RELWARN);
}

/*
 * ApiData.get_min_or_max_value over a tensor metric column: the numbers
 * (text ending in '%' divided by 100), skipping every other text;
 * `none`: the value when nothing qualifies (1.0 for a min).
 */
static double metric_min(struct ms_row **rows, size_t n, bool inputs, int col, double none)
{
	double m = none;
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		const char *v, *p;
		char *end;
		double x;
		if (is_output_row(rows[i]) == inputs)
			continue;
		v = rows[i]->cells[col];
		for (p = v; *p == ' '; p++)
			;
		if (!*p || !strcmp(p, "Nan") || !strcmp(p, "N/A"))
			continue;
		x = pyfmt_strtod(p, &end);
		if (*end == '%' && !end[1])
			x /= 100;
		else if (*end || isnan(x))
			continue; /* "unsupported", "shape unmatched", ... */
		if (!any || x < m) /* Python min(): a NaN never replaces the current value */
			m = x;
		any = true;
	}
	return m;
}

static const char MSG_ONE_THOUSANDTH[] =
	"error: The input/parameters of One Thousandth Err Ratio > 0.9 while the output < 0.6.";
static const char MSG_COSINE_WARN[] =
	"warning: The input/parameters of Cosine > 0.9, and input/parameters - output > 0.1";

/* msprobe 26.0.0 tests the output against 0.1 although its message says 0.6. */
static void check_one_thousandth(struct ms_row **rows, size_t n, enum ignore ig)
{
	struct ms_row *out = first_output(rows, n);
	if (ig != NO_IGNORE || !out)
		return;
	if (metric_min(rows, n, true, 12, 1.0) > 0.9 && metric_min(rows, n, false, 12, 1.0) < 0.1)
		raise_row(out, MS_ERROR, MSG_ONE_THOUSANDTH);
}

static void check_cosine_warn(struct ms_row **rows, size_t n, enum ignore ig)
{
	struct ms_row *out = first_output(rows, n);
	double a, b;
	if (ig != NO_IGNORE || !out)
		return;
	a = metric_min(rows, n, true, 8, 1.0);
	b = metric_min(rows, n, false, 8, 1.0);
	if (a > 0.9 && a - b > 0.1)
		raise_row(out, MS_WARNING, MSG_COSINE_WARN);
}

static void check_crc(struct ms_row **rows, size_t n, enum ignore ig)
{
	for (size_t i = 0; i < n; i++) {
		struct ms_row *r = rows[i];
		const char *a = r->cells[8], *b = r->cells[9];
		if (!checked(r, ig) || !strcmp(a, b))
			continue;
		if (!strcmp(a, "N/A") || !strcmp(a, "Nan") || !strcmp(b, "N/A") || !strcmp(b, "Nan"))
			raise_row(r, MS_WARNING, MSG_CRC_WARN);
		else
			raise_row(r, MS_ERROR, MSG_CRC_ERR);
	}
}

/* ---- rows ------------------------------------------------------------------ */

static void fill_prefix(const struct ms_row *r, const char **c)
{
	c[C_NPU_NAME] = r->t.name;
	c[C_BENCH_NAME] = r->matched ? r->g.name : na_text;
	c[C_NPU_DTYPE] = r->t.dtype;
	c[C_BENCH_DTYPE] = r->matched ? r->g.dtype : na_text;
	c[C_NPU_SHAPE] = r->t.shape;
	c[C_BENCH_SHAPE] = r->matched ? r->g.shape : na_text;
	c[C_NPU_RG] = r->t.req_grad ? r->t.req_grad : na_text;
	c[C_BENCH_RG] = r->matched && r->g.req_grad ? r->g.req_grad : na_text;
}

static const char *data_name_cell(const struct ms_row *r, struct arena *a);

static void fill_row(const struct ms_table *t, struct ms_row *r, struct arena *a)
{
	size_t n;
	const char **c;
	ms_header(t, &n);
	c = r->cells = arena_alloc(a, 32 * sizeof(*c));
	fill_prefix(r, c);
	if (t->mode == MS_MODE_MD5) {
		c[8] = r->t.md5 ? r->t.md5 : na_text;
		c[9] = r->matched && r->g.md5 ? r->g.md5 : na_text;
		c[10] = strcmp(c[C_NPU_RG], c[C_BENCH_RG]) ? "False" : "True";
		c[13] = r->stack ? r->stack : na_text;
		return;
	}
	if (t->mode == MS_MODE_TENSOR) {
		for (int i = 0; i < 6; i++)
			c[8 + i] = r->tensor_cells && r->tensor_cells[i] ? r->tensor_cells[i] : "unsupported";
	} else {
		for (int i = 0; i < 4; i++)
			stat_diff(t, r, i, a, &c[8 + i], &c[12 + i]);
	}
	int s = stats_col(t);
	for (int i = 0; i < 8; i++) {
		struct pyval tmp;
		c[s + i] = stat_cell(typed_stat(t, r, i, &tmp), a);
	}
	c[s + 8] = strcmp(c[C_NPU_RG], c[C_BENCH_RG]) ? "False" : "True";
	if (t->mode != MS_MODE_TENSOR) {
		c[27] = r->stack ? r->stack : na_text;
		return;
	}
	if (t->stack_mode)
		c[25] = r->stack ? r->stack : na_text;
	c[t->stack_mode ? 26 : 25] = data_name_cell(r, a);
}

/* Data_name: the Python list of the two file names, 'N/A' for an unmatched golden side. */
static const char *data_name_cell(const struct ms_row *r, struct arena *a)
{
	struct strbuf sb = STRBUF_INIT;
	const char *res;
	strbuf_addch(&sb, '[');
	pyval_repr_string(&sb, r->t.data_name, strlen(r->t.data_name));
	strbuf_addstr(&sb, ", ");
	if (r->matched)
		pyval_repr_string(&sb, r->g.data_name, strlen(r->g.data_name));
	else
		strbuf_addstr(&sb, "'N/A'");
	strbuf_addch(&sb, ']');
	res = arena_text(a, &sb);
	strbuf_release(&sb);
	return res;
}

static const char *level_name(enum ms_level l)
{
	return l == MS_ERROR ? "error" : l == MS_WARNING ? "warning" : "pass";
}

void ms_judge_group(const struct ms_table *t, struct ms_row **rows, size_t n, struct arena *a)
{
	enum ignore ig;
	for (size_t i = 0; i < n; i++) {
		rows[i]->result = MS_PASS;
		rows[i]->nmsgs = 0;
		fill_row(t, rows[i], a);
	}
	ig = ignore_of(rows, n);
	if (ig != ALL_IGNORE) {
		if (t->mode == MS_MODE_MD5) {
			check_crc(rows, n, ig);
		} else if (t->mode == MS_MODE_TENSOR) {
			check_inf_nan(t, rows, n, ig);
			check_one_thousandth(rows, n, ig);
			check_requires_grad(rows, n, ig);
			check_parameters(t, rows, n, ig);
			check_dtype(rows, n, ig);
			check_shape(rows, n, ig);
			check_cosine_warn(rows, n, ig);
		} else {
			check_inf_nan(t, rows, n, ig);
			check_relative_err(rows, n, ig);
			check_requires_grad(rows, n, ig);
			check_parameters(t, rows, n, ig);
			check_dtype(rows, n, ig);
			check_shape(rows, n, ig);
			check_relative_warn(rows, n, ig);
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct ms_row *r = rows[i];
		struct strbuf sb = STRBUF_INIT;
		int res_col = ms_result_col(t);
		strbuf_addch(&sb, '[');
		for (int k = 0; k < r->nmsgs; k++) {
			if (k)
				strbuf_addstr(&sb, ", ");
			jsonw_str(&sb, r->msgs[k]);
		}
		strbuf_addch(&sb, ']');
		r->err_message = arena_text(a, &sb);
		r->cells[res_col] = level_name(r->result);
		r->cells[res_col + 1] = r->err_message;
		strbuf_release(&sb);
	}
}
