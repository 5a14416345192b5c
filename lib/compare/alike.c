#include "alike.h"
#include "../msprobe/naming.h"
#include "../core/msg.h"
#include "../core/strmap.h"
#include "../core/xalloc.h"

#include <sys/stat.h>

/* ---- the task table ---------------------------------------------------------- */

static bool is_tensor(const struct leafrec *r)
{
	return r->f[LF_DTYPE].kind == SPAN_STRING && r->f[LF_DTYPE].n > 2;
}

enum alike_kind alike_kind_of(const struct leafrec *r)
{
	if (!is_tensor(r))
		return ALIKE_NONE;
	if (span_str_eq(&r->f[LF_TASK], "tensor", 6))
		return ALIKE_TENSOR;
	return r->f[LF_MD5].kind != SPAN_NONE ? ALIKE_MD5 : ALIKE_STATISTICS;
}

const char *alike_kind_dump(enum alike_kind k)
{
	switch (k) {
	case ALIKE_STATISTICS: return "a statistics dump";
	case ALIKE_MD5: return "an md5 dump";
	case ALIKE_TENSOR: return "a tensor dump";
	default: return "a dump without tensors";
	}
}

const char *alike_kind_name(enum alike_kind k)
{
	switch (k) {
	case ALIKE_STATISTICS: return "statistics";
	case ALIKE_MD5: return "md5";
	case ALIKE_TENSOR: return "tensor";
	default: return "none";
	}
}

bool alike_compares_md5(const struct leafrec *t, const struct leafrec *g)
{
	return t->f[LF_MD5].kind != SPAN_NONE && g->f[LF_MD5].kind != SPAN_NONE;
}

bool alike_compares_elements(const struct leafrec *t, const struct leafrec *g)
{
	return span_str_eq(&t->f[LF_TASK], "tensor", 6) && span_str_eq(&g->f[LF_TASK], "tensor", 6);
}

/* ---- frameworks ------------------------------------------------------------------ */

enum framework { FW_UNKNOWN, FW_PYTORCH, FW_MINDSPORE };

static bool starts_with(const struct span *s, const char *w)
{
	size_t n = strlen(w);
	return s->kind == SPAN_STRING && s->n >= n + 2 && !memcmp(s->p + 1, w, n);
}

static enum framework framework_of(const struct leafrec *r)
{
	if (starts_with(&r->f[LF_TYPE], "torch.") || starts_with(&r->f[LF_DTYPE], "torch."))
		return FW_PYTORCH;
	if (starts_with(&r->f[LF_TYPE], "mindspore."))
		return FW_MINDSPORE;
	return FW_UNKNOWN;
}

static const char *framework_name(enum framework fw)
{
	return fw == FW_PYTORCH ? "PyTorch" : fw == FW_MINDSPORE ? "MindSpore" : "unknown";
}

/* ---- groups: one target rank and step ---------------------------------------------- */

enum uclass { UC_NPU, UC_SKIPPED, UC_MODULE, UC_API, UC_NCLASSES };

struct side_counts {
	uint64_t n;                  /* unmatched (target side) or golden-only (golden side) */
	uint64_t cls[UC_NCLASSES];   /* by class */
	char *example[UC_NCLASSES];  /* the first of each class */
	bool has_module, has_api;    /* the side has module (L0) / API (L1) leaves at all */
};

struct group {
	int64_t rank, step;
	int mode;                    /* exec_mode (leafrec.h): its folder of a graph/pynative root */
	bool golden_known;
	int64_t g_rank, g_step;      /* the golden rank and step its first matched pair came from */
	uint64_t targets, matched;
	uint64_t shapes, shape_differs; /* matched tensor pairs, and those whose shapes differ */
	struct side_counts t, g;
	unsigned t_kinds, g_kinds;   /* 1 << alike_kind of the matched tensor pairs */
	bool marked;
	/* while it is read: names without call index -> target count (low 32 bits), golden count (high) */
	struct strmap fuzzy;
	bool fuzzy_full;
	uint64_t fuzzy_pairs, fuzzy_pgrad; /* after: leaves --fuzzy would pair (each side), parameters_grad among them */
	char *fuzzy_example;
	bool below;                  /* below the guard */
};

struct missing_dir {
	char *dir;
	uint64_t pairs;
};

