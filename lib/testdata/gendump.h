/*
 * gendump.h: example msprobe dumps from a simulated training run.
 *
 * gendump_write() computes a small MLP in float32 (forward, backward, SGD,
 * micro-batches, data-parallel all_reduce) twice: a golden run and a
 * target run with an injected fault, and writes both as msprobe writes
 * them (level mix, torch 1.13): OUTDIR/golden and OUTDIR/target, each
 * step<s>/rank<r>/{dump.json,stack.json,construct.json}.
 * The output is deterministic: the same configuration gives the same bytes.
 * With the defaults its structure is that of the real mlp fixtures.
 *
 * Tasks: statistics (Max/Min/Mean/Norm per tensor), md5 (also the CRC-32
 * of each tensor's bytes), tensor (also every tensor's data, as msprobe's
 * task "tensor" saves it: dump.json names the rank's dump_tensor_data
 * directory in "dump_data_dir", and each tensor leaf gets "data_name":
 * "<row name>.pt", the file torch.save wrote there; non-tensor leaves get
 * no file).  The files are torch 1.13's zip (or torch 2.x's, pt_layout),
 * or with GEN_FORMAT_NPY numpy .npy files as msprobe's MindSpore dumper
 * writes them (data_name "<row name>.npy"; bfloat16 and float8 saved as
 * float32, since numpy has neither; dump.json keeps its PyTorch spelling).
 *
 * dtype: the tensors are computed in float32 and saved (and summarized,
 * and CRC'd) rounded to float16 or bfloat16 when asked.  The statistics
 * follow msprobe's rules for each element type, computed on the saved
 * values: Max/Min exact; float32 Mean and Norm accumulated in double and
 * rounded (torch.mean may differ in the last bit); float16 and bfloat16
 * Mean and Norm as torch 1.13 computes them in the type on the CPU (equal
 * to torch's for the default model; on large tensors torch's split
 * reductions may differ in the last bit); 0-d tensors repeat their value;
 * see the zoo below for the other types.  The files hold the tensors
 * detached (requires_grad false), as msprobe saves them.
 *
 * The call stacks point into an invented training script whose lines are
 * listed at the top of gendump.c: the stack of the F.linear call of layer
 * i names /home/user/mlp/model.py line 41 + i, "self.fc<i>(x)".
 *
 * Errors: this is a generator for tests and examples, run as a tool; an
 * I/O failure prints its reason and ends the process with status 2.
 */
#ifndef PROBE_GENDUMP_H
#define PROBE_GENDUMP_H

#include "../core/compat.h"
#include "../tensors/dtype.h"
#include "../tensors/tensorw.h"

