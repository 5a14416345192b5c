/*
 * gendump.c: simulate a small training run and write the msprobe dumps
 * (dump.json, stack.json, construct.json) of a golden run and of a target
 * run with an injected fault.  The tests and `make demo` stand on it.
 *
 * The network is an MLP of --layers Linear layers (widths 8 -> W -> ... ->
 * W -> 4 with W = --width, 16 by default; ReLU between them, none after
 * the last), --batch rows (4), MSE loss against a fixed target y, computed
 * in float32.  The dumps mirror what msprobe (level mix, torch 1.13) writes
 * for it; see ../shared/fixtures/mlp-md5-mix and mlp-tensor-mix for the
 * real thing with the defaults.  In tensor mode every tensor leaf's data is
 * saved too (tensorw.h); --zoo appends the entries described in gendump.h.
 *
 * What is simulated, per step and rank:
 *   - --micro-batches forward+backward passes (gradient accumulation: the
 *     parameters_grad entries show param.grad after each pass, as msprobe's
 *     AccumulateGrad hook sees it);
 *   - with --ranks > 1, one Distributed.all_reduce per parameter (AVG over
 *     the ranks, in model.parameters() order) after the last backward;
 *     msprobe records a collective's output as its positional arguments
 *     followed by its keyword argument values, read after the operation;
 *   - then an SGD update (lr 0.1) that is not dumped (the debugger is
 *     stopped before optimizer.step()).
 * Every rank starts from the same weights (seeded by --seed); x is drawn
 * per rank, step and micro-batch; y is shared.
 *
 * Faults, on rank --fault-rank of the target run only:
 *   fc2-weight       fc2.weight *= 1.01 once, before the first step
 *   fc2-weight-tiny  fc2.weight[0][0] moved up by one float32 ulp, once
 *   input            x[0][0] += 0.5 in every batch
 *   linear1-output   fc2's F.linear adds 1e-3 to its output [0][0] (every call)
 *   nan              fc2's F.linear output [0][0] becomes NaN (every call)
 *   grad             the ReLU backward after fc2 hands fc2's backward its grad * 1.01
 *   dtype            fc2's F.linear returns float16 (every call)
 *   shape            fc2's F.linear output is dumped as [out, B] (every call)
 *   scalar           fc1's ReLU is called with inplace=True (every call)
 *   inf              fc2's F.linear output [0][0] becomes +inf (every call)
 *   nan-input        x[0][0] is NaN in every batch
 * (gendump.h says where each first shows in the dumps.)
 *
 * The call stacks point into this invented script, /home/user/mlp/model.py,
 * where L is --layers (line numbers on the left):
 *
 *      1  # /home/user/mlp/model.py: the training run that probe-gendump simulates
 *      2  import argparse
 *      3
 *      4  import torch
 *      5  import torch.distributed as dist
 *      6  import torch.nn as nn
 *      7  import torch.nn.functional as F
 *      8  from msprobe.pytorch import PrecisionDebugger
 *      9
 *     10  LAYERS = 3  # --layers
 *     11
 *     12
 *     13  def average_gradients(model, group):
 *     14      for p in model.parameters():
 *     15          dist.all_reduce(p.grad, op=dist.ReduceOp.AVG, group=group)
 *     16
 *     17
 *     18  def train(model, data, y, steps, group, debugger):
 *     19      optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
 *     20      for step in range(steps):
 *     21          debugger.start()
 *     22          optimizer.zero_grad()
 *     23          for x in data(step):
 *     24              out = model(x)
 *     25              loss = F.mse_loss(out, y)
 *     26              loss.backward()
 *     27          if group is not None:
 *     28              average_gradients(model, group)
 *     29          debugger.stop()
 *     30          optimizer.step()
 *     31          debugger.step()
 *     32
 *     33
 *     34  class MLP(nn.Module):
 *     35      def __init__(self, widths):
 *     36          super().__init__()
 *     37          for i in range(1, len(widths)):
 *     38              setattr(self, f"fc{i}", nn.Linear(widths[i - 1], widths[i]))
 *     39          self.relu = nn.ReLU()
 *     40
 *     41      def forward(self, x):
 *     42          x = self.relu(self.fc1(x))
 *     43          x = self.relu(self.fc2(x))
 *    41+i          ...                        (self.fc<i> for i < L: line 41 + i)
 *    41+L          return self.fc<L>(x)
 *    42+L
 *    43+L
 *    44+L  def main():
 *    45+L      parser = argparse.ArgumentParser()
 *    46+L      parser.add_argument("--steps", type=int, default=1)
 *    47+L      parser.add_argument("--micro-batches", type=int, default=1)
 *    48+L      args = parser.parse_args()
 *    49+L      dist.init_process_group()
 *    50+L      world = dist.get_world_size()
 *    51+L      group = dist.new_group(list(range(world))) if world > 1 else None
 *    52+L      model = MLP([8] + [16] * (LAYERS - 1) + [4])
 *    53+L      y = torch.randn(4, 4)
 *    54+L      data = lambda step: [torch.randn(4, 8) for _ in range(args.micro_batches)]
 *    55+L      debugger = PrecisionDebugger(config_path="config.json")
 *    56+L      train(model, data, y, args.steps, group, debugger)
 *    57+L
 *    58+L
 *    59+L  if __name__ == "__main__":
 *    60+L      main()
 *
 * So with the default 3 layers, fc1 is called on line 42, fc2 on 43, fc3 on
 * 44, and the stack of Functional.linear.<n>.forward (n = mb * L + i - 1)
 * names line 41 + i, the line calling self.fc<i>.
 */
#include "gendump.h"
#include "genio.h"
#include "../core/msg.h"
#include "../msprobe/pyfmt.h"
#include "../core/strbuf.h"
#include "../core/xalloc.h"

#include <math.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static const char *const fault_names[] = {
	[GEN_FAULT_NONE] = "none",
	[GEN_FAULT_FC2_WEIGHT] = "fc2-weight",
	[GEN_FAULT_FC2_WEIGHT_TINY] = "fc2-weight-tiny",
	[GEN_FAULT_INPUT] = "input",
	[GEN_FAULT_LINEAR1_OUTPUT] = "linear1-output",
	[GEN_FAULT_NAN] = "nan",
	[GEN_FAULT_GRAD] = "grad",
	[GEN_FAULT_DTYPE] = "dtype",
	[GEN_FAULT_SHAPE] = "shape",
	[GEN_FAULT_SCALAR] = "scalar",
	[GEN_FAULT_INF] = "inf",
	[GEN_FAULT_NAN_INPUT] = "nan-input",
	[GEN_FAULT_ALL_REDUCE] = "all-reduce",
};

int gendump_fault_parse(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(fault_names); i++)
		if (!strcmp(name, fault_names[i]))
			return (int)i;
	return -1;
}

void gendump_config_init(struct gen_config *cfg)
{
	*cfg = (struct gen_config){ .task = GEN_TASK_STATISTICS, .format = GEN_FORMAT_PT, .pt_layout = PT_TORCH1,
				    .dtype = DT_FLOAT32, .fault = GEN_FAULT_FC2_WEIGHT, .steps = 1, .ranks = 1,
				    .micro_batches = 1, .layers = 3, .width = 16, .batch = 4, .seed = 1 };
}

/* ------------------------------------------------------------------ */
/* The random streams (genio.h's splitmix64) */

enum rng_stream { RNG_WEIGHTS = 1, RNG_TARGET, RNG_INPUT };

/* ------------------------------------------------------------------ */
/* Tensors: computed in float32, row-major, 0 to 2 dimensions */

struct tensor {
	int ndim;
	int shape[2];
	size_t n;
	float *v;
	bool requires_grad;
	/*
	 * How the dumps show it: its own shape and --dtype, unless a fault of
	 * the target (shape, dtype) makes the operator that returns it hand
	 * on another view or type of the same values.
	 */
	int dumped_ndim;
	int64_t dumped_shape[2];
	bool float16;
	/* as saved and dumped, computed when first needed */
	bool summarized;
	void *rounded;    /* the elements in the saved type, when that is not float32 */
	char stat[4][32]; /* Max, Min, Mean, Norm: JSON tokens */
	char crc[9];
};

static void tensor_init(struct tensor *t, int ndim, int rows, int cols, bool requires_grad)
{
	*t = (struct tensor){ .ndim = ndim, .requires_grad = requires_grad };
	t->shape[0] = rows;
	t->shape[1] = cols;
	t->n = ndim == 0 ? 1 : ndim == 1 ? (size_t)rows : st_mult((size_t)rows, (size_t)cols);
	t->v = xcalloc(t->n, sizeof(float));
	t->dumped_ndim = ndim;
	t->dumped_shape[0] = rows;
	t->dumped_shape[1] = cols;
}

static void tensor_release(struct tensor *t)
{
	free(t->v);
	free(t->rounded);
	t->v = NULL;
	t->rounded = NULL;
}

/* Call after changing t->v: the statistics must be computed again. */
static void tensor_changed(struct tensor *t)
{
	t->summarized = false;
}

static void tensor_copy_values(struct tensor *dst, const struct tensor *src)
{
	memcpy(dst->v, src->v, src->n * sizeof(float));
	tensor_changed(dst);
}

/* The elements as saved in type d: v itself for float32, else rounded as torch's .to(d) rounds. */
static const void *tensor_saved(struct tensor *t, enum dtype d)
{
	uint16_t *r;
	if (d == DT_FLOAT32)
		return t->v;
	if (!t->rounded)
		t->rounded = xmalloc(st_mult(t->n, sizeof(uint16_t)));
	r = t->rounded;
	for (size_t i = 0; i < t->n; i++)
		r[i] = d == DT_FLOAT16 ? dtype_float_to_half(t->v[i]) : dtype_float_to_bf16(t->v[i]);
	return r;
}

