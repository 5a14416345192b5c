/* firsttext.c: probe-first --format text, the report for people (firstmodel.h). */
#include "firstmodel.h"
#include "consist.h"
#include "../core/xalloc.h"
#include "../core/textesc.h"
#include "../dumps/atb.h"
#include "../dumps/stack.h"

#include <math.h>

/* A field of the record's target leaf, as text ("" when absent). */
static void leaf_field_text(const struct finding *x, enum leaf_field fld, struct strbuf *out)
{
	struct pair p;
	struct strbuf err = STRBUF_INIT;
	struct leafrec r;
	const char *why;
	const struct leafrec *t = NULL;
	strbuf_reset(out);
	if (pair_parse(&p, x->line, x->len, &err) == 0 && p.has_t)
		t = &p.t;
	else if (leafrec_parse(&r, x->line, x->len, &why) == 0)
		t = &r;
	if (t && t->f[fld].kind != SPAN_NONE) {
		if (t->f[fld].kind == SPAN_STRING)
			span_string(&t->f[fld], out);
		else
			strbuf_add(out, t->f[fld].p, t->f[fld].n);
	}
	strbuf_release(&err);
}

/* Text from the records (names, frames): its control characters, line ends included, made visible (textesc.h). */
static void add_text(struct strbuf *out, const char *s)
{
	text_escape_str(out, s ? s : "(null)", 0);
}

/* One frame of a stack as "FILE:LINE in FUNCTION: CODE" (the text as it is when not in msprobe's form), a line. */
static void add_frame_line(struct strbuf *out, const char *label, const char *text)
{
	struct frame fr;
	strbuf_addstr(out, label);
	if (stack_frame_parse(text, &fr) && fr.function) {
		text_escape(out, fr.file, fr.file_len, 0);
		strbuf_addf(out, ":%ld in ", fr.line);
		text_escape(out, fr.function, fr.function_len, 0);
		strbuf_addstr(out, ": ");
		text_escape(out, fr.code ? fr.code : "", fr.code ? fr.code_len : 0, 0);
	} else {
		add_text(out, text);
	}
	strbuf_addch(out, '\n');
}

/*
 * The frames of the stack (a JSON array of msprobe's frame strings) that are
 * (framework) or are not the framework's, innermost first as msprobe lists
 * them, a line each: the first labelled label, the others indented as far.
 */
static void add_frames_of(struct strbuf *out, const struct strbuf *stack, bool framework, const char *label)
{
	struct strbuf frame = STRBUF_INIT;
	struct rs_iter it;
	struct span v;
	bool first = true;
	if (!stack->len || rs_begin_array(&it, stack->buf, stack->len))
		return;
	while (rs_next_item(&it, &v) == 1) {
		struct frame fr;
		strbuf_reset(&frame);
		if (span_string(&v, &frame) < 0)
			continue;
		/* a frame not in msprobe's form is shown with the user's: it cannot be told apart */
		bool is_framework = stack_frame_parse(frame.buf, &fr) && stack_frame_is_framework(&fr, NULL, 0);
		if (is_framework != framework)
			continue;
		add_frame_line(out, first ? label : "           ", frame.buf);
		first = false;
	}
	strbuf_release(&frame);
}

/*
 * The stack attached to the record (probe-stack): the user's own frames
 * first ("stack"), the framework's after ("library": site-packages,
 * dist-packages, the standard library), each innermost first; then the
 * modules around the entry.
 */
static void add_frames(struct strbuf *out, const struct finding *x)
{
	struct strbuf st = STRBUF_INIT, frame = STRBUF_INIT;
	struct rs_iter it;
	struct span v;
	leaf_field_text(x, LF_STACK, &st);
	add_frames_of(out, &st, false, "  stack    ");
	add_frames_of(out, &st, true, "  library  ");
	leaf_field_text(x, LF_MODULES, &st);
	if (st.len && rs_begin_array(&it, st.buf, st.len) == 0) {
		size_t at = out->len;
		bool first = true;
		strbuf_addstr(out, "  modules  ");
		while (rs_next_item(&it, &v) == 1) {
			strbuf_reset(&frame);
			if (span_string(&v, &frame) < 0 || !frame.len)
				continue;
			strbuf_addstr(out, first ? "" : " > ");
			add_text(out, frame.buf);
			first = false;
		}
		if (first) /* no module around it: no line */
			strbuf_setlen(out, at);
		else
			strbuf_addch(out, '\n');
	}
	strbuf_release(&st);
	strbuf_release(&frame);
}

