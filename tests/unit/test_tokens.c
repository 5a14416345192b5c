/*
 * probe-tokens' library (lib/compare/tokens.c): the input forms read alike
 * at every split of the input into reads, the errors with their positions,
 * and the comparison's rules (first difference, "ends", margins, their
 * lower bound, near tie against real).  The expected values are worked out
 * by hand in the comments; the log-probabilities are binary fractions
 * (-0.25, -0.375, ...) so that each margin is exact.
 */
#include "tap.h"
#include "../../lib/compare/tokens.h"
#include "../../lib/core/msg.h"

#include <math.h>

/* Every prompt of text, as one line of text per prompt: "line:ids|lp@k ..." */
static int read_all(const char *text, size_t len, size_t chunk, struct strbuf *got, struct strbuf *err)
{
	struct source *src = source_from_memory("in", text, len);
	struct tokens_reader *r;
	struct tokens_seq s = TOKENS_SEQ_INIT;
	int n;
	source_set_max_chunk(src, chunk);
	r = tokens_reader_new(src);
	while ((n = tokens_reader_next(r, &s, err)) > 0) {
		strbuf_addf(got, "%llu:", (unsigned long long)s.line);
		for (size_t k = 0; k < s.n; k++) {
			double own = tokens_seq_logprob(&s, k, s.ids[k]);
			strbuf_addf(got, "%s%lld", k ? "," : "", (long long)s.ids[k]);
			if (!isnan(own))
				strbuf_addf(got, "(%g)", own);
		}
		if (s.has_lp && s.n)
			strbuf_addf(got, " lp(0,7)=%g", tokens_seq_logprob(&s, 0, 7));
		strbuf_addch(got, '\n');
	}
	tokens_seq_release(&s);
	tokens_reader_close(r);
	return n;
}

static void forms(void)
{
	/* NDJSON of the three forms of a prompt, a blank line and spaces between */
	static const char nd[] =
		"[1, 2, 3]\n"
		"\n"
		"{\"ids\": [4, 5], \"text\": \"ab\", \"extra\": {\"x\": [1, {\"y\": null}]}}\n"
		"{\"token_ids\": [7, 8], \"logprobs\": [{\"7\": -0.25, \"9\": -1.5}, "
		"{\"8\": {\"logprob\": -0.5, \"rank\": 1, \"decoded_token\": \"b\"}}], \"finish_reason\": \"stop\"}\n"
		"{\"ids\": [6, 7], \"logprobs\": [-0.125, null]}\n"
		"{\"ids\": [], \"logprobs\": null}\n"
		"[]\n";
	/* the same as one document, spread over lines */
	static const char doc[] =
		"[\n"
		"  [1, 2, 3],\n"
		"  {\"ids\": [4, 5]},\n"
		"  {\"token_ids\": [7, 8], \"logprobs\": [{\"7\": -0.25, \"9\": -1.5}, {\"8\": {\"logprob\": -0.5}}]},\n"
		"  {\"ids\": [6, 7], \"logprobs\": [-0.125, null]},\n"
		"  {\"ids\": []}, []\n"
		"]\n";
	/*
	 * Worked by hand: line numbers of each prompt's first byte; the own
	 * log-probability after an id where known; lp(0,7) is the run's
	 * log-probability of token 7 at position 0: listed (-0.25) for the vLLM
	 * prompt, its own number (-0.125 is token 6's, 7 is not token 0) not a
	 * candidate for the number form, hence nan; the prompt with null
	 * logprobs has none.
	 */
	static const char want_nd[] =
		"1:1,2,3\n"
		"3:4,5\n"
		"4:7(-0.25),8(-0.5) lp(0,7)=-0.25\n"
		"5:6(-0.125),7 lp(0,7)=nan\n"
		"6:\n"
		"7:\n";
	static const char want_doc[] =
		"2:1,2,3\n"
		"3:4,5\n"
		"4:7(-0.25),8(-0.5) lp(0,7)=-0.25\n"
		"5:6(-0.125),7 lp(0,7)=nan\n"
		"6:\n"
		"6:\n";
	struct {
		const char *name, *text, *want;
	} cases[] = { { "NDJSON", nd, want_nd }, { "a document", doc, want_doc } };
	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		size_t len = strlen(cases[c].text);
		bool all = true;
		for (size_t chunk = 0; chunk <= len; chunk++) {
			struct strbuf got = STRBUF_INIT, err = STRBUF_INIT;
			int n = read_all(cases[c].text, len, chunk, &got, &err);
			if (n != 0 || strcmp(got.buf, cases[c].want)) {
				all = false;
				diag("chunk %zu: status %d, %s", chunk, n, err.buf);
				is_str(got.buf, cases[c].want, "what was read");
				strbuf_release(&got);
				strbuf_release(&err);
				break;
			}
			strbuf_release(&got);
			strbuf_release(&err);
		}
		ok(all, "%s: the same prompts at every split into reads of 1..%zu bytes", cases[c].name, len);
	}
}