static const void *tensor_elements(const struct tensor *t)
{
	return t->rounded ? t->rounded : t->v;
}

/* Statistics and CRC-32 of the tensor as saved in type d (a 0-d tensor gets its value four times). */
static void tensor_summarize(struct tensor *t, enum dtype d)
{
	const void *elems;
	if (t->summarized)
		return;
	elems = tensor_saved(t, d);
	genio_summarize(d, elems, t->n, t->ndim, t->stat);
	genio_crc(elems, t->n * dtype_info(d)->size, t->crc);
	t->summarized = true;
}

/* ------------------------------------------------------------------ */
/* The invented call stacks (see the model.py listing at the top) */

#define MODEL_PY "/home/user/mlp/model.py"
#define TORCH_NN "/usr/lib/python3/dist-packages/torch/nn/modules/"

enum model_py_line {
	LINE_ALL_REDUCE = 15,
	LINE_MODEL_CALL = 24,
	LINE_MSE_LOSS = 25,
	LINE_AVERAGE_GRADIENTS = 28,
	LINE_FORWARD = 41,     /* + i: the line calling self.fc<i> */
	LINE_MAIN_TRAIN = 56,  /* + L */
	LINE_MODULE_MAIN = 60, /* + L */
};

enum stack_kind {
	STACK_MODULE,     /* Module.fc<i> and Module.relu called on the line of fc<i> */
	STACK_LINEAR,     /* F.linear inside fc<i> */
	STACK_RELU,       /* F.relu inside relu, on the line of fc<i> */
	STACK_MSE_LOSS,
	STACK_ALL_REDUCE,
	STACK_KINDS,
};

#define NO_STACK (-1)

static int stack_key(int layers, enum stack_kind kind, int layer)
{
	return (int)kind * (layers + 1) + layer;
}

static void forward_line_frame(struct genio_json *w, int layers, int layer)
{
	struct strbuf source = STRBUF_INIT;
	if (layer < layers)
		strbuf_addf(&source, "x = self.relu(self.fc%d(x))", layer);
	else
		strbuf_addf(&source, "return self.fc%d(x)", layer);
	genio_json_frame(w, MODEL_PY, LINE_FORWARD + layer, "forward", source.buf);
	strbuf_release(&source);
}

/* The frames of a stack, innermost first. */
static void write_stack_frames(struct genio_json *w, int layers, int key)
{
	enum stack_kind kind = (enum stack_kind)(key / (layers + 1));
	int layer = key % (layers + 1);

	switch (kind) {
	case STACK_MODULE:
		genio_json_frame(w, TORCH_NN "module.py", 1201, "_call_impl", "result = hook(self, input)");
		break;
	case STACK_LINEAR:
		genio_json_frame(w, TORCH_NN "linear.py", 114, "forward", "return F.linear(input, self.weight, self.bias)");
		genio_json_frame(w, TORCH_NN "module.py", 1212, "_call_impl", "result = forward_call(*input, **kwargs)");
		break;
	case STACK_RELU:
		genio_json_frame(w, TORCH_NN "activation.py", 102, "forward", "return F.relu(input, inplace=self.inplace)");
		genio_json_frame(w, TORCH_NN "module.py", 1212, "_call_impl", "result = forward_call(*input, **kwargs)");
		break;
	case STACK_MSE_LOSS:
		genio_json_frame(w, MODEL_PY, LINE_MSE_LOSS, "train", "loss = F.mse_loss(out, y)");
		break;
	case STACK_ALL_REDUCE:
		genio_json_frame(w, MODEL_PY, LINE_ALL_REDUCE, "average_gradients",
		      "dist.all_reduce(p.grad, op=dist.ReduceOp.AVG, group=group)");
		genio_json_frame(w, MODEL_PY, LINE_AVERAGE_GRADIENTS, "train", "average_gradients(model, group)");
		break;
	case STACK_KINDS:
		die("internal error: bad stack key %d", key);
	}
	if (kind == STACK_MODULE || kind == STACK_LINEAR || kind == STACK_RELU) {
		forward_line_frame(w, layers, layer);
		genio_json_frame(w, TORCH_NN "module.py", 1194, "_call_impl", "return forward_call(*input, **kwargs)");
		genio_json_frame(w, MODEL_PY, LINE_MODEL_CALL, "train", "out = model(x)");
	}
	genio_json_frame(w, MODEL_PY, LINE_MAIN_TRAIN + layers, "main", "train(model, data, y, args.steps, group, debugger)");
	genio_json_frame(w, MODEL_PY, LINE_MODULE_MAIN + layers, "<module>", "main()");
}

/* ------------------------------------------------------------------ */
/* The dump of one rank in one step: dump.json streamed, stack.json and construct.json at the end */

struct name_list {
	char **v;
	size_t nr, alloc;
};

static void name_list_add(struct name_list *l, const char *name)
{
	ALLOC_GROW(l->v, l->nr + 1, l->alloc);
	l->v[l->nr++] = name ? xstrdup(name) : NULL;
}

static void name_list_release(struct name_list *l)
{
	for (size_t i = 0; i < l->nr; i++)
		free(l->v[i]);
	free(l->v);
	*l = (struct name_list){ 0 };
}

struct stack_group {
	int key;
	struct name_list names;
};

struct rank_dump {
	const struct gen_config *cfg;
	struct strbuf dir;
	struct genio_json json;
	bool print_tensors;    /* print this dump's tensors on stdout */
	struct strbuf entry;   /* name of the entry being written */
	/* construct.json: entry -> parent module (NULL: null) */
	struct name_list construct_names, construct_parents;
	/* stack.json: one group per distinct stack, in order of first use */
	struct stack_group *stacks;
	size_t nr_stacks, alloc_stacks;
	int *stack_of_key;
	bool mindspore;        /* this run is dumped as MindSpore (gen_config.framework) */
	struct strbuf ms_name; /* scratch: a name as MindSpore's dumper gives it */
};

static void rank_dump_open(struct rank_dump *d, const struct gen_config *cfg, const char *side, int step, int rank)
{
	size_t nkeys = st_mult(STACK_KINDS, (size_t)cfg->layers + 1);

	*d = (struct rank_dump){ .cfg = cfg, .dir = STRBUF_INIT, .entry = STRBUF_INIT, .ms_name = STRBUF_INIT };
	d->print_tensors = cfg->print_tensors && !strcmp(side, "golden") && step == 0 && rank == 0;
	d->mindspore = cfg->framework == GEN_FW_MINDSPORE ||
		       (cfg->framework == GEN_FW_MINDSPORE_PYTORCH && !strcmp(side, "target"));
	d->stack_of_key = xmalloc(st_mult(nkeys, sizeof(int)));
	for (size_t i = 0; i < nkeys; i++)
		d->stack_of_key[i] = NO_STACK;

	strbuf_addf(&d->dir, "%s/%s/step%d/rank%d", cfg->outdir, side, step, rank);
	genio_dump_begin(&d->json, d->dir.buf, "mix", d->mindspore ? "mindspore" : "pytorch", cfg->task == GEN_TASK_TENSOR);
}

/* Does s start with prefix? */
static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/*
 * name as MindSpore's dumper writes it, into out: Module -> Cell (and the
 * Linear class -> Dense), Functional -> MintFunctional; others unchanged.
 */
static void mindspore_name(const char *name, struct strbuf *out)
{
	const char *lin;
	strbuf_reset(out);
	if (starts(name, "Module.")) {
		strbuf_addstr(out, "Cell.");
		name += 7;
		if ((lin = strstr(name, ".Linear."))) {
			strbuf_add(out, name, (size_t)(lin - name));
			strbuf_addstr(out, ".Dense.");
			name = lin + 8;
		}
	} else if (starts(name, "Functional.")) {
		strbuf_addstr(out, "MintFunctional.");
		name += 11;
	}
	strbuf_addstr(out, name);
}

/* A name of this run: as given, or MindSpore's (the result lives until the next call). */
static const char *run_name(struct rank_dump *d, const char *name)
{
	if (!d->mindspore || !name)
		return name;
	mindspore_name(name, &d->ms_name);
	return d->ms_name.buf;
}

static void record_stack(struct rank_dump *d, int key, const char *name)
{
	int id = d->stack_of_key[key];
	struct strbuf own = STRBUF_INIT;
	if (d->mindspore) {
		mindspore_name(name, &own);
		name = own.buf;
	}
	if (id == NO_STACK) {
		ALLOC_GROW(d->stacks, d->nr_stacks + 1, d->alloc_stacks);
		d->stacks[d->nr_stacks] = (struct stack_group){ .key = key };
		id = d->stack_of_key[key] = (int)d->nr_stacks++;
	}
	name_list_add(&d->stacks[id].names, name);
	strbuf_release(&own);
}

static void write_stack_json(struct rank_dump *d)
{
	struct strbuf path = STRBUF_INIT;
	struct genio_json w;
	char id[24];

	strbuf_addf(&path, "%s/stack.json", d->dir.buf);
	genio_json_create(&w, path.buf);
	genio_json_open(&w, '{');
	for (size_t i = 0; i < d->nr_stacks; i++) {
		snprintf(id, sizeof(id), "%zu", i);
		genio_json_key(&w, id);
		genio_json_open(&w, '[');
		genio_json_open(&w, '[');
		for (size_t k = 0; k < d->stacks[i].names.nr; k++)
			genio_json_string(&w, d->stacks[i].names.v[k]);
		genio_json_close(&w, ']');
		genio_json_open(&w, '[');
		write_stack_frames(&w, d->cfg->layers, d->stacks[i].key);
		genio_json_close(&w, ']');
		genio_json_close(&w, ']');
		genio_json_flush_if_big(&w);
	}
	genio_json_close(&w, '}');
	genio_json_commit(&w);
	strbuf_release(&path);
}

