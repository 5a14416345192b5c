/*
 * gendecoder.c: a small LLaMA-style decoder's forward pass, golden in
 * float32 and target in a chosen precision with a planted bug, written as
 * msprobe's level L1 PyTorch dumps, with the answer in needle.json (see
 * gendecoder.h for the model, the precisions and the faults).
 *
 * The call stacks point into this invented script, /home/user/llama/model.py
 * (line numbers on the left); every entry's innermost frame is the line
 * that calls its API, then the lines that called that, out to <module>,
 * with torch's Module.__call__ frames between (module.py):
 *
 *      1  # /home/user/llama/model.py: the decoder that probe-gendump --framework decoder simulates
 *      2  import math
 *      3
 *      4  import torch
 *      5  import torch.nn as nn
 *      6  import torch.nn.functional as F
 *      7  import torch_npu
 *      8  from msprobe.pytorch import PrecisionDebugger
 *      9
 *     10  from data import batch, causal_mask, parse_args, rotary_tables
 *     11
 *     12
 *     13  def rms_norm(x, weight, eps):
 *     14      variance = torch.mean(torch.pow(x, 2), -1, keepdim=True)
 *     15      x = torch.mul(x, torch.rsqrt(variance + eps))
 *     16      return torch.mul(weight, x)
 *     17
 *     18
 *     19  class MLP(nn.Module):
 *     20      def __init__(self, dim, hidden):
 *     21          super().__init__()
 *     22          self.gate = nn.Parameter(torch.empty(hidden, dim))
 *     23          self.up = nn.Parameter(torch.empty(hidden, dim))
 *     24          self.down = nn.Parameter(torch.empty(dim, hidden))
 *     25
 *     26      def forward(self, h):
 *     27          gate = F.linear(h, self.gate)
 *     28          up = F.linear(h, self.up)
 *     29          return F.linear(torch.mul(F.silu(gate), up), self.down)
 *     30
 *     31
 *     32  class DecoderLayer(nn.Module):
 *     33      def __init__(self, dim, heads, hidden, eps=1e-6):
 *     34          super().__init__()
 *     35          self.heads, self.head_dim, self.eps = heads, dim // heads, eps
 *     36          self.attn_norm = nn.Parameter(torch.ones(dim))
 *     37          self.wq = nn.Parameter(torch.empty(dim, dim))
 *     38          self.wk = nn.Parameter(torch.empty(dim, dim))
 *     39          self.wv = nn.Parameter(torch.empty(dim, dim))
 *     40          self.wo = nn.Parameter(torch.empty(dim, dim))
 *     41          self.mlp_norm = nn.Parameter(torch.ones(dim))
 *     42          self.mlp = MLP(dim, hidden)
 *     43
 *     44      def split(self, x):  # [S, D] -> [1, heads, S, head_dim]
 *     45          return x.view(1, x.shape[0], self.heads, self.head_dim).transpose(1, 2)
 *     46
 *     47      def forward(self, x, cos, sin, mask):
 *     48          h = rms_norm(x, self.attn_norm, self.eps)
 *     49          q = F.linear(h, self.wq)
 *     50          k = F.linear(h, self.wk)
 *     51          v = F.linear(h, self.wv)
 *     52          q = torch_npu.npu_rotary_mul(self.split(q), cos, sin)
 *     53          k = torch_npu.npu_rotary_mul(self.split(k), cos, sin)
 *     54          scores = torch.matmul(q, k.transpose(-2, -1))
 *     55          scores = scores / math.sqrt(self.head_dim)
 *     56          scores = scores.masked_fill(mask, -10000.0)
 *     57          probs = F.softmax(scores, dim=-1)
 *     58          attn = torch.matmul(probs, self.split(v))
 *     59          x = x + F.linear(attn.transpose(1, 2).reshape(x.shape), self.wo)
 *     60          return x + self.mlp(rms_norm(x, self.mlp_norm, self.eps))
 *     61
 *     62
 *     63  class Decoder(nn.Module):
 *     64      def __init__(self, vocab, dim, heads, hidden, layers):
 *     65          super().__init__()
 *     66          self.embed = nn.Parameter(torch.empty(vocab, dim))
 *     67          self.layers = nn.ModuleList(DecoderLayer(dim, heads, hidden) for _ in range(layers))
 *     68          self.norm = nn.Parameter(torch.ones(dim))
 *     69          self.lm_head = nn.Parameter(torch.empty(vocab, dim))
 *     70
 *     71      def forward(self, ids, targets, cos, sin, mask):
 *     72          x = F.embedding(ids, self.embed)
 *     73          for layer in self.layers:
 *     74              x = layer(x, cos, sin, mask)
 *     75          logits = F.linear(rms_norm(x, self.norm, 1e-6), self.lm_head)
 *     76          return F.cross_entropy(logits, targets)
 *     77
 *     78
 *     79  def main(args):
 *     80      model = Decoder(64, args.dim, 2, 2 * args.dim, args.layers).npu()
 *     81      ids, targets = batch(args.seq, args.rank)
 *     82      cos, sin, mask = *rotary_tables(args.seq, args.dim // 2), causal_mask(args.seq)
 *     83      if args.hook_layer is not None:
 *     84          model.layers[args.hook_layer].mlp.register_forward_hook(lambda m, i, out: out * 1.5)
 *     85      debugger = PrecisionDebugger(config_path="config.json")
 *     86      debugger.start()
 *     87      with torch.autocast("npu", dtype=args.dtype, enabled=args.dtype != torch.float32):
 *     88          loss = model(ids, targets, cos, sin, mask)
 *     89      debugger.stop()
 *     90
 *     91
 *     92  if __name__ == "__main__":
 *     93      main(parse_args())
 *
 * The hook of line 84 is the hook fault's (target only); the other faults
 * are not in the script (a wrong constant, a weight, a kernel).
 *
 * Arithmetic: float32, in a fixed order (a dot product adds k = 0, 1, ...;
 * fp32-kernels adds from the end), no contraction (C11: -ffp-contract=off);
 * exp, log, cos, sin in double, rounded to float32.  Weights: the embedding
 * normal (sum of 12 uniforms), the norm weights 1 + U(-0.1, 0.1), every
 * projection U(-1, 1) sqrt(3 / fan_in); all exact float32 draws of the seed.
 */
#include "gendecoder.h"
#include "genio.h"
#include "../core/msg.h"
#include "../core/strbuf.h"
#include "../core/xalloc.h"
#include "../msprobe/pyfmt.h"
#include "../tensors/dtype.h"
#include "../tensors/tensorw.h"

#include <math.h>

static const char *const precision_names[] = {
	[GENDEC_FP32] = "fp32",
	[GENDEC_BF16] = "bf16",
	[GENDEC_FP16] = "fp16",
	[GENDEC_FP32_KERNELS] = "fp32-kernels",
};

static const char *const fault_names[] = {
	[GENDEC_FAULT_NONE] = "none",
	[GENDEC_FAULT_SCALE] = "scale",
	[GENDEC_FAULT_EPS] = "eps",
	[GENDEC_FAULT_SOFTMAX_FP16] = "softmax-fp16",
	[GENDEC_FAULT_WEIGHT] = "weight",
	[GENDEC_FAULT_KERNEL] = "kernel",
	[GENDEC_FAULT_HOOK] = "hook",
};

static int name_index(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name, names[i]))
			return (int)i;
	return -1;
}

int gendec_precision_parse(const char *name)
{
	return name_index(precision_names, ARRAY_SIZE(precision_names), name);
}

int gendec_fault_parse(const char *name)
{
	return name_index(fault_names, ARRAY_SIZE(fault_names), name);
}