struct alike {
	struct alike_options o;
	struct group *groups;
	size_t ngroups, groups_alloc;
	struct group *cur;
	bool marked;
	bool finished;
	struct strmap dirs;          /* tensor directories checked: value 1 + index into missing, or 0 present */
	struct missing_dir *missing;
	size_t nmissing, missing_alloc;
	struct strbuf scratch, scratch2;
};

struct alike *alike_new(const struct alike_options *o)
{
	struct alike *a = xcalloc(1, sizeof(*a));
	a->o = *o;
	strbuf_init(&a->scratch, 0);
	strbuf_init(&a->scratch2, 0);
	return a;
}

static void side_release(struct side_counts *s)
{
	for (int i = 0; i < UC_NCLASSES; i++)
		free(s->example[i]);
}

void alike_free(struct alike *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->ngroups; i++) {
		struct group *g = &a->groups[i];
		side_release(&g->t);
		side_release(&g->g);
		strmap_release(&g->fuzzy);
		free(g->fuzzy_example);
	}
	free(a->groups);
	for (size_t i = 0; i < a->nmissing; i++)
		free(a->missing[i].dir);
	free(a->missing);
	strmap_release(&a->dirs);
	strbuf_release(&a->scratch);
	strbuf_release(&a->scratch2);
	free(a);
}

/* The names of a group's leaves: done with once the next group starts. */
static void close_group(struct group *g)
{
	uint64_t pairs = 0, pgrad = 0;
	for (size_t i = 0; i < g->fuzzy.cap; i++) {
		const struct strmap_slot *s = &g->fuzzy.slots[i];
		uint64_t t, gl, k;
		if (!s->hash)
			continue;
		t = s->value.u & 0xffffffffu;
		gl = s->value.u >> 32;
		k = t < gl ? t : gl;
		if (!k)
			continue;
		pairs += k;
		if (mem_holds(s->key, s->key_len, ".parameters_grad"))
			pgrad += k;
		if (!g->fuzzy_example)
			g->fuzzy_example = xmemdupz(s->key, s->key_len);
	}
	g->fuzzy_pairs += pairs;
	g->fuzzy_pgrad += pgrad;
	strmap_release(&g->fuzzy);
}

static struct group *group_for(struct alike *a, const struct leafrec *r)
{
	int64_t rank = r->rank, step = r->step;
	int mode = r->exec_mode;
	if (a->cur && a->cur->rank == rank && a->cur->step == step && a->cur->mode == mode)
		return a->cur;
	if (a->cur)
		close_group(a->cur);
	for (size_t i = 0; i < a->ngroups; i++)
		if (a->groups[i].rank == rank && a->groups[i].step == step && a->groups[i].mode == mode) {
			/* a group seen before and again (pairs not in group order): counted on */
			a->cur = &a->groups[i];
			return a->cur;
		}
	ALLOC_GROW(a->groups, a->ngroups + 1, a->groups_alloc);
	a->cur = &a->groups[a->ngroups++];
	memset(a->cur, 0, sizeof(*a->cur));
	a->cur->rank = rank;
	a->cur->step = step;
	a->cur->mode = mode;
	return a->cur;
}

static bool is_module_entry(const struct leafrec *r)
{
	return starts_with(&r->f[LF_ENTRY], "Module.") || starts_with(&r->f[LF_ENTRY], "Cell.");
}

static enum uclass class_of(const struct leafrec *r)
{
	if (starts_with(&r->f[LF_ENTRY], "NPU."))
		return UC_NPU;
	if (r->f[LF_MSPROBE_SKIPS].kind == SPAN_TRUE)
		return UC_SKIPPED;
	return is_module_entry(r) ? UC_MODULE : UC_API;
}

static void note_level(struct side_counts *s, const struct leafrec *r)
{
	if (is_module_entry(r))
		s->has_module = true;
	else
		s->has_api = true;
}