static void write_construct_json(struct rank_dump *d)
{
	struct strbuf path = STRBUF_INIT;
	struct genio_json w;

	strbuf_addf(&path, "%s/construct.json", d->dir.buf);
	genio_json_create(&w, path.buf);
	genio_json_open(&w, '{');
	for (size_t i = 0; i < d->construct_names.nr; i++) {
		genio_json_key(&w, d->construct_names.v[i]);
		if (d->construct_parents.v[i])
			genio_json_string(&w, d->construct_parents.v[i]);
		else
			genio_json_token(&w, "null");
		genio_json_flush_if_big(&w);
	}
	genio_json_close(&w, '}');
	genio_json_commit(&w);
	strbuf_release(&path);
}

static void rank_dump_close(struct rank_dump *d)
{
	genio_json_close(&d->json, '}'); /* data */
	genio_json_close(&d->json, '}');
	genio_json_commit(&d->json);
	write_stack_json(d);
	write_construct_json(d);

	for (size_t i = 0; i < d->nr_stacks; i++)
		name_list_release(&d->stacks[i].names);
	free(d->stacks);
	free(d->stack_of_key);
	name_list_release(&d->construct_names);
	name_list_release(&d->construct_parents);
	strbuf_release(&d->entry);
	strbuf_release(&d->ms_name);
	strbuf_release(&d->dir);
}

/*
 * Start the entry d->entry (set by the caller).  An API forward entry has a
 * stack (key, or NO_STACK); every entry but parameters_grad is listed in
 * construct.json with its parent module (NULL: none).  A module's stack is
 * recorded apart, when its forward pre-hook would run: before the APIs
 * inside it, although its entry is written after them.
 */
static void entry_begin(struct rank_dump *d, int stack, bool in_construct, const char *parent)
{
	if (d->mindspore) {
		mindspore_name(d->entry.buf, &d->ms_name);
		strbuf_reset(&d->entry);
		strbuf_addbuf(&d->entry, &d->ms_name);
	}
	if (stack != NO_STACK)
		record_stack(d, stack, d->entry.buf);
	if (in_construct) {
		name_list_add(&d->construct_names, d->entry.buf);
		name_list_add(&d->construct_parents, run_name(d, parent));
	}
	genio_json_key(&d->json, d->entry.buf);
	genio_json_open(&d->json, '{');
}

static void entry_end(struct rank_dump *d)
{
	genio_json_close(&d->json, '}');
	genio_json_flush_if_big(&d->json);
}

/* One line per tensor: row name, shape, values as saved (Python repr), tab-separated. */
static void print_tensor(const char *row, const struct tensor *t, enum dtype d)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s\t", row);
	for (int i = 0; i < t->ndim; i++)
		strbuf_addf(&sb, "%s%d", i ? "," : "", t->shape[i]);
	strbuf_addch(&sb, '\t');
	for (size_t i = 0; i < t->n; i++) {
		if (i)
			strbuf_addch(&sb, ' ');
		pyfmt_double(&sb, genio_element(d, tensor_elements(t), i));
	}
	strbuf_addch(&sb, '\n');
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
}

/* The file name msprobe gives a tensor's data: the row name and the format's extension. */
static void data_name_of(const struct rank_dump *d, const char *row, struct strbuf *out)
{
	strbuf_reset(out);
	strbuf_addf(out, "%s.%s", row, d->cfg->format == GEN_FORMAT_NPY || d->mindspore ? "npy" : "pt");
}

/*
 * numpy has no bfloat16 or float8: msprobe's MindSpore dumper saves such
 * tensors as float32 (exact).  Only for contiguous views, which is all the
 * generator makes of those types.
 */
static int write_npy_as_mindspore(const char *path, const struct tensor_src *src, struct strbuf *err)
{
	struct npy_options opt = { .version = 1, .fortran_order = false };
	struct tensor_src f32 = *src;
	float *v = NULL;
	int ret;

	if (src->stride && src->ndim == 2 && src->stride[0] == 1 && src->shape[1] > 1)
		opt.fortran_order = true; /* a transposed view is F-contiguous: numpy.save writes it so */
	if (!dtype_info(src->dtype)->npy) {
		if (src->stride || src->offset)
			die("internal error: %s: only contiguous %s tensors can be saved as .npy", path,
			    dtype_info(src->dtype)->name);
		v = xmalloc(st_mult((size_t)src->storage_numel + 1, sizeof(float)));
		for (int64_t i = 0; i < src->storage_numel; i++)
			v[i] = (float)genio_element(src->dtype, src->storage, (size_t)i);
		f32.dtype = DT_FLOAT32;
		f32.storage = v;
	}
	ret = tensorw_npy(path, &f32, &opt, err);
	free(v);
	return ret;
}

/* Save one tensor's data as <rank dir>/dump_tensor_data/<data_name>. */
static void save_tensor_file(const struct rank_dump *d, const char *data_name, const struct tensor_src *src)
{
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;
	struct pt_options opt = { .layout = d->cfg->pt_layout };
	int ret;

	strbuf_addf(&path, "%s/dump_tensor_data/%s", d->dir.buf, data_name);
	if (d->cfg->format == GEN_FORMAT_NPY || d->mindspore)
		ret = write_npy_as_mindspore(path.buf, src, &err);
	else
		ret = tensorw_pt(path.buf, src, &opt, &err);
	if (ret)
		die("%s", err.buf);
	strbuf_release(&path);
	strbuf_release(&err);
}

/* What a tensor leaf of dump.json says. */
struct leaf {
	enum dtype dtype;
	int ndim;
	const int64_t *shape;
	char (*stat)[32];
	const char *crc;        /* md5 task */
	bool requires_grad;
	const char *data_name;  /* tensor task */
};

/* MindSpore's name of a dtype the generator saves: Float32, Float16, BFloat16. */
static const char *mindspore_dtype(enum dtype t)
{
	switch (t) {
	case DT_FLOAT16:
		return "Float16";
	case DT_BFLOAT16:
		return "BFloat16";
	default:
		return "Float32";
	}
}

static void write_leaf(struct rank_dump *d, const struct leaf *l)
{
	struct genio_json *w = &d->json;
	static const char *const stat_names[4] = { "Max", "Min", "Mean", "Norm" };

	genio_json_open(w, '{');
	genio_json_key(w, "type");
	genio_json_string(w, d->mindspore ? "mindspore.Tensor" : "torch.Tensor");
	genio_json_key(w, "dtype");
	genio_json_string(w, d->mindspore ? mindspore_dtype(l->dtype) : dtype_info(l->dtype)->torch);
	genio_json_key(w, "shape");
	genio_json_open(w, '[');
	for (int i = 0; i < l->ndim; i++)
		genio_json_int(w, l->shape[i]);
	genio_json_close(w, ']');
	for (int i = 0; i < 4; i++) {
		genio_json_key(w, stat_names[i]);
		genio_json_token(w, l->stat[i]);
	}
	if (!d->mindspore) { /* MindSpore's dumper writes none */
		genio_json_key(w, "requires_grad");
		genio_json_token(w, l->requires_grad ? "true" : "false");
	}
	if (d->cfg->task == GEN_TASK_MD5) {
		genio_json_key(w, "md5");
		genio_json_string(w, l->crc);
	}
	if (d->cfg->task == GEN_TASK_TENSOR) {
		genio_json_key(w, "data_name");
		genio_json_string(w, l->data_name);
	}
	genio_json_close(w, '}');
}

/*
 * A tensor leaf (or null when t is NULL), named <entry>.<io>.<label>, or
 * <entry>.<label> without io; in the tensor task its data is saved too,
 * detached (requires_grad false in the file), as msprobe saves it.
 */
static void tensor_leaf(struct rank_dump *d, struct tensor *t, const char *io, const char *label)
{
	enum dtype dtype;
	struct strbuf row = STRBUF_INIT, data_name = STRBUF_INIT;
	struct leaf l;

	if (!t) {
		genio_json_token(&d->json, "null");
		return;
	}
	dtype = t->float16 ? DT_FLOAT16 : d->cfg->dtype;
	strbuf_addf(&row, "%s.%s%s%s", d->entry.buf, io ? io : "", io ? "." : "", label);
	tensor_summarize(t, dtype);
	if (d->print_tensors)
		print_tensor(row.buf, t, dtype);
	if (d->cfg->task == GEN_TASK_TENSOR) {
		struct tensor_src src = { .dtype = dtype, .storage = tensor_elements(t), .storage_numel = (int64_t)t->n,
					  .ndim = t->dumped_ndim, .shape = t->dumped_shape };
		data_name_of(d, row.buf, &data_name);
		save_tensor_file(d, data_name.buf, &src);
	}
	l = (struct leaf){ .dtype = dtype, .ndim = t->dumped_ndim, .shape = t->dumped_shape, .stat = t->stat,
			   .crc = t->crc, .requires_grad = t->requires_grad, .data_name = data_name.buf };
	write_leaf(d, &l);
	strbuf_release(&row);
	strbuf_release(&data_name);
}

/*
 * "key": [tensor, ...].  The rows are named <entry>.<io>.<position>, or
 * <entry>.<key> without io (parameters_grad: msprobe appends no index).
 */
static void tensor_list(struct rank_dump *d, const char *key, const char *io, struct tensor *const *tensors,
			int n)
{
	char label[16];
	genio_json_key(&d->json, key);
	genio_json_open(&d->json, '[');
	for (int i = 0; i < n; i++) {
		snprintf(label, sizeof(label), "%d", i);
		tensor_leaf(d, tensors[i], io, io ? label : key);
	}
	genio_json_close(&d->json, ']');
}

static void empty_object(struct rank_dump *d, const char *key)
{
	genio_json_key(&d->json, key);
	genio_json_open(&d->json, '{');
	genio_json_close(&d->json, '}');
}

