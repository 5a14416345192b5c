/*
 * genatb.c: example ATB dumps of a tiny decoder (see genatb.h).
 *
 * The run of one side is: for each execution count, the tensors of one
 * layer at a time drawn and computed, then the layer's rows and files
 * written (its operations' and kernels' too with save_child), then its
 * tensors freed but its output, which is the next layer's input.
 */
#include "genatb.h"
#include "genio.h"
#include "../core/msg.h"
#include "../core/partial.h"
#include "../core/strbuf.h"
#include "../core/xalloc.h"
#include "../msprobe/pyfmt.h"
#include "../tensors/dtype.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define GOLDEN_PID 39943
#define TARGET_PID 276107
#define RMS_EPS 1e-6f

static const char csv_header[] = "Device and PID,Execution Count,Op Name,Op Type,Op Id,Input/Output,Index,Dtype,"
				 "Format,Shape,Max,Min,Mean,Norm,Tensor Path\n";

/* The random streams (genio_rng_stream's `what`). */
enum { R_TABLE = 0xa7b1, R_IDS, R_NORM, R_LINEAR, R_HEAD };

int genatb_fault_parse(const char *name)
{
	static const char *const names[] = { "none", "add-kernel", "linear-weight" };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return (int)i;
	return -1;
}

void genatb_config_init(struct atb_config *cfg)
{
	*cfg = (struct atb_config){
		.fault = ATB_FAULT_ADD_KERNEL,
		.steps = 1,
		.layers = 2,
		.width = 16,
		.batch = 4,
		.seed = 1,
	};
}

/* ------------------------------------------------------------------ */
/* Tensors: the elements as stored, in their dtype */

struct atensor {
	enum dtype dtype;      /* DT_BFLOAT16, DT_FLOAT16, DT_FLOAT32, DT_INT64 or DT_BOOL */
	int ndim;              /* 1 or 2 */
	int64_t dims[2];
	size_t numel;
	void *data;            /* numel elements, owned */
	bool have_stats;
	char stats[4][48];     /* statistic.csv's Max, Min, Mean, Norm */
	char *first;           /* filter_level 1: the data= text of the first file holding it, NULL before */
};

static struct atensor *tensor_new(enum dtype d, int64_t d0, int64_t d1)
{
	struct atensor *t = xcalloc(1, sizeof(*t));
	t->dtype = d;
	t->ndim = d1 < 0 ? 1 : 2;
	t->dims[0] = d0;
	t->dims[1] = d1 < 0 ? 1 : d1;
	t->numel = st_mult((size_t)d0, (size_t)t->dims[1]);
	t->data = xcalloc(t->numel ? t->numel : 1, dtype_info(d)->size);
	return t;
}

static void tensor_free(struct atensor *t)
{
	if (!t)
		return;
	free(t->data);
	free(t->first);
	free(t);
}

static size_t row_len(const struct atensor *t)
{
	return t->ndim == 2 ? (size_t)t->dims[1] : t->numel;
}

