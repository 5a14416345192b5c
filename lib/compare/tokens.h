/*
 * tokens.h: the token ids two inference runs generated, compared prompt by
 * prompt: the first token where they differ (probe-tokens).
 *
 * Before dumping anything of an LLM inference run that answers wrong, the
 * first token where the problem run (target) and the reference run
 * (golden) differ says which forward pass to dump: the one that produced
 * it.  With each run's log-probabilities, a near tie (the other run's
 * token was almost as likely, so that rounding alone can flip the choice)
 * is told from a real divergence.
 *
 * INPUT.  A file is a sequence of JSON values (NDJSON: one per line; line
 * breaks are not required) or one JSON document; each prompt, in order,
 * is one of:
 *
 *   [ID, ...]                     the generated token ids
 *   {"ids": [ID, ...], "logprobs": LP}
 *   {"token_ids": [ID, ...], "logprobs": LP}   (vLLM's CompletionOutput)
 *
 * and a document is one array of such prompts ([[...], {...}, ...]): a
 * top-level array whose first element is an array or an object.  It must
 * then be the file's only value.  An ID is a whole number >= 0 (at most
 * INT64_MAX).  Other members of an object (text, finish_reason,
 * cumulative_logprob, ...) are ignored; "ids" and "token_ids" together,
 * or neither, is an error.  LP is null (none) or an array of one entry
 * per id:
 *
 *   null                          nothing known at this position
 *   a number                      the run's log-probability of its own token
 *   {"ID": X, ...}                candidates: token id (a JSON key) to its
 *                                 log-probability X, or to an object whose
 *                                 "logprob" member is X (vLLM's Logprob:
 *                                 rank and decoded_token are ignored)
 *
 * Candidates are taken to be the run's most likely tokens at the position
 * and the token it chose (vLLM's SamplingParams.logprobs=k: the top k and
 * the sampled one): a token not listed is taken to be less likely than
 * every listed one (tokens_side.margin_min).  A log-probability is a
 * number <= 0, or -Infinity; NaN, Infinity and numbers above 0
 * (probabilities, logits) are refused.  A file may be gzip-compressed.
 *
 * Errors: "FILE:LINE:COL: what" (json.h's positions) in err; nothing is
 * returned as a prompt from a value that has an error.
 *
 * COMPARISON.  Prompts are paired by position (the k-th of the target
 * with the k-th of the golden); unequal counts are an error naming both
 * files.  Per prompt (tokens_result): "same" when the ids are equal;
 * "differs" at the first position where they are not; "ends" when one
 * is a prefix of the other (the shorter run stopped there).  For
 * "differs", each side whose log-probabilities are given has a margin:
 * the log-probability of its own token minus that of the other run's
 * token, in that run (>= 0 when the run decoded greedily).  The
 * difference is a near tie when a margin is below opts.tie and none is
 * known to be at least opts.tie; real when one is at least opts.tie
 * (exactly, or as a lower bound); undecided (TOKENS_TIE_UNKNOWN) otherwise.  The step of a
 * position k is opts.prefill_step + k (the prefill produced token 0, the
 * k-th decode step token k: see probe-tokens(1) for where that mapping
 * stops holding).
 *
 * Memory: one prompt of each file at a time (its ids and candidates),
 * and a small result per prompt.  A prompt holds at most
 * TOKENS_MAX_DEFAULT token ids, as many log-probability entries and as
 * many candidates (the environment's PROBE_MAX_TOKENS, a count with an
 * optional K or M, changes it): past it, "FILE:LINE:COL: a prompt with
 * more than N token ids (PROBE_MAX_TOKENS raises the limit)", so that a
 * small gzip that claims billions of ids is refused at a bounded cost.
 */
#define TOKENS_MAX_DEFAULT ((size_t)1 << 22)
#ifndef PROBE_TOKENS_H
#define PROBE_TOKENS_H

#include "../core/source.h"
#include "../core/strbuf.h"

/* One listed candidate of a position: a token id and its log-probability. */
struct tokens_cand {
	int64_t id;
	double lp;
};

/*
 * One prompt of one run, as read.  The arrays are the reader's buffers,
 * reused by the next tokens_reader_next() on the same seq.
 */
