/*
 * gendecoder.h: example msprobe dumps of a small LLaMA-style decoder run in
 * mixed precision against float32, with a planted bug and its expected
 * answer (probe-gendump --framework decoder).
 *
 * gendec_write() computes the forward pass of one step on every rank
 * (data parallel: the same weights everywhere, each rank its own token ids
 * from the seed and the rank) twice: a golden run, float32 everywhere, and
 * a target run in the precision chosen, with the fault injected on rank
 * fault_rank.  Each is written as msprobe writes a level L1 dump (API
 * entries only) of PyTorch: OUTDIR/golden and OUTDIR/target, each
 * step0/rank<r>/{dump.json,stack.json,construct.json} (construct.json {}),
 * task statistics, or task tensor with every tensor leaf's data in
 * dump_tensor_data/<row name>.pt (torch 1.13's zip).  OUTDIR/needle.json
 * says where the fault must be found (below).  The bytes depend only on the
 * configuration (the arithmetic is float32 in a fixed order; exp, log, cos
 * and sin are computed in double and rounded).
 *
 * The model, S = seq tokens, D = width, 2 heads of D/2, MLP hidden 2D,
 * vocabulary 64, rotary base 10000, RMSNorm eps 1e-6, and the entries it
 * dumps in execution order (msprobe counts each API's calls from 0 within
 * the step, so layer l's n-th use of an API that a layer calls k times is
 * <API>.<k l + n>):
 *
 *   Functional.embedding.0     ids int64 [S], weight [64, D] -> [S, D]
 *   layer l (0 .. layers - 1), x [S, D] float32 coming in:
 *     RMSNorm (attention): Torch.pow.2l (x, int 2), Torch.mean.2l (.., int -1,
 *       keepdim=True) -> [S, 1], Tensor.__add__.4l (.., float eps), Torch.rsqrt.2l,
 *       Torch.mul.5l (x, rstd), Torch.mul.5l+1 (norm weight [D], ..)
 *     Functional.linear.7l, .7l+1, .7l+2     q, k, v: (h, W [D, D]), no bias
 *     NPU.npu_rotary_mul.2l, .2l+1           q, k as [1, 2, S, D/2], cos, sin [1, 1, S, D/2]
 *     Torch.matmul.2l                        q, k transposed -> scores [1, 2, S, S]
 *     Tensor.__truediv__.l                   (scores, float sqrt(D/2))
 *     Tensor.masked_fill.l                   (.., mask bool [S, S] (above the diagonal), float -10000.0)
 *     Functional.softmax.l                   (.., dim=-1)
 *     Torch.matmul.2l+1                      probs, v -> [1, 2, S, D/2]
 *     Functional.linear.7l+3                 o projection of [S, D]
 *     Tensor.__add__.4l+1                    residual x + o
 *     RMSNorm (MLP): Torch.pow.2l+1, Torch.mean.2l+1, Tensor.__add__.4l+2,
 *       Torch.rsqrt.2l+1, Torch.mul.5l+2, Torch.mul.5l+3
 *     Functional.linear.7l+4, .7l+5          gate, up [S, 2D]
 *     Functional.silu.l, Torch.mul.5l+4      silu(gate) * up
 *     Functional.linear.7l+6                 down -> [S, D]: the MLP's output
 *     Tensor.__add__.4l+3                    residual: the layer's output
 *   the final RMSNorm (Torch.pow.2L ... Torch.mul.5L+1, Tensor.__add__.4L),
 *   Functional.linear.7L (lm_head [64, D]), Functional.cross_entropy.0
 *   (logits, targets int64 [S]: the ids shifted by one) -> 0-d float32.
 *
 * The views between them (split into heads, transposes, reshapes) are not
 * dumped.  Parameters and everything computed from them have requires_grad
 * true; ids, targets, cos, sin and the mask false.  Scalar arguments are
 * {"type": "float"|"int"|"bool", "value": ...}.  The model never calls
 * Tensor.__mul__: the hook fault's extra entry shifts no other call's
 * number.  The call stacks point into the invented script listed at the
 * top of gendecoder.c (/home/user/llama/model.py).
 *
 * Precision of the target (the golden run is always float32):
 *   fp32          the golden's arithmetic: with fault none both runs are
 *                 byte for byte the same.
 *   bf16, fp16    autocast: linear, matmul and softmax take their inputs
 *                 rounded to the type, accumulate in float32, and round
 *                 their outputs to it (dumped as torch.bfloat16 or
 *                 torch.float16, statistics of the rounded values by
 *                 msprobe's rules); the other APIs compute in float32 on
 *                 what they receive (rounded values promoted) and return
 *                 float32.  A tensor is dumped as the type its API
 *                 returned wherever it is an input.  Parameters stay
 *                 float32 (autocast rounds a copy).  msprobe computes a
 *                 float16 tensor's Norm in float16: it is Infinity once
 *                 the sum of squares passes 65504 (the scores of larger
 *                 configurations, and the softmax-fp16 layer's under
 *                 fp16), an overflowing statistic of finite elements
 *                 that is precision, not the fault.
 *   fp32-kernels  float32 everywhere, but the reductions (the dot products
 *                 of linear and matmul, softmax's sum, mean's, and cross
 *                 entropy's sums) add in reverse order: an ulp or so.
 *
 * Faults, on the target's rank fault_rank, in layer fault_layer (F), any
 * precision.  The needle is the first entry in execution order whose
 * dumped leaves the injection changes beyond the precision's noise, and
 * its leaf; with the defaults (F = 1):
 *
 *   fault         injected                                  needle entry / leaf, kind
 *   none          nothing                                   null, null, null
 *   scale         the attention scale 1/(D/2), not          Tensor.__truediv__.1.forward
 *                 1/sqrt(D/2): the divisor D/2              .input.1, scalar
 *   eps           the attention RMSNorm adds eps 1.0        Tensor.__add__.4.forward
 *                 instead of 1e-6                           .input.1, scalar
 *   softmax-fp16  the softmax computed in float16 without   Functional.softmax.1.forward
 *                 subtracting the row maximum: exp          .output.0 (torch.float16), nonfinite
 *                 overflows above ln(65504) ~ 11.09 and
 *                 the row holds inf/inf = NaN
 *   weight        q's weight W_q *= 1.001 (float32)         Functional.linear.7.forward
 *                                                           .input.1, parameter
 *   kernel        F.silu computes sigmoid(x), not           Functional.silu.1.forward
 *                 x sigmoid(x): its inputs are right         .output.0, numeric
 *   hook          a forward hook on layer F's MLP           Tensor.__mul__.0.forward
 *                 multiplies its output by 1.5: an extra    .input.0, unmatched
 *                 entry Tensor.__mul__.0 (the MLP output,
 *                 float 1.5) between the down projection
 *                 and the residual add, target only
 *
 * softmax-fp16 needs logits above 11.09 in layer F: the generator then
 * scales that layer's W_q and W_k (in both runs, every rank) by
 * sqrt(16 / m), m the largest unmasked scaled score of the golden fault
 * rank's layer F without it (W_k negated first if no score is positive), so
 * that the softmax input's maximum is about 16 in both runs; it dies when
 * it is not above 12 in either (never seen).  Everything after a fault is
 * computed from the faulty values (inf and NaN propagate).
 *
 * needle.json (Python's json.dump(indent=1)): {"framework": "decoder",
 * "precision": "bf16", "fault": "scale", "rank": 0, "entry": ..., "leaf":
 * ..., "kind": "scalar"|"parameter"|"numeric"|"nonfinite"|"unmatched"};
 * with fault none rank, entry, leaf and kind are null.  It is written from
 * the injection (the generator records the entry as it dumps it), never
 * from comparing the dumps.
 *
 * Errors: a generator for tests and examples, run as a tool; an I/O
 * failure prints its reason and ends the process with status 2.
 */