void gendec_config_init(struct gendec_config *cfg)
{
	*cfg = (struct gendec_config){ .precision = GENDEC_BF16, .fault = GENDEC_FAULT_SCALE, .fault_layer = 1,
				       .ranks = 1, .layers = 4, .width = 32, .seq = 8, .seed = 1 };
}

const char *gendec_config_problem(const struct gendec_config *cfg)
{
	static char msg[160];
	if (cfg->width % 4)
		snprintf(msg, sizeof(msg), "--width %d is not a multiple of 4 (2 heads of an even head size)",
			 cfg->width);
	else if (cfg->fault != GENDEC_FAULT_NONE && cfg->fault_layer >= cfg->layers)
		snprintf(msg, sizeof(msg), "--fault-layer %d is not below --layers %d (layers count from 0)",
			 cfg->fault_layer, cfg->layers);
	else if (cfg->fault_rank >= cfg->ranks)
		snprintf(msg, sizeof(msg), "--fault-rank %d is not below --ranks %d", cfg->fault_rank, cfg->ranks);
	else
		return NULL;
	return msg;
}

/* ------------------------------------------------------------------ */
/* The model's constants */

enum { HEADS = 2, VOCAB = 64 };
#define NORM_EPS 1e-6
#define FAULT_EPS 1.0
#define MASK_VALUE (-10000.0)
#define HOOK_FACTOR 1.5
#define WEIGHT_FAULT_FACTOR 1.001f
#define ROPE_BASE 10000.0
#define SOFTMAX_FP16_TARGET 16.0  /* the fault layer's largest softmax input, about */
#define SOFTMAX_FP16_LEAST 12.0   /* ... and at least this, in both runs (exp overflows half above 11.09) */

enum rng_stream { RNG_WEIGHTS = 1, RNG_IDS };
enum weight_kind { W_EMBED, W_ATTN_NORM, W_Q, W_K, W_V, W_O, W_MLP_NORM, W_GATE, W_UP, W_DOWN, W_NORM, W_LM_HEAD };

/* ------------------------------------------------------------------ */
/* Tensors */

struct ten {
	enum dtype dtype;       /* float32, bfloat16, float16 (values exact in it), int64, bool */
	int ndim;
	int64_t shape[4];
	size_t n;
	float *v;               /* the floating types' values */
	int64_t *ids;           /* int64 */
	uint8_t *flags;         /* bool */
	bool requires_grad;
	struct ten *next;       /* the activations of a rank, freed together */
};

static struct ten *ten_new(enum dtype dtype, int ndim, const int64_t *shape, bool requires_grad)
{
	struct ten *t = xcalloc(1, sizeof(*t));
	t->dtype = dtype;
	t->ndim = ndim;
	t->n = 1;
	for (int i = 0; i < ndim; i++) {
		t->shape[i] = shape[i];
		t->n = st_mult(t->n, (size_t)shape[i]);
	}
	t->requires_grad = requires_grad;
	if (dtype == DT_INT64)
		t->ids = xcalloc(t->n, sizeof(int64_t));
	else if (dtype == DT_BOOL)
		t->flags = xcalloc(t->n, 1);
	else
		t->v = xcalloc(t->n, sizeof(float));
	return t;
}

static void ten_free(struct ten *t)
{
	if (!t)
		return;
	free(t->v);
	free(t->ids);
	free(t->flags);
	free(t);
}

/* x rounded to t (float32: x). */
static float rnd(enum dtype t, float x)
{
	return t == DT_FLOAT32 ? x : (float)genio_round_to(t, x);
}

/* ------------------------------------------------------------------ */
/* The invented call stacks (the listing above) */

#define MODEL_PY "/home/user/llama/model.py"
#define MODULE_PY "/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py"
#define NO_SITE (-1)

enum site {
	ST_MODULE, ST_MAIN, ST_DEC_WRAP, ST_DEC_CALL,
	ST_EMBED, ST_LAYER, ST_LOGITS, ST_LOSS,
	ST_LAYER_WRAP, ST_LAYER_CALL,
	ST_NORM1, ST_Q, ST_K, ST_V, ST_ROT_Q, ST_ROT_K, ST_SCORES, ST_SCALE, ST_MASK, ST_SOFTMAX, ST_ATTN, ST_O,
	ST_MLP,
	ST_MLP_WRAP, ST_MLP_CALL, ST_GATE, ST_UP, ST_DOWN,
	ST_HOOK_CALL, ST_HOOK,
	/* rms_norm's three lines, called from each of its three callers */
	ST_N1_MEAN, ST_N1_RSQRT, ST_N1_WEIGHT,
	ST_N2_MEAN, ST_N2_RSQRT, ST_N2_WEIGHT,
	ST_NF_MEAN, ST_NF_RSQRT, ST_NF_WEIGHT,
	ST_COUNT,
};

struct site_frame {
	int caller;
	const char *file;
	int line;
	const char *func;
	const char *source;
};

#define NORM_SITES(caller) \
	{ caller, MODEL_PY, 14, "rms_norm", "variance = torch.mean(torch.pow(x, 2), -1, keepdim=True)" }, \
	{ caller, MODEL_PY, 15, "rms_norm", "x = torch.mul(x, torch.rsqrt(variance + eps))" }, \
	{ caller, MODEL_PY, 16, "rms_norm", "return torch.mul(weight, x)" }

static const struct site_frame sites[ST_COUNT] = {
	[ST_MODULE] = { NO_SITE, MODEL_PY, 93, "<module>", "main(parse_args())" },
	[ST_MAIN] = { ST_MODULE, MODEL_PY, 88, "main", "loss = model(ids, targets, cos, sin, mask)" },
	[ST_DEC_WRAP] = { ST_MAIN, MODULE_PY, 1518, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)" },
	[ST_DEC_CALL] = { ST_DEC_WRAP, MODULE_PY, 1527, "_call_impl", "return forward_call(*args, **kwargs)" },
	[ST_EMBED] = { ST_DEC_CALL, MODEL_PY, 72, "forward", "x = F.embedding(ids, self.embed)" },
	[ST_LAYER] = { ST_DEC_CALL, MODEL_PY, 74, "forward", "x = layer(x, cos, sin, mask)" },
	[ST_LOGITS] = { ST_DEC_CALL, MODEL_PY, 75, "forward", "logits = F.linear(rms_norm(x, self.norm, 1e-6), self.lm_head)" },
	[ST_LOSS] = { ST_DEC_CALL, MODEL_PY, 76, "forward", "return F.cross_entropy(logits, targets)" },
	[ST_LAYER_WRAP] = { ST_LAYER, MODULE_PY, 1518, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)" },
	[ST_LAYER_CALL] = { ST_LAYER_WRAP, MODULE_PY, 1527, "_call_impl", "return forward_call(*args, **kwargs)" },
	[ST_NORM1] = { ST_LAYER_CALL, MODEL_PY, 48, "forward", "h = rms_norm(x, self.attn_norm, self.eps)" },
	[ST_Q] = { ST_LAYER_CALL, MODEL_PY, 49, "forward", "q = F.linear(h, self.wq)" },
	[ST_K] = { ST_LAYER_CALL, MODEL_PY, 50, "forward", "k = F.linear(h, self.wk)" },
	[ST_V] = { ST_LAYER_CALL, MODEL_PY, 51, "forward", "v = F.linear(h, self.wv)" },
	[ST_ROT_Q] = { ST_LAYER_CALL, MODEL_PY, 52, "forward", "q = torch_npu.npu_rotary_mul(self.split(q), cos, sin)" },
	[ST_ROT_K] = { ST_LAYER_CALL, MODEL_PY, 53, "forward", "k = torch_npu.npu_rotary_mul(self.split(k), cos, sin)" },
	[ST_SCORES] = { ST_LAYER_CALL, MODEL_PY, 54, "forward", "scores = torch.matmul(q, k.transpose(-2, -1))" },
	[ST_SCALE] = { ST_LAYER_CALL, MODEL_PY, 55, "forward", "scores = scores / math.sqrt(self.head_dim)" },
	[ST_MASK] = { ST_LAYER_CALL, MODEL_PY, 56, "forward", "scores = scores.masked_fill(mask, -10000.0)" },
	[ST_SOFTMAX] = { ST_LAYER_CALL, MODEL_PY, 57, "forward", "probs = F.softmax(scores, dim=-1)" },
	[ST_ATTN] = { ST_LAYER_CALL, MODEL_PY, 58, "forward", "attn = torch.matmul(probs, self.split(v))" },
	[ST_O] = { ST_LAYER_CALL, MODEL_PY, 59, "forward",
		   "x = x + F.linear(attn.transpose(1, 2).reshape(x.shape), self.wo)" },
	[ST_MLP] = { ST_LAYER_CALL, MODEL_PY, 60, "forward", "return x + self.mlp(rms_norm(x, self.mlp_norm, self.eps))" },
	[ST_MLP_WRAP] = { ST_MLP, MODULE_PY, 1518, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)" },
	[ST_MLP_CALL] = { ST_MLP_WRAP, MODULE_PY, 1527, "_call_impl", "return forward_call(*args, **kwargs)" },
	[ST_GATE] = { ST_MLP_CALL, MODEL_PY, 27, "forward", "gate = F.linear(h, self.gate)" },
	[ST_UP] = { ST_MLP_CALL, MODEL_PY, 28, "forward", "up = F.linear(h, self.up)" },
	[ST_DOWN] = { ST_MLP_CALL, MODEL_PY, 29, "forward", "return F.linear(torch.mul(F.silu(gate), up), self.down)" },
	[ST_HOOK_CALL] = { ST_MLP_WRAP, MODULE_PY, 1581, "_call_impl", "hook_result = hook(self, args, result)" },
	[ST_HOOK] = { ST_HOOK_CALL, MODEL_PY, 84, "<lambda>",
		      "model.layers[args.hook_layer].mlp.register_forward_hook(lambda m, i, out: out * 1.5)" },
	[ST_N1_MEAN] = NORM_SITES(ST_NORM1),
	[ST_N2_MEAN] = NORM_SITES(ST_MLP),
	[ST_NF_MEAN] = NORM_SITES(ST_LOGITS),
};