/* "rank R", or the name of a run without a rank (leafrec_rank_label(): "proc2016", "no rank"). */
static void add_rank_label(struct strbuf *out, const struct first_stream *f, int mode, int64_t rank)
{
	const char *proc = NULL;
	for (size_t i = 0; rank < 0 && i < f->nranks; i++)
		if (f->ranks[i].rank < 0 && f->ranks[i].mode == mode)
			proc = f->ranks[i].proc;
	leafrec_rank_label(out, rank, proc);
}

/*
 * Where a finding is: "rank 0, step 3", or in a folder of a graph/pynative
 * root "graph/step3 rank 0" (ranks: a label of several ranks instead).
 */
static void add_where_label(struct strbuf *out, const struct first_stream *f, const struct finding *x,
			    const char *ranks)
{
	if (x->mode) {
		strbuf_addf(out, "%s/", leaf_exec_mode_names[x->mode]);
		if (x->step >= 0)
			strbuf_addf(out, "step%lld ", (long long)x->step);
	}
	if (ranks)
		strbuf_addstr(out, ranks);
	else
		add_rank_label(out, f, x->mode, x->rank);
	if (x->step >= 0 && !x->mode)
		strbuf_addf(out, ", step %lld", (long long)x->step);
}

/* " in graph/" for the ranks [lo, ...) of a folder of a graph/pynative root; "" for a dump of none. */
static const char *in_folder(const struct first_stream *f, size_t lo, char buf[24])
{
	if (lo >= f->nranks || !f->ranks[lo].mode)
		return "";
	snprintf(buf, 24, " in %s/", leaf_exec_mode_names[f->ranks[lo].mode]);
	return buf;
}

/* A "where" object's text as "FILE:LINE in FUNCTION: CODE" added to out. */
static void where_object_text(const char *text, size_t n, struct strbuf *out)
{
	static const char *const keys[] = { "file", "line", "function", "code" };
	struct span v[4];
	struct rs_iter it;
	if (n && rs_begin(&it, text, n) == 0 && rs_fields(&it, keys, 4, v) == 0 &&
	    v[0].kind == SPAN_STRING) {
		struct strbuf part = STRBUF_INIT;
		span_string(&v[0], &part);
		add_text(out, part.buf);
		if (v[1].kind == SPAN_NUMBER)
			strbuf_addf(out, ":%.*s", (int)v[1].n, v[1].p);
		strbuf_reset(&part);
		if (v[2].kind == SPAN_STRING && span_string(&v[2], &part) == 0) {
			strbuf_addstr(out, " in ");
			add_text(out, part.buf);
		}
		strbuf_reset(&part);
		if (v[3].kind == SPAN_STRING && span_string(&v[3], &part) == 0 && part.len) {
			strbuf_addstr(out, ": ");
			add_text(out, part.buf);
		}
		strbuf_release(&part);
	}
}

/* "FILE:LINE in FUNCTION: CODE", the user's line probe-stack attached ("" when none). */
static void where_text(const struct finding *x, struct strbuf *out)
{
	struct strbuf w = STRBUF_INIT;
	strbuf_reset(out);
	leaf_field_text(x, LF_WHERE, &w);
	where_object_text(w.buf, w.len, out);
	strbuf_release(&w);
}

/* A scalar's line: "    at FILE:LINE in FUNCTION: CODE". */
static void add_where_object(struct strbuf *out, const char *text, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	where_object_text(text, n, &sb);
	if (sb.len)
		strbuf_addf(out, "    at %s\n", sb.buf);
	strbuf_release(&sb);
}

/* "NAME (state, dtype [shape])" */
static void leaf_label(const struct finding *x, struct strbuf *out, struct strbuf *sb)
{
	leaf_field_text(x, LF_DTYPE, sb);
	add_text(out, x->name);
	strbuf_addstr(out, " (");
	add_text(out, x->state);
	strbuf_addstr(out, sb->len ? ", " : "");
	add_text(out, sb->buf);
	leaf_field_text(x, LF_SHAPE, sb);
	strbuf_addf(out, "%s", sb->len ? " " : "");
	for (size_t at = 0; at < sb->len; at++) {
		strbuf_addch(out, sb->buf[at]);
		if (sb->buf[at] == ',')
			strbuf_addch(out, ' ');
	}
	strbuf_addch(out, ')');
}