/* {"type": "bool", "value": false} (or true) under "inplace", as F.relu's kwargs. */
static void inplace_kwargs(struct rank_dump *d, bool inplace)
{
	genio_json_key(&d->json, "input_kwargs");
	genio_json_open(&d->json, '{');
	genio_json_key(&d->json, "inplace");
	genio_json_open(&d->json, '{');
	genio_json_key(&d->json, "type");
	genio_json_string(&d->json, "bool");
	genio_json_key(&d->json, "value");
	genio_json_token(&d->json, inplace ? "true" : "false");
	genio_json_close(&d->json, '}');
	genio_json_close(&d->json, '}');
}

/* ------------------------------------------------------------------ */
/* The model and its arithmetic */

enum { IN_WIDTH = 8, OUT_WIDTH = 4 }; /* the hidden width and the batch are options */
#define LEARNING_RATE 0.1f

struct layer {
	int in, out;
	bool hidden; /* followed by a ReLU */
	struct tensor weight, bias;           /* [out, in], [out] */
	struct tensor grad_weight, grad_bias; /* param.grad, accumulated over micro-batches */
	/* one micro-batch */
	struct tensor output;          /* z = F.linear(input) [B, out] */
	struct tensor activation;      /* relu(z), hidden layers only */
	struct tensor grad_activation; /* dL/d relu(z), hidden layers only */
	struct tensor grad_output;     /* dL/dz */
	struct tensor grad_bias_mb;    /* this micro-batch's dL/dbias [out] */
	struct tensor grad_weight_t;   /* this micro-batch's dL/dweight.t() [in, out] */
};

struct model {
	int nlayers;
	int width, batch;
	enum gen_fault fault; /* GEN_FAULT_NONE unless this is the faulty rank of the target run */
	struct layer *layers;
	struct tensor x, y, loss, loss_grad;
};

static int layer_width(const struct model *m, int i)
{
	return i == 0 ? IN_WIDTH : i == m->nlayers ? OUT_WIDTH : m->width;
}

static void layer_init(struct layer *l, int in, int out, int batch, bool hidden, uint64_t *rng)
{
	float bound = 1.0f / sqrtf((float)in);

	*l = (struct layer){ .in = in, .out = out, .hidden = hidden };
	tensor_init(&l->weight, 2, out, in, true);
	tensor_init(&l->bias, 1, out, 0, true);
	for (size_t i = 0; i < l->weight.n; i++)
		l->weight.v[i] = genio_rng_symmetric(rng) * bound;
	for (size_t i = 0; i < l->bias.n; i++)
		l->bias.v[i] = genio_rng_symmetric(rng) * bound;
	tensor_init(&l->grad_weight, 2, out, in, false);
	tensor_init(&l->grad_bias, 1, out, 0, false);
	tensor_init(&l->output, 2, batch, out, true);
	if (hidden) {
		tensor_init(&l->activation, 2, batch, out, true);
		tensor_init(&l->grad_activation, 2, batch, out, false);
	}
	tensor_init(&l->grad_output, 2, batch, out, false);
	tensor_init(&l->grad_bias_mb, 1, out, 0, false);
	tensor_init(&l->grad_weight_t, 2, in, out, false);
}

static void layer_release(struct layer *l)
{
	struct tensor *all[] = { &l->weight, &l->bias, &l->grad_weight, &l->grad_bias,
				 &l->output, &l->activation, &l->grad_activation, &l->grad_output,
				 &l->grad_bias_mb, &l->grad_weight_t };
	for (size_t i = 0; i < ARRAY_SIZE(all); i++)
		tensor_release(all[i]);
}

/* The perturbations of the weights, made once before the first step. */
static void apply_weight_fault(struct model *m)
{
	struct tensor *w = &m->layers[1].weight;
	if (m->fault == GEN_FAULT_FC2_WEIGHT)
		for (size_t i = 0; i < w->n; i++)
			w->v[i] *= 1.01f;
	else if (m->fault == GEN_FAULT_FC2_WEIGHT_TINY)
		w->v[0] = nextafterf(w->v[0], INFINITY);
	tensor_changed(w);
}

/*
 * The shape fault: fc2's output is dumped as another view of the same
 * values, as if its F.linear returned output.view(out, B) (the values in
 * memory order unchanged); [B * out] when B = out, where that view would
 * not differ.  The arithmetic goes on with the values as they are.
 */
static void apply_shape_fault(struct model *m)
{
	struct tensor *out = &m->layers[1].output;
	if (m->fault != GEN_FAULT_SHAPE)
		return;
	if (out->shape[0] != out->shape[1]) {
		out->dumped_shape[0] = out->shape[1];
		out->dumped_shape[1] = out->shape[0];
	} else {
		out->dumped_ndim = 1;
		out->dumped_shape[0] = (int64_t)out->n;
	}
}

static void model_init(struct model *m, const struct gen_config *cfg, enum gen_fault fault)
{
	uint64_t rng = genio_rng_stream(cfg->seed, RNG_WEIGHTS, 0, 0, 0);

	*m = (struct model){ .nlayers = cfg->layers, .width = cfg->width, .batch = cfg->batch, .fault = fault };
	m->layers = xcalloc((size_t)m->nlayers, sizeof(*m->layers));
	for (int i = 0; i < m->nlayers; i++)
		layer_init(&m->layers[i], layer_width(m, i), layer_width(m, i + 1), m->batch, i + 1 < m->nlayers, &rng);
	tensor_init(&m->x, 2, m->batch, IN_WIDTH, false);
	tensor_init(&m->y, 2, m->batch, OUT_WIDTH, false);
	rng = genio_rng_stream(cfg->seed, RNG_TARGET, 0, 0, 0);
	for (size_t i = 0; i < m->y.n; i++)
		m->y.v[i] = genio_rng_normal(&rng);
	tensor_init(&m->loss, 0, 0, 0, true);
	tensor_init(&m->loss_grad, 0, 0, 0, false);
	m->loss_grad.v[0] = 1.0f;
	apply_weight_fault(m);
	apply_shape_fault(m);
	/* the dtype fault: fc2's output is a float16 tensor wherever it is dumped */
	m->layers[1].output.float16 = fault == GEN_FAULT_DTYPE;
}

static void model_release(struct model *m)
{
	for (int i = 0; i < m->nlayers; i++)
		layer_release(&m->layers[i]);
	free(m->layers);
	tensor_release(&m->x);
	tensor_release(&m->y);
	tensor_release(&m->loss);
	tensor_release(&m->loss_grad);
}

static struct tensor *layer_input(struct model *m, int i)
{
	return i == 0 ? &m->x : &m->layers[i - 1].activation;
}

static void load_batch(struct model *m, const struct gen_config *cfg, int step, int rank, int mb)
{
	uint64_t rng = genio_rng_stream(cfg->seed, RNG_INPUT, (uint64_t)rank, (uint64_t)step, (uint64_t)mb);
	for (size_t i = 0; i < m->x.n; i++)
		m->x.v[i] = genio_rng_normal(&rng);
	if (m->fault == GEN_FAULT_INPUT)
		m->x.v[0] += 0.5f;
	if (m->fault == GEN_FAULT_NAN_INPUT)
		m->x.v[0] = NAN;
	tensor_changed(&m->x);
}

/*
 * The faults of fc2's F.linear, made to the result it returns: one
 * element moved, or made NaN or inf, or all of them computed in float16
 * (float32 rounded to half: what the half kernel's float accumulator
 * gives).
 */
static void fc2_output_fault(struct model *m, struct tensor *out)
{
	switch (m->fault) {
	case GEN_FAULT_LINEAR1_OUTPUT:
		out->v[0] += 1e-3f;
		break;
	case GEN_FAULT_NAN:
		out->v[0] = NAN;
		break;
	case GEN_FAULT_INF:
		out->v[0] = INFINITY;
		break;
	case GEN_FAULT_DTYPE:
		for (size_t i = 0; i < out->n; i++)
			out->v[i] = (float)genio_round_to(DT_FLOAT16, out->v[i]);
		break;
	default:
		break;
	}
}

/* z = input @ weight.T + bias, in float32; fc2's operator carries the output faults. */
static void linear_forward(struct model *m, int i)
{
	struct layer *l = &m->layers[i];
	const struct tensor *in = layer_input(m, i);
	size_t nin = (size_t)l->in, nout = (size_t)l->out;

	for (size_t b = 0; b < (size_t)m->batch; b++)
		for (size_t j = 0; j < nout; j++) {
			const float *x = in->v + b * nin, *w = l->weight.v + j * nin;
			float acc = 0.0f;
			for (size_t k = 0; k < nin; k++)
				acc += x[k] * w[k];
			l->output.v[b * nout + j] = acc + l->bias.v[j];
		}
	if (i == 1)
		fc2_output_fault(m, &l->output);
	tensor_changed(&l->output);
}

/* torch.relu keeps NaN. */
static void relu_forward(struct layer *l)
{
	for (size_t i = 0; i < l->output.n; i++) {
		float z = l->output.v[i];
		l->activation.v[i] = z > 0.0f || isnan(z) ? z : 0.0f;
	}
	tensor_changed(&l->activation);
}

static void mse_loss_forward(struct model *m)
{
	const struct tensor *out = &m->layers[m->nlayers - 1].output;
	float acc = 0.0f;
	for (size_t i = 0; i < out->n; i++) {
		float d = out->v[i] - m->y.v[i];
		acc += d * d;
	}
	m->loss.v[0] = acc / (float)out->n;
	tensor_changed(&m->loss);
}

static void mse_loss_backward(struct model *m)
{
	struct layer *last = &m->layers[m->nlayers - 1];
	float scale = 2.0f / (float)last->output.n;
	for (size_t i = 0; i < last->output.n; i++)
		last->grad_output.v[i] = (last->output.v[i] - m->y.v[i]) * scale * m->loss_grad.v[0];
	tensor_changed(&last->grad_output);
}

