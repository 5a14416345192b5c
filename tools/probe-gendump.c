/*
 * probe-gendump: example msprobe dumps of a golden run and a faulty run:
 * a simulated MLP training (gendump.h), verl's training against
 * inference check (genverl.h), MindIE's ATB inference (genatb.h) or a
 * small decoder in mixed precision against float32 with a planted bug
 * (gendecoder.h); or msprobe's config_check packs of two runs (genpack.h).
 */
#include "../lib/testdata/gendump.h"
#include "../lib/testdata/genverl.h"
#include "../lib/testdata/genatb.h"
#include "../lib/testdata/genpack.h"
#include "../lib/testdata/genckpt.h"
#include "../lib/testdata/gendecoder.h"
#include "../lib/core/msg.h"
#include "../lib/core/opt.h"

enum {
	OPT_MODE = 256,
	OPT_PT_LAYOUT,
	OPT_FORMAT,
	OPT_FRAMEWORK,
	OPT_DTYPE,
	OPT_FAULT,
	OPT_FAULT_RANK,
	OPT_STEPS,
	OPT_RANKS,
	OPT_MICRO_BATCHES,
	OPT_LAYERS,
	OPT_WIDTH,
	OPT_BATCH,
	OPT_ZOO,
	OPT_SEED,
	OPT_PRINT_TENSORS,
	OPT_SAVE_CHILD,
	OPT_FILTER_LEVEL,
	OPT_DEVICE,
	OPT_CKPT_LAYOUT,
	OPT_TP,
	OPT_PP,
	OPT_SHARDS,
	OPT_VPP,
	OPT_EP,
	OPT_EXPERTS,
	OPT_PRECISION,
	OPT_FAULT_LAYER,
};

