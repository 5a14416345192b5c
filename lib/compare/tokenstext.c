/*
 * tokenstext.c: probe-tokens' records (a record per prompt, then the
 * summary) and its report for people.
 */
#include "../core/compat.h"
#include "tokens.h"
#include "../core/xalloc.h"
#include "../json/jsonw.h"
#include "../msprobe/pyfmt.h"

#include <math.h>

static const char *const status_names[] = { "same", "differs", "ends" };

/* A number of the record contract: the shortest text that reads back, "inf"/"-inf"/"nan" as strings; null when unknown. */
static void add_number(struct strbuf *out, double x, bool known)
{
	if (!known)
		strbuf_addstr(out, "null");
	else if (isnan(x))
		jsonw_str(out, "nan");
	else if (isinf(x))
		jsonw_str(out, x < 0 ? "-inf" : "inf");
	else
		pyfmt_double(out, x);
}

static void add_maybe(struct strbuf *out, const char *key, double x)
{
	strbuf_addf(out, ",\"%s\":", key);
	add_number(out, x, !isnan(x));
}

static void write_side(struct strbuf *out, const char *name, const struct tokens_side *s)
{
	strbuf_addf(out, ",\"%s\":{\"line\":%llu,\"length\":%zu,\"id\":", name, (unsigned long long)s->line, s->len);
	if (s->has_id)
		strbuf_addi(out, s->id);
	else
		strbuf_addstr(out, "null");
	add_maybe(out, "logprob", s->lp);
	add_maybe(out, "other_logprob", s->other_lp);
	add_maybe(out, "margin", s->margin);
	add_maybe(out, "margin_min", s->margin_min);
	strbuf_addch(out, '}');
}

struct tally {
	size_t same, differs, ends, real, ties, undecided, tokens;
	const struct tokens_result *first; /* the earliest first difference (the lowest prompt among equals) */
};

static void count(const struct tokens_compare *c, struct tally *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < tokens_count(c); i++) {
		const struct tokens_result *r = tokens_result_at(c, i);
		switch (r->status) {
		case TOKENS_SAME:
			t->same++;
			t->tokens += r->t.len;
			continue;
		case TOKENS_ENDS:
			t->ends++;
			break;
		case TOKENS_DIFFERS:
			t->differs++;
			if (r->tie == TOKENS_TIE_NO)
				t->real++;
			else if (r->tie == TOKENS_TIE_YES)
				t->ties++;
			else
				t->undecided++;
			break;
		}
		if (!t->first || r->pos < t->first->pos)
			t->first = r;
	}
}

static void add_step(struct strbuf *out, const struct tokens_compare *c, size_t pos)
{
	strbuf_addi(out, tokens_opts(c)->prefill_step + (int64_t)pos);
}

void tokens_write_records(const struct tokens_compare *c, struct strbuf *out)
{
	struct tally t;
	for (size_t i = 0; i < tokens_count(c); i++) {
		const struct tokens_result *r = tokens_result_at(c, i);
		strbuf_addf(out, "{\"prompt\":%zu,\"status\":\"%s\",\"position\":", r->prompt, status_names[r->status]);
		if (r->status == TOKENS_SAME) {
			strbuf_addstr(out, "null,\"step\":null,\"tie\":null");
		} else {
			strbuf_addf(out, "%zu,\"step\":", r->pos);
			add_step(out, c, r->pos);
			strbuf_addstr(out, ",\"tie\":");
			strbuf_addstr(out, r->tie == TOKENS_TIE_YES ? "true" : r->tie == TOKENS_TIE_NO ? "false" : "null");
		}
		write_side(out, "t", &r->t);
		write_side(out, "g", &r->g);
		strbuf_addstr(out, "}\n");
	}
	count(c, &t);
	strbuf_addf(out, "{\"summary\":{\"prompts\":%zu,\"same\":%zu,\"differs\":%zu,\"ends\":%zu,\"real\":%zu,"
			 "\"ties\":%zu,\"undecided\":%zu,\"first\":",
		    tokens_count(c), t.same, t.differs, t.ends, t.real, t.ties, t.undecided);
	if (t.first) {
		strbuf_addf(out, "{\"prompt\":%zu,\"position\":%zu,\"step\":", t.first->prompt, t.first->pos);
		add_step(out, c, t.first->pos);
		strbuf_addch(out, '}');
	} else {
		strbuf_addstr(out, "null");
	}
	strbuf_addstr(out, ",\"tie\":");
	pyfmt_double(out, tokens_opts(c)->tie);
	strbuf_addf(out, ",\"answer\":\"%s\"}}\n", t.first ? "differ" : "same");
}

/* The report: the order of relevance, most relevant first. */
static int rank_of(const struct tokens_result *r)
{
	if (r->status == TOKENS_ENDS)
		return 2;
	return r->tie == TOKENS_TIE_NO ? 0 : r->tie == TOKENS_TIE_UNKNOWN ? 1 : 3;
}

