/*
 * pctext.c: probe-config's report for people: which checks differ, then
 * the differences that matter most (seed and random calls, the learning
 * rate and the other hyperparameters, library versions, weights, the
 * data, the environment), then what is not counted.
 */
#include "precheck.h"
#include "../core/textesc.h"
#include "../msprobe/pyfmt.h"

#include <math.h>

enum { ITEM_WIDTH = 28, MAX_LISTED = 40 };

static const char *const stat_names[4] = { "max", "min", "mean", "norm" };

/* A value as Python's str() prints it, cut at 60 characters; "(unset)" / "(absent)" for none. */
static void show(struct strbuf *out, const struct pyval *v, const char *none)
{
	size_t start = out->len;
	if (!v) {
		strbuf_addstr(out, none);
		return;
	}
	pyval_str(out, v);
	if (out->len - start > 60) {
		strbuf_setlen(out, start + 57);
		strbuf_addstr(out, "...");
	}
	if (v->kind == PY_STR && !v->len)
		strbuf_addstr(out, "\"\"");
}

static void pad(struct strbuf *out, size_t from, size_t width)
{
	while (out->len - from < width)
		strbuf_addch(out, ' ');
	strbuf_addch(out, ' ');
}

static bool is_seed_key(const char *k)
{
	return k && (strstr(k, "seed") || strstr(k, "SEED"));
}

static bool is_lr_key(const char *k)
{
	const char *dot = k ? strrchr(k, '.') : NULL, *r = dot ? dot + 1 : k;
	return r && (!strcmp(r, "lr") || !strcmp(r, "learning_rate") || !strcmp(r, "learning-rate") ||
		     !strcmp(r, "learningrate") || strstr(r, "lr-") == r || strstr(r, "lr_") == r ||
		     strstr(r, "min-lr") == r || strstr(r, "min_lr") == r);
}

static const char *where_of(const struct pc_finding *f, struct strbuf *tmp)
{
	strbuf_reset(tmp);
	if (f->step >= 0)
		strbuf_addf(tmp, "step %lld ", (long long)f->step);
	if (f->rank >= 0)
		strbuf_addf(tmp, "rank %lld ", (long long)f->rank);
	return tmp->buf;
}

static void line_values(struct strbuf *out, const struct pc_finding *f, const char *none)
{
	size_t start = out->len;
	strbuf_addstr(out, "  ");
	if (f->check == PACK_ENV && f->bench_name && f->cmp_name && strcmp(f->bench_name, f->cmp_name))
		strbuf_addf(out, "%s / %s", f->bench_name, f->cmp_name);
	else
		strbuf_addstr(out, f->item);
	pad(out, start, ITEM_WIDTH);
	show(out, f->bench, f->what == PC_CMP_ONLY ? "(absent)" : none);
	if (f->check == PACK_ENV && !f->bench && f->fallback && f->what == PC_DIFFERS)
		strbuf_addf(out, " (default %s)", f->fallback);
	strbuf_addstr(out, "  |  ");
	show(out, f->cmp, f->what == PC_BENCH_ONLY ? "(absent)" : none);
	if (f->check == PACK_ENV && !f->cmp && f->fallback && f->what == PC_DIFFERS)
		strbuf_addf(out, " (default %s)", f->fallback);
}

static void hyper_line(struct strbuf *out, const struct pc_finding *f)
{
	line_values(out, f, "(absent)");
	if (f->bench_name && f->cmp_name && strcmp(f->bench_name, f->cmp_name))
		strbuf_addf(out, "   (cmp's %s, matched by %s)", f->cmp_name,
			    f->match == PC_MATCH_REFINED ? "its last part" : f->match == PC_MATCH_ALIAS ? "alias" : "similarity");
	if (f->file && strcmp(f->file, "hyperparameters_static.json"))
		strbuf_addf(out, "   [%s]", f->file);
	strbuf_addch(out, '\n');
}

/* A statistic for people: six significant digits. */
static void short_number(struct strbuf *out, const struct pyval *v)
{
	if (!v)
		strbuf_addch(out, '?');
	else if (v->kind == PY_INT || v->kind == PY_FLOAT)
		strbuf_addf(out, "%.6g", pyval_float(v));
	else
		pyval_str(out, v);
}

static const struct pyval *stat_of(const struct pyval *d, int k)
{
	for (size_t i = 0; d && d->kind == PY_DICT && i < d->n; i++)
		if (!strcmp(d->items[2 * i]->text, stat_names[k]))
			return d->items[2 * i + 1];
	return NULL;
}

