/*
 * probe-tokens' input reader (lib/compare/tokens.c): the forms of tokens.h
 * (arrays of ids, objects with ids or token_ids and logprobs, a document
 * of prompts), read from memory in one read and one byte per read, which
 * must give the same prompts (or the same error); every prompt read must
 * hold what tokens.h promises (candidates sorted, no duplicates, offsets
 * in step, log-probabilities <= 0 or -inf, never NaN); and the file,
 * compared with itself (tokens_compare_files(), through a real path, so
 * gzip too), is the same throughout, or refused with a message naming it,
 * and its records and report are valid JSON lines and text.  Each prompt
 * is also compared with the next one, so that differences, "ends" and the
 * margins of fuzzed log-probabilities reach the writers.
 */
#include "fuzz.h"
#include "../../lib/compare/tokens.h"
#include "../../lib/json/json.h"

#include <math.h>

static bool lp_ok(double x)
{
	return !isnan(x) && x <= 0;
}

/* Each prompt as text, with the invariants checked; the return of the last tokens_reader_next(). */
static int read_all(const uint8_t *data, size_t size, size_t chunk, struct strbuf *got, struct strbuf *err)
{
	struct source *src = source_from_memory("in", data, size);
	struct tokens_reader *r;
	struct tokens_seq s = TOKENS_SEQ_INIT;
	int n;
	source_set_max_chunk(src, chunk);
	r = tokens_reader_new(src);
	while ((n = tokens_reader_next(r, &s, err)) > 0) {
		FUZZ_CHECK(s.line >= 1, "a prompt at line %llu", (unsigned long long)s.line);
		strbuf_addf(got, "%llu:", (unsigned long long)s.line);
		for (size_t k = 0; k < s.n; k++) {
			FUZZ_CHECK(s.ids[k] >= 0, "a negative id");
			strbuf_addf(got, " %lld", (long long)s.ids[k]);
		}
		if (s.has_lp) {
			FUZZ_CHECK(s.at[0] == 0, "the candidates do not start at 0");
			for (size_t k = 0; k < s.n; k++) {
				double own = tokens_seq_logprob(&s, k, s.ids[k]);
				FUZZ_CHECK(isnan(s.lp[k]) || lp_ok(s.lp[k]), "a log-probability %g", s.lp[k]);
				FUZZ_CHECK(isnan(own) || lp_ok(own), "its own token's log-probability %g", own);
				FUZZ_CHECK(s.at[k] <= s.at[k + 1], "offsets out of step");
				for (size_t i = s.at[k]; i < s.at[k + 1]; i++) {
					FUZZ_CHECK(lp_ok(s.cand[i].lp), "a candidate's log-probability %g", s.cand[i].lp);
					FUZZ_CHECK(i == s.at[k] || s.cand[i - 1].id < s.cand[i].id, "candidates not sorted");
					FUZZ_CHECK(tokens_seq_logprob(&s, k, s.cand[i].id) == s.cand[i].lp ||
							   (s.cand[i].id == s.ids[k] && !isnan(s.lp[k])),
						   "a candidate not found by its id");
					strbuf_addf(got, " %lld:%.17g", (long long)s.cand[i].id, s.cand[i].lp);
				}
				strbuf_addf(got, " |%.17g", s.lp[k]);
			}
		}
		strbuf_addch(got, '\n');
	}
	tokens_seq_release(&s);
	tokens_reader_close(r);
	return n;
}

static void check_json_lines(const char *text, size_t len)
{
	struct source *src = source_from_memory("records", text, len);
	struct json_reader r;
	struct json_token tok;
	enum json_type t;
	json_reader_init(&r, src, JSON_MULTI, 0);
	while ((t = json_reader_next(&r, &tok)) != JSON_EOF && t != JSON_ERROR)
		;
	FUZZ_CHECK(t == JSON_EOF, "the records are not JSON (%s): %.*s", json_reader_error(&r), (int)len, text);
	json_reader_release(&r);
	source_close(src);
}

