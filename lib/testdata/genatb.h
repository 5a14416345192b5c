/*
 * genatb.h: example ATB dumps (MindIE inference), as msprobe's ATB dumper
 * (atb_probe) writes them; reference: msprobe-atb.md.
 *
 * genatb_write() runs a tiny decoder-only model twice, in float32 with its
 * tensors stored (and passed on) rounded to their dtype: a golden run and
 * a target run with an injected fault.  Each run is written as the dumper
 * writes a process of device D:
 *
 *   OUTDIR/<side>/atb_dump_data/data/<D>_<pid>/<exec>/
 *       <id>_<Layer>/{op_param.json,before/intensor<i>.bin,after/outtensor<i>.bin}
 *       <id>_<Layer>/<k>_<Operation>/{op_param.json,before/...,after/...}   (save_child)
 *       <id>_<Layer>/<k>_<Operation>/0_<Kernel>/{before/...,after/...}      (save_child)
 *       statistic.csv
 *   OUTDIR/<side>/atb_dump_data/info/layer/<D>_<pid>/<Layer>_<id>.json
 *   OUTDIR/<side>/atb_dump_data/info/model/<D>_<pid>/DecoderModel_Prefill.json
 *
 * with <side> golden (pid 39943) and target (pid 276107), the pids of the
 * reference dumps (../shared/fixtures/atb/dumps), whatever the options,
 * and one <exec> folder per execution count 0 .. steps - 1.  With the
 * defaults (and save_child, task tensor) the folders, files, statistic.csv
 * rows (names, ids, indexes, dtypes, shapes, order), op_param.json and
 * info files are those of the reference dump tensor_op_f0, and in task
 * statistics with 2 steps those of stats_layer; only the values differ.
 *
 * The model, T = batch tokens, W = width, V = 2W (the vocabulary), L
 * Prefill_layer layers (ids 1 .. L), op ids <layer>_<op>_<kernel>:
 *
 *   0 WordEmbedding (table [V,W] bf16, ids [T] int64) -> [T,W] bf16
 *     0 GatherOperation (files intensor0_x, intensor1_indices,
 *       outtensor0_output, Index 0_x ...) / 0 Gather16I64Kernel
 *   l Prefill_layer (x [T,W] bf16, norm weight [W] bf16, linear weight
 *     [W,W] bf16, attention mask [T,T] bool, True where a token may look:
 *     the causal lower triangle, the same tensor for every layer) -> [T,W]
 *     0 RmsNormOperation (x, weight) / 0 RmsNormKernel, which also outputs
 *       the float32 [T,1] 1/sqrt(mean(x^2) + 1e-6)
 *     1 LinearOperation (normed, weight; x W^T) / 0 MatMulKernel
 *     2 SelfAttentionOperation (its input as query, key and value, one
 *       head, scale 1/sqrt(W), the mask) / 0 FlashAttentionKernel
 *     3 ElewiseOperation (attention, x: the residual add) / 0 AddBF16Kernel
 *   L+1 LmHead (x [T,W] bf16, weight [V,W] float16) -> [T,V] float32
 *     0 ElewiseOperation / 0 CastKernel: x as float16
 *     1 LinearOperation / 0 MatMulKernel: logits in float32
 *
 * An operation's tensors are its kernel's, a layer's are its operations'
 * (its input 0 is the norm's input and the add's second input, its output
 * the add's), and a layer's output is the next layer's input: the same
 * tensor wherever it is dumped.  The weights (uniform draws, std 1/sqrt(W))
 * and the embedding table come from the seed; the token ids from the seed
 * and the execution count (each exec count is a prefill of other tokens).
 * Work: T W^2 per linear, T^2 W per attention, V W T for the head, one
 * draw per weight; memory at most about 4 W^2 + 24 T W + T^2 bytes (one
 * layer's tensors at a time, the largest the embedding table and the head's
 * weight); each file is written once, directly, in one pass.
 *
 * statistic.csv: one row per tensor of each dumped op, in execution order
 * (an op's inputs, its children's rows, its outputs), 15 columns:
 * "<D>_<pid>,<exec>,<Op Name>,<Op Type>,<Op Id>,<input|output>,<Index>,
 * <bf16|float16|float|int64|bool>,nd,<AxB>,<Max>,<Min>,<Mean>,<Norm>,
 * <Tensor Path>".  Task statistics: Max..Norm of the stored values (Max and
 * Min exact, Mean and Norm accumulated in double), printed with %f,
 * integers' Max and Min as integers, bool all N/A; Tensor Path N/A and no
 * .bin file.  Task tensor: Max..Norm N/A, Tensor Path
 * OUTDIR/<side>/atb_dump_data/data/... as OUTDIR was given (the dumper
 * writes its absolute output path; msprobe reads only what follows the
 * last "atb_dump_data", and probe's output stays the same wherever it is
 * made) and the .bin file: "$Version=1.0", "$Object.Count=1",
 * "$Object.Length=B", "format=2" (ND), "dtype=<0|1|9|12|27>",
 * "dims=a,b", "$Object.data=0,B", "$End=1" lines, then B bytes of
 * little-endian elements.
 *
 * filter_level 1 (tensor task): a tensor is saved in full the first time
 * a row holds it in an exec folder; every later file of it is the header
 * alone with "data=atb_dump_data/data/<D>_<pid>/<exec>/<first file>" before
 * "$Object.data" (the first file's path below the dumper's output path)
 * and no payload.  Kernel tensors are kept (filter_level 2 is not
 * written).  ATB documents filter_level as effective with save_child;
 * here it applies at the layer level too (a layer's output, the next
 * layer's input, the mask).
 *
 * Faults, in every exec count of the target only; everything dumped before
 * the first differing row (in statistic.csv's order) is byte for byte the
 * golden run's, and everything computed after it is computed from it.  The
 * first differing data name (msprobe's compare -m atb) with the defaults,
 * at the layer level (no save_child) and with save_child:
 *
 *   add-kernel (default)  layer 1's AddBF16Kernel adds 0.5 to row 0 of its
 *                         output (rounded to bf16 again), as the reference
 *                         target: layer level 1_Prefill_layer/output.0;
 *                         save_child 1_Prefill_layer/3_ElewiseOperation/
 *                         0_AddBF16Kernel/output.0 (its inputs equal: made
 *                         by the kernel), then the operation's and the
 *                         layer's output, and every later layer, LmHead.
 *   linear-weight         layer 1's Linear weight (the first Prefill_layer's,
 *                         its input 2) is 1.01 times the golden's before
 *                         rounding to bf16: it arrives as an input, first
 *                         seen as 1_Prefill_layer/input.2 at both levels
 *                         (a layer's inputs come before its operations'
 *                         rows); with save_child its operation and kernel
 *                         rows are 1_Prefill_layer/1_LinearOperation/input.1
 *                         and .../0_MatMulKernel/input.1, and the first
 *                         output made from it .../0_MatMulKernel/output.0.
 *   none                  nothing: the runs differ only in their pid.
 *
 * Errors: a generator for tests and examples, run as a tool; an I/O
 * failure, or in the tensor task an OUTDIR that statistic.csv could not
 * hold in its Tensor Paths (a comma, a quote or a line break in it), prints its reason and ends the process with
 * status 2 (msg.h's die()).  Files are written under temporary names and
 * renamed when complete (partial.h).
 */