/* What differs, for people: each field with target and golden labelled, then the elements. */
static void add_differences(const struct first_stream *f, const struct finding *x, struct strbuf *out)
{
	struct pair p;
	struct strbuf err = STRBUF_INIT, reason = STRBUF_INIT;
	struct verdict_result v = { .reason = STRBUF_INIT };
	struct verdict_options vo = { f->opts.band.rtol, f->opts.band.atol, f->banded };
	size_t before = out->len;
	const char *tensor;
	if (x->reason)
		strbuf_addstr(&reason, x->reason);
	if (consist_pair_line(x->line, x->len)) {
		/* training against inference: shapes, requires_grad and names differ by design; the reason says what counts */
		if (x->reason)
			strbuf_addf(out, "  differs  %s\n", x->reason);
		else if (pair_parse(&p, x->line, x->len, &err) == 0 && p.reason.kind == SPAN_STRING &&
			 span_string(&p.reason, &reason) == 0)
			strbuf_addf(out, "  differs  %s\n", reason.buf);
		strbuf_release(&v.reason);
		strbuf_release(&err);
		strbuf_release(&reason);
		return;
	}
	if (pair_parse(&p, x->line, x->len, &err) == 0 && p.has_t && p.has_g) {
		if (!x->reason && p.reason.kind == SPAN_STRING)
			span_string(&p.reason, &reason);
		verdict_pair(&p.t, &p.g, &vo, &v);
		verdict_write_text(&p.t, &p.g, v.differs, "  differs  ", "           ", out);
	}
	/* the elements, as the reason says them */
	tensor = strstr(reason.buf, "tensor");
	if (tensor)
		strbuf_addf(out, "%s%s\n", out->len > before ? "           " : "  differs  ", tensor);
	else if (out->len == before)
		strbuf_addf(out, "  differs  %s\n", reason.buf);
	strbuf_release(&v.reason);
	strbuf_release(&err);
	strbuf_release(&reason);
}

/* The folder of a leaf's "dump" (an ATB leaf's statistic.csv: its exec folder), or NULL. */
static char *leaf_dump_dir(const struct leafrec *r)
{
	struct strbuf sb = STRBUF_INIT;
	char *slash;
	leafrec_str(r, LF_DUMP, &sb);
	if (!(slash = strrchr(sb.buf, '/'))) {
		strbuf_release(&sb);
		return NULL;
	}
	strbuf_setlen(&sb, (size_t)(slash - sb.buf));
	return strbuf_detach(&sb, NULL);
}

/* An ATB dump's first divergence: what to dump next (atb.h), each line indented as the report's. */
static void add_atb_next(struct strbuf *out, const struct finding *x, struct strbuf *sb)
{
	struct strbuf err = STRBUF_INIT;
	char *t_dir = NULL, *g_dir = NULL;
	struct pair pr;
	if (pair_parse(&pr, x->line, x->len, &err) == 0) {
		t_dir = pr.has_t ? leaf_dump_dir(&pr.t) : NULL;
		g_dir = pr.has_g ? leaf_dump_dir(&pr.g) : NULL;
	}
	strbuf_release(&err);
	strbuf_reset(sb);
	atb_next_step(x->entry, x->step, t_dir, g_dir, sb);
	free(t_dir);
	free(g_dir);
	for (const char *p = sb->buf; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
		strbuf_addstr(out, "  ");
		text_escape(out, p, n - (nl != NULL), 0);
		strbuf_addch(out, '\n');
		p += n;
	}
}

/* The rounding budget's numbers: "rounding delta 0.12, budget 0.0031 (own 0.0027, carried 0.0004), 38.7 times; factor 8". */
static void add_budget_line(const struct first_stream *f, const struct finding *x, struct strbuf *out)
{
	strbuf_addf(out, "  rounding delta %.3g, budget %.3g (%s", x->delta, x->budget, x->coarser);
	if (x->reduction > 1)
		strbuf_addf(out, " over %.0f", x->reduction);
	strbuf_addf(out, ": %.3g; carried: %.3g), ", x->own, x->carried);
	if (isinf(x->ratio))
		strbuf_addstr(out, "no rounding allowed here");
	else
		strbuf_addf(out, "%.3g times", x->ratio);
	strbuf_addf(out, "; divergence over %g times\n", f->opts.factor);
}

