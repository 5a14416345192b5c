/*
 * genverl.c: a tiny Qwen2 run once, dumped as verl's vLLM rollout and as
 * its FSDP or Megatron actor (genverl.h says what is written and which
 * rows each fault makes differ).
 *
 * One float32 computation per rank and side (struct trace) holds every
 * tensor either framework dumps; the three writers below only choose
 * which of its arrays each leaf shows, under which name, shape and
 * requires_grad.  So what the two sides share is bitwise the same, and
 * what a framework computes differently (vLLM's fused add-and-norm, its
 * SiluAndMul, Megatron's norm inside the linear) is a different array.
 *
 * The call stacks (stack.json) point into the frameworks' files and into
 * this invented script, /home/user/verl-check/main.py, which runs one
 * prompt through verl's rollout (dumped as the golden) and its actor (the
 * target), msprobe's debugger around each (line numbers on the left):
 *
 *      1  # /home/user/verl-check/main.py: one prompt through verl's rollout and its actor
 *      2  # (what probe-gendump --framework verl-fsdp|verl-megatron simulates)
 *      3  import sys
 *      4
 *      5  from msprobe.pytorch import PrecisionDebugger
 *      6  from verl_check import create_trainer
 *      7
 *      8
 *      9  def rollout(trainer, batch):
 *     10      debugger = PrecisionDebugger(config_path="config_infer.json")
 *     11      debugger.start(trainer.rollout_model)
 *     12      batch = trainer.actor_rollout_wg.generate_sequences(batch)
 *     13      debugger.stop()
 *     14      return batch
 *     15
 *     16
 *     17  def train(trainer, batch, backend):
 *     18      debugger = PrecisionDebugger(config_path="config_train.json")
 *     19      debugger.start(trainer.actor_model)
 *     20      if backend == "fsdp":
 *     21          trainer.actor_rollout_wg.update_actor(batch)
 *     22      else:
 *     23          trainer.actor_rollout_wg.compute_log_prob(batch)
 *     24      debugger.stop()
 *     25
 *     26
 *     27  def main():
 *     28      trainer = create_trainer(sys.argv[1])
 *     29      batch = rollout(trainer, trainer.first_batch())
 *     30      train(trainer, batch, sys.argv[2])
 *     31
 *     32
 *     33  if __name__ == "__main__":
 *     34      main()
 *
 * The gradient-checkpoint recomputes run on autograd's device thread: their
 * stacks start in torch's checkpoint.py, with no frame of the script.
 */
#include "genverl.h"
#include "genio.h"
#include "../core/msg.h"
#include "../core/strbuf.h"
#include "../core/xalloc.h"

#include <math.h>

static const char *const fault_names[] = {
	[VERL_FAULT_NONE] = "none",
	[VERL_FAULT_DOWN_PROJ] = "down-proj",
	[VERL_FAULT_Q_WEIGHT] = "q-weight",
};

int genverl_fault_parse(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(fault_names); i++)
		if (!strcmp(name, fault_names[i]))
			return (int)i;
	return -1;
}

void genverl_config_init(struct verl_config *cfg)
{
	*cfg = (struct verl_config){ .backend = VERL_FSDP, .pt_layout = PT_TORCH1, .dtype = DT_BFLOAT16,
				     .fault = VERL_FAULT_DOWN_PROJ, .ranks = 1, .seed = 1 };
}

/* ------------------------------------------------------------------ */
/* The model: Qwen2 in miniature, float32 */

enum {
	TOKENS = 5,
	HIDDEN = 8,
	HEADS = 2,
	HEAD_DIM = 4,
	KV_HEADS = 1,
	Q_DIM = HEADS * HEAD_DIM,
	KV_DIM = KV_HEADS * HEAD_DIM,
	QKV_DIM = Q_DIM + 2 * KV_DIM,
	FFN = 12,
	VOCAB = 32,
	LAYERS = 2,
	FAULTY_DOWN_LAYER = 1, /* the down-proj fault's layer */
	FAULTY_Q_LAYER = 0,    /* the q-weight fault's layer */
	MAX_ELEMENTS = VOCAB * HIDDEN, /* the largest tensor dumped */
};
#define ROPE_BASE 10000.0
#define NORM_EPS 1e-6

enum stream { STREAM_WEIGHTS = 1, STREAM_PROMPT, STREAM_FAULT };
/* The fault streams: the down-proj fault's of rank r is r, the q-weight fault's this. */
#define Q_WEIGHT_FAULT_STREAM UINT64_C(0x7177)

struct layer_weights {
	float input_norm[HIDDEN];
	float qkv[QKV_DIM * HIDDEN];  /* q_proj, k_proj, v_proj weights stacked on axis 0 */
	float qkv_bias[QKV_DIM];
	float o[HIDDEN * Q_DIM];
	float post_norm[HIDDEN];
	float gate_up[2 * FFN * HIDDEN]; /* gate_proj then up_proj */
	float down[HIDDEN * FFN];
};

struct weights {
	float embed[VOCAB * HIDDEN];  /* also the output layer (tied) */
	struct layer_weights layer[LAYERS];
	float final_norm[HIDDEN];
};

/* Every tensor of one layer, [TOKENS, width] row-major. */
struct layer_trace {
	float input[TOKENS * HIDDEN];        /* the residual stream coming in */
	float normed[TOKENS * HIDDEN];       /* input_layernorm */
	float qkv[TOKENS * QKV_DIM];
	float q[TOKENS * Q_DIM], k[TOKENS * KV_DIM], v[TOKENS * KV_DIM];
	float q_rot[TOKENS * Q_DIM], k_rot[TOKENS * KV_DIM];
	float attn[TOKENS * Q_DIM];          /* attention before o_proj */
	float o[TOKENS * HIDDEN];
	float mid[TOKENS * HIDDEN];          /* input + o */
	float post_normed[TOKENS * HIDDEN];  /* post_attention_layernorm */
	float gate_up[TOKENS * 2 * FFN];
	float gate[TOKENS * FFN], up[TOKENS * FFN];
	float silu[TOKENS * FFN];            /* silu(gate): the training side's act_fn */
	float act[TOKENS * FFN];             /* silu(gate) * up: vLLM's SiluAndMul, down_proj's input */
	float down[TOKENS * HIDDEN];
	float output[TOKENS * HIDDEN];       /* mid + down */
};

struct trace {
	int64_t ids[TOKENS], positions[TOKENS];
	float angle[TOKENS * HEAD_DIM];      /* rotary angles (Megatron's rotary_pos_emb) */
	float cos[TOKENS * HEAD_DIM], sin[TOKENS * HEAD_DIM];
	float embedded[TOKENS * HIDDEN];
	struct layer_trace layer[LAYERS];
	float normed[TOKENS * HIDDEN];       /* the final norm: last_hidden_state */
	float logits[TOKENS * VOCAB];
	/* the FSDP backward part */
	float grad_normed[TOKENS * HIDDEN];   /* dL/d last_hidden_state */
	float grad_final_in[TOKENS * HIDDEN]; /* dL/d the final norm's input = dL/d layer 1's down output */
	float grad_down_in[TOKENS * FFN];
	float grad_down_weight[HIDDEN * FFN];
};

static void fill_uniform(float *v, size_t n, int fan_in, uint64_t *rng)
{
	float bound = 1.0f / sqrtf((float)fan_in);
	for (size_t i = 0; i < n; i++)
		v[i] = genio_rng_symmetric(rng) * bound;
}

static void fill_norm_weight(float *v, uint64_t *rng)
{
	for (int i = 0; i < HIDDEN; i++)
		v[i] = 1.0f + 0.125f * genio_rng_symmetric(rng);
}

static void weights_init(struct weights *w, uint64_t seed)
{
	uint64_t rng = genio_rng_stream(seed, STREAM_WEIGHTS, 0, 0, 0);

	for (size_t i = 0; i < ARRAY_SIZE(w->embed); i++)
		w->embed[i] = genio_rng_normal(&rng);
	for (int l = 0; l < LAYERS; l++) {
		struct layer_weights *lw = &w->layer[l];
		fill_norm_weight(lw->input_norm, &rng);
		fill_uniform(lw->qkv, ARRAY_SIZE(lw->qkv), HIDDEN, &rng);
		fill_uniform(lw->qkv_bias, ARRAY_SIZE(lw->qkv_bias), HIDDEN, &rng);
		fill_uniform(lw->o, ARRAY_SIZE(lw->o), Q_DIM, &rng);
		fill_norm_weight(lw->post_norm, &rng);
		fill_uniform(lw->gate_up, ARRAY_SIZE(lw->gate_up), HIDDEN, &rng);
		fill_uniform(lw->down, ARRAY_SIZE(lw->down), FFN, &rng);
	}
	fill_norm_weight(w->final_norm, &rng);
}

/* The faults' change: every element x 1.3 plus a normal draw of half the standard deviation. */
static void perturb(float *v, size_t n, uint64_t seed, uint64_t what)
{
	uint64_t rng = genio_rng_stream(seed, STREAM_FAULT, what, 0, 0);
	double sum = 0, sumsq = 0, mean, sd;

	for (size_t i = 0; i < n; i++)
		sum += v[i];
	mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sumsq += ((double)v[i] - mean) * ((double)v[i] - mean);
	sd = sqrt(sumsq / (double)n);
	for (size_t i = 0; i < n; i++)
		v[i] = (float)((double)v[i] * 1.3 + 0.5 * sd * (double)genio_rng_normal(&rng));
}

static void draw_prompt(struct trace *tr, uint64_t seed, int rank)
{
	uint64_t rng = genio_rng_stream(seed, STREAM_PROMPT, (uint64_t)rank, 0, 0);
	for (int t = 0; t < TOKENS; t++) {
		tr->ids[t] = (int64_t)(genio_splitmix64(&rng) % VOCAB);
		tr->positions[t] = t;
	}
}

/* Rotate-half rotary embedding: angles t / base^(2j / d), the same for both halves of a head. */
static void rope_tables(struct trace *tr)
{
	for (int t = 0; t < TOKENS; t++)
		for (int j = 0; j < HEAD_DIM / 2; j++) {
			float inv_freq = (float)(1.0 / pow(ROPE_BASE, 2.0 * j / HEAD_DIM));
			float a = (float)t * inv_freq;
			tr->angle[t * HEAD_DIM + j] = a;
			tr->angle[t * HEAD_DIM + j + HEAD_DIM / 2] = a;
		}
	for (int i = 0; i < TOKENS * HEAD_DIM; i++) {
		tr->cos[i] = (float)cos((double)tr->angle[i]);
		tr->sin[i] = (float)sin((double)tr->angle[i]);
	}
}

static void embed(float *out, const int64_t *ids, const float *table)
{
	for (int t = 0; t < TOKENS; t++)
		memcpy(out + t * HIDDEN, table + ids[t] * HIDDEN, HIDDEN * sizeof(float));
}

static double inverse_rms(const float *x)
{
	double sumsq = 0;
	for (int i = 0; i < HIDDEN; i++)
		sumsq += (double)x[i] * x[i];
	return 1.0 / sqrt(sumsq / HIDDEN + NORM_EPS);
}

