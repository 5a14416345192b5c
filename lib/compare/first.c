#include "firstmodel.h"
#include "alike.h"
#include "../msprobe/comm.h"
#include "../json/jsonw.h"
#include "../msprobe/mscell.h"
#include "../records/pair.h"
#include "../json/recscan.h"
#include "../dumps/stack.h"
#include "../tensors/tensor.h"
#include "verdict.h"
#include "ckcmp.h"
#include "../core/xalloc.h"
#include "../core/msg.h"
#include "../core/strmap.h"
#include "../core/textesc.h"

#include <math.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>


struct first_stream *first_new(const struct first_options *opts)
{
	struct first_stream *f = xcalloc(1, sizeof(*f));
	f->opts = *opts;
	if (!f->opts.n)
		f->opts.n = 1;
	f->banded = opts->band.rtol > 0 || opts->band.atol > 0 || opts->band.ulps > 0 || opts->cos_min > 0;
	f->noise = !opts->nonfinite && !f->banded && !opts->bitwise;
	if (!(f->opts.factor > 0))
		f->opts.factor = NOISE_DEFAULT_FACTOR;
	strbuf_init(&f->scratch, 0);
	if (!opts->nonfinite)
		f->alike = alike_new(&(struct alike_options){ .partial = opts->partial });
	return f;
}

static void bad_leaf_clear(struct bad_leaf *b)
{
	free(b->line);
	free(b->what);
	free(b->name);
	free(b->state);
	memset(b, 0, sizeof(*b));
}

static void finding_release(struct finding *x)
{
	free(x->line);
	free(x->verdict);
	free(x->reason);
	free(x->tensor_json);
	free(x->entry);
	free(x->name);
	free(x->state);
	free(x->why);
	free(x->what);
	free(x->unpaired_of);
	for (size_t i = 0; i < x->nbefore; i++)
		free(x->before[i].name);
	free(x->before);
}

void first_free(struct first_stream *f)
{
	if (!f)
		return;
	for (size_t r = 0; r < f->nranks; r++) {
		struct rank_state *rs = &f->ranks[r];
		for (size_t i = 0; i < rs->nfound; i++)
			finding_release(&rs->found[i]);
		for (size_t i = 0; i < rs->nms; i++) {
			free(rs->ms[i].entry);
			free(rs->ms[i].data_info);
			free(rs->ms[i].stack);
			free(rs->ms[i].construct);
		}
		free(rs->ms);
		free(rs->found);
		strmap_release(&rs->reported);
		free(rs->entry);
		bad_leaf_clear(&rs->bad_in);
		bad_leaf_clear(&rs->bad_out);
		free(rs->cur_stack);
		free(rs->cur_construct);
		free(rs->proc);
		free(rs->outputs);
		free(rs->forwards);
		free(rs->worst_leaf);
		free(rs->last_unpaired);
		for (size_t i = 0; i < EXPLAIN_KEEP; i++)
			free(rs->explain[i].name);
		for (size_t i = 0; i < UNPAIRED_KEEP; i++) {
			free(rs->unpaired[i].entry);
			free(rs->unpaired[i].line);
		}
		strbuf_release(&rs->scalars);
		strbuf_release(&rs->ms_in);
		strbuf_release(&rs->ms_out);
	}
	free(f->ranks);
	alike_free(f->alike);
	strbuf_release(&f->scratch);
	free(f);
}

size_t first_found(const struct first_stream *f)
{
	return f->found;
}

/*
 * The pairs compared (matched, and their tensors read when they have any)
 * and all of them (with the unmatched target leaves and golden-only leaves).
 */
void first_counts(const struct first_stream *f, uint64_t *compared, uint64_t *total)
{
	*compared = *total = 0;
	for (size_t i = 0; i < f->nranks; i++) {
		const struct rank_state *rs = &f->ranks[i];
		*total += rs->pairs + rs->golden_only;
		*compared += rs->pairs - rs->unmatched - rs->unreadable;
	}
}

int first_status(const struct first_stream *f)
{
	uint64_t compared, total;
	if (f->found)
		return PROBE_DIFFERENT;
	if (f->opts.nonfinite)
		return PROBE_OK;
	first_counts(f, &compared, &total);
	return compared < total && !alike_accepted(f->alike) ? PROBE_INCOMPLETE : PROBE_OK;
}

/* ---- ranks and operators ---------------------------------------------------- */

/*
 * The state of a leaf's rank (of its folder, in a graph/pynative root);
 * NULL, with the reason in err, for a leaf of such a root among leaves of
 * another dump (or the other way round): nothing says how the two align.
 */
static struct rank_state *rank_of(struct first_stream *f, const struct leafrec *r, struct strbuf *err)
{
	for (size_t i = 0; i < f->nranks; i++)
		if (f->ranks[i].rank == r->rank && f->ranks[i].mode == r->exec_mode)
			return &f->ranks[i];
	if (f->nranks && !f->ranks[0].mode != !r->exec_mode) {
		strbuf_addstr(err, "records of a graph/pynative root (\"exec_mode\") and of another dump in one stream: "
				   "compare them apart");
		return NULL;
	}
	ALLOC_GROW(f->ranks, f->nranks + 1, f->ranks_alloc);
	struct rank_state *rs = &f->ranks[f->nranks++];
	memset(rs, 0, sizeof(*rs));
	rs->rank = r->rank;
	rs->mode = r->exec_mode;
	rs->proc = r->rank < 0 ? leafrec_proc_folder(r) : NULL;
	rs->inputs = INPUTS_SAME;
	rs->any_diff_step = -1;
	strbuf_init(&rs->scalars, 0);
	strbuf_init(&rs->ms_in, 0);
	strbuf_init(&rs->ms_out, 0);
	return rs;
}

static char *span_dup(const struct span *s)
{
	struct strbuf sb = STRBUF_INIT;
	if (s->kind == SPAN_STRING)
		span_string(s, &sb);
	else if (s->kind != SPAN_NONE)
		strbuf_add(&sb, s->p, s->n);
	return strbuf_detach(&sb, NULL);
}

static bool is_output_state(const struct span *state)
{
	return span_str_eq(state, "output", 6) || span_str_eq(state, "parameters_grad", 15);
}

static void ms_close_entry(struct first_stream *f, struct rank_state *rs);
static void keep_forward(struct rank_state *rs);
static void take_forward(struct rank_state *rs);

/*
 * A leaf of (step, entry) on this rank: when it starts another operator, the
 * operator before it is done (for --nonfinite and --msprobe), and the new one
 * starts with nothing known about its inputs.
 */
static bool enter(struct first_stream *f, struct rank_state *rs, const struct leafrec *r, void (*done)(struct first_stream *,
												   struct rank_state *))
{
	const struct span *e = &r->f[LF_ENTRY];
	const char *p;
	size_t n;
	if (rs->entry && rs->step == r->step && span_plain_string(e, &p, &n) && strlen(rs->entry) == n &&
	    !memcmp(rs->entry, p, n))
		return false;
	if (rs->entry && done)
		done(f, rs);
	ms_close_entry(f, rs);
	if (rs->entry_is_comm)
		rs->comm++;
	if (f->noise && rs->entry)
		keep_forward(rs);
	rs->in_rel = rs->in_abs = rs->out_rel = rs->in_lineage = 0;
	rs->in_tainted = rs->out_tainted = false;
	free(rs->entry);
	rs->entry = span_dup(e);
	rs->step = r->step;
	rs->entry_is_comm = comm_is_communication(rs->entry, strlen(rs->entry));
	if (f->noise)
		take_forward(rs);
	rs->inputs = INPUTS_SAME;
	rs->nshapes = 0;
	rs->prev_unpaired = rs->cur_unpaired;
	rs->cur_unpaired = true;
	rs->ms_cur_flag = false;
	rs->ms_in_bad = rs->ms_out_bad = false;
	strbuf_reset(&rs->ms_in);
	strbuf_reset(&rs->ms_out);
	return true;
}

/* ---- msprobe's view ----------------------------------------------------------- */

/* The leaf's statistics as msprobe's diff_analyze shows them ("NPU max" ... or "NPU MD5"); raw: as the dump has them. */
static void ms_leaf_json(struct strbuf *sb, const struct leafrec *r, bool md5, bool raw)
{
	static const char *const table[] = { "NPU max", "NPU min", "NPU mean", "NPU l2norm" };
	static const char *const dump[] = { "Max", "Min", "Mean", "Norm" };
	const char *const *names = raw ? dump : table;
	struct strbuf name = STRBUF_INIT;
	leafrec_str(r, LF_NAME, &name);
	if (sb->len)
		strbuf_addch(sb, ',');
	jsonw_string(sb, name.buf, name.len);
	strbuf_addstr(sb, ":{");
	if (md5) {
		strbuf_addstr(sb, "\"NPU MD5\":");
		if (r->f[LF_MD5].kind == SPAN_NONE)
			strbuf_addstr(sb, "null");
		else
			strbuf_add(sb, r->f[LF_MD5].p, r->f[LF_MD5].n);
	} else {
		for (int i = 0; i < 4; i++) {
			const struct span *s = &r->f[LF_MAX + i];
			strbuf_addf(sb, "%s\"%s\":", i ? "," : "", names[i]);
			if (s->kind == SPAN_NONE)
				strbuf_addstr(sb, "null");
			else
				strbuf_add(sb, s->p, s->n);
		}
	}
	strbuf_addch(sb, '}');
	strbuf_release(&name);
}

