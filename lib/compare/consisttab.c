/*
 * consisttab.c: the table of verl's consistency compare (consist.h), msprobe's
 * and ours.
 *
 * The whole table is kept: msprobe's checkers group the rows by training
 * entry, and an inference-only row joins the group of the training entry its
 * inference entry matched, which a later row may tell.  Reference:
 * msprobe-verl.md sections 4 to 6.
 */
#include "consist.h"
#include "../msprobe/naming.h"
#include "tmetric.h"
#include "verdict.h"
#include "../core/arena.h"
#include "../core/msg.h"
#include "../core/partial.h"
#include "../core/strmap.h"
#include "../core/xlsxw.h"
#include "../core/xalloc.h"
#include "../dumps/layout.h"
#include "../dumps/stack.h"
#include "../json/jsonw.h"
#include "../msprobe/mscell.h"
#include "../msprobe/mscsv.h"
#include "../msprobe/mstable.h"
#include "../msprobe/pyfmt.h"
#include "../msprobe/pyval.h"
#include "../records/leafrec.h"
#include "../tensors/tensor.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

enum col {
	C_NPU_NAME, C_BENCH_NAME, C_NPU_DTYPE, C_BENCH_DTYPE, C_NPU_SHAPE, C_BENCH_SHAPE, C_NPU_RG, C_BENCH_RG,
	C_COSINE, C_EUC, C_MAX_ABS, C_MAX_REL, C_ONE, C_FIVE,
	C_NPU_MAX, C_NPU_MIN, C_NPU_MEAN, C_NPU_NORM, C_BENCH_MAX, C_BENCH_MIN, C_BENCH_MEAN, C_BENCH_NORM,
	C_RG_SAME, C_RESULT, C_ERR, C_STACK, C_DATA_NAME,
	C_MAX_DIFF, C_MIN_DIFF, C_MEAN_DIFF, C_NORM_DIFF, C_MAX_RELERR, C_MIN_RELERR, C_MEAN_RELERR, C_NORM_RELERR, C_NCOLS
};

static const char *const header[C_NCOLS] = {
	"NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape", "Bench Tensor Shape",
	"NPU Requires_grad", "Bench Requires_grad", "Cosine", "EucDist", "MaxAbsErr", "MaxRelativeErr",
	"One Thousandth Err Ratio", "Five Thousandths Err Ratio", "NPU max", "NPU min", "NPU mean", "NPU l2norm",
	"Bench max", "Bench min", "Bench mean", "Bench l2norm", "Requires_grad Consistent", "Result", "Err_message",
	"NPU_Stack_Info", "Data_name", "Max diff", "Min diff", "Mean diff", "L2norm diff", "MaxRelativeErr",
	"MinRelativeErr", "MeanRelativeErr", "NormRelativeErr",
};

/* msprobe's columns in each mode: tensor (Data_name last) and statistics (the diffs where the metrics are). */
static const int tensor_cols[] = {
	C_NPU_NAME, C_BENCH_NAME, C_NPU_DTYPE, C_BENCH_DTYPE, C_NPU_SHAPE, C_BENCH_SHAPE, C_NPU_RG, C_BENCH_RG,
	C_COSINE, C_EUC, C_MAX_ABS, C_MAX_REL, C_ONE, C_FIVE,
	C_NPU_MAX, C_NPU_MIN, C_NPU_MEAN, C_NPU_NORM, C_BENCH_MAX, C_BENCH_MIN, C_BENCH_MEAN, C_BENCH_NORM,
	C_RG_SAME, C_RESULT, C_ERR, C_STACK, C_DATA_NAME,
};
static const int stats_cols[] = {
	C_NPU_NAME, C_BENCH_NAME, C_NPU_DTYPE, C_BENCH_DTYPE, C_NPU_SHAPE, C_BENCH_SHAPE, C_NPU_RG, C_BENCH_RG,
	C_MAX_DIFF, C_MIN_DIFF, C_MEAN_DIFF, C_NORM_DIFF, C_MAX_RELERR, C_MIN_RELERR, C_MEAN_RELERR, C_NORM_RELERR,
	C_NPU_MAX, C_NPU_MIN, C_NPU_MEAN, C_NPU_NORM, C_BENCH_MAX, C_BENCH_MIN, C_BENCH_MEAN, C_BENCH_NORM,
	C_RG_SAME, C_RESULT, C_ERR, C_STACK,
};

enum level { L_PASS, L_WARNING, L_ERROR };
static const char *const level_name[] = { "pass", "warning", "error" };

#define MAX_MSGS 8

/* Our verdict of a row: verdict.h's, and "structural" for what the two frameworks compute differently. */
enum our { OUR_SAME, OUR_DIFF, OUR_STRUCTURAL, OUR_UNMATCHED, OUR_GOLDEN_ONLY, OUR_UNREADABLE };
static const char *const our_name[] = { "same", "diff", "structural", "unmatched", "golden_only", "unreadable" };

struct side {
	struct leafrec *leaf; /* the joined leaves, the first one first */
	size_t n;
	struct msleaf *ms;
};

struct row {
	char *line;
	size_t len;
	struct side t, g;
	const char *cells[C_NCOLS];
	bool stat_float[8];        /* the statistic cell is a Python float (" inf" in the CSV) */
	const char *api;           /* msprobe's api_origin_name: the training entry of the row's group */
	enum level result;
	const char *msgs[MAX_MSGS];
	int nmsgs;
	struct tmetric tm;
	bool tm_done;              /* the tensors were compared */
	const char *problem;       /* why they were not */
	enum our our;
	struct strbuf reason;
};

struct consist_table {
	struct consist_table_options opts;
	enum consist_backend backend;
	bool backend_known;
	struct row *rows;
	size_t nr, alloc;
	size_t from, to;           /* the rows of the rank being tabled: one table per rank pair */
	size_t tables;             /* tables written so far */
	bool statistics;           /* msprobe's statistics mode (no tensors on one side or both) */
	struct arena arena;
	struct stack_map *stacks;  /* the current rank's stack.json, or NULL */
	struct consist_table_stats st;
};

struct consist_table *consist_table_new(const struct consist_table_options *opts)
{
	struct consist_table *t = xcalloc(1, sizeof(*t));
	t->opts = *opts;
	return t;
}

void consist_table_free(struct consist_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr; i++) {
		free(t->rows[i].line);
		free(t->rows[i].t.leaf);
		free(t->rows[i].g.leaf);
		strbuf_release(&t->rows[i].reason);
	}
	free(t->rows);
	stack_map_free(t->stacks);
	arena_release(&t->arena);
	free(t);
}

bool consist_pair_line(const char *line, size_t len)
{
	struct rs_iter it;
	struct span k, v;
	if (rs_begin(&it, line, len) < 0)
		return false;
	while (rs_next(&it, &k, &v) == 1)
		if (span_key_is(&k, "consistency", 11))
			return true;
	return false;
}

/* ---- reading a pair ------------------------------------------------------------ */

static int add_leaf(struct side *s, const struct span *v, struct strbuf *err)
{
	const char *why;
	s->leaf = xrealloc(s->leaf, (s->n + 1) * sizeof(*s->leaf));
	if (leafrec_parse(&s->leaf[s->n], v->p, v->n, &why) < 0) {
		strbuf_addf(err, "a leaf of this pair: %s", why);
		return PROBE_ERR_LINE;
	}
	s->n++;
	return 0;
}

static int add_joined(struct side *s, const struct span *v, struct strbuf *err)
{
	struct rs_iter it;
	struct span item;
	int got;
	if (!s->n || v->kind != SPAN_ARRAY || rs_begin_array(&it, v->p, v->n) < 0) {
		strbuf_addstr(err, "\"t_join\" and \"g_join\" must be arrays of leaf records beside a leaf in \"t\" or \"g\"");
		return PROBE_ERR_LINE;
	}
	while ((got = rs_next_item(&it, &item)) == 1)
		if (item.kind != SPAN_OBJECT || add_leaf(s, &item, err) < 0) {
			if (!err->len)
				strbuf_addstr(err, "\"t_join\" and \"g_join\" must hold leaf records");
			return PROBE_ERR_LINE;
		}
	return got < 0 ? (strbuf_addstr(err, "bad JSON in a join"), PROBE_ERR_LINE) : 0;
}