static void rms_norm(float *out, const float *in, const float *weight)
{
	for (int t = 0; t < TOKENS; t++) {
		const float *x = in + t * HIDDEN;
		double r = inverse_rms(x);
		for (int i = 0; i < HIDDEN; i++)
			out[t * HIDDEN + i] = (float)((double)x[i] * r * weight[i]);
	}
}

/* out[t][o] = bias[o] + sum_i in[t][i] * weight[o][i] (bias may be NULL). */
static void linear(float *out, const float *in, const float *weight, const float *bias, int in_dim, int out_dim)
{
	for (int t = 0; t < TOKENS; t++)
		for (int o = 0; o < out_dim; o++) {
			double acc = bias ? bias[o] : 0.0;
			for (int i = 0; i < in_dim; i++)
				acc += (double)in[t * in_dim + i] * weight[o * in_dim + i];
			out[t * out_dim + o] = (float)acc;
		}
}

/* Columns [from, from + count) of a [TOKENS, width] tensor. */
static void take_columns(float *out, const float *in, int width, int from, int count)
{
	for (int t = 0; t < TOKENS; t++)
		memcpy(out + t * count, in + t * width + from, (size_t)count * sizeof(float));
}

static void add(float *out, const float *a, const float *b, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = a[i] + b[i];
}

/* Each head of a [TOKENS, heads * HEAD_DIM] tensor rotated: x cos + rotate_half(x) sin. */
static void rotate(float *out, const float *in, int heads, const struct trace *tr)
{
	enum { HALF = HEAD_DIM / 2 };
	for (int t = 0; t < TOKENS; t++)
		for (int h = 0; h < heads; h++) {
			const float *x = in + (t * heads + h) * HEAD_DIM;
			float *y = out + (t * heads + h) * HEAD_DIM;
			for (int i = 0; i < HEAD_DIM; i++) {
				float half = i < HALF ? -x[i + HALF] : x[i - HALF];
				y[i] = (float)((double)x[i] * tr->cos[t * HEAD_DIM + i] +
					       (double)half * tr->sin[t * HEAD_DIM + i]);
			}
		}
}

/* One query head of token t over the keys 0..t (causal): softmax(q k / sqrt(d)) v. */
static void attend(float *out, const float *q, const float *k, const float *v, int t)
{
	double score[TOKENS], max = -INFINITY, sum = 0;
	for (int u = 0; u <= t; u++) {
		double dot = 0;
		for (int i = 0; i < HEAD_DIM; i++)
			dot += (double)q[i] * k[u * KV_DIM + i];
		score[u] = dot / sqrt((double)HEAD_DIM);
		max = score[u] > max ? score[u] : max;
	}
	for (int u = 0; u <= t; u++)
		sum += score[u] = exp(score[u] - max);
	for (int i = 0; i < HEAD_DIM; i++) {
		double acc = 0;
		for (int u = 0; u <= t; u++)
			acc += score[u] / sum * v[u * KV_DIM + i];
		out[i] = (float)acc;
	}
}

/* Grouped-query attention: every query head reads the one key/value head. */
static void attention(float *out, const float *q, const float *k, const float *v)
{
	for (int t = 0; t < TOKENS; t++)
		for (int h = 0; h < HEADS; h++) {
			int kv = h / (HEADS / KV_HEADS);
			attend(out + t * Q_DIM + h * HEAD_DIM, q + t * Q_DIM + h * HEAD_DIM, k + kv * HEAD_DIM,
			       v + kv * HEAD_DIM, t);
		}
}

static void silu_and_mul(struct layer_trace *lt)
{
	for (int i = 0; i < TOKENS * FFN; i++) {
		lt->silu[i] = (float)((double)lt->gate[i] / (1.0 + exp(-(double)lt->gate[i])));
		lt->act[i] = lt->silu[i] * lt->up[i];
	}
}

static void attention_block(struct layer_trace *lt, const struct layer_weights *lw, const struct trace *tr)
{
	rms_norm(lt->normed, lt->input, lw->input_norm);
	linear(lt->qkv, lt->normed, lw->qkv, lw->qkv_bias, HIDDEN, QKV_DIM);
	take_columns(lt->q, lt->qkv, QKV_DIM, 0, Q_DIM);
	take_columns(lt->k, lt->qkv, QKV_DIM, Q_DIM, KV_DIM);
	take_columns(lt->v, lt->qkv, QKV_DIM, Q_DIM + KV_DIM, KV_DIM);
	rotate(lt->q_rot, lt->q, HEADS, tr);
	rotate(lt->k_rot, lt->k, KV_HEADS, tr);
	attention(lt->attn, lt->q_rot, lt->k_rot, lt->v);
	linear(lt->o, lt->attn, lw->o, NULL, Q_DIM, HIDDEN);
	add(lt->mid, lt->input, lt->o, TOKENS * HIDDEN);
}

static void mlp_block(struct layer_trace *lt, const struct layer_weights *lw)
{
	rms_norm(lt->post_normed, lt->mid, lw->post_norm);
	linear(lt->gate_up, lt->post_normed, lw->gate_up, NULL, HIDDEN, 2 * FFN);
	take_columns(lt->gate, lt->gate_up, 2 * FFN, 0, FFN);
	take_columns(lt->up, lt->gate_up, 2 * FFN, FFN, FFN);
	silu_and_mul(lt);
	linear(lt->down, lt->act, lw->down, NULL, FFN, HIDDEN);
}

/* The prompt through the model; with down_fault, layer 1's down output perturbed as it is made. */
static void forward(struct trace *tr, const struct weights *w, bool down_fault, uint64_t seed, int rank)
{
	const float *h = tr->embedded;

	embed(tr->embedded, tr->ids, w->embed);
	rope_tables(tr);
	for (int l = 0; l < LAYERS; l++) {
		struct layer_trace *lt = &tr->layer[l];
		memcpy(lt->input, h, sizeof(lt->input));
		attention_block(lt, &w->layer[l], tr);
		mlp_block(lt, &w->layer[l]);
		if (down_fault && l == FAULTY_DOWN_LAYER)
			perturb(lt->down, ARRAY_SIZE(lt->down), seed, (uint64_t)rank);
		add(lt->output, lt->mid, lt->down, TOKENS * HIDDEN);
		h = lt->output;
	}
	rms_norm(tr->normed, h, w->final_norm);
	linear(tr->logits, tr->normed, w->embed, NULL, HIDDEN, VOCAB);
}

/*
 * dL/d last_hidden_state for L = the mean next-token cross entropy over the
 * prompt's first TOKENS - 1 positions (the last predicts nothing), through
 * the tied output embedding.
 */
static void loss_gradient(struct trace *tr, const struct weights *w)
{
	memset(tr->grad_normed, 0, sizeof(tr->grad_normed));
	for (int t = 0; t + 1 < TOKENS; t++) {
		const float *z = tr->logits + t * VOCAB;
		double p[VOCAB], max = -INFINITY, sum = 0;
		for (int c = 0; c < VOCAB; c++)
			max = z[c] > max ? z[c] : max;
		for (int c = 0; c < VOCAB; c++)
			sum += p[c] = exp(z[c] - max);
		for (int c = 0; c < VOCAB; c++)
			p[c] = (p[c] / sum - (c == tr->ids[t + 1])) / (TOKENS - 1);
		for (int i = 0; i < HIDDEN; i++) {
			double acc = 0;
			for (int c = 0; c < VOCAB; c++)
				acc += p[c] * w->embed[c * HIDDEN + i];
			tr->grad_normed[t * HIDDEN + i] = (float)acc;
		}
	}
}

/* RMSNorm backward: dx = r w dy - r^3 x (sum w dy x) / n, per token. */
static void rms_norm_backward(float *grad_in, const float *grad_out, const float *in, const float *weight)
{
	for (int t = 0; t < TOKENS; t++) {
		const float *x = in + t * HIDDEN, *g = grad_out + t * HIDDEN;
		double r = inverse_rms(x), dot = 0;
		for (int i = 0; i < HIDDEN; i++)
			dot += (double)g[i] * weight[i] * x[i];
		for (int i = 0; i < HIDDEN; i++)
			grad_in[t * HIDDEN + i] = (float)(r * g[i] * weight[i] - r * r * r * x[i] * dot / HIDDEN);
	}
}

/* What the FSDP dump shows of the backward: the final norm's and layer 1's down_proj's. */
static void backward(struct trace *tr, const struct weights *w)
{
	const struct layer_trace *last = &tr->layer[LAYERS - 1];
	const float *dy = tr->grad_final_in, *down = w->layer[LAYERS - 1].down;

	loss_gradient(tr, w);
	rms_norm_backward(tr->grad_final_in, tr->grad_normed, last->output, w->final_norm);
	for (int t = 0; t < TOKENS; t++)
		for (int i = 0; i < FFN; i++) {
			double acc = 0;
			for (int o = 0; o < HIDDEN; o++)
				acc += (double)dy[t * HIDDEN + o] * down[o * FFN + i];
			tr->grad_down_in[t * FFN + i] = (float)acc;
		}
	for (int o = 0; o < HIDDEN; o++)
		for (int i = 0; i < FFN; i++) {
			double acc = 0;
			for (int t = 0; t < TOKENS; t++)
				acc += (double)dy[t * HIDDEN + o] * last->act[t * FFN + i];
			tr->grad_down_weight[o * FFN + i] = (float)acc;
		}
}

/* The run of one rank: the prompt, the forward, the backward part. */
static void run(struct trace *tr, const struct weights *w, bool down_fault, uint64_t seed, int rank)
{
	draw_prompt(tr, seed, rank);
	forward(tr, w, down_fault, seed, rank);
	backward(tr, w);
}

/* ------------------------------------------------------------------ */
/* The call sites of stack.json: each a frame and the site that called it */

#define PY_LIB "/usr/local/lib/python3.10/dist-packages/"
#define SCRIPT "/home/user/verl-check/main.py"
#define VLLM_QWEN2 PY_LIB "vllm/model_executor/models/qwen2.py"
#define HF_QWEN2 PY_LIB "transformers/models/qwen2/modeling_qwen2.py"
#define MCORE PY_LIB "megatron/core/"
#define VERL PY_LIB "verl/"

struct site {
	int caller;          /* the site of the frame above, or NO_SITE */
	const char *file;
	int line;
	const char *func;
	const char *source;
};

#define NO_SITE (-1)

/* vLLM: the rollout's model runner calling Qwen2ForCausalLM */
enum infer_site {
	I_SCRIPT_MODULE, I_SCRIPT_MAIN, I_SCRIPT_ROLLOUT, I_VERL_GENERATE, I_RUNNER, I_CAUSAL,
	I_EMBED, I_LAYER, I_NORM, I_INPUT_NORM_FIRST, I_INPUT_NORM, I_SELF_ATTN, I_POST_NORM, I_MLP,
	I_QKV, I_ROTARY, I_ATTN, I_O_PROJ, I_GATE_UP, I_ACT, I_DOWN, I_SITES
};