#ifndef PROBE_GENDECODER_H
#define PROBE_GENDECODER_H

#include "../core/compat.h"

enum gendec_precision {
	GENDEC_FP32,
	GENDEC_BF16,
	GENDEC_FP16,
	GENDEC_FP32_KERNELS,
};

enum gendec_fault {
	GENDEC_FAULT_NONE,
	GENDEC_FAULT_SCALE,         /* attention scale 1/head_dim instead of 1/sqrt(head_dim) */
	GENDEC_FAULT_EPS,           /* the attention RMSNorm's eps 1.0 instead of 1e-6 */
	GENDEC_FAULT_SOFTMAX_FP16,  /* softmax in float16 without the max subtracted: inf, NaN */
	GENDEC_FAULT_WEIGHT,        /* W_q *= 1.001 */
	GENDEC_FAULT_KERNEL,        /* silu computes sigmoid */
	GENDEC_FAULT_HOOK,          /* a forward hook multiplies the MLP output by 1.5 (Tensor.__mul__.0) */
};

/* The names, in the enums' order, separated by '|': for option tables and messages. */
#define GENDEC_PRECISION_CHOICES "fp32|bf16|fp16|fp32-kernels"
#define GENDEC_FAULT_CHOICES "none|scale|eps|softmax-fp16|weight|kernel|hook"

/* A name to its value; -1 for an unknown name. */
int gendec_precision_parse(const char *name);
int gendec_fault_parse(const char *name);

struct gendec_config {
	bool tensors;                    /* task tensor (else statistics) */
	enum gendec_precision precision; /* the target's */
	enum gendec_fault fault;
	int fault_layer;                 /* 0 .. layers - 1 */
	int fault_rank;                  /* 0 .. ranks - 1 */
	int ranks;
	int layers;
	int width;                       /* D: a multiple of 4 (2 heads of an even head_dim) */
	int seq;                         /* S: tokens per rank */
	uint64_t seed;
	const char *outdir;
};

#define GENDEC_MAX_RANKS 1024
#define GENDEC_MAX_LAYERS 1024
#define GENDEC_MAX_WIDTH 4096
#define GENDEC_MAX_SEQ 4096

/* The defaults: statistics, bf16, scale in layer 1 of rank 0, 1 rank, 4 layers, width 32, 8 tokens, seed 1. */
void gendec_config_init(struct gendec_config *cfg);
/* What is wrong with cfg (a sentence for a usage error), or NULL. */
const char *gendec_config_problem(const struct gendec_config *cfg);
void gendec_write(const struct gendec_config *cfg);

#endif
