/*
 * tmetric.h: comparing two saved tensors, msprobe's way and ours.
 *
 * msprobe's tensor-mode metrics (reference: msprobe-compare.md section 6),
 * reproduced with its exact rules: np.squeeze of both sides, validation in
 * msprobe's order (empty, shape, 0-d, nan/inf positions, dtype), the
 * relative-error array in the working precision msprobe gets from numpy
 * (float32 for 16- and 32-bit floats, float64 for float64, integers, bool
 * and complex; float32 for 0-d values), eps where the golden is 0, rounding
 * to 12 decimals (and 6 for a Cosine above 0.9999), and the "unsupported" /
 * "shape unmatched" / "N/A" / "Nan" fills.  The cells are the texts
 * msprobe's CSV shows.  The one thing msprobe leaves to its machine, the
 * order of the additions in its sums (numpy hands them to its BLAS), is
 * ours: 8 lanes added pairwise (tmetric.c, LANES), so the last digits of
 * EucDist for tensors of more than a few elements can differ from a given
 * msprobe install's, as two installs differ from each other.
 *
 * Ours, for the bitwise verdict: whether the tensors are the same bytes
 * (same dtype and shape, element by element in row-major order), how many
 * elements differ, the index of the first, and the largest difference in
 * units in the last place of the tensor's own dtype; XXH3-64 of each
 * side's element bytes (row-major, this machine's byte order) so that
 * identical tensors can be recognised across records.
 *
 * Two floating tensors of different dtypes (float64, float32, float16,
 * bfloat16; not float8, complex, integers or bool) and the same shape
 * before squeeze, such as a bfloat16 target of mixed precision against a
 * float32 golden, are "widened": no bitwise answer exists (comparable and
 * same are false), but our numbers are taken on both sides' values widened
 * to double (exact for these types).  An element differs when its widened
 * values differ: by their bits, so -0 against +0 differs (with 0 ulps and
 * max_abs 0), as its bytes do in a comparable pair; NaN against NaN (any
 * payload) counts as equal, equal infinities too.  max_abs is |t - g| in
 * double; a NaN against a number, or an infinity against anything else,
 * is inf apart (max_abs and max_ulp) and never passes a band.  Units in
 * the last place are those of the coarser of the two dtypes at the golden
 * value: ulp(g) = 2^(max(e, emin) - p + 1) for |g| in [2^e, 2^(e+1)) (0:
 * e = emin), p the dtype's significand bits (bfloat16 8, float16 11,
 * float32 24, float64 53) and emin its least normal exponent (bfloat16
 * and float32 -126, float16 -14, float64 -1022), the larger of the two dtypes' ulp(g) being the
 * coarser's (bfloat16's against float32 or float64; against float16
 * bfloat16's except below 2^-17).  An element's distance is |t - g| /
 * ulp(g), a real number (a bfloat16 target 3.0 against a float32 golden
 * 3.03125 is 2 bfloat16 ulps apart).  t_absmax and g_absmax, the largest
 * magnitude of each side's finite elements, let a caller form the
 * relative measure max_abs / g_absmax of a comparable or widened pair.
 *
 * Identical tensors are recognised from their bytes and take msprobe's
 * results for identical data without the arithmetic.  Two float32 or
 * bfloat16 tensors of the same shape are read once: hashes, our
 * differences and msprobe's sums come from one pass over each chunk.
 * Memory: a few chunks of 4096 elements and, for the one pass, a block of
 * 65536 elements per side (copied from the file with pread(2) rather than
 * faulted in through the mapping); nothing proportional to the tensors.
 * Thread safety: tmetric_compare() touches only its arguments (and reads
 * the setting of tmetric_kernel()).
 */
#ifndef PROBE_TMETRIC_H
#define PROBE_TMETRIC_H

#include "../tensors/tensor.h"

enum tm_cell { TM_COSINE, TM_EUC, TM_MAX_ABS, TM_MAX_REL, TM_ONE_THOUSANDTH, TM_FIVE_THOUSANDTHS, TM_NCELLS };

struct tmetric {
	/* msprobe: each cell's text, e.g. "0.999998", "unsupported", " inf" */
	char cell[TM_NCELLS][40];
	/* msprobe's per-row notes (its -tensor_log reasons), e.g. "Dtype of NPU and bench tensor do not match." */
	char notes[256];
	/* ours */
	bool comparable;        /* same dtype and same shape (before squeeze): a bitwise answer exists */
	bool same;              /* comparable and every element's bytes equal */
	bool widened;           /* not comparable, but both floating (float64, float32, float16, bfloat16) of
				   different dtypes and the same shape (before squeeze): the numbers below are
				   taken on the values widened to double (see above) */
	int64_t ndiff;          /* comparable: elements whose bytes differ; widened: whose widened values
				   differ (NaN against NaN equal); else 0 */
	int64_t first_diff;     /* comparable or widened: row-major index of the first, -1 when none */
	double max_ulp;         /* comparable: largest |a - b| in ulps of the dtype (integers: in units); inf when
				   a NaN meets a number or infinities differ; widened: largest |t - g| / ulp(g)
				   in the coarser dtype's ulps (above), inf as for max_abs; else 0 */
	uint64_t t_hash, g_hash; /* XXH3-64 of each side's element bytes */
	double max_abs;         /* comparable or widened: max |t - g| over the elements as float64 (inf: a NaN
				   against a number, differing infinities; 0 when none differ); -1 otherwise */
	int64_t numel;          /* the target's elements */
	int64_t nbeyond;        /* comparable or widened: differing elements outside the band (all of them
				   without one); else 0 */
	double t_absmax, g_absmax; /* comparable or widened: the largest |x| over each side's finite elements
				   (0 when it has none; complex: the real part, as max_abs reads it; bool: 0
				   or 1); -1 otherwise */
};

/*
 * A tolerance band for our verdict: an element that differs passes when
 * |t - g| <= atol + rtol * |g|, or when it is at most `ulps` units in the
 * last place away (each test only when its numbers are > 0; a widened
 * pair's values and ulps as above).  A NaN or an infinity the other side
 * does not have never passes.
 */
struct tm_band {
	double rtol, atol, ulps;
};

/* The cells for a row msprobe cannot read ("unsupported"), with the note. */
void tmetric_unsupported(struct tmetric *m, const char *note);

/*
 * For tests: the widest loops float32 and bfloat16 pairs may take, where
 * the CPU has them: AVX-512 (BEST), AVX2, or plain C (PLAIN, which also
 * hashes without AVX2).  All must agree bit for bit.  Call it before any
 * comparison runs; it is not synchronised.
 */
enum tm_kernel { TM_KERNEL_BEST, TM_KERNEL_AVX2, TM_KERNEL_PLAIN };
void tmetric_kernel(enum tm_kernel k);
/*
 * Compare target t with golden g (both open); band may be NULL (bitwise).
 * A file that shrinks while its mapping is read (tensor.h, "Faults") does
 * not end the process: tmetric_compare_files() returns -1 with "PATH: the
 * file shrank while it was read ..." added to err (when not NULL), and m
 * holds msprobe's "unsupported" cells with that note; it frees all it
 * allocated.  Each thread may compare at once (the guard is per thread).
 * tmetric_compare() is the same without the return value.
 */
int tmetric_compare_files(const struct tensor *t, const struct tensor *g, const struct tm_band *band,
			  struct tmetric *m, struct strbuf *err);
void tmetric_compare(const struct tensor *t, const struct tensor *g, const struct tm_band *band, struct tmetric *m);

#endif