static const struct opt_spec options[] = {
	{ OPT_MODE, 0, "mode", "MODE",
	  "statistics (default), md5: also each tensor's CRC-32, or tensor: also each tensor's data",
	  "statistics|md5|tensor", 0 },
	{ OPT_PT_LAYOUT, 0, "pt-layout", "LAYOUT", "tensor mode: .pt files as torch 1.13 (default) or torch 2.x writes them",
	  "torch1|torch2", 0 },
	{ OPT_FORMAT, 0, "format", "FORMAT", "tensor mode: pt (default, torch.save) or npy (MindSpore's numpy.save)",
	  "pt|npy", 0 },
	{ OPT_FRAMEWORK, 0, "framework", "RUNS",
	  "the MLP's runs as pytorch (default) or mindspore, or a mindspore target against a pytorch golden; "
	  "or verl's fsdp or megatron training dump against its vllm inference dump; or atb: MindIE's ATB "
	  "dumps of a tiny decoder's inference; or config-check: msprobe's config_check packs of two runs, "
	  "bench.zip and cmp.zip; or checkpoint: model checkpoints of two runs; or decoder: a small LLaMA-style "
	  "decoder's forward pass, the target in --precision against a float32 golden, with needle.json",
	  "pytorch|mindspore|mindspore-pytorch|verl-fsdp|verl-megatron|atb|config-check|checkpoint|decoder", 0 },
	{ OPT_DTYPE, 0, "dtype", "TYPE",
	  "what tensors are saved as, computed in float32 (default float32; verl: bfloat16, float16 refused)",
	  "float32|float16|bfloat16", 0 },
	{ OPT_FAULT, 0, "fault", "KIND",
	  "fault injected into the target run (default fc2-weight); verl's, in its training run: down-proj "
	  "(default: layer 1's down projection output), q-weight (layer 0's q_proj weight) or none; atb's: "
	  "add-kernel (default: layer 1's AddBF16Kernel output), linear-weight (layer 1's Linear weight) or "
	  "none; config-check's, in cmp.zip: a comma-separated list of env, pip, lr, seed, dataset, weight, "
	  "random, or all (default) or none; checkpoint's: perturb (default: one element of the last layer's fc2 "
	  "weight), missing, reshape, dtype or none; decoder's, in layer --fault-layer: scale (default), eps, "
	  "softmax-fp16, weight, kernel, hook or none; the rows each makes differ: probe-gendump(1)",
	  GEN_FAULT_CHOICES "|down-proj|q-weight|add-kernel|linear-weight|" GENPACK_FAULT_CHOICES
	  "|perturb|missing|reshape|scale|eps|softmax-fp16|kernel|hook",
	  0 },
	{ OPT_FAULT_RANK, 0, "fault-rank", "R", "rank that carries the fault (default 0)", NULL, 0 },
	{ OPT_STEPS, 0, "steps", "N",
	  "training steps, with an SGD update between them (default 1); atb: execution counts (default 1)", NULL, 0 },
	{ OPT_RANKS, 0, "ranks", "N", "data-parallel ranks, gradients averaged by all_reduce (default 1)", NULL,
	  0 },
	{ OPT_MICRO_BATCHES, 0, "micro-batches", "M", "forward+backward passes per step (default 1)", NULL, 0 },
	{ OPT_LAYERS, 0, "layers", "L",
	  "Linear layers, at least 2 (default 3); atb: Prefill_layer layers, at least 1 (default 2)", NULL, 0 },
	{ OPT_WIDTH, 0, "width", "W", "hidden width: the weights are W x W (default 16)", NULL, 0 },
	{ OPT_BATCH, 0, "batch", "B", "rows per micro-batch (default 4); atb: tokens of each prefill (default 4)",
	  NULL, 0 },
	{ OPT_ZOO, 0, "zoo", NULL, "append the zoo: entries whose tensors exercise every metric rule", NULL, 0 },
	{ OPT_SEED, 0, "seed", "S", "seed of weights, inputs and targets (default 1)", NULL, 0 },
	{ OPT_PRINT_TENSORS, 0, "print-tensors", NULL,
	  "print every tensor of the golden run's step 0 rank 0 on stdout (for checking)", NULL, 0 },
	{ OPT_SAVE_CHILD, 0, "save-child", NULL,
	  "atb: also dump each layer's operations and kernels (ATB's save_child; default the layers only)", NULL, 0 },
	{ OPT_FILTER_LEVEL, 0, "filter-level", "N",
	  "atb, tensor mode: 0 (default) every file in full, or 1: a tensor several ops hold saved once, its "
	  "other files naming the first (data=)",
	  "0|1", 0 },
	{ OPT_DEVICE, 0, "device", "N", "atb: the device id, the <device> of <device>_<pid> (default 0)", NULL, 0 },
	{ OPT_CKPT_LAYOUT, 0, "ckpt-layout", "LAYOUT",
	  "checkpoint: Megatron's legacy folders (default), a .pt state dict, a .safetensors file or a Hugging Face "
	  "folder of safetensors shards with an index",
	  GENCKPT_LAYOUT_CHOICES, 0 },
	{ OPT_TP, 0, "tp", "N", "checkpoint, megatron: tensor-parallel size (default 2)", NULL, 0 },
	{ OPT_PP, 0, "pp", "N", "checkpoint, megatron: pipeline-parallel size (default 2)", NULL, 0 },
	{ OPT_SHARDS, 0, "shards", "N", "checkpoint, hf: safetensors shard files (default 2)", NULL, 0 },
	{ OPT_VPP, 0, "vpp", "N", "checkpoint, megatron: virtual pipeline stages, model0, model1, ... (default 1)", NULL, 0 },
	{ OPT_EP, 0, "ep", "N", "checkpoint, megatron: expert-parallel size (default 1)", NULL, 0 },
	{ OPT_EXPERTS, 0, "experts", "N", "checkpoint: experts a layer, a multiple of --ep (default 0: a dense MLP)", NULL, 0 },
	{ OPT_PRECISION, 0, "precision", "P",
	  "decoder: the target's precision, fp32 (the golden's), bf16 (default) or fp16 autocast, or fp32-kernels "
	  "(float32, reductions in another order)",
	  GENDEC_PRECISION_CHOICES, 0 },
	{ OPT_FAULT_LAYER, 0, "fault-layer", "N", "decoder: the layer that carries the fault (default 1)", NULL, 0 },
};

