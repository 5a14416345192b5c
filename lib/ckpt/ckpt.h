/*
 * ckpt.h: model checkpoints read as lists of named parameters.
 *
 * ckpt_open() takes a file or a folder, tells its layout by what it holds
 * (never by its name), and indexes its parameters: name, dtype, shape,
 * and where each one's bytes lie.  Nothing of a tensor is read then;
 * ckpt_tensor() opens one parameter as a struct tensor (tensor.h) for the
 * metrics and statistics that read tensors.
 *
 * Layouts:
 *
 *   CKPT_PT          a file written by torch.save (a zip archive): a state
 *                    dict, or any nesting of dicts, OrderedDicts, lists
 *                    and tuples around tensors (a training checkpoint with
 *                    its optimizer).  Each tensor is named by the keys and
 *                    list positions that lead to it, joined by "."
 *                    ("model.fc1.weight", "optimizer.state.0.exp_avg"); a
 *                    file of one tensor has one parameter named "".
 *                    Objects (argparse.Namespace, ...) are not walked.
 *   CKPT_SAFETENSORS a .safetensors file: the 8-byte header length, the
 *                    JSON header (dtype, shape, data_offsets of each
 *                    tensor; __metadata__ skipped), the raw little-endian
 *                    data.  Parameters in the header's order.
 *   CKPT_HF          a Hugging Face model folder: model.safetensors.index.json
 *                    (weight_map: parameter -> shard file) and its shards,
 *                    or model.safetensors alone, or pytorch_model.bin.index.json
 *                    and its .bin shards, or pytorch_model.bin alone; with an
 *                    index, parameters in weight_map's order.
 *   CKPT_MEGATRON    a Megatron-LM / MindSpeed checkpoint in the legacy
 *                    ("torch") format: a folder with
 *                    latest_checkpointed_iteration.txt (N: iter_<N, 7
 *                    digits>; "release": release/), or a folder of
 *                    mp_rank_TT[_PPP][_EEE]/model_optim_rng.pt.  The sizes
 *                    come from `args` of mp_rank_00's file (a Namespace:
 *                    tensor_, pipeline_ and expert_model_parallel_size,
 *                    num_experts); every rank folder those sizes name
 *                    must be there.  The parameters are msprobe's
 *                    (config_check's megatron_loader, 26.0.0): `model`
 *                    (or model0, model1, ... for virtual pipeline stages),
 *                    dicts only, names joined by "." and rewritten by its
 *                    name_mapping.yaml, `_extra_state` left out;
 *                    tensor-parallel shards concatenated (a name holding
 *                    linear_qkv, linear_fc1, word_embeddings.weight or
 *                    output_layer.weight on dimension 0, linear_fc2.weight
 *                    or linear_proj.weight on dimension 1, anything else
 *                    replicated: rank 0's, with a warning when another
 *                    rank's differs); layer i of pipeline stage p (virtual
 *                    stage v) renumbered i + (pp * v + p) * L, L the
 *                    layers of stage 0; expert e of expert rank r
 *                    renumbered e + r * num_experts / ep.  As msprobe's
 *                    rule has it, a replicated layer norm whose name holds
 *                    linear_fc1 (TransformerEngine's
 *                    mlp.linear_fc1.layer_norm_weight) is concatenated:
 *                    TP copies side by side.  Parameters in msprobe's
 *                    order: expert rank, pipeline stage, then the order of
 *                    tensor-parallel rank 0's state dict; a name two
 *                    stages or expert ranks give (the non-expert
 *                    parameters of every expert rank) keeps its first
 *                    place and the last one's tensor.
 *
 * What stays mapped and what is merged in memory: a parameter whose bytes
 * lie in one file as they are (every parameter of CKPT_PT, CKPT_SAFETENSORS
 * and CKPT_HF, and the replicated ones of CKPT_MEGATRON) is opened where it
 * lies, the file mapped (tplace.h); a parameter concatenated from
 * tensor-parallel shards is built in memory, its size in bytes, when it is
 * opened, and freed by tensor_close().  A deflated zip entry is inflated
 * into memory.
 *
 * A name two places give (a .pt whose dicts make the same dotted name
 * twice) keeps the first place and the last tensor, with a warning.
 *
 * Errors follow msg.h and name the file and the member: "A/iter_0000010/
 * mp_rank_01/model_optim_rng.pt: entry model_optim_rng/data/3 holds 16
 * bytes but its storage is ...", "m.safetensors: tensor \"w\": its
 * data_offsets [0, 96] hold 96 bytes, and float32 [4, 8] takes 128", "...:
 * data.pkl byte 41: truncated: ...".  A checkpoint with no parameter is an
 * error.
 *
 * Memory: the index (names, shapes, places: a few hundred bytes a
 * parameter); each .pt's data.pkl is run once, when the checkpoint is
 * opened, and its objects freed then.  Reading: ckpt_tensor() opens the
 * file again and maps it (a descriptor per open tensor).  A ckpt is
 * read-only once open: any number of threads may call ckpt_tensor() and
 * the accessors at once.
 */