/* ------------------------------------------------------------------ */
/* One rank's dump: dump.json streamed, stack.json and construct.json at the end */

struct api_count {
	char *api;
	int calls;
};

struct written {
	char *name;
	int site;
};

struct dec_dump {
	const struct gendec_config *cfg;
	struct strbuf dir;
	struct genio_json json;
	struct strbuf entry;      /* the entry being written */
	struct api_count *counts;
	size_t nr_counts, alloc_counts;
	struct written *written;
	size_t nr_written, alloc_written;
};

static void dump_open(struct dec_dump *d, const struct gendec_config *cfg, const char *side, int rank)
{

	*d = (struct dec_dump){ .cfg = cfg, .dir = STRBUF_INIT, .entry = STRBUF_INIT };
	strbuf_addf(&d->dir, "%s/%s/step0/rank%d", cfg->outdir, side, rank);
	genio_dump_begin(&d->json, d->dir.buf, "L1", "pytorch", cfg->tensors);
}

static bool site_seen_before(const struct dec_dump *d, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (d->written[j].site == d->written[i].site)
			return true;
	return false;
}

/* stack.json: one group per call site, in the order of first use, with the entries called there. */
static void write_stack_json(const struct dec_dump *d)
{
	struct strbuf path = STRBUF_INIT;
	struct genio_json w;
	int group = 0;

	strbuf_addf(&path, "%s/stack.json", d->dir.buf);
	genio_json_create(&w, path.buf);
	genio_json_open(&w, '{');
	for (size_t i = 0; i < d->nr_written; i++) {
		int site = d->written[i].site;
		char id[16];
		if (site_seen_before(d, i))
			continue;
		snprintf(id, sizeof(id), "%d", group++);
		genio_json_key(&w, id);
		genio_json_open(&w, '[');
		genio_json_open(&w, '[');
		for (size_t j = i; j < d->nr_written; j++)
			if (d->written[j].site == site)
				genio_json_string(&w, d->written[j].name);
		genio_json_close(&w, ']');
		genio_json_open(&w, '[');
		for (; site != NO_SITE; site = sites[site].caller)
			genio_json_frame(&w, sites[site].file, sites[site].line, sites[site].func, sites[site].source);
		genio_json_close(&w, ']');
		genio_json_close(&w, ']');
		genio_json_flush_if_big(&w);
	}
	genio_json_close(&w, '}');
	genio_json_commit(&w);
	strbuf_release(&path);
}

/* construct.json: {} at level L1. */
static void write_construct_json(const struct dec_dump *d)
{
	struct strbuf path = STRBUF_INIT;
	struct genio_json w;

	strbuf_addf(&path, "%s/construct.json", d->dir.buf);
	genio_json_create(&w, path.buf);
	genio_json_open(&w, '{');
	genio_json_close(&w, '}');
	genio_json_commit(&w);
	strbuf_release(&path);
}

static void dump_close(struct dec_dump *d)
{
	genio_json_close(&d->json, '}'); /* data */
	genio_json_close(&d->json, '}');
	genio_json_commit(&d->json);
	write_stack_json(d);
	write_construct_json(d);
	for (size_t i = 0; i < d->nr_counts; i++)
		free(d->counts[i].api);
	free(d->counts);
	for (size_t i = 0; i < d->nr_written; i++)
		free(d->written[i].name);
	free(d->written);
	strbuf_release(&d->entry);
	strbuf_release(&d->dir);
}

/* The next call number of api in this dump (msprobe counts each API's calls from 0). */
static int next_call(struct dec_dump *d, const char *api)
{
	for (size_t i = 0; i < d->nr_counts; i++)
		if (!strcmp(d->counts[i].api, api))
			return d->counts[i].calls++;
	ALLOC_GROW(d->counts, d->nr_counts + 1, d->alloc_counts);
	d->counts[d->nr_counts++] = (struct api_count){ .api = xstrdup(api), .calls = 1 };
	return 0;
}

/*
 * The elements as saved: float32, int64 and bool as they are, 16-bit
 * floats converted into a buffer left in *owned for the caller to free.
 */
static const void *saved_elements(const struct ten *t, uint16_t **owned)
{
	uint16_t *buf;
	*owned = NULL;
	if (t->dtype == DT_INT64)
		return t->ids;
	if (t->dtype == DT_BOOL)
		return t->flags;
	if (t->dtype == DT_FLOAT32)
		return t->v;
	buf = *owned = xmalloc(st_mult(t->n, sizeof(uint16_t)));
	for (size_t i = 0; i < t->n; i++)
		buf[i] = t->dtype == DT_BFLOAT16 ? dtype_float_to_bf16(t->v[i]) : dtype_float_to_half(t->v[i]);
	return buf;
}

static void save_tensor(const struct dec_dump *d, const char *data_name, const struct ten *t, const void *elems)
{
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;
	struct pt_options opt = { .layout = PT_TORCH1 };
	struct tensor_src src = { .dtype = t->dtype, .storage = elems, .storage_numel = (int64_t)t->n,
				  .ndim = t->ndim, .shape = t->ndim ? t->shape : NULL };

	strbuf_addf(&path, "%s/dump_tensor_data/%s", d->dir.buf, data_name);
	if (tensorw_pt(path.buf, &src, &opt, &err))
		die("%s", err.buf);
	strbuf_release(&path);
	strbuf_release(&err);
}