static int read_members(struct consist_table *t, struct row *r, struct strbuf *err)
{
	struct rs_iter it;
	struct span k, v, tj = { 0 }, gj = { 0 };
	int got;
	if (rs_begin(&it, r->line, r->len) < 0) {
		strbuf_addstr(err, "not a pair record");
		return PROBE_ERR_LINE;
	}
	while ((got = rs_next(&it, &k, &v)) == 1) {
		if ((span_key_is(&k, "t", 1) || span_key_is(&k, "g", 1)) && v.kind == SPAN_OBJECT) {
			if (add_leaf(span_key_is(&k, "t", 1) ? &r->t : &r->g, &v, err) < 0)
				return PROBE_ERR_LINE;
		} else if (span_key_is(&k, "t_join", 6)) {
			tj = v;
		} else if (span_key_is(&k, "g_join", 6)) {
			gj = v;
		} else if (span_key_is(&k, "consistency", 11)) {
			struct strbuf b = STRBUF_INIT;
			enum consist_backend be;
			int bad = span_string(&v, &b) < 0 || consist_backend_parse(b.buf, &be) < 0;
			strbuf_release(&b);
			if (bad || (t->backend_known && be != t->backend)) {
				strbuf_addstr(err, bad ? "\"consistency\" must be \"fsdp\" or \"megatron\""
						       : "pairs of two backends in one input");
				return PROBE_ERR_LINE;
			}
			t->backend = be;
			t->backend_known = true;
		}
	}
	if (got < 0 || (!r->t.n && !r->g.n)) {
		strbuf_addstr(err, got < 0 ? "bad JSON" : "a pair needs a leaf in \"t\" or \"g\"");
		return PROBE_ERR_LINE;
	}
	if ((tj.kind && add_joined(&r->t, &tj, err) < 0) || (gj.kind && add_joined(&r->g, &gj, err) < 0))
		return PROBE_ERR_LINE;
	if (!t->backend_known) {
		strbuf_addstr(err, "not a pair of a consistency compare (no \"consistency\")");
		return PROBE_ERR_LINE;
	}
	return 0;
}

int consist_table_add(struct consist_table *t, const char *line, size_t len, struct strbuf *err)
{
	struct row *r;
	ALLOC_GROW(t->rows, t->nr + 1, t->alloc);
	r = &t->rows[t->nr++];
	memset(r, 0, sizeof(*r));
	strbuf_init(&r->reason, 0);
	r->line = xmemdupz(line, len);
	r->len = len;
	return read_members(t, r, err);
}

/* ---- msprobe's cells ------------------------------------------------------------- */

static const char *text(struct consist_table *t, const struct strbuf *sb)
{
	return arena_memdupz(&t->arena, sb->buf, sb->len);
}

static int side_cells(struct consist_table *t, struct side *s, struct strbuf *err)
{
	s->ms = arena_alloc(&t->arena, (s->n + 1) * sizeof(*s->ms));
	for (size_t i = 0; i < s->n; i++) {
		const char *why;
		if (mscell_from_record(&s->ms[i], &s->leaf[i], &t->arena, &why) < 0) {
			strbuf_addf(err, "a leaf of this pair: %s", why);
			return -1;
		}
	}
	return 0;
}

/* A field of the joined leaves, each through get, joined by sep ("N/A" for no leaf). */
static const char *joined(struct consist_table *t, const struct side *s, const char *sep,
			  const char *(*get)(const struct msleaf *))
{
	struct strbuf sb = STRBUF_INIT;
	const char *res;
	if (!s->n)
		return "N/A";
	for (size_t i = 0; i < s->n; i++) {
		if (i)
			strbuf_addstr(&sb, sep);
		strbuf_addstr(&sb, get(&s->ms[i]));
	}
	res = text(t, &sb);
	strbuf_release(&sb);
	return res;
}

static const char *get_name(const struct msleaf *m) { return m->name; }
static const char *get_dtype(const struct msleaf *m) { return m->dtype; }
static const char *get_shape(const struct msleaf *m) { return m->shape; }
static const char *get_data_name(const struct msleaf *m) { return m->data_name; }

/*
 * A statistic as msprobe's consistency path leaves it: str() of the list of
 * four, split at its commas and each piece tried with float(); a number
 * becomes a float (29 -> 29.0), anything else the text without quotes.
 */
struct stat_value {
	bool is_float;
	double f;
	const char *text;
};

static struct stat_value stat_value(struct consist_table *t, const struct pyval *v)
{
	struct stat_value s = { 0 };
	struct strbuf sb = STRBUF_INIT;
	if (v && (v->kind == PY_INT || v->kind == PY_FLOAT)) {
		s.is_float = true;
		s.f = pyval_float(v);
		pyfmt_double(&sb, s.f);
	} else if (v) {
		pyval_str(&sb, v);
	} else {
		strbuf_addstr(&sb, "None");
	}
	if (!s.is_float && !strcmp(sb.buf, "nan")) {
		strbuf_reset(&sb);
		strbuf_addstr(&sb, "Nan");
	}
	s.text = text(t, &sb);
	strbuf_release(&sb);
	return s;
}

static bool all_nan(const struct stat_value *v)
{
	for (int k = 0; k < 4; k++)
		if (v[k].is_float ? !isnan(v[k].f) : strcmp(v[k].text, "Nan"))
			return false;
	return true;
}

/* msprobe's set_summary and parse_statistic_str: the four cells of a side, at cells[0..3]. */
static void stat_cells(struct consist_table *t, const struct side *s, const char **cells, bool *is_float)
{
	struct stat_value *v;
	struct strbuf sb = STRBUF_INIT;
	if (!s->n) {
		for (int k = 0; k < 4; k++)
			cells[k] = "N/A";
		return;
	}
	v = arena_alloc(&t->arena, s->n * 4 * sizeof(*v));
	for (size_t i = 0; i < s->n; i++)
		for (int k = 0; k < 4; k++)
			v[i * 4 + k] = stat_value(t, s->ms[i].stat[k]);
	if (s->n == 1) {
		for (int k = 0; k < 4; k++) {
			is_float[k] = v[k].is_float && !isnan(v[k].f);
			cells[k] = isnan(v[k].f) && v[k].is_float ? "Nan" : v[k].text;
		}
		return;
	}
	for (size_t i = 0; i < s->n; i++)
		if (all_nan(&v[i * 4])) {
			for (int k = 0; k < 4; k++)
				cells[k] = "Nan";
			return;
		}
	for (int k = 0; k < 2; k++) {
		bool any = false;
		double best = 0;
		for (size_t i = 0; i < s->n; i++) {
			const struct stat_value *x = &v[i * 4 + k];
			if (!x->is_float)
				continue;
			/* Python's max()/min(): a NaN first stays, a NaN later never wins */
			if (!any || (k == 0 ? x->f > best : x->f < best))
				best = x->f;
			any = true;
		}
		if (any) {
			strbuf_reset(&sb);
			pyfmt_double(&sb, best);
			cells[k] = isnan(best) ? "Nan" : text(t, &sb);
			is_float[k] = !isnan(best);
		} else {
			cells[k] = "None";
		}
	}
	for (int k = 2; k < 4; k++) {
		strbuf_reset(&sb);
		for (size_t i = 0; i < s->n; i++) {
			if (i)
				strbuf_addch(&sb, ';');
			strbuf_addstr(&sb, v[i * 4 + k].text);
		}
		cells[k] = text(t, &sb);
	}
	strbuf_release(&sb);
}

static const char *req_grad_cell(const struct side *s)
{
	return s->n && s->ms[0].req_grad ? s->ms[0].req_grad : "N/A";
}

static const char *data_name_cell(struct consist_table *t, const struct row *r)
{
	struct strbuf sb = STRBUF_INIT;
	const char *tn = joined(t, &r->t, ";", get_data_name), *gn = joined(t, &r->g, ";", get_data_name), *res;
	strbuf_addch(&sb, '[');
	pyval_repr_string(&sb, tn, strlen(tn));
	strbuf_addstr(&sb, ", ");
	pyval_repr_string(&sb, gn, strlen(gn));
	strbuf_addch(&sb, ']');
	res = text(t, &sb);
	strbuf_release(&sb);
	return res;
}

/* ---- the stack column ------------------------------------------------------------ */

static void look_for_stacks(struct consist_table *t)
{
	struct strbuf dump = STRBUF_INIT, path = STRBUF_INIT, err = STRBUF_INIT;
	stack_map_free(t->stacks);
	t->stacks = NULL;
	for (size_t i = t->from; i < t->to && !dump.len; i++)
		if (t->rows[i].t.n)
			leafrec_str(&t->rows[i].t.leaf[0], LF_DUMP, &dump);
	if (dump.len && strcmp(dump.buf, "-") && !t->opts.no_stack) {
		const char *slash = strrchr(dump.buf, '/');
		if (slash)
			strbuf_add(&path, dump.buf, (size_t)(slash - dump.buf) + 1);
		strbuf_addstr(&path, "stack.json");
		if (!access(path.buf, R_OK) && !(t->stacks = stack_map_load(path.buf, &err)))
			warning("%s; NPU_Stack_Info left out", err.buf);
	}
	strbuf_release(&dump);
	strbuf_release(&path);
	strbuf_release(&err);
}

