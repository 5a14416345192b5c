/*
 * atbtab.c: msprobe's ATB compare table and our verdict (atbtab.h).
 */
#include "../core/compat.h"
#include "../msprobe/naming.h"
#include "atbtab.h"
#include "tmetric.h"
#include "verdict.h"
#include "../core/msg.h"
#include "../core/partial.h"
#include "../core/xalloc.h"
#include "../core/xlsxw.h"
#include "../json/jsonw.h"
#include "../json/recscan.h"
#include "../msprobe/mscsv.h"
#include "../msprobe/pyfmt.h"
#include "../records/leafrec.h"
#include "../records/pair.h"
#include "../tensors/tensor.h"

#include <errno.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the columns ------------------------------------------------------------------------ */

enum { NCOMMON = 10, NSTATS = 8, NSPECIAL_STATS = 8, NSPECIAL_TENSOR = 6, NCOLS = NCOMMON + NSPECIAL_STATS + NSTATS };

static const char *const common_header[NCOMMON] = {
	"Target Data Name", "Golden Data Name", "Target Device and PID", "Golden Device and PID",
	"Target Execution Count", "Golden Execution Count", "Target Data Type", "Golden Data Type",
	"Target Data Shape", "Golden Data Shape",
};
static const char *const stats_header[NSPECIAL_STATS] = {
	"Max Diff", "Min Diff", "Mean Diff", "Norm Diff", "Relative Err of Max(%)", "Relative Err of Min(%)",
	"Relative Err of Mean(%)", "Relative Err of Norm(%)",
};
static const char *const tensor_header[NSPECIAL_TENSOR] = {
	"Cosine", "Euc Distance", "Max Absolute Err", "Max Relative Err", "One Thousandth Err Ratio",
	"Five Thousandth Err Ratio",
};
static const char *const stat_header[NSTATS] = {
	"Target Max", "Golden Max", "Target Min", "Golden Min", "Target Mean", "Golden Mean", "Target Norm", "Golden Norm",
};

static const char na[] = "N/A";

struct row {
	char *cells[NCOLS];
	size_t ncells;
};

struct group {
	char *process;   /* the target's Device and PID */
	int64_t exec;
	size_t from, to; /* its rows */
};

struct atb_table {
	struct atb_table_options opts;
	int mode;        /* -1: not known yet; 0 statistics; 1 tensor */
	struct row *rows;
	size_t nr, alloc;
	struct group *groups;
	size_t ngroups, galloc;
	int64_t cur_rank, cur_step;
	bool have_group;
	struct atb_table_stats st;
	size_t lines;
	struct strbuf first_unmatched, first_golden_only;
};

struct atb_table *atb_table_new(const struct atb_table_options *opts)
{
	struct atb_table *t = xcalloc(1, sizeof(*t));
	t->opts = *opts;
	t->mode = -1;
	strbuf_init(&t->first_unmatched, 0);
	strbuf_init(&t->first_golden_only, 0);
	return t;
}

void atb_table_free(struct atb_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr; i++)
		for (size_t c = 0; c < t->rows[i].ncells; c++)
			free(t->rows[i].cells[c]);
	for (size_t i = 0; i < t->ngroups; i++)
		free(t->groups[i].process);
	free(t->rows);
	free(t->groups);
	strbuf_release(&t->first_unmatched);
	strbuf_release(&t->first_golden_only);
	free(t);
}

bool atb_pair_line(const char *line, size_t len)
{
	static const char want[] = "\"type\":\"atb.Tensor\"";
	const size_t n = sizeof(want) - 1;
	for (const char *p = line, *end = line + len; (size_t)(end - p) >= n; p++) {
		p = memchr(p, '"', (size_t)(end - p) - n + 1);
		if (!p)
			return false;
		if (!memcmp(p, want, n))
			return true;
	}
	return false;
}

static size_t ncols(const struct atb_table *t)
{
	return NCOMMON + (t->mode == 1 ? NSPECIAL_TENSOR : NSPECIAL_STATS) + NSTATS;
}

static const char *col_name(const struct atb_table *t, size_t c)
{
	size_t nspecial = t->mode == 1 ? NSPECIAL_TENSOR : NSPECIAL_STATS;
	if (c < NCOMMON)
		return common_header[c];
	if (c < NCOMMON + nspecial)
		return t->mode == 1 ? tensor_header[c - NCOMMON] : stats_header[c - NCOMMON];
	return stat_header[c - NCOMMON - nspecial];
}

/* ---- the cells ------------------------------------------------------------------------ */

/* A field as the text msprobe read from statistic.csv: a string's contents, a number's text, else N/A. */
static void field_text(const struct leafrec *r, enum leaf_field f, struct strbuf *out)
{
	const struct span *s = &r->f[f];
	strbuf_reset(out);
	if (s->kind == SPAN_STRING)
		span_string(s, out);
	else if (s->kind == SPAN_NUMBER)
		strbuf_add(out, s->p, s->n);
	else
		strbuf_addstr(out, na);
}

