/* ckcmp.c: two checkpoints compared parameter by parameter (ckcmp.h). */
#include "ckcmp.h"
#include "tmetric.h"
#include "../core/msg.h"
#include "../core/progress.h"
#include "../core/textesc.h"
#include "../core/utf8.h"
#include "../core/xalloc.h"
#include "../json/jsonw.h"
#include "../msprobe/pyfmt.h"
#include "../msprobe/pyhash.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>

const char *const ckcmp_verdict_names[4] = { "same", "diff", "only_a", "only_b" };

/* ---- the element passes ---- */

#define CHUNK 4096

struct sums {
	double dd[4], ab[4], aa[4], bb[4]; /* float64, four lanes */
	float f_dd, f_ab, f_aa, f_bb;      /* msprobe's: float32, one element at a time */
};

/* float64 sums over a chunk, in four lanes so that the additions overlap (kept in locals: no aliasing with x, y). */
static void sum_doubles(struct sums *s, const double *restrict x, const double *restrict y, size_t n)
{
	double dd[4], ab[4], aa[4], bb[4];
	size_t i = 0;
	memcpy(dd, s->dd, sizeof(dd)), memcpy(ab, s->ab, sizeof(ab));
	memcpy(aa, s->aa, sizeof(aa)), memcpy(bb, s->bb, sizeof(bb));
	for (; i + 4 <= n; i += 4)
		for (int l = 0; l < 4; l++) {
			double d = x[i + l] - y[i + l];
			dd[l] += d * d;
			ab[l] += x[i + l] * y[i + l];
			aa[l] += x[i + l] * x[i + l];
			bb[l] += y[i + l] * y[i + l];
		}
	for (; i < n; i++) {
		double d = x[i] - y[i];
		dd[i & 3] += d * d;
		ab[i & 3] += x[i] * y[i];
		aa[i & 3] += x[i] * x[i];
		bb[i & 3] += y[i] * y[i];
	}
	memcpy(s->dd, dd, sizeof(dd)), memcpy(s->ab, ab, sizeof(ab));
	memcpy(s->aa, aa, sizeof(aa)), memcpy(s->bb, bb, sizeof(bb));
}

/*
 * numpy's float32 a.dot(b) as msprobe's reference output was made: each
 * product rounded to float32, then added to a float32 sum.  The stores
 * to float keep every intermediate a float32 (C11 with FLT_EVAL_METHOD 0;
 * the build contracts nothing into FMA: ISO C mode).
 */
static void sum_floats(struct sums *s, const float *x, const float *y, size_t n)
{
	float dd = s->f_dd, ab = s->f_ab, aa = s->f_aa, bb = s->f_bb;
	for (size_t i = 0; i < n; i++) {
		float d = x[i] - y[i];
		float p_dd = d * d, p_ab = x[i] * y[i], p_aa = x[i] * x[i], p_bb = y[i] * y[i];
		dd += p_dd;
		ab += p_ab;
		aa += p_aa;
		bb += p_bb;
	}
	s->f_dd = dd, s->f_ab = ab, s->f_aa = aa, s->f_bb = bb;
}

struct pass {
	const struct tensor *a, *b;
	bool doubles, floats;
	int64_t first;          /* an element whose values are wanted, or -1 */
	struct sums s;
	double first_a, first_b;
	double *xa, *xb;        /* chunks: allocated by the caller, so that a fault's jump leaks nothing */
	float *fa, *fb;
};

static void run_pass(struct pass *p)
{
	int64_t n = p->a->numel;
	for (int64_t at = 0; at < n; at += CHUNK) {
		size_t k = (size_t)(n - at < CHUNK ? n - at : CHUNK);
		if (p->doubles) {
			tensor_read_f64(p->a, at, (int64_t)k, p->xa);
			tensor_read_f64(p->b, at, (int64_t)k, p->xb);
			sum_doubles(&p->s, p->xa, p->xb, k);
		}
		if (p->floats) {
			tensor_read_f32(p->a, at, (int64_t)k, p->fa);
			tensor_read_f32(p->b, at, (int64_t)k, p->fb);
			sum_floats(&p->s, p->fa, p->fb, k);
		}
	}
	if (p->first >= 0) {
		tensor_read_f64(p->a, p->first, 1, &p->first_a);
		tensor_read_f64(p->b, p->first, 1, &p->first_b);
	}
}