/* The rows whose first training leaf is the first row of its entry: the lowest seq of the entry's leaves. */
static void stack_cells(struct consist_table *t)
{
	struct strmap first = STRMAP_INIT;
	struct strbuf e = STRBUF_INIT;
	for (size_t i = t->from; i < t->to; i++)
		for (size_t j = 0; j < t->rows[i].t.n; j++) {
			const struct leafrec *l = &t->rows[i].t.leaf[j];
			bool created;
			leafrec_str(l, LF_ENTRY, &e);
			struct strmap_slot *s = strmap_put(&first, e.buf, e.len, &created);
			if (created || (uint64_t)l->seq < s->value.u)
				s->value.u = (uint64_t)l->seq;
		}
	for (size_t i = t->from; i < t->to; i++) {
		struct row *r = &t->rows[i];
		r->cells[C_STACK] = "N/A";
		if (!r->t.n || !t->stacks)
			continue;
		leafrec_str(&r->t.leaf[0], LF_ENTRY, &e);
		struct strmap_slot *s = strmap_find(&first, e.buf, e.len);
		const struct stack *st = stack_map_get(t->stacks, e.buf, e.len);
		size_t len;
		if (s && s->value.u == (uint64_t)r->t.leaf[0].seq && st)
			r->cells[C_STACK] = stack_repr(t->stacks, st, &len);
	}
	strmap_release(&first);
	strbuf_release(&e);
}

/* ---- the tensors ------------------------------------------------------------------- */

static const char *leaf_path(struct consist_table *t, const struct leafrec *l, const char **name)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = NULL;
	*name = NULL;
	if (l->f[LF_DATA].kind == SPAN_STRING) {
		leafrec_str(l, LF_DATA, &sb);
		p = text(t, &sb);
		if (l->f[LF_DATA_NAME].kind == SPAN_STRING) {
			strbuf_reset(&sb);
			leafrec_str(l, LF_DATA_NAME, &sb);
			*name = text(t, &sb);
		}
	}
	strbuf_release(&sb);
	return p;
}

/* np.squeeze: the dims that are not 1, in place (a view of the same elements). */
static void squeeze_view(struct tensor *v)
{
	int n = 0;
	for (int i = 0; i < v->ndim; i++)
		if (v->shape[i] != 1) {
			v->shape[n] = v->shape[i];
			v->stride[n] = v->stride[i];
			n++;
		}
	v->ndim = n;
}

/* A float32 tensor of its own: data in owned, row-major. */
static void own_f32(struct tensor *out, const int64_t *shape, int ndim, float *data)
{
	memset(out, 0, sizeof(*out));
	out->dtype = DT_FLOAT32;
	out->ndim = ndim;
	out->numel = 1;
	for (int i = ndim - 1; i >= 0; i--) {
		out->shape[i] = shape[i];
		out->stride[i] = out->numel;
		out->numel *= shape[i];
	}
	out->data = (unsigned char *)data;
	out->owned = (unsigned char *)data;
	out->contiguous = true;
	out->fd = -1;
	out->path = xstrdup("(joined tensors)");
}

/*
 * np.concatenate of the squeezed tensors on axis, as float32: 0, or -1 with
 * why (the tensors do not fit together, as numpy would refuse them).
 */
static int concatenate(struct tensor *parts, size_t n, int axis, struct tensor *out, const char **why)
{
	int64_t shape[TENSOR_MAX_DIMS], outer = 1, total;
	int nd = parts[0].ndim;
	float *data;
	if (nd <= axis) {
		*why = "the joined tensors have no such axis after squeeze";
		return -1;
	}
	memcpy(shape, parts[0].shape, sizeof(shape));
	shape[axis] = 0;
	for (size_t i = 0; i < n; i++) {
		if (parts[i].ndim != nd) {
			*why = "the joined tensors differ in rank after squeeze";
			return -1;
		}
		for (int d = 0; d < nd; d++)
			if (d != axis && parts[i].shape[d] != parts[0].shape[d]) {
				*why = "the joined tensors differ beside the axis of the join";
				return -1;
			}
		shape[axis] += parts[i].shape[axis];
	}
	for (int d = 0; d < axis; d++)
		outer *= shape[d];
	total = outer;
	for (int d = axis; d < nd; d++)
		total *= shape[d];
	data = xcalloc((size_t)total + 1, sizeof(float));
	for (int64_t o = 0, at = 0; o < outer; o++)
		for (size_t i = 0; i < n; i++) {
			int64_t block = parts[i].numel / (outer ? outer : 1);
			float *tmp = data + at;
			tensor_read_f32(&parts[i], o * block, block, tmp);
			at += block;
		}
	own_f32(out, shape, nd, data);
	return 0;
}

/* The side's tensor for the metrics: the one file, or msprobe's join of several. */
static int side_tensor(struct consist_table *t, const struct side *s, const char *joined_names, bool joins,
		       struct tensor *out, struct strbuf *err)
{
	struct tensor *parts;
	const char *why = NULL;
	const char *name, *path;
	size_t n = joins ? s->n : 1;
	int axis, ret = 0;