/* An unmatched or golden-only leaf: counted by class, its name without call index kept for --fuzzy. */
static void count_unpaired(struct alike *a, struct group *g, struct side_counts *s, const struct leafrec *r,
			   bool golden)
{
	enum uclass c = class_of(r);
	s->n++;
	s->cls[c]++;
	leafrec_str(r, LF_NAME, &a->scratch);
	if (!s->example[c])
		s->example[c] = xstrdup(a->scratch.buf);
	if (c == UC_NPU || c == UC_SKIPPED)
		return;
	naming_fuzzy_name(&a->scratch2, a->scratch.buf);
	if (g->fuzzy_full || (g->fuzzy.size >= ALIKE_FUZZY_MAX && !strmap_find(&g->fuzzy, a->scratch2.buf,
									       a->scratch2.len))) {
		g->fuzzy_full = true;
		return;
	}
	struct strmap_slot *slot = strmap_put(&g->fuzzy, a->scratch2.buf, a->scratch2.len, NULL);
	slot->value.u += golden ? (uint64_t)1 << 32 : 1;
}

/* Whether two shapes ([1, 5, 8] and [5, 8]) are the same after numpy's squeeze: the dims of 1 left out. */
static bool same_squeezed(const struct span *a, const struct span *b)
{
	struct rs_iter ia, ib;
	struct span x, y;
	int ga, gb;
	if (span_same(a, b))
		return true;
	if (a->kind != SPAN_ARRAY || b->kind != SPAN_ARRAY || rs_begin_array(&ia, a->p, a->n) < 0 ||
	    rs_begin_array(&ib, b->p, b->n) < 0)
		return false;
	for (;;) {
		while ((ga = rs_next_item(&ia, &x)) == 1 && x.n == 1 && x.p[0] == '1')
			;
		while ((gb = rs_next_item(&ib, &y)) == 1 && y.n == 1 && y.p[0] == '1')
			;
		if (ga != 1 || gb != 1)
			return ga == gb && ga == 0;
		if (!span_same(&x, &y))
			return false;
	}
}

static void note_pair(struct group *gr, const struct leafrec *t, const struct leafrec *g)
{
	enum alike_kind kt = alike_kind_of(t), kg = alike_kind_of(g);
	if (kt == ALIKE_NONE || kg == ALIKE_NONE)
		return;
	gr->t_kinds |= 1u << kt;
	gr->g_kinds |= 1u << kg;
	gr->shapes++;
	if (!same_squeezed(&t->f[LF_SHAPE], &g->f[LF_SHAPE]))
		gr->shape_differs++;
	if (!gr->golden_known) {
		gr->golden_known = true;
		gr->g_rank = g->rank;
		gr->g_step = g->step;
	}
}

bool alike_frameworks_differ(const struct leafrec *t, const struct leafrec *g)
{
	enum framework ft = framework_of(t), fg = framework_of(g);
	return ft != FW_UNKNOWN && fg != FW_UNKNOWN && ft != fg;
}

static bool without_md5(const struct leafrec *r)
{
	return r->f[LF_MD5].kind == SPAN_NONE;
}

/*
 * Across frameworks our verdict compares statistics (its dtype, type and
 * requires_grad rules for two frameworks: verdict.c) and saved tensors
 * (MindSpore's float32 .npy of a bfloat16 tensor read as the bfloat16 it
 * holds: tensor_match_upcast()); md5s it does not (the CRC-32 is of the
 * saved bytes, which differ by framework where the values do not).
 */
static int check_frameworks(const struct leafrec *t, const struct leafrec *g, struct strbuf *err)
{
	enum framework ft = framework_of(t), fg = framework_of(g);
	struct strbuf name = STRBUF_INIT;
	if (!alike_frameworks_differ(t, g) || (without_md5(t) && without_md5(g)))
		return 0;
	leafrec_str(t, LF_NAME, &name);
	strbuf_addf(err,
		    "%s: the target leaf is %s's and its golden partner %s's: across frameworks our verdict compares "
		    "statistics and tensors, not md5s (a CRC-32 of bytes each framework saves its own way); "
		    "probe-metric --csv gives msprobe's view of such a compare",
		    name.buf, framework_name(ft), framework_name(fg));
	strbuf_release(&name);
	return -1;
}

int alike_target(struct alike *a, const struct leafrec *t, bool matched, const struct leafrec *g, bool marked,
		 struct strbuf *err)
{
	struct group *gr = group_for(a, t);
	gr->targets++;
	note_level(&gr->t, t);
	if (marked)
		gr->marked = a->marked = true;
	if (!matched) {
		count_unpaired(a, gr, &gr->t, t, false);
		return 0;
	}
	gr->matched++;
	note_level(&gr->g, t); /* its partner has its name */
	if (!g)
		return 0;
	note_pair(gr, t, g);
	return a->o.any_framework ? 0 : check_frameworks(t, g, err);
}