/*
 * The faults, made on rank fault_rank of the target run only: everything
 * dumped before the fault point is byte for byte the golden run's.  Below,
 * for each, the first leaf (in execution order, as probe-flatten lists
 * them) that differs from the golden run with the defaults (one step, one
 * rank, one micro-batch, 3 layers, width 16, batch 4), and whether the
 * operator of its entry made the difference (its inputs equal, an output
 * not: the cause is there) or it arrives as an input (nothing dumped
 * before differs: it comes from outside the operators msprobe dumps, a
 * weight, the data; probe-first calls both the cause).  "fc2" is
 * the second Linear layer, whose F.linear is Functional.linear.1.forward
 * in micro-batch 0 (Functional.linear.<mb * L + 1>.forward in micro-batch
 * mb; its ReLU is Functional.relu.<mb * (L - 1) + 1>).
 *
 * fault            what changes in the target      first divergent leaf; what differs
 * none             nothing                         none: the dumps are byte for byte the golden ones
 * fc2-weight       fc2.weight *= 1.01, once,       Functional.linear.1.forward.input.1 (the weight):
 *                  before the first step           Max..Norm; an input (a parameter)
 * fc2-weight-tiny  fc2.weight[0][0] one float32    md5 mode: Functional.linear.1.forward.input.1,
 *                  ulp up, once                    the md5 only; an input.  The weight's statistics
 *                                                  do not show the ulp: statistics mode sees it first
 *                                                  in Functional.linear.1.forward.output.0's Mean, as
 *                                                  if fc2's F.linear had made it
 * input            x[0][0] += 0.5 in every batch   Functional.linear.0.forward.input.0: Max, Mean,
 *                                                  Norm; an input (the data)
 * linear1-output   fc2's F.linear adds 1e-3 to     Functional.linear.1.forward.output.0: Mean, Norm;
 *                  its output [0][0], every call   made by fc2's F.linear
 * nan              fc2's F.linear output [0][0]    Functional.linear.1.forward.output.0: Max..Norm
 *                  is NaN, every call              NaN; made
 * grad             dL/dz of fc2 (the grad that     Functional.relu.1.backward.output.0: Max..Norm
 *                  fc2's backward receives) is     1.01 times; made by the ReLU's backward
 *                  handed on 1.01 times too large  (threshold_backward) after fc2, whose input.0 is
 *                  by the operator computing it,   equal; Functional.linear.1.backward.input.0 then
 *                  every backward pass; the        receives it.  With --layers 2 fc2 is the last
 *                  forward pass is unchanged       layer: Functional.mse_loss.0.backward.output.0
 * dtype            fc2's F.linear computes its     Functional.linear.1.forward.output.0: dtype
 *                  output in float16, every call   torch.float16 (not torch.float32), Max..Norm
 *                                                  those of the values rounded to half; made
 * shape            fc2's F.linear output is        Functional.linear.1.forward.output.0: shape
 *                  dumped as a view [out, B] of    [16, 4] (not [4, 16]); statistics and md5 equal
 *                  the same values, every call     (the same bytes); made
 * scalar           fc1's ReLU is called with       Functional.relu.0.forward.input.inplace: value
 *                  inplace=True, every call        true (not false), its tensors equal; an input
 *                                                  (a scalar argument, from the caller)
 * inf              fc2's F.linear output [0][0]    Functional.linear.1.forward.output.0: Max, Mean,
 *                  is +inf, every call             Norm Infinity; made
 * nan-input        x[0][0] is NaN in every batch   Functional.linear.0.forward.input.0: Max..Norm
 *                                                  NaN; an input (the data)
 * all-reduce       with --ranks > 1, the first     Distributed.all_reduce.0.forward.output.0 of the
 *                  all_reduce of each step on the  faulty rank: Max..Norm; its inputs are equal, so
 *                  faulty rank is 1e-3 off at      made by the collective; the other ranks' results
 *                  [0][0] (the others' are right)  are right, and the group's outputs disagree
 *
 * In md5 mode the same leaves are the first (but for fc2-weight-tiny's),
 * and their md5 differs too, except shape's.
 *
 * Downstream: a tensor keeps what its operator made of it wherever it is
 * dumped, and the arithmetic goes on from it.  So the fc2 output that the
 * dtype and shape faults change shows float16, or [16, 4], in
 * Module.fc2.Linear.forward.0.output.0, Functional.relu.1.forward.input.0
 * and Module.relu.ReLU.forward.1.input.0 too.  With dtype the ReLU's
 * result is float32 again (a simplification: torch would keep half) and
 * everything after differs by the rounding; with shape nothing else
 * differs (the values are the same); with scalar no tensor differs at
 * all; with inf and nan-input the results after become inf or NaN.  With
 * --dtype float16 the dtype fault shows no dtype difference (both sides
 * are saved as float16): it first shows where the rounding moves a later
 * result.  With --batch equal to fc2's width (16, or 4 with --layers 2)
 * the shape fault dumps [B * out], since [out, B] would not differ.
 *
 * Ranks: with --ranks N the other ranks differ only from the gradient
 * all_reduce on, which they receive: --ranks 4 --fault-rank 2 --fault
 * fc2-weight differs first on rank 2 at
 * Functional.linear.1.forward.input.1, and on ranks 0, 1 and 3 at
 * Distributed.all_reduce.0.forward.output.0 (the average of fc1.weight's
 * gradient, the first reduced; its input_args are equal).  The faults
 * that change no value (shape, scalar) leave the other ranks identical;
 * so does fc2-weight-tiny with the defaults: its ulp is lost in the
 * average.
 */
enum gen_fault {
	GEN_FAULT_NONE,
	GEN_FAULT_FC2_WEIGHT,      /* fc2.weight *= 1.01 once, before the first step */
	GEN_FAULT_FC2_WEIGHT_TINY, /* fc2.weight[0][0] moved up by one float32 ulp, once */
	GEN_FAULT_INPUT,           /* x[0][0] += 0.5 in every batch */
	GEN_FAULT_LINEAR1_OUTPUT,  /* fc2's F.linear adds 1e-3 to its output [0][0], every call */
	GEN_FAULT_NAN,             /* fc2's F.linear output [0][0] becomes NaN, every call */
	GEN_FAULT_GRAD,            /* the grad fc2's backward receives is 1.01 times too large, every pass */
	GEN_FAULT_DTYPE,           /* fc2's F.linear returns float16, every call */
	GEN_FAULT_SHAPE,           /* fc2's F.linear output is dumped as [out, B], every call */
	GEN_FAULT_SCALAR,          /* fc1's ReLU is called with inplace=True, every call */
	GEN_FAULT_INF,             /* fc2's F.linear output [0][0] becomes +inf, every call */
	GEN_FAULT_NAN_INPUT,       /* x[0][0] is NaN in every batch */
	GEN_FAULT_ALL_REDUCE,      /* the first all_reduce of each step gives the faulty rank a result 1e-3 off at [0][0] */
};