	if (!joins && s->n > 1) {
		strbuf_addstr(err, "several tensors msprobe does not join (it cannot read their joined name)");
		return -1;
	}
	if (joins && strstr(joined_names, ".input."))
		n = 1; /* msprobe: the first of the joined inputs */
	parts = xcalloc(n, sizeof(*parts));
	for (size_t i = 0; i < n && !ret; i++) {
		if (!(path = leaf_path(t, &s->leaf[i], &name))) {
			strbuf_addstr(err, "no tensor file");
			ret = -1;
		} else if (tensor_open_leaf(&parts[i], path, name, err) < 0) {
			ret = -1;
		}
	}
	if (!ret && n == 1) {
		*out = parts[0];
		free(parts);
		return 0;
	}
	if (!ret) {
		axis = strstr(joined_names, ".parameters.") ? 0 : 1;
		for (size_t i = 0; i < n; i++)
			squeeze_view(&parts[i]);
		if (concatenate(parts, n, axis, out, &why) < 0) {
			strbuf_addstr(err, why);
			ret = -1;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (parts[i].path)
			tensor_close(&parts[i]);
	free(parts);
	return ret;
}

/* msprobe's need_cat: fsdp joins training tensors named .q_proj. or .gate_proj., megatron inference ones .gate_up_proj. */
static bool needs_join(enum consist_backend b, bool training, const char *names)
{
	if (b == CONSIST_FSDP)
		return training && (strstr(names, ".q_proj.") || strstr(names, ".gate_proj."));
	return !training && strstr(names, ".gate_up_proj.");
}

/* A float32 copy of a tensor (for comparing values with a joined one), squeezed. */
static void as_f32(const struct tensor *src, struct tensor *out)
{
	float *data = xcalloc((size_t)src->numel + 1, sizeof(float));
	tensor_read_f32(src, 0, src->numel, data);
	own_f32(out, src->shape, src->ndim, data);
}

static void compare_tensors(struct consist_table *t, struct row *r)
{
	struct strbuf err = STRBUF_INIT;
	struct tensor tt, tg;
	const char *tn = joined(t, &r->t, ";", get_data_name), *gn = joined(t, &r->g, ";", get_data_name);
	bool tj = needs_join(t->backend, true, tn), gj = needs_join(t->backend, false, gn);
	struct tm_band band = { t->opts.rtol, t->opts.atol, 0 };

	tmetric_unsupported(&r->tm, "");
	if (side_tensor(t, &r->t, tn, tj, &tt, &err) < 0) {
		r->problem = text(t, &err);
		strbuf_release(&err);
		return;
	}
	if (side_tensor(t, &r->g, gn, gj, &tg, &err) < 0) {
		r->problem = text(t, &err);
		tensor_close(&tt);
		strbuf_release(&err);
		return;
	}
	struct tensor vt = tt, vg = tg, ct = { 0 }, cg = { 0 };
	squeeze_view(&vt);
	squeeze_view(&vg);
	/* a joined side is float32: the other one too, so that equal values are equal bytes */
	if (vt.dtype != vg.dtype && (tj || gj)) {
		if (vt.dtype != DT_FLOAT32) {
			as_f32(&vt, &ct);
			vt = ct;
		}
		if (vg.dtype != DT_FLOAT32) {
			as_f32(&vg, &cg);
			vg = cg;
		}
	}
	if (tmetric_compare_files(&vt, &vg, &band, &r->tm, &err) < 0)
		r->problem = text(t, &err);
	else
		r->tm_done = true;
	if (ct.path)
		tensor_close(&ct);
	if (cg.path)
		tensor_close(&cg);
	tensor_close(&tt);
	tensor_close(&tg);
	strbuf_release(&err);
}

static bool has_file(const struct side *s)
{
	return s->n && s->leaf[0].f[LF_DATA].kind == SPAN_STRING;
}

static void metric_cells(struct consist_table *t, struct row *r)
{
	if (r->t.n && r->g.n && has_file(&r->t) && has_file(&r->g))
		compare_tensors(t, r);
	else
		tmetric_unsupported(&r->tm, "");
	for (int k = 0; k < TM_NCELLS; k++)
		r->cells[C_COSINE + k] = r->tm.cell[k];
}

/* A statistic cell as the value msprobe's calc_summary_diff sees: a float, or a text ("Nan", "None", "a;b"). */
static void cell_value(const char *cell, bool is_float, struct pyval *v)
{
	memset(v, 0, sizeof(*v));
	if (is_float) {
		pyval_set_float(v, pyfmt_strtod(cell, NULL));
		return;
	}
	v->kind = PY_STR;
	v->text = cell;
	v->len = strlen(cell);
}

/* Statistics mode: msprobe's "<stat> diff" and "<Stat>RelativeErr" cells of the row. */
static void diff_cells(struct consist_table *t, struct row *r)
{
	for (int k = 0; k < 4; k++) {
		struct pyval n, b;
		cell_value(r->cells[C_NPU_MAX + k], r->stat_float[k], &n);
		cell_value(r->cells[C_BENCH_MAX + k], r->stat_float[4 + k], &b);
		ms_stat_diff(&n, &b, false, &t->arena, &r->cells[C_MAX_DIFF + k], &r->cells[C_MAX_RELERR + k]);
	}
}

/* ---- msprobe's checkers (VERL_TENSOR_CHECKERS; STATISTICS_CHECKERS in statistics mode) ---- */

static void flag(struct row *r, enum level l, const char *msg)
{
	if (l > r->result)
		r->result = l;
	if (r->nmsgs < MAX_MSGS)
		r->msgs[r->nmsgs++] = msg;
}

static bool inf_or_nan_text(const char *s)
{
	while (*s == ' ')
		s++;
	return !strcasecmp(s, "inf") || !strcasecmp(s, "-inf") || !strcasecmp(s, "nan");
}

/* A metric cell as get_min_or_max_value reads it: a number, or skipped (false). */
static bool metric_number(const char *s, double *out)
{
	char *end;
	double v;
	if (!strcmp(s, "Nan") || !strcmp(s, "N/A") || !*s)
		return false;
	v = pyfmt_strtod(s, &end);
	if (*end || end == s || isnan(v))
		return false;
	*out = v;
	return true;
}

static double min_of(struct row **rows, size_t n, int col)
{
	double m = 1.0, v;
	for (size_t i = 0; i < n; i++)
		if (metric_number(rows[i]->cells[col], &v) && v < m)
			m = v;
	return m;
}

static bool unmatched_cell(const char *s)
{
	return !*s || !strcmp(s, "N/A");
}

/* msprobe's squeeze_shape_str, and megatron's merge of the last two of three dims. */
static void squeezed_shape(const char *s, struct strbuf *out)
{
	size_t len = strlen(s);
	const char *b = s, *e = s + len;
	bool first = true;
	while (b < e && (*b == '[' || *b == ']'))
		b++;
	while (e > b && (e[-1] == '[' || e[-1] == ']'))
		e--;
	strbuf_reset(out);
	strbuf_addch(out, '[');
	for (const char *p = b; p <= e;) {
		const char *c = memchr(p, ',', (size_t)(e - p));
		const char *q = c ? c : e, *x = p, *y = q;
		while (x < y && isspace((unsigned char)*x))
			x++;
		while (y > x && isspace((unsigned char)y[-1]))
			y--;
		if (!(y - x == 1 && *x == '1')) {
			if (!first)
				strbuf_addch(out, ',');
			strbuf_add(out, x, (size_t)(y - x));
			first = false;
		}
		if (!c)
			break;
		p = c + 1;
	}
	strbuf_addch(out, ']');
}

static size_t shape_parts(const char *s)
{
	size_t n = 1;
	for (; *s; s++)
		n += *s == ',';
	return n;
}

static void merge_last_two(struct strbuf *sb)
{
	long long d[3];
	if (sscanf(sb->buf, "[%lld,%lld,%lld]", &d[0], &d[1], &d[2]) != 3)
		return; /* msprobe's int() would fail here and stop the compare */
	strbuf_reset(sb);
	strbuf_addf(sb, "[%lld,%lld]", d[0], d[1] * d[2]);
}

static bool fused_bench(const char *bench)
{
	return strstr(bench, "qkv") || strstr(bench, "gate_up");
}

static const char msg_infnan[] = "error: There is nan/inf/-inf in the maximum or minimum value of NPU.";
static const char msg_one[] = "error: The input/parameters of One Thousandth Err Ratio > 0.9 while the output < 0.6.";
static const char msg_param[] = "error: The scalar parameters of NPU and Bench are inconsistent.";
static const char msg_dtype[] = "error: The dtype of NPU and Bench are inconsistent.";
static const char msg_shape[] = "error: The shape of NPU and Bench are inconsistent.";
static const char msg_cos[] = "warning: The input/parameters of Cosine > 0.9, and input/parameters - output > 0.1";
static const char msg_relerr[] = "error: The NormRelativeErr of output is greater than 0.5.";
static const char msg_reqgrad[] = "error: The Required_Grad of NPU and Bench are inconsistent";
static const char msg_relwarn[] = "warning: The norm relative error of output is 10 times that of input.";

/* ApiData.get_min_or_max_value(NormRelativeErr, is_min=False): texts ending in '%' only. */
static double norm_rel_max(struct row **rows, size_t n)
{
	double m = 0.0;
	for (size_t i = 0; i < n; i++) {
		const char *v = rows[i]->cells[C_NORM_RELERR];
		size_t len = strlen(v);
		if (!strcmp(v, "Nan") || !strcmp(v, "N/A") || !len || v[len - 1] != '%')
			continue;
		double x = ms_str2float(v);
		if (x > m) /* Python max(): a NaN never replaces the current value */
			m = x;
	}
	return m;
}

/*
 * The checkers statistics mode adds to the shared ones: RelativeErrChecker,
 * RequiresGradErrChecker, the plain ShapeErrChecker (shapes as dumped, not
 * squeezed) and RelativeWarnChecker.  Which one runs where: check_group.
 */
static void check_relative_err(struct row **in, size_t nin, struct row **out, size_t nout)
{
	if (fabs(norm_rel_max(in, nin)) >= 0.1)
		return;
	for (size_t i = 0; i < nout; i++)
		if (fabs(ms_str2float(out[i]->cells[C_NORM_RELERR])) > 0.5)
			flag(out[i], L_ERROR, msg_relerr);
}

static void check_requires_grad(struct row **all, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!unmatched_cell(all[i]->cells[C_BENCH_NAME]) && strcmp(all[i]->cells[C_NPU_RG], all[i]->cells[C_BENCH_RG]))
			flag(all[i], L_ERROR, msg_reqgrad);
}

static void check_plain_shape(struct row **all, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!unmatched_cell(all[i]->cells[C_BENCH_NAME]) && strcmp(all[i]->cells[C_NPU_SHAPE], all[i]->cells[C_BENCH_SHAPE]))
			flag(all[i], L_ERROR, msg_shape);
}

static void check_relative_warn(struct row **in, size_t nin, struct row **out, size_t nout)
{
	double a = fabs(norm_rel_max(in, nin)), b = fabs(norm_rel_max(out, nout));
	if ((a == 0 && b > 0.1) || (a != 0 && b / a > 10))
		flag(out[0], L_WARNING, msg_relwarn);
}