static void shape_text(const struct leafrec *r, struct strbuf *out)
{
	const struct span *s = &r->f[LF_SHAPE];
	strbuf_reset(out);
	for (size_t i = 0; s->kind == SPAN_ARRAY && i < s->n; i++) {
		char ch = s->p[i];
		if (ch >= '0' && ch <= '9')
			strbuf_addch(out, ch);
		else if (ch == ',')
			strbuf_addch(out, 'x');
	}
}

static void add_cell(struct row *r, const char *text, size_t n)
{
	r->cells[r->ncells++] = xmemdupz(text, n);
}

static void add_cell_str(struct row *r, const char *text)
{
	add_cell(r, text, strlen(text));
}

static void add_common(struct row *row, const struct pair *p, struct strbuf *a, struct strbuf *b)
{
	static const enum leaf_field fields[] = { LF_NAME, LF_PROCESS, LF_STEP, LF_DTYPE, LF_SHAPE };
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		if (fields[i] == LF_SHAPE) {
			shape_text(&p->t, a);
			shape_text(&p->g, b);
		} else {
			field_text(&p->t, fields[i], a);
			field_text(&p->g, fields[i], b);
		}
		add_cell(row, a->buf, a->len);
		add_cell(row, b->buf, b->len);
	}
}

/* Python's float() of a cell: false when it would raise. */
static bool py_float(const struct strbuf *s, double *out)
{
	if (!pyfmt_float_accepts(s->buf, s->len))
		return false;
	*out = pyfmt_strtod(s->buf, NULL);
	return true;
}

/* cal_comparison_metrics_by_stats: the diffs, the relative errors, the statistics as the rows have them. */
static void add_stats_cells(struct row *row, const struct pair *p)
{
	struct strbuf tv[4], gv[4], cell = STRBUF_INIT;
	const char *diff[4], *rel[4];
	char *own[8] = { 0 };
	for (int k = 0; k < 4; k++) {
		double x, y;
		strbuf_init(&tv[k], 0);
		strbuf_init(&gv[k], 0);
		field_text(&p->t, LF_MAX + k, &tv[k]);
		field_text(&p->g, LF_MAX + k, &gv[k]);
		diff[k] = rel[k] = na;
		if (!py_float(&tv[k], &x) || !py_float(&gv[k], &y))
			continue;
		double d = x - y;
		strbuf_reset(&cell);
		pyfmt_double(&cell, d);
		diff[k] = own[k] = strbuf_detach(&cell, NULL);
		if (d == 0) {
			rel[k] = "0.0";
		} else if (y != 0) {
			pyfmt_double(&cell, fabs(d / y * 100));
			rel[k] = own[4 + k] = strbuf_detach(&cell, NULL);
		}
	}
	for (int k = 0; k < 4; k++)
		add_cell_str(row, diff[k]);
	for (int k = 0; k < 4; k++)
		add_cell_str(row, rel[k]);
	for (int k = 0; k < 4; k++) {
		add_cell(row, tv[k].buf, tv[k].len);
		add_cell(row, gv[k].buf, gv[k].len);
		strbuf_release(&tv[k]);
		strbuf_release(&gv[k]);
	}
	for (int i = 0; i < 8; i++)
		free(own[i]);
	strbuf_release(&cell);
}

/* A value of the tensor's own type, as its .item() prints it. */
static double round_to(enum dtype d, double x)
{
	float f = (float)x;
	if (d == DT_BFLOAT16)
		return dtype_bf16_to_float(dtype_float_to_bf16(f));
	if (d == DT_FLOAT16)
		return dtype_half_to_float(dtype_float_to_half(f));
	return f;
}

static void stat_cell(char out[48], double x)
{
	struct strbuf sb = STRBUF_INIT;
	if (isnan(x)) {
		snprintf(out, 48, "%s", na);
	} else {
		pyfmt_double(&sb, x);
		snprintf(out, 48, "%s", sb.buf);
	}
	strbuf_release(&sb);
}

/*
 * torch's sum of float32 on the CPU (its cascade_sum, read from
 * SumKernel.cpp, with AVX2's 8 float lanes): the elements as vectors of
 * `lanes` (1 when there are fewer than 8), the vectors as rows of 4 summed
 * with a 4-level cascade (a level of 2^max(4, ceil(log2 rows) / 4) rows),
 * the vectors left over added to the first row's sum, the four row sums
 * added, then the elements left over and the lanes, in order, into a
 * scalar.  Fed element by element, in row-major order.
 */