/*
 * The sums of the backward pass, each accumulated in float32 in the order
 * of its index (b, or j), whatever order the loops walk the memory in: the
 * loops stream over rows so that wide layers stay fast, and the sums keep
 * their bits.
 */
static void bias_gradient(float *gb, const float *g, size_t batch, size_t nout)
{
	memset(gb, 0, nout * sizeof(float));
	for (size_t b = 0; b < batch; b++)
		for (size_t j = 0; j < nout; j++)
			gb[j] += g[b * nout + j];
}

/* dL/dinput[b][k] = sum over j of g[b][j] * weight[j][k]. */
static void input_gradient(float *gin, const float *g, const float *weight, size_t batch, size_t nin, size_t nout)
{
	memset(gin, 0, st_mult(batch, nin) * sizeof(float));
	for (size_t b = 0; b < batch; b++)
		for (size_t j = 0; j < nout; j++) {
			const float gbj = g[b * nout + j], *w = weight + j * nin;
			float *acc = gin + b * nin;
			for (size_t k = 0; k < nin; k++)
				acc[k] += gbj * w[k];
		}
}

/* dL/dweight.T[k][j] = sum over b of input[b][k] * g[b][j]. */
static void weight_t_gradient(float *gwt, const float *x, const float *g, size_t batch, size_t nin, size_t nout)
{
	memset(gwt, 0, st_mult(nin, nout) * sizeof(float));
	for (size_t b = 0; b < batch; b++)
		for (size_t k = 0; k < nin; k++) {
			const float xbk = x[b * nin + k], *gb = g + b * nout;
			float *acc = gwt + k * nout;
			for (size_t j = 0; j < nout; j++)
				acc[j] += xbk * gb[j];
		}
}

/* param.grad = (first micro-batch ? 0 : param.grad) + dL/dweight.T transposed, in tiles for the cache. */
static void accumulate_weight_gradient(float *gw, const float *gwt, size_t nin, size_t nout, bool first)
{
	enum { TILE = 64 };
	for (size_t j0 = 0; j0 < nout; j0 += TILE)
		for (size_t k0 = 0; k0 < nin; k0 += TILE)
			for (size_t j = j0; j < nout && j < j0 + TILE; j++)
				for (size_t k = k0; k < nin && k < k0 + TILE; k++) {
					float g = gwt[k * nout + j];
					gw[j * nin + k] = first ? g : gw[j * nin + k] + g;
				}
}

/* Gradients of F.linear: bias, input (into the previous layer's grad_activation), weight.T; then accumulate. */
static void linear_backward(struct model *m, int i, bool first_micro_batch)
{
	struct layer *l = &m->layers[i];
	const struct tensor *in = layer_input(m, i);
	const float *g = l->grad_output.v;
	size_t batch = (size_t)m->batch, nin = (size_t)l->in, nout = (size_t)l->out;

	bias_gradient(l->grad_bias_mb.v, g, batch, nout);
	if (i > 0) {
		struct tensor *gin = &m->layers[i - 1].grad_activation;
		input_gradient(gin->v, g, l->weight.v, batch, nin, nout);
		tensor_changed(gin);
	}
	weight_t_gradient(l->grad_weight_t.v, in->v, g, batch, nin, nout);
	accumulate_weight_gradient(l->grad_weight.v, l->grad_weight_t.v, nin, nout, first_micro_batch);
	for (size_t j = 0; j < nout; j++)
		l->grad_bias.v[j] = first_micro_batch ? l->grad_bias_mb.v[j] : l->grad_bias.v[j] + l->grad_bias_mb.v[j];
	tensor_changed(&l->grad_bias_mb);
	tensor_changed(&l->grad_weight_t);
	tensor_changed(&l->grad_weight);
	tensor_changed(&l->grad_bias);
}

/*
 * The grad fault: dL/dz of fc2, the gradient its backward receives, is
 * handed on 1.01 times too large by the operator that computes it (the
 * ReLU's backward after fc2, or mse_loss's when fc2 is the last layer).
 */
static void grad_fault(struct model *m, int i)
{
	struct tensor *g = &m->layers[i].grad_output;
	if (i != 1 || m->fault != GEN_FAULT_GRAD)
		return;
	for (size_t k = 0; k < g->n; k++)
		g->v[k] *= 1.01f;
	tensor_changed(g);
}

/* threshold_backward on the ReLU's result: the gradient passes where the result is not <= 0. */
static void relu_backward(struct layer *l)
{
	for (size_t i = 0; i < l->output.n; i++)
		l->grad_output.v[i] = l->activation.v[i] <= 0.0f ? 0.0f : l->grad_activation.v[i];
	tensor_changed(&l->grad_output);
}

static void sgd_update(struct model *m)
{
	for (int i = 0; i < m->nlayers; i++) {
		struct layer *l = &m->layers[i];
		for (size_t k = 0; k < l->weight.n; k++)
			l->weight.v[k] -= LEARNING_RATE * l->grad_weight.v[k];
		for (size_t k = 0; k < l->bias.n; k++)
			l->bias.v[k] -= LEARNING_RATE * l->grad_bias.v[k];
		tensor_changed(&l->weight);
		tensor_changed(&l->bias);
	}
}

/* ------------------------------------------------------------------ */
/* One micro-batch: compute and dump, entry by entry, in msprobe's order */

/* Call counters of one micro-batch: msprobe counts per API and per module instance within a step. */
struct counters {
	int mb;         /* micro-batch: Module.fc<i> call count, mse_loss and parameters_grad index */
	int linear0;    /* count of this micro-batch's first F.linear */
	int relu0;      /* count of its first F.relu and first Module.relu call */
};

/*
 * fc<i>(x): the F.linear entry (written at its pre-hook), then the module's
 * (written by its forward hook, after the call), as in msprobe's dump.json.
 */
static void dump_linear_forward(struct rank_dump *d, struct model *m, int i, const struct counters *c)
{
	struct layer *l = &m->layers[i];
	struct tensor *args[] = { layer_input(m, i), &l->weight, &l->bias };
	struct tensor *out[] = { &l->output };
	struct strbuf parent = STRBUF_INIT;
	int layers = m->nlayers;

	strbuf_addf(&parent, "Module.fc%d.Linear.forward.%d", i + 1, c->mb);
	record_stack(d, stack_key(layers, STACK_MODULE, i + 1), parent.buf);
	strbuf_reset(&d->entry);
	strbuf_addf(&d->entry, "Functional.linear.%d.forward", c->linear0 + i);
	entry_begin(d, stack_key(layers, STACK_LINEAR, i + 1), true, parent.buf);
	tensor_list(d, "input_args", "input", args, 3);
	empty_object(d, "input_kwargs");
	tensor_list(d, "output", "output", out, 1);
	entry_end(d);

	strbuf_reset(&d->entry);
	strbuf_addbuf(&d->entry, &parent);
	entry_begin(d, NO_STACK, true, NULL);
	tensor_list(d, "input_args", "input", args, 1);
	empty_object(d, "input_kwargs");
	tensor_list(d, "output", "output", out, 1);
	genio_json_key(&d->json, "parameters");
	genio_json_open(&d->json, '{');
	genio_json_key(&d->json, "weight");
	tensor_leaf(d, &l->weight, "parameters", "weight");
	genio_json_key(&d->json, "bias");
	tensor_leaf(d, &l->bias, "parameters", "bias");
	genio_json_close(&d->json, '}');
	entry_end(d);
	strbuf_release(&parent);
}

/* relu(z) after fc<i>: the shared nn.ReLU module is called once per hidden layer. */
static void dump_relu_forward(struct rank_dump *d, struct model *m, int i, const struct counters *c)
{
	struct layer *l = &m->layers[i];
	struct tensor *in[] = { &l->output };
	struct tensor *out[] = { &l->activation };
	struct strbuf parent = STRBUF_INIT;
	int layers = m->nlayers;

	strbuf_addf(&parent, "Module.relu.ReLU.forward.%d", c->relu0 + i);
	record_stack(d, stack_key(layers, STACK_MODULE, i + 1), parent.buf);
	strbuf_reset(&d->entry);
	strbuf_addf(&d->entry, "Functional.relu.%d.forward", c->relu0 + i);
	entry_begin(d, stack_key(layers, STACK_RELU, i + 1), true, parent.buf);
	tensor_list(d, "input_args", "input", in, 1);
	/* the scalar fault: fc1's ReLU is called with inplace=True, its tensors unchanged */
	inplace_kwargs(d, i == 0 && m->fault == GEN_FAULT_SCALAR);
	tensor_list(d, "output", "output", out, 1);
	entry_end(d);

	strbuf_reset(&d->entry);
	strbuf_addbuf(&d->entry, &parent);
	entry_begin(d, NO_STACK, true, NULL);
	tensor_list(d, "input_args", "input", in, 1);
	empty_object(d, "input_kwargs");
	tensor_list(d, "output", "output", out, 1);
	empty_object(d, "parameters");
	entry_end(d);
	strbuf_release(&parent);
}

static void dump_mse_loss_forward(struct rank_dump *d, struct model *m, const struct counters *c)
{
	struct tensor *args[] = { &m->layers[m->nlayers - 1].output, &m->y };
	struct tensor *out[] = { &m->loss };

	strbuf_reset(&d->entry);
	strbuf_addf(&d->entry, "Functional.mse_loss.%d.forward", c->mb);
	entry_begin(d, stack_key(m->nlayers, STACK_MSE_LOSS, 0), true, NULL);
	tensor_list(d, "input_args", "input", args, 2);
	empty_object(d, "input_kwargs");
	tensor_list(d, "output", "output", out, 1);
	entry_end(d);
}

/* A backward entry: "input" (grads flowing in) and "output" (grads flowing out). */
static void dump_backward(struct rank_dump *d, struct tensor *const *in, int nin, struct tensor *const *out,
			  int nout)
{
	entry_begin(d, NO_STACK, true, NULL);
	tensor_list(d, "input", "input", in, nin);
	tensor_list(d, "output", "output", out, nout);
	entry_end(d);
}