/* --explain: the leaves judged rounding just before a rank's first divergence. */
static void add_explained(const struct finding *x, struct strbuf *out)
{
	strbuf_addf(out, "  before   %llu leaves of this rank differ within rounding before it; the last %zu:\n",
		    (unsigned long long)x->rounding_before, x->nbefore);
	for (size_t i = 0; i < x->nbefore; i++) {
		const struct rounded *r = &x->before[i];
		strbuf_addstr(out, "           ");
		add_text(out, r->name);
		strbuf_addf(out, ": delta %.3g, budget %.3g (%.2g of it)\n", r->delta, r->budget,
			    r->budget > 0 ? r->delta / r->budget : 0.0);
	}
}

/* The scalar arguments that differ (all of them, a line each, with the user's line when attached). */
static void write_scalars(const struct first_stream *f, size_t lo, size_t hi, struct strbuf *out)
{
	uint64_t n = 0;
	for (size_t i = lo; i < hi; i++)
		n += f->ranks[i].nscalars;
	if (!n)
		return;
	strbuf_addf(out, "\nscalar arguments that differ (%llu):\n", (unsigned long long)n);
	for (size_t i = lo; i < hi; i++) {
		const struct rank_state *rs = &f->ranks[i];
		const char *p = rs->scalars.buf, *end = p + rs->scalars.len;
		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			const char *part[4];
			size_t len[4];
			int k = 0;
			const char *q = p;
			if (!nl)
				break;
			while (k < 4) {
				const char *sep = k < 3 ? memchr(q, '\x1f', (size_t)(nl - q)) : nl;
				if (!sep)
					sep = nl;
				part[k] = q;
				len[k] = (size_t)(sep - q);
				k++;
				q = sep < nl ? sep + 1 : nl;
			}
			strbuf_addstr(out, "  ");
			add_rank_label(out, f, rs->mode, rs->rank);
			strbuf_addstr(out, ": ");
			text_escape(out, part[0], len[0], 0);
			strbuf_addstr(out, ": target ");
			text_escape(out, part[1], len[1], 0);
			strbuf_addstr(out, ", golden ");
			text_escape(out, part[2], len[2], 0);
			strbuf_addch(out, '\n');
			if (len[3])
				add_where_object(out, part[3], len[3]);
			p = nl + 1;
		}
		if (rs->nscalars > 1000)
			strbuf_addf(out, "  (and %llu more on this rank)\n", (unsigned long long)(rs->nscalars - 1000));
	}
}

/* One divergence (or culprit), in full. */
static void write_finding_text(const struct first_stream *f, const struct rank_state *rs, const struct finding *x,
			       const char *ranks, struct strbuf *out, struct strbuf *sb)
{
	strbuf_addch(out, '\n');
	add_where_label(out, f, x, ranks);
	strbuf_addf(out, ": %s #%zu%s\n", f->opts.nonfinite ? "first inf/nan" : "divergence", x->n,
		    x->started ? " (this rank started it)" : ranks ? " (received alike; the numbers are the first rank's)" : "");
	strbuf_addstr(out, "  entry    ");
	add_text(out, x->entry);
	if (rs->comm && x->comm_before)
		strbuf_addf(out, " (after %llu communication operator%s)", (unsigned long long)x->comm_before,
			    x->comm_before == 1 ? "" : "s");
	strbuf_addstr(out, "\n  leaf     ");
	leaf_label(x, out, sb);
	strbuf_addch(out, '\n');
	where_text(x, sb);
	if (sb->len)
		strbuf_addf(out, "  where    %s\n", sb->buf);
	if (x->what)
		strbuf_addf(out, "  values   %s\n", x->what);
	else
		add_differences(f, x, out);
	strbuf_addf(out, "  verdict  %s\n", x->why);
	if (x->budgeted && !x->structural)
		add_budget_line(f, x, out);
	if (x->nbefore)
		add_explained(x, out);
	add_frames(out, x);
	leaf_field_text(x, LF_TYPE, sb);
	if (x->n == 1 && !strcmp(sb->buf, "atb.Tensor"))
		add_atb_next(out, x, sb);
}

/*
 * The ranks (from i on, in its folder) whose first finding is received through the same entry as rank i's,
 * as "ranks 0, 1, 3".
 */