struct torch_sum {
	int64_t n, nvec, rows, level_power, done_rows, at;
	int lanes;
	float acc[4][4][8];  /* [level][row of the 4][lane] */
	float tail;          /* the elements after the last whole vector */
	bool combined;
};

static int ceil_log2(int64_t x)
{
	int k = 0;
	while (((int64_t)1 << k) < x)
		k++;
	return k;
}

static void torch_sum_init(struct torch_sum *s, int64_t n)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	s->lanes = n >= 8 ? 8 : 1;
	s->nvec = n / s->lanes;
	s->rows = s->nvec / 4;
	s->level_power = ceil_log2(s->rows) / 4 > 4 ? ceil_log2(s->rows) / 4 : 4;
}

/* After a whole row: the cascade of multi_row_sum when a block of levels is done. */
static void torch_sum_row_done(struct torch_sum *s)
{
	int64_t step = (int64_t)1 << s->level_power, mask = step - 1;
	s->done_rows++;
	if (s->done_rows % step)
		return;
	for (int j = 1; j < 4; j++) {
		for (int k = 0; k < 4; k++)
			for (int l = 0; l < s->lanes; l++) {
				s->acc[j][k][l] += s->acc[j - 1][k][l];
				s->acc[j - 1][k][l] = 0;
			}
		if (s->done_rows & (mask << (j * s->level_power)))
			break;
	}
}

/* The rows' levels into level 0, once all rows are in. */
static void torch_sum_combine(struct torch_sum *s)
{
	if (s->combined)
		return;
	for (int j = 1; j < 4; j++)
		for (int k = 0; k < 4; k++)
			for (int l = 0; l < s->lanes; l++)
				s->acc[0][k][l] += s->acc[j][k][l];
	s->combined = true;
}

static void torch_sum_add(struct torch_sum *s, float x)
{
	int64_t e = s->at++, v = e / s->lanes;
	int l = (int)(e % s->lanes);
	if (v < s->rows * 4) {
		s->acc[0][v % 4][l] += x;
		if (v % 4 == 3 && l == s->lanes - 1)
			torch_sum_row_done(s);
	} else if (v < s->nvec) {
		torch_sum_combine(s);
		s->acc[0][0][l] += x;
	} else {
		s->tail += x;
	}
}

static float torch_sum_result(struct torch_sum *s)
{
	float fin = s->tail;
	torch_sum_combine(s);
	for (int k = 1; k < 4; k++)
		for (int l = 0; l < s->lanes; l++)
			s->acc[0][0][l] += s->acc[0][k][l];
	for (int l = 0; l < s->lanes; l++)
		fin += s->acc[0][0][l];
	return fin;
}

/* A float rounded to float16 (done in float, as torch adds two halves). */
static float as_half(float x)
{
	return dtype_half_to_float(dtype_float_to_half(x));
}

/* float16 element i of raw (this machine's byte order), as a float. */
static float half_at(const unsigned char *raw, int64_t i)
{
	uint16_t h;
	memcpy(&h, raw + 2 * i, 2);
	return dtype_half_to_float(h);
}

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
/* The same, in the processor's F16C instructions (round to nearest even, as dtype_float_to_half()). */
__attribute__((target("f16c"))) static float as_half_f16c(float x)
{
	return _cvtsh_ss(_cvtss_sh(x, _MM_FROUND_TO_NEAREST_INT));
}

/* n squares of float16 values (as floats) added one after the other in float16, from sq. */
__attribute__((target("f16c"))) static float half_squares_f16c(float sq, const float *x, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		sq = as_half_f16c(sq + as_half_f16c(x[i] * x[i]));
	return sq;
}

/* n float16 values at raw (any alignment) as floats, eight at a time. */
__attribute__((target("avx,f16c"))) static void halves_to_floats_f16c(const unsigned char *raw, int64_t n, float *f)
{
	int64_t i = 0;
	for (; i + 8 <= n; i += 8)
		_mm256_storeu_ps(f + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(raw + 2 * i))));
	for (; i < n; i++)
		f[i] = half_at(raw, i);
}
#endif

static float half_squares_plain(float sq, const float *x, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		sq = as_half(sq + as_half(x[i] * x[i]));
	return sq;
}

#if defined(__x86_64__) || defined(__i386__)
/* F16C and AVX usable: the CPUID bits and the OS saving the YMM registers (clang 14's
 * __builtin_cpu_supports does not know "f16c", so CPUID is read directly). */
static bool f16c_avx_usable;
static pthread_once_t f16c_avx_once = PTHREAD_ONCE_INIT;

static void read_f16c_avx(void)
{
	unsigned a, b, c, d;
	bool ok = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) && (c & bit_AVX) && (c & bit_OSXSAVE);
	if (ok) {
		unsigned lo, hi;
		__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
		ok = (lo & 6) == 6;
	}
	f16c_avx_usable = ok;
}

