/*
 * genpack.h: example config_check packs of two runs, as msprobe's
 * ConfigChecker writes them (reference: msprobe-precheck.md), with
 * differences injected into the second: what probe-config's tests compare
 * instead of the fixtures.
 *
 * genpack_write() simulates a small MLP (fc1 8x4, fc2 2x8, their biases)
 * trained for `steps` forwards on `ranks` ranks by SGD with a learning rate
 * of 0.01, and writes OUTDIR/bench.zip and OUTDIR/cmp.zip, each holding, as
 * the packer appends them:
 *
 *   env                                  os.environ of a GPU machine
 *   pip                                  Name=version, 12 packages
 *   hyperparameters/hyperparameters_static.json
 *                                        train.sh's arguments and
 *                                        config.yaml flattened (hidden-size
 *                                        and model.hidden_size both, as in
 *                                        fixture cc01)
 *   then per forward (step 0 .. steps-1), per rank:
 *   dataset/step<S>/rank<R>/dataset.json the statistics of the input batch
 *   weights/step<S>/rank<R>/weight.json  the parameters' statistics, float32
 *   random/rank<R>.json                  at the first forward: the random
 *                                        calls before it (manual_seed twice,
 *                                        randn twice)
 *
 * every member deflated, dated 1980-01-01 00:00, JSON indented by 4 as
 * json.dumps(indent=4) writes it, statistics as torch computes them in
 * float32 (genio_summarize()).
 *
 * The differences of cmp (a set of GENPACK_* bits):
 *   env      CUDA_LAUNCH_BLOCKING 0 -> 1
 *   pip      numpy 1.24.2 -> 1.26.4
 *   lr       the learning rate 0.01 -> 0.02 (hyperparameter "lr"; weights from step 1)
 *   seed     the seed 1234 -> 4321 (hyperparameter "seed"; msprobe's random
 *            calls do not record it)
 *   dataset  the batches drawn in another order (every step's input)
 *   weight   fc2.bias[0] + 0.5 at initialisation (every step)
 *   random   the first torch.randn called twice
 *
 * Like the other generators, it ends the process (status 2, msg.h's die())
 * when a file cannot be written.
 */
#ifndef PROBE_GENPACK_H
#define PROBE_GENPACK_H

#include "../core/compat.h"

enum genpack_diff {
	GENPACK_ENV = 1 << 0,
	GENPACK_PIP = 1 << 1,
	GENPACK_LR = 1 << 2,
	GENPACK_SEED = 1 << 3,
	GENPACK_DATASET = 1 << 4,
	GENPACK_WEIGHT = 1 << 5,
	GENPACK_RANDOM = 1 << 6,
	GENPACK_ALL = (1 << 7) - 1,
};

/* The names of the differences, for --fault: a comma-separated list of them, "all" or "none". */
#define GENPACK_FAULT_CHOICES "env|pip|lr|seed|dataset|weight|random|all" /* and none, which the others have */

struct genpack_config {
	const char *outdir;
	unsigned diffs;    /* GENPACK_* */
	int steps, ranks;  /* forwards, ranks (at least 1 each) */
	uint64_t seed;     /* of the weights and the data */
};

void genpack_config_init(struct genpack_config *c);
/* A comma-separated list of difference names into bits; -1 when a name is unknown. */
long genpack_diffs_parse(const char *list);
void genpack_write(const struct genpack_config *c);

#endif
