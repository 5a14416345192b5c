/* genckpt.c: example checkpoints of two runs (genckpt.h). */
#include "genckpt.h"
#include "genio.h"
#include "../core/msg.h"
#include "../core/partial.h"
#include "../core/xalloc.h"
#include "../tensors/tensorw.h"

#define ITERATION 10

enum split { SPLIT_NONE, SPLIT_ROWS, SPLIT_COLS }; /* dimension 0 (column parallel), dimension 1 (row parallel) */
enum vkind { V_WEIGHT, V_BIAS, V_NORM };

struct gparam {
	const char *tmpl; /* its name, with %d for the layer and then the expert where it has them */
	int layer;        /* its (global) layer, or -1 */
	int expert;       /* its (global) expert, or -1 */
	char name[128];   /* the model's name (global numbers) */
	const char *extra; /* the TransformerEngine module's _extra_state to write after it (Megatron), or NULL */
	int ndim;
	int64_t shape[2];
	enum split split;
	enum vkind vk;
	uint32_t id;
};

struct model {
	struct gparam *p;
	size_t n, alloc;
	int64_t fault_at; /* perturb: the element */
};

static struct gparam *add_param(struct model *m, const char *tmpl, int layer, int expert, int ndim, int64_t d0,
				int64_t d1, enum split split, enum vkind vk)
{
	struct gparam *p;
	ALLOC_GROW(m->p, m->n + 1, m->alloc);
	p = &m->p[m->n];
	memset(p, 0, sizeof(*p));
	p->tmpl = tmpl;
	p->layer = layer;
	p->expert = expert;
	snprintf(p->name, sizeof(p->name), tmpl, layer, expert);
	p->ndim = ndim;
	p->shape[0] = d0;
	p->shape[1] = d1;
	p->split = split;
	p->vk = vk;
	p->id = (uint32_t)m->n++;
	return p;
}

/* The dense MLP of a layer (fixture ck01's), or with experts its router and each expert's two linears. */
static void add_mlp(struct model *m, const struct genckpt_config *c, int g)
{
	int64_t w = c->width;
	struct gparam *p;
	if (!c->experts) {
		add_param(m, "decoder.layers.%d.mlp.linear_fc1.layer_norm_weight", g, -1, 1, w, 1, SPLIT_NONE, V_NORM);
		p = add_param(m, "decoder.layers.%d.mlp.linear_fc1.weight", g, -1, 2, 4 * w, w, SPLIT_ROWS, V_WEIGHT);
		p->extra = "mlp.linear_fc1._extra_state";
		p = add_param(m, "decoder.layers.%d.mlp.linear_fc2.weight", g, -1, 2, w, 2 * w, SPLIT_COLS, V_WEIGHT);
		p->extra = "mlp.linear_fc2._extra_state";
		return;
	}
	add_param(m, "decoder.layers.%d.pre_mlp_layernorm.weight", g, -1, 1, w, 1, SPLIT_NONE, V_NORM);
	add_param(m, "decoder.layers.%d.mlp.router.weight", g, -1, 2, c->experts, w, SPLIT_NONE, V_WEIGHT);
	for (int e = 0; e < c->experts; e++) {
		add_param(m, "decoder.layers.%d.mlp.experts.local_experts.%d.linear_fc1.weight", g, e, 2, 4 * w, w,
			  SPLIT_ROWS, V_WEIGHT);
		add_param(m, "decoder.layers.%d.mlp.experts.local_experts.%d.linear_fc2.weight", g, e, 2, w, 2 * w,
			  SPLIT_COLS, V_WEIGHT);
	}
}