/* "none", "fc2-weight", ... to the fault; -1 for an unknown name. */
int gendump_fault_parse(const char *name);
/* The fault names separated by '|', for option tables. */
#define GEN_FAULT_CHOICES "none|fc2-weight|fc2-weight-tiny|input|linear1-output|nan|grad|dtype|shape|scalar|inf|nan-input"

enum gen_task {
	GEN_TASK_STATISTICS,
	GEN_TASK_MD5,        /* statistics and each tensor's CRC-32 (msprobe's md5 summary mode) */
	GEN_TASK_TENSOR,     /* statistics and each tensor's data in dump_tensor_data/ */
};

enum gen_format {
	GEN_FORMAT_PT,       /* torch.save's zip */
	GEN_FORMAT_NPY,      /* numpy.save, as msprobe's MindSpore dumper writes */
};

/*
 * Which framework each run is dumped as.  A MindSpore run is named and typed
 * as msprobe's MindSpore dumper writes it: Cell for Module (Dense for
 * Linear), MintFunctional for Functional, "mindspore.Tensor", dtypes
 * Float32 / Float16 / BFloat16, no requires_grad, "framework": "mindspore",
 * and in the tensor task .npy files (bfloat16 saved as float32); the
 * numbers are the same as the PyTorch run's.
 */
enum gen_framework {
	GEN_FW_PYTORCH,           /* both runs PyTorch (default) */
	GEN_FW_MINDSPORE,         /* both runs MindSpore */
	GEN_FW_MINDSPORE_PYTORCH, /* a MindSpore target against a PyTorch golden */
};

struct gen_config {
	enum gen_task task;
	enum gen_framework framework;
	enum gen_format format;    /* tensor task: the files' format */
	enum pt_layout pt_layout;  /* tensor task, .pt: torch 1.13's layout or torch 2.x's */
	enum dtype dtype;          /* DT_FLOAT32 (default), DT_FLOAT16 or DT_BFLOAT16: what tensors are saved as */
	enum gen_fault fault;      /* applied to rank fault_rank of the target run */
	int fault_rank;
	int steps;             /* training steps, SGD between them */
	int ranks;             /* data-parallel ranks (at most GEN_MAX_RANKS) */
	int micro_batches;     /* forward+backward passes per step */
	int layers;            /* Linear layers, at least 2 */
	int width;             /* hidden width (default 16): weights are width x width */
	int batch;             /* rows per micro-batch (default 4) */
	bool zoo;              /* append the zoo entries (below) to every dump */
	uint64_t seed;
	bool print_tensors;    /* print the golden step 0 rank 0 tensors on stdout */
	const char *outdir;
};

#define GEN_MAX_RANKS 1024

#define GEN_MAX_WIDTH 65536
#define GEN_MAX_BATCH 65536

/*
 * The defaults: statistics, fc2-weight fault, 1 step, 1 rank, 1
 * micro-batch, 3 layers, width 16, batch 4, float32, seed 1.
 */
void gendump_config_init(struct gen_config *cfg);
void gendump_write(const struct gen_config *cfg);

