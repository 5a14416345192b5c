/*
 * genverl.h: example dumps of verl's training against inference check.
 *
 * genverl_write() runs one prompt through a tiny Qwen2 (2 layers, hidden
 * 8, 2 query heads of 4, 1 key/value head, q/k/v biases, SiLU-GLU MLP of
 * 12, vocabulary 32, rotary base 10000, embeddings tied to the output,
 * T = 5 tokens, ids int64), computed in float32 with weights drawn from
 * the seed, and writes it as msprobe (level L0, module dumps) writes the
 * two sides of verl's consistency check:
 *
 *   OUTDIR/golden  the vLLM inference dump (msprobe compare -gp):
 *                  Module.model.{embed_tokens.VocabParallelEmbedding,
 *                  layers.N.{input_layernorm.RMSNorm, self_attn.{qkv_proj.
 *                  QKVParallelLinear, rotary_emb.RotaryEmbedding,
 *                  attn.Attention, o_proj.RowParallelLinear}, self_attn.
 *                  Qwen2Attention, post_attention_layernorm.RMSNorm, mlp.
 *                  {gate_up_proj.MergedColumnParallelLinear, act_fn.
 *                  SiluAndMul, down_proj.RowParallelLinear}, mlp.Qwen2MLP,
 *                  Qwen2DecoderLayer}, norm.RMSNorm}
 *   OUTDIR/target  the training dump (-tp): with VERL_FSDP Hugging Face's
 *                  Qwen2 under FSDP1 (Module._fsdp_wrapped_module.model...,
 *                  q/k/v and gate/up as separate Linear layers, a SiLU,
 *                  Qwen2RMSNorm, Qwen2Model) followed by its backward part;
 *                  with VERL_MEGATRON mcore's GPTModel with the
 *                  TransformerEngine spec (Module.0.module.module...,
 *                  TELayerNormColumnParallelLinear linear_qkv and
 *                  linear_fc1 that normalise their own input, IdentityOp
 *                  norms, TERowParallelLinear, TEDotProductAttention),
 *                  forward only (compute_log_prob)
 *
 * each step0/rank<r>/{dump.json,stack.json,construct.json} (and with
 * tensors, dump_tensor_data/<data_name> in torch.save's zip).  The
 * structure is that of the reference dumps of the same model
 * (../shared/fixtures/verl/inputs/tensor/{infer,fsdp_train,megatron_train}):
 * the same entries in the same (post-)order, the same leaves, types,
 * dtypes, shapes, requires_grad (FSDP: tensors of the forward True but for
 * ids and the rotary embedding's, parameters True, the backward False;
 * Megatron: parameters True, activations False; vLLM: all False), None
 * leaves and (out, None) tuples, data_name and dump_data_dir, and
 * construct.json; stack.json groups the entries by call stack, in an
 * invented script (genverl.c lists it).  No entry for Qwen2ForCausalLM,
 * lm_head, Float16Module, output_layer or vLLM's Qwen2Model and
 * logits_processor: msprobe does not hook them under verl.
 *
 * The values agree wherever the two sides hold the same thing: both are
 * drawn from one float32 computation, so the training q, k and v outputs
 * concatenated on the last axis are bitwise vLLM's qkv_proj output (gate
 * and up: gate_up_proj), the parameters concatenated on axis 0 are the
 * fused parameters, vLLM's SiluAndMul is silu(gate) * up, its RMSNorm with
 * a residual takes (branch, residual) and returns (normed, new residual),
 * its decoder layer takes (positions, branch, residual) and returns
 * (branch, residual) before the add, Megatron's TELayerNormColumnParallel
 * Linear normalises its input with its layer_norm_weight (vLLM's norm
 * weight), and its rotary embedding is the float32 angles.  Tensors are
 * saved and summarised rounded to the dtype (bfloat16 by default;
 * msprobe's statistics rules, genio.h); the rotary angles stay float32.
 *
 * The FSDP backward part, as in the reference: Qwen2Model.backward.0 (the
 * gradient of the next-token cross entropy of the prompt, through the
 * tied output embedding, at last_hidden_state), norm backward, the
 * gradient-checkpoint recomputes of layer 1 (input_layernorm, down_proj,
 * Qwen2DecoderLayer forward.1: the values of forward.0), layer 1's
 * down_proj backward and its weight's parameters_grad.  msprobe's
 * consistency compare skips all of it (its parse window closes at
 * Qwen2Model's backward).
 *
 * Faults, on rank fault_rank of the training side only (the inference side
 * and the other ranks are never changed); "x 1.3 + noise" is every element
 * times 1.3 plus a normal draw of half the tensor's standard deviation.
 * The consistency keys (probe-match --consistency) that then differ, and
 * which stay "structural" because the frameworks compute something else
 * there anyway:
 *
 *   down-proj  (default) layer 1's down projection output (HF mlp.down_proj,
 *              mcore mlp.linear_fc2) x 1.3 + noise, everything after
 *              recomputed from it: 1:down_proj:forward.0.output.0,
 *              1:mlp:forward.0.output.0 and, FSDP only,
 *              -1:norm:forward.0.output.0 (Megatron's final_layernorm has no
 *              inference counterpart); the decoder layer's output and the
 *              final norm's input differ but are structural.
 *   q-weight   layer 0's q_proj weight (mcore: the q rows of linear_qkv's
 *              weight) x 1.3 + noise before the run: the joined q/k/v
 *              weight row 0:qkv_proj:forward.0.parameters.weight (Megatron:
 *              structural, as every input and parameter of a
 *              TELayerNormColumnParallelLinear), its output, and every
 *              matched row after it that is not structural: layer 0's
 *              attention output (o_proj input and output, self_attn
 *              output, attn output on Megatron), the rest of layer 0 and
 *              all of layer 1 and the final norm's output (FSDP).
 *   none       nothing: no row differs; the structural rows remain.
 *
 * Errors: a generator for tests and examples, run as a tool; an I/O
 * failure prints its reason and ends the process with status 2.
 */