static void dump_mse_loss_backward(struct rank_dump *d, struct model *m, const struct counters *c)
{
	struct tensor *in[] = { &m->loss_grad };
	struct tensor *out[] = { &m->layers[m->nlayers - 1].grad_output, NULL };

	strbuf_reset(&d->entry);
	strbuf_addf(&d->entry, "Functional.mse_loss.%d.backward", c->mb);
	dump_backward(d, in, 1, out, 2);
}

/* F.linear's backward as autograd's AddmmBackward gives it: grads of bias, input, weight.T. */
static void dump_linear_backward(struct rank_dump *d, struct model *m, int i, const struct counters *c)
{
	struct layer *l = &m->layers[i];
	struct tensor *in[] = { &l->grad_output };
	struct tensor *out[] = { &l->grad_bias_mb, i > 0 ? &m->layers[i - 1].grad_activation : NULL,
				 &l->grad_weight_t };

	strbuf_reset(&d->entry);
	strbuf_addf(&d->entry, "Functional.linear.%d.backward", c->linear0 + i);
	dump_backward(d, in, 1, out, 3);
}

/* param.grad after this micro-batch, bias first: its AccumulateGrad hook fires first. */
static void dump_parameters_grad(struct rank_dump *d, struct model *m, int i, const struct counters *c)
{
	struct layer *l = &m->layers[i];
	struct tensor *bias[] = { &l->grad_bias };
	struct tensor *weight[] = { &l->grad_weight };

	strbuf_reset(&d->entry);
	strbuf_addf(&d->entry, "Module.fc%d.Linear.parameters_grad.%d", i + 1, c->mb);
	entry_begin(d, NO_STACK, false, NULL);
	tensor_list(d, "bias", NULL, bias, 1);
	tensor_list(d, "weight", NULL, weight, 1);
	entry_end(d);
}

static void dump_relu_backward(struct rank_dump *d, struct model *m, int i, const struct counters *c)
{
	struct layer *l = &m->layers[i];
	struct tensor *in[] = { &l->grad_activation };
	struct tensor *out[] = { &l->grad_output };

	strbuf_reset(&d->entry);
	strbuf_addf(&d->entry, "Functional.relu.%d.backward", c->relu0 + i);
	dump_backward(d, in, 1, out, 1);
}

static void forward_pass(struct model *m, struct rank_dump *d, const struct counters *c)
{
	for (int i = 0; i < m->nlayers; i++) {
		linear_forward(m, i);
		dump_linear_forward(d, m, i, c);
		if (m->layers[i].hidden) {
			relu_forward(&m->layers[i]);
			dump_relu_forward(d, m, i, c);
		}
	}
	mse_loss_forward(m);
	dump_mse_loss_forward(d, m, c);
}

static void backward_pass(struct model *m, struct rank_dump *d, const struct counters *c)
{
	mse_loss_backward(m);
	grad_fault(m, m->nlayers - 1);
	dump_mse_loss_backward(d, m, c);
	for (int i = m->nlayers - 1; i >= 0; i--) {
		linear_backward(m, i, c->mb == 0);
		dump_linear_backward(d, m, i, c);
		dump_parameters_grad(d, m, i, c);
		if (i > 0) {
			relu_backward(&m->layers[i - 1]);
			grad_fault(m, i - 1);
			dump_relu_backward(d, m, i - 1, c);
		}
	}
}

static void train_micro_batch(struct model *m, struct rank_dump *d, const struct gen_config *cfg, int step,
			      int rank, int mb)
{
	struct counters c = { .mb = mb, .linear0 = mb * m->nlayers, .relu0 = mb * (m->nlayers - 1) };
	load_batch(m, cfg, step, rank, mb);
	forward_pass(m, d, &c);
	backward_pass(m, d, &c);
}

/* ------------------------------------------------------------------ */
/* Data parallelism: dist.all_reduce(p.grad, op=AVG, group=group) for each parameter */

static void reduce_op_leaf(struct genio_json *w)
{
	genio_json_open(w, '{');
	genio_json_key(w, "type");
	genio_json_string(w, "torch.distributed.ReduceOp");
	genio_json_key(w, "value");
	genio_json_string(w, "RedOpType.AVG");
	genio_json_close(w, '}');
}

/* {"type": "torch.ProcessGroup", "group_ranks": [...], "group_id": CRC-32 of str(group_ranks)} */
static void process_group_leaf(struct genio_json *w, int ranks)
{
	struct strbuf text = STRBUF_INIT;
	char id[9];

	strbuf_addch(&text, '[');
	for (int r = 0; r < ranks; r++)
		strbuf_addf(&text, "%s%d", r ? ", " : "", r);
	strbuf_addch(&text, ']');
	snprintf(id, sizeof(id), "%08lx",
		 (unsigned long)(crc32(crc32(0L, Z_NULL, 0), (const Bytef *)text.buf, (uInt)text.len) & 0xffffffffUL));
	genio_json_open(w, '{');
	genio_json_key(w, "type");
	genio_json_string(w, "torch.ProcessGroup");
	genio_json_key(w, "group_ranks");
	genio_json_open(w, '[');
	for (int r = 0; r < ranks; r++)
		genio_json_int(w, r);
	genio_json_close(w, ']');
	genio_json_key(w, "group_id");
	genio_json_string(w, id);
	genio_json_close(w, '}');
	strbuf_release(&text);
}

/* The mean over ranks, summed in rank order in float32: every rank gets the same bits. */
static void average_over_ranks(struct tensor *avg, struct tensor *const *grads, int ranks)
{
	for (size_t i = 0; i < avg->n; i++) {
		float sum = 0.0f;
		for (int r = 0; r < ranks; r++)
			sum += grads[r]->v[i];
		avg->v[i] = sum / (float)ranks;
	}
	tensor_changed(avg);
}

static void dump_all_reduce(struct rank_dump *d, int k, struct tensor *grad, struct tensor *reduced, int ranks)
{
	strbuf_reset(&d->entry);
	strbuf_addf(&d->entry, "Distributed.all_reduce.%d.forward", k);
	entry_begin(d, stack_key(d->cfg->layers, STACK_ALL_REDUCE, 0), true, NULL);
	tensor_list(d, "input_args", "input", &grad, 1);
	genio_json_key(&d->json, "input_kwargs");
	genio_json_open(&d->json, '{');
	genio_json_key(&d->json, "op");
	reduce_op_leaf(&d->json);
	genio_json_key(&d->json, "group");
	process_group_leaf(&d->json, ranks);
	genio_json_close(&d->json, '}');
	/* a collective's output: its positional args, then its kwargs values, after the operation */
	genio_json_key(&d->json, "output");
	genio_json_open(&d->json, '[');
	tensor_leaf(d, reduced, "output", "0");
	reduce_op_leaf(&d->json);
	process_group_leaf(&d->json, ranks);
	genio_json_close(&d->json, ']');
	entry_end(d);
}

static void average_gradients(struct model *models, struct rank_dump *dumps, int ranks)
{
	struct tensor **grads = xcalloc((size_t)ranks, sizeof(*grads));
	int k = 0;

	for (int i = 0; i < models[0].nlayers; i++) {
		for (int p = 0; p < 2; p++, k++) {
			struct tensor reduced;
			for (int r = 0; r < ranks; r++) {
				struct layer *l = &models[r].layers[i];
				grads[r] = p == 0 ? &l->grad_weight : &l->grad_bias;
			}
			tensor_init(&reduced, grads[0]->ndim, grads[0]->shape[0], grads[0]->shape[1], false);
			average_over_ranks(&reduced, grads, ranks);
			for (int r = 0; r < ranks; r++) {
				/* the faulty rank receives a result the others do not: the first one, 1e-3 off at [0][0] */
				bool corrupt = k == 0 && models[r].fault == GEN_FAULT_ALL_REDUCE;
				if (corrupt) {
					reduced.v[0] += 1e-3f;
					tensor_changed(&reduced);
				}
				dump_all_reduce(&dumps[r], k, grads[r], &reduced, ranks);
				tensor_copy_values(grads[r], &reduced);
				if (corrupt) {
					reduced.v[0] -= 1e-3f;
					tensor_changed(&reduced);
				}
			}
			tensor_release(&reduced);
		}
	}
	free(grads);
}

/* ------------------------------------------------------------------ */
/* The zoo: entries whose two sides exercise the tensor metrics and the readers (the table in gendump.h) */

#define ZOO_MAX 64
#define ZOO_SEED UINT64_C(20240229) /* the zoo is fixed: --seed does not move it */
#define ZOO_FILLER (-999.0)         /* storage elements outside a view: wrong if they show up */

enum zoo_view {
	ZOO_CONTIGUOUS,
	ZOO_TRANSPOSED, /* [r, c] saved as the transpose of a row-major [c, r] storage: strides (1, r) */
	ZOO_STEP,       /* [n] saved as every other element of a storage of 2n: stride 2 */
	ZOO_OFFSET,     /* saved at offset 7 of a larger storage */
};

enum zoo_file {
	ZOO_FILE,
	ZOO_NO_FILE,      /* data_name names a file that is not there */
	ZOO_TRUNCATED,    /* the file is cut to half its length */
	ZOO_NO_DATA_NAME, /* data_name is "-1", and there is no file */
};

struct zoo_side {
	enum dtype dtype;
	int ndim;
	int64_t shape[2];
	double v[ZOO_MAX]; /* the values in C order (complex: the real parts; the imaginary ones are i / 4) */
	enum zoo_view view;
	enum zoo_file file;
};

static const double zoo_base[8] = { 0.5, -1.25, 2.0, 3.5, -0.75, 1.0, 4.0, -2.5 }; /* exact down to float8 */