static const struct tool_spec spec = {
	.name = "probe-gendump",
	.synopsis = "[--mode MODE] [--pt-layout LAYOUT] [--format FORMAT] [--framework RUNS] [--dtype TYPE] [--fault KIND] "
		    "[--fault-rank R] [--steps N] [--ranks N] [--micro-batches M] [--layers L] [--width W] "
		    "[--batch B] [--zoo] [--seed S] [--print-tensors] OUTDIR\n"
		    "--framework atb [--mode MODE] [--save-child] [--filter-level N] [--device N] [--fault KIND] "
		    "[--steps N] [--layers L] [--width W] [--batch B] [--seed S] OUTDIR\n"
		    "--framework config-check [--fault KIND] [--steps N] [--ranks N] [--seed S] OUTDIR\n"
		    "--framework checkpoint [--ckpt-layout LAYOUT] [--tp N] [--pp N] [--vpp N] [--ep N] [--experts N] [--shards N] [--fault KIND] "
		    "[--layers L] [--width W] [--dtype TYPE] [--seed S] OUTDIR\n"
		    "--framework decoder [--mode MODE] [--precision P] [--fault KIND] [--fault-layer N] [--fault-rank R] "
		    "[--ranks N] [--layers L] [--width W] [--batch B] [--seed S] OUTDIR",
	.summary = "Simulate the training of a small MLP (or verl's inference and training of a tiny Qwen2, or "
		   "MindIE's inference of a tiny decoder) and write msprobe dumps of a golden run and of a target "
		   "run with an injected fault to OUTDIR/golden and OUTDIR/target (a small decoder: the target in mixed "
		   "precision, and where the fault is in OUTDIR/needle.json); or msprobe's config_check packs "
		   "of two runs to OUTDIR/bench.zip and OUTDIR/cmp.zip; or model checkpoints of two runs to "
		   "OUTDIR/golden and OUTDIR/target.",
	.opts = options,
	.nopts = ARRAY_SIZE(options),
	.operand_flags = OPT_DIR,
};

/* --framework's choices: the MLP's runs (gen_framework's order), then verl's two, atb, config-check, checkpoint, decoder. */
enum { MLP_FRAMEWORKS = 3, FW_VERL_FSDP = 3, FW_VERL_MEGATRON = 4, FW_ATB = 5, FW_CONFIG_CHECK = 6, FW_CHECKPOINT = 7,
       FW_DECODER = 8 };

/* The generators, as sets of those that take an option. */
enum { FOR_MLP = 1, FOR_VERL = 2, FOR_ATB = 4, FOR_PACK = 8, FOR_CKPT = 16, FOR_DEC = 32, FOR_ALL = 63 };

/* What the command line says, before it is known which generator runs. */
struct command {
	struct gen_config mlp;  /* every option, as the MLP generator takes them */
	int framework;          /* the index of --framework's value among its choices */
	const char *fault;      /* --fault's value, or NULL */
	bool dtype_given, layout_given, format_given, filter_given;
	bool save_child;
	int filter_level, device;
	int ckpt_layout, tp, pp, shards, vpp, ep, experts; /* --framework checkpoint: 0 when not given */
	int precision, fault_layer;                        /* --framework decoder */
	int given[32];          /* the options given, in order (the first of each), for the refusals */
	size_t ngiven;
};

static const char *long_name(int id)
{
	for (size_t i = 0; i < ARRAY_SIZE(options); i++)
		if (options[i].id == id)
			return options[i].long_name;
	return "?";
}