static void build_model(const struct genckpt_config *c, struct model *m)
{
	int64_t w = c->width;
	struct gparam *p;
	memset(m, 0, sizeof(*m));
	add_param(m, "embedding.word_embeddings.weight", -1, -1, 2, 2 * w, w, SPLIT_ROWS, V_WEIGHT);
	for (int g = 0; g < c->layers; g++) {
		add_param(m, "decoder.layers.%d.self_attention.linear_qkv.layer_norm_weight", g, -1, 1, w, 1, SPLIT_NONE,
			  V_NORM);
		p = add_param(m, "decoder.layers.%d.self_attention.linear_qkv.weight", g, -1, 2, 3 * w, w, SPLIT_ROWS,
			      V_WEIGHT);
		p->extra = "self_attention.linear_qkv._extra_state";
		add_param(m, "decoder.layers.%d.self_attention.linear_qkv.bias", g, -1, 1, 3 * w, 1, SPLIT_ROWS, V_BIAS);
		p = add_param(m, "decoder.layers.%d.self_attention.linear_proj.weight", g, -1, 2, w, w, SPLIT_COLS,
			      V_WEIGHT);
		p->extra = "self_attention.linear_proj._extra_state";
		add_mlp(m, c, g);
	}
	add_param(m, "decoder.final_layernorm.weight", -1, -1, 1, w, 1, SPLIT_NONE, V_NORM);
	add_param(m, "output_layer.weight", -1, -1, 2, 2 * w, w, SPLIT_ROWS, V_WEIGHT);
}

/*
 * Where a parameter lies in Megatron's ranks: the pipeline rank and virtual
 * stage of its model chunk (layer g in chunk g / Lc, Lc = L / (pp x vpp),
 * chunk k on pipeline rank k % pp as its virtual stage k / pp), its local
 * layer, its expert-parallel rank and local expert.  The embedding is the
 * first chunk's, the final norm and the output layer the last's.
 */
struct place {
	int pp_rank, vpp, layer, ep_rank, expert;
};

static void place_of(const struct genckpt_config *c, const struct gparam *p, struct place *at)
{
	int per_chunk = c->layers / (c->pp * c->vpp), chunk;
	int per_rank = c->experts ? c->experts / c->ep : 0;
	if (p->layer >= 0)
		chunk = p->layer / per_chunk;
	else
		chunk = strncmp(p->name, "embedding.", 10) ? c->pp * c->vpp - 1 : 0;
	at->pp_rank = chunk % c->pp;
	at->vpp = chunk / c->pp;
	at->layer = p->layer >= 0 ? p->layer % per_chunk : -1;
	if (p->expert >= 0 && per_rank > 0) { /* an expert's parameter: the model has experts */
		at->ep_rank = p->expert / per_rank;
		at->expert = p->expert % per_rank;
	} else {
		at->ep_rank = at->expert = -1; /* ep_rank -1: on every expert rank */
	}
}

static const struct gparam *find_param(const struct model *m, const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->p[i].name, name))
			return &m->p[i];
	return NULL;
}

/* ---- one run's view of a parameter ---- */

struct run {
	const struct genckpt_config *c;
	const struct model *m;
	bool target;
	const struct gparam *fault; /* the parameter the target's difference touches */
};

static bool missing(const struct run *r, const struct gparam *p)
{
	return r->target && r->c->fault == GENCKPT_MISSING && p == r->fault;
}

static enum dtype dtype_of(const struct run *r, const struct gparam *p)
{
	return r->target && r->c->fault == GENCKPT_DTYPE && p == r->fault ? DT_FLOAT32 : r->c->dtype;
}

/* The global shape in this run (reshape: 8 more rows a tensor-parallel rank). */
static void shape_of(const struct run *r, const struct gparam *p, int64_t shape[2])
{
	shape[0] = p->shape[0];
	shape[1] = p->shape[1];
	if (r->target && r->c->fault == GENCKPT_RESHAPE && p == r->fault)
		shape[0] += 8 * (r->c->layout == GENCKPT_MEGATRON ? r->c->tp : 1);
}

/* ---- elements ---- */

struct fill {
	const struct run *r;
	const struct gparam *p;
	enum dtype dtype;
	int rank, parts;         /* the tensor-parallel shard: rank of parts (1: the whole tensor) */
	enum split split;
	int64_t rows, cols;      /* the global shape, as 2-D */
	uint64_t key;
	unsigned size;
};

/* Element g (row-major, global) of the parameter, before rounding to the dtype. */
static float value_at(const struct fill *f, int64_t g)
{
	uint64_t s = f->key + (uint64_t)g * UINT64_C(0xd1b54a32d192ed03);
	float u = (float)(genio_splitmix64(&s) >> 40) * 0x1p-24f * 2.0f - 1.0f, x;
	switch (f->p->vk) {
	case V_NORM: x = 1.0f + 0.05f * u; break;
	case V_BIAS: x = 0.01f * u; break;
	default: x = 0.02f * u; break;
	}
	if (f->r->target && f->r->c->fault == GENCKPT_PERTURB && f->p == f->r->fault && g == f->r->m->fault_at)
		x = 1.5f * x + 0.01f;
	return x;
}