static void errors(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "[1,2]\n[3,x]\n", "in:2:4: unexpected character 'x'" },
		{ "[1,2]\n[3,-1]\n", "in:2:4: a token id must be a whole number >= 0, not -1" },
		{ "[1.0]\n", "in:1:2: a token id must be a whole number >= 0, not 1.0" },
		{ "[9223372036854775808]\n", "in:1:2: a token id too large: 9223372036854775808" },
		{ "[1,\"2\"]\n", "in:1:4: a token id must be a number, not string" },
		{ "[1,2\n", "in:2:1: unexpected end of input inside an array" },
		/* a number cut at the end (fuzz_tokens' first find: the token's type was left as "number") */
		{ "{\"logprobs\":[-", "in:1:14: invalid literal '-'" },
		{ "[1,-", "in:1:4: invalid literal '-'" },
		{ "7\n", "in:1:1: expected a prompt (an array of token ids or an object), not number" },
		{ "{\"text\":\"a\"}\n", "in:1:1: a prompt object needs \"ids\" or \"token_ids\"" },
		{ "{\"ids\":[1],\"token_ids\":[1]}\n", "in:1:12: both \"ids\" and \"token_ids\": give one" },
		{ "{\"ids\":[1],\"ids\":[1]}\n", "in:1:12: \"ids\" twice in one prompt" },
		{ "{\"ids\":{}}\n", "in:1:8: \"ids\" must be an array of token ids, not object" },
		{ "{\"ids\":[1,2],\"logprobs\":[-0.5]}\n", "in:1:25: \"logprobs\" has 1 entries for 2 token ids" },
		{ "{\"ids\":[1],\"logprobs\":[0.3]}\n",
		  "in:1:24: a log-probability above 0: 0.3 (probabilities or logits? give log-probabilities)" },
		{ "{\"ids\":[1],\"logprobs\":[NaN]}\n", "in:1:24: a log-probability must be a number <= 0, not NaN" },
		{ "{\"ids\":[1],\"logprobs\":[{\"x1\":-1}]}\n",
		  "in:1:25: a candidate's key must be a token id (a whole number >= 0), not \"x1\"" },
		{ "{\"ids\":[1],\"logprobs\":[{\"1\":{\"rank\":1}}]}\n",
		  "in:1:29: a candidate's object has no \"logprob\" member" },
		{ "{\"ids\":[1],\"logprobs\":[{\"1\":-1,\"2\":-2,\"1\":-3}]}\n",
		  "in:1:24: token 1 listed twice among the position's candidates" },
		{ "{\"ids\":[1],\"logprobs\":\"x\"}\n", "in:1:23: \"logprobs\" must be an array or null, not string" },
		{ "[[1],[2]]\n[3]\n", "in:2:1: a document (an array of prompts) must be the file's only JSON value" },
		{ "[3]\n[[1],[2]]\n", "in:2:1: a document (an array of prompts) must be the file's only JSON value" },
		{ "[[1],2]\n", "in:1:6: expected a prompt (an array of token ids or an object), not number" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf got = STRBUF_INIT, err = STRBUF_INIT;
		int n = read_all(cases[i].text, strlen(cases[i].text), 0, &got, &err);
		ok(n < 0, "refused: %s", cases[i].want);
		is_str(err.buf, cases[i].want, "  its message");
		strbuf_release(&got);
		strbuf_release(&err);
	}
}

/* A prompt read from text (one value). */
static void seq_of(struct tokens_seq *s, const char *text)
{
	struct strbuf err = STRBUF_INIT;
	struct tokens_reader *r = tokens_reader_new(source_from_memory("s", text, strlen(text)));
	if (tokens_reader_next(r, s, &err) != 1)
		diag("cannot read %s: %s", text, err.buf);
	tokens_reader_close(r);
	strbuf_release(&err);
}

static const struct tokens_result *compare(struct tokens_compare *c, const char *t, const char *g)
{
	struct tokens_seq st = TOKENS_SEQ_INIT, sg = TOKENS_SEQ_INIT;
	seq_of(&st, t);
	seq_of(&sg, g);
	tokens_add(c, &st, &sg);
	tokens_seq_release(&st);
	tokens_seq_release(&sg);
	return tokens_result_at(c, tokens_count(c) - 1);
}

static bool is_num(double got, double want, const char *what)
{
	bool same = (isnan(got) && isnan(want)) || got == want;
	if (!tap_ok(same, "%s", what))
		diag("got %.17g, want %.17g", got, want);
	return same;
}