/* A bfloat16 as float: its 16 bits on top (exact, as dtype_bf16_to_float(), inlined for the big loops). */
static inline float bf16_value(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

static float get(const struct atensor *t, size_t i)
{
	switch (t->dtype) {
	case DT_BFLOAT16: return bf16_value(((const uint16_t *)t->data)[i]);
	case DT_FLOAT16: return dtype_half_to_float(((const uint16_t *)t->data)[i]);
	case DT_FLOAT32: return ((const float *)t->data)[i];
	case DT_INT64: return (float)((const int64_t *)t->data)[i];
	default: return ((const unsigned char *)t->data)[i] ? 1.0f : 0.0f;
	}
}

/* x stored in t's dtype, rounded to nearest even. */
static void put(struct atensor *t, size_t i, float x)
{
	switch (t->dtype) {
	case DT_BFLOAT16: ((uint16_t *)t->data)[i] = dtype_float_to_bf16(x); break;
	case DT_FLOAT16: ((uint16_t *)t->data)[i] = dtype_float_to_half(x); break;
	case DT_FLOAT32: ((float *)t->data)[i] = x; break;
	default: die("internal error: a float put into an integer tensor");
	}
}

/* Row r of a 2-d tensor (or a whole 1-d one) as floats, into out. */
static void get_row(const struct atensor *t, size_t r, float *out)
{
	size_t n = row_len(t);
	const uint16_t *h = (const uint16_t *)t->data + r * n;
	if (t->dtype == DT_BFLOAT16) {
		for (size_t k = 0; k < n; k++)
			out[k] = bf16_value(h[k]);
		return;
	}
	for (size_t k = 0; k < n; k++)
		out[k] = get(t, r * n + k);
}

/* All the elements as floats; the caller frees them. */
static float *as_floats(const struct atensor *t)
{
	float *f = xmalloc(st_mult(t->numel ? t->numel : 1, sizeof(float)));
	for (size_t i = 0; i < t->numel; i++)
		f[i] = get(t, i);
	return f;
}

static int atb_code(enum dtype d)
{
	switch (d) {
	case DT_FLOAT32: return 0;
	case DT_FLOAT16: return 1;
	case DT_INT64: return 9;
	case DT_BOOL: return 12;
	default: return 27;
	}
}

static const char *atb_dtype_name(enum dtype d)
{
	switch (d) {
	case DT_FLOAT32: return "float";
	case DT_FLOAT16: return "float16";
	case DT_INT64: return "int64";
	case DT_BOOL: return "bool";
	default: return "bf16";
	}
}

/* The dims joined by sep: "4,16" in a .bin header, "4x16" in statistic.csv. */
static void add_dims(struct strbuf *sb, const struct atensor *t, char sep)
{
	strbuf_addi(sb, t->dims[0]);
	if (t->ndim == 2) {
		strbuf_addch(sb, sep);
		strbuf_addi(sb, t->dims[1]);
	}
}

/* statistic.csv's Max, Min, Mean, Norm of the stored values, computed once. */
static void tensor_stats(struct atensor *t)
{
	double max = -INFINITY, min = INFINITY, sum = 0, sumsq = 0;
	int64_t imax = INT64_MIN, imin = INT64_MAX;

	if (t->have_stats)
		return;
	t->have_stats = true;
	if (t->dtype == DT_BOOL || !t->numel) {
		for (int k = 0; k < 4; k++)
			snprintf(t->stats[k], sizeof(t->stats[k]), "N/A");
		return;
	}
	for (size_t i = 0; i < t->numel; i++) {
		double x;
		if (t->dtype == DT_INT64) {
			int64_t v = ((const int64_t *)t->data)[i];
			imax = v > imax ? v : imax;
			imin = v < imin ? v : imin;
			x = (double)v;
		} else {
			x = get(t, i);
		}
		max = x > max ? x : max;
		min = x < min ? x : min;
		sum += x;
		sumsq += x * x;
	}
	if (t->dtype == DT_INT64) {
		snprintf(t->stats[0], sizeof(t->stats[0]), "%lld", (long long)imax);
		snprintf(t->stats[1], sizeof(t->stats[1]), "%lld", (long long)imin);
	} else {
		snprintf(t->stats[0], sizeof(t->stats[0]), "%f", max);
		snprintf(t->stats[1], sizeof(t->stats[1]), "%f", min);
	}
	snprintf(t->stats[2], sizeof(t->stats[2]), "%f", sum / (double)t->numel);
	snprintf(t->stats[3], sizeof(t->stats[3]), "%f", sqrt(sumsq));
}

/* ------------------------------------------------------------------ */
/* The model: draws and arithmetic, in float32, each result stored rounded */

struct model {
	const struct atb_config *cfg;
	bool target;
	size_t T, W, V;
	float qk_scale;
	struct strbuf qk_text;  /* qkScale as op_param.json writes it */
};

/*
 * t's elements offset + scale * u, times factor, from the stream: u uniform
 * in [-1, 1), exact in float32, two of them from each 64-bit draw.
 */
static void fill_uniform(struct atensor *t, uint64_t state, float offset, float scale, float factor)
{
	uint64_t r = 0;
	for (size_t i = 0; i < t->numel; i++) {
		uint32_t bits;
		if (i % 2 == 0) {
			r = genio_splitmix64(&state);
			bits = (uint32_t)(r >> 40);
		} else {
			bits = (uint32_t)(r >> 8) & 0xffffffu;
		}
		float u = 2.0f * ((float)bits * 0x1p-24f) - 1.0f;
		put(t, i, (offset + scale * u) * factor);
	}
}

/* Uniform draws of standard deviation 1/sqrt(W). */
static float weight_scale(const struct model *m)
{
	return (float)(sqrt(3.0) / sqrt((double)m->W));
}

static struct atensor *draw_ids(const struct model *m, int exec)
{
	struct atensor *ids = tensor_new(DT_INT64, (int64_t)m->T, -1);
	uint64_t state = genio_rng_stream(m->cfg->seed, R_IDS, (uint64_t)exec, 0, 0);
	for (size_t t = 0; t < m->T; t++)
		((int64_t *)ids->data)[t] = (int64_t)(genio_splitmix64(&state) % m->V);
	return ids;
}

/* True where token t may look at token u: the causal lower triangle. */
static struct atensor *causal_mask(const struct model *m)
{
	struct atensor *mask = tensor_new(DT_BOOL, (int64_t)m->T, (int64_t)m->T);
	unsigned char *b = mask->data;
	for (size_t t = 0; t < m->T; t++)
		for (size_t u = 0; u <= t; u++)
			b[t * m->T + u] = 1;
	return mask;
}

static void embed(const struct atensor *table, const struct atensor *ids, struct atensor *out)
{
	size_t w = row_len(table), rowbytes = w * dtype_info(table->dtype)->size;
	for (size_t t = 0; t < ids->numel; t++) {
		size_t id = (size_t)((const int64_t *)ids->data)[t];
		memcpy((char *)out->data + t * rowbytes, (const char *)table->data + id * rowbytes, rowbytes);
	}
}

static void rms_norm(const struct atensor *x, const struct atensor *gamma, struct atensor *out, struct atensor *rstd)
{
	size_t w = row_len(x), rows = x->numel / (w ? w : 1);
	float *g = as_floats(gamma), *xr = xmalloc(st_mult(w, sizeof(float)));
	for (size_t t = 0; t < rows; t++) {
		float ss = 0.0f, r;
		get_row(x, t, xr);
		for (size_t k = 0; k < w; k++)
			ss += xr[k] * xr[k];
		r = 1.0f / sqrtf(ss / (float)w + RMS_EPS);
		put(rstd, t, r);
		for (size_t k = 0; k < w; k++)
			put(out, t * w + k, xr[k] * r * g[k]);
	}
	free(g);
	free(xr);
}

static float dot(const float *a, const float *b, size_t n)
{
	float s = 0.0f;
	for (size_t k = 0; k < n; k++)
		s += a[k] * b[k];
	return s;
}

/* out = in weight^T (ATB's Linear, transposeB): in [T,K], weight [J,K], out [T,J]. */
static void linear(const struct atensor *in, const struct atensor *weight, struct atensor *out)
{
	size_t k = row_len(in), rows = in->numel / (k ? k : 1), cols = (size_t)weight->dims[0];
	float *a = as_floats(in), *wr = xmalloc(st_mult(k ? k : 1, sizeof(float)));
	for (size_t j = 0; j < cols; j++) {
		get_row(weight, j, wr);
		for (size_t t = 0; t < rows; t++)
			put(out, t * cols + j, dot(a + t * k, wr, k));
	}
	free(a);
	free(wr);
}

/* Single-head self-attention of q with itself as key and value, where mask allows. */
static void attention(const struct model *m, const struct atensor *q, const struct atensor *mask, struct atensor *out)
{
	size_t T = m->T, W = m->W;
	const unsigned char *allow = mask->data;
	float *qf = as_floats(q), *p = xmalloc(st_mult(T, sizeof(float))), *acc = xmalloc(st_mult(W, sizeof(float)));
	for (size_t t = 0; t < T; t++) {
		float top = -INFINITY, z = 0.0f;
		for (size_t u = 0; u < T; u++) {
			if (!allow[t * T + u])
				continue;
			p[u] = dot(qf + t * W, qf + u * W, W) * m->qk_scale;
			top = p[u] > top ? p[u] : top;
		}
		for (size_t u = 0; u < T; u++)
			if (allow[t * T + u]) {
				p[u] = expf(p[u] - top);
				z += p[u];
			}
		memset(acc, 0, W * sizeof(float));
		for (size_t u = 0; u < T; u++) {
			if (!allow[t * T + u])
				continue;
			float wgt = p[u] / z;
			for (size_t j = 0; j < W; j++)
				acc[j] += wgt * qf[u * W + j];
		}
		for (size_t j = 0; j < W; j++)
			put(out, t * W + j, acc[j]);
	}
	free(qf);
	free(p);
	free(acc);
}

/* out = a + b, elementwise (out may be either). */
static void add(const struct atensor *a, const struct atensor *b, struct atensor *out)
{
	for (size_t i = 0; i < out->numel; i++)
		put(out, i, get(a, i) + get(b, i));
}

static void cast(const struct atensor *in, struct atensor *out)
{
	for (size_t i = 0; i < out->numel; i++)
		put(out, i, get(in, i));
}

/* ------------------------------------------------------------------ */
/* The ops of a layer: a node per layer, operation and kernel */

#define MAX_IO 4
#define MAX_OPS 4

struct aio {
	struct atensor *t;
	const char *suffix;   /* after the index, in file names and Index: "_x" (GatherOperation's) or "" */
};

struct anode {
	const char *type;     /* "Prefill_layer", "RmsNormOperation", "RmsNormKernel" */
	int id;
	char *param;          /* op_param.json's text, owned; NULL for a kernel */
	struct aio in[MAX_IO], out[MAX_IO];
	int nin, nout;
	struct anode *child;  /* a layer's operations (nchild), an operation's kernel (1) */
	int nchild;
};

/* A layer with its operations and kernels, and the tensors it drew or computed (freed with it). */
struct layer {
	struct anode node, ops[MAX_OPS], kernels[MAX_OPS];
	struct atensor *own[12];
	int nown;
};

static struct atensor *own(struct layer *l, struct atensor *t)
{
	if (l->nown == (int)ARRAY_SIZE(l->own))
		die("internal error: a layer of too many tensors");
	l->own[l->nown++] = t;
	return t;
}

static void io_add(struct aio *v, int *n, struct atensor *t, const char *suffix)
{
	if (*n == MAX_IO)
		die("internal error: an op of too many tensors");
	v[(*n)++] = (struct aio){ t, suffix };
}

static void node_in(struct anode *n, struct atensor *t) { io_add(n->in, &n->nin, t, ""); }
static void node_out(struct anode *n, struct atensor *t) { io_add(n->out, &n->nout, t, ""); }

static void layer_init(struct layer *l, const char *type, int id, const char *param)
{
	memset(l, 0, sizeof(*l));
	l->node.type = type;
	l->node.id = id;
	l->node.param = xstrdup(param);
	l->node.child = l->ops;
}

/*
 * Operation k of the layer with its kernel, whose tensors are the
 * operation's (filled in by the caller through the returned operation;
 * layer_kernel_sync() copies them).
 */
static struct anode *layer_op(struct layer *l, const char *type, const char *kernel, const char *param)
{
	int k = l->node.nchild++;
	struct anode *op = &l->ops[k], *kn = &l->kernels[k];
	if (k == MAX_OPS)
		die("internal error: a layer of too many operations");
	*op = (struct anode){ .type = type, .id = k, .param = xstrdup(param), .child = kn, .nchild = 1 };
	*kn = (struct anode){ .type = kernel, .id = 0 };
	return op;
}

/* The kernel of each operation takes its operation's tensors, without the suffixes. */
static void layer_kernel_sync(struct layer *l)
{
	for (int k = 0; k < l->node.nchild; k++) {
		struct anode *op = &l->ops[k], *kn = &l->kernels[k];
		for (int i = 0; i < op->nin; i++)
			kn->in[i] = (struct aio){ op->in[i].t, "" };
		for (int i = 0; i < op->nout; i++)
			kn->out[i] = (struct aio){ op->out[i].t, "" };
		kn->nin = op->nin;
		if (kn->nout < op->nout)
			kn->nout = op->nout;
	}
}

static void layer_free(struct layer *l)
{
	free(l->node.param);
	for (int k = 0; k < l->node.nchild; k++)
		free(l->ops[k].param);
	for (int i = 0; i < l->nown; i++)
		tensor_free(l->own[i]);
}

static struct atensor *activation(const struct model *m, enum dtype d)
{
	return tensor_new(d, (int64_t)m->T, (int64_t)m->W);
}

/* 0_WordEmbedding: the table lookup; *out is its output, the caller's. */
static void word_embedding(struct layer *l, const struct model *m, int exec, struct atensor **out)
{
	struct atensor *table, *ids;
	struct anode *gather;

	layer_init(l, "WordEmbedding", 0, "{\"axis\":0,\"isTP\":false}");
	table = own(l, tensor_new(DT_BFLOAT16, (int64_t)m->V, (int64_t)m->W));
	ids = own(l, draw_ids(m, exec));
	fill_uniform(table, genio_rng_stream(m->cfg->seed, R_TABLE, 0, 0, 0), 0.0f, 0.9f, 1.0f);
	*out = activation(m, DT_BFLOAT16);
	embed(table, ids, *out);

	node_in(&l->node, table);
	node_in(&l->node, ids);
	node_out(&l->node, *out);
	gather = layer_op(l, "GatherOperation", "Gather16I64Kernel", "{\"axis\":0,\"batchDims\":0}");
	io_add(gather->in, &gather->nin, table, "_x");
	io_add(gather->in, &gather->nin, ids, "_indices");
	io_add(gather->out, &gather->nout, *out, "_output");
	layer_kernel_sync(l);
}

/* Prefill_layer `id` on x; *out is its output, the caller's. */
static void prefill_layer(struct layer *l, const struct model *m, int id, struct atensor *x, struct atensor *mask,
			  struct atensor **out)
{
	const struct atb_config *cfg = m->cfg;
	struct atensor *gamma, *weight, *normed, *rstd, *q, *att, *y;
	bool faulty = m->target && id == 1;
	struct strbuf param = STRBUF_INIT;
	struct anode *op;

	layer_init(l, "Prefill_layer", id,
		   "{\"isFA\":false,\"isPrefill\":true,\"rmsNormEps\":1e-06,\"numAttentionHeadsPerRank\":1}");
	gamma = own(l, tensor_new(DT_BFLOAT16, (int64_t)m->W, -1));
	weight = own(l, tensor_new(DT_BFLOAT16, (int64_t)m->W, (int64_t)m->W));
	normed = own(l, activation(m, DT_BFLOAT16));
	rstd = own(l, tensor_new(DT_FLOAT32, (int64_t)m->T, 1));
	q = own(l, activation(m, DT_BFLOAT16));
	att = own(l, activation(m, DT_BFLOAT16));
	y = activation(m, DT_BFLOAT16);
	fill_uniform(gamma, genio_rng_stream(cfg->seed, R_NORM, (uint64_t)id, 0, 0), 1.0f, 0.2f, 1.0f);
	fill_uniform(weight, genio_rng_stream(cfg->seed, R_LINEAR, (uint64_t)id, 0, 0), 0.0f, weight_scale(m),
		     faulty && cfg->fault == ATB_FAULT_LINEAR_WEIGHT ? 1.01f : 1.0f);
	rms_norm(x, gamma, normed, rstd);
	linear(normed, weight, q);
	attention(m, q, mask, att);
	add(att, x, y);
	if (faulty && cfg->fault == ATB_FAULT_ADD_KERNEL)
		for (size_t j = 0; j < m->W; j++)
			put(y, j, get(y, j) + 0.5f);
	*out = y;

	node_in(&l->node, x);
	node_in(&l->node, gamma);
	node_in(&l->node, weight);
	node_in(&l->node, mask);
	node_out(&l->node, y);
	op = layer_op(l, "RmsNormOperation", "RmsNormKernel",
		      "{\"layerType\":1,\"normParam\":{\"quantType\":0,\"epsilon\":1e-06}}");
	node_in(op, x);
	node_in(op, gamma);
	node_out(op, normed);
	l->kernels[0].out[1] = (struct aio){ rstd, "" };  /* the kernel's own second output */
	l->kernels[0].nout = 2;
	op = layer_op(l, "LinearOperation", "MatMulKernel",
		      "{\"transposeA\":false,\"transposeB\":true,\"hasBias\":false,\"outDataType\":-1}");
	node_in(op, normed);
	node_in(op, weight);
	node_out(op, q);
	strbuf_addf(&param, "{\"headNum\":1,\"kvHeadNum\":1,\"qkScale\":%s,\"maskType\":1}", m->qk_text.buf);
	op = layer_op(l, "SelfAttentionOperation", "FlashAttentionKernel", param.buf);
	node_in(op, q);
	node_in(op, mask);
	node_out(op, att);
	op = layer_op(l, "ElewiseOperation", "AddBF16Kernel", "{\"elewiseType\":8}");
	node_in(op, att);
	node_in(op, x);
	node_out(op, y);
	layer_kernel_sync(l);
	strbuf_release(&param);
}

/* LmHead `id` on x: the cast to float16 and the logits. */
static void lm_head(struct layer *l, const struct model *m, int id, struct atensor *x)
{
	struct atensor *weight, *half, *logits;
	struct anode *op;

	layer_init(l, "LmHead", id, "{\"gatherAhead\":false,\"unpadInputs\":true}");
	weight = own(l, tensor_new(DT_FLOAT16, (int64_t)m->V, (int64_t)m->W));
	half = own(l, activation(m, DT_FLOAT16));
	logits = own(l, tensor_new(DT_FLOAT32, (int64_t)m->T, (int64_t)m->V));
	fill_uniform(weight, genio_rng_stream(m->cfg->seed, R_HEAD, 0, 0, 0), 0.0f, weight_scale(m), 1.0f);
	cast(x, half);
	linear(half, weight, logits);

	node_in(&l->node, x);
	node_in(&l->node, weight);
	node_out(&l->node, logits);
	op = layer_op(l, "ElewiseOperation", "CastKernel", "{\"elewiseType\":1,\"outTensorType\":1}");
	node_in(op, x);
	node_out(op, half);
	op = layer_op(l, "LinearOperation", "MatMulKernel",
		      "{\"transposeA\":false,\"transposeB\":true,\"hasBias\":false,\"outDataType\":0}");
	node_in(op, half);
	node_in(op, weight);
	node_out(op, logits);
	layer_kernel_sync(l);
}

/* ------------------------------------------------------------------ */
/* Files: statistic.csv, the .bin files, op_param.json */

struct side {
	const struct atb_config *cfg;
	char devpid[48];           /* "<device>_<pid>" */
	struct strbuf base;        /* OUTDIR/<side>/atb_dump_data */
	struct strbuf exec_dir;    /* base/data/<devpid>/<exec> */
	struct strbuf alias_dir;   /* "atb_dump_data/data/<devpid>/<exec>/": data= of filter_level 1 */
	int exec;
	FILE *csv;
	struct partial *csv_part;
	struct strbuf csv_path, scratch, path;
};

static void commit_file(FILE *f, struct partial *part, const char *path)
{
	struct strbuf err = STRBUF_INIT;
	if (fclose(f))
		die_errno("cannot write %s", path);
	if (partial_commit(part, &err) < 0)
		die("%s", err.buf);
	strbuf_release(&err);
}

static FILE *create_file(const char *path, struct partial **part)
{
	struct strbuf err = STRBUF_INIT;
	FILE *f = partial_fopen(path, part, &err);
	if (!f)
		die("%s", err.buf);
	strbuf_release(&err);
	return f;
}

static void write_text_file(const char *path, const char *text, size_t len)
{
	struct strbuf err = STRBUF_INIT;
	if (partial_write_file(path, text, len, &err) < 0)
		die("%s", err.buf);
	strbuf_release(&err);
}

/* The elements, little-endian, whatever this machine's order. */
static void write_payload(FILE *f, const struct atensor *t, const char *path)
{
	size_t size = dtype_info(t->dtype)->size, n = t->numel;
	const uint16_t probe = 1;
	unsigned char buf[1 << 16];

	if (*(const unsigned char *)&probe || size == 1) {
		if (n && fwrite(t->data, size, n, f) != n)
			die_errno("cannot write %s", path);
		return;
	}
	for (size_t at = 0; at < n;) {
		size_t m = n - at < sizeof(buf) / size ? n - at : sizeof(buf) / size;
		const unsigned char *src = (const unsigned char *)t->data + at * size;
		for (size_t i = 0; i < m; i++)
			for (size_t b = 0; b < size; b++)
				buf[i * size + b] = src[i * size + size - 1 - b];
		if (fwrite(buf, size, m, f) != m)
			die_errno("cannot write %s", path);
		at += m;
	}
}

/* The directory part of path made (mkdir -p). */
static void make_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	struct strbuf dir = STRBUF_INIT;
	if (!slash)
		return;
	strbuf_add(&dir, path, (size_t)(slash - path));
	genio_mkdirs(dir.buf);
	strbuf_release(&dir);
}