/* The pass under a guard: 0, or -1 with the file that shrank named in err. */
static int guarded_pass(struct pass *p, struct strbuf *err)
{
	struct tensor_guard g;
	volatile int rc = 0;
	p->xa = xmalloc(CHUNK * sizeof(double));
	p->xb = xmalloc(CHUNK * sizeof(double));
	p->fa = xmalloc(CHUNK * sizeof(float));
	p->fb = xmalloc(CHUNK * sizeof(float));
	tensor_guard_begin(&g);
	if (!sigsetjmp(g.jump, 0)) {
		run_pass(p);
	} else {
		if (!tensor_fault_message(p->a, g.addr, err) && !tensor_fault_message(p->b, g.addr, err))
			strbuf_addstr(err, "a read of the tensors faulted (SIGBUS)");
		rc = -1;
	}
	tensor_guard_end(&g);
	free(p->xa);
	free(p->xb);
	free(p->fa);
	free(p->fb);
	return rc;
}

static double lanes(const double *v)
{
	return (v[0] + v[1]) + (v[2] + v[3]);
}

/* Ours, from the float64 sums: 1 when both norms are 0, NaN (undefined) when one is. */
static void our_numbers(struct ckcmp_result *r, const struct sums *s)
{
	double aa = lanes(s->aa), bb = lanes(s->bb);
	r->l2 = sqrt(lanes(s->dd));
	r->norm_a = sqrt(aa);
	r->norm_b = sqrt(bb);
	if (aa == 0 && bb == 0)
		r->cos = 1;
	else if (aa == 0 || bb == 0)
		r->cos = NAN;
	else
		r->cos = lanes(s->ab) / (r->norm_a * r->norm_b);
}

/* msprobe's, from the float32 sums (metrics.py: l2_distance, cos_sim). */
static void msprobe_numbers(struct ckcmp_result *r, const struct sums *s)
{
	float na = sqrtf(s->f_aa), nb = sqrtf(s->f_bb), denom = na * nb;
	r->ms = true;
	r->ms_l2 = (double)sqrtf(s->f_dd);
	if (na == 0 && nb == 0)
		r->ms_cos = 1.0;
	else if (na == 0 || nb == 0)
		r->ms_cos = NAN;
	else
		r->ms_cos = (double)(s->f_ab / denom);
}

static bool same_shape(const struct ckpt_param *a, const struct ckpt_param *b)
{
	return a->ndim == b->ndim && !memcmp(a->shape, b->shape, sizeof(*a->shape) * (size_t)a->ndim);
}

/*
 * The same bytes, the common case of two checkpoints: both read a block
 * at a time with pread(2) (one copy, no page faults) and compared, when
 * both are contiguous in this machine's byte order.  1 the same, 0 not
 * (or not known: tmetric says), -1 when a read faulted (err says which file).
 */
#define SAME_BLOCK ((size_t)1 << 20)

struct same_read {
	const struct tensor *a, *b;
	unsigned char *x, *y;  /* allocated by the caller: a fault's jump leaks nothing */
};

static bool same_bytes_run(struct same_read *s)
{
	size_t size = dtype_info(s->a->dtype)->size, total = (size_t)s->a->numel * size;
	int64_t per = (int64_t)(SAME_BLOCK / size);
	for (int64_t at = 0; (size_t)at * size < total; at += per) {
		int64_t n = s->a->numel - at < per ? s->a->numel - at : per;
		const unsigned char *x = s->x, *y = s->y;
		if (!tensor_copy_plain(s->a, at, n, s->x))
			x = s->a->data + (size_t)at * size;
		if (!tensor_copy_plain(s->b, at, n, s->y))
			y = s->b->data + (size_t)at * size;
		if (memcmp(x, y, (size_t)n * size))
			return false;
	}
	return true;
}