static int64_t zoo_numel(const struct zoo_side *s)
{
	int64_t n = 1;
	for (int i = 0; i < s->ndim; i++)
		n *= s->shape[i];
	return n;
}

static void zoo_shape(struct zoo_side *s, enum dtype d, int ndim, int64_t rows, int64_t cols)
{
	s->dtype = d;
	s->ndim = ndim;
	s->shape[0] = rows;
	s->shape[1] = cols;
}

/* float32 [8] holding zoo_base: what every case starts from on both sides. */
static void zoo_default(struct zoo_side *s)
{
	*s = (struct zoo_side){ .view = ZOO_CONTIGUOUS, .file = ZOO_FILE };
	zoo_shape(s, DT_FLOAT32, 1, 8, 0);
	memcpy(s->v, zoo_base, sizeof(zoo_base));
}

static void zoo_fill(struct zoo_side *s, double v)
{
	for (int i = 0; i < ZOO_MAX; i++)
		s->v[i] = v;
}

/* Normal float32 values from the zoo's own stream. */
static void zoo_normal(struct zoo_side *s, uint64_t stream)
{
	uint64_t rng = genio_rng_stream(ZOO_SEED, RNG_INPUT, stream, 0, 0);
	for (int i = 0; i < ZOO_MAX; i++)
		s->v[i] = genio_rng_normal(&rng);
}

/* Every type: zoo_base in it (1..8 or +-1..8 for integers, a pattern for bool), the target one step off at [6]. */
static void zoo_dtype(struct zoo_side *t, struct zoo_side *g, enum dtype d)
{
	static const double ints[8] = { 1, -2, 3, 4, -5, 6, 7, -8 }, uints[8] = { 1, 2, 3, 4, 5, 6, 7, 8 },
			    bools[8] = { 1, 0, 1, 1, 0, 1, 1, 0 };
	enum dtype_class cls = dtype_info(d)->cls;
	const double *v = cls == DTC_SIGNED ? ints : cls == DTC_UNSIGNED ? uints : cls == DTC_BOOL ? bools : zoo_base;

	zoo_shape(t, d, 1, 8, 0);
	zoo_shape(g, d, 1, 8, 0);
	memcpy(t->v, v, sizeof(zoo_base));
	memcpy(g->v, v, sizeof(zoo_base));
	t->v[6] = cls == DTC_BOOL ? 0 : cls == DTC_FLOAT || cls == DTC_COMPLEX ? 3.5 : 6;
}

static void zoo_identical(struct zoo_side *t, struct zoo_side *g, enum dtype d)
{
	zoo_shape(g, DT_FLOAT32, 2, 4, 4);
	zoo_normal(g, 1);
	*t = *g;
}

/* Relative errors of 1e-4 everywhere but [5], 2e-3: between msprobe's two thresholds. */
static void zoo_small_diff(struct zoo_side *t, struct zoo_side *g, enum dtype d)
{
	zoo_shape(g, DT_FLOAT32, 1, 64, 0);
	zoo_normal(g, 2);
	*t = *g;
	for (int i = 0; i < 64; i++)
		t->v[i] = (float)g->v[i] * (i == 5 ? 1.002f : 1.0001f);
}

static void zoo_dtype_mismatch(struct zoo_side *t, struct zoo_side *g, enum dtype d)
{
	zoo_shape(g, DT_FLOAT32, 1, 16, 0);
	zoo_normal(g, 3);
	*t = *g;
	t->dtype = DT_FLOAT16;
	for (int i = 0; i < 16; i++)
		t->v[i] = dtype_half_to_float(dtype_float_to_half((float)g->v[i]));
}

static void zoo_shape_mismatch(struct zoo_side *t, struct zoo_side *g, enum dtype d)
{
	zoo_shape(t, DT_FLOAT32, 2, 3, 5);
	zoo_shape(g, DT_FLOAT32, 2, 5, 3);
	for (int i = 0; i < 15; i++)
		t->v[i] = g->v[i] = i * 0.5 - 3;
}

/* 0-d: 3 against 5 in the given type (10 against 10.5 for floats). */
static void zoo_scalar(struct zoo_side *t, struct zoo_side *g, enum dtype d)
{
	bool real = dtype_info(d)->cls == DTC_FLOAT;
	zoo_shape(t, d, 0, 0, 0);
	zoo_shape(g, d, 0, 0, 0);
	t->v[0] = real ? 10.0 : 3;
	g->v[0] = real ? 10.5 : 5;
}

static void zoo_empty(struct zoo_side *t, struct zoo_side *g, enum dtype d)
{
	zoo_shape(t, DT_FLOAT32, 2, 0, 4);
	zoo_shape(g, DT_FLOAT32, 2, 0, 4);
}

static void zoo_one_element(struct zoo_side *t, struct zoo_side *g, enum dtype d)
{
	zoo_shape(t, DT_FLOAT32, 1, 1, 0);
	zoo_shape(g, DT_FLOAT32, 1, 1, 0);
	t->v[0] = 2.0;
	g->v[0] = 2.5;
}

static void zoo_nan_inf_same(struct zoo_side *t, struct zoo_side *g, enum dtype d)
{
	g->v[2] = NAN;
	g->v[5] = INFINITY;
	g->v[7] = -INFINITY;
	*t = *g;
	t->v[0] = 0.625;
}

static void zoo_nan_inf_diff(struct zoo_side *t, struct zoo_side *g, enum dtype d)
{
	g->v[2] = NAN;
	t->v[3] = NAN;
}

static void zoo_inf_sign(struct zoo_side *t, struct zoo_side *g, enum dtype d)
{
	t->v[4] = INFINITY;
	g->v[4] = -INFINITY;
}

static void zoo_golden_zero(struct zoo_side *t, struct zoo_side *g, enum dtype d)
{
	g->v[1] = 0;
	g->v[3] = 0;
}

static void zoo_zeros_target(struct zoo_side *t, struct zoo_side *g, enum dtype d)
{
	zoo_fill(t, 0);
}

static void zoo_zeros_golden(struct zoo_side *t, struct zoo_side *g, enum dtype d)
{
	zoo_fill(g, 0);
}

static void zoo_zeros_both(struct zoo_side *t, struct zoo_side *g, enum dtype d)
{
	zoo_fill(t, 0);
	zoo_fill(g, 0);
}

/* The same values on both sides, one side saved as a view. */
static void zoo_view(struct zoo_side *t, struct zoo_side *g, enum dtype d)
{
	for (int i = 0; i < 12; i++)
		t->v[i] = g->v[i] = i * 0.25 - 1;
}

static void zoo_view_transposed(struct zoo_side *t, struct zoo_side *g, enum dtype d)
{
	zoo_view(t, g, d);
	zoo_shape(t, DT_FLOAT32, 2, 4, 3);
	zoo_shape(g, DT_FLOAT32, 2, 4, 3);
	t->view = ZOO_TRANSPOSED;
}

static void zoo_view_step(struct zoo_side *t, struct zoo_side *g, enum dtype d)
{
	zoo_view(t, g, d);
	zoo_shape(t, DT_FLOAT32, 1, 6, 0);
	zoo_shape(g, DT_FLOAT32, 1, 6, 0);
	g->view = ZOO_STEP;
}

static void zoo_view_offset(struct zoo_side *t, struct zoo_side *g, enum dtype d)
{
	zoo_view(t, g, d);
	zoo_shape(t, DT_FLOAT32, 2, 2, 4);
	zoo_shape(g, DT_FLOAT32, 2, 2, 4);
	t->view = ZOO_OFFSET;
}

static void zoo_missing_file(struct zoo_side *t, struct zoo_side *g, enum dtype d)
{
	t->file = ZOO_NO_FILE;
}

static void zoo_truncated(struct zoo_side *t, struct zoo_side *g, enum dtype d)
{
	t->file = ZOO_TRUNCATED;
}

static void zoo_no_data_name(struct zoo_side *t, struct zoo_side *g, enum dtype d)
{
	t->file = ZOO_NO_DATA_NAME;
}

static const struct zoo_case {
	const char *name;
	void (*fill)(struct zoo_side *target, struct zoo_side *golden, enum dtype d);
	enum dtype dtype;
} zoo_cases[] = {
	{ "dtype_float64", zoo_dtype, DT_FLOAT64 },
	{ "dtype_float32", zoo_dtype, DT_FLOAT32 },
	{ "dtype_float16", zoo_dtype, DT_FLOAT16 },
	{ "dtype_bfloat16", zoo_dtype, DT_BFLOAT16 },
	{ "dtype_float8_e4m3fn", zoo_dtype, DT_FLOAT8_E4M3FN },
	{ "dtype_float8_e5m2", zoo_dtype, DT_FLOAT8_E5M2 },
	{ "dtype_int64", zoo_dtype, DT_INT64 },
	{ "dtype_int32", zoo_dtype, DT_INT32 },
	{ "dtype_int16", zoo_dtype, DT_INT16 },
	{ "dtype_int8", zoo_dtype, DT_INT8 },
	{ "dtype_uint8", zoo_dtype, DT_UINT8 },
	{ "dtype_bool", zoo_dtype, DT_BOOL },
	{ "dtype_complex64", zoo_dtype, DT_COMPLEX64 },
	{ "identical", zoo_identical, DT_FLOAT32 },
	{ "small_diff", zoo_small_diff, DT_FLOAT32 },
	{ "dtype_mismatch", zoo_dtype_mismatch, DT_FLOAT32 },
	{ "shape_mismatch", zoo_shape_mismatch, DT_FLOAT32 },
	{ "scalar_float32", zoo_scalar, DT_FLOAT32 },
	{ "scalar_uint8", zoo_scalar, DT_UINT8 },
	{ "scalar_int64", zoo_scalar, DT_INT64 },
	{ "empty", zoo_empty, DT_FLOAT32 },
	{ "one_element", zoo_one_element, DT_FLOAT32 },
	{ "nan_inf_same", zoo_nan_inf_same, DT_FLOAT32 },
	{ "nan_inf_diff", zoo_nan_inf_diff, DT_FLOAT32 },
	{ "inf_sign", zoo_inf_sign, DT_FLOAT32 },
	{ "golden_zero", zoo_golden_zero, DT_FLOAT32 },
	{ "zeros_target", zoo_zeros_target, DT_FLOAT32 },
	{ "zeros_golden", zoo_zeros_golden, DT_FLOAT32 },
	{ "zeros_both", zoo_zeros_both, DT_FLOAT32 },
	{ "view_transposed", zoo_view_transposed, DT_FLOAT32 },
	{ "view_step", zoo_view_step, DT_FLOAT32 },
	{ "view_offset", zoo_view_offset, DT_FLOAT32 },
	{ "missing_file", zoo_missing_file, DT_FLOAT32 },
	{ "truncated", zoo_truncated, DT_FLOAT32 },
	{ "no_data_name", zoo_no_data_name, DT_FLOAT32 },
};