static bool cpu_has_f16c_avx(void)
{
	pthread_once(&f16c_avx_once, read_f16c_avx);
	return f16c_avx_usable;
}
#endif

/* The float16 chain of squares, in F16C where the processor has it (a long chain of roundings). */
static float half_squares(float sq, const float *x, int64_t n)
{
#if defined(__x86_64__) || defined(__i386__)
	if (cpu_has_f16c_avx())
		return half_squares_f16c(sq, x, n);
#endif
	return half_squares_plain(sq, x, n);
}

static void halves_to_floats(const unsigned char *raw, int64_t n, float *f)
{
#if defined(__x86_64__) || defined(__i386__)
	if (cpu_has_f16c_avx()) {
		halves_to_floats_f16c(raw, n, f);
		return;
	}
#endif
	for (int64_t i = 0; i < n; i++)
		f[i] = half_at(raw, i);
}

/* n bfloat16 values at raw (any alignment) as floats: their 16 bits above 16 zero bits. */
static void bf16s_to_floats(const unsigned char *raw, int64_t n, float *f)
{
	for (int64_t i = 0; i < n; i++) {
		uint16_t h;
		uint32_t bits;
		memcpy(&h, raw + 2 * i, 2);
		bits = (uint32_t)h << 16;
		memcpy(&f[i], &bits, 4);
	}
}

/* What tensor_stats() gathers; each dtype's loop fills the part its cells need. */
struct stat_acc {
	double mx, mn, sum, sq;
	float sq32, sq16;
	bool any, all, nan_seen;
	struct torch_sum ts;
};

static void acc_bool(struct stat_acc *a, const unsigned char *raw, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		a->any |= raw[i] != 0;
		a->all &= raw[i] != 0;
	}
}

static void acc_min_max(struct stat_acc *a, double v)
{
	if (isnan(v)) {
		a->nan_seen = true;
	} else {
		a->mx = v > a->mx ? v : a->mx;
		a->mn = v < a->mn ? v : a->mn;
	}
}

/*
 * float16 and bfloat16: max, min, and the sum and squares in double, in
 * eight lanes added at the end (each lane's sums of these short values are
 * exact in double until the values span some 37 binary orders of
 * magnitude, so the order is not seen in practice); float16 also its chain
 * of squares.
 */
static void acc_half(struct stat_acc *a, const unsigned char *raw, int64_t n, bool f16, float *f)
{
	enum { LANES = 8 };
	double sum[LANES] = { 0 }, sq[LANES] = { 0 }, mx[LANES], mn[LANES];
	int64_t i = 0;
	if (f16)
		halves_to_floats(raw, n, f);
	else
		bf16s_to_floats(raw, n, f);
	for (int l = 0; l < LANES; l++)
		mx[l] = a->mx, mn[l] = a->mn;
	for (; i + LANES <= n; i += LANES) {
		for (int l = 0; l < LANES; l++) {
			double v = f[i + l];
			mx[l] = v > mx[l] ? v : mx[l];
			mn[l] = v < mn[l] ? v : mn[l];
			sum[l] += v;
			sq[l] += v * v;
		}
	}
	for (; i < n; i++) {
		double v = f[i];
		mx[0] = v > mx[0] ? v : mx[0];
		mn[0] = v < mn[0] ? v : mn[0];
		sum[0] += v;
		sq[0] += v * v;
	}
	for (int l = 0; l < LANES; l++) {
		a->mx = mx[l] > a->mx ? mx[l] : a->mx;
		a->mn = mn[l] < a->mn ? mn[l] : a->mn;
	}
	for (int l = 0; l < LANES; l += 2) {
		a->sum += sum[l] + sum[l + 1];
		a->sq += sq[l] + sq[l + 1];
	}
	/* a NaN makes its square NaN, and nothing else does: squares of infinities only add up to inf */
	a->nan_seen |= isnan(a->sq);
	if (f16)
		a->sq16 = half_squares(a->sq16, f, n);
}

/* Everything else, as float32: max, min, torch's cascade sum, the squares one after the other. */
static void acc_float(struct stat_acc *a, const float *v, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		acc_min_max(a, v[i]);
		torch_sum_add(&a->ts, v[i]);
		a->sq32 += v[i] * v[i];
	}
}

/*
 * cal_single_tensor_stats on a valid tensor: Max, Min, Mean, Norm as torch
 * gives them on the CPU, checked on msprobe's output for the fixtures.
 * Integers and float64 become float32 first.  float32: the mean is torch's
 * cascade sum (above) divided by the count, the norm the square root of
 * the squares added one after the other in float.  float16: the norm's
 * squares added in float16 one after the other (msprobe's 5.73828125 for
 * a tensor whose norm is 5.750055), the mean in double rounded; bfloat16:
 * both in double, rounded to float and then to bfloat16.  A NaN makes max
 * and min nan (shown N/A).
 */