struct tokens_seq {
	int64_t *ids;
	size_t n;
	bool has_lp;        /* logprobs given (not null): lp and at have n entries and n + 1 */
	double *lp;         /* the run's log-probability of its own token at k (a number entry), NaN when not given so */
	size_t *at;         /* the candidates of position k: cand[at[k]] .. cand[at[k + 1] - 1], sorted by id */
	struct tokens_cand *cand;
	uint64_t line;      /* where the prompt's value starts in its file */
	size_t ids_alloc, lp_alloc, at_alloc, cand_alloc;
};
#define TOKENS_SEQ_INIT { 0 }
void tokens_seq_release(struct tokens_seq *s);

/* The run's log-probability of token id at position k: given, or listed; NaN when not known. */
double tokens_seq_logprob(const struct tokens_seq *s, size_t k, int64_t id);

/*
 * The reader of one file.  tokens_reader_new() takes src (and closes
 * it); tokens_reader_open() opens path ("-" is stdin).
 */
struct tokens_reader;
struct tokens_reader *tokens_reader_open(const char *path, struct strbuf *err);
struct tokens_reader *tokens_reader_new(struct source *src);
/* 1: the next prompt in *seq; 0: the end of the file; -1: error (err). */
int tokens_reader_next(struct tokens_reader *r, struct tokens_seq *seq, struct strbuf *err);
const char *tokens_reader_name(const struct tokens_reader *r);
void tokens_reader_close(struct tokens_reader *r);

/* The comparison. */
struct tokens_options {
	double tie;            /* a margin below this (nats) is a near tie; probe-tokens: 0.1 */
	int64_t prefill_step;  /* the dump step of the prefill, which produced token 0 */
};

enum tokens_status { TOKENS_SAME, TOKENS_DIFFERS, TOKENS_ENDS };
enum tokens_tie { TOKENS_TIE_UNKNOWN, TOKENS_TIE_YES, TOKENS_TIE_NO };

/*
 * One run at the position of the first difference.  NaN where not known.
 * lp: its log-probability of its own token (NaN too when it has no token
 * there: it ended); other_lp: of the other run's token, when listed;
 * margin: lp - other_lp; margin_min: the least the margin can be: the
 * margin when known, else, when the other token is not listed but others
 * are, lp minus the lowest listed log-probability of another token.
 */
struct tokens_side {
	size_t len;
	uint64_t line;
	bool has_id;  /* false for the run that ended, and for "same" */
	int64_t id;
	double lp, other_lp, margin, margin_min;
};

struct tokens_result {
	size_t prompt;         /* 0-based, in file order */
	enum tokens_status status;
	size_t pos;            /* "differs", "ends": the first position that differs */
	enum tokens_tie tie;   /* "differs" only; UNKNOWN otherwise */
	struct tokens_side t, g;
};

struct tokens_compare;
struct tokens_compare *tokens_new(const struct tokens_options *opts);
void tokens_free(struct tokens_compare *c);

/* Compare one pair of prompts (the next prompt index); warns when a margin is negative (not greedy). */
void tokens_add(struct tokens_compare *c, const struct tokens_seq *t, const struct tokens_seq *g);

/*
 * Both files, prompt by prompt: 0, or -1 with the message in err (a
 * reader's; "TARGET has N prompts, GOLDEN has M: ..." for unequal counts;
 * "NAME: no prompts: nothing to compare"; "no token ids in either file:
 * nothing to compare").
 */
int tokens_compare_files(struct tokens_compare *c, const char *target, const char *golden, struct strbuf *err);

const struct tokens_options *tokens_opts(const struct tokens_compare *c);
size_t tokens_count(const struct tokens_compare *c);
const struct tokens_result *tokens_result_at(const struct tokens_compare *c, size_t i);
/* PROBE_OK when every prompt is the same, PROBE_DIFFERENT otherwise. */
int tokens_status(const struct tokens_compare *c);

/* tokenstext.c: a record per prompt and the summary record (probe-tokens(1), OUTPUT); the report for people. */
void tokens_write_records(const struct tokens_compare *c, struct strbuf *out);
void tokens_write_text(const struct tokens_compare *c, struct strbuf *out);

#endif