static int same_bytes(const struct tensor *a, const struct tensor *b, struct strbuf *err)
{
	struct same_read s = { a, b, NULL, NULL };
	struct tensor_guard g;
	volatile int rc = 0;
	if (!a->contiguous || !b->contiguous || a->swapped || b->swapped || !a->numel)
		return 0;
	s.x = xmalloc(SAME_BLOCK);
	s.y = xmalloc(SAME_BLOCK);
	tensor_guard_begin(&g);
	if (!sigsetjmp(g.jump, 0)) {
		rc = same_bytes_run(&s) ? 1 : 0;
	} else {
		if (!tensor_fault_message(a, g.addr, err) && !tensor_fault_message(b, g.addr, err))
			strbuf_addstr(err, "a read of the tensors faulted (SIGBUS)");
		rc = -1;
	}
	tensor_guard_end(&g);
	free(s.x);
	free(s.y);
	return rc;
}

/* Both tensors open: ours (the bytes, then tmetric and a float64 pass when they differ) and msprobe's. */
static int compare_open(const struct tensor *ta, const struct tensor *tb, unsigned flags, struct ckcmp_result *r,
			struct strbuf *err)
{
	struct pass p = { .a = ta, .b = tb, .first = -1, .floats = (flags & CKCMP_MSPROBE) != 0 };
	int same = r->bitwise ? same_bytes(ta, tb, err) : 0;
	if (same < 0)
		return -1;
	if (same) {
		r->equal = true;
	} else if (r->bitwise) {
		struct tmetric tm;
		if (tmetric_compare_files(ta, tb, NULL, &tm, err) < 0)
			return -1;
		r->equal = tm.same;
		r->ndiff = tm.ndiff;
		r->first_diff = tm.first_diff;
		r->max_ulp = tm.same ? 0 : tm.max_ulp;
		r->max_abs = tm.same ? 0 : tm.max_abs;
		p.first = tm.same ? -1 : tm.first_diff;
	}
	p.doubles = !r->equal;
	if ((p.doubles || p.floats || p.first >= 0) && guarded_pass(&p, err))
		return -1;
	if (p.doubles) {
		our_numbers(r, &p.s);
	} else {
		r->l2 = 0;
		r->cos = 1;
	}
	if (p.floats)
		msprobe_numbers(r, &p.s);
	r->first_a = p.first_a;
	r->first_b = p.first_b;
	return 0;
}

int ckcmp_pair(const struct ckpt *a, long ia, const struct ckpt *b, long ib, unsigned flags, struct ckcmp_result *r,
	       struct strbuf *err)
{
	struct tensor ta, tb;
	bool shape, dtype;
	int rc;

	memset(r, 0, sizeof(*r));
	r->a = ia >= 0 ? ckpt_param(a, (size_t)ia) : NULL;
	r->b = ib >= 0 ? ckpt_param(b, (size_t)ib) : NULL;
	if (!r->a && !r->b)
		return msg_fail(err, "checkpoint compare", "a pair of no parameters");
	r->name = r->a ? r->a->name : r->b->name;
	r->first_diff = -1;
	r->cos = r->ms_cos = NAN;
	if (!r->a || !r->b) {
		r->verdict = r->a ? CKCMP_ONLY_A : CKCMP_ONLY_B;
		return 0;
	}
	shape = same_shape(r->a, r->b);
	dtype = r->a->dtype == r->b->dtype;
	r->values = shape;
	r->bitwise = shape && dtype;
	r->reason = !shape && !dtype ? "dtype and shape" : !shape ? "shape" : !dtype ? "dtype" : "values";
	if (!shape) {
		r->verdict = CKCMP_DIFF;
		return 0;
	}
	if (ckpt_tensor(a, (size_t)ia, &ta, err))
		return -1;
	if (ckpt_tensor(b, (size_t)ib, &tb, err)) {
		tensor_close(&ta);
		return -1;
	}
	rc = compare_open(&ta, &tb, flags, r, err);
	tensor_close(&ta);
	tensor_close(&tb);
	r->verdict = r->equal ? CKCMP_SAME : CKCMP_DIFF;
	return rc;
}

/* ---- all pairs, by several threads ---- */