/* The global index of element e of the shard. */
static int64_t global_index(const struct fill *f, int64_t e)
{
	switch (f->split) {
	case SPLIT_ROWS:
		return (int64_t)f->rank * (f->rows / f->parts) * f->cols + e;
	case SPLIT_COLS: {
		int64_t c = f->cols / f->parts;
		return e / c * f->cols + (int64_t)f->rank * c + e % c;
	}
	default:
		return e;
	}
}

static void fill_elements(void *ctx, uint64_t at, void *buf, size_t len)
{
	const struct fill *f = ctx;
	unsigned char *out = buf;
	int64_t first = (int64_t)(at / f->size), n = (int64_t)(len / f->size);
	for (int64_t i = 0; i < n; i++) {
		/* rounded to the run's dtype first: a parameter saved wider (the dtype fault) holds the same values */
		float x = (float)genio_round_to(f->r->c->dtype, value_at(f, global_index(f, first + i)));
		if (f->dtype == DT_BFLOAT16) {
			uint16_t v = dtype_float_to_bf16(x);
			memcpy(out + 2 * i, &v, 2);
		} else if (f->dtype == DT_FLOAT16) {
			uint16_t v = dtype_float_to_half(x);
			memcpy(out + 2 * i, &v, 2);
		} else {
			memcpy(out + 4 * i, &x, 4);
		}
	}
}

struct fills {
	struct fill **v;
	size_t n, alloc;
};

static void fills_release(struct fills *fl)
{
	for (size_t i = 0; i < fl->n; i++)
		free(fl->v[i]);
	free(fl->v);
	memset(fl, 0, sizeof(*fl));
}

/*
 * A tensor of the tree: the parameter's shard `rank` of `parts` (its fill
 * kept in fl, which outlives the writing); its shape into shape_out, its
 * storage node into *storage when not NULL.
 */
static tensorw_node add_tensor(struct tensorw_tree *t, const struct run *r, const struct gparam *p, int rank, int parts,
			       struct fills *fl, int64_t shape_out[2], tensorw_node *storage)
{
	int64_t shape[2];
	struct fill *f;
	tensorw_node st;
	shape_of(r, p, shape);
	ALLOC_GROW(fl->v, fl->n + 1, fl->alloc);
	f = xcalloc(1, sizeof(*f));
	fl->v[fl->n++] = f;
	f->r = r;
	f->p = p;
	f->dtype = dtype_of(r, p);
	f->size = dtype_info(f->dtype)->size;
	f->rank = rank;
	f->parts = parts;
	f->split = parts > 1 ? p->split : SPLIT_NONE;
	f->rows = shape[0];
	f->cols = p->ndim == 2 ? shape[1] : 1;
	f->key = genio_rng_stream(r->c->seed, 0xC4C4, p->id, 0, 0);
	shape_out[0] = shape[0];
	shape_out[1] = shape[1];
	if (f->split == SPLIT_ROWS)
		shape_out[0] /= parts;
	else if (f->split == SPLIT_COLS)
		shape_out[1] /= parts;
	st = tensorw_storage(t, f->dtype, shape_out[0] * (p->ndim == 2 ? shape_out[1] : 1), NULL, fill_elements, f);
	if (storage)
		*storage = st;
	return tensorw_tensor(t, st, 0, p->ndim, shape_out, NULL, false);
}

static void write_tree(const char *path, struct tensorw_tree *t, tensorw_node root)
{
	struct strbuf err = STRBUF_INIT;
	struct pt_options opt = { .layout = PT_TORCH2 };
	if (tensorw_pt_tree(path, t, root, &opt, &err))
		die("%s", err.buf);
	strbuf_release(&err);
}

/* ---- Megatron ---- */

