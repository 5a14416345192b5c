/*
 * noise.h: the rounding budget, what probe-first uses to tell a difference
 * that rounding explains from one that it does not (probe-first(1), NOISE).
 *
 * Two runs on other hardware, other kernels or in mixed precision differ
 * nearly everywhere by rounding.  A leaf that differs is measured:
 *
 *   delta  the relative difference of the pair: the largest change of a
 *          statistic (max, min, mean) over the larger magnitude of the two
 *          leaves (scale = max |max|, |min| of either side), and of the norm
 *          over the golden's norm; or, where the elements were compared,
 *          max |t - g| over the golden's largest |element|.  The mean is
 *          measured on the scale, not on itself, since a mean near zero
 *          makes any relative change of it meaningless.
 *   unit   the unit roundoff of the coarser of the two dtypes: float64
 *          2^-53, float32 2^-24, float16 2^-11, bfloat16 2^-8, float8
 *          e4m3 2^-4 and e5m2 2^-3; 0 for integers, bool and everything
 *          exact (a difference there is never rounding).
 *
 * and its budget is what rounding can explain there:
 *
 *   own      an operator's output: unit * sqrt(K), K the operator's
 *            reduction length (noise_reduction()); an input or a parameter:
 *            unit when its two dtypes differ (a cast), else 0.
 *   carried  the difference the operator's inputs already hold, through the
 *            operator (first.c keeps it at least the unit of the coarsest
 *            type the differing inputs' values passed through: statistics
 *            see less than the elements): for products (linear, matmul, mul, div, norms) their
 *            largest delta; for sums (add, sub, mean, sum) their largest
 *            absolute difference over the output's scale (cancellation makes
 *            a small output carry its inputs' absolute error); for
 *            exponentials (softmax, log_softmax, exp, cross_entropy, sigmoid)
 *            their largest absolute difference, which exp turns into a
 *            relative one.
 *
 * Mean and norm of a 16-bit (or smaller) tensor are computed in that type
 * by the dumper (torch on the CPU), so they carry their own rounding, up to
 * unit * sqrt(numel) (stat_slack), added to their budget; max and min are
 * exact.  A difference is beyond rounding when its ratio, the larger of
 * delta_exact / budget and delta_sums / (budget + stat_slack), is over the
 * factor, or when the budget is 0 and anything differs.  Structural differences are
 * beyond rounding wherever they are: the type, a shape, a dtype change that
 * is not float to float, requires_grad, a scalar argument's value, the
 * other attributes, and a non-finite value the other side does not have.
 *
 * Pure functions over the records' spans; nothing kept.
 */
#ifndef PROBE_NOISE_H
#define PROBE_NOISE_H

#include "../records/leafrec.h"
#include "tmetric.h"

/* The default factor: measured on generated mixed-precision runs (probe-first(1), NOISE). */
#define NOISE_DEFAULT_FACTOR 12.0

enum noise_kind {
	NOISE_NUMERIC,     /* only values differ: delta measures it */
	NOISE_STRUCTURAL,  /* something rounding cannot make differs: `structural` says what */
};

struct noise_leaf {
	enum noise_kind kind;
	const char *structural; /* a static phrase: "a scalar argument", "the shape", ... (NULL when numeric) */
	double delta;           /* relative difference (0 when no statistic differs: a CRC or elements only) */
	double delta_exact;     /* its part from max, min and the elements (bounded by the rounding itself) */
	double delta_sums;      /* its part from mean and norm (also moved by their own computation) */
	double stat_slack;      /* what computing mean and norm in a 16-bit (or smaller) type adds: unit * sqrt(numel) */
	double scale;           /* the larger magnitude of the two leaves (0 when unknown) */
	double unit;            /* unit roundoff of the coarser dtype; 0 for exact types */
	const char *coarser;    /* that dtype's name ("bfloat16", "float32", ...; "exact" for integers) */
	bool dtypes_differ;     /* float to float (a structural change is `structural`) */
	bool measured;          /* some statistic both leaves have, or the elements, gave delta; false: nothing
				   measures the difference (elements compared elsewhere, no statistics) */
};

/*
 * Measure a pair whose verdict (verdict.h) found `differs` (its bits).  tm:
 * the elements' comparison when one was made (comparable or widened), else
 * NULL.
 */
void noise_measure(const struct leafrec *t, const struct leafrec *g, unsigned differs, const struct tmetric *tm,
		   struct noise_leaf *out);

/* The unit roundoff of a dtype as the dump names it (torch's, numpy's or MindSpore's); name: its short name. */
double noise_unit(const char *dtype, size_t n, const char **name);

/* How an operator carries its inputs' differences (see above), from its entry's API name. */
enum noise_op { NOISE_OP_PRODUCT, NOISE_OP_SUM, NOISE_OP_EXP };
enum noise_op noise_op_of(const char *entry);

/*
 * The reduction length K of an operator's output from the shapes (JSON
 * arrays as the dump writes them, "" when unknown) of its first two tensor
 * inputs and of the output: linear and matmul-like the inner dimension
 * (input.0's last); convolutions the weight's elements over its first
 * dimension; softmax, log_softmax and the norms input.0's last dimension;
 * any other operator whose output has fewer elements than input.0 the
 * ratio (sum, mean, losses); 1 otherwise.
 */
double noise_reduction(const char *entry, const char *in0, const char *in1, const char *out);

/* The ratio of a measured leaf to a budget (see above): infinite when the budget is 0 and something differs. */
double noise_ratio(const struct noise_leaf *m, double budget);

/* The budget's parts for an output of an operator of kind op (see above). */
double noise_carried(enum noise_op op, double in_rel, double in_abs, double out_scale);

#endif