/* The .bin file rel (below the exec folder) of t: the tensor, or with filter_level 1 an alias of its first file. */
static void write_bin(struct side *s, const char *rel, struct atensor *t)
{
	size_t bytes = t->numel * dtype_info(t->dtype)->size;
	bool alias = s->cfg->filter_level == 1 && t->first;
	struct strbuf *h = &s->scratch;
	struct partial *part;
	FILE *f;

	strbuf_reset(&s->path);
	strbuf_addf(&s->path, "%s/%s", s->exec_dir.buf, rel);
	make_parent(s->path.buf);
	strbuf_reset(h);
	strbuf_addf(h, "$Version=1.0\n$Object.Count=1\n$Object.Length=%zu\nformat=2\ndtype=%d\ndims=", bytes,
		    atb_code(t->dtype));
	add_dims(h, t, ',');
	strbuf_addch(h, '\n');
	if (alias)
		strbuf_addf(h, "data=%s\n", t->first);
	strbuf_addf(h, "$Object.data=0,%zu\n$End=1\n", bytes);
	f = create_file(s->path.buf, &part);
	if (fwrite(h->buf, 1, h->len, f) != h->len)
		die_errno("cannot write %s", s->path.buf);
	if (!alias)
		write_payload(f, t, s->path.buf);
	commit_file(f, part, s->path.buf);
	if (s->cfg->filter_level == 1 && !t->first) {
		strbuf_reset(h);
		strbuf_addf(h, "%s%s", s->alias_dir.buf, rel);
		t->first = xstrdup(h->buf);
	}
}

