/*
 * probe-gendump: example msprobe dumps of a golden run and a faulty run.
 */
#include "../lib/gendump.h"
#include "../lib/msg.h"
#include "../lib/opt.h"

enum {
	OPT_MODE = 256,
	OPT_FAULT,
	OPT_FAULT_RANK,
	OPT_STEPS,
	OPT_RANKS,
	OPT_MICRO_BATCHES,
	OPT_LAYERS,
	OPT_SEED,
	OPT_PRINT_TENSORS,
};

static const struct opt_spec options[] = {
	{ OPT_MODE, 0, "mode", "MODE", "statistics (default) or md5: also write each tensor's CRC-32",
	  "statistics|md5", 0 },
	{ OPT_FAULT, 0, "fault", "KIND", "fault injected into the target run (default fc2-weight)",
	  GEN_FAULT_CHOICES, 0 },
	{ OPT_FAULT_RANK, 0, "fault-rank", "R", "rank that carries the fault (default 0)", NULL, 0 },
	{ OPT_STEPS, 0, "steps", "N", "training steps, with an SGD update between them (default 1)", NULL, 0 },
	{ OPT_RANKS, 0, "ranks", "N", "data-parallel ranks, gradients averaged by all_reduce (default 1)", NULL,
	  0 },
	{ OPT_MICRO_BATCHES, 0, "micro-batches", "M", "forward+backward passes per step (default 1)", NULL, 0 },
	{ OPT_LAYERS, 0, "layers", "L", "Linear layers, at least 2 (default 3)", NULL, 0 },
	{ OPT_SEED, 0, "seed", "S", "seed of weights, inputs and targets (default 1)", NULL, 0 },
	{ OPT_PRINT_TENSORS, 0, "print-tensors", NULL,
	  "print every tensor of the golden run's step 0 rank 0 on stdout (for checking)", NULL, 0 },
};

static const struct tool_spec spec = {
	.name = "probe-gendump",
	.synopsis = "[--mode MODE] [--fault KIND] [--fault-rank R] [--steps N] [--ranks N] "
		    "[--micro-batches M] [--layers L] [--seed S] [--print-tensors] OUTDIR",
	.summary = "Simulate the training of a small MLP and write msprobe dumps of a golden run and of a "
		   "target run with an injected fault to OUTDIR/golden and OUTDIR/target.",
	.opts = options,
	.nopts = ARRAY_SIZE(options),
	.operand_flags = OPT_DIR,
};

static void parse_options(struct gen_config *cfg, int argc, char **argv)
{
	const char *arg;
	int c, first;

	gen_config_init(cfg);
	while ((c = opt_next(&spec, argc, argv, &arg, &first)) != -1) {
		switch (c) {
		case OPT_MODE:
			if (strcmp(arg, "statistics") && strcmp(arg, "md5"))
				opt_usage_error(&spec, "unknown --mode: %s", arg);
			cfg->md5 = !strcmp(arg, "md5");
			break;
		case OPT_FAULT:
			if (gen_fault_parse(arg) < 0)
				opt_usage_error(&spec, "unknown --fault kind: %s", arg);
			cfg->fault = (enum gen_fault)gen_fault_parse(arg);
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
			cfg->layers = (int)opt_number(&spec, "--layers", arg, 2, 100000);
			break;
		case OPT_SEED:
			cfg->seed = (uint64_t)opt_number(&spec, "--seed", arg, 0, INT64_MAX);
			break;
		case OPT_PRINT_TENSORS:
			cfg->print_tensors = true;
			break;
		}
	}
	if (argc - first != 1)
		opt_usage_error(&spec, argc == first ? "no output directory given" : "more than one operand");
	if (cfg->fault_rank >= cfg->ranks)
		opt_usage_error(&spec, "--fault-rank %d is not below --ranks %d", cfg->fault_rank, cfg->ranks);
	cfg->outdir = argv[first];
}


int main(int argc, char **argv)
{
	struct gen_config cfg;

	msg_set_progname(argv[0]);
	parse_options(&cfg, argc, argv);
	gen_write(&cfg);
	return PROBE_OK;
}