static tensorw_node megatron_args(struct tensorw_tree *t, const struct genckpt_config *c)
{
	tensorw_node a = tensorw_namespace(t), enum_args = tensorw_tuple(t);
	tensorw_put(t, a, "tensor_model_parallel_size", tensorw_int(t, c->tp));
	tensorw_put(t, a, "pipeline_model_parallel_size", tensorw_int(t, c->pp));
	tensorw_put(t, a, "expert_model_parallel_size", tensorw_int(t, c->ep));
	tensorw_put(t, a, "num_experts", c->experts ? tensorw_int(t, c->experts) : tensorw_none(t));
	if (c->vpp > 1)
		tensorw_put(t, a, "num_layers_per_virtual_pipeline_stage", tensorw_int(t, c->layers / (c->pp * c->vpp)));
	tensorw_put(t, a, "num_layers", tensorw_int(t, c->layers));
	tensorw_put(t, a, "hidden_size", tensorw_int(t, c->width));
	tensorw_put(t, a, "ffn_hidden_size", tensorw_int(t, 2 * c->width));
	tensorw_put(t, a, "num_attention_heads", tensorw_int(t, 2));
	tensorw_put(t, a, "padded_vocab_size", tensorw_int(t, 2 * c->width));
	tensorw_put(t, a, "params_dtype", tensorw_dtype(t, c->dtype));
	tensorw_put(t, a, "bf16", tensorw_bool(t, c->dtype == DT_BFLOAT16));
	tensorw_put(t, a, "lr", tensorw_float(t, 1e-4));
	tensorw_put(t, a, "transformer_impl", tensorw_str(t, "transformer_engine"));
	tensorw_put(t, a, "swiglu", tensorw_bool(t, true));
	tensorw_append(t, enum_args, tensorw_int(t, 5));
	tensorw_put(t, a, "attention_backend",
		    tensorw_object(t, "megatron.core.transformer.enums", "AttnBackend", enum_args, false, 0));
	tensorw_put(t, a, "iteration", tensorw_int(t, ITERATION));
	tensorw_put(t, a, "ckpt_format", tensorw_str(t, "torch"));
	return a;
}