/* A tensor leaf named <entry>.<label>: type, dtype, shape, Max..Norm, requires_grad (and data_name, its file). */
static void put_tensor(struct dec_dump *d, const char *label, const struct ten *t)
{
	static const char *const stat_names[4] = { "Max", "Min", "Mean", "Norm" };
	struct genio_json *w = &d->json;
	uint16_t *buf;
	const void *elems = saved_elements(t, &buf);
	char stat[4][32];

	genio_summarize(t->dtype, elems, t->n, t->ndim, stat);
	genio_json_open(w, '{');
	genio_json_key(w, "type");
	genio_json_string(w, "torch.Tensor");
	genio_json_key(w, "dtype");
	genio_json_string(w, dtype_info(t->dtype)->torch);
	genio_json_key(w, "shape");
	genio_json_open(w, '[');
	for (int i = 0; i < t->ndim; i++)
		genio_json_int(w, t->shape[i]);
	genio_json_close(w, ']');
	for (int i = 0; i < 4; i++) {
		genio_json_key(w, stat_names[i]);
		genio_json_token(w, stat[i]);
	}
	genio_json_key(w, "requires_grad");
	genio_json_token(w, t->requires_grad ? "true" : "false");
	if (d->cfg->tensors) {
		struct strbuf data_name = STRBUF_INIT;
		strbuf_addf(&data_name, "%s.%s.pt", d->entry.buf, label);
		genio_json_key(w, "data_name");
		genio_json_string(w, data_name.buf);
		save_tensor(d, data_name.buf, t, elems);
		strbuf_release(&data_name);
	}
	genio_json_close(w, '}');
	free(buf);
}

/* An argument of an API call: a tensor or a Python scalar; name: a keyword argument's. */
enum arg_kind { ARG_TENSOR, ARG_FLOAT, ARG_INT, ARG_BOOL };

struct arg {
	enum arg_kind kind;
	const struct ten *t;
	double f;
	long long i;
	const char *name;
};

static struct arg a_ten(const struct ten *t)
{
	return (struct arg){ .kind = ARG_TENSOR, .t = t };
}

static struct arg a_float(double f)
{
	return (struct arg){ .kind = ARG_FLOAT, .f = f };
}

static struct arg a_int(long long i)
{
	return (struct arg){ .kind = ARG_INT, .i = i };
}

static struct arg a_kw(const char *name, struct arg a)
{
	a.name = name;
	return a;
}

/* {"type": "float", "value": 1e-06}, as msprobe writes a Python scalar. */
static void put_scalar(struct dec_dump *d, const struct arg *a)
{
	struct strbuf value = STRBUF_INIT;
	genio_json_open(&d->json, '{');
	genio_json_key(&d->json, "type");
	switch (a->kind) {
	case ARG_FLOAT:
		genio_json_string(&d->json, "float");
		pyfmt_double(&value, a->f);
		break;
	case ARG_INT:
		genio_json_string(&d->json, "int");
		strbuf_addf(&value, "%lld", a->i);
		break;
	default:
		genio_json_string(&d->json, "bool");
		strbuf_addstr(&value, a->i ? "true" : "false");
		break;
	}
	genio_json_key(&d->json, "value");
	genio_json_token(&d->json, value.buf);
	genio_json_close(&d->json, '}');
	strbuf_release(&value);
}

static void put_arg(struct dec_dump *d, const char *label, const struct arg *a)
{
	if (a->kind == ARG_TENSOR)
		put_tensor(d, label, a->t);
	else
		put_scalar(d, a);
}

/*
 * The entry <api>.<n>.forward: input_args (rows input.<i>), input_kwargs
 * (rows input.<name>), output [out] (row output.0); called at site.
 */
static void put_entry(struct dec_dump *d, const char *api, int site, const struct arg *args, int nargs,
		      const struct arg *kwargs, int nkwargs, const struct ten *out)
{
	struct strbuf label = STRBUF_INIT;
	struct written *e;

	strbuf_reset(&d->entry);
	strbuf_addf(&d->entry, "%s.%d.forward", api, next_call(d, api));
	ALLOC_GROW(d->written, d->nr_written + 1, d->alloc_written);
	e = &d->written[d->nr_written++];
	e->name = xstrdup(d->entry.buf);
	e->site = site;

	genio_json_key(&d->json, d->entry.buf);
	genio_json_open(&d->json, '{');
	genio_json_key(&d->json, "input_args");
	genio_json_open(&d->json, '[');
	for (int i = 0; i < nargs; i++) {
		strbuf_reset(&label);
		strbuf_addf(&label, "input.%d", i);
		put_arg(d, label.buf, &args[i]);
	}
	genio_json_close(&d->json, ']');
	genio_json_key(&d->json, "input_kwargs");
	genio_json_open(&d->json, '{');
	for (int i = 0; i < nkwargs; i++) {
		strbuf_reset(&label);
		strbuf_addf(&label, "input.%s", kwargs[i].name);
		genio_json_key(&d->json, kwargs[i].name);
		put_arg(d, label.buf, &kwargs[i]);
	}
	genio_json_close(&d->json, '}');
	genio_json_key(&d->json, "output");
	genio_json_open(&d->json, '[');
	put_tensor(d, "output.0", out);
	genio_json_close(&d->json, ']');
	genio_json_close(&d->json, '}');
	genio_json_flush_if_big(&d->json);
	strbuf_release(&label);
}

/* ------------------------------------------------------------------ */
/* The weights, shared by every rank of both runs */

struct layer_weights {
	struct ten *attn_norm, *wq, *wk, *wv, *wo, *mlp_norm, *gate, *up, *down;
};

struct weights {
	struct ten *embed;
	struct layer_weights *layer;
	struct ten *norm, *lm_head;
};

static struct ten *parameter(int rows, int cols)
{
	int64_t shape[2] = { rows, cols };
	return rows ? ten_new(DT_FLOAT32, 2, shape, true) : ten_new(DT_FLOAT32, 1, shape + 1, true);
}

static void draw(struct ten *t, uint64_t seed, enum weight_kind kind, int layer)
{
	uint64_t rng = genio_rng_stream(seed, RNG_WEIGHTS, (uint64_t)kind, (uint64_t)layer, 0);
	int fan_in = (int)t->shape[t->ndim - 1];
	float a = (float)sqrt(3.0 / fan_in);

	for (size_t i = 0; i < t->n; i++) {
		if (kind == W_EMBED)
			t->v[i] = genio_rng_normal(&rng);
		else if (kind == W_ATTN_NORM || kind == W_MLP_NORM || kind == W_NORM)
			t->v[i] = 1.0f + 0.1f * genio_rng_symmetric(&rng);
		else
			t->v[i] = genio_rng_symmetric(&rng) * a;
	}
}

static struct ten *drawn(int rows, int cols, uint64_t seed, enum weight_kind kind, int layer)
{
	struct ten *t = parameter(rows, cols);
	draw(t, seed, kind, layer);
	return t;
}

static void weights_init(struct weights *w, const struct gendec_config *cfg)
{
	int d = cfg->width, f = 2 * cfg->width;
	uint64_t s = cfg->seed;

	w->embed = drawn(VOCAB, d, s, W_EMBED, 0);
	w->layer = xcalloc((size_t)cfg->layers, sizeof(*w->layer));
	for (int l = 0; l < cfg->layers; l++) {
		struct layer_weights *lw = &w->layer[l];
		lw->attn_norm = drawn(0, d, s, W_ATTN_NORM, l);
		lw->wq = drawn(d, d, s, W_Q, l);
		lw->wk = drawn(d, d, s, W_K, l);
		lw->wv = drawn(d, d, s, W_V, l);
		lw->wo = drawn(d, d, s, W_O, l);
		lw->mlp_norm = drawn(0, d, s, W_MLP_NORM, l);
		lw->gate = drawn(f, d, s, W_GATE, l);
		lw->up = drawn(f, d, s, W_UP, l);
		lw->down = drawn(d, f, s, W_DOWN, l);
	}
	w->norm = drawn(0, d, s, W_NORM, 0);
	w->lm_head = drawn(VOCAB, d, s, W_LM_HEAD, 0);
}