/*
 * The zoo (gen_config.zoo): entries appended to every dump of both runs,
 * Tensor.zoo_<case>.0.forward, each with input_args [input.0] and output
 * [output.0].  input.0 is float32 [1, 2, 3, 4] on both sides (a perfect
 * input for msprobe's input-versus-output rules); output.0 is the case.
 * In the tensor task each leaf has its file; "base" is float32 [8]
 * {0.5, -1.25, 2, 3.5, -0.75, 1, 4, -2.5}, exact in every float type.
 * The zoo is fixed: --seed, --width, --dtype do not change it.
 *
 * The metrics are what msprobe's compare -tp target -gp golden should put
 * on the output.0 row (reference §6; computed with a numpy 1.24
 * emulation of it): Cosine, EucDist, MaxAbsErr, MaxRelativeErr, One
 * Thousandth and Five Thousandths Err Ratio; u = unsupported.  Every
 * input.0 row: 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, pass.  Result is §7's.
 *
 * case                 target vs golden                              metrics                                  Result
 * dtype_<T>, T float64, float32, float16, bfloat16, float8_e4m3fn, float8_e5m2, complex64 (imaginary parts i/4 on
 *                      both sides): base in T, target[6] 3.5 not 4   0.997972007729 0.5 0.5 0.125 0.875 0.875  pass
 * dtype_<T>, T int64, int32, int16, int8: {1,-2,3,4,-5,6,7,-8}, uint8: {1..8};
 *                      target[6] 6 not 7                             0.998009002463 1.0 1.0 0.142857142857 0.875 0.875  pass
 * dtype_bool           {T,F,T,T,F,T,T,F}, target[6] False            0.894427191 1.0 1.0 1.0 0.875 0.875     warning (Cosine)
 * identical            float32 [4,4], the same values                1.0 0.0 0.0 0.0 1.0 1.0                   pass
 * small_diff           float32 [64], target = golden * 1.0001, but
 *                      [5] * 1.002 (between the two thresholds)      1.0 0.0021118998170682078 0.001966059208
 *                                                                    0.001999997534 0.984375 1.0               pass
 * dtype_mismatch       float16 [16] vs float32 [16], same values     1.0 0.000705375015674076 0.00044131279
 *                      rounded to half                               0.000397361437 1.0 1.0                    error (DType)
 * shape_mismatch       float32 [3,5] vs [5,3], same 15 values        shape unmatched x6                        error (Shape)
 * scalar_float32       0-d 10.0 vs 10.5                              u u 0.5 0.047619048506 u u                pass
 * scalar_uint8         0-d uint8 3 vs 5 (MaxAbsErr wraps)            u u 254.0 0.40000000596 u u               pass
 * scalar_int64         0-d int64 3 vs 5 (float32 relative error)     u u 2.0 0.40000000596 u u                 pass
 * empty                float32 [0,4] both (Max..Norm null)           u x6                                      pass
 * one_element          float32 [1] 2.0 vs 2.5 (squeezed to 0-d)      u u 0.5 0.20000000298 u u                 pass
 * nan_inf_same         base with nan [2], inf [5], -inf [7] on both
 *                      sides; target[0] 0.625                        0.999748105213 0.125 0.125 0.25 0.875 0.875  pass
 * nan_inf_diff         nan at [3] vs nan at [2]                      N/A x6                                    pass
 * inf_sign             +inf vs -inf at [4] (counts as the same)      1.0 0.0 0.0 0.0 1.0 1.0                   pass
 * golden_zero          base vs base with 0 at [1], [3] (eps rule)    0.818626443337 3.7165171868296265 3.5
 *                                                                    29360128.0 0.75 0.75                      warning (Cosine)
 * zeros_target         zeros vs base                                 Nan 6.471089552772392 4.0 1.0 0.0 0.0     error (One Thousandth)
 * zeros_golden         base vs zeros                                 Nan 6.471089552772392 4.0 33554432.0 0.0 0.0  error (One Thousandth)
 * zeros_both           zeros both                                    1.0 0.0 0.0 0.0 1.0 1.0                   pass
 * view_transposed      target saved as a transposed view of a [3,4]
 *                      storage (strides 1, 4; .npy: Fortran order),
 *                      golden contiguous [4,3]; same values          1.0 0.0 0.0 0.0 1.0 1.0                   pass
 * view_step            golden [6] saved as every other element of a
 *                      storage of 12 (stride 2); target contiguous   1.0 0.0 0.0 0.0 1.0 1.0                   pass
 * view_offset          target [2,4] at offset 7 of a storage of 20   1.0 0.0 0.0 0.0 1.0 1.0                   pass
 * missing_file         target's data_name names no file              u x6                                      pass
 * truncated            target's file cut to half its length          u x6                                      pass
 * no_data_name         target's data_name is "-1", no file           u x6                                      pass
 *
 * Storage elements outside a view hold -999.  The statistics follow
 * msprobe's rules: integers Max/Min only, float64 Max/Min only, bool
 * Max = any and Min = all (JSON booleans), complex the Max/Min/Mean of
 * the magnitudes, float8 and empty tensors all null, 0-d tensors the
 * value four times.  Float8 files are torch 2.x's (_rebuild_tensor_v3 of
 * an untyped storage): torch 1.13 cannot load them, so msprobe on torch
 * 1.13 reports them unsupported; the metrics above assume torch >= 2.1.
 */

#endif