static size_t received_alike(const struct first_stream *f, size_t i, bool *taken, struct strbuf *label)
{
	const struct finding *x = &f->ranks[i].found[0];
	size_t n = 0, end = first_folder_end(f, i);
	strbuf_reset(label);
	for (size_t k = i; k < end; k++) {
		const struct rank_state *rs = &f->ranks[k];
		if (taken[k] || !rs->nfound || first_rank_started(rs) || strcmp(rs->found[0].entry, x->entry) ||
		    rs->found[0].received != x->received || strcmp(rs->found[0].name, x->name))
			continue;
		taken[k] = true;
		strbuf_addstr(label, n++ ? ", " : "");
		if (rs->rank < 0)
			strbuf_addstr(label, rs->proc ? rs->proc : "no rank");
		else
			strbuf_addf(label, "%lld", (long long)rs->rank);
	}
	return n;
}

static void write_rank_tail(const struct first_stream *f, const struct rank_state *rs, struct strbuf *out)
{
	if (!f->opts.nonfinite && rs->nfound) {
		strbuf_addf(out, "  then     %llu leaves differ in all on this rank", (unsigned long long)rs->diff);
		if (f->noise && rs->rounding)
			strbuf_addf(out, " (%llu of them within rounding)", (unsigned long long)rs->rounding);
		strbuf_addf(out, "; %llu same, %llu unmatched, %llu golden-only, %llu unreadable\n",
			    (unsigned long long)rs->same, (unsigned long long)rs->unmatched,
			    (unsigned long long)rs->golden_only, (unsigned long long)rs->unreadable);
	}
	if (f->opts.nonfinite && rs->nfound)
		strbuf_addf(out, "  then     %llu operators fed by inf/nan passed it on\n",
			    (unsigned long long)rs->propagators);
	if (!f->opts.nonfinite)
		alike_explain(f->alike, rs->mode, rs->rank, "  note     ", out);
}

/* first_counts() over the ranks [lo, hi). */
static void range_counts(const struct first_stream *f, size_t lo, size_t hi, uint64_t *compared, uint64_t *total)
{
	*compared = *total = 0;
	for (size_t i = lo; i < hi; i++) {
		const struct rank_state *rs = &f->ranks[i];
		*total += rs->pairs + rs->golden_only;
		*compared += rs->pairs - rs->unmatched - rs->unreadable;
	}
}

/*
 * "incomplete: N of M pairs compared; not compared: ..." (head: what starts
 * it; NULL: the counts only, the line before said them) of the ranks [lo,
 * hi) (a folder's, or all), then, after the last rank, the directories not
 * there and the task note.
 */
static void write_completeness(const struct first_stream *f, size_t lo, size_t hi, const char *indent,
			       const char *head, struct strbuf *out)
{
	uint64_t compared, total, unmatched = 0, golden_only = 0, unreadable = 0;
	struct strbuf note = STRBUF_INIT;
	if (f->opts.nonfinite)
		return;
	range_counts(f, lo, hi, &compared, &total);
	for (size_t i = lo; i < hi; i++) {
		unmatched += f->ranks[i].unmatched;
		golden_only += f->ranks[i].golden_only;
		unreadable += f->ranks[i].unreadable;
	}
	if (compared < total) {
		strbuf_addstr(out, indent);
		if (head)
			strbuf_addf(out, "%s%llu of %llu pairs compared; ", head, (unsigned long long)compared,
				    (unsigned long long)total);
		strbuf_addf(out, "not compared: %llu unmatched, %llu golden-only, %llu unreadable",
			    (unsigned long long)unmatched, (unsigned long long)golden_only, (unsigned long long)unreadable);
		if (alike_accepted(f->alike))
			strbuf_addstr(out, " (accepted as a partial comparison)");
		strbuf_addch(out, '\n');
	}
	if (hi < f->nranks) {
		strbuf_release(&note);
		return;
	}
	alike_missing_dirs(f->alike, indent, out);
	alike_tasks_note(f->alike, &note);
	if (note.len)
		strbuf_addf(out, "%s%s\n", indent, note.buf);
	strbuf_release(&note);
}

/* The dtypes whose rounding the ranks [lo, hi) were judged against, as "bfloat16 and float32 rounding". */
static const char *coarsest_text(const struct first_stream *f, size_t lo, size_t hi)
{
	double unit = -1;
	const char *name = "float32";
	for (size_t i = lo; i < hi; i++)
		if (f->ranks[i].coarsest_unit > unit) {
			unit = f->ranks[i].coarsest_unit;
			name = f->ranks[i].coarsest ? f->ranks[i].coarsest : name;
		}
	return name;
}