/* msprobe -da: a finite relative change of more than 50 % of an output statistic, or an md5 mismatch. */
static bool ms_da_flags(const struct pair *p, bool md5)
{
	if (!p->has_t || !p->has_g || p->gated || !span_str_eq(&p->t.f[LF_STATE], "output", 6))
		return false;
	if (md5)
		return !span_same(&p->t.f[LF_MD5], &p->g.f[LF_MD5]);
	for (int i = 0; i < 4; i++) {
		const struct span *a = &p->t.f[LF_MAX + i], *b = &p->g.f[LF_MAX + i];
		double x, y;
		if (a->kind != SPAN_NUMBER || b->kind != SPAN_NUMBER || span_same(a, b) || !verdict_stat_value(a, &x) ||
		    !verdict_stat_value(b, &y))
			continue;
		if (y != 0 && isfinite(x) && isfinite(y) && fabs((x - y) / y) > 0.5)
			return true;
	}
	return false;
}

/* The entry just read, as msprobe sees it, when --msprobe will need it. */
static void ms_close_entry(struct first_stream *f, struct rank_state *rs)
{
	struct ms_entry *e;
	if (!rs->entry || !f->opts.msprobe)
		return;
	ALLOC_GROW(rs->ms, rs->nms + 1, rs->ms_alloc);
	e = &rs->ms[rs->nms++];
	memset(e, 0, sizeof(*e));
	e->entry = xstrdup(rs->entry);
	e->comm = rs->entry_is_comm;
	if (f->opts.nonfinite) {
		e->input_bad = rs->ms_in_bad;
		e->flagged = !rs->ms_in_bad && rs->ms_out_bad && !comm_is_ignored_op(rs->entry, strlen(rs->entry));
	} else {
		e->flagged = rs->ms_cur_flag && !comm_is_ignored_op(rs->entry, strlen(rs->entry));
	}
	/* data for the entries msprobe may report: flagged ones, and communication ones */
	if (e->flagged || e->comm || rs->ms_in_bad || rs->ms_out_bad) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addstr(&sb, "{\"input\":{");
		strbuf_addbuf(&sb, &rs->ms_in);
		strbuf_addstr(&sb, "},\"output\":{");
		strbuf_addbuf(&sb, &rs->ms_out);
		strbuf_addstr(&sb, "}}");
		e->data_info = strbuf_detach(&sb, NULL);
		e->stack = rs->cur_stack;
		e->construct = rs->cur_construct;
		rs->cur_stack = rs->cur_construct = NULL;
	}
	free(rs->cur_stack);
	free(rs->cur_construct);
	rs->cur_stack = rs->cur_construct = NULL;
}

/* The frames and module chain probe-stack attached, kept for the operator being read. */
static void note_stack(struct rank_state *rs, const struct leafrec *r)
{
	if (!rs->cur_stack && r->f[LF_STACK].kind == SPAN_ARRAY)
		rs->cur_stack = xmemdupz(r->f[LF_STACK].p, r->f[LF_STACK].n);
	if (!rs->cur_construct && r->f[LF_MODULES].kind == SPAN_ARRAY)
		rs->cur_construct = xmemdupz(r->f[LF_MODULES].p, r->f[LF_MODULES].n);
}

/* ---- two runs --------------------------------------------------------------- */

/* Our verdict on a pair, worked out here (with the band; tensor files read when named). */
struct judged {
	struct verdict_result v;
	struct strbuf tensor;   /* our tensor comparison, as JSON, when files were named */
	struct tmetric tm;      /* the elements compared (have_tm) */
	bool have_tm;
};

static const char *tensor_path(const struct leafrec *r, struct strbuf *sb)
{
	strbuf_reset(sb);
	if (r->f[LF_DATA].kind != SPAN_STRING || span_string(&r->f[LF_DATA], sb) < 0 || !sb->len)
		return NULL;
	return sb->buf;
}

/* Cosine from msprobe's cell, for the --cos-min band ("1.0", "0.99998"; anything else: none). */
static bool cosine_of(const struct tmetric *tm, double *cos)
{
	char *end;
	*cos = strtod(tm->cell[TM_COSINE], &end);
	return end != tm->cell[TM_COSINE] && !*end && isfinite(*cos);
}

static void tensor_json(struct strbuf *sb, const struct tmetric *tm, const char *problem)
{
	strbuf_addstr(sb, "{\"compared\":");
	if (!tm) {
		strbuf_addstr(sb, "false,\"problem\":");
		jsonw_str(sb, problem);
		strbuf_addch(sb, '}');
		return;
	}
	strbuf_addf(sb, "true,\"comparable\":%s,\"same\":%s", tm->comparable ? "true" : "false",
		    tm->same ? "true" : "false");
	if (tm->widened)
		strbuf_addstr(sb, ",\"widened\":true");
	if (tm->comparable || tm->widened)
		strbuf_addf(sb, ",\"elements\":%lld,\"differ\":%lld,\"beyond_band\":%lld", (long long)tm->numel,
			    (long long)tm->ndiff, (long long)tm->nbeyond);
	strbuf_addch(sb, '}');
}

static void compare_tensors(const struct first_stream *f, const struct pair *p, struct judged *j)
{
	struct strbuf tp = STRBUF_INIT, gp = STRBUF_INIT, tn = STRBUF_INIT, gn = STRBUF_INIT, err = STRBUF_INIT;
	struct strbuf tm_ = STRBUF_INIT, gm = STRBUF_INIT;
	struct tensor tt, tg;
	struct tmetric tm;
	const char *a = tensor_path(&p->t, &tp), *b = tensor_path(&p->g, &gp);
	bool compared = false;

	/* the names the files have in their tensor folders (tensor_open_leaf() keeps them there) */
	leafrec_str(&p->t, LF_DATA_NAME, &tn);
	leafrec_str(&p->g, LF_DATA_NAME, &gn);
	/* a checkpoint's parameter: its name inside the checkpoint */
	leafrec_str(&p->t, LF_DATA_MEMBER, &tm_);
	leafrec_str(&p->g, LF_DATA_MEMBER, &gm);
	if (!a || !b)
		strbuf_addstr(&err, "no tensor file named in the record");
	else if (ckcmp_open_leaf(&tt, a, tn.len ? tn.buf : NULL, p->t.f[LF_DATA_MEMBER].kind == SPAN_STRING ? tm_.buf : NULL,
				 &err) == 0) {
		if (ckcmp_open_leaf(&tg, b, gn.len ? gn.buf : NULL,
				    p->g.f[LF_DATA_MEMBER].kind == SPAN_STRING ? gm.buf : NULL, &err) == 0) {
			double cos;
			tensor_match_upcast(&tt, &tg); /* MindSpore's bfloat16 saved as float32 */
			/* files that hold what their dumps say, read to the end (not shrunk meanwhile) */
			compared = tmetric_compare_files(&tt, &tg, f->banded ? &f->opts.band : NULL, &tm, &err) == 0 &&
				   verdict_tensor_declared(&p->t, &tt, a, &err) == 0 &&
				   verdict_tensor_declared(&p->g, &tg, b, &err) == 0;
			/* --cos-min: a pair whose Cosine reaches it passes whatever its elements do */
			if (compared && f->opts.cos_min > 0 && tm.comparable && !tm.same && cosine_of(&tm, &cos) &&
			    cos >= f->opts.cos_min)
				tm.nbeyond = 0;
			tensor_close(&tg);
		}
		tensor_close(&tt);
	}
	tensor_json(&j->tensor, compared ? &tm : NULL, err.buf);
	if (compared) {
		j->tm = tm;
		j->have_tm = true;
	}
	verdict_tensor(&j->v, compared ? &tm : NULL, err.buf);
	strbuf_release(&tp);
	strbuf_release(&gp);
	strbuf_release(&tn);
	strbuf_release(&gn);
	strbuf_release(&tm_);
	strbuf_release(&gm);
	strbuf_release(&err);
}

/* Both leaves from tensor dumps (the task table, alike.h), and a file named. */
static bool wants_tensors(const struct pair *p)
{
	return p->has_t && p->has_g && alike_compares_elements(&p->t, &p->g) &&
	       (p->t.f[LF_DATA].kind == SPAN_STRING || p->g.f[LF_DATA].kind == SPAN_STRING);
}

static enum verdict verdict_of_text(const struct span *s)
{
	if (span_str_eq(s, "diff", 4))
		return VERDICT_DIFF;
	if (span_str_eq(s, "unmatched", 9))
		return VERDICT_UNMATCHED;
	if (span_str_eq(s, "golden_only", 11))
		return VERDICT_GOLDEN_ONLY;
	if (span_str_eq(s, "unreadable", 10))
		return VERDICT_UNREADABLE;
	return VERDICT_SAME;
}

static void judge(const struct first_stream *f, const struct pair *p, struct judged *j)
{
	struct verdict_options vo = { f->opts.band.rtol, f->opts.band.atol, f->banded };
	if (p->verdict.kind == SPAN_STRING && !f->banded) {
		/* a metric record: probe-metric has judged it, tensors included */
		j->v.verdict = verdict_of_text(&p->verdict);
		if (p->reason.kind == SPAN_STRING)
			span_string(&p->reason, &j->v.reason);
		if (j->v.verdict == VERDICT_DIFF && p->has_t && p->has_g) {
			/* what differs, for the rounding budget and the scalar arguments */
			struct verdict_result w = { .reason = STRBUF_INIT };
			verdict_pair(&p->t, &p->g, &vo, &w);
			j->v.differs = w.differs;
			strbuf_release(&w.reason);
		}
		return;
	}
	verdict_pair(p->has_t ? &p->t : NULL, p->has_g ? &p->g : NULL, &vo, &j->v);
	if (wants_tensors(p))
		compare_tensors(f, p, j);
}