static const struct site infer_sites[I_SITES] = {
	[I_SCRIPT_MODULE] = { NO_SITE, SCRIPT, 34, "<module>", "main()" },
	[I_SCRIPT_MAIN] = { I_SCRIPT_MODULE, SCRIPT, 29, "main", "batch = rollout(trainer, trainer.first_batch())" },
	[I_SCRIPT_ROLLOUT] = { I_SCRIPT_MAIN, SCRIPT, 12, "rollout",
			       "batch = trainer.actor_rollout_wg.generate_sequences(batch)" },
	[I_VERL_GENERATE] = { I_SCRIPT_ROLLOUT, VERL "workers/rollout/vllm_rollout/vllm_rollout_spmd.py", 285,
			      "generate_sequences",
			      "outputs = self.inference_engine.generate(prompts=vllm_inputs, "
			      "sampling_params=self.sampling_params, use_tqdm=False)" },
	[I_RUNNER] = { I_VERL_GENERATE, PY_LIB "vllm/worker/model_runner.py", 1742, "execute_model",
		       "hidden_or_intermediate_states = model_executable(input_ids=model_input.input_tokens, "
		       "positions=model_input.input_positions)" },
	[I_CAUSAL] = { I_RUNNER, VLLM_QWEN2, 462, "forward",
		       "hidden_states = self.model(input_ids, positions, intermediate_tensors, inputs_embeds)" },
	[I_EMBED] = { I_CAUSAL, VLLM_QWEN2, 339, "forward", "hidden_states = self.get_input_embeddings(input_ids)" },
	[I_LAYER] = { I_CAUSAL, VLLM_QWEN2, 345, "forward",
		      "hidden_states, residual = layer(positions, hidden_states, residual)" },
	[I_NORM] = { I_CAUSAL, VLLM_QWEN2, 352, "forward", "hidden_states, _ = self.norm(hidden_states, residual)" },
	[I_INPUT_NORM_FIRST] = { I_LAYER, VLLM_QWEN2, 221, "forward",
				 "hidden_states = self.input_layernorm(hidden_states)" },
	[I_INPUT_NORM] = { I_LAYER, VLLM_QWEN2, 224, "forward",
			   "hidden_states, residual = self.input_layernorm(hidden_states, residual)" },
	[I_SELF_ATTN] = { I_LAYER, VLLM_QWEN2, 226, "forward",
			  "hidden_states = self.self_attn(positions=positions, hidden_states=hidden_states)" },
	[I_POST_NORM] = { I_LAYER, VLLM_QWEN2, 230, "forward",
			  "hidden_states, residual = self.post_attention_layernorm(hidden_states, residual)" },
	[I_MLP] = { I_LAYER, VLLM_QWEN2, 231, "forward", "hidden_states = self.mlp(hidden_states)" },
	[I_QKV] = { I_SELF_ATTN, VLLM_QWEN2, 168, "forward", "qkv, _ = self.qkv_proj(hidden_states)" },
	[I_ROTARY] = { I_SELF_ATTN, VLLM_QWEN2, 170, "forward", "q, k = self.rotary_emb(positions, q, k)" },
	[I_ATTN] = { I_SELF_ATTN, VLLM_QWEN2, 171, "forward", "attn_output = self.attn(q, k, v)" },
	[I_O_PROJ] = { I_SELF_ATTN, VLLM_QWEN2, 172, "forward", "output, _ = self.o_proj(attn_output)" },
	[I_GATE_UP] = { I_MLP, VLLM_QWEN2, 90, "forward", "gate_up, _ = self.gate_up_proj(x)" },
	[I_ACT] = { I_MLP, VLLM_QWEN2, 91, "forward", "x = self.act_fn(gate_up)" },
	[I_DOWN] = { I_MLP, VLLM_QWEN2, 92, "forward", "x, _ = self.down_proj(x)" },
};

/* FSDP: the actor's update_policy calling the FSDP-wrapped Qwen2ForCausalLM; the recomputes */
enum fsdp_site {
	F_SCRIPT_MODULE, F_SCRIPT_MAIN, F_SCRIPT_TRAIN, F_VERL_WORKER, F_VERL_UPDATE, F_VERL_FORWARD, F_CAUSAL,
	F_EMBED, F_ROTARY, F_LAYER, F_NORM, F_INPUT_NORM, F_SELF_ATTN, F_POST_NORM, F_MLP, F_Q, F_K, F_V, F_O,
	F_MLP_LINE, F_RECOMPUTE, F_RE_INPUT_NORM, F_RE_MLP, F_RE_MLP_LINE, F_SITES
};

#define HF_LAYER_CALL                                                                                      \
	"hidden_states = decoder_layer(hidden_states, attention_mask=causal_mask, position_ids=position_ids, " \
	"past_key_values=past_key_values, use_cache=use_cache, cache_position=cache_position, "                \
	"position_embeddings=position_embeddings)"
#define HF_MLP_LINE "down_proj = self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))"

static const struct site fsdp_sites[F_SITES] = {
	[F_SCRIPT_MODULE] = { NO_SITE, SCRIPT, 34, "<module>", "main()" },
	[F_SCRIPT_MAIN] = { F_SCRIPT_MODULE, SCRIPT, 30, "main", "train(trainer, batch, sys.argv[2])" },
	[F_SCRIPT_TRAIN] = { F_SCRIPT_MAIN, SCRIPT, 21, "train", "trainer.actor_rollout_wg.update_actor(batch)" },
	[F_VERL_WORKER] = { F_SCRIPT_TRAIN, VERL "workers/fsdp_workers.py", 612, "update_actor",
			    "metrics = self.actor.update_policy(data=data)" },
	[F_VERL_UPDATE] = { F_VERL_WORKER, VERL "workers/actor/dp_actor.py", 418, "update_policy",
			    "entropy, log_prob = self._forward_micro_batch(micro_batch=data, temperature=temperature, "
			    "calculate_entropy=calculate_entropy)" },
	[F_VERL_FORWARD] = { F_VERL_UPDATE, VERL "workers/actor/dp_actor.py", 170, "_forward_micro_batch",
			     "output = self.actor_module(input_ids=input_ids_rmpad, attention_mask=None, "
			     "position_ids=position_ids_rmpad, use_cache=False)" },
	[F_CAUSAL] = { F_VERL_FORWARD, HF_QWEN2, 455, "forward",
		       "outputs: BaseModelOutputWithPast = self.model(input_ids=input_ids, attention_mask=attention_mask, "
		       "position_ids=position_ids, past_key_values=past_key_values, inputs_embeds=inputs_embeds, "
		       "use_cache=use_cache, cache_position=cache_position)" },
	[F_EMBED] = { F_CAUSAL, HF_QWEN2, 362, "forward", "inputs_embeds = self.embed_tokens(input_ids)" },
	[F_ROTARY] = { F_CAUSAL, HF_QWEN2, 381, "forward",
		       "position_embeddings = self.rotary_emb(hidden_states, position_ids)" },
	[F_LAYER] = { F_CAUSAL, HF_QWEN2, 384, "forward", HF_LAYER_CALL },
	[F_NORM] = { F_CAUSAL, HF_QWEN2, 395, "forward", "hidden_states = self.norm(hidden_states)" },
	[F_INPUT_NORM] = { F_LAYER, HF_QWEN2, 247, "forward", "hidden_states = self.input_layernorm(hidden_states)" },
	[F_SELF_ATTN] = { F_LAYER, HF_QWEN2, 249, "forward",
			  "hidden_states, _ = self.self_attn(hidden_states=hidden_states, attention_mask=attention_mask, "
			  "position_ids=position_ids, past_key_values=past_key_values, use_cache=use_cache, "
			  "cache_position=cache_position, position_embeddings=position_embeddings)" },
	[F_POST_NORM] = { F_LAYER, HF_QWEN2, 262, "forward",
			  "hidden_states = self.post_attention_layernorm(hidden_states)" },
	[F_MLP] = { F_LAYER, HF_QWEN2, 263, "forward", "hidden_states = self.mlp(hidden_states)" },
	[F_Q] = { F_SELF_ATTN, HF_QWEN2, 151, "forward",
		  "query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)" },
	[F_K] = { F_SELF_ATTN, HF_QWEN2, 152, "forward",
		  "key_states = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)" },
	[F_V] = { F_SELF_ATTN, HF_QWEN2, 153, "forward",
		  "value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)" },
	[F_O] = { F_SELF_ATTN, HF_QWEN2, 176, "forward", "attn_output = self.o_proj(attn_output)" },
	[F_MLP_LINE] = { F_MLP, HF_QWEN2, 52, "forward", HF_MLP_LINE },
	[F_RECOMPUTE] = { NO_SITE, PY_LIB "torch/utils/checkpoint.py", 1580, "recompute_fn", "fn(*args, **kwargs)" },
	[F_RE_INPUT_NORM] = { F_RECOMPUTE, HF_QWEN2, 247, "forward",
			      "hidden_states = self.input_layernorm(hidden_states)" },
	[F_RE_MLP] = { F_RECOMPUTE, HF_QWEN2, 263, "forward", "hidden_states = self.mlp(hidden_states)" },
	[F_RE_MLP_LINE] = { F_RE_MLP, HF_QWEN2, 52, "forward", HF_MLP_LINE },
};

/* Megatron: the actor's compute_log_prob through the pipeline schedule to DDP(Float16Module(GPTModel)) */
enum megatron_site {
	M_SCRIPT_MODULE, M_SCRIPT_MAIN, M_SCRIPT_TRAIN, M_VERL_WORKER, M_VERL_ACTOR, M_SCHEDULE, M_VERL_STEP,
	M_VERL_MODEL, M_DDP, M_FLOAT16, M_PREPROCESS, M_EMBEDDING, M_WORD_EMB, M_DROPOUT, M_ROPE, M_DECODER,
	M_LAYER, M_FINAL_NORM, M_TL_ATTN, M_TL_MLP, M_INPUT_NORM, M_SELF_ATTN, M_PRE_CROSS, M_CROSS, M_CROSS_BDA,
	M_PRE_MLP, M_MLP, M_QKV_TENSORS, M_QKV, M_Q_NORM, M_K_NORM, M_CORE, M_PROJ, M_FC1, M_FC2, M_SITES
};

#define MCORE_LAYER MCORE "transformer/transformer_layer.py"
#define MCORE_ATTN MCORE "transformer/attention.py"
#define MCORE_GPT MCORE "models/gpt/gpt_model.py"
#define MCORE_EMB MCORE "models/common/embeddings/language_model_embedding.py"