static void comparison(void)
{
	struct tokens_options o = { .tie = 0.25, .prefill_step = 0 };
	struct tokens_compare *c = tokens_new(&o);
	const struct tokens_result *r;

	r = compare(c, "[1,2,3]", "[1,2,3]");
	is_int(r->status, TOKENS_SAME, "equal ids: same");
	is_int(tokens_status(c), PROBE_OK, "  the status so far: no difference");

	r = compare(c, "[1,2,3]", "[1,5,3]");
	is_int(r->status, TOKENS_DIFFERS, "[1,2,3] against [1,5,3]: differs");
	is_int((long long)r->pos, 1, "  at position 1");
	ok(r->t.id == 2 && r->g.id == 5, "  target's token 2, golden's 5");
	is_int(r->tie, TOKENS_TIE_UNKNOWN, "  no log-probabilities: tie unknown");
	is_int(tokens_status(c), PROBE_DIFFERENT, "  the status: a difference");

	r = compare(c, "[1,2]", "[1,2,3]");
	is_int(r->status, TOKENS_ENDS, "[1,2] against [1,2,3]: ends");
	ok(r->pos == 2 && !r->t.has_id && r->g.has_id && r->g.id == 3, "  at 2: the target has no token, the golden 3");

	r = compare(c, "[]", "[4]");
	ok(r->status == TOKENS_ENDS && r->pos == 0, "[] against [4]: ends at 0");

	/*
	 * Target's position 1: its token 2 at -0.5, the golden's 5 at -0.625:
	 * margin 0.125 < 0.25; golden: 5 at -0.375, 2 at -0.5: margin 0.125.
	 * Both below the tie: a near tie.
	 */
	r = compare(c, "{\"ids\":[1,2],\"logprobs\":[-0.25,{\"2\":-0.5,\"5\":-0.625}]}",
		    "{\"ids\":[1,5],\"logprobs\":[-0.25,{\"5\":-0.375,\"2\":-0.5}]}");
	is_num(r->t.lp, -0.5, "near tie: the target's log-prob of its token");
	is_num(r->t.other_lp, -0.625, "  of the golden's");
	is_num(r->t.margin, 0.125, "  the target's margin, 0.125");
	is_num(r->g.margin, 0.125, "  the golden's margin, 0.125");
	is_int(r->tie, TOKENS_TIE_YES, "  both under 0.25: a near tie");

	/* the same with the golden's 2 at -1.0: its margin 0.625 >= 0.25: real, whatever the target's */
	r = compare(c, "{\"ids\":[1,2],\"logprobs\":[-0.25,{\"2\":-0.5,\"5\":-0.625}]}",
		    "{\"ids\":[1,5],\"logprobs\":[-0.25,{\"5\":-0.375,\"2\":-1.0}]}");
	is_num(r->g.margin, 0.625, "real: the golden's margin, 0.625");
	is_int(r->tie, TOKENS_TIE_NO, "  one margin at least 0.25: real");

	/*
	 * The golden's token 5 not among the target's candidates {2: -0.5, 6: -1.0, 7: -2.0}:
	 * it is below -2.0, so the margin is at least -0.5 - -2.0 = 1.5: real.
	 */
	r = compare(c, "{\"ids\":[2],\"logprobs\":[{\"2\":-0.5,\"6\":-1.0,\"7\":-2.0}]}", "[5]");
	ok(isnan(r->t.margin), "not listed: no margin");
	is_num(r->t.margin_min, 1.5, "  a margin of at least 1.5");
	is_int(r->tie, TOKENS_TIE_NO, "  at least 0.25: real");

	/* a bound under the tie decides nothing: {2: -0.5, 6: -0.625}: at least 0.125 */
	r = compare(c, "{\"ids\":[2],\"logprobs\":[{\"2\":-0.5,\"6\":-0.625}]}", "[5]");
	is_num(r->t.margin_min, 0.125, "a bound of 0.125");
	is_int(r->tie, TOKENS_TIE_UNKNOWN, "  under the tie, a bound decides nothing: unknown");

	/* only the run's own token listed: no bound */
	r = compare(c, "{\"ids\":[2],\"logprobs\":[{\"2\":-0.5}]}", "[5]");
	ok(isnan(r->t.margin_min), "only its own token listed: no bound");

	/* the target's token 2 at -0.75 below the golden's 5 at -0.5: margin -0.25, not greedy (a warning); a tie */
	msg_set_quiet(true);
	r = compare(c, "{\"ids\":[2],\"logprobs\":[{\"2\":-0.75,\"5\":-0.5}]}", "[5]");
	msg_set_quiet(false);
	is_num(r->t.margin, -0.25, "negative margin -0.25");
	is_int(r->tie, TOKENS_TIE_YES, "  under the tie: a near tie (and a warning)");

	/* -Infinity: the golden's token impossible in the target run: margin inf, real */
	r = compare(c, "{\"ids\":[2],\"logprobs\":[{\"2\":-0.5,\"5\":-Infinity}]}", "[5]");
	ok(isinf(r->t.margin) && r->t.margin > 0, "-Infinity for the other token: margin inf");
	is_int(r->tie, TOKENS_TIE_NO, "  real");

	/* both at -Infinity: no margin */
	r = compare(c, "{\"ids\":[2],\"logprobs\":[{\"2\":-Infinity,\"5\":-Infinity}]}", "[5]");
	ok(isnan(r->t.margin) && r->tie == TOKENS_TIE_UNKNOWN, "both -Infinity: no margin, unknown");

	is_int((long long)tokens_count(c), 12, "12 prompts compared, numbered in order");
	ok(tokens_result_at(c, 11) && tokens_result_at(c, 11)->prompt == 11 && !tokens_result_at(c, 12), "  the last is prompt 11");
	tokens_free(c);
}

int main(void)
{
	forms();
	errors();
	comparison();
	return done_testing();
}