static void weights_release(struct weights *w, int layers)
{
	ten_free(w->embed);
	for (int l = 0; l < layers; l++) {
		struct layer_weights *lw = &w->layer[l];
		ten_free(lw->attn_norm);
		ten_free(lw->wq);
		ten_free(lw->wk);
		ten_free(lw->wv);
		ten_free(lw->wo);
		ten_free(lw->mlp_norm);
		ten_free(lw->gate);
		ten_free(lw->up);
		ten_free(lw->down);
	}
	free(w->layer);
	ten_free(w->norm);
	ten_free(w->lm_head);
}

/* ------------------------------------------------------------------ */
/* One run of one rank: the arithmetic, each API dumped as it returns */

/* Where the fault was injected, as the faulty rank's dump names it. */
struct needle {
	struct strbuf entry, leaf;
	const char *kind;
};

struct run {
	const struct gendec_config *cfg;
	const struct weights *w;
	struct dec_dump *d;        /* NULL: compute only (the softmax-fp16 calibration) */
	enum dtype low;            /* what autocast rounds linear, matmul and softmax to (float32: nothing) */
	bool reversed;             /* fp32-kernels: reductions add from the end */
	enum gendec_fault fault;   /* GENDEC_FAULT_NONE but on the target's faulty rank */
	bool check_logits;         /* softmax-fp16: this rank's fault layer must see logits above 12 */
	int layer;                 /* the layer being computed, -1 outside */
	struct ten *activations;   /* every tensor made, freed at the end */
	struct ten *faulty_wq;     /* the weight fault's W_q */
	struct needle *needle;
	double score_max, score_min; /* the calibration: the fault layer's unmasked scaled scores */
};

static struct ten *act(struct run *r, enum dtype dtype, int ndim, const int64_t *shape)
{
	struct ten *t = ten_new(dtype, ndim, shape, true);
	t->next = r->activations;
	r->activations = t;
	return t;
}

/* An input of the run that is no activation: ids, targets, cos, sin, mask. */
static struct ten *constant(struct run *r, enum dtype dtype, int ndim, const int64_t *shape)
{
	struct ten *t = act(r, dtype, ndim, shape);
	t->requires_grad = false;
	return t;
}

static bool in_fault_layer(const struct run *r, enum gendec_fault f)
{
	return r->fault == f && r->layer == r->cfg->fault_layer;
}

static void entry(struct run *r, const char *api, int site, const struct arg *args, int nargs,
		  const struct arg *kwargs, int nkwargs, const struct ten *out)
{
	if (r->d)
		put_entry(r->d, api, site, args, nargs, kwargs, nkwargs, out);
}

/* The entry just written holds the needle: its leaf <entry>.<label>, of kind. */
static void note_needle(struct run *r, const char *label, const char *kind)
{
	if (!r->d)
		return;
	strbuf_reset(&r->needle->entry);
	strbuf_addbuf(&r->needle->entry, &r->d->entry);
	strbuf_reset(&r->needle->leaf);
	strbuf_addf(&r->needle->leaf, "%s.%s", r->d->entry.buf, label);
	r->needle->kind = kind;
}

/* Sum of n terms term(i) in float32, from the start or (fp32-kernels) from the end. */
static float sum_terms(const struct run *r, const float *v, size_t n, size_t stride)
{
	float acc = 0.0f;
	for (size_t k = 0; k < n; k++)
		acc += v[(r->reversed ? n - 1 - k : k) * stride];
	return acc;
}

/* a . b over n, the inputs rounded to r->low (products of rounded values are exact in float32). */
static float dot(const struct run *r, const float *a, size_t sa, const float *b, size_t sb, size_t n)
{
	float acc = 0.0f;
	for (size_t k = 0; k < n; k++) {
		size_t i = r->reversed ? n - 1 - k : k;
		acc += rnd(r->low, a[i * sa]) * rnd(r->low, b[i * sb]);
	}
	return acc;
}

/* The last dimension's size and the number of rows before it. */
static size_t cols_of(const struct ten *t)
{
	return (size_t)t->shape[t->ndim - 1];
}

static size_t rows_of(const struct ten *t)
{
	return t->n / cols_of(t);
}

/* F.embedding(ids, weight) */
static struct ten *embedding(struct run *r, const struct ten *ids, const struct ten *weight)
{
	size_t d = cols_of(weight);
	int64_t shape[2] = { ids->shape[0], (int64_t)d };
	struct ten *out = act(r, DT_FLOAT32, 2, shape);
	struct arg args[] = { a_ten(ids), a_ten(weight) };

	for (size_t s = 0; s < ids->n; s++)
		memcpy(out->v + s * d, weight->v + (size_t)ids->ids[s] * d, d * sizeof(float));
	entry(r, "Functional.embedding", ST_EMBED, args, 2, NULL, 0, out);
	return out;
}

/* F.linear(x, w): x [S, in] (as received), w [out, in] float32 -> [S, out] in r->low. */
static struct ten *linear(struct run *r, const struct ten *x, const struct ten *w, int site)
{
	size_t rows = rows_of(x), in = cols_of(x), outs = (size_t)w->shape[0];
	int64_t shape[2] = { (int64_t)rows, (int64_t)outs };
	struct ten *out = act(r, r->low, 2, shape);
	struct arg args[] = { a_ten(x), a_ten(w) };

	for (size_t i = 0; i < rows; i++)
		for (size_t j = 0; j < outs; j++)
			out->v[i * outs + j] = rnd(r->low, dot(r, x->v + i * in, 1, w->v + j * in, 1, in));
	entry(r, "Functional.linear", site, args, 2, NULL, 0, out);
	return out;
}

/* torch.matmul(a, b): [1, H, M, K] x [1, H, K, N] -> [1, H, M, N] in r->low. */
static struct ten *matmul(struct run *r, const struct ten *a, const struct ten *b, int site)
{
	size_t h = (size_t)a->shape[1], m = (size_t)a->shape[2], k = (size_t)a->shape[3], n = (size_t)b->shape[3];
	int64_t shape[4] = { 1, (int64_t)h, (int64_t)m, (int64_t)n };
	struct ten *out = act(r, r->low, 4, shape);
	struct arg args[] = { a_ten(a), a_ten(b) };

	for (size_t g = 0; g < h; g++)
		for (size_t i = 0; i < m; i++)
			for (size_t j = 0; j < n; j++)
				out->v[(g * m + i) * n + j] =
					rnd(r->low, dot(r, a->v + (g * m + i) * k, 1, b->v + g * k * n + j, n, k));
	entry(r, "Torch.matmul", site, args, 2, NULL, 0, out);
	return out;
}