/* Where a node is: its folder below the exec folder, its Op Name and its Op Id so far. */
struct place {
	struct strbuf dir, name, id;
};

/* One row of statistic.csv (and its file in the tensor task). */
static void emit_row(struct side *s, const struct place *at, const struct anode *n, bool input, int i)
{
	const struct aio *io = input ? &n->in[i] : &n->out[i];
	struct atensor *t = io->t;
	struct strbuf rel = STRBUF_INIT, row = STRBUF_INIT;

	strbuf_addf(&rel, "%s/%s%d%s.bin", at->dir.buf, input ? "before/intensor" : "after/outtensor", i, io->suffix);
	strbuf_addf(&row, "%s,%d,%s,%s,%s,%s,%d%s,%s,nd,", s->devpid, s->exec, at->name.buf, n->type, at->id.buf,
		    input ? "input" : "output", i, io->suffix, atb_dtype_name(t->dtype));
	add_dims(&row, t, 'x');
	if (s->cfg->tensors) {
		write_bin(s, rel.buf, t);
		strbuf_addf(&row, ",N/A,N/A,N/A,N/A,%s/%s\n", s->exec_dir.buf, rel.buf);
	} else {
		tensor_stats(t);
		strbuf_addf(&row, ",%s,%s,%s,%s,N/A\n", t->stats[0], t->stats[1], t->stats[2], t->stats[3]);
	}
	if (fwrite(row.buf, 1, row.len, s->csv) != row.len)
		die_errno("cannot write %s", s->csv_path.buf);
	strbuf_release(&rel);
	strbuf_release(&row);
}