static void check_group(enum consist_backend b, bool statistics, struct row **in, size_t nin, struct row **out,
			size_t nout)
{
	struct strbuf ts = STRBUF_INIT, gs = STRBUF_INIT;
	struct row **all = xcalloc(nin + nout + 1, sizeof(*all));
	size_t n = 0;
	const char *api = nin ? in[0]->cells[C_NPU_NAME] : NULL, *dot;
	bool ignore_all = false, ignore_input = false;

	if (api && (dot = strchr(api, '.'))) {
		static const char *const all_set[] = { "empty", "empty_like", "numpy", "to", "__setitem__",
						       "empty_with_format", "new_empty_strided", "new_empty", "empty_strided" };
		static const char *const input_set[] = { "_reduce_scatter_base", "_all_gather_base", "all_to_all_single",
							 "batch_isend_irecv" };
		const char *e = strchr(dot + 1, '.');
		size_t len = e ? (size_t)(e - dot - 1) : strlen(dot + 1);
		for (size_t i = 0; i < ARRAY_SIZE(all_set); i++)
			ignore_all |= strlen(all_set[i]) == len && !memcmp(all_set[i], dot + 1, len);
		for (size_t i = 0; i < ARRAY_SIZE(input_set); i++)
			ignore_input |= strlen(input_set[i]) == len && !memcmp(input_set[i], dot + 1, len);
	}
	if (!ignore_all) {
		if (!ignore_input)
			for (size_t i = 0; i < nin; i++)
				all[n++] = in[i];
		for (size_t i = 0; i < nout; i++)
			all[n++] = out[i];
	}
	/* InfNanErrChecker */
	for (size_t i = 0; i < n; i++) {
		struct row *r = all[i];
		if (inf_or_nan_text(r->cells[C_BENCH_MAX]) || inf_or_nan_text(r->cells[C_BENCH_MIN]))
			continue;
		if (inf_or_nan_text(r->cells[C_NPU_MAX]) || inf_or_nan_text(r->cells[C_NPU_MIN]))
			flag(r, L_ERROR, msg_infnan);
	}
	if (statistics) {
		if (!ignore_all && !ignore_input)
			check_relative_err(in, nin, out, nout);
		check_requires_grad(all, n);
	} else if (!ignore_all && !ignore_input && nout && min_of(in, nin, C_ONE) > 0.9 &&
		   min_of(out, nout, C_ONE) < 0.1) {
		flag(out[0], L_ERROR, msg_one); /* OneThousandthErrChecker */
	}
	/* ParametersErrChecker */
	for (size_t i = 0; !ignore_all && !ignore_input && i < nin; i++) {
		struct row *r = in[i];
		if (unmatched_cell(r->cells[C_BENCH_NAME]) || !strstr(r->cells[C_NPU_DTYPE], "class") ||
		    !strstr(r->cells[C_BENCH_DTYPE], "class") || strcmp(r->cells[C_NPU_SHAPE], "[]"))
			continue;
		if (strcmp(r->cells[C_NPU_MAX], r->cells[C_BENCH_MAX]))
			flag(r, L_ERROR, msg_param);
	}
	/* DTypeErrChecker */
	for (size_t i = 0; i < n; i++) {
		struct row *r = all[i];
		if (unmatched_cell(r->cells[C_BENCH_NAME]) || !strcmp(r->cells[C_NPU_NAME], "N/A") ||
		    fused_bench(r->cells[C_BENCH_NAME]) || !*r->cells[C_NPU_DTYPE] || !*r->cells[C_BENCH_DTYPE])
			continue;
		if (strcmp(r->cells[C_NPU_DTYPE], r->cells[C_BENCH_DTYPE]))
			flag(r, L_ERROR, msg_dtype);
	}
	if (statistics) {
		check_plain_shape(all, n);
		if (!ignore_all && !ignore_input && nout)
			check_relative_warn(in, nin, out, nout);
		free(all);
		return; /* ts and gs are not used in this mode */
	}
	/* VerlShapeErrChecker */
	for (size_t i = 0; i < n; i++) {
		struct row *r = all[i];
		if (!strcmp(r->cells[C_NPU_NAME], "N/A") || !strcmp(r->cells[C_BENCH_NAME], "N/A"))
			continue;
		if (b == CONSIST_FSDP && fused_bench(r->cells[C_BENCH_NAME]))
			continue;
		squeezed_shape(r->cells[C_NPU_SHAPE], &ts);
		squeezed_shape(r->cells[C_BENCH_SHAPE], &gs);
		if (b == CONSIST_MEGATRON && shape_parts(ts.buf) == 3 && shape_parts(ts.buf) != shape_parts(gs.buf))
			merge_last_two(&ts);
		if (strcmp(ts.buf, gs.buf))
			flag(r, L_ERROR, msg_shape);
	}
	/* CosineWarnChecker */
	if (!ignore_all && !ignore_input && nout) {
		double ci = min_of(in, nin, C_COSINE), co = min_of(out, nout, C_COSINE);
		if (ci > 0.9 && ci - co > 0.1)
			flag(out[0], L_WARNING, msg_cos);
	}
	free(all);
	strbuf_release(&ts);
	strbuf_release(&gs);
}

static void entry_text(const struct side *s, struct strbuf *out)
{
	strbuf_reset(out);
	if (s->n)
		leafrec_str(&s->leaf[0], LF_ENTRY, out);
	else
		strbuf_addstr(out, "N/A");
}

/*
 * msprobe's fill_state_api_origin_name and divide_result_df: a row's group
 * is its training entry; an inference-only row takes the training entry
 * its inference entry was last matched with, else its own entry.
 */
struct group {
	struct row **in, **out;
	size_t nin, nout, ain, aout;
};

static void judge_groups(struct consist_table *t)
{
	struct strmap borrowed = STRMAP_INIT, groups = STRMAP_INIT;
	struct strbuf te = STRBUF_INIT, ge = STRBUF_INIT;
	struct group *gv = NULL;
	size_t ngroups = 0, galloc = 0;
	bool created;

	for (size_t i = t->from; i < t->to; i++) {
		struct row *r = &t->rows[i];
		if (!r->t.n || !r->g.n)
			continue;
		entry_text(&r->t, &te);
		entry_text(&r->g, &ge);
		struct strmap_slot *s = strmap_put(&borrowed, ge.buf, ge.len, &created);
		s->value.p = (void *)text(t, &te);
	}
	for (size_t i = t->from; i < t->to; i++) {
		struct row *r = &t->rows[i];
		if (r->t.n) {
			entry_text(&r->t, &te);
			r->api = text(t, &te);
		} else {
			entry_text(&r->g, &ge);
			struct strmap_slot *s = strmap_find(&borrowed, ge.buf, ge.len);
			r->api = s ? s->value.p : text(t, &ge);
		}
		struct strmap_slot *g = strmap_put(&groups, r->api, strlen(r->api), &created);
		if (created) {
			ALLOC_GROW(gv, ngroups + 1, galloc);
			memset(&gv[ngroups], 0, sizeof(gv[ngroups]));
			g->value.u = ngroups++;
		}
		if (!gv)
			continue; /* not reached: a group is made before its first row */
		struct group *grp = &gv[g->value.u];
		if (strstr(r->cells[C_NPU_NAME], ".output.")) {
			ALLOC_GROW(grp->out, grp->nout + 1, grp->aout);
			grp->out[grp->nout++] = r;
		} else {
			ALLOC_GROW(grp->in, grp->nin + 1, grp->ain);
			grp->in[grp->nin++] = r;
		}
	}
	for (size_t k = 0; k < ngroups; k++) {
		check_group(t->backend, t->statistics, gv[k].in, gv[k].nin, gv[k].out, gv[k].nout);
		free(gv[k].in);
		free(gv[k].out);
	}
	for (size_t i = t->from; i < t->to; i++) {
		struct row *r = &t->rows[i];
		struct strbuf sb = STRBUF_INIT;
		r->cells[C_RESULT] = level_name[r->result];
		strbuf_addch(&sb, '[');
		for (int m = 0; m < r->nmsgs; m++) {
			if (m)
				strbuf_addstr(&sb, ", ");
			jsonw_str(&sb, r->msgs[m]);
		}
		strbuf_addch(&sb, ']');
		r->cells[C_ERR] = text(t, &sb);
		strbuf_release(&sb);
	}
	free(gv);
	strmap_release(&borrowed);
	strmap_release(&groups);
	strbuf_release(&te);
	strbuf_release(&ge);
}

/* ---- our verdict ----------------------------------------------------------------- */

/* The class of an entry: the name part before forward/backward ("Qwen2RMSNorm"). */
static void class_of(const struct side *s, struct strbuf *out)
{
	struct strbuf e = STRBUF_INIT;
	char *p;
	strbuf_reset(out);
	if (!s->n)
		return;
	leafrec_str(&s->leaf[0], LF_ENTRY, &e);
	for (int k = 0; k < 2 && (p = strrchr(e.buf, '.')); k++)
		*p = '\0';
	p = strrchr(e.buf, '.');
	strbuf_addstr(out, p ? p + 1 : e.buf);
	strbuf_release(&e);
}

static bool ends_with(const char *s, const char *w)
{
	size_t n = strlen(s), m = strlen(w);
	return n >= m && !strcmp(s + n - m, w);
}

/* The inference entries that take a residual beside their input (vLLM's fused add and norm). */
static void residual_entries(struct consist_table *t, struct strmap *out)
{
	struct strbuf e = STRBUF_INIT;
	bool created;
	for (size_t i = t->from; i < t->to; i++)
		for (size_t j = 0; j < t->rows[i].g.n; j++) {
			const struct msleaf *m = &t->rows[i].g.ms[j];
			if (!ends_with(m->name, ".input.1"))
				continue;
			leafrec_str(&t->rows[i].g.leaf[j], LF_ENTRY, &e);
			if (strstr(e.buf, "Norm"))
				strmap_put(out, e.buf, e.len, &created);
		}
	strbuf_release(&e);
}