static const struct site megatron_sites[M_SITES] = {
	[M_SCRIPT_MODULE] = { NO_SITE, SCRIPT, 34, "<module>", "main()" },
	[M_SCRIPT_MAIN] = { M_SCRIPT_MODULE, SCRIPT, 30, "main", "train(trainer, batch, sys.argv[2])" },
	[M_SCRIPT_TRAIN] = { M_SCRIPT_MAIN, SCRIPT, 23, "train", "trainer.actor_rollout_wg.compute_log_prob(batch)" },
	[M_VERL_WORKER] = { M_SCRIPT_TRAIN, VERL "workers/megatron_workers.py", 720, "compute_log_prob",
			    "output, entropys = self.actor.compute_log_prob(data=data, calculate_entropy=True)" },
	[M_VERL_ACTOR] = { M_VERL_WORKER, VERL "workers/actor/megatron_actor.py", 210, "compute_log_prob",
			   "output = self.forward_backward_batch(data, forward_only=True, "
			   "post_process_fn=compute_logprobs_fn, calculate_entropy=calculate_entropy)" },
	[M_SCHEDULE] = { M_VERL_ACTOR, MCORE "pipeline_parallel/schedules.py", 275, "forward_step",
			 "output_tensor, loss_func = forward_step_func(data_iterator, model)" },
	[M_VERL_STEP] = { M_SCHEDULE, VERL "workers/actor/megatron_actor.py", 480, "forward_step",
			  "output = forward_fn(model, input_ids, attention_mask, position_ids, "
			  "sequence_parallel=self.tf_config.sequence_parallel)" },
	[M_VERL_MODEL] = { M_VERL_STEP, VERL "models/mcore/model_forward.py", 62, "gptmodel_forward",
			   "output_orig = model(input_ids=input_ids_rmpad, attention_mask=None, "
			   "position_ids=position_ids, packed_seq_params=packed_seq_params)" },
	[M_DDP] = { M_VERL_MODEL, MCORE "distributed/data_parallel_base.py", 22, "forward",
		    "return self.module(*inputs, **kwargs)" },
	[M_FLOAT16] = { M_DDP, MCORE "transformer/module.py", 178, "forward", "outputs = self.module(*inputs, **kwargs)" },
	[M_PREPROCESS] = { M_FLOAT16, MCORE_GPT, 390, "forward",
			   "decoder_input, rotary_pos_emb, rotary_pos_cos, rotary_pos_sin, sequence_len_offset = "
			   "self._preprocess(input_ids=input_ids, position_ids=position_ids, "
			   "packed_seq_params=packed_seq_params)" },
	[M_EMBEDDING] = { M_PREPROCESS, MCORE_GPT, 285, "_preprocess",
			  "decoder_input = self.embedding(input_ids=input_ids, position_ids=position_ids)" },
	[M_WORD_EMB] = { M_EMBEDDING, MCORE_EMB, 105, "forward", "word_embeddings = self.word_embeddings(input_ids)" },
	[M_DROPOUT] = { M_EMBEDDING, MCORE_EMB, 137, "forward", "embeddings = self.embedding_dropout(embeddings)" },
	[M_ROPE] = { M_PREPROCESS, MCORE_GPT, 318, "_preprocess",
		     "rotary_pos_emb = self.rotary_pos_emb(rotary_seq_len, packed_seq=packed_seq)" },
	[M_DECODER] = { M_FLOAT16, MCORE_GPT, 402, "forward",
			"hidden_states = self.decoder(hidden_states=decoder_input, attention_mask=attention_mask, "
			"rotary_pos_emb=rotary_pos_emb, packed_seq_params=packed_seq_params, "
			"sequence_len_offset=sequence_len_offset)" },
	[M_LAYER] = { M_DECODER, MCORE "transformer/transformer_block.py", 549, "forward",
		      "hidden_states, context = layer(hidden_states=hidden_states, attention_mask=attention_mask, "
		      "context=context, context_mask=context_mask, rotary_pos_emb=rotary_pos_emb, "
		      "inference_context=inference_context, packed_seq_params=packed_seq_params, "
		      "sequence_len_offset=sequence_len_offset)" },
	[M_FINAL_NORM] = { M_DECODER, MCORE "transformer/transformer_block.py", 592, "forward",
			   "hidden_states = self.final_layernorm(hidden_states)" },
	[M_TL_ATTN] = { M_LAYER, MCORE_LAYER, 470, "forward",
			"hidden_states, context = self._forward_attention(*args, **kwargs)" },
	[M_TL_MLP] = { M_LAYER, MCORE_LAYER, 474, "forward",
		       "output = self._forward_mlp(hidden_states, kwargs.get(\"inference_context\", None))" },
	[M_INPUT_NORM] = { M_TL_ATTN, MCORE_LAYER, 690, "_forward_attention",
			   "input_layernorm_output = self.input_layernorm(hidden_states)" },
	[M_SELF_ATTN] = { M_TL_ATTN, MCORE_LAYER, 700, "_forward_attention",
			  "attention_output_with_bias = self.self_attention(input_layernorm_output, "
			  "attention_mask=attention_mask, inference_context=inference_context, "
			  "rotary_pos_emb=rotary_pos_emb, packed_seq_params=packed_seq_params, "
			  "sequence_len_offset=sequence_len_offset)" },
	[M_PRE_CROSS] = { M_TL_ATTN, MCORE_LAYER, 720, "_forward_attention",
			  "pre_cross_attn_layernorm_output = self.pre_cross_attn_layernorm(hidden_states)" },
	[M_CROSS] = { M_TL_ATTN, MCORE_LAYER, 723, "_forward_attention",
		      "attention_output_with_bias = self.cross_attention(pre_cross_attn_layernorm_output, "
		      "attention_mask=context_mask, key_value_states=context, inference_context=inference_context)" },
	[M_CROSS_BDA] = { M_TL_ATTN, MCORE_LAYER, 735, "_forward_attention",
			  "hidden_states = self.cross_attn_bda(self.training, self.config.bias_dropout_fusion)("
			  "attention_output_with_bias, residual, self.hidden_dropout)" },
	[M_PRE_MLP] = { M_TL_MLP, MCORE_LAYER, 760, "_forward_mlp",
			"pre_mlp_layernorm_output = self.pre_mlp_layernorm(hidden_states)" },
	[M_MLP] = { M_TL_MLP, MCORE_LAYER, 763, "_forward_mlp",
		    "mlp_output_with_bias = self.mlp(pre_mlp_layernorm_output)" },
	[M_QKV_TENSORS] = { M_SELF_ATTN, MCORE_ATTN, 740, "forward",
			    "query, key, value = self.get_query_key_value_tensors(hidden_states, key_value_states)" },
	[M_QKV] = { M_QKV_TENSORS, MCORE_ATTN, 645, "get_query_key_value_tensors",
		    "mixed_qkv, _ = self.linear_qkv(hidden_states)" },
	[M_Q_NORM] = { M_QKV_TENSORS, MCORE_ATTN, 690, "get_query_key_value_tensors", "query = self.q_layernorm(query)" },
	[M_K_NORM] = { M_QKV_TENSORS, MCORE_ATTN, 693, "get_query_key_value_tensors", "key = self.k_layernorm(key)" },
	[M_CORE] = { M_SELF_ATTN, MCORE_ATTN, 800, "forward",
		     "core_attn_out = self.core_attention(query, key, value, attention_mask, "
		     "attn_mask_type=attn_mask_type, attention_bias=attention_bias, packed_seq_params=packed_seq_params)" },
	[M_PROJ] = { M_SELF_ATTN, MCORE_ATTN, 830, "forward", "output, bias = self.linear_proj(core_attn_out)" },
	[M_FC1] = { M_MLP, MCORE "transformer/mlp.py", 130, "forward",
		    "intermediate_parallel, bias_parallel = self.linear_fc1(hidden_states)" },
	[M_FC2] = { M_MLP, MCORE "transformer/mlp.py", 160, "forward",
		    "output, output_bias = self.linear_fc2(intermediate_parallel)" },
};

/* ------------------------------------------------------------------ */
/* The dump of one side and rank: dump.json streamed, stack.json and construct.json at the end */

enum side { SIDE_INFER, SIDE_FSDP, SIDE_MEGATRON };

/* Per side: the entries' common prefix, layer N's path (<before>N.<after>), the call sites. */
static const struct side_names {
	const char *prefix;
	const char *layer_before, *layer_after;
	const struct site *sites;
} side_names[] = {
	[SIDE_INFER] = { "Module.model.", "layers.", "", infer_sites },
	[SIDE_FSDP] = { "Module._fsdp_wrapped_module.model.", "layers.", "_fsdp_wrapped_module.", fsdp_sites },
	[SIDE_MEGATRON] = { "Module.0.module.module.", "decoder.layers.", "", megatron_sites },
};

/* An entry written: its construct.json parent (NULL: null) and call site (NO_SITE: none in stack.json). */
struct written {
	char *name;
	char *parent;
	int site;
};

#define MAX_SCOPES 8

struct verl_dump {
	const struct verl_config *cfg;
	enum side side;
	struct strbuf dir;
	struct genio_json json;
	struct strbuf entry;             /* the entry being written */
	char *scope[MAX_SCOPES];         /* the modules around it, innermost last */
	int depth;
	struct written *written;
	size_t nr_written, alloc_written;
};

/* <prefix>[<layer path>]<module>.<phase>: phase "forward.0", "backward.0", "parameters_grad". */
static void module_name(const struct verl_dump *d, struct strbuf *out, int layer, const char *module,
			const char *phase)
{
	strbuf_reset(out);
	strbuf_addstr(out, side_names[d->side].prefix);
	if (layer >= 0)
		strbuf_addf(out, "%s%d.%s", side_names[d->side].layer_before, layer, side_names[d->side].layer_after);
	strbuf_addf(out, "%s.%s", module, phase);
}

static void dump_open(struct verl_dump *d, const struct verl_config *cfg, enum side side, int rank)
{

	*d = (struct verl_dump){ .cfg = cfg, .side = side, .dir = STRBUF_INIT, .entry = STRBUF_INIT };
	strbuf_addf(&d->dir, "%s/%s/step0/rank%d", cfg->outdir, side == SIDE_INFER ? "golden" : "target", rank);
	genio_dump_begin(&d->json, d->dir.buf, "L0", "pytorch", cfg->tensors);
}

/* The frames of a site, innermost first. */
static void write_frames(struct genio_json *w, const struct site *sites, int site)
{
	for (; site != NO_SITE; site = sites[site].caller)
		genio_json_frame(w, sites[site].file, sites[site].line, sites[site].func, sites[site].source);
}

static bool site_seen_before(const struct verl_dump *d, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (d->written[j].site == d->written[i].site)
			return true;
	return false;
}

/* stack.json: one group per call site, in the order of first use, with the entries called there. */
static void write_stack_json(const struct verl_dump *d)
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
		if (site == NO_SITE || site_seen_before(d, i))
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
		write_frames(&w, side_names[d->side].sites, site);
		genio_json_close(&w, ']');
		genio_json_close(&w, ']');
	}
	genio_json_close(&w, '}');
	genio_json_commit(&w);
	strbuf_release(&path);
}

static void write_construct_json(const struct verl_dump *d)
{
	struct strbuf path = STRBUF_INIT;
	struct genio_json w;

	strbuf_addf(&path, "%s/construct.json", d->dir.buf);
	genio_json_create(&w, path.buf);
	genio_json_open(&w, '{');
	for (size_t i = 0; i < d->nr_written; i++) {
		genio_json_key(&w, d->written[i].name);
		if (d->written[i].parent)
			genio_json_string(&w, d->written[i].parent);
		else
			genio_json_token(&w, "null");
	}
	genio_json_close(&w, '}');
	genio_json_commit(&w);
	strbuf_release(&path);
}

static void dump_close(struct verl_dump *d)
{
	if (d->depth)
		die("internal error: %s closed inside a module", d->dir.buf);
	genio_json_close(&d->json, '}'); /* data */
	genio_json_close(&d->json, '}');
	genio_json_commit(&d->json);
	write_stack_json(d);
	write_construct_json(d);
	for (size_t i = 0; i < d->nr_written; i++) {
		free(d->written[i].name);
		free(d->written[i].parent);
	}
	free(d->written);
	strbuf_release(&d->entry);
	strbuf_release(&d->dir);
}