/* Which generators take an option. */
static unsigned takers(int id)
{
	switch (id) {
	case OPT_RANKS:
		return FOR_MLP | FOR_VERL | FOR_PACK | FOR_DEC;
	case OPT_DTYPE:
		return FOR_MLP | FOR_VERL | FOR_CKPT;
	case OPT_PT_LAYOUT:
		return FOR_MLP | FOR_VERL;
	case OPT_FAULT_RANK:
		return FOR_MLP | FOR_VERL | FOR_DEC;
	case OPT_FORMAT:
	case OPT_MICRO_BATCHES:
	case OPT_ZOO:
	case OPT_PRINT_TENSORS:
		return FOR_MLP;
	case OPT_STEPS:
		return FOR_MLP | FOR_ATB | FOR_PACK;
	case OPT_LAYERS:
	case OPT_WIDTH:
		return FOR_MLP | FOR_ATB | FOR_CKPT | FOR_DEC;
	case OPT_BATCH:
		return FOR_MLP | FOR_ATB | FOR_DEC;
	case OPT_PRECISION:
	case OPT_FAULT_LAYER:
		return FOR_DEC;
	case OPT_CKPT_LAYOUT:
	case OPT_TP:
	case OPT_PP:
	case OPT_SHARDS:
	case OPT_VPP:
	case OPT_EP:
	case OPT_EXPERTS:
		return FOR_CKPT;
	case OPT_SAVE_CHILD:
	case OPT_FILTER_LEVEL:
	case OPT_DEVICE:
		return FOR_ATB;
	case OPT_MODE:
		return FOR_MLP | FOR_VERL | FOR_ATB | FOR_DEC;
	default:
		return FOR_ALL;
	}
}

static const char *takers_text(unsigned who)
{
	switch (who) {
	case FOR_MLP: return "the MLP run";
	case FOR_MLP | FOR_VERL: return "the MLP and verl runs";
	case FOR_MLP | FOR_VERL | FOR_DEC: return "the MLP, verl and decoder runs";
	case FOR_MLP | FOR_ATB | FOR_DEC: return "the MLP, ATB and decoder runs";
	case FOR_ATB: return "--framework atb";
	case FOR_MLP | FOR_VERL | FOR_PACK | FOR_DEC: return "the MLP, verl, config-check and decoder runs";
	case FOR_MLP | FOR_ATB | FOR_PACK: return "the MLP, ATB and config-check runs";
	case FOR_MLP | FOR_VERL | FOR_ATB | FOR_DEC: return "the dumps";
	case FOR_CKPT: return "--framework checkpoint";
	case FOR_DEC: return "--framework decoder";
	case FOR_MLP | FOR_VERL | FOR_CKPT: return "the MLP, verl and checkpoint runs";
	case FOR_MLP | FOR_ATB | FOR_CKPT | FOR_DEC: return "the MLP, ATB, checkpoint and decoder runs";
	default: return "?";
	}
}

/* The name of the framework chosen (pytorch when none is given). */
static const char *framework_name(const struct command *cmd)
{
	static const char *const names[] = { "pytorch", "mindspore", "mindspore-pytorch", "verl-fsdp", "verl-megatron",
					     "atb", "config-check", "checkpoint", "decoder" };
	return names[cmd->framework];
}

/* A usage error for the first option given that the generator `gen` does not take. */
static void refuse_others(const struct command *cmd, unsigned gen)
{
	for (size_t i = 0; i < cmd->ngiven; i++) {
		unsigned who = takers(cmd->given[i]);
		if (who & gen)
			continue;
		opt_usage_error(&spec, "--%s is for %s, not for --framework %s", long_name(cmd->given[i]),
				takers_text(who), framework_name(cmd));
	}
}

static void note_given(struct command *cmd, int id)
{
	for (size_t i = 0; i < cmd->ngiven; i++)
		if (cmd->given[i] == id)
			return;
	if (cmd->ngiven < ARRAY_SIZE(cmd->given))
		cmd->given[cmd->ngiven++] = id;
}