/* One line: where, the item, and each statistic that differs: bench | cmp (relative difference). */
static void stats_line(struct strbuf *out, const struct pc_finding *f)
{
	struct strbuf w = STRBUF_INIT;
	size_t start = out->len;
	bool first = true;
	strbuf_addf(out, "  %s%s", where_of(f, &w), f->item);
	if (f->file)
		strbuf_addf(out, " (%s)", f->file);
	pad(out, start, ITEM_WIDTH + 12);
	strbuf_release(&w);
	if (f->what != PC_DIFFERS) {
		strbuf_addstr(out, f->what == PC_BENCH_ONLY ? "only in bench\n" : "only in cmp\n");
		return;
	}
	if (!f->bench || !f->cmp || f->bench->kind != PY_DICT || f->bench->n != 4 || f->cmp->kind != PY_DICT) {
		show(out, f->bench, "(absent)");
		strbuf_addstr(out, "  |  ");
		show(out, f->cmp, "(absent)");
		strbuf_addch(out, '\n');
		return;
	}
	for (int k = 0; k < 4; k++) {
		if (!f->abs_diff[k] && !isnan(f->abs_diff[k]))
			continue;
		strbuf_addf(out, "%s%s ", first ? "" : "; ", stat_names[k]);
		short_number(out, stat_of(f->bench, k));
		strbuf_addstr(out, " | ");
		short_number(out, stat_of(f->cmp, k));
		if (f->has_rel[k])
			strbuf_addf(out, " (%.3g)", f->rel[k]);
		first = false;
	}
	strbuf_addch(out, '\n');
}

static void last_frame(struct strbuf *out, const struct pyval *stack)
{
	if (!stack || !stack->n) {
		strbuf_addstr(out, "(no frame)");
		return;
	}
	strbuf_add(out, stack->items[stack->n - 1]->text, stack->items[stack->n - 1]->len);
}

static void random_line(struct strbuf *out, const struct pc_finding *f)
{
	if (f->note) {
		strbuf_addf(out, "  %s: %s\n", f->item, f->note);
		return;
	}
	strbuf_addf(out, "  rank %lld %s: ", (long long)f->rank, f->item);
	if (f->what == PC_DIFFERS)
		strbuf_addf(out, "called %lld time%s in bench, %lld in cmp, at ", (long long)f->bench_count, f->bench_count == 1 ? "" : "s",
			    (long long)f->cmp_count);
	else
		strbuf_addf(out, "called only in %s (%lld times), at ", f->what == PC_BENCH_ONLY ? "bench" : "cmp",
			    (long long)(f->what == PC_BENCH_ONLY ? f->bench_count : f->cmp_count));
	last_frame(out, f->bench_stack ? f->bench_stack : f->cmp_stack);
	strbuf_addch(out, '\n');
}

struct section {
	const char *title;
	bool (*wants)(const struct pc_finding *);
	void (*line)(struct strbuf *, const struct pc_finding *);
};

static bool counted(const struct pc_finding *f)
{
	return f->level >= PC_WARNING;
}

static bool s_random(const struct pc_finding *f)
{
	return counted(f) && (f->check == PACK_RANDOM || (f->check == PACK_HYPER && is_seed_key(f->item)));
}

static bool s_lr(const struct pc_finding *f)
{
	return counted(f) && f->check == PACK_HYPER && !is_seed_key(f->item) && is_lr_key(f->item);
}

static bool s_hyper(const struct pc_finding *f)
{
	return counted(f) && f->check == PACK_HYPER && !is_seed_key(f->item) && !is_lr_key(f->item);
}

static bool s_pip(const struct pc_finding *f)
{
	return counted(f) && f->check == PACK_PIP;
}

static bool s_weights(const struct pc_finding *f)
{
	return counted(f) && f->check == PACK_WEIGHTS;
}

static bool s_dataset(const struct pc_finding *f)
{
	return counted(f) && f->check == PACK_DATASET;
}

static bool s_env(const struct pc_finding *f)
{
	return counted(f) && f->check == PACK_ENV;
}

static void seed_line(struct strbuf *out, const struct pc_finding *f)
{
	if (f->check == PACK_RANDOM)
		random_line(out, f);
	else
		hyper_line(out, f);
}

static void pip_line(struct strbuf *out, const struct pc_finding *f)
{
	line_values(out, f, "(absent)");
	strbuf_addch(out, '\n');
}

static void env_line(struct strbuf *out, const struct pc_finding *f)
{
	line_values(out, f, "(unset)");
	strbuf_addch(out, '\n');
}