static void tensor_stats(const struct tensor *t, char cells[4][48])
{
	enum { CHUNK = 1 << 16 };
	bool is_bool = t->dtype == DT_BOOL;
	bool f16 = t->dtype == DT_FLOAT16, bf16 = t->dtype == DT_BFLOAT16;
	struct stat_acc a = { .mx = -INFINITY, .mn = INFINITY, .all = true };
	unsigned char *buf;
	float *f;
	for (int k = 0; k < 4; k++)
		snprintf(cells[k], 48, "%s", na);
	if (!t->numel || !t->ndim)
		return;
	buf = xmalloc(CHUNK * sizeof(float)); /* a chunk of float32, or of the raw one- and two-byte types */
	f = xmalloc(CHUNK * sizeof(float));   /* a chunk of float16 or bfloat16 as floats */
	torch_sum_init(&a.ts, t->numel);
	for (int64_t at = 0; at < t->numel; at += CHUNK) {
		int64_t n = t->numel - at < CHUNK ? t->numel - at : CHUNK;
		if (is_bool || f16 || bf16) {
			const unsigned char *raw = buf; /* in place where the bytes are as they are (any alignment) */
			if (t->contiguous && !t->swapped)
				raw = t->data + (size_t)at * dtype_info(t->dtype)->size;
			else
				tensor_read_raw(t, at, n, buf);
			if (is_bool)
				acc_bool(&a, raw, n);
			else
				acc_half(&a, raw, n, f16, f);
		} else {
			tensor_read_f32(t, at, n, (float *)(void *)buf);
			acc_float(&a, (const float *)(const void *)buf, n);
		}
	}
	free(buf);
	free(f);
	if (is_bool) {
		snprintf(cells[0], 48, "tensor(%s)", a.any ? "True" : "False");
		snprintf(cells[1], 48, "tensor(%s)", a.all ? "True" : "False");
		return;
	}
	stat_cell(cells[0], a.nan_seen ? NAN : a.mx);
	stat_cell(cells[1], a.nan_seen ? NAN : a.mn);
	if (f16 || bf16) {
		stat_cell(cells[2], round_to(t->dtype, (double)(float)(a.sum / (double)t->numel)));
		stat_cell(cells[3], f16 ? as_half(sqrtf(a.sq16)) : round_to(t->dtype, (double)(float)sqrt(a.sq)));
	} else {
		stat_cell(cells[2], (float)(torch_sum_result(&a.ts) / (float)t->numel));
		stat_cell(cells[3], sqrtf(a.sq32));
	}
}

/* A metric cell of tmetric.h as compare_single_tensor str()s it: a float's repr, else N/A. */
static void metric_cell(struct row *row, const char *cell)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = strlen(cell);
	while (n && *cell == ' ')
		cell++, n--;
	if (!pyfmt_float_accepts(cell, n)) {
		add_cell_str(row, na);
	} else {
		double x = pyfmt_strtod(cell, NULL);
		if (isnan(x)) {
			add_cell_str(row, na);
		} else {
			pyfmt_double(&sb, x);
			add_cell(row, sb.buf, sb.len);
		}
	}
	strbuf_release(&sb);
}

struct side_file {
	struct tensor t;
	bool open;      /* ours: the file (an alias's target) */
	bool ms_valid;  /* msprobe's: open, and not an alias */
};

static void open_side(const struct leafrec *r, struct side_file *s, struct strbuf *problem)
{
	struct strbuf path = STRBUF_INIT;
	leafrec_str(r, LF_DATA, &path);
	s->open = path.len && tensor_open(&s->t, path.buf, problem) == 0;
	if (!path.len && !problem->len)
		strbuf_addstr(problem, "no tensor file named in the record");
	s->ms_valid = s->open && r->f[LF_ALIAS].kind != SPAN_STRING;
	strbuf_release(&path);
}

/* A side's statistics worked out on a thread of their own. */
struct stats_job {
	const struct tensor *t;
	char cells[4][48];
};

/* Below this many elements a thread costs more than it saves. */
#define STATS_THREAD_MIN ((int64_t)1 << 18)

static void *stats_job_run(void *arg)
{
	struct stats_job *job = arg;
	tensor_stats(job->t, job->cells);
	return NULL;
}