#ifndef PROBE_GENATB_H
#define PROBE_GENATB_H

#include "../core/compat.h"

#include <stdint.h>

enum atb_fault {
	ATB_FAULT_NONE,
	ATB_FAULT_ADD_KERNEL,     /* layer 1's AddBF16Kernel output row 0 += 0.5 */
	ATB_FAULT_LINEAR_WEIGHT,  /* layer 1's Linear weight x 1.01 */
};

/* "none", "add-kernel", "linear-weight" to the fault; -1 for an unknown name. */
int genatb_fault_parse(const char *name);
/* The fault names separated by '|', for option tables and messages. */
#define ATB_FAULT_CHOICES "none|add-kernel|linear-weight"

struct atb_config {
	bool tensors;            /* task tensor (else statistics) */
	bool save_child;         /* also the operations and kernels of each layer */
	int filter_level;        /* 0 or 1, tensor task (above) */
	int device;              /* the <device> of <device>_<pid> */
	enum atb_fault fault;    /* in the target */
	int steps;               /* execution counts 0 .. steps - 1 */
	int layers;              /* Prefill_layer layers, at least 1 */
	int width;               /* W */
	int batch;               /* T, the tokens of each prefill */
	uint64_t seed;
	const char *outdir;
};

#define ATB_MAX_DEVICE 65535
#define ATB_MAX_STEPS 100000

/*
 * The defaults: statistics, layer level, filter_level 0, device 0,
 * add-kernel, 1 step, 2 layers, width 16, batch 4, seed 1.
 */
void genatb_config_init(struct atb_config *cfg);
void genatb_write(const struct atb_config *cfg);

#endif