static void parse_options(struct command *cmd, int argc, char **argv)
{
	static const enum gen_task tasks[] = { GEN_TASK_STATISTICS, GEN_TASK_MD5, GEN_TASK_TENSOR };
	static const enum dtype dtypes[] = { DT_FLOAT32, DT_FLOAT16, DT_BFLOAT16 };
	struct gen_config *cfg = &cmd->mlp;
	const char *arg;
	int c, first;

	*cmd = (struct command){ 0 };
	gendump_config_init(cfg);
	while ((c = opt_next(&spec, argc, argv, &arg, &first)) != -1) {
		switch (c) {
		case OPT_MODE:
			cfg->task = tasks[opt_choice(&spec, c, arg)];
			break;
		case OPT_PT_LAYOUT:
			cfg->pt_layout = opt_choice(&spec, c, arg) ? PT_TORCH2 : PT_TORCH1;
			cmd->layout_given = true;
			break;
		case OPT_FORMAT:
			cfg->format = opt_choice(&spec, c, arg) ? GEN_FORMAT_NPY : GEN_FORMAT_PT;
			cmd->format_given = true;
			break;
		case OPT_FRAMEWORK:
			cmd->framework = opt_choice(&spec, c, arg);
			break;
		case OPT_DTYPE:
			cfg->dtype = dtypes[opt_choice(&spec, c, arg)];
			cmd->dtype_given = true;
			break;
		case OPT_FAULT:
			cmd->fault = arg;
			break;
		case OPT_FAULT_RANK:
			cfg->fault_rank = (int)opt_number(&spec, "--fault-rank", arg, 0, GEN_MAX_RANKS - 1);
			break;
		case OPT_STEPS:
			cfg->steps = (int)opt_number(&spec, "--steps", arg, 1, 100000);
			break;
		case OPT_RANKS:
			cfg->ranks = (int)opt_number(&spec, "--ranks", arg, 1, GEN_MAX_RANKS);
			break;
		case OPT_MICRO_BATCHES:
			cfg->micro_batches = (int)opt_number(&spec, "--micro-batches", arg, 1, 100000);
			break;
		case OPT_LAYERS:
			/* at least 2 for the MLP (check_mlp_options), 1 for atb */
			cfg->layers = (int)opt_number(&spec, "--layers", arg, 1, 100000);
			break;
		case OPT_WIDTH:
			cfg->width = (int)opt_number(&spec, "--width", arg, 1, GEN_MAX_WIDTH);
			break;
		case OPT_BATCH:
			cfg->batch = (int)opt_number(&spec, "--batch", arg, 1, GEN_MAX_BATCH);
			break;
		case OPT_ZOO:
			cfg->zoo = true;
			break;
		case OPT_SEED:
			cfg->seed = (uint64_t)opt_number(&spec, "--seed", arg, 0, INT64_MAX);
			break;
		case OPT_PRINT_TENSORS:
			cfg->print_tensors = true;
			break;
		case OPT_SAVE_CHILD:
			cmd->save_child = true;
			break;
		case OPT_FILTER_LEVEL:
			cmd->filter_level = opt_choice(&spec, c, arg);
			cmd->filter_given = true;
			break;
		case OPT_DEVICE:
			cmd->device = (int)opt_number(&spec, "--device", arg, 0, ATB_MAX_DEVICE);
			break;
		case OPT_CKPT_LAYOUT:
			cmd->ckpt_layout = opt_choice(&spec, c, arg);
			break;
		case OPT_TP:
			cmd->tp = (int)opt_number(&spec, "--tp", arg, 1, GENCKPT_MAX_PARALLEL);
			break;
		case OPT_PP:
			cmd->pp = (int)opt_number(&spec, "--pp", arg, 1, GENCKPT_MAX_PARALLEL);
			break;
		case OPT_SHARDS:
			cmd->shards = (int)opt_number(&spec, "--shards", arg, 1, 100000);
			break;
		case OPT_VPP:
			cmd->vpp = (int)opt_number(&spec, "--vpp", arg, 1, GENCKPT_MAX_PARALLEL);
			break;
		case OPT_EP:
			cmd->ep = (int)opt_number(&spec, "--ep", arg, 1, GENCKPT_MAX_PARALLEL);
			break;
		case OPT_EXPERTS:
			cmd->experts = (int)opt_number(&spec, "--experts", arg, 1, 1024);
			break;
		case OPT_PRECISION:
			cmd->precision = opt_choice(&spec, c, arg);
			break;
		case OPT_FAULT_LAYER:
			cmd->fault_layer = (int)opt_number(&spec, "--fault-layer", arg, 0, GENDEC_MAX_LAYERS - 1);
			break;
		}
		note_given(cmd, c);
	}
	if (argc - first != 1)
		opt_usage_error(&spec, argc == first ? "no output directory given" : "more than one operand");
	cfg->outdir = argv[first];
}