/*
 * What the two frameworks compute differently, not a divergence: tensors
 * of other shapes after squeeze; a training module that is an identity
 * where the inference side normalises (Megatron fuses the norm into the
 * next linear); vLLM's SiluAndMul (the product with the up projection)
 * against a plain SiLU; the input of a TransformerEngine linear that
 * normalises it itself, and of a Megatron MLP or attention whose norm is an
 * identity (the training input is before the norm); vLLM's decoder layer, whose input is the positions
 * and whose output is the residual branch before the add; the first input
 * of a vLLM norm that also takes the residual (the sum happens inside it).
 */
static const char *structural_reason(struct consist_table *t, const struct row *r, const struct strmap *fused)
{
	struct strbuf tc = STRBUF_INIT, gc = STRBUF_INIT, ts = STRBUF_INIT, gs = STRBUF_INIT, ge = STRBUF_INIT;
	const char *why = NULL, *gname = r->g.ms[0].name;
	bool is_output = strstr(gname, ".output.") != NULL;
	class_of(&r->t, &tc);
	class_of(&r->g, &gc);
	squeezed_shape(r->cells[C_NPU_SHAPE], &ts);
	squeezed_shape(r->cells[C_BENCH_SHAPE], &gs);
	leafrec_str(&r->g.leaf[0], LF_ENTRY, &ge);
	if ((r->tm_done && !strcmp(r->tm.cell[TM_COSINE], "shape unmatched")) ||
	    (!strchr(r->cells[C_NPU_SHAPE], ';') && !strchr(r->cells[C_BENCH_SHAPE], ';') && strcmp(ts.buf, gs.buf)))
		why = "other shapes after squeeze: the two sides hold different tensors here";
	else if (!strncmp(tc.buf, "Identity", 8) && strncmp(gc.buf, "Identity", 8))
		why = "the training module is an identity (its work is fused into the next module), the inference one is not";
	else if (!strncmp(tc.buf, "TELayerNorm", 11) && !is_output && !strstr(gname, ".parameters."))
		why = "TransformerEngine's linear normalises its input itself: the training input is before the norm, "
		      "the inference one after it";
	else if (t->backend == CONSIST_MEGATRON && (!strcmp(tc.buf, "MLP") || !strcmp(tc.buf, "SelfAttention")) &&
		 !is_output)
		why = "Megatron's norm before this module is an identity (fused into its first linear): the training "
		      "input is before the norm, the inference one after it";
	else if (!strcmp(gc.buf, "SiluAndMul") && strcmp(tc.buf, "SiluAndMul"))
		why = "vLLM's SiluAndMul multiplies by the up projection, the training side's activation does not";
	else if (ends_with(gc.buf, "DecoderLayer") &&
		 (strstr(gname, ".input.") || strstr(gname, ".kwargs.") || strstr(gname, ".output.")))
		why = "vLLM's decoder layer takes the positions and returns the residual branch before the add: its "
		      "inputs and outputs mean other things than the training layer's";
	else if (strmap_find(fused, ge.buf, ge.len) && ends_with(gname, ".input.0"))
		why = "vLLM adds the residual inside this norm: its first input is the branch before the add";
	strbuf_release(&tc);
	strbuf_release(&gc);
	strbuf_release(&ts);
	strbuf_release(&gs);
	strbuf_release(&ge);
	return why;
}

/*
 * The statistics of a joined side as one tensor: the first leaf for an
 * input (msprobe compares the first of q, k and v's shared input), else the
 * concatenation of the parts (max of the maxima, min of the minima, the mean
 * weighted by element counts, the norm from the squared norms).  False when
 * a part has no numeric statistics or no shape.
 */
struct joined_stats {
	double v[4];       /* max, min, mean, norm */
	double mean_scale; /* the mean of the parts' |mean|: what a mean's rounding is relative to */
	bool exact;        /* one tensor's own statistics (not derived) */
};

static bool leaf_numel(const struct msleaf *m, double *out)
{
	const char *p = m->shape;
	double n = 1;
	if (*p++ != '[')
		return false;
	while (*p && *p != ']') {
		char *end;
		long d = strtol(p, &end, 10);
		if (end == p || d < 0)
			return false;
		n *= (double)d;
		p = end;
		while (*p == ',' || *p == ' ')
			p++;
	}
	*out = n;
	return *p == ']';
}

static bool part_stat(const struct msleaf *m, int k, double *out)
{
	const struct pyval *v = m->stat[k];
	if (!v || (v->kind != PY_INT && v->kind != PY_FLOAT))
		return false;
	*out = pyval_float(v);
	return true;
}

static bool joined_stats(const struct side *s, bool first_only, struct joined_stats *js)
{
	double numel = 0, sum = 0, scale = 0, sumsq = 0;
	size_t n = first_only ? 1 : s->n;
	js->exact = n == 1;
	for (size_t i = 0; i < n; i++) {
		double x[4], cnt;
		for (int k = 0; k < 4; k++)
			if (!part_stat(&s->ms[i], k, &x[k]))
				return false;
		if (!leaf_numel(&s->ms[i], &cnt))
			return false;
		if (!i || x[0] > js->v[0])
			js->v[0] = x[0];
		if (!i || x[1] < js->v[1])
			js->v[1] = x[1];
		numel += cnt;
		sum += x[2] * cnt;
		scale += fabs(x[2]) * cnt;
		sumsq += x[3] * x[3];
		if (js->exact)
			js->v[2] = x[2], js->v[3] = x[3];
	}
	if (!js->exact) {
		js->v[2] = numel ? sum / numel : 0;
		js->v[3] = sqrt(sumsq);
	}
	js->mean_scale = numel ? scale / numel : 0;
	return true;
}

/* How far a statistic may move by its dtype's rounding: a few units in its last place. */
static double rounding_of(const char *dtype)
{
	if (strstr(dtype, "bfloat16"))
		return 0x1p-7;
	if (strstr(dtype, "float16"))
		return 0x1p-10;
	return 0x1p-20;
}

/*
 * Statistics mode, a joined row (q, k and v against qkv_proj): the sides'
 * statistics as of one tensor each.  Max and min are exact; a derived mean or
 * norm is the parts' rounded statistics recombined, so it is held to the
 * rounding of the dtype, and the reason says so.
 */
static void judge_joined_stats(struct row *r)
{
	const char *name = r->g.ms[0].name;
	bool first_only = strstr(name, ".input.") || strstr(name, ".kwargs.");
	struct joined_stats a, b;
	static const char *const what[] = { "max", "min", "mean", "norm" };
	if (!joined_stats(&r->t, first_only, &a) || !joined_stats(&r->g, first_only, &b)) {
		r->our = OUR_UNREADABLE;
		strbuf_addstr(&r->reason, "a joined leaf has no numeric statistics or shape: nothing to compare");
		return;
	}
	double eps = rounding_of(r->t.ms[0].dtype);
	for (int k = 0; k < 4; k++) {
		double tol = k < 2 || (a.exact && b.exact) ? 0
			     : k == 2 ? eps * (a.mean_scale + b.mean_scale)
				      : eps * (fabs(a.v[3]) + fabs(b.v[3]));
		if (!(fabs(a.v[k] - b.v[k]) <= tol)) {
			r->our = OUR_DIFF;
			strbuf_addf(&r->reason, "%s of the joined leaves: training %.17g, inference %.17g", what[k], a.v[k],
				    b.v[k]);
			return;
		}
	}
	r->our = OUR_SAME;
	if (!a.exact || !b.exact)
		strbuf_addstr(&r->reason, "the joined leaves' statistics recombined: max and min equal, mean and norm "
					  "within the rounding of the dtype");
}