static bool differs_within_band(const struct judged *j)
{
	return j->v.verdict == VERDICT_SAME && j->v.within_band;
}

/* ---- the rounding budget (noise.h) ------------------------------------------------- */

static bool is_weight_leaf(const char *entry, const char *name, const char *state);
static bool has_statistics(const struct leafrec *r);

/* A scalar argument (a Python number, a bool, a string) whose value differs. */
static bool is_scalar_difference(const struct pair *p, unsigned differs)
{
	return (differs & (1u << LF_VALUE)) && !has_statistics(&p->t);
}

/* A differing leaf measured against its budget. */
struct budgeted {
	struct noise_leaf m;
	double own, carried, budget, ratio, reduction;
	bool beyond;       /* a difference rounding does not explain */
	bool tainted_in;   /* what it received carries such a difference */
	bool seen_output;  /* an input that is an earlier output's tensor: its difference is that one's */
	double lineage;    /* the coarsest unit roundoff of the differing tensors it comes from, its own included */
};

/* A span's text copied into a small buffer ("" when absent or too long). */
static void span_copy(const struct span *s, char *buf, size_t size)
{
	buf[0] = '\0';
	if (s->kind == SPAN_NONE || s->kind == SPAN_NULL || s->n >= size)
		return;
	memcpy(buf, s->p, s->n);
	buf[s->n] = '\0';
}

/* What the target side of a leaf holds (dtype, shape, statistics, CRC), hashed: the same tensor seen again. */
static uint64_t target_fingerprint(const struct leafrec *r)
{
	static const enum leaf_field fields[] = { LF_DTYPE, LF_SHAPE, LF_MAX, LF_MIN, LF_MEAN, LF_NORM, LF_MD5 };
	XXH3_state_t st;
	XXH3_64bits_reset(&st);
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		const struct span *s = &r->f[fields[i]];
		if (s->kind != SPAN_NONE)
			XXH3_64bits_update(&st, s->p, s->n);
		XXH3_64bits_update(&st, "\x1f", 1);
	}
	return XXH3_64bits_digest(&st) | 1;
}

/* A tensor leaf with statistics (a scalar argument has a value instead). */
static bool has_statistics(const struct leafrec *r)
{
	return r->f[LF_MAX].kind != SPAN_NONE || r->f[LF_MD5].kind != SPAN_NONE;
}

static struct noise_slot *output_slot(struct rank_state *rs, uint64_t fp)
{
	if (!rs->outputs)
		rs->outputs = xcalloc(NOISE_SLOTS, sizeof(*rs->outputs));
	return &rs->outputs[fp & (NOISE_SLOTS - 1)];
}

/* The output an earlier operator made that is this leaf's target tensor (its fingerprint), or NULL. */
static const struct noise_slot *output_seen(struct rank_state *rs, const struct leafrec *t)
{
	uint64_t fp;
	const struct noise_slot *s;
	if (!rs->outputs || !has_statistics(t))
		return NULL;
	fp = target_fingerprint(t);
	s = output_slot(rs, fp);
	return s->fp == fp ? s : NULL;
}

/* The first two tensor inputs' shapes of the operator being read: its reduction length comes from them. */
static void note_input_shape(struct rank_state *rs, const struct leafrec *r)
{
	if (rs->nshapes >= 2 || !span_str_eq(&r->f[LF_STATE], "input", 5) || r->f[LF_SHAPE].kind != SPAN_ARRAY)
		return;
	span_copy(&r->f[LF_SHAPE], rs->in_shape[rs->nshapes], sizeof(rs->in_shape[0]));
	rs->nshapes++;
}

/*
 * A differing leaf against its budget: an output's own rounding (its
 * operator's reduction) and what its inputs carry; an input's cast and what
 * the tensor carried when an earlier operator made it (the rank's largest
 * difference when no dumped operator did); a parameter's cast, and within
 * a step nothing else.
 */
static void budget_leaf(const struct first_stream *f, struct rank_state *rs, const struct pair *p,
			const struct judged *j, struct budgeted *b)
{
	const struct leafrec *t = &p->t;
	const struct span *state = &t->f[LF_STATE];
	bool output = is_output_state(state), param = span_str_eq(state, "parameters", 10);
	memset(b, 0, sizeof(*b));
	if (!output && !param) {
		/* a layer's weight passed as an argument: no dumped operator makes it either */
		struct strbuf name = STRBUF_INIT;
		leafrec_str(t, LF_NAME, &name);
		param = rs->entry && is_weight_leaf(rs->entry, name.buf, "input");
		strbuf_release(&name);
	}
	noise_measure(&p->t, &p->g, j->v.differs, j->have_tm ? &j->tm : NULL, &b->m);
	b->reduction = 1;
	if (span_str_eq(state, "parameters_grad", 15)) {
		/* a gradient summed over what the backward pass made: any earlier difference can be in it */
		b->own = b->m.unit;
		b->carried = rs->max_delta;
		b->tainted_in = rs->diffs > 0;
		b->lineage = fmax(b->m.unit, rs->max_lineage);
	} else if (output) {
		char shape[64];
		span_copy(&t->f[LF_SHAPE], shape, sizeof(shape));
		b->reduction = noise_reduction(rs->entry, rs->nshapes > 0 ? rs->in_shape[0] : "",
					       rs->nshapes > 1 ? rs->in_shape[1] : "", shape);
		b->own = b->m.unit * sqrt(b->reduction);
		/*
		 * what the inputs carry, and at least the rounding their values went
		 * through: statistics see less than the elements (a product's max
		 * pairs other elements than its inputs' max), each of which may be off
		 * by a unit of the coarsest type it passed through
		 */
		b->carried = fmax(noise_carried(noise_op_of(rs->entry), rs->in_rel, rs->in_abs, b->m.scale), rs->in_lineage);
		b->tainted_in = rs->in_tainted;
		b->lineage = fmax(b->m.unit, rs->in_lineage);
	} else {
		b->own = b->m.dtypes_differ ? b->m.unit : 0;
		if (!param) {
			const struct noise_slot *s = output_seen(rs, t);
			if (s) {
				b->seen_output = true;
				b->carried = s->delta;
				b->tainted_in = s->tainted;
				b->lineage = s->lineage;
			} else {
				b->carried = rs->max_delta;
				b->tainted_in = rs->diffs > 0;
				b->lineage = fmax(b->m.unit, rs->max_lineage);
			}
		} else if (rs->any_diff_step >= 0 && t->step > rs->any_diff_step) {
			/* the optimizer carried the last step's differences into it */
			b->carried = rs->max_delta;
			b->tainted_in = rs->diffs > 0 && rs->first_diff_step < t->step;
		}
	}
	b->budget = b->own + b->carried;
	b->ratio = noise_ratio(&b->m, b->budget);
	if (b->m.kind == NOISE_STRUCTURAL) {
		/*
		 * a cause wherever it is, but for the tensor an earlier operator
		 * made (seen again) and a change that came with what it received;
		 * a scalar argument always: no dumped operator makes a Python number
		 */
		b->beyond = is_scalar_difference(p, j->v.differs) || (!b->seen_output && !b->tainted_in);
		b->ratio = INFINITY;
	} else if (b->seen_output) {
		b->beyond = false; /* the tensor an earlier operator made: nothing new here */
	} else if (!b->m.measured) {
		/* nothing measures it (elements compared by probe-metric, no statistics): as bitwise */
		b->beyond = !b->tainted_in;
		b->ratio = INFINITY;
	} else if (b->budget == 0) {
		/*
		 * nothing allows a difference (the same dtype, nothing carried); an
		 * input after differences of no measurable size (a CRC only) is one
		 * of them
		 */
		b->beyond = param || !(rs->rounding || rs->diffs);
		b->ratio = INFINITY;
	} else {
		b->beyond = b->ratio > f->opts.factor;
	}
}

/* The slot of a forward entry's name (the backward of "X.3.backward" is "X.3.forward"). */
static struct noise_slot *forward_slot(struct rank_state *rs, const char *entry, size_t n, uint64_t *key)
{
	if (!rs->forwards)
		rs->forwards = xcalloc(NOISE_SLOTS, sizeof(*rs->forwards));
	*key = XXH3_64bits(entry, n) | 1;
	return &rs->forwards[*key & (NOISE_SLOTS - 1)];
}

/*
 * A forward entry done: what its inputs and outputs carried, for its
 * backward, which works from them though its own inputs are only the
 * gradients.
 */
static void keep_forward(struct rank_state *rs)
{
	size_t n = strlen(rs->entry);
	uint64_t key;
	struct noise_slot *s;
	if (n < 8 || strcmp(rs->entry + n - 8, ".forward") || (rs->in_rel == 0 && rs->out_rel == 0 && !rs->in_tainted))
		return;
	s = forward_slot(rs, rs->entry, n - 8, &key);
	*s = (struct noise_slot){ key, fmax(rs->in_rel, rs->out_rel), rs->in_abs, rs->in_tainted || rs->out_tainted,
				  rs->in_lineage };
}