/* rng_state: Python's random state (a tuple), numpy's (an object), torch's (a uint8 tensor), as Megatron keeps them. */
static tensorw_node megatron_rng(struct tensorw_tree *t)
{
	static const unsigned char torch_state[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	tensorw_node list = tensorw_list(t), d = tensorw_dict(t, false), py = tensorw_tuple(t), ints = tensorw_tuple(t);
	tensorw_node np_args = tensorw_tuple(t), np_shape = tensorw_tuple(t), np_state = tensorw_tuple(t);
	tensorw_node codec_args = tensorw_tuple(t);
	int64_t sixteen = 16;
	for (int i = 1; i <= 3; i++)
		tensorw_append(t, ints, tensorw_int(t, i));
	tensorw_append(t, py, tensorw_int(t, 3));
	tensorw_append(t, py, ints);
	tensorw_append(t, py, tensorw_none(t));
	tensorw_append(t, np_shape, tensorw_int(t, 0));
	tensorw_append(t, np_args, tensorw_int(t, 0));
	tensorw_append(t, np_args, np_shape);
	tensorw_append(t, np_args, tensorw_str(t, "b"));
	tensorw_append(t, codec_args, tensorw_str(t, "\x01\x02\x03\x04"));
	tensorw_append(t, codec_args, tensorw_str(t, "latin1"));
	tensorw_append(t, np_state, tensorw_int(t, 1));
	tensorw_append(t, np_state, tensorw_str(t, "uint32"));
	tensorw_append(t, np_state, tensorw_object(t, "_codecs", "encode", codec_args, false, 0));
	tensorw_put(t, d, "random_rng_state", py);
	tensorw_put(t, d, "np_rng_state",
		    tensorw_object(t, "numpy.core.multiarray", "_reconstruct", np_args, true, np_state));
	tensorw_put(t, d, "torch_rng_state",
		    tensorw_tensor(t, tensorw_storage(t, DT_UINT8, 16, torch_state, NULL, NULL), 0, 1, &sixteen, NULL,
				   false));
	tensorw_put(t, d, "cuda_rng_state", tensorw_none(t));
	tensorw_put(t, d, "rng_tracker_states", tensorw_dict(t, false));
	tensorw_append(t, list, d);
	return list;
}

/* TransformerEngine's _extra_state: None, or (fc2's) an empty uint8 tensor, which readers must leave out. */
static tensorw_node extra_state(struct tensorw_tree *t, const char *name)
{
	static const unsigned char none[1] = { 0 };
	int64_t zero = 0;
	if (strstr(name, "linear_fc2"))
		return tensorw_tensor(t, tensorw_storage(t, DT_UINT8, 0, none, NULL, NULL), 0, 1, &zero, NULL, false);
	return tensorw_none(t);
}

/* The local name of a parameter in a rank's file: its layer within its chunk, its expert within its rank. */
static void local_name(const struct genckpt_config *c, const struct gparam *p, struct strbuf *out)
{
	struct place at;
	place_of(c, p, &at);
	strbuf_reset(out);
	strbuf_addf(out, p->tmpl, at.layer, at.expert);
}

static void write_megatron_rank(const struct run *r, const char *dir, int tp_rank, int pp_rank, int ep_rank)
{
	const struct genckpt_config *c = r->c;
	struct tensorw_tree *t = tensorw_tree_new();
	struct fills fl = { 0 };
	const int vpp = c->vpp; /* a local: the calls below could change *c for all the analyzer knows */
	tensorw_node root = tensorw_dict(t, false), model[GENCKPT_MAX_PARALLEL];
	struct strbuf path = STRBUF_INIT, name = STRBUF_INIT;
	int64_t shape[2];

	tensorw_put(t, root, "args", megatron_args(t, c));
	tensorw_put(t, root, "checkpoint_version", tensorw_float(t, 3.0));
	tensorw_put(t, root, "iteration", tensorw_int(t, ITERATION));
	for (int v = 0; v < vpp; v++)
		model[v] = tensorw_dict(t, true);
	for (size_t i = 0; i < r->m->n; i++) {
		const struct gparam *p = &r->m->p[i];
		struct place at;
		place_of(c, p, &at);
		if (at.pp_rank != pp_rank || (at.ep_rank >= 0 && at.ep_rank != ep_rank) || missing(r, p))
			continue;
		if (at.vpp < 0 || at.vpp >= vpp) /* place_of() keeps a layer's chunk below pp x vpp */
			die("genckpt: %s: virtual stage %d of %d", p->name, at.vpp, vpp);
		local_name(c, p, &name);
		tensorw_put(t, model[at.vpp], name.buf,
			    add_tensor(t, r, p, p->split == SPLIT_NONE ? 0 : tp_rank, p->split == SPLIT_NONE ? 1 : c->tp,
				       &fl, shape, NULL));
		if (p->extra) {
			strbuf_reset(&name);
			strbuf_addf(&name, "decoder.layers.%d.%s", at.layer, p->extra);
			tensorw_put(t, model[at.vpp], name.buf, extra_state(t, p->extra));
		}
	}
	if (vpp == 1) {
		tensorw_put(t, root, "model", model[0]);
	} else {
		for (int v = 0; v < vpp; v++) {
			strbuf_reset(&name);
			strbuf_addf(&name, "model%d", v);
			tensorw_put(t, root, name.buf, model[v]);
		}
	}
	tensorw_put(t, root, "rng_state", megatron_rng(t));
	tensorw_put(t, root, "num_floating_point_operations_so_far", tensorw_int(t, 0));

	strbuf_addf(&path, "%s/iter_%07d/mp_rank_%02d", dir, ITERATION, tp_rank);
	if (c->pp > 1)
		strbuf_addf(&path, "_%03d", pp_rank);
	if (c->ep > 1)
		strbuf_addf(&path, "_%03d", ep_rank);
	genio_mkdirs(path.buf);
	strbuf_addstr(&path, "/model_optim_rng.pt");
	write_tree(path.buf, t, root);
	strbuf_release(&path);
	strbuf_release(&name);
	fills_release(&fl);
	tensorw_tree_free(t);
}

static void write_text_file(const char *path, const char *text)
{
	struct strbuf err = STRBUF_INIT;
	if (partial_write_file(path, text, strlen(text), &err) < 0)
		die("%s", err.buf);
	strbuf_release(&err);
}

static void write_megatron(const struct run *r, const char *dir)
{
	struct strbuf path = STRBUF_INIT;
	char it[16];
	for (int e = 0; e < r->c->ep; e++)
		for (int p = 0; p < r->c->pp; p++)
			for (int t = 0; t < r->c->tp; t++)
				write_megatron_rank(r, dir, t, p, e);
	strbuf_addf(&path, "%s/latest_checkpointed_iteration.txt", dir);
	snprintf(it, sizeof(it), "%d", ITERATION);
	write_text_file(path.buf, it);
	strbuf_release(&path);
}

/* ---- a whole state dict: .pt, safetensors, Hugging Face shards ---- */

static void write_pt(const struct run *r, const char *dir)
{
	struct tensorw_tree *t = tensorw_tree_new();
	struct fills fl = { 0 };
	tensorw_node sd = tensorw_dict(t, true);
	struct strbuf path = STRBUF_INIT;
	int64_t shape[2];
	for (size_t i = 0; i < r->m->n; i++)
		if (!missing(r, &r->m->p[i]))
			tensorw_put(t, sd, r->m->p[i].name, add_tensor(t, r, &r->m->p[i], 0, 1, &fl, shape, NULL));
	genio_mkdirs(dir);
	strbuf_addf(&path, "%s/model.pt", dir);
	write_tree(path.buf, t, sd);
	strbuf_release(&path);
	fills_release(&fl);
	tensorw_tree_free(t);
}

/* Parameters [from, to) of the model into one safetensors file; their bytes added to *total. */
static void write_safetensors_file(const struct run *r, const char *path, size_t from, size_t to, uint64_t *total)
{
	static const char *const metadata[] = { "format", "pt" };
	struct tensorw_tree *t = tensorw_tree_new();
	struct fills fl = { 0 };
	struct tensorw_named *v = xcalloc(to - from + 1, sizeof(*v));
	int64_t (*shapes)[2] = xcalloc(to - from + 1, sizeof(*shapes));
	struct strbuf err = STRBUF_INIT;
	size_t n = 0;
	for (size_t i = from; i < to; i++) {
		const struct gparam *p = &r->m->p[i];
		if (missing(r, p))
			continue;
		add_tensor(t, r, p, 0, 1, &fl, shapes[n], &v[n].storage);
		v[n].name = p->name;
		v[n].ndim = p->ndim;
		v[n].shape = shapes[n];
		*total += (uint64_t)shapes[n][0] * (uint64_t)(p->ndim == 2 ? shapes[n][1] : 1) *
			  dtype_info(dtype_of(r, p))->size;
		n++;
	}
	if (tensorw_safetensors(path, t, v, n, metadata, 1, &err) < 0)
		die("%s", err.buf);
	strbuf_release(&err);
	free(v);
	free(shapes);
	fills_release(&fl);
	tensorw_tree_free(t);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp((*(const struct gparam *const *)a)->name, (*(const struct gparam *const *)b)->name);
}

static void write_hf(const struct run *r, const char *dir)
{
	int shards = r->c->shards;
	struct strbuf path = STRBUF_INIT;
	const struct gparam **sorted = xcalloc(r->m->n, sizeof(*sorted));
	int *shard_of = xcalloc(r->m->n, sizeof(*shard_of));
	uint64_t total = 0;
	struct genio_json w;
	char total_text[32];

	genio_mkdirs(dir);
	for (int s = 0; s < shards; s++) {
		size_t from = r->m->n * (size_t)s / (size_t)shards, to = r->m->n * (size_t)(s + 1) / (size_t)shards;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/model-%05d-of-%05d.safetensors", dir, s + 1, shards);
		write_safetensors_file(r, path.buf, from, to, &total);
		for (size_t i = from; i < to; i++)
			shard_of[i] = s;
	}
	for (size_t i = 0; i < r->m->n; i++)
		sorted[i] = &r->m->p[i];
	qsort(sorted, r->m->n, sizeof(*sorted), cmp_names);
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/model.safetensors.index.json", dir);
	genio_json_create(&w, path.buf);
	genio_json_open(&w, '{');
	genio_json_key(&w, "metadata");
	genio_json_open(&w, '{');
	genio_json_key(&w, "total_size");
	snprintf(total_text, sizeof(total_text), "%llu", (unsigned long long)total);
	genio_json_token(&w, total_text);
	genio_json_close(&w, '}');
	genio_json_key(&w, "weight_map");
	genio_json_open(&w, '{');
	for (size_t i = 0; i < r->m->n; i++) {
		const struct gparam *p = sorted[i];
		if (missing(r, p))
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "model-%05d-of-%05d.safetensors", shard_of[p->id] + 1, shards);
		genio_json_key(&w, p->name);
		genio_json_string(&w, path.buf);
	}
	genio_json_close(&w, '}');
	genio_json_close(&w, '}');
	genio_json_commit(&w);
	free(sorted);
	free(shard_of);
	strbuf_release(&path);
}