struct job {
	const struct ckpt *a, *b;
	unsigned flags;
	struct ckcmp_result *r;
	long *ia, *ib;
	size_t n;
	atomic_size_t next;
	atomic_bool failed;
	pthread_mutex_t lock;
	struct strbuf err;       /* the first failure's message */
};

static uint64_t pair_bytes(const struct ckcmp_result *r)
{
	uint64_t n = 0;
	if (r->a)
		n += (uint64_t)r->a->numel * dtype_info(r->a->dtype)->size;
	if (r->b)
		n += (uint64_t)r->b->numel * dtype_info(r->b->dtype)->size;
	return n;
}

static void *job_worker(void *arg)
{
	struct job *j = arg;
	struct strbuf err = STRBUF_INIT;
	size_t i;
	while (!atomic_load(&j->failed) && (i = atomic_fetch_add(&j->next, 1)) < j->n) {
		if (ckcmp_pair(j->a, j->ia[i], j->b, j->ib[i], j->flags, &j->r[i], &err) < 0) {
			pthread_mutex_lock(&j->lock);
			if (!atomic_exchange(&j->failed, true))
				strbuf_addbuf(&j->err, &err);
			pthread_mutex_unlock(&j->lock);
			break;
		}
		progress_add(pair_bytes(&j->r[i]));
	}
	strbuf_release(&err);
	return NULL;
}

int ckcmp_all(const struct ckpt *a, const struct ckpt *b, unsigned flags, int jobs, struct ckcmp_result **out,
	      size_t *n_out, struct strbuf *err)
{
	size_t na = ckpt_count(a), nb = ckpt_count(b), n = 0;
	struct job j = { .a = a, .b = b, .flags = flags, .err = STRBUF_INIT };
	pthread_t *threads;
	int started = 0;

	j.ia = xmalloc(st_mult(na + nb, sizeof(*j.ia)));
	j.ib = xmalloc(st_mult(na + nb, sizeof(*j.ib)));
	for (size_t i = 0; i < na; i++) {
		const struct ckpt_param *p = ckpt_param(a, i);
		j.ia[n] = (long)i;
		j.ib[n++] = ckpt_find(b, p->name, strlen(p->name));
	}
	for (size_t i = 0; i < nb; i++) {
		const struct ckpt_param *p = ckpt_param(b, i);
		if (ckpt_find(a, p->name, strlen(p->name)) >= 0)
			continue;
		j.ia[n] = -1;
		j.ib[n++] = (long)i;
	}
	j.n = n;
	j.r = xcalloc(n ? n : 1, sizeof(*j.r));
	atomic_init(&j.next, 0);
	atomic_init(&j.failed, false);
	pthread_mutex_init(&j.lock, NULL);
	if (jobs < 1)
		jobs = 1;
	if ((size_t)jobs > n)
		jobs = n ? (int)n : 1;
	threads = xcalloc((size_t)jobs, sizeof(*threads));
	for (int t = 1; t < jobs; t++)
		if (!pthread_create(&threads[t], NULL, job_worker, &j))
			started = t;
		else
			break;
	job_worker(&j);
	for (int t = 1; t <= started; t++)
		pthread_join(threads[t], NULL);
	pthread_mutex_destroy(&j.lock);
	free(threads);
	free(j.ia);
	free(j.ib);
	if (atomic_load(&j.failed)) {
		strbuf_addbuf(err, &j.err);
		strbuf_release(&j.err);
		free(j.r);
		return -1;
	}
	strbuf_release(&j.err);
	*out = j.r;
	*n_out = n;
	return 0;
}

int ckcmp_open_leaf(struct tensor *t, const char *data, const char *name, const char *member, struct strbuf *err)
{
	if (member)
		return ckpt_cached_tensor(data, member, strlen(member), t, err);
	return tensor_open_leaf(t, data, name, err);
}

/* ---- records ---- */

/* A number as JSON for our records: Python's repr, the non-finite ones as the strings the records use. */
static void add_number(struct strbuf *out, double x)
{
	if (isnan(x))
		strbuf_addstr(out, "\"nan\"");
	else if (isinf(x))
		strbuf_addstr(out, x > 0 ? "\"inf\"" : "\"-inf\"");
	else
		pyfmt_double(out, x);
}