/* A node's rows: its inputs, its children's rows (save_child), its outputs; and its op_param.json. */
static void emit_node(struct side *s, struct place *at, const struct anode *n, bool top)
{
	size_t dir_len = at->dir.len, name_len = at->name.len, id_len = at->id.len;

	if (!top) {
		strbuf_addch(&at->dir, '/');
		strbuf_addch(&at->name, '/');
		strbuf_addch(&at->id, '_');
	}
	strbuf_addf(&at->dir, "%d_%s", n->id, n->type);
	strbuf_addstr(&at->name, n->type);
	strbuf_addi(&at->id, n->id);
	if (n->param) {
		strbuf_reset(&s->path);
		strbuf_addf(&s->path, "%s/%s", s->exec_dir.buf, at->dir.buf);
		genio_mkdirs(s->path.buf);
		strbuf_addstr(&s->path, "/op_param.json");
		write_text_file(s->path.buf, n->param, strlen(n->param));
	}
	for (int i = 0; i < n->nin; i++)
		emit_row(s, at, n, true, i);
	if (s->cfg->save_child)
		for (int k = 0; k < n->nchild; k++)
			emit_node(s, at, &n->child[k], false);
	for (int i = 0; i < n->nout; i++)
		emit_row(s, at, n, false, i);
	strbuf_setlen(&at->dir, dir_len);
	strbuf_setlen(&at->name, name_len);
	strbuf_setlen(&at->id, id_len);
}

