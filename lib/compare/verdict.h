/*
 * verdict.h: our own verdict on a pair of leaves (design: "Two verdicts").
 *
 * Bitwise by default: a pair is "diff" when anything the dump says about
 * the two leaves differs -- type, dtype, shape, requires_grad, a statistic
 * (as number text: msprobe wrote both with the same formatting), the md5
 * when both leaves carry one (the task table, alike.h), a scalar
 * argument's value, the other leaf attributes, the P2P fields.
 * Tolerance bands, when asked for, apply to the statistics only: a
 * statistic passes when |t - g| <= atol + rtol * |g|; under a band a
 * float-to-float dtype change is no difference of its own.  A non-finite
 * statistic the golden leaf does not have is a difference under every
 * band.  A target leaf without a golden one is "unmatched", a golden leaf
 * without a target one "golden_only"; neither ever counts as the same.
 *
 * msprobe's own verdict (mstable.h) never decides this one.
 */
#ifndef PROBE_VERDICT_H
#define PROBE_VERDICT_H

#include "../records/leafrec.h"
#include "../core/strbuf.h"
#include "tmetric.h"

enum verdict {
	VERDICT_SAME,
	VERDICT_DIFF,
	VERDICT_UNMATCHED,   /* target leaf, no golden counterpart */
	VERDICT_GOLDEN_ONLY, /* golden leaf, no target counterpart */
	VERDICT_UNREADABLE,  /* the tensor files could not be compared (and nothing else differs) */
};

struct verdict_options {
	double rtol, atol;  /* both 0: bitwise */
	/*
	 * A band of any kind was asked (--ulps and --cos-min too): a dtype
	 * changed from one float type to another (float32 to bfloat16) is then
	 * judged on the values, not a difference in itself (within_band).
	 */
	bool banded;
};

struct verdict_result {
	enum verdict verdict;
	unsigned differs;      /* bit (1 << leaf_field) per field that differs */
	unsigned within_band;  /* statistics that differ but pass the band */
	struct strbuf reason;  /* for people: what differs and by how much */
};

const char *verdict_name(enum verdict v);

/*
 * A statistic of a leaf record as a double (the one reader of them): a
 * JSON number, or one of the strings "nan", "inf", "-inf"; false for
 * anything else (null, "N/A", a number of 64 digits or more).
 */
struct span;
bool verdict_stat_value(const struct span *s, double *out);

/*
 * Tensor dumps: after verdict_pair(), the comparison of the element bytes
 * (tm, NULL when the files could not be read: problem says why).  When the
 * elements could be compared one by one they decide for the statistics
 * computed from them: elements that differ beyond the band make the pair
 * "diff" (field "data"), and statistics that differ only because of
 * elements within the band do not.  A pair whose files could not be read
 * is "unreadable" unless it already differs.  Two float files of different
 * dtypes and the same shape (tm->widened) are judged on their widened
 * elements as comparable ones are (the dtype itself is the leaves' field,
 * a difference unless a band made it within_band).  Other files of
 * different dtypes or shapes (tm->comparable false) are a difference,
 * "diff", when the leaves do not already differ in dtype or shape: a pair
 * whose elements could not be compared one by one is never "same".
 */
void verdict_tensor(struct verdict_result *out, const struct tmetric *tm, const char *problem);

/*
 * Whether the tensor file t (named path) holds what the leaf r, its entry
 * in its own dump.json, says: the same dtype and shape.  A dtype probe does
 * not know (or none) is not checked, nor a shape the leaf does not have; a
 * .npy of float32 where the dump says bfloat16 or a float8 type is what
 * MindSpore saves (numpy has neither).  0, or -1 with "PATH: the file holds
 * float16 [0], the dump says torch.float32 [4, 4]" added to why.  A file
 * that is not what its dump says cannot stand for the leaf: its pair is
 * "unreadable" (the dump's own statistics describe another tensor), unless
 * the leaves already differ.
 */
int verdict_tensor_declared(const struct leafrec *r, const struct tensor *t, const char *path, struct strbuf *why);

/*
 * For people (probe-first --format text): each field of `differs` (bits
 * of verdict_result.differs; the elements excepted, which the reason
 * tells), one line each: head (the first line) or indent (the others),
 * then "max: target X, golden Y (+1.02 %)".  Values as the dump wrote
 * them; a statistic gets the relative difference (t - g) / |g| as a
 * signed percentage to 3 significant digits (the records keep the full
 * number).
 */
void verdict_write_text(const struct leafrec *t, const struct leafrec *g, unsigned differs, const char *head,
			const char *indent, struct strbuf *out);

/*
 * Ours in a metric record (probe-records(5)): ",\"metrics\":{...}" with,
 * per statistic both leaves have, the absolute and relative difference;
 * the md5 match; and, when tm is not NULL, the tensors ("compared" false
 * with problem, else whether the bytes are the same, how many elements
 * differ, the first, the ulps, the hashes).
 */
void verdict_write_metrics(struct strbuf *out, const struct leafrec *t, const struct leafrec *g, const struct tmetric *tm,
			   bool tm_compared, const char *problem);

/* t or g may be NULL (one side missing). */
void verdict_pair(const struct leafrec *t, const struct leafrec *g, const struct verdict_options *opts,
		  struct verdict_result *out);

/*
 * The options of a tolerance band, declared once for the tools that have
 * them (probe-first and probe-plot all four, probe-metric --rtol and
 * --atol): the ids their option tables give them, and their one parser.
 * When c is one of the ids, the value is checked (a finite real >= 0,
 * --cos-min at most 1; otherwise the tool dies with its usage) and stored
 * in band or *cos_min, and the answer is true; false for any other c.
 */
enum { OPT_BAND_RTOL = 0x4000, OPT_BAND_ATOL, OPT_BAND_ULPS, OPT_BAND_COS_MIN };
struct tool_spec;
bool verdict_band_option(const struct tool_spec *spec, int c, const char *arg, struct tm_band *band, double *cos_min);

#endif