/* Start the entry named in d->entry, called at site; its parent is the innermost open module. */
static void begin_named_entry(struct verl_dump *d, int site)
{
	struct written *e;
	ALLOC_GROW(d->written, d->nr_written + 1, d->alloc_written);
	e = &d->written[d->nr_written++];
	e->name = xstrdup(d->entry.buf);
	e->parent = d->depth ? xstrdup(d->scope[d->depth - 1]) : NULL;
	e->site = site;
	genio_json_key(&d->json, d->entry.buf);
	genio_json_open(&d->json, '{');
}

static void entry_begin(struct verl_dump *d, int layer, const char *module, const char *phase, int site)
{
	module_name(d, &d->entry, layer, module, phase);
	begin_named_entry(d, site);
}

/* A module whose forward.0 entry comes after those of the modules it calls (msprobe's post-order). */
static void scope_enter(struct verl_dump *d, int layer, const char *module)
{
	struct strbuf name = STRBUF_INIT;
	if (d->depth == MAX_SCOPES)
		die("internal error: modules nested too deep");
	module_name(d, &name, layer, module, "forward.0");
	d->scope[d->depth++] = strbuf_detach(&name, NULL);
}

/* Leave the innermost module and start its entry. */
static void scope_entry_begin(struct verl_dump *d, int site)
{
	char *name = d->scope[--d->depth];
	strbuf_reset(&d->entry);
	strbuf_addstr(&d->entry, name);
	free(name);
	begin_named_entry(d, site);
}

static void entry_end(struct verl_dump *d)
{
	genio_json_close(&d->json, '}');
	genio_json_flush_if_big(&d->json);
}

/* ------------------------------------------------------------------ */
/* Leaves: a tensor of the trace as one side shows it */

struct view {
	const float *values;   /* float tensors */
	const int64_t *ids;    /* int64 tensors */
	enum dtype dtype;      /* as saved */
	int ndim;
	int64_t shape[4];
	bool requires_grad;
};

static void set_shape(struct view *v, int ndim, const int64_t *shape)
{
	v->ndim = ndim;
	memcpy(v->shape, shape, (size_t)ndim * sizeof(*shape));
}

/*
 * A [TOKENS, width] activation: vLLM [T, width], Hugging Face [1, T, width],
 * Megatron sequence first [T, 1, width]; requires_grad only on FSDP's side.
 */
static struct view activation(const struct verl_dump *d, const float *values, int width)
{
	struct view v = { .values = values, .dtype = d->cfg->dtype, .requires_grad = d->side == SIDE_FSDP };
	if (d->side == SIDE_INFER)
		set_shape(&v, 2, (const int64_t[]){ TOKENS, width });
	else if (d->side == SIDE_FSDP)
		set_shape(&v, 3, (const int64_t[]){ 1, TOKENS, width });
	else
		set_shape(&v, 3, (const int64_t[]){ TOKENS, 1, width });
	return v;
}

/* A training activation batch first, [1, T, width] (Megatron's before its transpose and after the output layer). */
static struct view batch_first(const struct verl_dump *d, const float *values, int width)
{
	struct view v = activation(d, values, width);
	set_shape(&v, 3, (const int64_t[]){ 1, TOKENS, width });
	return v;
}

/* Megatron's [T, 1, heads, head_dim] view of a [T, heads * head_dim] activation. */
static struct view heads(const struct verl_dump *d, const float *values, int nheads)
{
	struct view v = activation(d, values, nheads * HEAD_DIM);
	set_shape(&v, 4, (const int64_t[]){ TOKENS, 1, nheads, HEAD_DIM });
	return v;
}

/* Megatron's rotary_pos_emb: the float32 angles [T, 1, 1, head_dim], whatever --dtype says. */
static struct view rotary_angles(const struct verl_dump *d, const struct trace *tr)
{
	struct view v = heads(d, tr->angle, 1);
	v.dtype = DT_FLOAT32;
	return v;
}

static struct view no_grad(struct view v)
{
	v.requires_grad = false;
	return v;
}

/* Token ids or positions: int64 [T] (vLLM) or [1, T], no gradient. */
static struct view token_ids(const struct verl_dump *d, const int64_t *ids)
{
	struct view v = { .ids = ids, .dtype = DT_INT64 };
	if (d->side == SIDE_INFER)
		set_shape(&v, 1, (const int64_t[]){ TOKENS });
	else
		set_shape(&v, 2, (const int64_t[]){ 1, TOKENS });
	return v;
}

/* A parameter [rows, cols], or [cols] when rows is 0; trained on both training sides. */
static struct view parameter(const struct verl_dump *d, const float *values, int rows, int cols)
{
	struct view v = { .values = values, .dtype = d->cfg->dtype, .requires_grad = d->side != SIDE_INFER };
	if (rows)
		set_shape(&v, 2, (const int64_t[]){ rows, cols });
	else
		set_shape(&v, 1, (const int64_t[]){ cols });
	return v;
}

static size_t numel(const struct view *v)
{
	size_t n = 1;
	for (int i = 0; i < v->ndim; i++)
		n *= (size_t)v->shape[i];
	return n;
}

/* The elements as saved: int64 and float32 as they are, else rounded into buf (uint16 elements). */
static const void *saved_elements(const struct view *v, uint16_t *buf, size_t n)
{
	if (v->ids)
		return v->ids;
	if (v->dtype == DT_FLOAT32)
		return v->values;
	for (size_t i = 0; i < n; i++)
		buf[i] = v->dtype == DT_BFLOAT16 ? dtype_float_to_bf16(v->values[i]) : dtype_float_to_half(v->values[i]);
	return buf;
}

static void save_tensor(const struct verl_dump *d, const char *data_name, const struct view *v, const void *elems)
{
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;
	struct pt_options opt = { .layout = d->cfg->pt_layout };
	struct tensor_src src = { .dtype = v->dtype, .storage = elems, .storage_numel = (int64_t)numel(v),
				  .ndim = v->ndim, .shape = v->shape };

	strbuf_addf(&path, "%s/dump_tensor_data/%s", d->dir.buf, data_name);
	if (tensorw_pt(path.buf, &src, &opt, &err))
		die("%s", err.buf);
	strbuf_release(&path);
	strbuf_release(&err);
}

/*
 * A tensor leaf: type, dtype, shape, Max, Min, Mean, Norm, requires_grad
 * and, with tensors, data_name "<entry>.<label>.pt", its file saved.
 */
static void put_tensor(struct verl_dump *d, const char *label, struct view v)
{
	static const char *const stat_names[4] = { "Max", "Min", "Mean", "Norm" };
	struct genio_json *w = &d->json;
	uint16_t buf[MAX_ELEMENTS];
	size_t n = numel(&v);
	const void *elems;
	char stat[4][32];

	if (n > MAX_ELEMENTS)
		die("internal error: %s.%s has %zu elements", d->entry.buf, label, n);
	elems = saved_elements(&v, buf, n);
	genio_summarize(v.dtype, elems, n, v.ndim, stat);
	genio_json_open(w, '{');
	genio_json_key(w, "type");
	genio_json_string(w, "torch.Tensor");
	genio_json_key(w, "dtype");
	genio_json_string(w, dtype_info(v.dtype)->torch);
	genio_json_key(w, "shape");
	genio_json_open(w, '[');
	for (int i = 0; i < v.ndim; i++)
		genio_json_int(w, v.shape[i]);
	genio_json_close(w, ']');
	for (int i = 0; i < 4; i++) {
		genio_json_key(w, stat_names[i]);
		genio_json_token(w, stat[i]);
	}
	genio_json_key(w, "requires_grad");
	genio_json_token(w, v.requires_grad ? "true" : "false");
	if (d->cfg->tensors) {
		struct strbuf data_name = STRBUF_INIT;
		strbuf_addf(&data_name, "%s.%s.pt", d->entry.buf, label);
		genio_json_key(w, "data_name");
		genio_json_string(w, data_name.buf);
		save_tensor(d, data_name.buf, &v, elems);
		strbuf_release(&data_name);
	}
	genio_json_close(w, '}');
}

static void put_none(struct verl_dump *d)
{
	genio_json_token(&d->json, "null");
}

/* A Python scalar leaf: {"type": "bool", "value": true}, {"type": "int", "value": 5}. */
static void put_scalar(struct verl_dump *d, const char *type, const char *value)
{
	genio_json_open(&d->json, '{');
	genio_json_key(&d->json, "type");
	genio_json_string(&d->json, type);
	genio_json_key(&d->json, "value");
	genio_json_token(&d->json, value);
	genio_json_close(&d->json, '}');
}

static void open_list(struct verl_dump *d, const char *key)
{
	genio_json_key(&d->json, key);
	genio_json_open(&d->json, '[');
}

static void close_list(struct verl_dump *d)
{
	genio_json_close(&d->json, ']');
}

static void open_dict(struct verl_dump *d, const char *key)
{
	genio_json_key(&d->json, key);
	genio_json_open(&d->json, '{');
}

static void close_dict(struct verl_dump *d)
{
	genio_json_close(&d->json, '}');
}

static void empty_list(struct verl_dump *d, const char *key)
{
	open_list(d, key);
	close_list(d);
}

static void empty_dict(struct verl_dump *d, const char *key)
{
	open_dict(d, key);
	close_dict(d);
}

/* A keyword argument (inside input_kwargs): a tensor (its file .kwargs.<name>), None, a bool. */
static void kwarg_tensor(struct verl_dump *d, const char *name, struct view v)
{
	struct strbuf label = STRBUF_INIT;
	strbuf_addf(&label, "kwargs.%s", name);
	genio_json_key(&d->json, name);
	put_tensor(d, label.buf, v);
	strbuf_release(&label);
}

static void kwarg_none(struct verl_dump *d, const char *name)
{
	genio_json_key(&d->json, name);
	put_none(d);
}

static void kwarg_bool(struct verl_dump *d, const char *name, bool value)
{
	genio_json_key(&d->json, name);
	put_scalar(d, "bool", value ? "true" : "false");
}

/* Hugging Face's position_embeddings: the (cos, sin) tuple. */
static void kwarg_cos_sin(struct verl_dump *d, const struct trace *tr, bool requires_grad)
{
	struct view c = activation(d, tr->cos, HEAD_DIM), s = activation(d, tr->sin, HEAD_DIM);
	c.requires_grad = s.requires_grad = requires_grad;
	open_list(d, "position_embeddings");
	put_tensor(d, "kwargs.position_embeddings.0", c);
	put_tensor(d, "kwargs.position_embeddings.1", s);
	close_list(d);
}

static void param(struct verl_dump *d, const char *name, struct view v)
{
	struct strbuf label = STRBUF_INIT;
	strbuf_addf(&label, "parameters.%s", name);
	genio_json_key(&d->json, name);
	put_tensor(d, label.buf, v);
	strbuf_release(&label);
}

/* input_args [in], input_kwargs {}. */
static void one_input(struct verl_dump *d, struct view in)
{
	open_list(d, "input_args");
	put_tensor(d, "input.0", in);
	close_list(d);
	empty_dict(d, "input_kwargs");
}

/* output [out], or [out, None] for the (out, bias) tuples of vLLM's and mcore's linears. */
static void one_output(struct verl_dump *d, struct view out, bool with_none)
{
	open_list(d, "output");
	put_tensor(d, "output.0", out);
	if (with_none)
		put_none(d);
	close_list(d);
}