/* A backward entry starts with what its forward carried. */
static void take_forward(struct rank_state *rs)
{
	size_t n = strlen(rs->entry);
	uint64_t key;
	const struct noise_slot *s;
	if (n < 9 || strcmp(rs->entry + n - 9, ".backward") || !rs->forwards)
		return;
	s = forward_slot(rs, rs->entry, n - 9, &key);
	if (s->fp != key)
		return;
	rs->in_rel = s->delta;
	rs->in_abs = s->scale;
	rs->in_tainted = s->tainted;
	rs->in_lineage = s->lineage;
}

/* What a leaf that differed leaves for the leaves after it: the operator's inputs, the output's tensor. */
static void note_carried(struct rank_state *rs, const struct pair *p, const struct budgeted *b, bool tainted)
{
	const struct leafrec *t = &p->t;
	rs->max_delta = fmax(rs->max_delta, b->m.delta);
	if (is_output_state(&t->f[LF_STATE])) {
		uint64_t fp;
		if (!has_statistics(t))
			return;
		fp = target_fingerprint(t);
		struct noise_slot *s = output_slot(rs, fp);
		*s = (struct noise_slot){ fp, b->m.delta, b->m.scale, tainted, b->lineage };
		rs->max_lineage = fmax(rs->max_lineage, b->lineage);
		rs->out_rel = fmax(rs->out_rel, b->m.delta);
		rs->out_tainted |= tainted;
		return;
	}
	/* to first order, products add their inputs' relative differences, sums their absolute ones */
	rs->in_rel += b->m.delta;
	rs->in_abs += b->m.delta * b->m.scale;
	rs->in_lineage = fmax(rs->in_lineage, b->lineage > 0 ? b->lineage : b->m.unit);
	rs->in_tainted |= tainted;
}

/* A leaf within its budget: counted, its difference carried on, and kept for --explain. */
static void note_rounding(const struct first_stream *f, struct rank_state *rs, const struct pair *p,
			  const struct budgeted *b)
{
	rs->rounding++;
	note_carried(rs, p, b, false);
	if (b->m.unit > rs->coarsest_unit) {
		rs->coarsest_unit = b->m.unit;
		rs->coarsest = b->m.coarser;
	}
	if (!is_output_state(&p->t.f[LF_STATE]) && rs->inputs == INPUTS_SAME)
		rs->inputs = INPUTS_ROUNDING;
	if (isfinite(b->ratio) && (b->ratio > rs->worst_ratio || !rs->worst_leaf)) {
		rs->worst_ratio = b->ratio;
		free(rs->worst_leaf);
		rs->worst_leaf = span_dup(&p->t.f[LF_NAME]);
	}
	if (f->opts.explain && !rs->nfound) {
		struct rounded *r = &rs->explain[rs->nexplain++ % EXPLAIN_KEEP];
		free(r->name);
		r->name = span_dup(&p->t.f[LF_NAME]);
		r->delta = b->m.delta;
		r->budget = b->budget;
	}
}

/* A scalar argument that differs, a line for the report: its name, both values, the user's line when attached. */
static void note_scalar(struct rank_state *rs, const struct pair *p, unsigned differs)
{
	struct strbuf sb = STRBUF_INIT;
	if (!(differs & (1u << LF_VALUE)) || has_statistics(&p->t))
		return;
	rs->nscalars++;
	if (rs->nscalars > 1000)
		return; /* the count goes on; the report shows the first thousand */
	leafrec_str(&p->t, LF_NAME, &sb);
	strbuf_addbuf(&rs->scalars, &sb);
	strbuf_addstr(&rs->scalars, "\x1f");
	strbuf_add(&rs->scalars, p->t.f[LF_VALUE].p, p->t.f[LF_VALUE].n);
	strbuf_addstr(&rs->scalars, "\x1f");
	strbuf_add(&rs->scalars, p->g.f[LF_VALUE].p, p->g.f[LF_VALUE].n);
	strbuf_addstr(&rs->scalars, "\x1f");
	if (p->t.f[LF_WHERE].kind == SPAN_OBJECT)
		strbuf_add(&rs->scalars, p->t.f[LF_WHERE].p, p->t.f[LF_WHERE].n);
	strbuf_addch(&rs->scalars, '\n');
	strbuf_release(&sb);
}

/* An output of an entry without a golden partner, kept (the last few) in case a difference enters from it. */
static void note_unpaired(struct rank_state *rs, const struct pair *p)
{
	struct unpaired *u = &rs->unpaired[rs->nunpaired++ % UNPAIRED_KEEP];
	if (!is_output_state(&p->t.f[LF_STATE]) || !has_statistics(&p->t)) {
		rs->nunpaired--;
		return;
	}
	free(u->entry);
	free(u->line);
	u->fp = target_fingerprint(&p->t);
	u->entry = span_dup(&p->t.f[LF_ENTRY]);
	u->line = xmemdupz(p->line, p->len);
	u->len = p->len;
	u->seq = p->t.seq;
}

/*
 * The unpaired output a difference entering at leaf r comes from: the one
 * holding the same target tensor, or, when the operator before r's had no
 * golden partner, its last output; NULL when none.
 */
static const struct unpaired *unpaired_source(const struct rank_state *rs, const struct leafrec *r)
{
	uint64_t fp;
	unsigned kept = rs->nunpaired < UNPAIRED_KEEP ? rs->nunpaired : UNPAIRED_KEEP;
	if (!kept)
		return NULL;
	fp = target_fingerprint(r);
	for (unsigned i = 0; i < kept; i++) {
		const struct unpaired *u = &rs->unpaired[(rs->nunpaired - 1 - i) % UNPAIRED_KEEP];
		if (u->fp == fp)
			return u;
	}
	return rs->prev_unpaired ? &rs->unpaired[(rs->nunpaired - 1) % UNPAIRED_KEEP] : NULL;
}

/*
 * A trainable tensor of a module: a parameters leaf, or a weight or bias a
 * layer function takes after its input (Functional.linear's input.1 and
 * input.2, conv's, embedding's, the norms').  An activation that requires
 * grad is none of them.
 */
static bool is_weight_leaf(const char *entry, const char *name, const char *state)
{
	static const char *const layers[] = { "linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
					      "conv_transpose2d", "conv_transpose3d", "embedding", "layer_norm",
					      "rms_norm", "group_norm", "batch_norm", "instance_norm", "bilinear", NULL };
	const char *api, *dot, *tail;
	size_t n;
	if (!strcmp(state, "parameters"))
		return true;
	if (strcmp(state, "input") || !(api = strchr(entry, '.')))
		return false;
	api++;
	dot = strchr(api, '.');
	n = dot ? (size_t)(dot - api) : strlen(api);
	if (strncmp(name, entry, strlen(entry)) || strncmp(name + strlen(entry), ".input.", 7))
		return false;
	tail = strrchr(name, '.');
	if (!strcmp(tail, ".0"))
		return false; /* input.0 is what the layer is applied to */
	for (const char *const *l = layers; *l; l++)
		if (strlen(*l) == n && !strncmp(api, *l, n))
			return true;
	return false;
}

/* "37.5 times", "0.42 of" ... a ratio for people. */
static void add_ratio_text(struct strbuf *sb, double ratio)
{
	if (isinf(ratio))
		strbuf_addstr(sb, "infinitely many times");
	else if (ratio >= 100)
		strbuf_addf(sb, "%.0f times", ratio);
	else
		strbuf_addf(sb, "%.3g times", ratio);
}

/* The budget's parts for people: "bfloat16 rounding over a reduction of 16, plus what its inputs carry". */
static void add_budget_text(struct strbuf *sb, const struct finding *x)
{
	strbuf_addf(sb, "budget %.3g: ", x->budget);
	if (x->own > 0) {
		strbuf_addf(sb, "%s rounding", x->coarser);
		if (x->reduction > 1)
			strbuf_addf(sb, " over a reduction of %.0f", x->reduction);
	} else {
		strbuf_addf(sb, "%s, no rounding of its own", x->coarser);
	}
	if (x->carried > 0)
		strbuf_addf(sb, ", plus %.3g its inputs carry", x->carried);
}

/* " (37.5 times what rounding explains: budget ...)" or, with no budget, why nothing explains it. */
static void add_budget_clause(struct strbuf *sb, const struct finding *x)
{
	if (isinf(x->ratio)) {
		strbuf_addf(sb, "; %s on both sides and nothing carried, so no rounding explains it", x->coarser);
		return;
	}
	strbuf_addstr(sb, ", ");
	add_ratio_text(sb, x->ratio);
	strbuf_addstr(sb, " what rounding explains (");
	add_budget_text(sb, x);
	strbuf_addch(sb, ')');
}

/* One sentence for people on a divergence the rounding budget decided. */
static void explain_budgeted(struct strbuf *sb, const struct rank_state *rs, const struct finding *x, bool weight)
{
	bool output = x->inputs != INPUTS_NA;
	if (x->structural) {
		strbuf_addf(sb, "%s: %s differs, which rounding cannot make", x->cause ? "the cause" : "propagated",
			    x->structural);
		if (x->cause && output && x->inputs == INPUTS_DIFFER)
			strbuf_addstr(sb, "; a new difference on top of those its inputs received");
		else if (x->cause && output)
			strbuf_addstr(sb, "; this operator made it, its inputs and parameters differ at most by rounding");
		else if (x->cause && weight)
			strbuf_addstr(sb, "; a trainable tensor (a weight) going into this operator");
		else if (x->cause && !x->parameter)
			strbuf_addstr(sb, "; it enters here from outside the dumped operators (the caller, the data, an "
					  "operator that is not dumped)");
		return;
	}
	if (x->cause && output && x->inputs == INPUTS_DIFFER) {
		strbuf_addstr(sb, "a cause on top of received differences: this operator made more than its inputs carry");
		add_budget_clause(sb, x);
	} else if (x->cause && output) {
		strbuf_addstr(sb, "the cause: this operator made it");
		add_budget_clause(sb, x);
		strbuf_addstr(sb, x->inputs == INPUTS_ROUNDING ? "; its inputs and parameters differ only by rounding"
							 : "; its inputs and parameters are the same as the golden's");
	} else if (x->cause && (x->parameter || weight)) {
		strbuf_addstr(sb, "the cause: a trainable tensor (a weight) going into this operator differs");
		add_budget_clause(sb, x);
	} else if (x->cause) {
		strbuf_addstr(sb, "the cause: the difference enters here, from outside the dumped operators (the data, an "
				  "operator that is not dumped)");
		add_budget_clause(sb, x);
	} else {
		strbuf_addf(sb, "propagated: it carries the differences of earlier leaves (%llu on this rank before it), "
				"at %.3g of its budget",
			    (unsigned long long)rs->diffs, x->ratio);
	}
}