/* rms_norm(x, weight, eps): six entries; sites: the three lines of rms_norm as called from one place. */
static struct ten *rms_norm(struct run *r, const struct ten *x, const struct ten *weight, double eps, int site0,
			    bool eps_fault)
{
	size_t rows = rows_of(x), d = cols_of(x);
	int64_t col[2] = { (int64_t)rows, 1 };
	struct ten *sq = act(r, DT_FLOAT32, x->ndim, x->shape);
	struct ten *var = act(r, DT_FLOAT32, 2, col);
	struct ten *plus = act(r, DT_FLOAT32, 2, col);
	struct ten *rstd = act(r, DT_FLOAT32, 2, col);
	struct ten *normed = act(r, DT_FLOAT32, x->ndim, x->shape);
	struct ten *out = act(r, DT_FLOAT32, x->ndim, x->shape);

	for (size_t i = 0; i < x->n; i++)
		sq->v[i] = x->v[i] * x->v[i];
	entry(r, "Torch.pow", site0, (struct arg[]){ a_ten(x), a_int(2) }, 2, NULL, 0, sq);

	for (size_t i = 0; i < rows; i++)
		var->v[i] = sum_terms(r, sq->v + i * d, d, 1) / (float)d;
	entry(r, "Torch.mean", site0, (struct arg[]){ a_ten(sq), a_int(-1) }, 2,
	      (struct arg[]){ a_kw("keepdim", (struct arg){ .kind = ARG_BOOL, .i = 1 }) }, 1, var);

	if (eps_fault)
		eps = FAULT_EPS;
	for (size_t i = 0; i < rows; i++)
		plus->v[i] = var->v[i] + (float)eps;
	entry(r, "Tensor.__add__", site0 + 1, (struct arg[]){ a_ten(var), a_float(eps) }, 2, NULL, 0, plus);
	if (eps_fault)
		note_needle(r, "input.1", "scalar");

	for (size_t i = 0; i < rows; i++)
		rstd->v[i] = 1.0f / sqrtf(plus->v[i]);
	entry(r, "Torch.rsqrt", site0 + 1, (struct arg[]){ a_ten(plus) }, 1, NULL, 0, rstd);

	for (size_t i = 0; i < rows; i++)
		for (size_t j = 0; j < d; j++)
			normed->v[i * d + j] = x->v[i * d + j] * rstd->v[i];
	entry(r, "Torch.mul", site0 + 1, (struct arg[]){ a_ten(x), a_ten(rstd) }, 2, NULL, 0, normed);

	for (size_t i = 0; i < rows; i++)
		for (size_t j = 0; j < d; j++)
			out->v[i * d + j] = weight->v[j] * normed->v[i * d + j];
	entry(r, "Torch.mul", site0 + 2, (struct arg[]){ a_ten(weight), a_ten(normed) }, 2, NULL, 0, out);
	return out;
}

/* x [S, D] viewed as [1, H, S, D/H] (split), undumped: a copy in the same dtype. */
static struct ten *split_heads(struct run *r, const struct ten *x)
{
	size_t s = rows_of(x), d = cols_of(x), hd = d / HEADS;
	int64_t shape[4] = { 1, HEADS, (int64_t)s, (int64_t)hd };
	struct ten *out = act(r, x->dtype, 4, shape);
	for (size_t h = 0; h < HEADS; h++)
		for (size_t i = 0; i < s; i++)
			memcpy(out->v + (h * s + i) * hd, x->v + i * d + h * hd, hd * sizeof(float));
	return out;
}

/* [1, H, S, hd] back to [S, H * hd] (transpose and reshape), undumped. */
static struct ten *merge_heads(struct run *r, const struct ten *x)
{
	size_t s = (size_t)x->shape[2], hd = (size_t)x->shape[3], d = HEADS * hd;
	int64_t shape[2] = { (int64_t)s, (int64_t)d };
	struct ten *out = act(r, x->dtype, 2, shape);
	for (size_t h = 0; h < HEADS; h++)
		for (size_t i = 0; i < s; i++)
			memcpy(out->v + i * d + h * hd, x->v + (h * s + i) * hd, hd * sizeof(float));
	return out;
}

/* k.transpose(-2, -1), undumped. */
static struct ten *transposed(struct run *r, const struct ten *x)
{
	size_t h = (size_t)x->shape[1], s = (size_t)x->shape[2], hd = (size_t)x->shape[3];
	int64_t shape[4] = { 1, (int64_t)h, (int64_t)hd, (int64_t)s };
	struct ten *out = act(r, x->dtype, 4, shape);
	for (size_t g = 0; g < h; g++)
		for (size_t i = 0; i < s; i++)
			for (size_t j = 0; j < hd; j++)
				out->v[(g * hd + j) * s + i] = x->v[(g * s + i) * hd + j];
	return out;
}

/* torch_npu.npu_rotary_mul(x, cos, sin) = x cos + rotate_half(x) sin, float32. */
static struct ten *rotary(struct run *r, const struct ten *x, const struct ten *cos_t, const struct ten *sin_t,
			  int site)
{
	size_t h = (size_t)x->shape[1], s = (size_t)x->shape[2], hd = (size_t)x->shape[3], half = hd / 2;
	struct ten *out = act(r, DT_FLOAT32, 4, x->shape);
	struct arg args[] = { a_ten(x), a_ten(cos_t), a_ten(sin_t) };

	for (size_t g = 0; g < h; g++)
		for (size_t i = 0; i < s; i++) {
			const float *in = x->v + (g * s + i) * hd;
			float *o = out->v + (g * s + i) * hd;
			for (size_t j = 0; j < hd; j++) {
				float rot = j < half ? -in[j + half] : in[j - half];
				o[j] = in[j] * cos_t->v[i * hd + j] + rot * sin_t->v[i * hd + j];
			}
		}
	entry(r, "NPU.npu_rotary_mul", site, args, 3, NULL, 0, out);
	return out;
}

/* scores / divisor (a Python float). */
static struct ten *divide(struct run *r, const struct ten *x, double divisor)
{
	struct ten *out = act(r, DT_FLOAT32, x->ndim, x->shape);
	for (size_t i = 0; i < x->n; i++)
		out->v[i] = x->v[i] / (float)divisor;
	entry(r, "Tensor.__truediv__", ST_SCALE, (struct arg[]){ a_ten(x), a_float(divisor) }, 2, NULL, 0, out);
	return out;
}

/* scores.masked_fill(mask, -10000.0): mask [S, S] broadcast over the heads. */
static struct ten *masked_fill(struct run *r, const struct ten *x, const struct ten *mask)
{
	struct ten *out = act(r, DT_FLOAT32, x->ndim, x->shape);
	for (size_t i = 0; i < x->n; i++)
		out->v[i] = mask->flags[i % mask->n] ? (float)MASK_VALUE : x->v[i];
	entry(r, "Tensor.masked_fill", ST_MASK, (struct arg[]){ a_ten(x), a_ten(mask), a_float(MASK_VALUE) }, 3, NULL,
	      0, out);
	return out;
}

/* e^x in double, rounded to float32. */
static float exp_f(float x)
{
	return (float)exp((double)x);
}

/* One row of softmax: in r->low (inputs and outputs rounded to it), float32 inside. */
static void softmax_row(const struct run *r, const float *in, float *out, size_t n)
{
	float max = -INFINITY, sum;
	for (size_t j = 0; j < n; j++)
		max = fmaxf(max, rnd(r->low, in[j]));
	for (size_t j = 0; j < n; j++)
		out[j] = exp_f(rnd(r->low, in[j]) - max);
	sum = sum_terms(r, out, n, 1);
	for (size_t j = 0; j < n; j++)
		out[j] = rnd(r->low, out[j] / sum);
}

/* The softmax-fp16 fault's kernel: float16 throughout, no maximum subtracted. */
static void softmax_row_fp16(const float *in, float *out, size_t n)
{
	float sum = 0.0f;
	for (size_t j = 0; j < n; j++) {
		out[j] = rnd(DT_FLOAT16, exp_f(rnd(DT_FLOAT16, in[j])));
		sum = rnd(DT_FLOAT16, sum + out[j]);
	}
	for (size_t j = 0; j < n; j++)
		out[j] = rnd(DT_FLOAT16, out[j] / sum);
}