/* The leaf that came closest to its budget among those judged rounding. */
static void write_closest(const struct first_stream *f, size_t lo, size_t hi, struct strbuf *out)
{
	const struct rank_state *best = NULL;
	for (size_t i = lo; i < hi; i++)
		if (f->ranks[i].worst_leaf && (!best || f->ranks[i].worst_ratio > best->worst_ratio))
			best = &f->ranks[i];
	if (!best)
		return;
	strbuf_addstr(out, "  closest  ");
	add_text(out, best->worst_leaf);
	strbuf_addf(out, " on ");
	add_rank_label(out, f, best->mode, best->rank);
	strbuf_addf(out, ": %.3g times its budget (a divergence from %g times)\n", best->worst_ratio, f->opts.factor);
}

/*
 * The answer first, for the ranks [lo, hi) (all, or a folder's): who started
 * it, where, what it is, the user's line; the other ranks in a line each.
 */
static void write_lead(const struct first_stream *f, size_t lo, size_t hi, struct strbuf *out, struct strbuf *sb)
{
	size_t with = 0, starters = 0, nranks = hi - lo;
	bool *taken = xcalloc(f->nranks + 1, sizeof(*taken));
	struct strbuf label = STRBUF_INIT;
	char fb[24];
	for (size_t i = lo; i < hi; i++) {
		with += f->ranks[i].nfound > 0;
		starters += first_rank_started(&f->ranks[i]);
	}
	if (f->noise) {
		uint64_t rounding = 0;
		for (size_t i = lo; i < hi; i++)
			rounding += f->ranks[i].rounding;
		if (rounding)
			strbuf_addf(out, "differences on %llu leaves are consistent with rounding (%s, factor %g); the first "
					 "beyond it:\n",
				    (unsigned long long)rounding, coarsest_text(f, lo, hi), f->opts.factor);
	}
	strbuf_addf(out, "%s%s on %zu of %zu rank%s; started on ", f->opts.nonfinite ? "inf/nan" : "divergence",
		    in_folder(f, lo, fb), with, nranks, nranks == 1 ? "" : "s");
	for (size_t i = lo, k = 0; i < hi; i++)
		if (first_rank_started(&f->ranks[i])) {
			strbuf_addstr(out, k++ ? ", " : "");
			add_rank_label(out, f, f->ranks[i].mode, f->ranks[i].rank);
		}
	strbuf_addstr(out, starters > 1 ? " (independently)\n" : "\n");
	for (size_t i = lo; i < hi; i++) {
		const struct finding *x;
		if (!first_rank_started(&f->ranks[i]))
			continue;
		x = &f->ranks[i].found[0];
		taken[i] = true;
		strbuf_addstr(out, "  ");
		add_where_label(out, f, x, NULL);
		strbuf_addstr(out, ": ");
		leaf_label(x, out, sb);
		strbuf_addf(out, "\n    %s\n", x->why);
		where_text(x, sb);
		if (sb->len)
			strbuf_addf(out, "    at %s\n", sb->buf);
	}
	for (size_t i = lo; i < hi; i++) {
		const struct finding *x;
		size_t n;
		if (taken[i] || !f->ranks[i].nfound)
			continue;
		x = &f->ranks[i].found[0];
		n = received_alike(f, i, taken, &label);
		strbuf_addf(out, "  rank%s %s: ", n > 1 ? "s" : "", label.buf);
		if (x->received) {
			strbuf_addstr(out, "received it through ");
			add_text(out, x->entry);
		} else {
			strbuf_addf(out, "%s at ", first_role_name(f, x));
			add_text(out, x->name);
		}
		strbuf_addch(out, '\n');
	}
	strbuf_reset(&label);
	for (size_t i = lo, n = 0; i < hi; i++)
		if (!f->ranks[i].nfound) {
			strbuf_addstr(&label, n++ ? ", " : "");
			add_rank_label(&label, f, f->ranks[i].mode, f->ranks[i].rank);
		}
	if (label.len)
		strbuf_addf(out, "  no %s on %s\n", f->opts.nonfinite ? "inf/nan" : "divergence", label.buf);
	write_completeness(f, lo, hi, "  ", "incomplete: ", out);
	strbuf_release(&label);
	free(taken);
}

static void write_report_text(const struct first_stream *f, struct strbuf *out);