static void check_mlp_options(struct command *cmd)
{
	struct gen_config *cfg = &cmd->mlp;
	cfg->framework = (enum gen_framework)cmd->framework;
	refuse_others(cmd, FOR_MLP);
	if (cfg->layers < 2)
		opt_usage_error(&spec, "--layers value is too small: %d", cfg->layers);
	if (cmd->fault) {
		if (gendump_fault_parse(cmd->fault) < 0)
			opt_usage_error(&spec, "unknown --fault kind: %s", cmd->fault);
		cfg->fault = (enum gen_fault)gendump_fault_parse(cmd->fault);
	}
	if (cfg->fault == GEN_FAULT_ALL_REDUCE && cfg->ranks < 2)
		opt_usage_error(&spec, "--fault all-reduce needs --ranks 2 or more: one rank has no all_reduce");
	if ((cmd->layout_given || cmd->format_given) && cfg->task != GEN_TASK_TENSOR)
		opt_usage_error(&spec, "--%s needs --mode tensor", cmd->format_given ? "format" : "pt-layout");
	if (cmd->layout_given && cfg->format == GEN_FORMAT_NPY)
		opt_usage_error(&spec, "--pt-layout is for --format pt");
}

/* The verl generator's configuration from the command line, or a usage error for what it does not take. */
static void verl_options(const struct command *cmd, struct verl_config *v)
{
	const struct gen_config *cfg = &cmd->mlp;
	const char *backend = framework_name(cmd);

	genverl_config_init(v);
	v->backend = cmd->framework == FW_VERL_FSDP ? VERL_FSDP : VERL_MEGATRON;
	refuse_others(cmd, FOR_VERL);
	if (cfg->task == GEN_TASK_MD5)
		opt_usage_error(&spec, "--mode md5 is not written for --framework %s: msprobe's consistency compare "
				       "reads statistics or tensors", backend);
	if (cmd->layout_given && cfg->task != GEN_TASK_TENSOR)
		opt_usage_error(&spec, "--pt-layout needs --mode tensor");
	if (cmd->dtype_given && cfg->dtype == DT_FLOAT16)
		opt_usage_error(&spec, "--dtype float16 is not written for --framework %s: float32 or bfloat16",
				backend);
	if (cmd->fault && genverl_fault_parse(cmd->fault) < 0)
		opt_usage_error(&spec, "unknown --fault kind for --framework %s: %s (%s)", backend, cmd->fault,
				VERL_FAULT_CHOICES);
	if (cmd->fault)
		v->fault = (enum verl_fault)genverl_fault_parse(cmd->fault);
	if (cmd->dtype_given)
		v->dtype = cfg->dtype;
	v->tensors = cfg->task == GEN_TASK_TENSOR;
	v->pt_layout = cfg->pt_layout;
	v->fault_rank = cfg->fault_rank;
	v->ranks = cfg->ranks;
	v->seed = cfg->seed;
	v->outdir = cfg->outdir;
}