/* F.softmax(x, dim=-1) */
static struct ten *softmax(struct run *r, const struct ten *x)
{
	bool fault = in_fault_layer(r, GENDEC_FAULT_SOFTMAX_FP16);
	size_t n = cols_of(x), rows = rows_of(x);
	struct ten *out = act(r, fault ? DT_FLOAT16 : r->low, x->ndim, x->shape);
	float max = -INFINITY;

	if (r->check_logits && r->layer == r->cfg->fault_layer) {
		for (size_t i = 0; i < x->n; i++)
			max = fmaxf(max, x->v[i]);
		if (!(max > SOFTMAX_FP16_LEAST))
			die("internal error: the softmax-fp16 fault's logits reach only %g", (double)max);
	}
	for (size_t i = 0; i < rows; i++)
		if (fault)
			softmax_row_fp16(x->v + i * n, out->v + i * n, n);
		else
			softmax_row(r, x->v + i * n, out->v + i * n, n);
	entry(r, "Functional.softmax", ST_SOFTMAX, (struct arg[]){ a_ten(x) }, 1,
	      (struct arg[]){ a_kw("dim", a_int(-1)) }, 1, out);
	if (fault)
		note_needle(r, "output.0", "nonfinite");
	return out;
}

/* F.silu(x), float32 (the kernel fault: sigmoid(x)). */
static struct ten *silu(struct run *r, const struct ten *x)
{
	bool fault = in_fault_layer(r, GENDEC_FAULT_KERNEL);
	struct ten *out = act(r, DT_FLOAT32, x->ndim, x->shape);
	for (size_t i = 0; i < x->n; i++) {
		float sigmoid = 1.0f / (1.0f + exp_f(-x->v[i]));
		out->v[i] = fault ? sigmoid : x->v[i] * sigmoid;
	}
	entry(r, "Functional.silu", ST_DOWN, (struct arg[]){ a_ten(x) }, 1, NULL, 0, out);
	if (fault)
		note_needle(r, "output.0", "numeric");
	return out;
}

/* torch.mul(a, b), same shapes, float32. */
static struct ten *mul(struct run *r, const struct ten *a, const struct ten *b, int site)
{
	struct ten *out = act(r, DT_FLOAT32, a->ndim, a->shape);
	for (size_t i = 0; i < a->n; i++)
		out->v[i] = a->v[i] * b->v[i];
	entry(r, "Torch.mul", site, (struct arg[]){ a_ten(a), a_ten(b) }, 2, NULL, 0, out);
	return out;
}

/* a + b (Tensor.__add__), same shapes, float32. */
static struct ten *add(struct run *r, const struct ten *a, const struct ten *b, int site)
{
	struct ten *out = act(r, DT_FLOAT32, a->ndim, a->shape);
	for (size_t i = 0; i < a->n; i++)
		out->v[i] = a->v[i] + b->v[i];
	entry(r, "Tensor.__add__", site, (struct arg[]){ a_ten(a), a_ten(b) }, 2, NULL, 0, out);
	return out;
}

/* The hook fault: out * 1.5 (Tensor.__mul__), float32. */
static struct ten *hook(struct run *r, const struct ten *x)
{
	struct ten *out = act(r, DT_FLOAT32, x->ndim, x->shape);
	for (size_t i = 0; i < x->n; i++)
		out->v[i] = x->v[i] * (float)HOOK_FACTOR;
	entry(r, "Tensor.__mul__", ST_HOOK, (struct arg[]){ a_ten(x), a_float(HOOK_FACTOR) }, 2, NULL, 0, out);
	note_needle(r, "input.0", "unmatched");
	return out;
}

/* F.cross_entropy(logits, targets): the mean over the rows, float32, 0-d. */
static struct ten *cross_entropy(struct run *r, const struct ten *logits, const struct ten *targets)
{
	size_t rows = rows_of(logits), v = cols_of(logits);
	struct ten *out = act(r, DT_FLOAT32, 0, NULL);
	float *e = xmalloc(st_mult(v, sizeof(float)));
	float *loss = xmalloc(st_mult(rows, sizeof(float)));

	for (size_t i = 0; i < rows; i++) {
		const float *x = logits->v + i * v;
		float max = -INFINITY;
		for (size_t j = 0; j < v; j++)
			max = fmaxf(max, x[j]);
		for (size_t j = 0; j < v; j++)
			e[j] = exp_f(x[j] - max);
		loss[i] = max + (float)log((double)sum_terms(r, e, v, 1)) - x[targets->ids[i]];
	}
	out->v[0] = sum_terms(r, loss, rows, 1) / (float)rows;
	entry(r, "Functional.cross_entropy", ST_LOSS, (struct arg[]){ a_ten(logits), a_ten(targets) }, 2, NULL, 0, out);
	free(e);
	free(loss);
	return out;
}

/* The fault layer's unmasked scaled scores, for the softmax-fp16 calibration. */
static void note_scores(struct run *r, const struct ten *scaled, const struct ten *mask)
{
	if (r->d || r->layer != r->cfg->fault_layer)
		return;
	for (size_t i = 0; i < scaled->n; i++)
		if (!mask->flags[i % mask->n]) {
			r->score_max = fmax(r->score_max, scaled->v[i]);
			r->score_min = fmin(r->score_min, scaled->v[i]);
		}
}

struct inputs {
	struct ten *ids, *targets, *cos, *sin, *mask;
};

static struct ten *attention(struct run *r, const struct layer_weights *lw, const struct ten *h,
			     const struct inputs *in)
{
	bool weight_fault = in_fault_layer(r, GENDEC_FAULT_WEIGHT);
	struct ten *q = linear(r, h, weight_fault ? r->faulty_wq : lw->wq, ST_Q);
	struct ten *k, *v, *qr, *kr, *scores, *scaled, *masked, *probs, *attn;
	size_t hd = cols_of(h) / HEADS;
	double head_dim = (double)hd;

	if (weight_fault)
		note_needle(r, "input.1", "parameter");
	k = linear(r, h, lw->wk, ST_K);
	v = linear(r, h, lw->wv, ST_V);
	qr = rotary(r, split_heads(r, q), in->cos, in->sin, ST_ROT_Q);
	kr = rotary(r, split_heads(r, k), in->cos, in->sin, ST_ROT_K);
	scores = matmul(r, qr, transposed(r, kr), ST_SCORES);
	if (in_fault_layer(r, GENDEC_FAULT_SCALE)) {
		scaled = divide(r, scores, head_dim);
		note_needle(r, "input.1", "scalar");
	} else {
		scaled = divide(r, scores, sqrt(head_dim));
	}
	note_scores(r, scaled, in->mask);
	masked = masked_fill(r, scaled, in->mask);
	probs = softmax(r, masked);
	attn = matmul(r, probs, split_heads(r, v), ST_ATTN);
	return linear(r, merge_heads(r, attn), lw->wo, ST_O);
}

static struct ten *mlp(struct run *r, const struct layer_weights *lw, const struct ten *h)
{
	struct ten *gate = linear(r, h, lw->gate, ST_GATE);
	struct ten *up = linear(r, h, lw->up, ST_UP);
	struct ten *act_out = mul(r, silu(r, gate), up, ST_DOWN);
	struct ten *down = linear(r, act_out, lw->down, ST_DOWN);
	return in_fault_layer(r, GENDEC_FAULT_HOOK) ? hook(r, down) : down;
}

static struct ten *decoder_layer(struct run *r, const struct layer_weights *lw, const struct ten *x,
				 const struct inputs *in)
{
	struct ten *h = rms_norm(r, x, lw->attn_norm, NORM_EPS, ST_N1_MEAN, in_fault_layer(r, GENDEC_FAULT_EPS));
	struct ten *mid = add(r, x, attention(r, lw, h, in), ST_O);
	struct ten *h2 = rms_norm(r, mid, lw->mlp_norm, NORM_EPS, ST_N2_MEAN, false);
	return add(r, mid, mlp(r, lw, h2), ST_MLP);
}