/* One sentence for people on where a divergence comes from, its role first. */
static char *explain(const struct rank_state *rs, const struct finding *x, bool weight, const char *comm_entry)
{
	struct strbuf sb = STRBUF_INIT;
	bool output = x->inputs != INPUTS_NA;
	if (x->unpaired_of)
		strbuf_addf(&sb, "the cause: %s has no golden partner (a hook, an inserted cast or an extra operator in the "
				 "target); its output is what differs at %s",
			    x->entry, x->unpaired_of);
	else if (x->same_as)
		strbuf_addf(&sb, "the same tensor as divergence #%zu (%s), seen again here: not a divergence of its own",
			    x->same_as, rs->found[x->same_as - 1].name);
	else if (x->received)
		strbuf_addf(&sb, "received from another rank through %s; its inputs on this rank are the same",
			    comm_entry);
	else if (x->parameter && x->carried_from >= 0)
		strbuf_addf(&sb, "propagated: a parameter carried from step %lld, whose gradients differed (the "
				 "optimizer's update made it differ)",
			    (long long)x->carried_from);
	else if (x->budgeted && !x->parameter)
		explain_budgeted(&sb, rs, x, weight);
	else if (x->scalar)
		strbuf_addstr(&sb, "the cause: a scalar argument differs; no dumped operator makes a Python number, so it "
				   "comes from the caller");
	else if (x->parameter && x->n == 1 && !rs->diffs)
		strbuf_addstr(&sb, "the cause: a parameter (a weight or bias) differs, and nothing dumped before it does");
	else if (x->parameter)
		strbuf_addstr(&sb, "a cause: a parameter (a weight or bias) differs; no dumped operator produces a "
				   "parameter within a step, so this difference enters here, whatever differed before it");
	else if (x->cause && output)
		strbuf_addstr(&sb, "the cause: this operator made it; its inputs and parameters are the same as the golden's");
	else if (x->cause && weight)
		strbuf_addstr(&sb, "the cause: a trainable tensor (a weight) going into this operator differs, and nothing "
				   "dumped before it does");
	else if (x->cause)
		strbuf_addstr(&sb, "the cause: the difference enters here; nothing dumped before it differs, so it comes "
				   "from outside the dumped operators (a weight, the data, an operator that is not dumped)");
	else if (output && x->inputs == INPUTS_DIFFER)
		strbuf_addstr(&sb, "propagated: this operator received a difference in its inputs or parameters");
	else if (output && x->inputs == INPUTS_WITHIN)
		strbuf_addstr(&sb, "propagated: its inputs or parameters differ, within the band");
	else
		strbuf_addf(&sb, "propagated: carried from earlier, %llu lea%s on this rank differ%s before it",
			    (unsigned long long)rs->diffs, rs->diffs == 1 ? "f" : "ves", rs->diffs == 1 ? "s" : "");
	if (x->earlier_within)
		strbuf_addf(&sb, " (%llu earlier leaves differ within the band)", (unsigned long long)x->earlier_within);
	if (x->unchosen_before)
		strbuf_addf(&sb, " (%llu earlier divergences of this rank are not reported: --where did not choose them)",
			    (unsigned long long)x->unchosen_before);
	return strbuf_detach(&sb, NULL);
}

/* What an input or a parameter holds on both sides: its dtype, shape, statistics and CRC, hashed. */
static uint64_t fingerprint(const struct pair *p)
{
	static const enum leaf_field fields[] = { LF_DTYPE, LF_SHAPE, LF_MAX, LF_MIN, LF_MEAN, LF_NORM, LF_MD5 };
	struct strbuf sb = STRBUF_INIT;
	uint64_t h;
	for (int side = 0; side < 2; side++)
		for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
			const struct span *s = &(side ? &p->g : &p->t)->f[fields[i]];
			if (s->kind != SPAN_NONE)
				strbuf_add(&sb, s->p, s->n);
			strbuf_addch(&sb, '\x1f');
		}
	h = XXH3_64bits(sb.buf, sb.len) | 1;
	strbuf_release(&sb);
	return h;
}

/*
 * An input or parameter reported earlier in the same step whose tensor this
 * one is (by its fingerprint), or 0; a new one is remembered as number n.
 */
static size_t same_tensor_as(struct rank_state *rs, uint64_t fp, int64_t step, size_t n)
{
	uint64_t key[2] = { fp, (uint64_t)step };
	bool created;
	struct strmap_slot *s = strmap_put(&rs->reported, key, sizeof(key), &created);
	if (created)
		s->value.u = n;
	return created ? 0 : (size_t)s->value.u;
}

/* The leaves judged rounding just before a rank's first finding, oldest first (--explain). */
static void take_explained(struct rank_state *rs, struct finding *x)
{
	size_t kept = rs->nexplain < EXPLAIN_KEEP ? (size_t)rs->nexplain : EXPLAIN_KEEP;
	x->before = xcalloc(kept ? kept : 1, sizeof(*x->before));
	for (size_t i = 0; i < kept; i++) {
		struct rounded *r = &rs->explain[(rs->nexplain - kept + i) % EXPLAIN_KEEP];
		x->before[i] = *r;
		r->name = NULL;
	}
	x->nbefore = kept;
}

/* The finding is the output of an entry without a golden partner, whose tensor is where the difference entered. */
static void take_unpaired(struct finding *x, const struct unpaired *u)
{
	struct pair up;
	struct strbuf err = STRBUF_INIT;
	x->unpaired_of = x->name;
	free(x->line);
	free(x->entry);
	free(x->state);
	free(x->verdict);
	free(x->reason);
	free(x->tensor_json);
	x->tensor_json = NULL;
	x->line = xmemdupz(u->line, u->len);
	x->len = u->len;
	x->entry = xstrdup(u->entry);
	x->state = xstrdup("output");
	x->verdict = xstrdup("unmatched");
	x->reason = xstrdup("no golden leaf with this key");
	x->name = pair_parse(&up, u->line, u->len, &err) == 0 && up.has_t ? span_dup(&up.t.f[LF_NAME]) : xstrdup(u->entry);
	x->seq = u->seq;
	x->inputs = INPUTS_NA;
	x->budgeted = false;
	x->structural = NULL;
	strbuf_release(&err);
}

static void keep_finding(struct first_stream *f, struct rank_state *rs, const struct pair *p, struct judged *j,
			 bool computed, const struct budgeted *b)
{
	const struct leafrec *r = &p->t;
	const struct span *state = &r->f[LF_STATE];
	struct finding *x;
	size_t twin = is_output_state(state) ? 0 : same_tensor_as(rs, fingerprint(p), r->step, rs->nfound + 1);
	ALLOC_GROW(rs->found, rs->nfound + 1, rs->found_alloc);
	x = &rs->found[rs->nfound++];
	memset(x, 0, sizeof(*x));
	x->line = xmemdupz(p->line, p->len);
	x->len = p->len;
	if (computed) {
		x->verdict = xstrdup(verdict_name(j->v.verdict));
		x->reason = xstrdup(j->v.reason.buf);
		if (j->tensor.len)
			x->tensor_json = xstrdup(j->tensor.buf);
	}
	x->rank = rs->rank;
	x->mode = rs->mode;
	x->step = r->step;
	x->seq = r->seq;
	x->entry = span_dup(&r->f[LF_ENTRY]);
	x->name = span_dup(&r->f[LF_NAME]);
	x->state = span_dup(state);
	x->n = rs->nfound;
	x->same_as = twin;
	x->parameter = span_str_eq(state, "parameters", 10);
	x->carried_from = x->parameter && rs->diffs && rs->first_diff_step >= 0 && r->step > rs->first_diff_step
				  ? rs->first_diff_step
				  : -1;
	x->inputs = span_str_eq(state, "output", 6) ? rs->inputs : INPUTS_NA;
	x->earlier_within = rs->within;
	x->unchosen_before = rs->unchosen;
	x->comm_before = rs->comm;
	x->in_comm = rs->entry_is_comm;
	if (b) {
		/* the budget decides: beyond it is a cause wherever it is, within it a carried difference */
		x->budgeted = true;
		x->structural = b->m.structural;
		x->delta = b->m.delta;
		x->budget = b->budget;
		x->ratio = b->ratio;
		x->own = b->own;
		x->carried = b->carried;
		x->reduction = b->reduction;
		x->unit = b->m.unit;
		x->coarser = b->m.coarser;
		x->rounding_before = rs->rounding;
		x->received = x->in_comm && !b->tainted_in && span_str_eq(state, "output", 6);
		if (x->same_as)
			x->cause = false;
		else if (x->parameter)
			x->cause = b->beyond && !b->tainted_in;
		else
			x->cause = b->beyond && !x->received;
		if (x->parameter && !x->cause && x->carried_from < 0 && rs->any_diff_step >= 0 && r->step > rs->any_diff_step)
			x->carried_from = rs->any_diff_step;
	} else {
		x->received = x->in_comm && x->inputs == INPUTS_SAME && span_str_eq(state, "output", 6);
		/* an output is made here when its operator's inputs were the same; anything else when nothing differed yet */
		if (x->same_as)
			x->cause = false;
		else if (x->parameter)
			x->cause = x->carried_from < 0; /* within a step no dumped operator makes a parameter */
		else if (p->has_g && is_scalar_difference(p, j->v.differs))
			x->cause = x->scalar = true; /* no dumped operator makes a Python number */
		else
			x->cause = !x->received && (x->inputs == INPUTS_NA ? !rs->diffs : x->inputs == INPUTS_SAME);
	}
	if (x->cause && !x->parameter && x->inputs == INPUTS_NA) {
		/* entering from outside: from an entry the golden run does not have? */
		const struct unpaired *u = unpaired_source(rs, r);
		if (u)
			take_unpaired(x, u);
	}
	if (f->opts.explain && x->n == 1)
		take_explained(rs, x);
	x->why = explain(rs, x, is_weight_leaf(x->entry, x->name, x->state), rs->entry);
	f->found++;
}