static void weight_only(struct verl_dump *d, struct view weight)
{
	open_dict(d, "parameters");
	param(d, "weight", weight);
	close_dict(d);
}

/* A module of one input and one output and no parameters (norms of Megatron's identity, SiLU, dropout). */
static void passing_entry(struct verl_dump *d, struct view in, struct view out, bool with_none)
{
	one_input(d, in);
	one_output(d, out, with_none);
	empty_dict(d, "parameters");
}

/* A linear without bias: input, output (with_none: the (out, None) tuple), weight [out_dim, in_dim]. */
static void linear_entry(struct verl_dump *d, struct view in, struct view out, bool with_none, const float *weight,
			 int out_dim, int in_dim)
{
	one_input(d, in);
	one_output(d, out, with_none);
	weight_only(d, parameter(d, weight, out_dim, in_dim));
}

/* ------------------------------------------------------------------ */
/* vLLM's Qwen2ForCausalLM (the golden) */

/*
 * vLLM's RMSNorm: with a residual it adds it to the branch inside and
 * returns (normed, new residual); without (layer 0's input_layernorm) it
 * takes and returns one tensor.
 */
static void infer_norm(struct verl_dump *d, const float *branch, const float *residual, const float *normed,
		       const float *sum, const float *weight)
{
	open_list(d, "input_args");
	put_tensor(d, "input.0", activation(d, branch, HIDDEN));
	if (residual)
		put_tensor(d, "input.1", activation(d, residual, HIDDEN));
	close_list(d);
	empty_dict(d, "input_kwargs");
	open_list(d, "output");
	put_tensor(d, "output.0", activation(d, normed, HIDDEN));
	if (residual)
		put_tensor(d, "output.1", activation(d, sum, HIDDEN));
	close_list(d);
	weight_only(d, parameter(d, weight, 0, HIDDEN));
}

/* vLLM's rotary embedding (positions, q, k) -> (q, k) rotated, and its attention (q, k, v) -> out. */
static void infer_rotary_and_attn(struct verl_dump *d, const struct trace *tr, const struct layer_trace *lt, int l)
{
	entry_begin(d, l, "self_attn.rotary_emb.RotaryEmbedding", "forward.0", I_ROTARY);
	open_list(d, "input_args");
	put_tensor(d, "input.0", token_ids(d, tr->positions));
	put_tensor(d, "input.1", activation(d, lt->q, Q_DIM));
	put_tensor(d, "input.2", activation(d, lt->k, KV_DIM));
	close_list(d);
	empty_dict(d, "input_kwargs");
	open_list(d, "output");
	put_tensor(d, "output.0", activation(d, lt->q_rot, Q_DIM));
	put_tensor(d, "output.1", activation(d, lt->k_rot, KV_DIM));
	close_list(d);
	empty_dict(d, "parameters");
	entry_end(d);

	entry_begin(d, l, "self_attn.attn.Attention", "forward.0", I_ATTN);
	open_list(d, "input_args");
	put_tensor(d, "input.0", activation(d, lt->q_rot, Q_DIM));
	put_tensor(d, "input.1", activation(d, lt->k_rot, KV_DIM));
	put_tensor(d, "input.2", activation(d, lt->v, KV_DIM));
	close_list(d);
	empty_dict(d, "input_kwargs");
	one_output(d, activation(d, lt->attn, Q_DIM), false);
	empty_dict(d, "parameters");
	entry_end(d);
}

static void infer_attention(struct verl_dump *d, const struct trace *tr, const struct layer_weights *lw, int l)
{
	const struct layer_trace *lt = &tr->layer[l];

	scope_enter(d, l, "self_attn.Qwen2Attention");
	entry_begin(d, l, "self_attn.qkv_proj.QKVParallelLinear", "forward.0", I_QKV);
	one_input(d, activation(d, lt->normed, HIDDEN));
	one_output(d, activation(d, lt->qkv, QKV_DIM), true);
	open_dict(d, "parameters");
	param(d, "weight", parameter(d, lw->qkv, QKV_DIM, HIDDEN));
	param(d, "bias", parameter(d, lw->qkv_bias, 0, QKV_DIM));
	close_dict(d);
	entry_end(d);
	infer_rotary_and_attn(d, tr, lt, l);
	entry_begin(d, l, "self_attn.o_proj.RowParallelLinear", "forward.0", I_O_PROJ);
	linear_entry(d, activation(d, lt->attn, Q_DIM), activation(d, lt->o, HIDDEN), true, lw->o, HIDDEN, Q_DIM);
	entry_end(d);

	scope_entry_begin(d, I_SELF_ATTN);
	empty_list(d, "input_args");
	open_dict(d, "input_kwargs");
	kwarg_tensor(d, "positions", token_ids(d, tr->positions));
	kwarg_tensor(d, "hidden_states", activation(d, lt->normed, HIDDEN));
	close_dict(d);
	one_output(d, activation(d, lt->o, HIDDEN), false);
	empty_dict(d, "parameters");
	entry_end(d);
}

static void infer_mlp(struct verl_dump *d, const struct layer_trace *lt, const struct layer_weights *lw, int l)
{
	scope_enter(d, l, "mlp.Qwen2MLP");
	entry_begin(d, l, "mlp.gate_up_proj.MergedColumnParallelLinear", "forward.0", I_GATE_UP);
	linear_entry(d, activation(d, lt->post_normed, HIDDEN), activation(d, lt->gate_up, 2 * FFN), true,
		     lw->gate_up, 2 * FFN, HIDDEN);
	entry_end(d);

	entry_begin(d, l, "mlp.act_fn.SiluAndMul", "forward.0", I_ACT);
	passing_entry(d, activation(d, lt->gate_up, 2 * FFN), activation(d, lt->act, FFN), false);
	entry_end(d);

	entry_begin(d, l, "mlp.down_proj.RowParallelLinear", "forward.0", I_DOWN);
	linear_entry(d, activation(d, lt->act, FFN), activation(d, lt->down, HIDDEN), true, lw->down, HIDDEN, FFN);
	entry_end(d);

	scope_entry_begin(d, I_MLP);
	passing_entry(d, activation(d, lt->post_normed, HIDDEN), activation(d, lt->down, HIDDEN), false);
	entry_end(d);
}

/* vLLM's decoder layer: (positions, branch, residual) in, (branch, residual) out, the add left to the next norm. */
static void infer_layer(struct verl_dump *d, const struct trace *tr, const struct weights *w, int l)
{
	const struct layer_trace *lt = &tr->layer[l], *prev = l ? &tr->layer[l - 1] : NULL;
	const struct layer_weights *lw = &w->layer[l];

	scope_enter(d, l, "Qwen2DecoderLayer");
	entry_begin(d, l, "input_layernorm.RMSNorm", "forward.0", prev ? I_INPUT_NORM : I_INPUT_NORM_FIRST);
	infer_norm(d, prev ? prev->down : tr->embedded, prev ? prev->mid : NULL, lt->normed, lt->input, lw->input_norm);
	entry_end(d);
	infer_attention(d, tr, lw, l);
	entry_begin(d, l, "post_attention_layernorm.RMSNorm", "forward.0", I_POST_NORM);
	infer_norm(d, lt->o, lt->input, lt->post_normed, lt->mid, lw->post_norm);
	entry_end(d);
	infer_mlp(d, lt, lw, l);

	scope_entry_begin(d, I_LAYER);
	open_list(d, "input_args");
	put_tensor(d, "input.0", token_ids(d, tr->positions));
	put_tensor(d, "input.1", activation(d, prev ? prev->down : tr->embedded, HIDDEN));
	if (prev)
		put_tensor(d, "input.2", activation(d, prev->mid, HIDDEN));
	else
		put_none(d);
	close_list(d);
	empty_dict(d, "input_kwargs");
	open_list(d, "output");
	put_tensor(d, "output.0", activation(d, lt->down, HIDDEN));
	put_tensor(d, "output.1", activation(d, lt->mid, HIDDEN));
	close_list(d);
	empty_dict(d, "parameters");
	entry_end(d);
}

static void write_infer(struct verl_dump *d, const struct trace *tr, const struct weights *w)
{
	const struct layer_trace *last = &tr->layer[LAYERS - 1];

	entry_begin(d, -1, "embed_tokens.VocabParallelEmbedding", "forward.0", I_EMBED);
	one_input(d, token_ids(d, tr->ids));
	one_output(d, activation(d, tr->embedded, HIDDEN), false);
	weight_only(d, parameter(d, w->embed, VOCAB, HIDDEN));
	entry_end(d);
	for (int l = 0; l < LAYERS; l++)
		infer_layer(d, tr, w, l);
	entry_begin(d, -1, "norm.RMSNorm", "forward.0", I_NORM);
	infer_norm(d, last->down, last->mid, tr->normed, last->output, w->final_norm);
	entry_end(d);
}

/* ------------------------------------------------------------------ */
/* Hugging Face's Qwen2 under FSDP (the target of --backend fsdp) */

/* A Linear of Hugging Face: input, output, weight [out_dim, in_dim] (rows of the fused one), bias (or NULL). */
static void fsdp_linear(struct verl_dump *d, struct view in, const float *out, const float *weight, const float *bias,
			int out_dim, int in_dim)
{
	one_input(d, in);
	one_output(d, activation(d, out, out_dim), false);
	open_dict(d, "parameters");
	param(d, "weight", parameter(d, weight, out_dim, in_dim));
	if (bias)
		param(d, "bias", parameter(d, bias, 0, out_dim));
	close_dict(d);
}

static void fsdp_norm(struct verl_dump *d, const float *in, const float *out, const float *weight)
{
	one_input(d, activation(d, in, HIDDEN));
	one_output(d, activation(d, out, HIDDEN), false);
	weight_only(d, parameter(d, weight, 0, HIDDEN));
}

/* The keyword arguments Qwen2Model hands its decoder layers (and they their attention), in order. */
static void fsdp_layer_kwargs(struct verl_dump *d, const struct trace *tr)
{
	kwarg_none(d, "attention_mask");
	kwarg_tensor(d, "position_ids", token_ids(d, tr->positions));
	kwarg_none(d, "past_key_values");
	kwarg_bool(d, "use_cache", false);
	kwarg_none(d, "cache_position");
	kwarg_cos_sin(d, tr, true);
}