/* ---- the two runs ---- */

void genckpt_config_init(struct genckpt_config *c)
{
	*c = (struct genckpt_config){ .layout = GENCKPT_MEGATRON, .fault = GENCKPT_PERTURB, .tp = 2, .pp = 2, .vpp = 1,
				      .ep = 1, .layers = 4, .width = 16, .shards = 2, .dtype = DT_BFLOAT16, .seed = 1 };
}

int genckpt_fault_parse(const char *s)
{
	static const char *const names[] = { "none", "perturb", "missing", "reshape", "dtype" };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i]))
			return (int)i;
	return -1;
}

const char *genckpt_config_problem(const struct genckpt_config *c)
{
	bool mg = c->layout == GENCKPT_MEGATRON;
	int tp = mg ? c->tp : 1, pp = mg ? c->pp : 1, vpp = mg ? c->vpp : 1, ep = mg ? c->ep : 1;
	if (tp < 1 || pp < 1 || vpp < 1 || ep < 1 || tp > GENCKPT_MAX_PARALLEL || pp > GENCKPT_MAX_PARALLEL ||
	    vpp > GENCKPT_MAX_PARALLEL || ep > GENCKPT_MAX_PARALLEL)
		return "the parallel sizes go from 1 to 64";
	if (c->width % tp)
		return "--width must be a multiple of --tp";
	if (c->layers % (pp * vpp))
		return "--layers must be a multiple of --pp times --vpp";
	if (c->experts < 0 || c->experts > 1024 || (ep > 1 && !c->experts) || (c->experts && c->experts % ep))
		return "--experts must be a multiple of --ep (and there must be experts when --ep is more than 1)";
	if (c->shards < 1 || (size_t)c->shards > (size_t)c->layers * 7 + 3)
		return "--shards must be between 1 and the number of parameters";
	if (c->dtype != DT_FLOAT32 && c->dtype != DT_BFLOAT16 && c->dtype != DT_FLOAT16)
		return "the checkpoints are float32, bfloat16 or float16";
	return NULL;
}