static void emit_layer(struct side *s, const struct layer *l)
{
	struct place at = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	emit_node(s, &at, &l->node, true);
	strbuf_release(&at.dir);
	strbuf_release(&at.name);
	strbuf_release(&at.id);
}

/* ------------------------------------------------------------------ */
/* info/: the structure of each layer and of the model, as the dumper describes it */

enum naming { LAYER_NAMES, MODEL_NAMES };

struct internals {
	const struct atensor *v[MAX_OPS * MAX_IO];
	int n;
};

/* The internal tensors of a layer: the outputs of its operations that are not its own outputs. */
static void find_internals(const struct layer *l, struct internals *in)
{
	in->n = 0;
	for (int k = 0; k < l->node.nchild; k++)
		for (int i = 0; i < l->ops[k].nout; i++) {
			const struct atensor *t = l->ops[k].out[i].t;
			bool layer_out = false;
			for (int o = 0; o < l->node.nout; o++)
				layer_out = layer_out || l->node.out[o].t == t;
			if (!layer_out)
				in->v[in->n++] = t;
		}
}

/* The JSON string naming t in layer l: "<Layer>_<id>_input_<i>" or, for the model file, "model_tensor_<id>_in_<i>". */
static void tensor_name(struct strbuf *sb, const struct layer *l, const struct internals *in, const struct atensor *t,
			enum naming how)
{
	const struct anode *n = &l->node;
	for (int i = 0; i < n->nin; i++)
		if (n->in[i].t == t) {
			if (how == MODEL_NAMES)
				strbuf_addf(sb, "\"model_tensor_%d_in_%d\"", n->id, i);
			else
				strbuf_addf(sb, "\"%s_%d_input_%d\"", n->type, n->id, i);
			return;
		}
	for (int i = 0; i < n->nout; i++)
		if (n->out[i].t == t) {
			if (how == MODEL_NAMES)
				strbuf_addf(sb, "\"model_tensor_%d_out_%d\"", n->id, i);
			else
				strbuf_addf(sb, "\"%s_%d_output_%d\"", n->type, n->id, i);
			return;
		}
	for (int i = 0; i < in->n; i++)
		if (in->v[i] == t) {
			strbuf_addf(sb, "\"%s_%d_internal_%d\"", n->type, n->id, i);
			return;
		}
	die("internal error: a tensor of %s_%d without a name", n->type, n->id);
}