void alike_golden_only(struct alike *a, const struct leafrec *g, bool marked)
{
	struct group *gr = a->cur ? a->cur : group_for(a, g);
	note_level(&gr->g, g);
	if (marked)
		gr->marked = a->marked = true;
	count_unpaired(a, gr, &gr->g, g, true);
}

/* The index + 1 in a->missing of the directory of path when it does not exist, else 0. */
static size_t missing_dir_of(struct alike *a, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 1;
	const char *dir = slash ? path : ".";
	bool created;
	struct strmap_slot *s = strmap_put(&a->dirs, dir, n, &created);
	if (created) {
		struct stat st;
		strbuf_reset(&a->scratch);
		strbuf_add(&a->scratch, dir, n);
		if (stat(a->scratch.buf, &st) < 0 || !S_ISDIR(st.st_mode)) {
			ALLOC_GROW(a->missing, a->nmissing + 1, a->missing_alloc);
			a->missing[a->nmissing++] = (struct missing_dir){ xstrdup(a->scratch.buf), 0 };
			s->value.u = a->nmissing;
		}
	}
	return (size_t)s->value.u;
}

void alike_unreadable(struct alike *a, const char *t_path, const char *g_path)
{
	size_t t = t_path ? missing_dir_of(a, t_path) : 0, g = g_path ? missing_dir_of(a, g_path) : 0;
	if (t)
		a->missing[t - 1].pairs++;
	if (g && g != t)
		a->missing[g - 1].pairs++;
}

/* ---- the guard ------------------------------------------------------------------- */

/* Target leaves that could have had a partner: not NPU-only, not skipped by msprobe. */
static uint64_t eligible(const struct group *g)
{
	return g->targets - g->t.cls[UC_NPU] - g->t.cls[UC_SKIPPED];
}

static bool below_guard(const struct group *g)
{
	return !g->matched || g->matched * 2 < eligible(g);
}

/* "rank R, step S"; in a folder of a graph/pynative root "graph/step S rank R", as probe-first(1) says it. */
static void add_rank_step(struct strbuf *out, int mode, int64_t rank, int64_t step)
{
	if (mode) {
		strbuf_addf(out, "%s/", leaf_exec_mode_names[mode]);
		if (step >= 0)
			strbuf_addf(out, "step%lld ", (long long)step);
	}
	if (rank < 0)
		strbuf_addstr(out, mode ? "(no rank)" : "the target (no rank)");
	else
		strbuf_addf(out, "rank %lld", (long long)rank);
	if (step >= 0 && !mode)
		strbuf_addf(out, ", step %lld", (long long)step);
}

static unsigned percent(uint64_t part, uint64_t whole)
{
	return whole ? (unsigned)(100.0 * (double)part / (double)whole) : 0;
}