static void fsdp_attention(struct verl_dump *d, const struct trace *tr, const struct layer_weights *lw, int l)
{
	const struct layer_trace *lt = &tr->layer[l];
	struct view in = activation(d, lt->normed, HIDDEN);

	scope_enter(d, l, "self_attn.Qwen2Attention");
	entry_begin(d, l, "self_attn.q_proj.Linear", "forward.0", F_Q);
	fsdp_linear(d, in, lt->q, lw->qkv, lw->qkv_bias, Q_DIM, HIDDEN);
	entry_end(d);
	entry_begin(d, l, "self_attn.k_proj.Linear", "forward.0", F_K);
	fsdp_linear(d, in, lt->k, lw->qkv + Q_DIM * HIDDEN, lw->qkv_bias + Q_DIM, KV_DIM, HIDDEN);
	entry_end(d);
	entry_begin(d, l, "self_attn.v_proj.Linear", "forward.0", F_V);
	fsdp_linear(d, in, lt->v, lw->qkv + (Q_DIM + KV_DIM) * HIDDEN, lw->qkv_bias + Q_DIM + KV_DIM, KV_DIM, HIDDEN);
	entry_end(d);
	entry_begin(d, l, "self_attn.o_proj.Linear", "forward.0", F_O);
	fsdp_linear(d, activation(d, lt->attn, Q_DIM), lt->o, lw->o, NULL, HIDDEN, Q_DIM);
	entry_end(d);

	scope_entry_begin(d, F_SELF_ATTN);
	empty_list(d, "input_args");
	open_dict(d, "input_kwargs");
	kwarg_tensor(d, "hidden_states", in);
	fsdp_layer_kwargs(d, tr);
	close_dict(d);
	one_output(d, activation(d, lt->o, HIDDEN), true); /* (attn_output, attn_weights None) */
	empty_dict(d, "parameters");
	entry_end(d);
}

/* Qwen2MLP: down_proj(act_fn(gate_proj(x)) * up_proj(x)), all four called on one line. */
static void fsdp_down_proj(struct verl_dump *d, const struct layer_trace *lt, const struct layer_weights *lw, int l,
			   const char *phase, int site)
{
	entry_begin(d, l, "mlp.down_proj.Linear", phase, site);
	fsdp_linear(d, activation(d, lt->act, FFN), lt->down, lw->down, NULL, HIDDEN, FFN);
	entry_end(d);
}

static void fsdp_mlp(struct verl_dump *d, const struct layer_trace *lt, const struct layer_weights *lw, int l)
{
	struct view in = activation(d, lt->post_normed, HIDDEN);

	scope_enter(d, l, "mlp.Qwen2MLP");
	entry_begin(d, l, "mlp.gate_proj.Linear", "forward.0", F_MLP_LINE);
	fsdp_linear(d, in, lt->gate, lw->gate_up, NULL, FFN, HIDDEN);
	entry_end(d);
	entry_begin(d, l, "mlp.act_fn.SiLU", "forward.0", F_MLP_LINE);
	passing_entry(d, activation(d, lt->gate, FFN), activation(d, lt->silu, FFN), false);
	entry_end(d);
	entry_begin(d, l, "mlp.up_proj.Linear", "forward.0", F_MLP_LINE);
	fsdp_linear(d, in, lt->up, lw->gate_up + FFN * HIDDEN, NULL, FFN, HIDDEN);
	entry_end(d);
	fsdp_down_proj(d, lt, lw, l, "forward.0", F_MLP_LINE);
	scope_entry_begin(d, F_MLP);
	passing_entry(d, in, activation(d, lt->down, HIDDEN), false);
	entry_end(d);
}

/* The decoder layer's own entry (forward.0 in the forward, forward.1 when the checkpoint recomputes it). */
static void fsdp_layer_entry(struct verl_dump *d, const struct trace *tr, int l)
{
	const struct layer_trace *lt = &tr->layer[l];
	open_list(d, "input_args");
	put_tensor(d, "input.0", activation(d, lt->input, HIDDEN));
	close_list(d);
	open_dict(d, "input_kwargs");
	fsdp_layer_kwargs(d, tr);
	close_dict(d);
	one_output(d, activation(d, lt->output, HIDDEN), false);
	empty_dict(d, "parameters");
}

static void fsdp_layer(struct verl_dump *d, const struct trace *tr, const struct weights *w, int l)
{
	const struct layer_trace *lt = &tr->layer[l];
	const struct layer_weights *lw = &w->layer[l];

	scope_enter(d, l, "Qwen2DecoderLayer");
	entry_begin(d, l, "input_layernorm.Qwen2RMSNorm", "forward.0", F_INPUT_NORM);
	fsdp_norm(d, lt->input, lt->normed, lw->input_norm);
	entry_end(d);
	fsdp_attention(d, tr, lw, l);
	entry_begin(d, l, "post_attention_layernorm.Qwen2RMSNorm", "forward.0", F_POST_NORM);
	fsdp_norm(d, lt->mid, lt->post_normed, lw->post_norm);
	entry_end(d);
	fsdp_mlp(d, lt, lw, l);
	scope_entry_begin(d, F_LAYER);
	fsdp_layer_entry(d, tr, l);
	entry_end(d);
}

static void fsdp_model_entry(struct verl_dump *d, const struct trace *tr)
{
	scope_entry_begin(d, F_CAUSAL);
	empty_list(d, "input_args");
	open_dict(d, "input_kwargs");
	kwarg_tensor(d, "input_ids", token_ids(d, tr->ids));
	kwarg_none(d, "attention_mask");
	kwarg_tensor(d, "position_ids", token_ids(d, tr->positions));
	kwarg_none(d, "past_key_values");
	kwarg_none(d, "inputs_embeds");
	kwarg_bool(d, "use_cache", false);
	kwarg_none(d, "cache_position");
	close_dict(d);
	open_list(d, "output");
	genio_json_open(&d->json, '{'); /* BaseModelOutputWithPast */
	genio_json_key(&d->json, "last_hidden_state");
	put_tensor(d, "output.0.last_hidden_state", activation(d, tr->normed, HIDDEN));
	genio_json_close(&d->json, '}');
	close_list(d);
	empty_dict(d, "parameters");
	entry_end(d);
}

static void fsdp_forward(struct verl_dump *d, const struct trace *tr, const struct weights *w)
{
	scope_enter(d, -1, "Qwen2Model");
	entry_begin(d, -1, "embed_tokens.Embedding", "forward.0", F_EMBED);
	one_input(d, token_ids(d, tr->ids));
	one_output(d, activation(d, tr->embedded, HIDDEN), false);
	weight_only(d, parameter(d, w->embed, VOCAB, HIDDEN));
	entry_end(d);

	entry_begin(d, -1, "rotary_emb.Qwen2RotaryEmbedding", "forward.0", F_ROTARY);
	open_list(d, "input_args");
	put_tensor(d, "input.0", no_grad(activation(d, tr->embedded, HIDDEN)));
	put_tensor(d, "input.1", token_ids(d, tr->positions));
	close_list(d);
	empty_dict(d, "input_kwargs");
	open_list(d, "output");
	put_tensor(d, "output.0", no_grad(activation(d, tr->cos, HEAD_DIM)));
	put_tensor(d, "output.1", no_grad(activation(d, tr->sin, HEAD_DIM)));
	close_list(d);
	empty_dict(d, "parameters");
	entry_end(d);

	for (int l = 0; l < LAYERS; l++)
		fsdp_layer(d, tr, w, l);
	entry_begin(d, -1, "norm.Qwen2RMSNorm", "forward.0", F_NORM);
	fsdp_norm(d, tr->layer[LAYERS - 1].output, tr->normed, w->final_norm);
	entry_end(d);
	fsdp_model_entry(d, tr);
}

/* A module's backward: input = the gradients at its inputs, output = those at its outputs. */
static void backward_entry(struct verl_dump *d, int layer, const char *module, const float *grad_in, int in_width,
			   const float *grad_out)
{
	entry_begin(d, layer, module, "backward.0", NO_SITE);
	open_list(d, "input");
	if (grad_in)
		put_tensor(d, "input.0", no_grad(activation(d, grad_in, in_width)));
	close_list(d);
	open_list(d, "output");
	put_tensor(d, "output.0", no_grad(activation(d, grad_out, HIDDEN)));
	close_list(d);
	entry_end(d);
}

/*
 * The backward part: loss.backward() reaching Qwen2Model and the final
 * norm, the checkpoint recomputing layer 1 (the entries msprobe saw:
 * input_layernorm, down_proj, the layer; values as in forward.0), layer
 * 1's down_proj backward and its weight's gradient.
 */
static void fsdp_backward(struct verl_dump *d, const struct trace *tr, const struct weights *w)
{
	enum { L = LAYERS - 1 };
	const struct layer_trace *lt = &tr->layer[L];
	struct view grad_weight = no_grad(parameter(d, tr->grad_down_weight, HIDDEN, FFN));

	backward_entry(d, -1, "Qwen2Model", NULL, 0, tr->grad_normed);
	backward_entry(d, -1, "norm.Qwen2RMSNorm", tr->grad_final_in, HIDDEN, tr->grad_normed);
	entry_begin(d, L, "input_layernorm.Qwen2RMSNorm", "forward.1", F_RE_INPUT_NORM);
	fsdp_norm(d, lt->input, lt->normed, w->layer[L].input_norm);
	entry_end(d);
	fsdp_down_proj(d, lt, &w->layer[L], L, "forward.1", F_RE_MLP_LINE);
	entry_begin(d, L, "Qwen2DecoderLayer", "forward.1", F_RECOMPUTE);
	fsdp_layer_entry(d, tr, L);
	entry_end(d);
	backward_entry(d, L, "mlp.down_proj.Linear", tr->grad_down_in, FFN, tr->grad_final_in);
	entry_begin(d, L, "mlp.down_proj.Linear", "parameters_grad", NO_SITE);
	open_list(d, "weight");
	put_tensor(d, "weight", grad_weight);
	close_list(d);
	entry_end(d);
}

/* ------------------------------------------------------------------ */
/* mcore's GPTModel, TransformerEngine spec (the target of --backend megatron) */

static void identity_entry(struct verl_dump *d, int l, const char *module, int site, struct view x)
{
	entry_begin(d, l, module, "forward.0", site);
	passing_entry(d, x, x, false);
	entry_end(d);
}

/* A TELayerNormColumnParallelLinear: normalises its input with layer_norm_weight, then the linear. */
static void te_norm_linear(struct verl_dump *d, const float *in, const float *out, int out_dim, const float *weight,
			   const float *bias, const float *norm_weight)
{
	one_input(d, activation(d, in, HIDDEN));
	one_output(d, activation(d, out, out_dim), true);
	open_dict(d, "parameters");
	param(d, "weight", parameter(d, weight, out_dim, HIDDEN));
	if (bias)
		param(d, "bias", parameter(d, bias, 0, out_dim));
	param(d, "layer_norm_weight", parameter(d, norm_weight, 0, HIDDEN));
	close_dict(d);
}

/* TEDotProductAttention: query, key, value [T, 1, heads, d] and the attention mask (None). */
static void te_attention_entry(struct verl_dump *d, const struct layer_trace *lt, int l)
{
	entry_begin(d, l, "self_attention.core_attention.TEDotProductAttention", "forward.0", M_CORE);
	open_list(d, "input_args");
	put_tensor(d, "input.0", heads(d, lt->q_rot, HEADS));
	put_tensor(d, "input.1", heads(d, lt->k_rot, KV_HEADS));
	put_tensor(d, "input.2", heads(d, lt->v, KV_HEADS));
	put_none(d);
	close_list(d);
	open_dict(d, "input_kwargs");
	kwarg_none(d, "attn_mask_type");
	kwarg_none(d, "attention_bias");
	kwarg_none(d, "packed_seq_params");
	close_dict(d);
	one_output(d, activation(d, lt->attn, Q_DIM), false);
	empty_dict(d, "parameters");
	entry_end(d);
}