/* cal_comparison_metrics_by_tensor for one row, and the elements compared for our verdict. */
static void add_tensor_cells(struct atb_table *t, struct row *row, const struct pair *p, struct tmetric *tm,
			     bool *compared, struct strbuf *problem)
{
	struct side_file ts = { 0 }, gs = { 0 };
	const struct tm_band band = { t->opts.rtol, t->opts.atol, 0 };
	char tc[4][48], gc[4][48];
	struct stats_job job = { 0 };
	pthread_t helper;
	bool threaded;
	open_side(&p->t, &ts, problem);
	open_side(&p->g, &gs, problem);
	*compared = false;
	for (int k = 0; k < 4; k++)
		snprintf(tc[k], 48, "%s", na), snprintf(gc[k], 48, "%s", na);
	/* the target's statistics on a second thread while the tensors are compared: two passes at once */
	job.t = &ts.t;
	threaded = ts.ms_valid && t->opts.jobs > 1 && ts.t.numel >= STATS_THREAD_MIN &&
		   !pthread_create(&helper, NULL, stats_job_run, &job);
	tmetric_unsupported(tm, "");
	if (ts.open && gs.open) {
		if (tmetric_compare_files(&ts.t, &gs.t, &band, tm, problem) == 0)
			*compared = verdict_tensor_declared(&p->t, &ts.t, "target", problem) == 0 &&
				    verdict_tensor_declared(&p->g, &gs.t, "golden", problem) == 0;
	}
	if (threaded) {
		pthread_join(helper, NULL);
		memcpy(tc, job.cells, sizeof(tc));
	} else if (ts.ms_valid) {
		tensor_stats(&ts.t, tc);
	}
	if (gs.ms_valid && ts.ms_valid && *compared && tm->same) /* the same dtype, shape and bytes: the same cells */
		memcpy(gc, tc, sizeof(gc));
	else if (gs.ms_valid)
		tensor_stats(&gs.t, gc);
	for (int c = 0; c < NSPECIAL_TENSOR; c++)
		metric_cell(row, ts.ms_valid && gs.ms_valid ? tm->cell[c] : na);
	for (int k = 0; k < 4; k++) {
		add_cell_str(row, tc[k]);
		add_cell_str(row, gc[k]);
	}
	if (ts.open)
		tensor_close(&ts.t);
	if (gs.open)
		tensor_close(&gs.t);
}

/* ---- the records ---------------------------------------------------------------------- */

static void emit_ndjson(const struct atb_table *t, const struct pair *p, const struct row *row,
			const struct verdict_result *v, const struct tmetric *tm, bool compared, const char *problem,
			struct strbuf *out)
{
	size_t end = p->len;
	while (end && p->line[end - 1] != '}')
		end--;
	strbuf_add(out, p->line, end - 1);
	strbuf_addstr(out, ",\"msprobe\":");
	if (!row) {
		strbuf_addstr(out, "null");
	} else {
		strbuf_addf(out, "{\"mode\":\"%s\",\"table\":\"atb\"", t->mode == 1 ? "tensor" : "statistics");
		for (size_t c = NCOMMON; c < row->ncells; c++) {
			strbuf_addch(out, ',');
			jsonw_str(out, col_name(t, c));
			strbuf_addch(out, ':');
			jsonw_str(out, row->cells[c]);
		}
		strbuf_addch(out, '}');
	}
	strbuf_addstr(out, ",\"verdict\":");
	jsonw_str(out, verdict_name(v->verdict));
	strbuf_addstr(out, ",\"reason\":");
	jsonw_string(out, v->reason.buf, v->reason.len);
	if (p->has_t && p->has_g)
		verdict_write_metrics(out, &p->t, &p->g, t->mode == 1 ? tm : NULL, compared, problem);
	strbuf_addstr(out, "}\n");
}

/* The task of a leaf: 1 tensor, 0 statistics. */
static int task_of(const struct leafrec *r)
{
	return span_str_eq(&r->f[LF_TASK], "tensor", 6) ? 1 : 0;
}

static int decide_mode(struct atb_table *t, const struct pair *p, struct strbuf *err)
{
	if (t->mode >= 0 || !p->has_t || !p->has_g)
		return 0;
	int tm = task_of(&p->t), gm = task_of(&p->g);
	if (tm != gm) {
		strbuf_addf(err, "the target is an ATB %s dump and the golden a %s dump: msprobe compares like with like "
				 "only (\"Unvalid ATB dump data\", and no file)", tm ? "tensor" : "statistics",
			    gm ? "tensor" : "statistics");
		return PROBE_ERR_LINE;
	}
	t->mode = tm;
	return 0;
}

static void count(struct atb_table *t, const struct pair *p, enum verdict v)
{
	struct strbuf *first = !p->has_g ? &t->first_unmatched : !p->has_t ? &t->first_golden_only : NULL;
	t->st.pairs++;
	switch (v) {
	case VERDICT_SAME: t->st.same++; break;
	case VERDICT_DIFF: t->st.diff++; break;
	case VERDICT_UNMATCHED: t->st.unmatched++; break;
	case VERDICT_GOLDEN_ONLY: t->st.golden_only++; break;
	case VERDICT_UNREADABLE: t->st.unreadable++; break;
	}
	if (first && !first->len)
		leafrec_str(p->has_t ? &p->t : &p->g, LF_NAME, first);
}