static void add_shape(struct strbuf *out, const struct ckpt_param *p)
{
	strbuf_addch(out, '[');
	for (int d = 0; d < p->ndim; d++) {
		if (d)
			strbuf_addch(out, ',');
		strbuf_addi(out, p->shape[d]);
	}
	strbuf_addch(out, ']');
}

static void add_side(struct strbuf *out, const char *key, const struct ckpt_param *p)
{
	strbuf_addf(out, ",\"%s\":", key);
	if (!p) {
		strbuf_addstr(out, "null");
		return;
	}
	strbuf_addstr(out, "{\"dtype\":");
	jsonw_str(out, dtype_info(p->dtype)->torch);
	strbuf_addstr(out, ",\"shape\":");
	add_shape(out, p);
	strbuf_addf(out, ",\"numel\":%lld}", (long long)p->numel);
}

void ckcmp_record(struct strbuf *out, const struct ckcmp_result *r)
{
	strbuf_addstr(out, "{\"name\":");
	jsonw_str(out, r->name);
	strbuf_addstr(out, ",\"verdict\":");
	jsonw_str(out, ckcmp_verdict_names[r->verdict]);
	if (r->verdict == CKCMP_DIFF) {
		strbuf_addstr(out, ",\"reason\":");
		jsonw_str(out, r->reason);
	}
	add_side(out, "a", r->a);
	add_side(out, "b", r->b);
	if (r->a && r->b) {
		strbuf_addstr(out, ",\"l2\":");
		if (r->values)
			add_number(out, r->l2);
		else
			strbuf_addstr(out, "null");
		strbuf_addstr(out, ",\"cos\":");
		if (r->values && !isnan(r->cos))
			add_number(out, r->cos);
		else
			strbuf_addstr(out, "null");
		strbuf_addf(out, ",\"equal\":%s", r->equal ? "true" : "false");
		if (r->bitwise) {
			strbuf_addf(out, ",\"differ\":%lld,\"first_diff\":", (long long)r->ndiff);
			if (r->first_diff >= 0) {
				strbuf_addi(out, r->first_diff);
				strbuf_addstr(out, ",\"first_a\":");
				add_number(out, r->first_a);
				strbuf_addstr(out, ",\"first_b\":");
				add_number(out, r->first_b);
			} else {
				strbuf_addstr(out, "null");
			}
			strbuf_addstr(out, ",\"max_ulp\":");
			add_number(out, r->max_ulp);
			strbuf_addstr(out, ",\"max_abs\":");
			add_number(out, r->max_abs);
		}
		if (r->ms) {
			strbuf_addstr(out, ",\"msprobe\":{\"l2\":");
			add_number(out, r->ms_l2);
			strbuf_addstr(out, ",\"cos\":");
			if (isnan(r->ms_cos))
				strbuf_addstr(out, "null");
			else
				add_number(out, r->ms_cos);
			strbuf_addch(out, '}');
		}
	}
	strbuf_addstr(out, "}\n");
}

void ckcmp_summarize(const struct ckcmp_result *r, size_t n, struct ckcmp_summary *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < n; i++) {
		switch (r[i].verdict) {
		case CKCMP_SAME: s->same++, s->both++; break;
		case CKCMP_DIFF: s->diff++, s->both++; break;
		case CKCMP_ONLY_A: s->only_a++; break;
		case CKCMP_ONLY_B: s->only_b++; break;
		}
	}
}

static void add_ckpt(struct strbuf *out, const struct ckpt *c)
{
	const struct ckpt_parallel *par = ckpt_parallel(c);
	strbuf_addstr(out, "{\"path\":");
	jsonw_str(out, ckpt_path(c));
	strbuf_addstr(out, ",\"read\":");
	jsonw_str(out, ckpt_root(c));
	strbuf_addstr(out, ",\"layout\":");
	jsonw_str(out, ckpt_kind_name(ckpt_kind(c)));
	strbuf_addf(out, ",\"params\":%zu", ckpt_count(c));
	if (ckpt_kind(c) == CKPT_MEGATRON) {
		strbuf_addstr(out, ",\"iteration\":");
		if (par->iteration >= 0)
			strbuf_addi(out, par->iteration);
		else
			strbuf_addstr(out, "null");
		strbuf_addf(out, ",\"tp\":%lld,\"pp\":%lld,\"ep\":%lld,\"vpp\":%lld", (long long)par->tp, (long long)par->pp,
			    (long long)par->ep, (long long)par->vpp);
	}
	strbuf_addch(out, '}');
}