/* Nothing found in the ranks [lo, hi) (all, or a folder's). */
static void write_nothing_found(const struct first_stream *f, size_t lo, size_t hi, struct strbuf *out)
{
	uint64_t compared, total, rounding = 0, within = 0;
	size_t nranks = hi - lo;
	char fb[24];
	if (f->opts.nonfinite) {
		strbuf_addf(out, "no inf or nan%s in %zu rank%s\n", in_folder(f, lo, fb), nranks, nranks == 1 ? "" : "s");
		return;
	}
	range_counts(f, lo, hi, &compared, &total);
	for (size_t i = lo; i < hi; i++) {
		rounding += f->ranks[i].rounding;
		within += f->ranks[i].within;
	}
	if (compared == total && rounding) {
		strbuf_addf(out, "within rounding%s: all %llu pairs of %zu rank%s compared; %llu leaves differ, each within "
				 "what rounding explains (%s, factor %g), none beyond it\n",
			    in_folder(f, lo, fb), (unsigned long long)total, nranks, nranks == 1 ? "" : "s",
			    (unsigned long long)rounding, coarsest_text(f, lo, hi), f->opts.factor);
		write_closest(f, lo, hi, out);
	} else if (compared == total && within)
		strbuf_addf(out, "no divergence beyond the band%s: all %llu pairs of %zu rank%s compared; %llu leaves differ "
				 "within the band\n",
			    in_folder(f, lo, fb), (unsigned long long)total, nranks, nranks == 1 ? "" : "s",
			    (unsigned long long)within);
	else if (compared == total)
		strbuf_addf(out, "no divergence%s: all %llu pairs of %zu rank%s compared, and the same\n",
			    in_folder(f, lo, fb), (unsigned long long)total, nranks, nranks == 1 ? "" : "s");
	else
		strbuf_addf(out, "%s%s: %llu of %llu pairs compared, and no divergence in them\n",
			    alike_accepted(f->alike) ? "no divergence in a partial comparison" : "incomplete",
			    in_folder(f, lo, fb), (unsigned long long)compared, (unsigned long long)total);
	write_completeness(f, lo, hi, "  ", NULL, out);
	for (size_t i = lo; i < hi; i++)
		alike_explain(f->alike, f->ranks[i].mode, f->ranks[i].rank, "  note     ", out);
}

/*
 * The report for people.  The names and frames in it have their control
 * characters made visible where they are written (add_text); the whole of
 * it once more at the end, but for its own line ends, for what the other
 * writers it calls put in (reasons, values, notes).
 */
void first_write_text(const struct first_stream *f, struct strbuf *out)
{
	size_t start = out->len;
	write_report_text(f, out);
	text_escape_tail(out, start, TEXT_KEEP_NL);
}

/* The report of the ranks [lo, hi): all of them, or a folder's of a graph/pynative root. */
static void write_folder_text(const struct first_stream *f, size_t lo, size_t hi, struct strbuf *out)
{
	struct strbuf sb = STRBUF_INIT, label = STRBUF_INIT, header = STRBUF_INIT;
	bool *taken;
	bool found = false;
	for (size_t i = lo; i < hi; i++)
		found |= f->ranks[i].nfound > 0;
	if (!found) {
		write_nothing_found(f, lo, hi, out);
		return;
	}
	write_lead(f, lo, hi, out, &sb);
	/* the details: the ranks that started it, then the others; with -n 1 the ranks that received alike once */
	taken = xcalloc(f->nranks + 1, sizeof(*taken));
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = lo; i < hi; i++) {
			const struct rank_state *rs = &f->ranks[i];
			const char *ranks = NULL;
			if (taken[i] || first_rank_started(rs) != !pass)
				continue;
			if (pass && f->opts.n == 1 && rs->nfound && rs->found[0].received &&
			    received_alike(f, i, taken, &label) > 1) {
				strbuf_reset(&header);
				strbuf_addf(&header, "ranks %s", label.buf);
				ranks = header.buf;
			}
			taken[i] = true;
			for (size_t k = 0; k < rs->nfound; k++)
				write_finding_text(f, rs, &rs->found[k], k ? NULL : ranks, out, &sb);
			write_rank_tail(f, rs, out);
		}
	write_scalars(f, lo, hi, out);
	free(taken);
	strbuf_release(&sb);
	strbuf_release(&label);
	strbuf_release(&header);
}