/* A row of another exec folder pair than the last starts a group (a table of its own). */
static void track_group(struct atb_table *t, const struct pair *p)
{
	const struct leafrec *r = p->has_t ? &p->t : &p->g;
	if (t->have_group && r->rank == t->cur_rank && r->step == t->cur_step)
		return;
	if (!p->has_t)
		return; /* golden-only leaves come after their group's target rows */
	struct strbuf proc = STRBUF_INIT;
	leafrec_str(r, LF_PROCESS, &proc);
	ALLOC_GROW(t->groups, t->ngroups + 1, t->galloc);
	t->groups[t->ngroups++] = (struct group){ strbuf_detach(&proc, NULL), r->step, t->nr, t->nr };
	t->have_group = true;
	t->cur_rank = r->rank;
	t->cur_step = r->step;
}

int atb_table_add(struct atb_table *t, const char *line, size_t len, struct strbuf *out, struct strbuf *err)
{
	struct pair p;
	struct verdict_result v = { .reason = STRBUF_INIT };
	const struct verdict_options vo = { t->opts.rtol, t->opts.atol, false };
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, problem = STRBUF_INIT;
	struct tmetric tm;
	struct row row = { 0 }, *kept = NULL;
	bool compared = false;
	int ret;

	t->lines++;
	if (pair_parse(&p, line, len, err) < 0)
		return PROBE_ERR_LINE;
	if ((ret = decide_mode(t, &p, err)) < 0)
		return ret;
	track_group(t, &p);
	verdict_pair(p.has_t ? &p.t : NULL, p.has_g ? &p.g : NULL, &vo, &v);
	if (p.has_t && p.has_g) {
		if (task_of(&p.t) != t->mode || task_of(&p.g) != t->mode) {
			strbuf_addstr(err, "an ATB statistics dump and a tensor dump in one comparison: msprobe takes each "
					   "exec folder's mode from its first row, and compares like with like only");
			strbuf_release(&v.reason);
			return PROBE_ERR_LINE;
		}
		add_common(&row, &p, &a, &b);
		if (t->mode == 1) {
			add_tensor_cells(t, &row, &p, &tm, &compared, &problem);
			verdict_tensor(&v, compared ? &tm : NULL, problem.len ? problem.buf : "the tensors were not compared");
		} else {
			add_stats_cells(&row, &p);
		}
		ALLOC_GROW(t->rows, t->nr + 1, t->alloc);
		t->rows[t->nr] = row;
		kept = &t->rows[t->nr++];
		t->groups[t->ngroups - 1].to = t->nr;
		t->st.rows++;
	}
	count(t, &p, v.verdict);
	if (t->opts.output == ATB_NDJSON)
		emit_ndjson(t, &p, kept, &v, &tm, compared, problem.len ? problem.buf : NULL, out);
	strbuf_release(&v.reason);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&problem);
	return 0;
}

/* ---- the table ---------------------------------------------------------------------------- */

/* msprobe's save_excel refuses a cell its formula guard flags: so does this table, with its message. */
static int refused(const struct atb_table *t, const struct group *g, struct strbuf *err)
{
	for (size_t i = g->from; i < g->to; i++)
		for (size_t c = 0; c < t->rows[i].ncells; c++)
			if (mscsv_refused(t->rows[i].cells[c])) {
				strbuf_addf(err, "msprobe would write no table: its formula guard refuses the cell %s of "
						 "row %zu (\"Malicious value [%s] not allowed to be written into the %s\")",
					    col_name(t, c), i - g->from + 1, t->rows[i].cells[c],
					    t->opts.output == ATB_XLSX ? "excel" : "csv");
				return -1;
			}
	return 0;
}

static void write_csv(const struct atb_table *t, const struct group *g, struct strbuf *out)
{
	for (size_t c = 0; c < ncols(t); c++)
		mscsv_add_cell(out, col_name(t, c), c == 0);
	strbuf_addch(out, '\n');
	for (size_t i = g->from; i < g->to; i++) {
		for (size_t c = 0; c < t->rows[i].ncells; c++)
			mscsv_add_cell(out, t->rows[i].cells[c], c == 0);
		strbuf_addch(out, '\n');
	}
}

static int write_book(const struct atb_table *t, const struct group *g, const char *path, const char *tmpdir,
		      struct strbuf *err)
{
	struct xlsxw_options xo = { .tmpdir = tmpdir };
	struct xlsxw_cell cells[NCOLS];
	const char *names[NCOLS];
	size_t n = ncols(t);
	struct xlsxw *w = xlsxw_new(path, &xo, err);
	int ret;
	if (!w)
		return -1;
	for (size_t c = 0; c < n; c++)
		names[c] = col_name(t, c);
	ret = xlsxw_begin(w, NULL, names, n, err);
	for (size_t i = g->from; !ret && i < g->to; i++) {
		for (size_t c = 0; c < n; c++)
			cells[c] = (struct xlsxw_cell){ .type = XLSXW_TEXT, .text = t->rows[i].cells[c] };
		ret = xlsxw_row(w, cells, n, XLSXW_ROW_PLAIN, err);
	}
	if (!ret)
		ret = xlsxw_close(w, err);
	xlsxw_free(w);
	return ret;
}