void ckcmp_summary_record(struct strbuf *out, const struct ckcmp_summary *s, const struct ckpt *a,
			  const struct ckpt *b)
{
	strbuf_addstr(out, "{\"summary\":{\"a\":");
	add_ckpt(out, a);
	strbuf_addstr(out, ",\"b\":");
	add_ckpt(out, b);
	strbuf_addf(out, ",\"both\":%zu,\"same\":%zu,\"diff\":%zu,\"only_a\":%zu,\"only_b\":%zu,\"answer\":\"%s\"}}\n",
		    s->both, s->same, s->diff, s->only_a, s->only_b,
		    s->diff || s->only_a || s->only_b ? "differ" : "same");
}

/* ---- msprobe's ckpt_similarity.json ---- */

/* A str as Python's json.dumps writes it (ensure_ascii: everything outside ' '..'~' escaped). */
static void add_py_json_string(struct strbuf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s);
	strbuf_addch(out, '"');
	for (size_t i = 0; i < len;) {
		int k = utf8_sequence(p + i, len - i);
		uint32_t c = k > 0 ? utf8_code_point(p + i, k) : p[i];
		i += k > 0 ? (size_t)k : 1;
		switch (c) {
		case '"': strbuf_addstr(out, "\\\""); continue;
		case '\\': strbuf_addstr(out, "\\\\"); continue;
		case '\n': strbuf_addstr(out, "\\n"); continue;
		case '\r': strbuf_addstr(out, "\\r"); continue;
		case '\t': strbuf_addstr(out, "\\t"); continue;
		case '\b': strbuf_addstr(out, "\\b"); continue;
		case '\f': strbuf_addstr(out, "\\f"); continue;
		default: break;
		}
		if (c >= 0x20 && c <= 0x7e)
			strbuf_addch(out, (char)c);
		else if (c < 0x10000)
			strbuf_addf(out, "\\u%04x", (unsigned)c);
		else
			strbuf_addf(out, "\\u%04x\\u%04x", (unsigned)(0xd800 + ((c - 0x10000) >> 10)),
				    (unsigned)(0xdc00 + ((c - 0x10000) & 0x3ff)));
	}
	strbuf_addch(out, '"');
}

/* A float as Python's json writes it: repr, and NaN, Infinity, -Infinity. */
static void add_py_json_float(struct strbuf *out, double x)
{
	if (isnan(x))
		strbuf_addstr(out, "NaN");
	else if (isinf(x))
		strbuf_addstr(out, x > 0 ? "Infinity" : "-Infinity");
	else
		pyfmt_double(out, x);
}

static void indent(struct strbuf *out, int level)
{
	strbuf_addch(out, '\n');
	for (int i = 0; i < level * 4; i++)
		strbuf_addch(out, ' ');
}

/* A list of ints as json.dump(indent=4) writes it at `level`: "[]", or one item a line. */
static void add_py_int_list(struct strbuf *out, const int64_t *v, int n, int level)
{
	if (!n) {
		strbuf_addstr(out, "[]");
		return;
	}
	strbuf_addch(out, '[');
	for (int i = 0; i < n; i++) {
		if (i)
			strbuf_addch(out, ',');
		indent(out, level + 1);
		strbuf_addi(out, v[i]);
	}
	indent(out, level);
	strbuf_addch(out, ']');
}