static void megatron_attention(struct verl_dump *d, const struct trace *tr, const struct layer_weights *lw, int l)
{
	const struct layer_trace *lt = &tr->layer[l];

	scope_enter(d, l, "self_attention.SelfAttention");
	entry_begin(d, l, "self_attention.linear_qkv.TELayerNormColumnParallelLinear", "forward.0", M_QKV);
	te_norm_linear(d, lt->input, lt->qkv, QKV_DIM, lw->qkv, lw->qkv_bias, lw->input_norm);
	entry_end(d);
	/* q and k before the rotary embedding, which mcore applies between the norms and the attention */
	identity_entry(d, l, "self_attention.q_layernorm.IdentityOp", M_Q_NORM, heads(d, lt->q, HEADS));
	identity_entry(d, l, "self_attention.k_layernorm.IdentityOp", M_K_NORM, heads(d, lt->k, KV_HEADS));
	te_attention_entry(d, lt, l);
	entry_begin(d, l, "self_attention.linear_proj.TERowParallelLinear", "forward.0", M_PROJ);
	linear_entry(d, activation(d, lt->attn, Q_DIM), activation(d, lt->o, HIDDEN), true, lw->o, HIDDEN, Q_DIM);
	entry_end(d);

	scope_entry_begin(d, M_SELF_ATTN);
	open_list(d, "input_args");
	put_tensor(d, "input.0", activation(d, lt->input, HIDDEN));
	close_list(d);
	open_dict(d, "input_kwargs");
	kwarg_none(d, "attention_mask");
	kwarg_none(d, "inference_context");
	kwarg_tensor(d, "rotary_pos_emb", rotary_angles(d, tr));
	kwarg_none(d, "packed_seq_params");
	kwarg_none(d, "sequence_len_offset");
	close_dict(d);
	one_output(d, activation(d, lt->o, HIDDEN), true);
	empty_dict(d, "parameters");
	entry_end(d);
}

/* The cross-attention path of a decoder-only layer: identities and the bias-dropout-add factory. */
static void megatron_cross_attention(struct verl_dump *d, const struct layer_trace *lt, int l)
{
	identity_entry(d, l, "pre_cross_attn_layernorm.IdentityOp", M_PRE_CROSS, activation(d, lt->mid, HIDDEN));

	entry_begin(d, l, "cross_attention.IdentityOp", "forward.0", M_CROSS);
	open_list(d, "input_args");
	put_tensor(d, "input.0", activation(d, lt->mid, HIDDEN));
	close_list(d);
	open_dict(d, "input_kwargs");
	kwarg_none(d, "attention_mask");
	kwarg_none(d, "key_value_states");
	kwarg_none(d, "inference_context");
	close_dict(d);
	one_output(d, activation(d, lt->mid, HIDDEN), false);
	empty_dict(d, "parameters");
	entry_end(d);

	/* cross_attn_bda(self.training, bias_dropout_fusion) returns a function: no tensor out */
	entry_begin(d, l, "cross_attn_bda.IdentityFuncOp", "forward.0", M_CROSS_BDA);
	open_list(d, "input_args");
	put_scalar(d, "bool", "false");
	put_scalar(d, "bool", "true");
	close_list(d);
	empty_dict(d, "input_kwargs");
	open_list(d, "output");
	put_none(d);
	close_list(d);
	empty_dict(d, "parameters");
	entry_end(d);
}

static void megatron_mlp(struct verl_dump *d, const struct layer_trace *lt, const struct layer_weights *lw, int l)
{
	identity_entry(d, l, "pre_mlp_layernorm.IdentityOp", M_PRE_MLP, activation(d, lt->mid, HIDDEN));
	scope_enter(d, l, "mlp.MLP");
	entry_begin(d, l, "mlp.linear_fc1.TELayerNormColumnParallelLinear", "forward.0", M_FC1);
	te_norm_linear(d, lt->mid, lt->gate_up, 2 * FFN, lw->gate_up, NULL, lw->post_norm);
	entry_end(d);
	entry_begin(d, l, "mlp.linear_fc2.TERowParallelLinear", "forward.0", M_FC2);
	linear_entry(d, activation(d, lt->act, FFN), activation(d, lt->down, HIDDEN), true, lw->down, HIDDEN, FFN);
	entry_end(d);
	scope_entry_begin(d, M_MLP);
	passing_entry(d, activation(d, lt->mid, HIDDEN), activation(d, lt->down, HIDDEN), true);
	entry_end(d);
}

static void megatron_layer(struct verl_dump *d, const struct trace *tr, const struct weights *w, int l)
{
	const struct layer_trace *lt = &tr->layer[l];

	scope_enter(d, l, "TransformerLayer");
	identity_entry(d, l, "input_layernorm.IdentityOp", M_INPUT_NORM, activation(d, lt->input, HIDDEN));
	megatron_attention(d, tr, &w->layer[l], l);
	megatron_cross_attention(d, lt, l);
	megatron_mlp(d, lt, &w->layer[l], l);

	scope_entry_begin(d, M_LAYER);
	empty_list(d, "input_args");
	open_dict(d, "input_kwargs");
	kwarg_tensor(d, "hidden_states", activation(d, lt->input, HIDDEN));
	kwarg_none(d, "attention_mask");
	kwarg_none(d, "context");
	kwarg_none(d, "context_mask");
	kwarg_tensor(d, "rotary_pos_emb", rotary_angles(d, tr));
	kwarg_none(d, "inference_context");
	kwarg_none(d, "packed_seq_params");
	kwarg_none(d, "sequence_len_offset");
	close_dict(d);
	one_output(d, activation(d, lt->output, HIDDEN), true); /* (hidden_states, context None) */
	empty_dict(d, "parameters");
	entry_end(d);
}

static void megatron_embedding(struct verl_dump *d, const struct trace *tr, const struct weights *w)
{
	scope_enter(d, -1, "embedding.LanguageModelEmbedding");
	entry_begin(d, -1, "embedding.word_embeddings.VocabParallelEmbedding", "forward.0", M_WORD_EMB);
	one_input(d, token_ids(d, tr->ids));
	one_output(d, batch_first(d, tr->embedded, HIDDEN), false);
	weight_only(d, parameter(d, w->embed, VOCAB, HIDDEN));
	entry_end(d);
	entry_begin(d, -1, "embedding.embedding_dropout.Dropout", "forward.0", M_DROPOUT);
	passing_entry(d, activation(d, tr->embedded, HIDDEN), activation(d, tr->embedded, HIDDEN), false);
	entry_end(d);
	scope_entry_begin(d, M_EMBEDDING);
	empty_list(d, "input_args");
	open_dict(d, "input_kwargs");
	kwarg_tensor(d, "input_ids", token_ids(d, tr->ids));
	kwarg_tensor(d, "position_ids", token_ids(d, tr->positions));
	close_dict(d);
	one_output(d, activation(d, tr->embedded, HIDDEN), false);
	empty_dict(d, "parameters");
	entry_end(d);

	entry_begin(d, -1, "rotary_pos_emb.RotaryEmbedding", "forward.0", M_ROPE);
	open_list(d, "input_args");
	put_scalar(d, "int", "5"); /* the sequence length */
	close_list(d);
	open_dict(d, "input_kwargs");
	kwarg_bool(d, "packed_seq", true);
	close_dict(d);
	one_output(d, rotary_angles(d, tr), false);
	empty_dict(d, "parameters");
	entry_end(d);
}

static void megatron_decoder(struct verl_dump *d, const struct trace *tr, const struct weights *w)
{
	scope_enter(d, -1, "decoder.TransformerBlock");
	for (int l = 0; l < LAYERS; l++)
		megatron_layer(d, tr, w, l);
	entry_begin(d, -1, "decoder.final_layernorm.RMSNorm", "forward.0", M_FINAL_NORM);
	one_input(d, activation(d, tr->layer[LAYERS - 1].output, HIDDEN));
	one_output(d, activation(d, tr->normed, HIDDEN), false);
	weight_only(d, parameter(d, w->final_norm, 0, HIDDEN));
	entry_end(d);
	scope_entry_begin(d, M_DECODER);
	empty_list(d, "input_args");
	open_dict(d, "input_kwargs");
	kwarg_tensor(d, "hidden_states", activation(d, tr->embedded, HIDDEN));
	kwarg_none(d, "attention_mask");
	kwarg_none(d, "inference_context");
	kwarg_tensor(d, "rotary_pos_emb", rotary_angles(d, tr));
	kwarg_none(d, "packed_seq_params");
	kwarg_none(d, "sequence_len_offset");
	close_dict(d);
	one_output(d, activation(d, tr->normed, HIDDEN), false);
	empty_dict(d, "parameters");
	entry_end(d);
}

/* GPTModel returns the logits (its output_layer is not hooked under verl), batch first. */
static void write_megatron(struct verl_dump *d, const struct trace *tr, const struct weights *w)
{
	scope_enter(d, -1, "GPTModel");
	megatron_embedding(d, tr, w);
	megatron_decoder(d, tr, w);
	scope_entry_begin(d, M_FLOAT16);
	empty_list(d, "input_args");
	open_dict(d, "input_kwargs");
	kwarg_tensor(d, "input_ids", token_ids(d, tr->ids));
	kwarg_tensor(d, "position_ids", token_ids(d, tr->positions));
	kwarg_none(d, "attention_mask");
	kwarg_none(d, "packed_seq_params");
	close_dict(d);
	one_output(d, batch_first(d, tr->logits, VOCAB), false);
	empty_dict(d, "parameters");
	entry_end(d);
}

/* ------------------------------------------------------------------ */

static void write_side(const struct verl_config *cfg, enum side side, int rank, const struct trace *tr,
		       const struct weights *w)
{
	struct verl_dump d;
	dump_open(&d, cfg, side, rank);
	if (side == SIDE_INFER) {
		write_infer(&d, tr, w);
	} else if (side == SIDE_FSDP) {
		fsdp_forward(&d, tr, w);
		fsdp_backward(&d, tr, w);
	} else {
		write_megatron(&d, tr, w);
	}
	dump_close(&d);
}

void genverl_write(const struct verl_config *cfg)
{
	struct weights *golden = xmalloc(sizeof(*golden)), *faulty = xmalloc(sizeof(*faulty));
	struct trace *infer = xmalloc(sizeof(*infer)), *train = xmalloc(sizeof(*train));
	enum side training = cfg->backend == VERL_FSDP ? SIDE_FSDP : SIDE_MEGATRON;

	weights_init(golden, cfg->seed);
	*faulty = *golden;
	if (cfg->fault == VERL_FAULT_Q_WEIGHT)
		perturb(faulty->layer[FAULTY_Q_LAYER].qkv, Q_DIM * HIDDEN, cfg->seed, Q_WEIGHT_FAULT_STREAM);
	for (int r = 0; r < cfg->ranks; r++) {
		bool faulty_rank = r == cfg->fault_rank && cfg->fault != VERL_FAULT_NONE;
		run(infer, golden, false, cfg->seed, r);
		run(train, faulty_rank ? faulty : golden, faulty_rank && cfg->fault == VERL_FAULT_DOWN_PROJ, cfg->seed,
		    r);
		write_side(cfg, SIDE_INFER, r, infer, golden);
		write_side(cfg, training, r, train, faulty_rank ? faulty : golden);
	}
	free(golden);
	free(faulty);
	free(infer);
	free(train);
}
