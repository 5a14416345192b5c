/*
 * gendump.h: example msprobe dumps from a simulated training run.
 *
 * gen_write() computes a small MLP in float32 (forward, backward, SGD,
 * micro-batches, data-parallel all_reduce) twice: a golden run and a
 * target run with an injected fault, and writes both as msprobe writes
 * them (task statistics, level mix, torch 1.13): OUTDIR/golden and
 * OUTDIR/target, each step<s>/rank<r>/{dump.json,stack.json,construct.json}.
 * The output is deterministic: the same configuration gives the same bytes.
 * With the defaults its structure is that of the real mlp fixtures.
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

#include "compat.h"

enum gen_fault {
	GEN_FAULT_NONE,
	GEN_FAULT_FC2_WEIGHT,      /* fc2.weight *= 1.01 once, before the first step */
	GEN_FAULT_FC2_WEIGHT_TINY, /* fc2.weight[0][0] moved up by one float32 ulp, once */
	GEN_FAULT_INPUT,           /* x[0][0] += 0.5 in every batch */
	GEN_FAULT_LINEAR1_OUTPUT,  /* fc2's F.linear adds 1e-3 to its output [0][0], every call */
	GEN_FAULT_NAN,             /* fc2's F.linear output [0][0] becomes NaN, every call */
};

/* "none", "fc2-weight", ...; gen_fault_parse() returns -1 for an unknown name. */
const char *gen_fault_name(enum gen_fault f);
int gen_fault_parse(const char *name);
/* The fault names separated by '|', for option tables. */
#define GEN_FAULT_CHOICES "none|fc2-weight|fc2-weight-tiny|input|linear1-output|nan"

struct gen_config {
	bool md5;              /* also write each tensor's CRC-32 (msprobe's md5 summary mode) */
	enum gen_fault fault;  /* applied to rank fault_rank of the target run */
	int fault_rank;
	int steps;             /* training steps, SGD between them */
	int ranks;             /* data-parallel ranks (at most GEN_MAX_RANKS) */
	int micro_batches;     /* forward+backward passes per step */
	int layers;            /* Linear layers, at least 2 */
	uint64_t seed;
	bool print_tensors;    /* print the golden step 0 rank 0 tensors on stdout */
	const char *outdir;
};

#define GEN_MAX_RANKS 64

/* The defaults: fc2-weight fault, 1 step, 1 rank, 1 micro-batch, 3 layers, seed 1. */
void gen_config_init(struct gen_config *cfg);
void gen_write(const struct gen_config *cfg);

#endif