static void judge_ours(struct consist_table *t, struct row *r, const struct strmap *fused)
{
	const char *why;
	if (!r->g.n) {
		r->our = OUR_UNMATCHED;
		strbuf_addstr(&r->reason, "no inference leaf has this training leaf's key");
		return;
	}
	if (!r->t.n) {
		r->our = OUR_GOLDEN_ONLY;
		strbuf_addstr(&r->reason, "no training leaf has this inference leaf's key");
		return;
	}
	if ((why = structural_reason(t, r, fused))) {
		r->our = OUR_STRUCTURAL;
		strbuf_addstr(&r->reason, why);
		return;
	}
	if (!mscell_dtype_gate(r->cells[C_NPU_DTYPE], r->cells[C_BENCH_DTYPE], false) &&
	    !strchr(r->cells[C_NPU_DTYPE], ';') && !strchr(r->cells[C_BENCH_DTYPE], ';')) {
		r->our = OUR_DIFF;
		strbuf_addf(&r->reason, "dtype: training %s, inference %s", r->cells[C_NPU_DTYPE], r->cells[C_BENCH_DTYPE]);
		return;
	}
	if (!t->statistics && has_file(&r->t) && has_file(&r->g)) {
		if (!r->tm_done) {
			r->our = OUR_UNREADABLE;
			strbuf_addstr(&r->reason, r->problem ? r->problem : "the tensors could not be read");
		} else if (r->tm.same || (r->tm.comparable && !r->tm.nbeyond)) {
			r->our = OUR_SAME;
		} else {
			r->our = OUR_DIFF;
			if (r->tm.comparable)
				strbuf_addf(&r->reason, "%lld of %lld elements differ%s (max abs %g), cosine %s",
					    (long long)r->tm.ndiff, (long long)r->tm.numel,
					    r->tm.nbeyond < r->tm.ndiff ? ", some within the band" : "", r->tm.max_abs,
					    r->tm.cell[TM_COSINE]);
			else
				strbuf_addf(&r->reason, "the tensors differ in dtype: training %s, inference %s",
					    r->cells[C_NPU_DTYPE], r->cells[C_BENCH_DTYPE]);
		}
		return;
	}
	/* no tensor files: the values the dump holds */
	if (r->t.n > 1 || r->g.n > 1) {
		judge_joined_stats(r);
		return;
	}
	for (int k = 0; k < 4; k++)
		if (strcmp(r->cells[C_NPU_MAX + k], r->cells[C_BENCH_MAX + k])) {
			r->our = OUR_DIFF;
			strbuf_addf(&r->reason, "%s: training %s, inference %s", header[C_NPU_MAX + k] + 4,
				    r->cells[C_NPU_MAX + k], r->cells[C_BENCH_MAX + k]);
			return;
		}
	r->our = OUR_SAME;
}

/* ---- the rows ----------------------------------------------------------------------- */

static int fill_row(struct consist_table *t, struct row *r, bool xlsx, struct strbuf *err)
{
	if (side_cells(t, &r->t, err) < 0 || side_cells(t, &r->g, err) < 0)
		return -1;
	r->cells[C_NPU_NAME] = joined(t, &r->t, xlsx ? ";\n" : ";  ", get_name);
	r->cells[C_BENCH_NAME] = joined(t, &r->g, xlsx ? ";\n" : ";  ", get_name);
	r->cells[C_NPU_DTYPE] = joined(t, &r->t, ";", get_dtype);
	r->cells[C_BENCH_DTYPE] = joined(t, &r->g, ";", get_dtype);
	r->cells[C_NPU_SHAPE] = joined(t, &r->t, ";", get_shape);
	r->cells[C_BENCH_SHAPE] = joined(t, &r->g, ";", get_shape);
	r->cells[C_NPU_RG] = req_grad_cell(&r->t);
	r->cells[C_BENCH_RG] = req_grad_cell(&r->g);
	stat_cells(t, &r->t, &r->cells[C_NPU_MAX], &r->stat_float[0]);
	stat_cells(t, &r->g, &r->cells[C_BENCH_MAX], &r->stat_float[4]);
	r->cells[C_RG_SAME] = strcmp(r->cells[C_NPU_RG], r->cells[C_BENCH_RG]) ? "False" : "True";
	r->cells[C_DATA_NAME] = data_name_cell(t, r);
	if (t->statistics)
		diff_cells(t, r);
	else
		metric_cells(t, r);
	return 0;
}

static void count(struct consist_table *t, const struct row *r)
{
	t->st.rows++;
	t->st.pass += r->result == L_PASS;
	t->st.warning += r->result == L_WARNING;
	t->st.error += r->result == L_ERROR;
	t->st.same += r->our == OUR_SAME;
	t->st.diff += r->our == OUR_DIFF;
	t->st.structural += r->our == OUR_STRUCTURAL;
	t->st.unmatched += r->our == OUR_UNMATCHED;
	t->st.golden_only += r->our == OUR_GOLDEN_ONLY;
}

/* The columns of the current table, NPU_Stack_Info only when a stack.json was found. */
static size_t table_cols(const struct consist_table *t, int *cols)
{
	const int *all = t->statistics ? stats_cols : tensor_cols;
	size_t n = t->statistics ? ARRAY_SIZE(stats_cols) : ARRAY_SIZE(tensor_cols), k = 0;
	for (size_t i = 0; i < n; i++)
		if (all[i] != C_STACK || t->stacks)
			cols[k++] = all[i];
	return k;
}

static void csv_cell(struct strbuf *out, const struct row *r, int c, bool first, struct strbuf *scratch)
{
	const char *cell = r->cells[c];
	if (c >= C_NPU_MAX && c <= C_BENCH_NORM && r->stat_float[c - C_NPU_MAX] && isinf(pyfmt_strtod(cell, NULL))) {
		strbuf_reset(scratch);
		strbuf_addf(scratch, " %s", cell); /* msprobe: " inf", so that a spreadsheet reads it */
		cell = scratch->buf;
	}
	mscsv_add_cell(out, cell, first);
}

static void emit_csv(struct consist_table *t, struct strbuf *out)
{
	struct strbuf sb = STRBUF_INIT;
	int cols[C_NCOLS];
	size_t n = table_cols(t, cols);
	for (size_t c = 0; c < n; c++)
		mscsv_add_cell(out, header[cols[c]], c == 0);
	strbuf_addch(out, '\n');
	for (size_t i = t->from; i < t->to; i++) {
		for (size_t c = 0; c < n; c++)
			csv_cell(out, &t->rows[i], cols[c], c == 0, &sb);
		strbuf_addch(out, '\n');
	}
	strbuf_release(&sb);
}

static void emit_ndjson(struct consist_table *t, struct strbuf *out)
{
	int cols[C_NCOLS];
	size_t n = table_cols(t, cols);
	for (size_t i = t->from; i < t->to; i++) {
		const struct row *r = &t->rows[i];
		size_t end = r->len;
		while (end && r->line[end - 1] != '}')
			end--;
		strbuf_add(out, r->line, end ? end - 1 : 0);
		strbuf_addf(out, ",\"msprobe\":{\"mode\":\"%s\",\"result\":", t->statistics ? "statistics" : "tensor");
		jsonw_str(out, r->cells[C_RESULT]);
		strbuf_addstr(out, ",\"err_message\":");
		strbuf_addstr(out, r->cells[C_ERR]);
		for (size_t c = 0; c < n; c++) {
			if (cols[c] == C_RESULT || cols[c] == C_ERR)
				continue;
			strbuf_addch(out, ',');
			jsonw_str(out, header[cols[c]]);
			strbuf_addch(out, ':');
			jsonw_str(out, r->cells[cols[c]]);
		}
		strbuf_addstr(out, "},\"verdict\":");
		jsonw_str(out, our_name[r->our]);
		strbuf_addstr(out, ",\"reason\":");
		jsonw_string(out, r->reason.buf, r->reason.len);
		strbuf_addstr(out, "}\n");
	}
}

/* msprobe refuses to write a cell its formula guard flags: so does this table, with msprobe's message. */
static int refused(const struct consist_table *t, struct strbuf *err)
{
	int cols[C_NCOLS];
	size_t n = table_cols(t, cols);
	const char *kind = t->opts.output == CONSIST_XLSX ? "excel" : "csv";
	for (size_t i = t->from; i < t->to; i++)
		for (size_t c = 0; c < n; c++) {
			const char *cell = t->rows[i].cells[cols[c]];
			if (cols[c] != C_ERR && cols[c] != C_STACK && mscsv_refused(cell)) {
				strbuf_addf(err, "msprobe would write no table: its formula guard refuses the cell %s of "
						 "row %zu (\"Malicious value [%s] not allowed to be written into the %s\")",
					    header[cols[c]], i - t->from + 1, cell, kind);
				return -1;
			}
		}
	return 0;
}

/* ---- the workbook (--xlsx) -------------------------------------------------------------- */

/*
 * A cell as msprobe's workbook holds it: a statistic that is a float is a
 * number (an infinity the text "inf"), a tensor metric that is a float's repr
 * a number, Requires_grad Consistent a boolean, everything else text (the
 * requires_grad cells and the diffs are texts in msprobe's frame, as in its
 * ordinary table).
 */
static struct xlsxw_cell xlsx_cell(const struct row *r, int c)
{
	struct xlsxw_cell x = { .type = XLSXW_TEXT, .text = r->cells[c] };
	double num = 0;
	if (c >= C_NPU_MAX && c <= C_BENCH_NORM && r->stat_float[c - C_NPU_MAX]) {
		num = pyfmt_strtod(r->cells[c], NULL);
		if (isfinite(num))
			x = (struct xlsxw_cell){ .type = XLSXW_NUMBER, .num = num };
	} else if (c >= C_COSINE && c <= C_FIVE) {
		enum ms_cell_type k = ms_metric_cell_type(r->cells[c], &num);
		if (k == MS_CELL_NUMBER)
			x = (struct xlsxw_cell){ .type = XLSXW_NUMBER, .num = num };
		else if (k == MS_CELL_EMPTY)
			x = (struct xlsxw_cell){ .type = XLSXW_EMPTY };
	} else if (c == C_RG_SAME) {
		x.type = strcmp(r->cells[c], "True") ? XLSXW_FALSE : XLSXW_TRUE;
	}
	return x;
}