/* The tensor files of an unreadable pair, for the report of the directories that are not there. */
static void note_unreadable(struct first_stream *f, const struct pair *p)
{
	struct strbuf ts = STRBUF_INIT, gs = STRBUF_INIT;
	alike_unreadable(f->alike, tensor_path(&p->t, &ts), p->has_g ? tensor_path(&p->g, &gs) : NULL);
	strbuf_release(&ts);
	strbuf_release(&gs);
}

static int add_pair(struct first_stream *f, const char *line, size_t len, struct strbuf *err)
{
	struct pair p;
	struct judged j;
	struct budgeted b;
	struct rank_state *rs;
	bool computed;

	if (pair_parse(&p, line, len, err) < 0) {
		if (pair_line_is_leaf(line, len)) {
			strbuf_reset(err);
			strbuf_addstr(err, "a leaf record, not a pair: compare two runs first (probe-match GOLDEN | "
					   "probe-first), or look for inf/nan in one with --nonfinite");
		}
		return -1;
	}
	if (!p.has_t) {
		/* a golden leaf no target leaf took: its target rank's, counted, never a divergence */
		if (!f->cur && !(f->cur = rank_of(f, &p.g, err)))
			return -1;
		f->cur->golden_only++;
		alike_golden_only(f->alike, &p.g, p.partial);
		return 0;
	}
	rs = f->cur = rank_of(f, &p.t, err);
	if (!rs)
		return -1;
	if (alike_target(f->alike, &p.t, p.has_g, p.has_g ? &p.g : NULL, p.partial, err) < 0)
		return -1;
	enter(f, rs, &p.t, NULL);
	rs->pairs++;
	note_input_shape(rs, &p.t);
	if (p.t.f[LF_MD5].kind == SPAN_STRING && (!p.has_g || p.g.f[LF_MD5].kind == SPAN_STRING) &&
	    !span_str_eq(&p.t.f[LF_TASK], "tensor", 6))
		f->md5 = true;

	computed = !(p.verdict.kind == SPAN_STRING && !f->banded);
	memset(&j, 0, sizeof(j));
	strbuf_init(&j.v.reason, 0);
	strbuf_init(&j.tensor, 0);
	judge(f, &p, &j);
	note_stack(rs, &p.t);
	if (ms_da_flags(&p, f->md5))
		rs->ms_cur_flag = true;
	ms_leaf_json(span_str_eq(&p.t.f[LF_STATE], "output", 6) ? &rs->ms_out : &rs->ms_in, &p.t, f->md5, false);

	if (j.v.verdict != VERDICT_UNMATCHED)
		rs->cur_unpaired = false;
	switch (j.v.verdict) {
	case VERDICT_SAME:
		rs->same++;
		if (differs_within_band(&j)) {
			rs->within++;
			if (!is_output_state(&p.t.f[LF_STATE]) && rs->inputs == INPUTS_SAME)
				rs->inputs = INPUTS_WITHIN;
		}
		break;
	case VERDICT_UNMATCHED:
		rs->unmatched++;
		note_unpaired(rs, &p);
		break;
	case VERDICT_GOLDEN_ONLY:
		rs->golden_only++;
		break;
	case VERDICT_UNREADABLE:
		rs->unreadable++;
		note_unreadable(f, &p);
		break;
	case VERDICT_DIFF:
		rs->diff++;
		if (rs->any_diff_step < 0)
			rs->any_diff_step = p.t.step;
		if (p.has_g)
			note_scalar(rs, &p, j.v.differs);
		if (f->noise) {
			budget_leaf(f, rs, &p, &j, &b);
			if (!b.beyond && !b.tainted_in) {
				note_rounding(f, rs, &p, &b);
				break;
			}
			note_carried(rs, &p, &b, true);
		}
		if (rs->nfound < f->opts.n) {
			int chosen = f->opts.where ? jqsel_match(f->opts.where, line, len, err) : 1;
			if (chosen < 0) {
				strbuf_release(&j.v.reason);
				strbuf_release(&j.tensor);
				return -1;
			}
			if (chosen)
				keep_finding(f, rs, &p, &j, computed, f->noise ? &b : NULL);
			else
				rs->unchosen++;
		}
		if (!rs->diffs++)
			rs->first_diff_step = p.t.step;
		if (!is_output_state(&p.t.f[LF_STATE]))
			rs->inputs = INPUTS_DIFFER;
		break;
	}
	strbuf_release(&j.v.reason);
	strbuf_release(&j.tensor);
	return 0;
}

/* ---- one run: inf and nan ------------------------------------------------------ */

/* The statistics (or the value) of a leaf that are not finite, as "max inf, min -inf"; "" when none. */
static void nonfinite_stats(const struct leafrec *r, struct strbuf *out)
{
	static const enum leaf_field fields[] = { LF_MAX, LF_MIN, LF_MEAN, LF_NORM, LF_VALUE };
	strbuf_reset(out);
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		const struct span *s = &r->f[fields[i]];
		if (s->kind != SPAN_STRING)
			continue;
		if (span_str_eq(s, "nan", 3) || span_str_eq(s, "inf", 3) || span_str_eq(s, "-inf", 4)) {
			strbuf_addf(out, "%s%s %.*s", out->len ? ", " : "", leaf_field_names[fields[i]], (int)s->n - 2,
				    s->p + 1);
		}
	}
}

/* msprobe overflow_check's predicate: a top-level leaf (not inside a nested list) whose Max or Min is inf/nan. */
static bool ms_top_level_bad(const struct leafrec *r, const char *entry)
{
	const struct span *mx = &r->f[LF_MAX], *mn = &r->f[LF_MIN];
	struct strbuf name = STRBUF_INIT;
	bool bad = false, top;
	const char *rest;
	leafrec_str(r, LF_NAME, &name);
	rest = name.buf + (strlen(entry) < name.len ? strlen(entry) + 1 : name.len);
	/* "input.0", "output.1", "input.alpha": one part after the state; deeper parts are nested lists */
	top = strchr(rest, '.') && !strchr(strchr(rest, '.') + 1, '.');
	if (top)
		bad = span_str_eq(mx, "nan", 3) || span_str_eq(mx, "inf", 3) || span_str_eq(mx, "-inf", 4) ||
		      span_str_eq(mn, "nan", 3) || span_str_eq(mn, "inf", 3) || span_str_eq(mn, "-inf", 4);
	strbuf_release(&name);
	return bad;
}

/*
 * The operator just read, in one run: the first inf/nan that enters from
 * outside (an input when nothing non-finite came before: the data, a
 * weight), an operator that made one (finite inputs, a non-finite output;
 * a communication operator: received from a peer), or a propagator.
 */
static void nonfinite_done(struct first_stream *f, struct rank_state *rs)
{
	struct bad_leaf *b = NULL;
	struct finding *x;
	bool enters = rs->bad_in.line && !rs->seen_nonfinite;
	bool made = !rs->bad_in.line && rs->bad_out.line;

	if (rs->bad_in.line && rs->bad_out.line && !enters)
		rs->propagators++;
	if ((enters || made) && rs->nfound < f->opts.n)
		b = enters ? &rs->bad_in : &rs->bad_out;
	rs->seen_nonfinite |= rs->bad_in.line || rs->bad_out.line;
	if (!b)
		goto reset;
	ALLOC_GROW(rs->found, rs->nfound + 1, rs->found_alloc);
	x = &rs->found[rs->nfound++];
	memset(x, 0, sizeof(*x));
	x->line = b->line;
	x->len = b->len;
	x->what = b->what;
	x->name = b->name;
	x->state = b->state;
	x->seq = b->seq;
	memset(b, 0, sizeof(*b));
	x->rank = rs->rank;
	x->mode = rs->mode;
	x->step = rs->step;
	x->entry = xstrdup(rs->entry);
	x->n = rs->nfound;
	x->inputs = enters ? INPUTS_NA : INPUTS_SAME;
	x->comm_before = rs->comm;
	x->in_comm = rs->entry_is_comm;
	x->received = made && x->in_comm;
	x->cause = !x->received;
	if (x->received)
		x->why = xstrdup("received from another rank: this communication operator's inputs are finite on this "
				 "rank and an output is not");
	else if (made)
		x->why = xstrdup("the culprit: its inputs and parameters are finite and an output is not; this operator "
				 "made it");
	else
		x->why = xstrdup("it enters here: nothing before it holds an inf or a NaN, so it comes from outside the "
				 "dumped operators (the data, a weight, an operator that is not dumped)");
	f->found++;
reset:
	bad_leaf_clear(&rs->bad_in);
	bad_leaf_clear(&rs->bad_out);
}