struct book_job {
	const struct atb_table *t;
	const struct group *g;
};

/* Without -o: the workbook is made in $TMPDIR and appended to out. */
static int write_book_tmp(void *ctx, const char *path, struct strbuf *err)
{
	const struct book_job *j = ctx;
	return write_book(j->t, j->g, path, NULL, err);
}

/* atb_<mode>_compare_result_<time>.<ext> in DIR, or in DIR/<process>/<exec>/ when there are several groups. */
static int write_file(const struct atb_table *t, const struct group *g, struct strbuf *err)
{
	struct strbuf dir = STRBUF_INIT, path = STRBUF_INIT, csv = STRBUF_INIT;
	bool xlsx = t->opts.output == ATB_XLSX;
	char stamp[NAMING_STAMP_SIZE];
	int ret;
	naming_stamp_now(stamp);
	strbuf_addstr(&dir, t->opts.output_dir);
	if (t->ngroups > 1)
		strbuf_addf(&dir, "/%s/%lld", g->process, (long long)g->exec);
	ret = partial_make_dirs(dir.buf, err);
	/* the base name; the file gets it with the suffix, or _2, _3, ... first when a file has it (partial.h) */
	strbuf_addf(&path, "%s/atb_%s_compare_result_%s", dir.buf, t->mode == 1 ? "tensor" : "stats", stamp);
	if (!ret && !xlsx) {
		write_csv(t, g, &csv);
		ret = partial_write_numbered(path.buf, ".csv", csv.buf, csv.len, NULL, err);
	} else if (!ret) {
		struct partial *part;
		int fd;
		strbuf_addstr(&path, ".xlsx");
		fd = partial_create_private(path.buf, &part, err);
		strbuf_setlen(&path, path.len - 5);
		ret = fd < 0 ? -1 : 0;
		if (!ret) {
			close(fd);
			ret = write_book(t, g, partial_tmp_name(part), dir.buf, err);
			ret = ret ? (partial_drop(part), -1) : partial_commit_numbered(part, path.buf, ".xlsx", NULL, err);
		}
	}
	strbuf_release(&dir);
	strbuf_release(&path);
	strbuf_release(&csv);
	return ret;
}

static void report_dropped(const struct atb_table *t)
{
	if (t->st.unmatched)
		warning("%zu target rows have no golden partner (the first: %s): msprobe leaves them out of its table "
			"without a word, and so does its table here; the records list them", t->st.unmatched,
			t->first_unmatched.buf);
	if (t->st.golden_only)
		warning("%zu golden rows have no target partner (the first: %s): not in msprobe's table either",
			t->st.golden_only, t->first_golden_only.buf);
}

int atb_table_finish(struct atb_table *t, struct strbuf *out, struct strbuf *err)
{
	if (!t->st.pairs) {
		strbuf_addstr(err, "no pair records: nothing to compare");
		return -1;
	}
	if (!t->st.rows) {
		strbuf_addf(err, "no target row of the ATB dump has a golden partner (%zu unmatched, %zu golden only): "
				 "nothing was compared, and msprobe writes no file", t->st.unmatched, t->st.golden_only);
		return -1;
	}
	if (t->opts.output == ATB_NDJSON) {
		report_dropped(t);
		return 0;
	}
	size_t tables = 0;
	for (size_t i = 0; i < t->ngroups; i++)
		tables += t->groups[i].to > t->groups[i].from;
	if (!t->opts.output_dir && tables > 1) {
		strbuf_addf(err, "the pairs hold %zu exec folder pairs (device and exec count), and msprobe's table is "
				 "of one: give -o DIR for a file each, or flatten one exec folder", tables);
		return -1;
	}
	for (size_t i = 0; i < t->ngroups; i++) {
		const struct group *g = &t->groups[i];
		int ret;
		if (g->to == g->from)
			continue;
		if (refused(t, g, err) < 0)
			return -1;
		if (t->opts.output_dir)
			ret = write_file(t, g, err);
		else if (t->opts.output == ATB_XLSX)
			ret = xlsxw_book_to_strbuf(write_book_tmp, &(struct book_job){ t, g }, out, err);
		else
			write_csv(t, g, out), ret = 0;
		if (ret < 0)
			return -1;
	}
	report_dropped(t);
	return 0;
}

void atb_table_stats(const struct atb_table *t, struct atb_table_stats *out)
{
	*out = t->st;
}