/* One element of type d at out (complex: v + im i). */
static void store_element(enum dtype d, double v, double im, unsigned char *out)
{
	union { double f64; float f32[2]; int64_t i64; int32_t i32; int16_t i16; int8_t i8; uint8_t u8;
		uint16_t u16; } u = { 0 };
	switch (d) {
	case DT_FLOAT64: u.f64 = v; break;
	case DT_FLOAT32: u.f32[0] = (float)v; break;
	case DT_FLOAT16: u.u16 = dtype_float_to_half((float)v); break;
	case DT_BFLOAT16: u.u16 = dtype_float_to_bf16((float)v); break;
	case DT_FLOAT8_E4M3FN: u.u8 = dtype_float_to_f8e4m3fn((float)v); break;
	case DT_FLOAT8_E5M2: u.u8 = dtype_float_to_f8e5m2((float)v); break;
	case DT_INT64: u.i64 = (int64_t)v; break;
	case DT_INT32: u.i32 = (int32_t)v; break;
	case DT_INT16: u.i16 = (int16_t)v; break;
	case DT_INT8: u.i8 = (int8_t)v; break;
	case DT_UINT8: u.u8 = (uint8_t)v; break;
	case DT_BOOL: u.u8 = v != 0; break;
	case DT_COMPLEX64: u.f32[0] = (float)v; u.f32[1] = (float)im; break;
	default: die("internal error: the zoo has no %s case", dtype_info(d)->name);
	}
	memcpy(out, &u, dtype_info(d)->size);
}

/* A side as saved: its elements in C order, and the storage and view its file holds. */
struct zoo_saved {
	unsigned char *elems, *storage;
	struct tensor_src src;
	int64_t shape[2], stride[2];
};

static void zoo_save_layout(struct zoo_saved *z, const struct zoo_side *s, int64_t n)
{
	unsigned size = dtype_info(s->dtype)->size;
	int64_t storage_n = s->view == ZOO_STEP ? 2 * n : s->view == ZOO_OFFSET ? n + 12 : n;

	z->storage = xmalloc(st_mult((size_t)storage_n + 1, size));
	for (int64_t i = 0; i < storage_n; i++)
		store_element(s->dtype, ZOO_FILLER, 0, z->storage + i * size);
	z->src = (struct tensor_src){ .dtype = s->dtype, .storage = z->storage, .storage_numel = storage_n,
				      .ndim = s->ndim, .shape = z->shape };
	for (int64_t i = 0; i < n; i++) {
		int64_t at = i;
		if (s->view == ZOO_TRANSPOSED) /* element (r, c) of the view is (c, r) of the storage */
			at = (i % s->shape[1]) * s->shape[0] + i / s->shape[1];
		else if (s->view == ZOO_STEP)
			at = 2 * i;
		else if (s->view == ZOO_OFFSET)
			at = 7 + i;
		memcpy(z->storage + at * size, z->elems + i * size, size);
	}
	if (s->view == ZOO_TRANSPOSED) {
		z->stride[0] = 1;
		z->stride[1] = s->shape[0];
		z->src.stride = z->stride;
	} else if (s->view == ZOO_STEP) {
		z->stride[0] = 2;
		z->src.stride = z->stride;
	}
	z->src.offset = s->view == ZOO_OFFSET ? 7 : 0;
}

static void zoo_save(struct zoo_saved *z, const struct zoo_side *s)
{
	unsigned size = dtype_info(s->dtype)->size;
	int64_t n = zoo_numel(s);

	z->elems = xmalloc(st_mult((size_t)n + 1, size));
	for (int64_t i = 0; i < n; i++)
		store_element(s->dtype, s->v[i], i / 4.0, z->elems + i * size);
	z->shape[0] = s->shape[0];
	z->shape[1] = s->shape[1];
	zoo_save_layout(z, s, n);
}

static void zoo_saved_release(struct zoo_saved *z)
{
	free(z->elems);
	free(z->storage);
}

/* The file of a zoo leaf, with its fault: none, missing, cut in half. */
static void zoo_file(struct rank_dump *d, const struct zoo_side *s, const struct zoo_saved *z,
		     const char *data_name)
{
	struct strbuf path = STRBUF_INIT;
	struct stat st;

	if (s->file == ZOO_NO_FILE || s->file == ZOO_NO_DATA_NAME)
		return;
	save_tensor_file(d, data_name, &z->src);
	if (s->file != ZOO_TRUNCATED)
		return;
	strbuf_addf(&path, "%s/dump_tensor_data/%s", d->dir.buf, data_name);
	if (stat(path.buf, &st) < 0 || truncate(path.buf, st.st_size / 2) < 0)
		die_errno("cannot truncate %s", path.buf);
	strbuf_release(&path);
}

static void zoo_leaf(struct rank_dump *d, const struct zoo_side *s, const char *io)
{
	struct zoo_saved z;
	struct strbuf row = STRBUF_INIT, data_name = STRBUF_INIT;
	char stat[4][32], crc[9];
	struct leaf l;

	zoo_save(&z, s);
	genio_summarize(s->dtype, z.elems, (size_t)zoo_numel(s), s->ndim, stat);
	genio_crc(z.elems, (size_t)zoo_numel(s) * dtype_info(s->dtype)->size, crc);
	strbuf_addf(&row, "%s.%s.0", d->entry.buf, io);
	if (d->cfg->task == GEN_TASK_TENSOR) {
		if (s->file == ZOO_NO_DATA_NAME)
			strbuf_addstr(&data_name, "-1");
		else
			data_name_of(d, row.buf, &data_name);
		zoo_file(d, s, &z, data_name.buf);
	}
	l = (struct leaf){ .dtype = s->dtype, .ndim = s->ndim, .shape = z.shape, .stat = stat, .crc = crc,
			   .data_name = data_name.buf };
	write_leaf(d, &l);
	zoo_saved_release(&z);
	strbuf_release(&row);
	strbuf_release(&data_name);
}

static void zoo_tensor_list(struct rank_dump *d, const char *key, const char *io, const struct zoo_side *s)
{
	genio_json_key(&d->json, key);
	genio_json_open(&d->json, '[');
	zoo_leaf(d, s, io);
	genio_json_close(&d->json, ']');
}

/*
 * Tensor.zoo_<case>.0.forward for every case: input.0 is float32 [1, 2,
 * 3, 4] on both sides (so that msprobe's input-versus-output rules see a
 * perfect input), output.0 is the case's target or golden tensor.
 */
static void dump_zoo(struct rank_dump *d, bool target)
{
	struct zoo_side input = { .dtype = DT_FLOAT32, .ndim = 1, .shape = { 4 }, .v = { 1, 2, 3, 4 } };

	for (size_t i = 0; i < ARRAY_SIZE(zoo_cases); i++) {
		struct zoo_side t, g;
		zoo_default(&t);
		zoo_default(&g);
		zoo_cases[i].fill(&t, &g, zoo_cases[i].dtype);
		strbuf_reset(&d->entry);
		strbuf_addf(&d->entry, "Tensor.zoo_%s.0.forward", zoo_cases[i].name);
		entry_begin(d, NO_STACK, true, NULL);
		zoo_tensor_list(d, "input_args", "input", &input);
		empty_object(d, "input_kwargs");
		zoo_tensor_list(d, "output", "output", target ? &t : &g);
		entry_end(d);
	}
}

/* ------------------------------------------------------------------ */

static void run_training(const struct gen_config *cfg, bool target)
{
	const char *side = target ? "target" : "golden";
	struct model *models = xcalloc((size_t)cfg->ranks, sizeof(*models));
	struct rank_dump *dumps = xcalloc((size_t)cfg->ranks, sizeof(*dumps));

	for (int r = 0; r < cfg->ranks; r++)
		model_init(&models[r], cfg, target && r == cfg->fault_rank ? cfg->fault : GEN_FAULT_NONE);
	for (int step = 0; step < cfg->steps; step++) {
		for (int r = 0; r < cfg->ranks; r++) {
			rank_dump_open(&dumps[r], cfg, side, step, r);
			for (int mb = 0; mb < cfg->micro_batches; mb++)
				train_micro_batch(&models[r], &dumps[r], cfg, step, r, mb);
		}
		if (cfg->ranks > 1)
			average_gradients(models, dumps, cfg->ranks);
		for (int r = 0; r < cfg->ranks; r++) {
			if (cfg->zoo)
				dump_zoo(&dumps[r], target);
			rank_dump_close(&dumps[r]);
			sgd_update(&models[r]);
		}
	}
	for (int r = 0; r < cfg->ranks; r++)
		model_release(&models[r]);
	free(models);
	free(dumps);
}

void gendump_write(const struct gen_config *cfg)
{
	run_training(cfg, false);
	run_training(cfg, true);
	if (cfg->print_tensors && (fflush(stdout) || ferror(stdout)))
		die_errno("cannot write standard output");
}