/* Each prompt against the one after it (differences, margins, bounds with fuzzed values): records and report written. */
static void consecutive(const uint8_t *data, size_t size)
{
	struct tokens_options o = { .tie = 0.25, .prefill_step = 0 };
	struct tokens_compare *c = tokens_new(&o);
	struct tokens_reader *r = tokens_reader_new(source_from_memory("in", data, size));
	struct tokens_seq s[2] = { TOKENS_SEQ_INIT, TOKENS_SEQ_INIT };
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	size_t n = 0;
	while (tokens_reader_next(r, &s[n % 2], &err) > 0) {
		if (n++) {
			const struct tokens_result *x;
			tokens_add(c, &s[n % 2], &s[(n - 1) % 2]);
			x = tokens_result_at(c, tokens_count(c) - 1);
			FUZZ_CHECK(x->status == TOKENS_SAME || x->pos <= (x->t.len < x->g.len ? x->t.len : x->g.len),
				   "a first difference past the shorter run");
			FUZZ_CHECK(x->status != TOKENS_ENDS || x->t.has_id != x->g.has_id, "ends: one run has a token");
			FUZZ_CHECK(x->status != TOKENS_DIFFERS || (x->t.has_id && x->g.has_id && x->t.id != x->g.id),
				   "differs: two tokens that differ");
			FUZZ_CHECK(isnan(x->t.margin) || x->t.margin == x->t.margin_min, "a margin that is not its own bound");
			FUZZ_CHECK(x->tie == TOKENS_TIE_UNKNOWN || x->status == TOKENS_DIFFERS, "a tie that is not a difference");
		}
	}
	tokens_write_records(c, &out);
	check_json_lines(out.buf, out.len);
	strbuf_reset(&out);
	tokens_write_text(c, &out);
	tokens_seq_release(&s[0]);
	tokens_seq_release(&s[1]);
	tokens_reader_close(r);
	tokens_free(c);
	strbuf_release(&err);
	strbuf_release(&out);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, ea = STRBUF_INIT, eb = STRBUF_INIT, out = STRBUF_INIT;
	struct tokens_options o = { .tie = 0.1, .prefill_step = 3 };
	struct tokens_compare *c;
	struct fuzz_file file;
	int na, nb;

	na = read_all(data, size, 0, &a, &ea);
	nb = read_all(data, size, 1, &b, &eb);
	FUZZ_CHECK(na == nb && !strcmp(a.buf, b.buf) && !strcmp(ea.buf, eb.buf),
		   "one read and a byte per read differ: %d %d\n%s\n%s\n%s\n%s", na, nb, a.buf, b.buf, ea.buf, eb.buf);
	FUZZ_CHECK(na == 0 ? !ea.len : (na < 0 && !strncmp(ea.buf, "in:", 3)), "a failure without its position: %s",
		   ea.buf);

	consecutive(data, size);

	fuzz_file_open(&file, data, size);
	c = tokens_new(&o);
	strbuf_reset(&ea);
	if (tokens_compare_files(c, file.path, file.path, &ea) == 0) {
		FUZZ_CHECK(!ea.len, "success with a message: %s", ea.buf);
		FUZZ_CHECK(tokens_count(c) > 0, "success without prompts");
		FUZZ_CHECK(tokens_status(c) == PROBE_OK, "a file differs from itself");
		for (size_t i = 0; i < tokens_count(c); i++)
			FUZZ_CHECK(tokens_result_at(c, i)->status == TOKENS_SAME, "prompt %zu differs from itself", i);
		tokens_write_records(c, &out);
		check_json_lines(out.buf, out.len);
		strbuf_reset(&out);
		tokens_write_text(c, &out);
		FUZZ_CHECK(out.len && out.buf[out.len - 1] == '\n', "a report that does not end a line");
	} else {
		FUZZ_CHECK(ea.len && strstr(ea.buf, file.path), "a failure that does not name the file: %s", ea.buf);
	}
	tokens_free(c);
	fuzz_file_close(&file);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&ea);
	strbuf_release(&eb);
	strbuf_release(&out);
	return 0;
}