static void write_run(const struct run *r, const char *dir)
{
	switch (r->c->layout) {
	case GENCKPT_MEGATRON: write_megatron(r, dir); break;
	case GENCKPT_PT: write_pt(r, dir); break;
	case GENCKPT_SAFETENSORS: {
		struct strbuf path = STRBUF_INIT;
		uint64_t total = 0;
		genio_mkdirs(dir);
		strbuf_addf(&path, "%s/model.safetensors", dir);
		write_safetensors_file(r, path.buf, 0, r->m->n, &total);
		strbuf_release(&path);
		break;
	}
	case GENCKPT_HF: write_hf(r, dir); break;
	}
}

void genckpt_write(const struct genckpt_config *c)
{
	struct model m;
	struct strbuf dir = STRBUF_INIT;
	char last_fc2[96];
	const char *problem = genckpt_config_problem(c);
	if (problem)
		die("%s", problem);
	build_model(c, &m);
	if (c->experts)
		snprintf(last_fc2, sizeof(last_fc2), "decoder.layers.%d.mlp.experts.local_experts.%d.linear_fc2.weight",
			 c->layers - 1, c->experts - 1);
	else
		snprintf(last_fc2, sizeof(last_fc2), "decoder.layers.%d.mlp.linear_fc2.weight", c->layers - 1);
	for (int target = 0; target < 2; target++) {
		struct run r = { .c = c, .m = &m, .target = target == 1 };
		switch (c->fault) {
		case GENCKPT_PERTURB: r.fault = find_param(&m, last_fc2); break;
		case GENCKPT_MISSING: r.fault = find_param(&m, "decoder.layers.0.self_attention.linear_qkv.bias"); break;
		case GENCKPT_RESHAPE: r.fault = find_param(&m, "output_layer.weight"); break;
		case GENCKPT_DTYPE: r.fault = find_param(&m, "decoder.final_layernorm.weight"); break;
		case GENCKPT_NONE: break;
		}
		m.fault_at = 2 * (int64_t)c->width - 1; /* fc2 [W, 2W]: row 0, the last column */
		strbuf_reset(&dir);
		strbuf_addf(&dir, "%s/%s", c->outdir, target ? "target" : "golden");
		write_run(&r, dir.buf);
	}
	strbuf_release(&dir);
	free(m.p);
}