/* Whether the findings came with the user's line or a stack (probe-stack before probe-first). */
static bool findings_have_stacks(const struct first_stream *f)
{
	struct strbuf sb = STRBUF_INIT;
	bool any = false;
	for (size_t i = 0; i < f->nranks && !any; i++)
		for (size_t k = 0; k < f->ranks[i].nfound && !any; k++) {
			where_text(&f->ranks[i].found[k], &sb);
			any = sb.len > 0;
			leaf_field_text(&f->ranks[i].found[k], LF_STACK, &sb);
			any |= sb.len > 0;
		}
	strbuf_release(&sb);
	return any;
}

/* Whether a rank diverged in more places than the report shows (-n N shows more). */
static bool more_divergences(const struct first_stream *f)
{
	for (size_t i = 0; i < f->nranks; i++)
		if (f->ranks[i].diffs > f->ranks[i].nfound)
			return true;
	return false;
}

/* Whether the findings are ATB leaves (msprobe's compare -m atb: no module graph, no stack). */
static bool findings_are_atb(const struct first_stream *f, struct strbuf *sb)
{
	for (size_t i = 0; i < f->nranks; i++)
		if (f->ranks[i].nfound) {
			leaf_field_text(&f->ranks[i].found[0], LF_TYPE, sb);
			return !strcmp(sb->buf, "atb.Tensor");
		}
	return false;
}

/*
 * What to run next, after a divergence was found, as commands to copy:
 * TARGET and GOLDEN stand for the two dumps (RUN for the one run of
 * --nonfinite).  Only what applies: more divergences when a rank has more,
 * the stack when none was attached, the module graph where there are
 * modules (not ATB's operations).
 */
static void write_next_steps(const struct first_stream *f, struct strbuf *out)
{
	struct strbuf sb = STRBUF_INIT;
	const char *pairs = "probe-flatten TARGET | probe-match GOLDEN | probe-metric";
	bool atb = findings_are_atb(f, &sb);
	size_t n = f->opts.n ? f->opts.n : 1;
	if (f->opts.nonfinite) {
		strbuf_addstr(out, "\nnext steps (RUN: the dump, as you gave it)\n");
		if (more_divergences(f))
			strbuf_addf(out, "  the next %zu of each rank:  probe-flatten RUN | probe-first --nonfinite -n %zu --format "
					 "text\n", n + 4, n + 4);
		if (!findings_have_stacks(f))
			strbuf_addstr(out, "  your script's lines:  probe-flatten RUN | probe-stack | probe-first --nonfinite --format "
					   "text\n");
		strbuf_release(&sb);
		return;
	}
	strbuf_addstr(out, "\nnext steps (TARGET and GOLDEN: the two dumps, and your probe-match options, as you gave them)\n");
	if (!findings_have_stacks(f) && !atb)
		strbuf_addf(out, "  your script's lines:  %s | probe-stack | probe-first --format text\n", pairs);
	if (more_divergences(f))
		strbuf_addf(out, "  the next %zu of each rank:  %s | probe-first -n %zu --format text\n", n + 4, pairs, n + 4);
	strbuf_addf(out, "  msprobe's table:  %s --csv > compare.csv\n", pairs);
	/* a picture shows one folder of a graph/pynative root: the first finding's */
	strbuf_reset(&sb);
	for (size_t i = 0; i < f->nranks && !sb.len; i++)
		if (f->ranks[i].nfound && f->ranks[i].mode)
			strbuf_addf(&sb, " | jq -c 'select((.t // .g).exec_mode == \"%s\")'",
				    leaf_exec_mode_names[f->ranks[i].mode]);
	strbuf_addf(out, "  the picture:  %s%s%s | probe-plot --format html > plot.html\n", pairs, sb.buf,
		    atb ? "" : " | probe-stack");
	if (!atb)
		strbuf_addf(out, "  the modules side by side:  %s%s | probe-stack | probe-graph > graph.html\n", pairs, sb.buf);
	strbuf_release(&sb);
}

/* Folder by folder (graph, then pynative) for a graph/pynative root: each its own answer; all at once otherwise. */
static void write_report_text(const struct first_stream *f, struct strbuf *out)
{
	bool found = false;
	if (!f->nranks) {
		write_nothing_found(f, 0, 0, out);
		return;
	}
	for (size_t lo = 0, hi; lo < f->nranks; lo = hi) {
		hi = first_folder_end(f, lo);
		if (lo)
			strbuf_addch(out, '\n');
		write_folder_text(f, lo, hi, out);
	}
	for (size_t i = 0; i < f->nranks; i++)
		found |= f->ranks[i].nfound > 0;
	if (found)
		write_next_steps(f, out);
}