/* "N leaves ... (e.g. NAME)" for each class that has some. */
static void explain_side(struct strbuf *out, const char *indent, const struct side_counts *s, bool golden,
			 uint64_t fuzzy, const struct side_counts *other)
{
	static const char *const what_t[UC_NCLASSES] = {
		"NPU-only APIs, which a GPU or CPU golden run cannot have",
		"entries msprobe's compare skips (no forward, backward or parameters_grad in the name)",
		"module entries", "API entries",
	};
	static const char *const what_g[UC_NCLASSES] = {
		"NPU-only APIs", "entries msprobe's compare skips", "module entries", "API entries",
	};
	uint64_t rest_module = s->cls[UC_MODULE], rest_api = s->cls[UC_API];
	if (!s->n)
		return;
	strbuf_addf(out, "%s%llu %s:", indent, (unsigned long long)s->n,
		    golden ? "golden leaves have no target partner" : "target leaves have no golden partner");
	for (int c = 0; c < UC_MODULE; c++)
		if (s->cls[c])
			strbuf_addf(out, " %llu %s (e.g. %s);", (unsigned long long)s->cls[c],
				    (golden ? what_g : what_t)[c], s->example[c]);
	/* module or API leaves the other side has none of at all: the dump levels differ */
	bool other_seen = other->has_module || other->has_api;
	if (rest_module && other_seen && !other->has_module) {
		strbuf_addf(out, " %llu module entries, and the %s dump has none: dumped at another level (L0, L1, "
				 "mix) (e.g. %s);",
			    (unsigned long long)rest_module, golden ? "target" : "golden", s->example[UC_MODULE]);
		rest_module = 0;
	}
	if (rest_api && other_seen && !other->has_api) {
		strbuf_addf(out, " %llu API entries, and the %s dump has none: dumped at another level (L0, L1, mix) "
				 "(e.g. %s);",
			    (unsigned long long)rest_api, golden ? "target" : "golden", s->example[UC_API]);
		rest_api = 0;
	}
	if (fuzzy > rest_module + rest_api)
		fuzzy = rest_module + rest_api;
	if (fuzzy)
		strbuf_addf(out, " %llu whose name differs from one on the other side only by the call index "
				 "(--fuzzy pairs them);",
			    (unsigned long long)fuzzy);
	if (rest_module + rest_api > fuzzy)
		strbuf_addf(out, " %llu others (e.g. %s);", (unsigned long long)(rest_module + rest_api - fuzzy),
			    rest_module ? s->example[UC_MODULE] : s->example[UC_API]);
	strbuf_setlen(out, out->len - 1);
	strbuf_addch(out, '\n');
}

static void explain_group(const struct group *g, const char *indent, struct strbuf *out)
{
	explain_side(out, indent, &g->t, false, g->fuzzy_pairs, &g->g);
	explain_side(out, indent, &g->g, true, g->fuzzy_pairs, &g->t);
	if (g->fuzzy_pairs && g->fuzzy_pgrad == g->fuzzy_pairs)
		strbuf_addf(out, "%s(the %llu that differ by the call index are all parameters_grad, e.g. %s: msprobe "
				 "numbers them by occurrence)\n",
			    indent, (unsigned long long)g->fuzzy_pairs, g->fuzzy_example);
}

static void likely_reasons(const struct group *g, struct strbuf *out)
{
	strbuf_addstr(out, "  likely: ");
	if (g->fuzzy_pairs * 2 >= eligible(g) - g->matched && g->fuzzy_pairs) {
		strbuf_addstr(out, "the call indices differ between the dumps (another order of calls, or a dump "
				   "of another step); --fuzzy pairs by the name without the index\n");
		return;
	}
	if (g->shapes && g->shape_differs * 2 > g->shapes)
		strbuf_addf(out, "two different models or batch sizes (%llu of the %llu matched tensors differ in "
				 "shape); ",
			    (unsigned long long)g->shape_differs, (unsigned long long)g->shapes);
	else
		strbuf_addstr(out, "two different models; ");
	strbuf_addstr(out, "different dump levels (L0, L1, mix) or scopes; steps or ranks paired wrongly");
	if (g->golden_known) {
		strbuf_addstr(out, " (this target ");
		add_rank_step(out, g->mode, g->rank, g->step);
		strbuf_addstr(out, " was paired with golden ");
		if (g->g_rank < 0)
			strbuf_addstr(out, "(no rank)");
		else
			strbuf_addf(out, "rank %lld", (long long)g->g_rank);
		if (g->g_step >= 0)
			strbuf_addf(out, ", step %lld", (long long)g->g_step);
		strbuf_addch(out, ')');
	}
	strbuf_addstr(out, "; target and golden given the other way round\n");
}