static void summary_line(struct strbuf *out, const struct precheck *c, enum pack_check k)
{
	const struct pc_summary *s = &c->sum[k];
	size_t start = out->len;
	strbuf_addf(out, "  %s", pack_check_name(k));
	pad(out, start, 18);
	if (!s->compared) {
		strbuf_addf(out, "not compared: only %s has it\n", s->bench_has ? "bench" : "cmp");
		return;
	}
	if (s->level >= PC_WARNING)
		strbuf_addf(out, "DIFFERS  %zu of %zu", s->differ, s->items);
	else
		strbuf_addf(out, "alike    %zu compared", s->items);
	if (s->info)
		strbuf_addf(out, " (%zu more not counted)", s->info);
	if (k == PACK_WEIGHTS && s->level >= PC_WARNING)
		for (size_t i = 0; i < c->n; i++)
			if (c->v[i].check == PACK_WEIGHTS && counted(&c->v[i])) {
				strbuf_addf(out, ", from step %lld: %s", (long long)c->v[i].step, c->v[i].item);
				break;
			}
	strbuf_addch(out, '\n');
}

void precheck_write_text(const struct precheck *c, struct strbuf *out)
{
	static const struct section sections[] = {
		{ "seed and random calls", s_random, seed_line },
		{ "learning rate", s_lr, hyper_line },
		{ "hyperparameters", s_hyper, hyper_line },
		{ "library versions", s_pip, pip_line },
		{ "weights (bench | cmp, relative difference)", s_weights, stats_line },
		{ "dataset: the inputs of each forward (bench | cmp, relative difference)", s_dataset, stats_line },
		{ "environment", s_env, env_line },
	};
	size_t start = out->len, ndiff = 0, ninfo = 0;
	strbuf_addf(out, "probe-config: %s (bench) against %s (cmp)\n", c->bench->path, c->cmp->path);
	for (int k = 0; k < PACK_NCHECKS; k++) {
		if (!c->sum[k].bench_has && !c->sum[k].cmp_has)
			continue;
		summary_line(out, c, (enum pack_check)k);
		ndiff += c->sum[k].compared && c->sum[k].level >= PC_WARNING;
	}
	if (ndiff)
		strbuf_addf(out, "The runs are not set up alike: %zu check%s differ%s.\n", ndiff, ndiff > 1 ? "s" : "",
			    ndiff > 1 ? "" : "s");
	else
		strbuf_addstr(out, "The runs are set up alike in what was compared.\n");
	if (c->sum[PACK_RANDOM].compared)
		strbuf_addstr(out, "Note: msprobe's pack records where random numbers are drawn and seeded, not the seed "
				   "values: compare the seeds themselves (a hyperparameter, a line of the script).\n");
	for (size_t s = 0; s < ARRAY_SIZE(sections); s++) {
		size_t shown = 0, total = 0;
		for (size_t i = 0; i < c->n; i++)
			total += sections[s].wants(&c->v[i]);
		if (!total)
			continue;
		strbuf_addf(out, "\n%s: %zu\n", sections[s].title, total);
		for (size_t i = 0; i < c->n && shown < MAX_LISTED; i++)
			if (sections[s].wants(&c->v[i])) {
				sections[s].line(out, &c->v[i]);
				shown++;
			}
		if (total > shown)
			strbuf_addf(out, "  ... and %zu more (the records have them all)\n", total - shown);
	}
	for (size_t i = 0; i < c->n; i++)
		ninfo += c->v[i].level == PC_INFO;
	if (ninfo) {
		size_t shown = 0;
		strbuf_addf(out, "\nnot counted: %zu\n", ninfo);
		for (size_t i = 0; i < c->n && shown < MAX_LISTED; i++) {
			const struct pc_finding *f = &c->v[i];
			if (f->level != PC_INFO)
				continue;
			shown++;
			if (f->note) {
				struct strbuf w = STRBUF_INIT;
				strbuf_addf(out, "  %s %s%s: %s\n", pack_check_name(f->check), where_of(f, &w), f->item, f->note);
				strbuf_release(&w);
			} else {
				strbuf_addf(out, "  %s ", pack_check_name(f->check));
				line_values(out, f, f->check == PACK_ENV ? "(unset)" : "(absent)");
				strbuf_addch(out, '\n');
			}
		}
		if (ninfo > shown)
			strbuf_addf(out, "  ... and %zu more (the records have them all)\n", ninfo - shown);
	}
	text_escape_tail(out, start, TEXT_KEEP_NL);
}