/* The table as msprobe's save_excel writes it, to a workbook at path. */
static int write_book(struct consist_table *t, const char *path, const char *tmpdir, struct strbuf *err)
{
	struct xlsxw_options xo = { .tmpdir = tmpdir };
	struct xlsxw_cell cells[C_NCOLS];
	const char *names[C_NCOLS];
	int cols[C_NCOLS];
	size_t n = table_cols(t, cols);
	struct xlsxw *w = xlsxw_new(path, &xo, err);
	int ret;
	if (!w)
		return -1;
	for (size_t c = 0; c < n; c++)
		names[c] = header[cols[c]];
	ret = xlsxw_begin(w, NULL, names, n, err);
	for (size_t i = t->from; !ret && i < t->to; i++) {
		for (size_t c = 0; c < n; c++)
			cells[c] = xlsx_cell(&t->rows[i], cols[c]);
		ret = xlsxw_row(w, cells, n, XLSXW_ROW_PLAIN, err);
	}
	if (!ret)
		ret = xlsxw_close(w, err);
	if (!ret && xlsxw_cut_cells(w))
		warning("%llu cells were longer than a workbook takes and were cut to %d characters",
			(unsigned long long)xlsxw_cut_cells(w), XLSXW_MAX_TEXT);
	xlsxw_free(w);
	return ret;
}

/* Without -o: the workbook is made in $TMPDIR and appended to out. */
static int write_book_tmp(void *ctx, const char *path, struct strbuf *err)
{
	return write_book(ctx, path, NULL, err);
}

/* ---- the files ------------------------------------------------------------------------ */

/* The rank folder of the training dump, for msprobe's file name. */
static void rank_dir(const struct consist_table *t, struct strbuf *out)
{
	struct strbuf dump = STRBUF_INIT;
	for (size_t i = t->from; i < t->to && !dump.len; i++)
		if (t->rows[i].t.n)
			leafrec_str(&t->rows[i].t.leaf[0], LF_DUMP, &dump);
	layout_rank_dir(dump.len ? dump.buf : "", out);
	strbuf_release(&dump);
}

/* msprobe's compare_result[_<rank dir>]_<time>.<csv|xlsx> in the output directory, as one commit. */
static int write_file(struct consist_table *t, const struct strbuf *csv, struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT, dir = STRBUF_INIT;
	char stamp[NAMING_STAMP_SIZE];
	int ret;
	bool xlsx = t->opts.output == CONSIST_XLSX;
	naming_stamp_now(stamp);
	rank_dir(t, &dir);
	/* the base name; the file gets it with the suffix, or _2, _3, ... first when a file has it (partial.h) */
	strbuf_addf(&path, "%s/compare_result%s%s_%s", t->opts.output_dir, dir.len ? "_" : "", dir.len ? dir.buf : "",
		    stamp);
	if (!xlsx) {
		ret = partial_write_numbered(path.buf, ".csv", csv->buf, csv->len, NULL, err);
	} else {
		struct partial *part;
		int fd;
		strbuf_addstr(&path, ".xlsx");
		fd = partial_create_private(path.buf, &part, err);
		strbuf_setlen(&path, path.len - 5);
		ret = fd < 0 ? -1 : 0;
		if (!ret) {
			close(fd);
			ret = write_book(t, partial_tmp_name(part), t->opts.output_dir, err);
			ret = ret ? (partial_drop(part), -1) : partial_commit_numbered(part, path.buf, ".xlsx", NULL, err);
		}
	}
	strbuf_release(&path);
	strbuf_release(&dir);
	return ret;
}

/* ---- the tables ------------------------------------------------------------------------- */

/* The end of the rows of the rank pair that starts at from: consist_match writes a pair's rows together. */
static size_t rank_end(const struct consist_table *t, size_t from)
{
	struct strbuf td = STRBUF_INIT, gd = STRBUF_INIT, d = STRBUF_INIT;
	size_t i;
	for (i = from; i < t->nr; i++) {
		const struct row *r = &t->rows[i];
		bool other = false;
		if (r->t.n) {
			leafrec_str(&r->t.leaf[0], LF_DUMP, &d);
			other |= td.len && strcmp(td.buf, d.buf);
			if (!td.len)
				strbuf_addbuf(&td, &d);
		}
		if (r->g.n) {
			leafrec_str(&r->g.leaf[0], LF_DUMP, &d);
			other |= gd.len && strcmp(gd.buf, d.buf);
			if (!gd.len)
				strbuf_addbuf(&gd, &d);
		}
		if (other)
			break;
	}
	strbuf_release(&td);
	strbuf_release(&gd);
	strbuf_release(&d);
	return i;
}

/* The dump task of a side's leaves: "tensor", "statistics", "md5", or "" (records that do not say). */
static void side_task(const struct consist_table *t, bool training, struct strbuf *out)
{
	strbuf_reset(out);
	for (size_t i = t->from; i < t->to && !out->len; i++) {
		const struct side *s = training ? &t->rows[i].t : &t->rows[i].g;
		if (s->n)
			leafrec_str(&s->leaf[0], LF_TASK, out);
	}
}

/*
 * msprobe's mode: tensor when both dumps are, statistics when both are; an
 * md5 dump has no table here, and two tasks give msprobe's refusal (our
 * verdict, which reads the statistics, is still given).
 */
static int table_mode(struct consist_table *t, struct strbuf *err)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	int ret = 0;
	side_task(t, true, &a);
	side_task(t, false, &b);
	if (t->opts.force_mode) {
		t->statistics = t->opts.force_mode == 1;
		ret = 0;
	} else if (!strcmp(a.buf, "md5") || !strcmp(b.buf, "md5")) {
		strbuf_addstr(err, "a consistency compare reads statistics or tensor dumps, not md5 ones");
		ret = -1;
	} else if (strcmp(a.buf, b.buf) && t->opts.output != CONSIST_NDJSON) {
		strbuf_addf(err, "the training dump's task is %s, the inference dump's %s: msprobe writes no table "
				 "(\"Please check the dump task is consistent.\"); without --csv/--xlsx our verdict compares "
				 "their statistics", a.len ? a.buf : "unknown", b.len ? b.buf : "unknown");
		ret = -1;
	}
	if (!t->opts.force_mode)
		t->statistics = strcmp(a.buf, "tensor") || strcmp(b.buf, "tensor");
	strbuf_release(&a);
	strbuf_release(&b);
	return ret;
}

/* One rank pair's table: msprobe's cells and checkers, our verdict, and the output. */
static int finish_rank(struct consist_table *t, struct strbuf *out, struct strbuf *err)
{
	struct strmap fused = STRMAP_INIT;
	int ret = table_mode(t, err);
	if (ret)
		return -1;
	look_for_stacks(t);
	for (size_t i = t->from; i < t->to && !ret; i++)
		ret = fill_row(t, &t->rows[i], t->opts.output == CONSIST_XLSX, err);
	if (ret)
		return -1;
	stack_cells(t);
	judge_groups(t);
	residual_entries(t, &fused);
	for (size_t i = t->from; i < t->to; i++) {
		judge_ours(t, &t->rows[i], &fused);
		count(t, &t->rows[i]);
	}
	strmap_release(&fused);
	if (t->opts.output == CONSIST_NDJSON) {
		emit_ndjson(t, out);
		return 0;
	}
	if (refused(t, err) < 0)
		return -1;
	if (!t->opts.output_dir)
		return t->opts.output == CONSIST_XLSX ? xlsxw_book_to_strbuf(write_book_tmp, t, out, err) : (emit_csv(t, out), 0);
	struct strbuf csv = STRBUF_INIT;
	if (t->opts.output == CONSIST_CSV)
		emit_csv(t, &csv);
	ret = write_file(t, &csv, err);
	strbuf_release(&csv);
	return ret;
}

int consist_table_finish(struct consist_table *t, struct strbuf *out, struct strbuf *err)
{
	if (!t->nr) {
		strbuf_addstr(err, "no pairs: nothing was compared");
		return -1;
	}
	for (t->from = 0; t->from < t->nr; t->from = t->to) {
		t->to = rank_end(t, t->from);
		if (t->tables && t->opts.output != CONSIST_NDJSON && !t->opts.output_dir) {
			strbuf_addstr(err, "the pairs hold more than one rank: msprobe writes a table per rank, give -o DIR "
					   "for its files");
			return -1;
		}
		if (finish_rank(t, out, err) < 0)
			return -1;
		t->tables++;
	}
	return 0;
}

void consist_table_stats(const struct consist_table *t, struct consist_table_stats *out)
{
	*out = t->st;
}