static void name_list(struct strbuf *sb, const char *key, const struct layer *l, const struct internals *in,
		      const struct aio *v, int n, enum naming how)
{
	strbuf_addf(sb, "\"%s\":[", key);
	for (int i = 0; i < n; i++) {
		if (i)
			strbuf_addch(sb, ',');
		tensor_name(sb, l, in, v[i].t, how);
	}
	strbuf_addch(sb, ']');
}

static void internal_list(struct strbuf *sb, const struct layer *l, const struct internals *in)
{
	if (!in->n)
		return;
	strbuf_addstr(sb, ",\"internalTensors\":[");
	for (int i = 0; i < in->n; i++)
		strbuf_addf(sb, "%s\"%s_%d_internal_%d\"", i ? "," : "", l->node.type, l->node.id, i);
	strbuf_addch(sb, ']');
}

/* The operations of l as the "nodes" of its description. */
static void op_nodes(struct strbuf *sb, const struct layer *l, const struct internals *in, enum naming how)
{
	strbuf_addstr(sb, ",\"nodes\":[");
	for (int k = 0; k < l->node.nchild; k++) {
		const struct anode *op = &l->ops[k];
		strbuf_addf(sb, "%s{\"opName\":\"%s_%d_%d\",\"opType\":\"%s\",\"param\":%s,", k ? "," : "", op->type,
			    l->node.id, k, op->type, op->param);
		name_list(sb, "inTensors", l, in, op->in, op->nin, how);
		strbuf_addch(sb, ',');
		name_list(sb, "outTensors", l, in, op->out, op->nout, how);
		strbuf_addch(sb, '}');
	}
	strbuf_addstr(sb, "]}");
}

/* info/layer/<devpid>/<Layer>_<id>.json, and the layer's node appended to the model's description. */
static void describe_layer(struct side *s, const struct layer *l, struct strbuf *model)
{
	const struct anode *n = &l->node;
	struct internals in;
	struct strbuf sb = STRBUF_INIT;

	find_internals(l, &in);
	strbuf_addf(&sb, "{\"opName\":\"%s_%d\",\"opType\":\"%s\",\"param\":%s,", n->type, n->id, n->type, n->param);
	name_list(&sb, "inTensors", l, &in, n->in, n->nin, LAYER_NAMES);
	strbuf_addch(&sb, ',');
	name_list(&sb, "outTensors", l, &in, n->out, n->nout, LAYER_NAMES);
	internal_list(&sb, l, &in);
	op_nodes(&sb, l, &in, LAYER_NAMES);
	strbuf_reset(&s->path);
	strbuf_addf(&s->path, "%s/info/layer/%s/%s_%d.json", s->base.buf, s->devpid, n->type, n->id);
	write_text_file(s->path.buf, sb.buf, sb.len);

	if (model->len)
		strbuf_addch(model, ',');
	strbuf_addf(model, "{\"opName\":\"%s_%d\",", n->type, n->id);
	name_list(model, "inTensors", l, &in, n->in, n->nin, MODEL_NAMES);
	strbuf_addch(model, ',');
	name_list(model, "outTensors", l, &in, n->out, n->nout, MODEL_NAMES);
	strbuf_addf(model, ",\"opType\":\"%s\"", n->type);
	internal_list(model, l, &in);
	op_nodes(model, l, &in, MODEL_NAMES);
	strbuf_release(&sb);
}