static int add_leaf(struct first_stream *f, const char *line, size_t len, struct strbuf *err)
{
	struct leafrec r;
	const char *why;
	struct rank_state *rs;
	bool output;

	if (leafrec_parse(&r, line, len, &why) < 0) {
		struct pair p;
		struct strbuf e2 = STRBUF_INIT;
		if (pair_parse(&p, line, len, &e2) == 0)
			strbuf_addstr(err, "a pair record: --nonfinite reads the leaf records of one run (probe-flatten DUMP "
					   "| probe-first --nonfinite)");
		else
			strbuf_addstr(err, why);
		strbuf_release(&e2);
		return -1;
	}
	rs = rank_of(f, &r, err);
	if (!rs)
		return -1;
	enter(f, rs, &r, nonfinite_done);
	rs->leaves++;
	output = is_output_state(&r.f[LF_STATE]);
	nonfinite_stats(&r, &f->scratch);
	note_stack(rs, &r);
	/* msprobe overflow_check: inputs are input_args/input_kwargs/input; parameters never */
	if (span_str_eq(&r.f[LF_STATE], "input", 5) && ms_top_level_bad(&r, rs->entry))
		rs->ms_in_bad = true;
	if (span_str_eq(&r.f[LF_STATE], "output", 6) && ms_top_level_bad(&r, rs->entry))
		rs->ms_out_bad = true;
	ms_leaf_json(output ? &rs->ms_out : &rs->ms_in, &r, false, true);
	if (f->scratch.len) {
		struct bad_leaf *b = output ? &rs->bad_out : &rs->bad_in;
		if (!b->line) {
			b->line = xmemdupz(line, len);
			b->len = len;
			b->what = xstrdup(f->scratch.buf);
			b->seq = r.seq;
			b->name = span_dup(&r.f[LF_NAME]);
			b->state = span_dup(&r.f[LF_STATE]);
		}
	}
	return 0;
}

int first_add(struct first_stream *f, const char *line, size_t len, struct strbuf *err)
{
	return (f->opts.nonfinite ? add_leaf(f, line, len, err) : add_pair(f, line, len, err)) < 0 ? PROBE_ERR_LINE : 0;
}

/* ---- across ranks -------------------------------------------------------------- */

/* By folder (none, graph, pynative), then by rank. */
static int by_rank(const void *a, const void *b)
{
	const struct rank_state *x = a, *y = b;
	if (x->mode != y->mode)
		return (x->mode > y->mode) - (x->mode < y->mode);
	return (x->rank > y->rank) - (x->rank < y->rank);
}

size_t first_folder_end(const struct first_stream *f, size_t i)
{
	size_t end = i;
	while (end < f->nranks && f->ranks[end].mode == f->ranks[i].mode)
		end++;
	return end;
}

/*
 * The ranks that started it, among the ranks [lo, hi) of one folder: of the
 * ranks whose first finding was not received through a communication
 * operator, those that had started the fewest of them (ties: all of them,
 * independent starts).
 */
static void decide_starters(struct first_stream *f, size_t lo, size_t hi)
{
	uint64_t best = UINT64_MAX;
	bool any_own = false;
	for (size_t i = lo; i < hi; i++) {
		const struct rank_state *rs = &f->ranks[i];
		if (!rs->nfound)
			continue;
		any_own |= !rs->found[0].received;
	}
	for (size_t i = lo; i < hi; i++) {
		const struct rank_state *rs = &f->ranks[i];
		if (rs->nfound && (!any_own || !rs->found[0].received) && rs->found[0].comm_before < best)
			best = rs->found[0].comm_before;
	}
	for (size_t i = lo; i < hi; i++) {
		struct rank_state *rs = &f->ranks[i];
		if (rs->nfound && (!any_own || !rs->found[0].received) && rs->found[0].comm_before == best)
			rs->found[0].started = true;
	}
}

static int finish_ranks(struct first_stream *f, struct strbuf *err)
{
	uint64_t pairs = 0, matched = 0, unreadable = 0, leaves = 0;
	for (size_t i = 0; i < f->nranks; i++) {
		struct rank_state *rs = &f->ranks[i];
		if (rs->entry && f->opts.nonfinite)
			nonfinite_done(f, rs);
		ms_close_entry(f, rs);
		if (rs->entry_is_comm)
			rs->comm++;
		free(rs->entry);
		rs->entry = NULL;
		pairs += rs->pairs + rs->golden_only;
		matched += rs->pairs - rs->unmatched;
		unreadable += rs->unreadable;
		leaves += rs->leaves;
	}
	if (f->nranks)
		qsort(f->ranks, f->nranks, sizeof(*f->ranks), by_rank);
	f->finished = true;
	if (f->opts.msprobe && f->nranks && f->ranks[0].mode) {
		/* msprobe -da runs on each (folder, step) of such roots apart, into output/<folder>/<step>/ */
		strbuf_addf(err, "--msprobe: msprobe analyses the graph/ and pynative/ folders of a root apart; "
			    "choose one first, e.g. jq -c 'select(%s.exec_mode == \"graph\")'",
			    f->opts.nonfinite ? "" : "(.t // .g)");
		return -1;
	}
	if (f->opts.nonfinite) {
		if (!leaves) {
			strbuf_addstr(err, "no leaf records: nothing to look at");
			return -1;
		}
	} else if (!pairs) {
		strbuf_addstr(err, "no pair records: nothing to compare");
		return -1;
	} else if (alike_finish(f->alike, err) < 0) {
		return -1;
	} else if (!matched) {
		strbuf_addf(err, "none of the %llu pairs has both a target and a golden leaf: nothing to compare",
			    (unsigned long long)pairs);
		return -1;
	} else if (matched == unreadable) {
		/* nothing was compared: "no divergence" would be a pass of files nobody read */
		strbuf_addf(err, "none of the %llu matched pairs could be compared: their tensor files are unreadable "
			    "(see the reason of each pair in probe-metric's records)", (unsigned long long)matched);
		return -1;
	}
	for (size_t i = 0; i < f->nranks; i = first_folder_end(f, i))
		decide_starters(f, i, first_folder_end(f, i));
	return 0;
}

int first_finish(struct first_stream *f, struct strbuf *err)
{
	return finish_ranks(f, err) < 0 ? PROBE_ERR_INPUT : 0;
}

/* ---- output -------------------------------------------------------------------- */

static void add_i64_or_null(struct strbuf *out, int64_t v)
{
	if (v < 0)
		strbuf_addstr(out, "null");
	else
		strbuf_addf(out, "%lld", (long long)v);
}

static const char *inputs_name(int inputs)
{
	switch (inputs) {
	case INPUTS_SAME: return "same";
	case INPUTS_DIFFER: return "differ";
	case INPUTS_WITHIN: return "within_band";
	case INPUTS_ROUNDING: return "within_rounding";
	default: return NULL;
	}
}

const char *first_role_name(const struct first_stream *f, const struct finding *x)
{
	if (x->received)
		return "received";
	if (x->same_as)
		return "same_tensor";
	if (f->opts.nonfinite)
		return x->inputs == INPUTS_NA ? "enters" : "culprit";
	return x->cause ? "cause" : "propagated";
}

/* A number of ours: JSON's, or "inf". */
static void add_real(struct strbuf *out, double x)
{
	if (isinf(x))
		strbuf_addstr(out, "\"inf\"");
	else
		strbuf_addf(out, "%.6g", x);
}

/* The rounding budget that decided a finding (probe-records(5)): "rounding":{...}. */
static void write_budget(const struct first_stream *f, const struct finding *x, struct strbuf *out)
{
	strbuf_addf(out, ",\"rounding_before\":%llu,\"rounding\":{", (unsigned long long)x->rounding_before);
	if (x->structural) {
		strbuf_addstr(out, "\"structural\":");
		jsonw_str(out, x->structural);
	} else {
		strbuf_addstr(out, "\"delta\":");
		add_real(out, x->delta);
		strbuf_addstr(out, ",\"budget\":");
		add_real(out, x->budget);
		strbuf_addstr(out, ",\"ratio\":");
		add_real(out, x->ratio);
		strbuf_addstr(out, ",\"own\":");
		add_real(out, x->own);
		strbuf_addstr(out, ",\"carried\":");
		add_real(out, x->carried);
		strbuf_addf(out, ",\"reduction\":%.0f", x->reduction);
	}
	strbuf_addstr(out, ",\"dtype\":");
	jsonw_str(out, x->coarser ? x->coarser : "");
	strbuf_addstr(out, ",\"factor\":");
	add_real(out, f->opts.factor);
	if (x->nbefore || (f->opts.explain && x->n == 1)) {
		strbuf_addstr(out, ",\"before\":[");
		for (size_t i = 0; i < x->nbefore; i++) {
			strbuf_addstr(out, i ? ",{\"leaf\":" : "{\"leaf\":");
			jsonw_str(out, x->before[i].name);
			strbuf_addstr(out, ",\"delta\":");
			add_real(out, x->before[i].delta);
			strbuf_addstr(out, ",\"budget\":");
			add_real(out, x->before[i].budget);
			strbuf_addch(out, '}');
		}
		strbuf_addch(out, ']');
	}
	strbuf_addch(out, '}');
}