/* The token ids of a rank (uniform over the vocabulary), the targets (the ids shifted, one more drawn), cos, sin, mask. */
static void make_inputs(struct run *r, struct inputs *in, int rank)
{
	const struct gendec_config *cfg = r->cfg;
	int64_t s = cfg->seq, hd = cfg->width / HEADS;
	uint64_t rng = genio_rng_stream(cfg->seed, RNG_IDS, (uint64_t)rank, 0, 0);
	int64_t table[4] = { 1, 1, s, hd }, square[2] = { s, s };

	in->ids = constant(r, DT_INT64, 1, &s);
	in->targets = constant(r, DT_INT64, 1, &s);
	for (int64_t i = 0; i <= s; i++) {
		int64_t id = (int64_t)(genio_splitmix64(&rng) % VOCAB);
		if (i < s)
			in->ids->ids[i] = id;
		if (i > 0)
			in->targets->ids[i - 1] = id;
	}
	in->cos = constant(r, DT_FLOAT32, 4, table);
	in->sin = constant(r, DT_FLOAT32, 4, table);
	for (int64_t i = 0; i < s; i++)
		for (int64_t j = 0; j < hd; j++) {
			double angle = (double)i * pow(ROPE_BASE, -2.0 * (double)(j % (hd / 2)) / (double)hd);
			in->cos->v[i * hd + j] = (float)cos(angle);
			in->sin->v[i * hd + j] = (float)sin(angle);
		}
	in->mask = constant(r, DT_BOOL, 2, square);
	for (int64_t i = 0; i < s; i++)
		for (int64_t j = 0; j < s; j++)
			in->mask->flags[i * s + j] = j > i;
}

static void forward(struct run *r, int rank)
{
	const struct gendec_config *cfg = r->cfg;
	struct inputs in;
	struct ten *x, *logits;

	make_inputs(r, &in, rank);
	r->layer = -1;
	x = embedding(r, in.ids, r->w->embed);
	for (int l = 0; l < cfg->layers; l++) {
		r->layer = l;
		x = decoder_layer(r, &r->w->layer[l], x, &in);
	}
	r->layer = -1;
	logits = linear(r, rms_norm(r, x, r->w->norm, NORM_EPS, ST_NF_MEAN, false), r->w->lm_head, ST_LOGITS);
	cross_entropy(r, logits, in.targets);
}

static void run_release(struct run *r)
{
	while (r->activations) {
		struct ten *next = r->activations->next;
		ten_free(r->activations);
		r->activations = next;
	}
	ten_free(r->faulty_wq);
}

static const enum dtype autocast_type[] = {
	[GENDEC_FP32] = DT_FLOAT32,
	[GENDEC_BF16] = DT_BFLOAT16,
	[GENDEC_FP16] = DT_FLOAT16,
	[GENDEC_FP32_KERNELS] = DT_FLOAT32,
};

static void run_rank(const struct gendec_config *cfg, const struct weights *w, bool target, int rank,
		     struct needle *needle)
{
	struct dec_dump d;
	struct run r = { .cfg = cfg, .w = w, .d = &d, .low = DT_FLOAT32, .needle = needle, .layer = -1 };

	if (target) {
		r.low = autocast_type[cfg->precision];
		r.reversed = cfg->precision == GENDEC_FP32_KERNELS;
		if (rank == cfg->fault_rank)
			r.fault = cfg->fault;
	}
	r.check_logits = cfg->fault == GENDEC_FAULT_SOFTMAX_FP16 && rank == cfg->fault_rank;
	if (r.fault == GENDEC_FAULT_WEIGHT) {
		const struct ten *wq = w->layer[cfg->fault_layer].wq;
		r.faulty_wq = ten_new(DT_FLOAT32, wq->ndim, wq->shape, true);
		for (size_t i = 0; i < wq->n; i++)
			r.faulty_wq->v[i] = wq->v[i] * WEIGHT_FAULT_FACTOR;
	}
	dump_open(&d, cfg, target ? "target" : "golden", rank);
	forward(&r, rank);
	dump_close(&d);
	run_release(&r);
}

/*
 * softmax-fp16: scale the fault layer's W_q and W_k so that its largest
 * unmasked softmax input is about 16 on the fault rank (the golden's
 * arithmetic, before any of it is written).
 */
static void calibrate_softmax_fp16(const struct gendec_config *cfg, struct weights *w)
{
	struct run r = { .cfg = cfg, .w = w, .low = DT_FLOAT32, .layer = -1, .score_max = -INFINITY,
			 .score_min = INFINITY };
	struct layer_weights *lw = &w->layer[cfg->fault_layer];
	double m;
	float gain;

	forward(&r, cfg->fault_rank);
	run_release(&r);
	m = r.score_max;
	if (!(m > 0) && r.score_min < 0) {
		for (size_t i = 0; i < lw->wk->n; i++)
			lw->wk->v[i] = -lw->wk->v[i];
		m = -r.score_min;
	}
	if (!(m > 0))
		die("internal error: the softmax-fp16 fault's layer has no score to scale");
	gain = (float)sqrt(SOFTMAX_FP16_TARGET / m);
	for (size_t i = 0; i < lw->wq->n; i++) {
		lw->wq->v[i] *= gain;
		lw->wk->v[i] *= gain;
	}
}

static void string_or_null(struct genio_json *w, const char *s)
{
	if (s)
		genio_json_string(w, s);
	else
		genio_json_token(w, "null");
}

static void write_needle(const struct gendec_config *cfg, const struct needle *needle)
{
	struct strbuf path = STRBUF_INIT;
	struct genio_json w;
	bool none = cfg->fault == GENDEC_FAULT_NONE;

	if (!none && !needle->kind)
		die("internal error: the %s fault was not injected", fault_names[cfg->fault]);
	strbuf_addf(&path, "%s/needle.json", cfg->outdir);
	genio_json_create(&w, path.buf);
	genio_json_open(&w, '{');
	genio_json_key(&w, "framework");
	genio_json_string(&w, "decoder");
	genio_json_key(&w, "precision");
	genio_json_string(&w, precision_names[cfg->precision]);
	genio_json_key(&w, "fault");
	genio_json_string(&w, fault_names[cfg->fault]);
	genio_json_key(&w, "rank");
	if (none)
		genio_json_token(&w, "null");
	else
		genio_json_int(&w, cfg->fault_rank);
	genio_json_key(&w, "entry");
	string_or_null(&w, none ? NULL : needle->entry.buf);
	genio_json_key(&w, "leaf");
	string_or_null(&w, none ? NULL : needle->leaf.buf);
	genio_json_key(&w, "kind");
	string_or_null(&w, none ? NULL : needle->kind);
	genio_json_close(&w, '}');
	genio_json_commit(&w);
	strbuf_release(&path);
}

void gendec_write(const struct gendec_config *cfg)
{
	struct weights w;
	struct needle needle = { .entry = STRBUF_INIT, .leaf = STRBUF_INIT };
	const char *problem = gendec_config_problem(cfg);

	if (problem)
		die("internal error: %s", problem);
	weights_init(&w, cfg);
	if (cfg->fault == GENDEC_FAULT_SOFTMAX_FP16)
		calibrate_softmax_fp16(cfg, &w);
	for (int side = 0; side < 2; side++)
		for (int rank = 0; rank < cfg->ranks; rank++)
			run_rank(cfg, &w, side == 1, rank, &needle);
	write_needle(cfg, &needle);
	weights_release(&w, cfg->layers);
	strbuf_release(&needle.entry);
	strbuf_release(&needle.leaf);
}