static void write_model_info(struct side *s, const struct strbuf *nodes)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "{\"modelName\":\"DecoderModel_Prefill\",\"nodes\":[%s]}", nodes->buf);
	strbuf_reset(&s->path);
	strbuf_addf(&s->path, "%s/info/model/%s/DecoderModel_Prefill.json", s->base.buf, s->devpid);
	write_text_file(s->path.buf, sb.buf, sb.len);
	strbuf_release(&sb);
}

/* ------------------------------------------------------------------ */
/* One side, one exec count at a time */

/* A layer's rows and files written (and, in exec 0, its description), then its tensors freed. */
static void finish_layer(struct side *s, struct layer *l, struct strbuf *model)
{
	emit_layer(s, l);
	if (model)
		describe_layer(s, l, model);
	layer_free(l);
}

static void run_exec(struct side *s, const struct model *m, int exec, struct strbuf *model)
{
	const struct atb_config *cfg = s->cfg;
	struct atensor *x, *y, *mask = causal_mask(m);
	struct layer l;

	s->exec = exec;
	strbuf_reset(&s->exec_dir);
	strbuf_addf(&s->exec_dir, "%s/data/%s/%d", s->base.buf, s->devpid, exec);
	strbuf_reset(&s->alias_dir);
	strbuf_addf(&s->alias_dir, "atb_dump_data/data/%s/%d/", s->devpid, exec);
	genio_mkdirs(s->exec_dir.buf);
	strbuf_reset(&s->csv_path);
	strbuf_addf(&s->csv_path, "%s/statistic.csv", s->exec_dir.buf);
	s->csv = create_file(s->csv_path.buf, &s->csv_part);
	if (fputs(csv_header, s->csv) == EOF)
		die_errno("cannot write %s", s->csv_path.buf);

	word_embedding(&l, m, exec, &x);
	finish_layer(s, &l, model);
	for (int id = 1; id <= cfg->layers; id++) {
		prefill_layer(&l, m, id, x, mask, &y);
		finish_layer(s, &l, model);
		tensor_free(x);
		x = y;
	}
	lm_head(&l, m, cfg->layers + 1, x);
	finish_layer(s, &l, model);
	tensor_free(x);
	tensor_free(mask);
	commit_file(s->csv, s->csv_part, s->csv_path.buf);
}

static void run_side(const struct atb_config *cfg, const char *name, int pid, bool target)
{
	struct model m = { .cfg = cfg, .target = target, .T = (size_t)cfg->batch, .W = (size_t)cfg->width,
			   .V = st_mult(2, (size_t)cfg->width), .qk_text = STRBUF_INIT };
	struct side s = { .cfg = cfg, .base = STRBUF_INIT, .exec_dir = STRBUF_INIT, .alias_dir = STRBUF_INIT,
			  .csv_path = STRBUF_INIT, .scratch = STRBUF_INIT, .path = STRBUF_INIT };
	struct strbuf model = STRBUF_INIT;
	size_t outlen = strlen(cfg->outdir);

	while (outlen > 1 && cfg->outdir[outlen - 1] == '/')
		outlen--;
	strbuf_add(&s.base, cfg->outdir, outlen);
	strbuf_addf(&s.base, "%s%s/atb_dump_data", outlen && cfg->outdir[outlen - 1] == '/' ? "" : "/", name);
	snprintf(s.devpid, sizeof(s.devpid), "%d_%d", cfg->device, pid);
	pyfmt_double(&m.qk_text, 1.0 / sqrt((double)m.W));
	m.qk_scale = (float)(1.0 / sqrt((double)m.W));

	strbuf_reset(&s.path);
	strbuf_addf(&s.path, "%s/info/layer/%s", s.base.buf, s.devpid);
	genio_mkdirs(s.path.buf);
	strbuf_reset(&s.path);
	strbuf_addf(&s.path, "%s/info/model/%s", s.base.buf, s.devpid);
	genio_mkdirs(s.path.buf);
	for (int exec = 0; exec < cfg->steps; exec++)
		run_exec(&s, &m, exec, exec ? NULL : &model);
	write_model_info(&s, &model);

	strbuf_release(&model);
	strbuf_release(&m.qk_text);
	strbuf_release(&s.base);
	strbuf_release(&s.exec_dir);
	strbuf_release(&s.alias_dir);
	strbuf_release(&s.csv_path);
	strbuf_release(&s.scratch);
	strbuf_release(&s.path);
}

void genatb_write(const struct atb_config *cfg)
{
	if (cfg->tensors && strpbrk(cfg->outdir, ",\"\n\r"))
		die("%s: statistic.csv cannot hold a Tensor Path with a comma, a quote or a line break", cfg->outdir);
	if (cfg->layers < 1 || cfg->width < 1 || cfg->batch < 1 || cfg->steps < 1 ||
	    (cfg->filter_level != 0 && cfg->filter_level != 1))
		die("internal error: an ATB configuration out of range");
	partial_init();
	run_side(cfg, "golden", GOLDEN_PID, false);
	run_side(cfg, "target", TARGET_PID, true);
}