int alike_finish(struct alike *a, struct strbuf *err)
{
	size_t below = 0;
	const struct group *first = NULL;
	if (a->cur)
		close_group(a->cur);
	a->cur = NULL;
	a->finished = true;
	for (size_t i = 0; i < a->ngroups; i++) {
		struct group *g = &a->groups[i];
		g->below = below_guard(g);
		if (g->below && !below++)
			first = g;
	}
	if (!below)
		return 0;
	if (alike_accepted(a)) {
		if (a->o.partial)
			warning("a partial comparison, accepted with --partial: %zu target rank%s and step%s with fewer "
				"than half of the leaves matched (the first: %llu of %llu)",
				below, below == 1 ? "" : "s", below == 1 ? "" : "s", (unsigned long long)first->matched,
				(unsigned long long)eligible(first));
		return 0;
	}
	add_rank_step(err, first->mode, first->rank, first->step);
	strbuf_addf(err, ": only %llu of %llu target leaves (%u %%) have a golden partner", (unsigned long long)first->matched,
		    (unsigned long long)eligible(first), percent(first->matched, eligible(first)));
	if (first->g.n)
		strbuf_addf(err, ", and %llu golden leaves have none", (unsigned long long)first->g.n);
	strbuf_addstr(err, ": this does not look like a run and its reference\n");
	explain_group(first, "  ", err);
	likely_reasons(first, err);
	if (below > 1)
		strbuf_addf(err, "  (%zu target ranks and steps are like this)\n", below);
	strbuf_addstr(err, "  --partial compares what matched anyway");
	return -1;
}

bool alike_accepted(const struct alike *a)
{
	return a->o.partial || a->marked;
}

bool alike_partial(const struct alike *a)
{
	for (size_t i = 0; i < a->ngroups; i++)
		if (a->groups[i].below)
			return true;
	return false;
}

/* ---- reports ----------------------------------------------------------------------- */

void alike_explain(const struct alike *a, int mode, int64_t rank, const char *indent, struct strbuf *out)
{
	for (size_t i = 0; i < a->ngroups; i++) {
		const struct group *g = &a->groups[i];
		if (g->rank != rank || g->mode != mode)
			continue;
		if (g->below)
			strbuf_addf(out, "%sa partial comparison: %llu of %llu target leaves (%u %%) have a golden partner\n",
				    indent, (unsigned long long)g->matched, (unsigned long long)eligible(g),
				    percent(g->matched, eligible(g)));
		explain_group(g, indent, out);
		if (g->shapes && g->shape_differs * 2 > g->shapes)
			strbuf_addf(out, "%s%llu of the %llu matched tensors differ in shape: two different models or batch "
					 "sizes?\n",
				    indent, (unsigned long long)g->shape_differs, (unsigned long long)g->shapes);
	}
}

void alike_explain_all(const struct alike *a, struct strbuf *out)
{
	for (size_t i = 0; i < a->ngroups; i++) {
		const struct group *g = &a->groups[i];
		if (!g->t.n && !g->g.n)
			continue;
		add_rank_step(out, g->mode, g->rank, g->step);
		strbuf_addf(out, ": %llu of %llu target leaves matched\n", (unsigned long long)g->matched,
			    (unsigned long long)g->targets);
		explain_group(g, "  ", out);
	}
}

void alike_missing_dirs(const struct alike *a, const char *indent, struct strbuf *out)
{
	for (size_t i = 0; i < a->nmissing; i++)
		strbuf_addf(out, "%s%llu pair%s name tensor files in %s, which does not exist\n", indent,
			    (unsigned long long)a->missing[i].pairs, a->missing[i].pairs == 1 ? "" : "s", a->missing[i].dir);
}

/* What a side's matched tensor leaves say of its dump: a tensor dump, an md5 dump, a statistics dump. */
static enum alike_kind side_kind(unsigned kinds)
{
	if (kinds & 1u << ALIKE_TENSOR)
		return ALIKE_TENSOR;
	if (kinds & 1u << ALIKE_MD5)
		return ALIKE_MD5;
	return kinds ? ALIKE_STATISTICS : ALIKE_NONE;
}

void alike_tasks_note(const struct alike *a, struct strbuf *out)
{
	unsigned t = 0, g = 0;
	enum alike_kind kt, kg;
	strbuf_reset(out);
	for (size_t i = 0; i < a->ngroups; i++) {
		t |= a->groups[i].t_kinds;
		g |= a->groups[i].g_kinds;
	}
	kt = side_kind(t);
	kg = side_kind(g);
	if (kt == ALIKE_NONE || kg == ALIKE_NONE || kt == kg)
		return;
	strbuf_addf(out, "the dumps' tasks differ (%s against %s): what they have in common is compared, the "
			 "statistics, dtypes, shapes and values, not the %s",
		    alike_kind_dump(kt), alike_kind_dump(kg),
		    kt == ALIKE_TENSOR || kg == ALIKE_TENSOR ? "tensor elements" : "CRC-32");
}