static void write_finding(const struct first_stream *f, const struct finding *x, struct strbuf *out)
{
	size_t end = x->len;
	/* the record without its closing brace, then ours */
	while (end && x->line[end - 1] != '}')
		end--;
	strbuf_add(out, x->line, end ? end - 1 : 0);
	if (x->verdict) {
		strbuf_addstr(out, ",\"verdict\":");
		jsonw_str(out, x->verdict);
		strbuf_addstr(out, ",\"reason\":");
		jsonw_str(out, x->reason);
	}
	if (x->tensor_json) {
		strbuf_addstr(out, ",\"tensor\":");
		strbuf_addstr(out, x->tensor_json);
	}
	strbuf_addstr(out, f->opts.nonfinite ? ",\"first_nonfinite\":{" : ",\"first_divergence\":{");
	strbuf_addstr(out, "\"rank\":");
	add_i64_or_null(out, x->rank);
	strbuf_addstr(out, ",\"step\":");
	add_i64_or_null(out, x->step);
	if (x->mode) {
		strbuf_addstr(out, ",\"exec_mode\":");
		jsonw_str(out, leaf_exec_mode_names[x->mode]);
	}
	strbuf_addf(out, ",\"n\":%zu,\"role\":\"%s\"", x->n, first_role_name(f, x));
	if (x->same_as)
		strbuf_addf(out, ",\"same_as\":%zu", x->same_as);
	strbuf_addstr(out, ",\"entry\":");
	jsonw_str(out, x->entry);
	strbuf_addstr(out, ",\"leaf\":");
	jsonw_str(out, x->name);
	if (inputs_name(x->inputs)) {
		strbuf_addstr(out, ",\"inputs\":");
		jsonw_str(out, inputs_name(x->inputs));
	}
	if (x->what) {
		strbuf_addstr(out, ",\"nonfinite\":");
		jsonw_str(out, x->what);
	}
	if (f->banded)
		strbuf_addf(out, ",\"earlier_within_band\":%llu", (unsigned long long)x->earlier_within);
	if (x->unpaired_of) {
		strbuf_addstr(out, ",\"unpaired_source_of\":");
		jsonw_str(out, x->unpaired_of);
	}
	if (x->budgeted)
		write_budget(f, x, out);
	if (f->opts.where)
		strbuf_addf(out, ",\"not_chosen_before\":%llu", (unsigned long long)x->unchosen_before);
	strbuf_addf(out, ",\"comm_ops_before\":%llu,\"in_comm\":%s,\"started_here\":%s,\"why\":",
		    (unsigned long long)x->comm_before, x->in_comm ? "true" : "false", x->started ? "true" : "false");
	jsonw_str(out, x->why);
	strbuf_addstr(out, "}}\n");
}

void first_mark_at(const struct first_stream *f, size_t i, struct first_mark *m)
{
	for (size_t r = 0; r < f->nranks; r++) {
		const struct finding *x;
		if (i >= f->ranks[r].nfound) {
			i -= f->ranks[r].nfound;
			continue;
		}
		x = &f->ranks[r].found[i];
		m->rank = x->rank;
		m->mode = x->mode;
		m->step = x->step;
		m->seq = x->seq;
		m->entry = x->entry;
		m->leaf = x->name;
		m->role = first_role_name(f, x);
		m->n = x->n;
		m->started = x->started;
		return;
	}
	memset(m, 0, sizeof(*m));
}

uint64_t first_rounding(const struct first_stream *f)
{
	uint64_t n = 0;
	for (size_t i = 0; i < f->nranks; i++)
		n += f->ranks[i].rounding;
	return n;
}

static uint64_t within_band_total(const struct first_stream *f)
{
	uint64_t n = 0;
	for (size_t i = 0; i < f->nranks; i++)
		n += f->ranks[i].within;
	return n;
}

const char *first_answer(const struct first_stream *f)
{
	uint64_t compared, total;
	if (first_status(f) == PROBE_DIFFERENT)
		return "divergence";
	first_counts(f, &compared, &total);
	if (compared < total)
		return "incomplete";
	if (f->noise && first_rounding(f))
		return "within_rounding";
	if (f->banded && within_band_total(f))
		return "within_band";
	return "no_divergence";
}

static void write_summary(const struct first_stream *f, struct strbuf *out)
{
	bool first = true;
	strbuf_addstr(out, "{\"summary\":{\"mode\":");
	jsonw_str(out, f->opts.nonfinite ? "nonfinite" : "divergence");
	strbuf_addstr(out, ",\"ranks\":[");
	for (size_t i = 0; i < f->nranks; i++) {
		const struct rank_state *rs = &f->ranks[i];
		strbuf_addstr(out, i ? ",{\"rank\":" : "{\"rank\":");
		add_i64_or_null(out, rs->rank);
		if (rs->mode) {
			strbuf_addstr(out, ",\"exec_mode\":");
			jsonw_str(out, leaf_exec_mode_names[rs->mode]);
		}
		if (f->opts.nonfinite)
			strbuf_addf(out, ",\"leaves\":%llu,\"culprits\":%zu,\"propagators\":%llu",
				    (unsigned long long)rs->leaves, rs->nfound, (unsigned long long)rs->propagators);
		else
			strbuf_addf(out, ",\"pairs\":%llu,\"same\":%llu,\"diff\":%llu,\"unmatched\":%llu,"
					 "\"golden_only\":%llu,\"unreadable\":%llu",
				    (unsigned long long)rs->pairs, (unsigned long long)rs->same,
				    (unsigned long long)rs->diff, (unsigned long long)rs->unmatched,
				    (unsigned long long)rs->golden_only, (unsigned long long)rs->unreadable);
		if (f->banded && !f->opts.nonfinite)
			strbuf_addf(out, ",\"within_band\":%llu", (unsigned long long)rs->within);
		if (f->noise)
			strbuf_addf(out, ",\"rounding\":%llu", (unsigned long long)rs->rounding);
		if (!f->opts.nonfinite && rs->nscalars)
			strbuf_addf(out, ",\"scalars_differ\":%llu", (unsigned long long)rs->nscalars);
		strbuf_addstr(out, ",\"first\":");
		if (rs->nfound)
			jsonw_str(out, rs->found[0].entry);
		else
			strbuf_addstr(out, "null");
		strbuf_addch(out, '}');
	}
	strbuf_addstr(out, "],\"started_by\":");
	/* of a graph/pynative root, an object: each folder's own ranks that started it */
	if (f->nranks && f->ranks[f->nranks - 1].mode)
		strbuf_addch(out, '{');
	for (size_t lo = 0, hi; lo < f->nranks; lo = hi) {
		hi = first_folder_end(f, lo);
		if (f->ranks[lo].mode) {
			strbuf_addstr(out, lo ? "," : "");
			jsonw_str(out, leaf_exec_mode_names[f->ranks[lo].mode]);
			strbuf_addch(out, ':');
		}
		strbuf_addch(out, '[');
		first = true;
		for (size_t i = lo; i < hi; i++) {
			const struct rank_state *rs = &f->ranks[i];
			if (!rs->nfound || !rs->found[0].started)
				continue;
			if (!first)
				strbuf_addch(out, ',');
			add_i64_or_null(out, rs->rank);
			first = false;
		}
		strbuf_addch(out, ']');
	}
	if (!f->nranks)
		strbuf_addstr(out, "[]");
	else if (f->ranks[f->nranks - 1].mode)
		strbuf_addch(out, '}');
	if (!f->opts.nonfinite) {
		uint64_t compared, total;
		first_counts(f, &compared, &total);
		strbuf_addf(out, ",\"compared\":%llu,\"total\":%llu,\"answer\":\"%s\",\"partial\":%s",
			    (unsigned long long)compared, (unsigned long long)total, first_answer(f),
			    alike_partial(f->alike) || (compared < total && alike_accepted(f->alike)) ? "true" : "false");
		if (f->noise)
			strbuf_addf(out, ",\"rounding\":%llu,\"factor\":%.6g", (unsigned long long)first_rounding(f),
				    f->opts.factor);
	}
	strbuf_addstr(out, "}}\n");
}

bool first_rank_started(const struct rank_state *rs)
{
	return rs->nfound && rs->found[0].started;
}

void first_write_records(const struct first_stream *f, struct strbuf *out)
{
	/* the ranks that started it first: the first record is the answer (of its folder, in a graph/pynative root) */
	for (size_t lo = 0, hi; lo < f->nranks; lo = hi) {
		hi = first_folder_end(f, lo);
		for (int pass = 0; pass < 2; pass++)
			for (size_t i = lo; i < hi; i++)
				if (first_rank_started(&f->ranks[i]) == !pass)
					for (size_t k = 0; k < f->ranks[i].nfound; k++)
						write_finding(f, &f->ranks[i].found[k], out);
	}
	write_summary(f, out);
}

static int sink_add(void *f, const char *line, size_t len, struct strbuf *out, struct strbuf *err)
{
	return first_add(f, line, len, err);
}

static int sink_finish(void *f, struct strbuf *out, struct strbuf *err)
{
	return first_finish(f, err);
}

struct line_sink first_sink(struct first_stream *f)
{
	return (struct line_sink){ .ctx = f, .add = sink_add, .finish = sink_finish };
}