/* One entry of metrics.py's METRIC_FUNC results: l2, cos, numel, shape. */
static void add_msprobe_entry(struct strbuf *out, const struct ckcmp_result *r)
{
	const struct ckpt_param *a = r->a, *b = r->b;
	strbuf_addstr(out, "{");
	indent(out, 2);
	strbuf_addstr(out, "\"l2\": ");
	if (r->values && r->ms)
		add_py_json_float(out, r->ms_l2);
	else
		strbuf_addstr(out, "null");
	strbuf_addch(out, ',');
	indent(out, 2);
	strbuf_addstr(out, "\"cos\": ");
	if (r->values && r->ms && !isnan(r->ms_cos))
		add_py_json_float(out, r->ms_cos);
	else
		strbuf_addstr(out, "null");
	strbuf_addch(out, ',');
	indent(out, 2);
	strbuf_addstr(out, "\"numel\": ");
	if (a->numel == b->numel) {
		strbuf_addi(out, a->numel);
	} else {
		int64_t both[2] = { a->numel, b->numel };
		add_py_int_list(out, both, 2, 2);
	}
	strbuf_addch(out, ',');
	indent(out, 2);
	strbuf_addstr(out, "\"shape\": ");
	if (r->values) {
		add_py_int_list(out, a->shape, a->ndim, 2);
	} else {
		strbuf_addch(out, '[');
		indent(out, 3);
		add_py_int_list(out, a->shape, a->ndim, 3);
		strbuf_addch(out, ',');
		indent(out, 3);
		add_py_int_list(out, b->shape, b->ndim, 3);
		indent(out, 2);
		strbuf_addch(out, ']');
	}
	indent(out, 1);
	strbuf_addch(out, '}');
}

void ckcmp_msprobe_json(struct strbuf *out, const struct ckcmp_result *r, size_t n, const struct ckpt *a,
			const struct ckpt *b)
{
	size_t na = ckpt_count(a), nb = ckpt_count(b), *order, common;
	const char **an = xmalloc(st_mult(na ? na : 1, sizeof(*an))), **bn = xmalloc(st_mult(nb ? nb : 1, sizeof(*bn)));
	long *result_of = xmalloc(st_mult(na ? na : 1, sizeof(*result_of)));
	for (size_t i = 0; i < na; i++) {
		an[i] = ckpt_param(a, i)->name;
		result_of[i] = -1;
	}
	for (size_t i = 0; i < nb; i++)
		bn[i] = ckpt_param(b, i)->name;
	for (size_t i = 0; i < n; i++)
		if (r[i].a && r[i].b)
			result_of[r[i].a - ckpt_param(a, 0)] = (long)i;
	order = xmalloc(st_mult(na ? na : 1, sizeof(*order)));
	common = pyhash_intersection_order(an, na, bn, nb, order);
	strbuf_addch(out, '{');
	for (size_t k = 0, written = 0; k < common; k++) {
		long i = result_of[order[k]];
		if (i < 0)
			continue;
		if (written++)
			strbuf_addch(out, ',');
		indent(out, 1);
		add_py_json_string(out, r[i].name);
		strbuf_addstr(out, ": ");
		add_msprobe_entry(out, &r[i]);
	}
	if (common)
		strbuf_addch(out, '\n');
	strbuf_addch(out, '}');
	free(order);
	free(result_of);
	free(an);
	free(bn);
}

/* ---- the report for people ---- */

static void add_shape_text(struct strbuf *out, const struct ckpt_param *p)
{
	add_shape(out, p);
	strbuf_addf(out, " %s", dtype_info(p->dtype)->name);
}

/* How far apart: shape or dtype first, then the smaller cosine, then the larger relative distance. */
static double distance_of(const struct ckcmp_result *r)
{
	double norm = r->norm_a > r->norm_b ? r->norm_a : r->norm_b;
	if (!r->values)
		return INFINITY;
	return norm > 0 ? r->l2 / norm : r->l2 > 0 ? INFINITY : 0;
}

static int cmp_worst(const void *x, const void *y)
{
	const struct ckcmp_result *a = *(const struct ckcmp_result *const *)x, *b = *(const struct ckcmp_result *const *)y;
	double ca = a->values ? (isnan(a->cos) ? -2 : a->cos) : -3, cb = b->values ? (isnan(b->cos) ? -2 : b->cos) : -3;
	double da = distance_of(a), db = distance_of(b);
	if (ca != cb)
		return ca < cb ? -1 : 1;
	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(a->name, b->name);
}

