/*
 * genckpt.h: example model checkpoints of two runs, a golden one and a
 * target one with a difference injected: what probe-ckpt's tests and
 * benchmarks compare instead of the fixtures.
 *
 * The model is a small GPT as Megatron-core with TransformerEngine names
 * it (fixture ck01's): hidden size W (--width), L layers, a vocabulary of
 * 2W, swiglu (fc1 of 4W rows), ffn 2W:
 *
 *   embedding.word_embeddings.weight                  [2W, W]
 *   decoder.layers.<l>.self_attention.linear_qkv.layer_norm_weight  [W]
 *   decoder.layers.<l>.self_attention.linear_qkv.weight              [3W, W]
 *   decoder.layers.<l>.self_attention.linear_qkv.bias                [3W]
 *   decoder.layers.<l>.self_attention.linear_proj.weight             [W, W]
 *   decoder.layers.<l>.mlp.linear_fc1.layer_norm_weight              [W]
 *   decoder.layers.<l>.mlp.linear_fc1.weight                         [4W, W]
 *   decoder.layers.<l>.mlp.linear_fc2.weight                         [W, 2W]
 *   decoder.final_layernorm.weight                    [W]
 *   output_layer.weight                               [2W, W]
 *
 * with E experts (--experts) each layer's MLP is instead
 *
 *   decoder.layers.<l>.pre_mlp_layernorm.weight                      [W]
 *   decoder.layers.<l>.mlp.router.weight                             [E, W]
 *   decoder.layers.<l>.mlp.experts.local_experts.<e>.linear_fc1.weight  [4W, W]
 *   decoder.layers.<l>.mlp.experts.local_experts.<e>.linear_fc2.weight  [W, 2W]
 *
 * each element a deterministic function of (seed, parameter, index):
 * weights uniform in +-0.02, biases +-0.01, norms 1 +- 0.05, rounded to
 * the dtype.  Layouts (OUTDIR/golden and OUTDIR/target each):
 *
 *   megatron     latest_checkpointed_iteration.txt ("10") and
 *                iter_0000010/mp_rank_TT[_PPP]/model_optim_rng.pt: a dict
 *                of args (an argparse.Namespace with the parallel sizes, the
 *                model's sizes, params_dtype as a torch dtype, an enum of
 *                Megatron's kept as an object), checkpoint_version,
 *                iteration, model (an OrderedDict of the rank's local
 *                names: tensor-parallel shards split as Megatron splits them,
 *                layers numbered within their pipeline stage, the
 *                TransformerEngine _extra_state entries as None or an empty
 *                uint8 tensor; with virtual pipeline stages, model0,
 *                model1, ...: chunk k of L / (pp x vpp) layers on pipeline
 *                rank k % pp as its stage k / pp; with expert parallelism,
 *                folders mp_rank_TT[_PPP]_EEE, each rank's experts numbered
 *                from 0, the other parameters on every expert rank),
 *                rng_state (a list holding a dict with a
 *                tuple, an object standing for numpy's state and a uint8
 *                tensor), num_floating_point_operations_so_far
 *   pt           model.pt: the whole model's state dict (an OrderedDict)
 *   safetensors  model.safetensors: the same, with __metadata__ {"format": "pt"}
 *   hf           model.safetensors.index.json and `shards` files
 *                model-0000i-of-0000n.safetensors, the parameters dealt
 *                out in order
 *
 * Storages are written a piece at a time from the formula: a checkpoint of
 * gigabytes takes a megabyte of memory.
 *
 * Differences (the target's):
 *   perturb  decoder.layers.<L-1>.mlp.linear_fc2.weight[0, 2W-1] made
 *            1.5 x + 0.01 (in the last tensor-parallel shard); with
 *            experts, the last expert's linear_fc2 (the last expert rank's)
 *   missing  decoder.layers.0.self_attention.linear_qkv.bias left out
 *   reshape  output_layer.weight with 8 rows more a tensor-parallel rank
 *   dtype    decoder.final_layernorm.weight saved as float32 (the same values)
 *   none
 *
 * Like the other generators, it ends the process (status 2, msg.h's die())
 * when a file cannot be written.
 */
#ifndef PROBE_GENCKPT_H
#define PROBE_GENCKPT_H

#include "../tensors/dtype.h"

enum genckpt_layout { GENCKPT_MEGATRON, GENCKPT_PT, GENCKPT_SAFETENSORS, GENCKPT_HF };
#define GENCKPT_LAYOUT_CHOICES "megatron|pt|safetensors|hf"

enum genckpt_fault { GENCKPT_NONE, GENCKPT_PERTURB, GENCKPT_MISSING, GENCKPT_RESHAPE, GENCKPT_DTYPE };
#define GENCKPT_FAULT_CHOICES "none|perturb|missing|reshape|dtype"

#define GENCKPT_MAX_PARALLEL 64

struct genckpt_config {
	enum genckpt_layout layout;
	enum genckpt_fault fault;
	int tp, pp;             /* megatron: tensor and pipeline parallel sizes (2, 2) */
	int vpp;                /* megatron: virtual pipeline stages, model0 ... (1: `model`) */
	int ep, experts;        /* megatron: expert parallel size (1); experts a layer (0: a dense MLP) */
	int layers, width;      /* 4, 16 */
	int shards;             /* hf: 2 */
	enum dtype dtype;       /* bfloat16 */
	uint64_t seed;          /* 1 */
	const char *outdir;
};

void genckpt_config_init(struct genckpt_config *c);
/* The fault named s, or -1. */
int genckpt_fault_parse(const char *s);
/* Why the configuration cannot be written (a message), or NULL. */
const char *genckpt_config_problem(const struct genckpt_config *c);
void genckpt_write(const struct genckpt_config *c);

#endif