#ifndef PROBE_CKPT_H
#define PROBE_CKPT_H

#include "../tensors/tensor.h"

enum ckpt_kind { CKPT_PT, CKPT_SAFETENSORS, CKPT_HF, CKPT_MEGATRON };

/* How a parameter is made of the pieces its files hold. */
enum ckpt_merge {
	CKPT_AS_IS,       /* one piece, where it lies */
	CKPT_CONCAT,      /* tensor-parallel shards concatenated on `axis` (in memory) */
	CKPT_REPLICATED,  /* the same on every tensor-parallel rank: rank 0's, where it lies */
};

struct ckpt_param {
	const char *name;
	enum dtype dtype;
	int ndim;
	const int64_t *shape;      /* ndim sizes (merged) */
	int64_t numel;
	enum ckpt_merge merge;
	int axis;                  /* CKPT_CONCAT: the dimension */
	const char *file;          /* the file of its first piece (rank 0's shard) */
	/* private: its pieces */
	uint32_t first, npieces;
};

/* What a Megatron checkpoint's args say (all 1 and num_experts 0 for the other layouts). */
struct ckpt_parallel {
	int64_t tp, pp, ep, num_experts, vpp;
	int64_t iteration;         /* from the tracker file or the iter_ folder; -1 for release or none */
};

struct ckpt;

/* 0 and *ck, or -1 with "PATH: what" in err. */
int ckpt_open(struct ckpt **ck, const char *path, struct strbuf *err);
void ckpt_close(struct ckpt *ck);

enum ckpt_kind ckpt_kind(const struct ckpt *ck);
/* "pt", "safetensors", "hf", "megatron" */
const char *ckpt_kind_name(enum ckpt_kind k);
/* The path as given, and what was read: the file, the folder, a Megatron checkpoint's iteration folder. */
const char *ckpt_path(const struct ckpt *ck);
const char *ckpt_root(const struct ckpt *ck);
const struct ckpt_parallel *ckpt_parallel(const struct ckpt *ck);

size_t ckpt_count(const struct ckpt *ck);
const struct ckpt_param *ckpt_param(const struct ckpt *ck, size_t i);
/* The index of the parameter called name (len bytes), or -1. */
long ckpt_find(const struct ckpt *ck, const char *name, size_t len);

/* Parameter i as a tensor (tensor_close() it): 0, or -1 with "FILE: what" in err. */
int ckpt_tensor(const struct ckpt *ck, size_t i, struct tensor *t, struct strbuf *err);

/*
 * Whether path is a checkpoint ckpt_open() would read (a .pt of more than
 * one tensor or with a dict around it, a .safetensors file, a folder of
 * one of the layouts above), looked at cheaply (names and first bytes);
 * a .pt of one tensor alone is not (it is a dump's tensor file).
 */
bool ckpt_looks_like(const char *path);

/*
 * For readers of records (probe-metric, probe-first): parameter `name` of
 * the checkpoint at `path`, through a cache of the checkpoints opened so
 * far in this process, so that a file's data.pkl is run once however many
 * of its parameters are asked for.  Thread-safe; what it opened stays open
 * until the process ends.  0, or -1 with the message in err.
 */
int ckpt_cached_tensor(const char *path, const char *name, size_t len, struct tensor *t, struct strbuf *err);

#endif