static void add_diff_line(struct strbuf *out, const struct ckcmp_result *r)
{
	strbuf_addstr(out, "  ");
	text_escape_str(out, r->name, 0);
	strbuf_addstr(out, "  ");
	if (!r->values) {
		strbuf_addstr(out, "shape ");
		add_shape_text(out, r->a);
		strbuf_addstr(out, " against ");
		add_shape_text(out, r->b);
		strbuf_addch(out, '\n');
		return;
	}
	add_shape_text(out, r->a);
	if (!r->bitwise) {
		strbuf_addstr(out, " against ");
		strbuf_addstr(out, dtype_info(r->b->dtype)->name);
	}
	strbuf_addstr(out, ": cos ");
	if (isnan(r->cos))
		strbuf_addstr(out, "undefined (one norm is 0)");
	else
		strbuf_addf(out, "%.9g", r->cos);
	strbuf_addf(out, ", l2 %.6g", r->l2);
	if (distance_of(r) > 0 && isfinite(distance_of(r)))
		strbuf_addf(out, " (%.3g%% of the larger norm)", 100 * distance_of(r));
	if (r->bitwise)
		strbuf_addf(out, "; %lld of %lld elements differ, the first at %lld: %.9g against %.9g; max %.6g ulp",
			    (long long)r->ndiff, (long long)r->a->numel, (long long)r->first_diff, r->first_a, r->first_b,
			    r->max_ulp);
	strbuf_addch(out, '\n');
}

static void add_who(struct strbuf *out, const char *label, const struct ckpt *c)
{
	const struct ckpt_parallel *par = ckpt_parallel(c);
	strbuf_addf(out, "%s: ", label);
	text_escape_str(out, ckpt_root(c), 0);
	strbuf_addf(out, " (%s", ckpt_kind_name(ckpt_kind(c)));
	if (ckpt_kind(c) == CKPT_MEGATRON)
		strbuf_addf(out, ", TP %lld, PP %lld, EP %lld", (long long)par->tp, (long long)par->pp, (long long)par->ep);
	strbuf_addf(out, ", %zu parameters)\n", ckpt_count(c));
}

void ckcmp_text(struct strbuf *out, const struct ckcmp_result *r, size_t n, const struct ckpt *a, const struct ckpt *b)
{
	struct ckcmp_summary s;
	const struct ckcmp_result **worst = xmalloc(st_mult(n ? n : 1, sizeof(*worst)));
	size_t nw = 0, start = out->len;
	ckcmp_summarize(r, n, &s);
	if (!s.diff && !s.only_a && !s.only_b)
		strbuf_addf(out, "same: all %zu parameters are equal, bit for bit\n", s.both);
	else
		strbuf_addf(out, "differ: %zu of %zu parameters in both differ, %zu equal; %zu only in A, %zu only in B\n",
			    s.diff, s.both, s.same, s.only_a, s.only_b);
	add_who(out, "A", a);
	add_who(out, "B", b);
	for (size_t i = 0; i < n; i++)
		if (r[i].verdict == CKCMP_DIFF)
			worst[nw++] = &r[i];
	if (nw) {
		qsort(worst, nw, sizeof(*worst), cmp_worst);
		strbuf_addstr(out, "\nwhat differs, the most first:\n");
		for (size_t i = 0; i < nw; i++)
			add_diff_line(out, worst[i]);
	}
	for (int side = 0; side < 2; side++) {
		bool any = false;
		for (size_t i = 0; i < n; i++) {
			const struct ckpt_param *p = side ? r[i].b : r[i].a;
			if (r[i].verdict != (side ? CKCMP_ONLY_B : CKCMP_ONLY_A))
				continue;
			if (!any)
				strbuf_addf(out, "\nonly in %s:\n", side ? "B" : "A");
			any = true;
			strbuf_addstr(out, "  ");
			text_escape_str(out, r[i].name, 0);
			strbuf_addstr(out, "  ");
			add_shape_text(out, p);
			strbuf_addch(out, '\n');
		}
	}
	free(worst);
	text_escape_tail(out, start, TEXT_KEEP_NL); /* the names above, and anything else a file put in */
}