static int by_relevance(const void *a, const void *b)
{
	const struct tokens_result *x = *(const struct tokens_result *const *)a;
	const struct tokens_result *y = *(const struct tokens_result *const *)b;
	int rx = rank_of(x), ry = rank_of(y);
	if (rx != ry)
		return rx - ry;
	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return x->prompt < y->prompt ? -1 : x->prompt > y->prompt;
}

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static void add_g(struct strbuf *out, double x)
{
	strbuf_addf(out, "%.4g", x);
}

/* One run's line: "log-prob of its token -0.5, of the golden's -0.5625: margin 0.0625 nats" and the like. */
static void text_side(struct strbuf *out, const char *label, const char *other, const struct tokens_side *s, bool differs)
{
	strbuf_addf(out, "  %-8s log-prob of its token ", label);
	if (isnan(s->lp))
		strbuf_addstr(out, "not given");
	else
		add_g(out, s->lp);
	if (differs) {
		strbuf_addf(out, ", of the %s's ", other);
		if (!isnan(s->other_lp)) {
			add_g(out, s->other_lp);
			strbuf_addstr(out, ": margin ");
			add_g(out, s->margin);
			strbuf_addstr(out, " nats");
		} else if (!isnan(s->margin_min)) {
			strbuf_addstr(out, "not listed: margin at least ");
			add_g(out, s->margin_min);
			strbuf_addstr(out, " nats");
		} else {
			strbuf_addstr(out, "not known");
		}
	}
	strbuf_addch(out, '\n');
}

static void text_result(const struct tokens_compare *c, const struct tokens_result *r, struct strbuf *out)
{
	double x = tokens_opts(c)->tie;
	strbuf_addf(out, "\nprompt %zu, token %zu (step ", r->prompt, r->pos);
	add_step(out, c, r->pos);
	strbuf_addstr(out, "): ");
	if (r->status == TOKENS_ENDS) {
		const struct tokens_side *longer = r->t.has_id ? &r->t : &r->g;
		strbuf_addf(out, "the %s ends, the %s goes on with %lld\n", r->t.has_id ? "golden" : "target",
			    r->t.has_id ? "target" : "golden", (long long)longer->id);
	} else {
		strbuf_addf(out, "target %lld, golden %lld: ", (long long)r->t.id, (long long)r->g.id);
		if (r->tie == TOKENS_TIE_NO) {
			strbuf_addstr(out, "a real divergence (a margin of ");
			add_g(out, x);
			strbuf_addstr(out, " nats or more)\n");
		} else if (r->tie == TOKENS_TIE_YES) {
			strbuf_addstr(out, "a near tie (margin under ");
			add_g(out, x);
			strbuf_addstr(out, " nats)\n");
		} else if (!isnan(r->t.lp) || !isnan(r->g.lp)) {
			strbuf_addstr(out, "undecided: the log-probabilities given do not tell a near tie from a real "
					   "divergence\n");
		} else {
			strbuf_addstr(out, "undecided: no log-probabilities to tell a near tie from a real divergence\n");
		}
	}
	strbuf_addf(out, "  %-8s target %zu, golden %zu\n", "lengths", r->t.len, r->g.len);
	if (!isnan(r->t.lp) || (r->status == TOKENS_DIFFERS && !isnan(r->t.margin_min)))
		text_side(out, "target", "golden", &r->t, r->status == TOKENS_DIFFERS);
	if (!isnan(r->g.lp) || (r->status == TOKENS_DIFFERS && !isnan(r->g.margin_min)))
		text_side(out, "golden", "target", &r->g, r->status == TOKENS_DIFFERS);
}

void tokens_write_text(const struct tokens_compare *c, struct strbuf *out)
{
	struct tally t;
	const struct tokens_result **list;
	size_t n = 0, nres = tokens_count(c), diff;
	count(c, &t);
	diff = t.differs + t.ends;
	if (!t.first) {
		strbuf_addf(out, "the same: %zu %s, %zu tokens in all\n", nres, plural(nres, "prompt", "prompts"),
			    t.tokens);
		return;
	}
	strbuf_addf(out, "%zu of %zu %s %s; the earliest at token %zu (step ", diff, nres,
		    plural(nres, "prompt", "prompts"), plural(diff, "differs", "differ"), t.first->pos);
	add_step(out, c, t.first->pos);
	strbuf_addf(out, ") of prompt %zu\n", t.first->prompt);
	strbuf_addf(out, "  %zu real %s, %zu near %s, %zu undecided; %zu %s early; %zu the same\n",
		    t.real, plural(t.real, "divergence", "divergences"), t.ties, plural(t.ties, "tie", "ties"),
		    t.undecided, t.ends, plural(t.ends, "ends", "end"), t.same);
	list = xmalloc(st_mult(diff, sizeof(*list)));
	for (size_t i = 0; i < nres; i++)
		if (tokens_result_at(c, i)->status != TOKENS_SAME)
			list[n++] = tokens_result_at(c, i);
	qsort(list, n, sizeof(*list), by_relevance);
	for (size_t i = 0; i < n; i++)
		text_result(c, list[i], out);
	free(list);
}