/* The ATB generator's configuration from the command line, or a usage error for what it does not take. */
static void atb_options(const struct command *cmd, struct atb_config *a)
{
	const struct gen_config *cfg = &cmd->mlp;

	genatb_config_init(a);
	refuse_others(cmd, FOR_ATB);
	if (cfg->task == GEN_TASK_MD5)
		opt_usage_error(&spec, "--mode md5 is not written for --framework atb: ATB's dumper saves statistics "
				       "or tensors, no checksums");
	if (cmd->filter_given && cfg->task != GEN_TASK_TENSOR)
		opt_usage_error(&spec, "--filter-level needs --mode tensor: the statistics task saves no tensor files");
	if (cmd->fault && genatb_fault_parse(cmd->fault) < 0)
		opt_usage_error(&spec, "unknown --fault kind for --framework atb: %s (%s)", cmd->fault, ATB_FAULT_CHOICES);
	if (cmd->fault)
		a->fault = (enum atb_fault)genatb_fault_parse(cmd->fault);
	a->tensors = cfg->task == GEN_TASK_TENSOR;
	a->save_child = cmd->save_child;
	a->filter_level = cmd->filter_level;
	a->device = cmd->device;
	/* the options the MLP shares, where given; its defaults are not atb's */
	for (size_t i = 0; i < cmd->ngiven; i++)
		switch (cmd->given[i]) {
		case OPT_STEPS: a->steps = cfg->steps; break;
		case OPT_LAYERS: a->layers = cfg->layers; break;
		case OPT_WIDTH: a->width = cfg->width; break;
		case OPT_BATCH: a->batch = cfg->batch; break;
		}
	a->seed = cfg->seed;
	a->outdir = cfg->outdir;
}

/* The pack generator's configuration from the command line, or a usage error for what it does not take. */
static void pack_options(const struct command *cmd, struct genpack_config *p)
{
	const struct gen_config *cfg = &cmd->mlp;
	genpack_config_init(p);
	refuse_others(cmd, FOR_PACK);
	if (cmd->fault && genpack_diffs_parse(cmd->fault) < 0)
		opt_usage_error(&spec, "unknown --fault kind for --framework config-check: %s (a comma-separated list "
				       "of env, pip, lr, seed, dataset, weight, random; all; none)", cmd->fault);
	if (cmd->fault)
		p->diffs = (unsigned)genpack_diffs_parse(cmd->fault);
	for (size_t i = 0; i < cmd->ngiven; i++)
		switch (cmd->given[i]) {
		case OPT_STEPS: p->steps = cfg->steps; break;
		case OPT_RANKS: p->ranks = cfg->ranks; break;
		}
	p->seed = cfg->seed;
	p->outdir = cfg->outdir;
}

/* The checkpoint generator's configuration from the command line, or a usage error for what it does not take. */
static void ckpt_options(const struct command *cmd, struct genckpt_config *k)
{
	const struct gen_config *cfg = &cmd->mlp;
	const char *problem;
	genckpt_config_init(k);
	refuse_others(cmd, FOR_CKPT);
	if (cmd->fault && genckpt_fault_parse(cmd->fault) < 0)
		opt_usage_error(&spec, "unknown --fault kind for --framework checkpoint: %s (%s)", cmd->fault,
				GENCKPT_FAULT_CHOICES);
	if (cmd->fault)
		k->fault = (enum genckpt_fault)genckpt_fault_parse(cmd->fault);
	k->layout = (enum genckpt_layout)cmd->ckpt_layout;
	for (size_t i = 0; i < cmd->ngiven; i++)
		switch (cmd->given[i]) {
		case OPT_LAYERS: k->layers = cfg->layers; break;
		case OPT_WIDTH: k->width = cfg->width; break;
		case OPT_DTYPE: k->dtype = cfg->dtype; break;
		case OPT_TP: k->tp = cmd->tp; break;
		case OPT_PP: k->pp = cmd->pp; break;
		case OPT_SHARDS: k->shards = cmd->shards; break;
		case OPT_VPP: k->vpp = cmd->vpp; break;
		case OPT_EP: k->ep = cmd->ep; break;
		case OPT_EXPERTS: k->experts = cmd->experts; break;
		}
	if ((cmd->tp || cmd->pp || cmd->vpp || cmd->ep) && k->layout != GENCKPT_MEGATRON)
		opt_usage_error(&spec, "--%s is for --ckpt-layout megatron",
				cmd->tp ? "tp" : cmd->pp ? "pp" : cmd->vpp ? "vpp" : "ep");
	if (cmd->shards && k->layout != GENCKPT_HF)
		opt_usage_error(&spec, "--shards is for --ckpt-layout hf");
	if ((problem = genckpt_config_problem(k)))
		opt_usage_error(&spec, "%s", problem);
	k->seed = cfg->seed;
	k->outdir = cfg->outdir;
}