#ifndef PROBE_GENVERL_H
#define PROBE_GENVERL_H

#include "../core/compat.h"
#include "../tensors/dtype.h"
#include "../tensors/tensorw.h"

enum verl_backend {
	VERL_FSDP,      /* Hugging Face Qwen2 under FSDP: forward and a backward part */
	VERL_MEGATRON,  /* mcore GPTModel, TransformerEngine spec: forward only */
};

enum verl_fault {
	VERL_FAULT_NONE,
	VERL_FAULT_DOWN_PROJ,  /* layer 1's down projection output x 1.3 + noise */
	VERL_FAULT_Q_WEIGHT,   /* layer 0's q_proj weight x 1.3 + noise, before the run */
};

/* "none", "down-proj", "q-weight" to the fault; -1 for an unknown name. */
int genverl_fault_parse(const char *name);
/* The fault names separated by '|', for option tables and messages. */
#define VERL_FAULT_CHOICES "none|down-proj|q-weight"

struct verl_config {
	enum verl_backend backend;
	bool tensors;              /* msprobe's task "tensor" (else "statistics") */
	enum pt_layout pt_layout;  /* tensors: torch 1.13's .pt layout (default) or torch 2.x's */
	enum dtype dtype;          /* DT_BFLOAT16 (default) or DT_FLOAT32: what the tensors are saved as */
	enum verl_fault fault;     /* on rank fault_rank of the training side */
	int fault_rank;
	int ranks;                 /* data-parallel ranks, each its own prompt (at most VERL_MAX_RANKS) */
	uint64_t seed;
	const char *outdir;
};

#define VERL_MAX_RANKS 64

/* The defaults: FSDP, statistics, bfloat16, down-proj on rank 0, 1 rank, seed 1. */
void genverl_config_init(struct verl_config *cfg);
void genverl_write(const struct verl_config *cfg);

#endif
