/*
 * tokens.c: the token ids of an inference run read (the forms of tokens.h),
 * and two runs compared prompt by prompt.
 */
#include "../core/compat.h"
#include "tokens.h"
#include "../core/msg.h"
#include "../core/xalloc.h"
#include "../json/json.h"

#include <math.h>

struct tokens_reader {
	struct source *src;
	struct json_reader jr;
	bool in_doc;   /* inside a document's top-level array (which must be the file's only value) */
	bool done;
	uint64_t values; /* top-level values begun */
	struct strbuf num; /* a number's text, NUL-terminated */
	size_t max;        /* ids, positions and candidates per prompt (PROBE_MAX_TOKENS) */
	char *env_err;     /* PROBE_MAX_TOKENS's trouble, reported by the first tokens_reader_next() */
};

/* PROBE_MAX_TOKENS: a whole number above 0, optionally followed by K or M (1024, 1048576). */
static size_t max_tokens(struct strbuf *err)
{
	const char *env = getenv("PROBE_MAX_TOKENS"), *p;
	uint64_t v = 0, unit = 1;
	if (!env || !*env)
		return TOKENS_MAX_DEFAULT;
	for (p = env; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			goto bad;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (*p == 'K' || *p == 'k')
		unit = 1024, p++;
	else if (*p == 'M' || *p == 'm')
		unit = 1024 * 1024, p++;
	if (p == env || *p || !v || v > (uint64_t)(SIZE_MAX / 32) / unit)
		goto bad;
	return (size_t)(v * unit);
bad:
	strbuf_addf(err, "PROBE_MAX_TOKENS=%s: not a count (a whole number above 0, optionally followed by K or M, "
		    "at most %zu)", env, (size_t)(SIZE_MAX / 32));
	return 0;
}

void tokens_seq_release(struct tokens_seq *s)
{
	if (!s)
		return;
	free(s->ids);
	free(s->lp);
	free(s->at);
	free(s->cand);
	memset(s, 0, sizeof(*s));
}

static int cand_cmp(const void *a, const void *b)
{
	const struct tokens_cand *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

static const struct tokens_cand *find_cand(const struct tokens_seq *s, size_t k, int64_t id)
{
	struct tokens_cand key = { .id = id };
	if (!s->has_lp || k >= s->n || s->at[k] == s->at[k + 1])
		return NULL;
	return bsearch(&key, s->cand + s->at[k], s->at[k + 1] - s->at[k], sizeof(key), cand_cmp);
}

double tokens_seq_logprob(const struct tokens_seq *s, size_t k, int64_t id)
{
	const struct tokens_cand *c;
	if (!s->has_lp || k >= s->n)
		return NAN;
	if (id == s->ids[k] && !isnan(s->lp[k]))
		return s->lp[k];
	c = find_cand(s, k, id);
	return c ? c->lp : NAN;
}

struct tokens_reader *tokens_reader_new(struct source *src)
{
	struct tokens_reader *r = xcalloc(1, sizeof(*r));
	r->src = src;
	json_reader_init(&r->jr, src, JSON_MULTI, 0);
	strbuf_init(&r->num, 32);
	{
		struct strbuf e = STRBUF_INIT;
		r->max = max_tokens(&e);
		r->env_err = e.len ? strbuf_detach(&e, NULL) : NULL;
		strbuf_release(&e);
	}
	return r;
}

struct tokens_reader *tokens_reader_open(const char *path, struct strbuf *err)
{
	struct source *src = source_open(path, err);
	return src ? tokens_reader_new(src) : NULL;
}

const char *tokens_reader_name(const struct tokens_reader *r)
{
	return source_name(r->src);
}

void tokens_reader_close(struct tokens_reader *r)
{
	if (!r)
		return;
	json_reader_release(&r->jr);
	source_close(r->src);
	strbuf_release(&r->num);
	free(r->env_err);
	free(r);
}

/* The reader's error, or "what" at tok when the tokenizer has none of its own: -1. */
static int fail(struct tokens_reader *r, const struct json_token *tok, struct strbuf *err, const char *fmt, ...)
	PRINTF_LIKE(4, 5);
static int fail(struct tokens_reader *r, const struct json_token *tok, struct strbuf *err, const char *fmt, ...)
{
	if (tok->type != JSON_ERROR && fmt) {
		struct strbuf what = STRBUF_INIT;
		va_list ap;
		va_start(ap, fmt);
		strbuf_vaddf(&what, fmt, ap);
		va_end(ap);
		json_reader_fail_at(&r->jr, tok, "%s", what.buf);
		strbuf_release(&what);
	}
	strbuf_addstr(err, json_reader_error(&r->jr));
	return -1;
}

/* The next token, its type the one returned (a failed number or literal leaves tok->type as it began). */
static enum json_type next(struct tokens_reader *r, struct json_token *tok)
{
	return tok->type = json_reader_next(&r->jr, tok);
}

/* Past a member's value whose first token, tok (of type t), was just read: 0, or -1 with the reader's error. */
static int skip_value(struct tokens_reader *r, const struct json_token *tok, enum json_type t, struct strbuf *err)
{
	if (t == JSON_ERROR || ((t == JSON_OBJECT_BEGIN || t == JSON_ARRAY_BEGIN) && json_reader_skip(&r->jr) < 0))
		return fail(r, tok, err, NULL);
	return 0;
}

/* The next member of an object being read: 1 its key in *tok, 0 the object's end, -1 error. */
static int next_key(struct tokens_reader *r, struct json_token *tok, struct strbuf *err)
{
	enum json_type t = next(r, tok);
	if (t == JSON_OBJECT_END)
		return 0;
	return t == JSON_KEY ? 1 : fail(r, tok, err, NULL);
}

static bool key_is(const struct json_token *tok, const char *s)
{
	return tok->len == strlen(s) && !memcmp(tok->text, s, tok->len);
}

/* What a token is, for "expected X, not Y". */
static const char *what_is(const struct json_token *tok)
{
	return json_type_name(tok->type);
}

/* A token id: a whole number >= 0. */
static int read_id(struct tokens_reader *r, const struct json_token *tok, int64_t *id, struct strbuf *err)
{
	int len = (int)(tok->len > 40 ? 40 : tok->len);
	uint64_t v = 0;
	if (tok->type != JSON_NUMBER)
		return fail(r, tok, err, "a token id must be a number, not %s", what_is(tok));
	for (size_t i = 0; i < tok->len; i++) {
		unsigned d = (unsigned char)tok->text[i] - '0';
		if (d > 9)
			return fail(r, tok, err, "a token id must be a whole number >= 0, not %.*s", len, tok->text);
		if (v > ((uint64_t)INT64_MAX - d) / 10)
			return fail(r, tok, err, "a token id too large: %.*s", len, tok->text);
		v = v * 10 + d;
	}
	*id = (int64_t)v;
	return 0;
}

/* A log-probability: a number <= 0 or -Infinity. */
static int read_lp(struct tokens_reader *r, const struct json_token *tok, double *lp, struct strbuf *err)
{
	char *end;
	double x;
	if (tok->type != JSON_NUMBER)
		return fail(r, tok, err, "a log-probability must be a number, not %s", what_is(tok));
	if (tok->nonfinite) {
		if (tok->text[0] != '-')
			return fail(r, tok, err, "a log-probability must be a number <= 0, not %.*s", (int)tok->len,
				    tok->text);
		*lp = -INFINITY;
		return 0;
	}
	strbuf_reset(&r->num);
	strbuf_add(&r->num, tok->text, tok->len);
	x = strtod(r->num.buf, &end);
	if (*end || isnan(x))
		return fail(r, tok, err, "a log-probability that is not a number: %s", r->num.buf);
	if (x > 0)
		return fail(r, tok, err,
			    "a log-probability above 0: %s (probabilities or logits? give log-probabilities)",
			    r->num.buf);
	*lp = x;
	return 0;
}

/* Past the bound on what one prompt holds: -1 with the message (the file and where); n is the count so far. */
static int over_bound(struct tokens_reader *r, const struct json_token *tok, size_t n, const char *what,
		      struct strbuf *err)
{
	if (n < r->max)
		return 0;
	return fail(r, tok, err, "a prompt with more than %zu %s (PROBE_MAX_TOKENS raises the limit)", r->max, what);
}

/* The ids array, its '[' just read; first, when not NULL, its first token (already read). */
static int read_ids(struct tokens_reader *r, const struct json_token *first, struct tokens_seq *s, struct strbuf *err)
{
	struct json_token tok;
	s->n = 0;
	if (first)
		tok = *first;
	else
		next(r, &tok);
	while (tok.type != JSON_ARRAY_END) {
		int64_t id = 0;
		if (read_id(r, &tok, &id, err) < 0 || over_bound(r, &tok, s->n, "token ids", err) < 0)
			return -1;
		ALLOC_GROW(s->ids, s->n + 1, s->ids_alloc);
		s->ids[s->n++] = id;
		next(r, &tok);
	}
	return 0;
}

/* The value of a candidate: a number, or an object with a "logprob" member. */
static int read_cand_value(struct tokens_reader *r, const struct json_token *at, double *lp, struct strbuf *err)
{
	struct json_token tok;
	bool found = false;
	int k;
	if (at->type != JSON_OBJECT_BEGIN)
		return read_lp(r, at, lp, err);
	while ((k = next_key(r, &tok, err)) > 0) {
		bool is_lp = key_is(&tok, "logprob");
		enum json_type t;
		if (is_lp && found)
			return fail(r, &tok, err, "\"logprob\" twice in one candidate");
		t = next(r, &tok);
		if (is_lp) {
			if (read_lp(r, &tok, lp, err) < 0)
				return -1;
			found = true;
		} else if (skip_value(r, &tok, t, err) < 0) {
			return -1;
		}
	}
	if (k < 0)
		return -1;
	if (!found)
		return fail(r, at, err, "a candidate's object has no \"logprob\" member");
	return 0;
}

/* A position's candidates, its '{' (at) just read: appended to s->cand, sorted. */
static int read_cands(struct tokens_reader *r, const struct json_token *at, struct tokens_seq *s, size_t *ncand,
		      struct strbuf *err)
{
	struct json_token tok;
	size_t from = *ncand;
	int k;
	while ((k = next_key(r, &tok, err)) > 0) {
		uint64_t v = tok.len && tok.len <= 19 ? 0 : UINT64_MAX;
		for (size_t i = 0; i < tok.len && v != UINT64_MAX; i++) {
			unsigned d = (unsigned char)tok.text[i] - '0';
			v = d > 9 || v > ((uint64_t)INT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
		}
		if (v == UINT64_MAX)
			return fail(r, &tok, err,
				    "a candidate's key must be a token id (a whole number >= 0), not \"%.*s\"",
				    (int)(tok.len > 40 ? 40 : tok.len), tok.text);
		if (next(r, &tok) == JSON_ERROR)
			return fail(r, &tok, err, NULL);
		if (over_bound(r, &tok, *ncand, "candidates", err) < 0)
			return -1;
		ALLOC_GROW(s->cand, *ncand + 1, s->cand_alloc);
		s->cand[*ncand].id = (int64_t)v;
		if (read_cand_value(r, &tok, &s->cand[*ncand].lp, err) < 0)
			return -1;
		++*ncand;
	}
	if (k < 0)
		return -1;
	qsort(s->cand + from, *ncand - from, sizeof(*s->cand), cand_cmp);
	for (size_t i = from + 1; i < *ncand; i++)
		if (s->cand[i].id == s->cand[i - 1].id)
			return fail(r, at, err, "token %lld listed twice among the position's candidates",
				    (long long)s->cand[i].id);
	return 0;
}

/* The logprobs array, its '[' just read: *count entries. */
static int read_logprobs(struct tokens_reader *r, struct tokens_seq *s, size_t *count, struct strbuf *err)
{
	struct json_token tok;
	enum json_type t;
	size_t k = 0, ncand = 0;
	while ((t = next(r, &tok)) != JSON_ARRAY_END) {
		if (t == JSON_ERROR)
			return fail(r, &tok, err, NULL);
		if (over_bound(r, &tok, k, "log-probability entries", err) < 0)
			return -1;
		ALLOC_GROW(s->lp, k + 1, s->lp_alloc);
		ALLOC_GROW(s->at, k + 2, s->at_alloc);
		s->lp[k] = NAN;
		s->at[k] = ncand;
		if (t == JSON_OBJECT_BEGIN) {
			if (read_cands(r, &tok, s, &ncand, err) < 0)
				return -1;
		} else if (t != JSON_NULL && read_lp(r, &tok, &s->lp[k], err) < 0) {
			return -1;
		}
		k++;
	}
	ALLOC_GROW(s->at, k + 1, s->at_alloc);
	s->at[k] = ncand;
	*count = k;
	return 0;
}

/* A prompt object, its '{' (at) just read. */
static int read_object(struct tokens_reader *r, const struct json_token *at, struct tokens_seq *s, struct strbuf *err)
{
	struct json_token tok, lp_at = { 0 };
	const char *ids_key = NULL;
	bool lp_seen = false;
	size_t nlp = 0;
	int more;
	while ((more = next_key(r, &tok, err)) > 0) {
		enum json_type t;
		if (key_is(&tok, "ids") || key_is(&tok, "token_ids")) {
			const char *k = key_is(&tok, "ids") ? "ids" : "token_ids";
			if (ids_key && !strcmp(k, ids_key))
				return fail(r, &tok, err, "\"%s\" twice in one prompt", k);
			if (ids_key)
				return fail(r, &tok, err, "both \"ids\" and \"token_ids\": give one");
			ids_key = k;
			t = next(r, &tok);
			if (t != JSON_ARRAY_BEGIN)
				return fail(r, &tok, err, "\"%s\" must be an array of token ids, not %s", k, what_is(&tok));
			if (read_ids(r, NULL, s, err) < 0)
				return -1;
		} else if (key_is(&tok, "logprobs")) {
			if (lp_seen)
				return fail(r, &tok, err, "\"logprobs\" twice in one prompt");
			lp_seen = true;
			t = next(r, &tok);
			lp_at = tok;
			if (t == JSON_ARRAY_BEGIN) {
				if (read_logprobs(r, s, &nlp, err) < 0)
					return -1;
				s->has_lp = true;
			} else if (t != JSON_NULL) {
				return fail(r, &tok, err, "\"logprobs\" must be an array or null, not %s", what_is(&tok));
			}
		} else {
			t = next(r, &tok);
			if (skip_value(r, &tok, t, err) < 0)
				return -1;
		}
	}
	if (more < 0)
		return -1;
	if (!ids_key)
		return fail(r, at, err, "a prompt object needs \"ids\" or \"token_ids\"");
	if (s->has_lp && nlp != s->n)
		return fail(r, &lp_at, err, "\"logprobs\" has %zu entries for %zu token ids", nlp, s->n);
	return 0;
}

/* One prompt whose first token is at. */
static int read_prompt(struct tokens_reader *r, const struct json_token *at, struct tokens_seq *s, struct strbuf *err)
{
	s->n = 0;
	s->has_lp = false;
	s->line = at->line;
	if (at->type == JSON_ARRAY_BEGIN)
		return read_ids(r, NULL, s, err);
	if (at->type == JSON_OBJECT_BEGIN)
		return read_object(r, at, s, err);
	return fail(r, at, err, "expected a prompt (an array of token ids or an object), not %s", what_is(at));
}

int tokens_reader_next(struct tokens_reader *r, struct tokens_seq *s, struct strbuf *err)
{
	struct json_token tok, first;
	enum json_type t;
	if (r->env_err) {
		strbuf_addstr(err, r->env_err);
		return -1;
	}
	if (r->done)
		return 0;
	if (r->in_doc) {
		t = next(r, &tok);
		if (t == JSON_ARRAY_END) {
			r->in_doc = false;
			t = next(r, &tok);
			if (t == JSON_EOF) {
				r->done = true;
				return 0;
			}
			return fail(r, &tok, err, "a document (an array of prompts) must be the file's only JSON value");
		}
		return read_prompt(r, &tok, s, err) < 0 ? -1 : 1;
	}
	t = next(r, &tok);
	if (t == JSON_EOF) {
		r->done = true;
		return 0;
	}
	if (t == JSON_ERROR)
		return fail(r, &tok, err, NULL);
	r->values++;
	if (t != JSON_ARRAY_BEGIN)
		return read_prompt(r, &tok, s, err) < 0 ? -1 : 1;
	/* an array: a prompt's ids, or the document's list of prompts */
	t = next(r, &first);
	if (t == JSON_ARRAY_BEGIN || t == JSON_OBJECT_BEGIN) {
		if (r->values > 1)
			return fail(r, &tok, err, "a document (an array of prompts) must be the file's only JSON value");
		r->in_doc = true;
		return read_prompt(r, &first, s, err) < 0 ? -1 : 1;
	}
	s->n = 0;
	s->has_lp = false;
	s->line = tok.line;
	return read_ids(r, &first, s, err) < 0 ? -1 : 1;
}

/* The comparison. */

struct tokens_compare {
	struct tokens_options opts;
	struct tokens_result *res;
	size_t n, alloc;
};

struct tokens_compare *tokens_new(const struct tokens_options *opts)
{
	struct tokens_compare *c = xcalloc(1, sizeof(*c));
	c->opts = *opts;
	return c;
}

void tokens_free(struct tokens_compare *c)
{
	if (!c)
		return;
	free(c->res);
	free(c);
}

const struct tokens_options *tokens_opts(const struct tokens_compare *c)
{
	return &c->opts;
}

size_t tokens_count(const struct tokens_compare *c)
{
	return c->n;
}

const struct tokens_result *tokens_result_at(const struct tokens_compare *c, size_t i)
{
	return i < c->n ? &c->res[i] : NULL;
}

int tokens_status(const struct tokens_compare *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->res[i].status != TOKENS_SAME)
			return PROBE_DIFFERENT;
	return PROBE_OK;
}

/* One run at position k, against the other run's token (when it has one there). */
static void side_at(struct tokens_side *d, const struct tokens_seq *s, size_t k, bool other_has, int64_t other)
{
	const struct tokens_cand *c;
	d->len = s->n;
	d->line = s->line;
	d->has_id = k < s->n;
	d->id = d->has_id ? s->ids[k] : 0;
	d->lp = d->other_lp = d->margin = d->margin_min = NAN;
	if (!d->has_id || !s->has_lp)
		return;
	d->lp = tokens_seq_logprob(s, k, d->id);
	if (!other_has)
		return;
	c = find_cand(s, k, other);
	if (c)
		d->other_lp = c->lp;
	if (!isnan(d->lp) && !isnan(d->other_lp))
		d->margin = d->lp - d->other_lp; /* NaN when both are -inf: not known */
	if (!isnan(d->margin)) {
		d->margin_min = d->margin;
	} else if (!c && !isnan(d->lp)) {
		/* not listed: below every listed candidate, the lowest of which bounds the margin */
		bool any = false;
		double low = 0;
		for (size_t i = s->at[k]; i < s->at[k + 1]; i++) {
			if (s->cand[i].id == d->id || (any && s->cand[i].lp >= low))
				continue;
			low = s->cand[i].lp;
			any = true;
		}
		if (any)
			d->margin_min = d->lp - low; /* NaN when both are -inf */
	}
}

static void warn_not_greedy(size_t prompt, size_t pos, const char *run, double margin)
{
	warning("prompt %zu, token %zu: the %s run's token is not its most likely one (margin %.3g nats): "
		"sampling, penalties or a logit bias? compare greedy runs (temperature 0)",
		prompt, pos, run, margin);
}

void tokens_add(struct tokens_compare *c, const struct tokens_seq *t, const struct tokens_seq *g)
{
	struct tokens_result *r;
	size_t n = t->n < g->n ? t->n : g->n, k = 0;
	double x = c->opts.tie;
	ALLOC_GROW(c->res, c->n + 1, c->alloc);
	r = &c->res[c->n];
	memset(r, 0, sizeof(*r));
	r->prompt = c->n++;
	while (k < n && t->ids[k] == g->ids[k])
		k++;
	if (k == n && t->n == g->n) {
		r->status = TOKENS_SAME;
		side_at(&r->t, t, SIZE_MAX, false, 0);
		side_at(&r->g, g, SIZE_MAX, false, 0);
		return;
	}
	r->status = k == n ? TOKENS_ENDS : TOKENS_DIFFERS;
	r->pos = k;
	side_at(&r->t, t, k, k < g->n, k < g->n ? g->ids[k] : 0);
	side_at(&r->g, g, k, k < t->n, k < t->n ? t->ids[k] : 0);
	r->tie = TOKENS_TIE_UNKNOWN;
	if (r->status != TOKENS_DIFFERS)
		return;
	if (r->t.margin_min >= x || r->g.margin_min >= x)
		r->tie = TOKENS_TIE_NO;
	else if (!isnan(r->t.margin) || !isnan(r->g.margin))
		r->tie = TOKENS_TIE_YES;
	if (r->t.margin < 0)
		warn_not_greedy(r->prompt, k, "target", r->t.margin);
	if (r->g.margin < 0)
		warn_not_greedy(r->prompt, k, "golden", r->g.margin);
}

int tokens_compare_files(struct tokens_compare *c, const char *target, const char *golden, struct strbuf *err)
{
	struct tokens_reader *rt = NULL, *rg = NULL;
	struct tokens_seq st = TOKENS_SEQ_INIT, sg = TOKENS_SEQ_INIT;
	size_t nt = 0, ng = 0;
	bool any_token = false;
	int ret = -1, a = 1, b = 1;

	if (!(rt = tokens_reader_open(target, err)) || !(rg = tokens_reader_open(golden, err)))
		goto out;
	for (;;) {
		if (a > 0 && (a = tokens_reader_next(rt, &st, err)) < 0)
			goto out;
		if (b > 0 && (b = tokens_reader_next(rg, &sg, err)) < 0)
			goto out;
		nt += a > 0;
		ng += b > 0;
		if (a > 0 && b > 0) {
			any_token |= st.n || sg.n;
			tokens_add(c, &st, &sg);
		}
		if (a <= 0 && b <= 0)
			break;
	}
	if (!nt || !ng) {
		msg_fail(err, tokens_reader_name(nt ? rg : rt), "no prompts: nothing to compare");
		goto out;
	}
	if (nt != ng) {
		strbuf_addf(err, "%s has %zu prompt%s, %s has %zu: prompts are paired by position, the counts must agree",
			    tokens_reader_name(rt), nt, nt == 1 ? "" : "s", tokens_reader_name(rg), ng);
		goto out;
	}
	if (!any_token) {
		strbuf_addf(err, "%s, %s: no token ids in either file: nothing to compare", tokens_reader_name(rt),
			    tokens_reader_name(rg));
		goto out;
	}
	ret = 0;
out:
	tokens_seq_release(&st);
	tokens_seq_release(&sg);
	tokens_reader_close(rt);
	tokens_reader_close(rg);
	return ret;
}