/* The decoder generator's configuration from the command line, or a usage error for what it does not take. */
static void decoder_options(const struct command *cmd, struct gendec_config *g)
{
	const struct gen_config *cfg = &cmd->mlp;
	const char *problem;

	gendec_config_init(g);
	refuse_others(cmd, FOR_DEC);
	if (cfg->task == GEN_TASK_MD5)
		opt_usage_error(&spec, "--mode md5 is not written for --framework decoder: statistics or tensor");
	if (cmd->fault && gendec_fault_parse(cmd->fault) < 0)
		opt_usage_error(&spec, "unknown --fault kind for --framework decoder: %s (%s)", cmd->fault,
				GENDEC_FAULT_CHOICES);
	if (cmd->fault)
		g->fault = (enum gendec_fault)gendec_fault_parse(cmd->fault);
	g->tensors = cfg->task == GEN_TASK_TENSOR;
	/* the options the MLP shares, where given; its defaults are not the decoder's */
	for (size_t i = 0; i < cmd->ngiven; i++)
		switch (cmd->given[i]) {
		case OPT_PRECISION: g->precision = (enum gendec_precision)cmd->precision; break;
		case OPT_FAULT_LAYER: g->fault_layer = cmd->fault_layer; break;
		case OPT_RANKS: g->ranks = cfg->ranks; break;
		case OPT_LAYERS: g->layers = cfg->layers; break;
		case OPT_WIDTH: g->width = cfg->width; break;
		case OPT_BATCH: g->seq = cfg->batch; break;
		}
	if (g->ranks > GENDEC_MAX_RANKS || g->layers > GENDEC_MAX_LAYERS || g->width > GENDEC_MAX_WIDTH ||
	    g->seq > GENDEC_MAX_SEQ)
		opt_usage_error(&spec, "--framework decoder takes at most --ranks %d, --layers %d, --width %d, --batch %d",
				GENDEC_MAX_RANKS, GENDEC_MAX_LAYERS, GENDEC_MAX_WIDTH, GENDEC_MAX_SEQ);
	g->fault_rank = cfg->fault_rank;
	g->seed = cfg->seed;
	g->outdir = cfg->outdir;
	if ((problem = gendec_config_problem(g)))
		opt_usage_error(&spec, "%s", problem);
}

int main(int argc, char **argv)
{
	struct command cmd;

	msg_set_progname(argv[0]);
	parse_options(&cmd, argc, argv);
	if (cmd.framework == FW_CHECKPOINT) {
		struct genckpt_config k;
		ckpt_options(&cmd, &k);
		genckpt_write(&k);
		return PROBE_OK;
	}
	if (cmd.framework == FW_DECODER) {
		struct gendec_config g;
		decoder_options(&cmd, &g);
		gendec_write(&g);
		return PROBE_OK;
	}
	if (cmd.framework == FW_CONFIG_CHECK) {
		struct genpack_config p;
		pack_options(&cmd, &p);
		genpack_write(&p);
		return PROBE_OK;
	}
	if (cmd.framework != FW_ATB && cmd.mlp.fault_rank >= cmd.mlp.ranks)
		opt_usage_error(&spec, "--fault-rank %d is not below --ranks %d", cmd.mlp.fault_rank, cmd.mlp.ranks);
	if (cmd.framework == FW_ATB) {
		struct atb_config a;
		atb_options(&cmd, &a);
		genatb_write(&a);
	} else if (cmd.framework >= MLP_FRAMEWORKS) {
		struct verl_config v;
		verl_options(&cmd, &v);
		genverl_write(&v);
	} else {
		check_mlp_options(&cmd);
		gendump_write(&cmd.mlp);
	}
	return PROBE_OK;
}
