#include "mergeres.h"
#include "mscsv.h"
#include "pyfmt.h"
#include "../core/msg.h"
#include "../core/xalloc.h"

#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

/* ---- the headers msprobe knows (get_dump_mode) -------------------------------- */

#define BASIC "NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape", "Bench Tensor Shape", \
	      "NPU Requires_grad", "Bench Requires_grad"
#define SUMMARY_INDEX "Max diff", "Min diff", "Mean diff", "L2norm diff", "MaxRelativeErr", "MinRelativeErr", \
		      "MeanRelativeErr", "NormRelativeErr"
#define ALL_INDEX "Cosine", "EucDist", "MaxAbsErr", "MaxRelativeErr", "One Thousandth Err Ratio", \
		  "Five Thousandths Err Ratio"
#define SUMMARY_INFO "NPU max", "NPU min", "NPU mean", "NPU l2norm", "Bench max", "Bench min", "Bench mean", \
		     "Bench l2norm"
#define EXTRACT "Requires_grad Consistent", "Result", "Err_message"

static const char *const h_summary[] = { BASIC, SUMMARY_INDEX, SUMMARY_INFO, EXTRACT, "NPU_Stack_Info" };
static const char *const h_all[] = { BASIC, ALL_INDEX, SUMMARY_INFO, EXTRACT, "NPU_Stack_Info", "Data_name" };
static const char *const h_all_nostack[] = { BASIC, ALL_INDEX, SUMMARY_INFO, EXTRACT, "Data_name" };
static const char *const h_md5[] = { BASIC, "NPU MD5", "BENCH MD5", EXTRACT, "NPU_Stack_Info" };
static const char *const summary_indexes[] = { SUMMARY_INDEX, "Requires_grad Consistent" };
static const char *const all_indexes[] = { ALL_INDEX, "Requires_grad Consistent" };
/* probe-metric --xlsx-reader's columns after msprobe's */
static const char *const reader_tail[] = { "probe verdict", "probe reason" };

enum mode { MODE_NONE, MODE_SUMMARY, MODE_ALL, MODE_MD5 };

static bool header_is(const char *const *h, size_t n, const char *const *known, size_t nknown)
{
	if (n != nknown)
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(h[i], known[i]))
			return false;
	return true;
}

/* A known header, with or without the stack column, and with or without our reader's columns after it. */
static enum mode mode_of(const char *const *h, size_t n)
{
	if (n >= 2 && !strcmp(h[n - 2], reader_tail[0]) && !strcmp(h[n - 1], reader_tail[1]))
		n -= 2;
	if (header_is(h, n, h_summary, ARRAY_SIZE(h_summary)) ||
	    header_is(h, n, h_summary, ARRAY_SIZE(h_summary) - 1))
		return MODE_SUMMARY;
	if (header_is(h, n, h_all, ARRAY_SIZE(h_all)) || header_is(h, n, h_all_nostack, ARRAY_SIZE(h_all_nostack)))
		return MODE_ALL;
	if (header_is(h, n, h_md5, ARRAY_SIZE(h_md5)) || header_is(h, n, h_md5, ARRAY_SIZE(h_md5) - 1))
		return MODE_MD5;
	return MODE_NONE;
}

/* ---- read_excel's column types ---------------------------------------------------- */

struct colstate {
	bool nonnum;    /* a value maybe_convert_numeric refuses */
	bool has_float; /* a float, a NaN or a float string */
	bool nonbool;   /* a value maybe_convert_bool refuses */
};

enum coltype { COL_OBJECT, COL_INT, COL_FLOAT, COL_BOOL };

static bool is_true_word(const char *s)
{
	return !strcmp(s, "True") || !strcmp(s, "TRUE") || !strcmp(s, "true");
}

static bool is_false_word(const char *s)
{
	return !strcmp(s, "False") || !strcmp(s, "FALSE") || !strcmp(s, "false");
}

static bool int_text(const char *s)
{
	size_t i = (*s == '-' || *s == '+');
	return s[i] && strspn(s + i, "0123456789") == strlen(s + i);
}

static void observe(struct colstate *c, const struct mres_value *v)
{
	switch (v->kind) {
	case MRES_STR:
		if (!is_true_word(v->s) && !is_false_word(v->s))
			c->nonbool = true;
		if (!*v->s || !pyfmt_float_accepts(v->s, strlen(v->s)))
			c->nonnum = true;
		else if (!int_text(v->s))
			c->has_float = true;
		break;
	case MRES_INT:
		c->nonbool = true;
		break;
	case MRES_FLOAT:
	case MRES_NAN:
		c->has_float = true;
		c->nonbool = true;
		break;
	case MRES_BOOL:
		c->nonnum = true;
		break;
	}
}

static enum coltype type_of(const struct colstate *c)
{
	if (!c->nonnum)
		return c->has_float ? COL_FLOAT : COL_INT;
	return c->nonbool ? COL_OBJECT : COL_BOOL;
}

/* A kept value as its column holds it. */
static struct mres_value typed(const struct mres_value *v, enum coltype t)
{
	struct mres_value r = *v;
	switch (t) {
	case COL_INT:
		if (v->kind == MRES_STR)
			r = (struct mres_value){ .kind = MRES_INT, .f = pyfmt_strtod(v->s, NULL) };
		break;
	case COL_FLOAT:
		if (v->kind == MRES_STR)
			r = (struct mres_value){ .kind = MRES_FLOAT, .f = pyfmt_strtod(v->s, NULL) };
		else if (v->kind == MRES_INT)
			r.kind = MRES_FLOAT;
		if (r.kind == MRES_FLOAT && isnan(r.f))
			r.kind = MRES_NAN;
		break;
	case COL_BOOL:
		if (v->kind == MRES_STR)
			r = (struct mres_value){ .kind = MRES_BOOL, .b = is_true_word(v->s) };
		break;
	case COL_OBJECT:
		break;
	}
	return r;
}

void mres_str(struct strbuf *out, const struct mres_value *v)
{
	switch (v->kind) {
	case MRES_STR:
		strbuf_addstr(out, v->s);
		break;
	case MRES_INT:
		strbuf_addf(out, "%.0f", v->f);
		break;
	case MRES_FLOAT:
		pyfmt_double(out, v->f);
		break;
	case MRES_BOOL:
		strbuf_addstr(out, v->b ? "True" : "False");
		break;
	case MRES_NAN:
		strbuf_addstr(out, "nan");
		break;
	}
}

/* ---- the model ------------------------------------------------------------------ */

struct kept {
	const char *name;
	struct mres_value *vals; /* the needed columns' values, as read */
};

struct rank_table {
	int64_t rank;
	char *file;
	size_t *cols;            /* header position of each needed column: the indexes, NPU max, Bench max */
	struct colstate *cs;
	struct kept *rows;
	size_t nrows, alloc;
	size_t name_col;
};

struct merged_row {
	const char *name;
	struct mres_value **cells; /* per rank (in rank order), NULL: none */
};

struct merged {
	struct merged_row *rows;
	size_t n, alloc;
};

struct mres {
	struct mres_options o;
	struct arena arena;
	regex_t *re;             /* per api, when it needs a regular expression; else NULL */
	bool *use_re;
	char **pat;              /* "<api>." for the plain ones */
	const char **indexes;    /* the indexes of the merge, once decided */
	size_t nindexes;
	bool indexes_set;
	struct rank_table **tables;
	size_t ntables, tables_alloc;
	struct rank_table *cur;  /* the table being read, NULL when skipped */
	struct merged *out;      /* per index, once finished */
	struct strbuf scratch;
};

static bool needs_regex(const char *api)
{
	return strpbrk(api, "\\^$*+?()[]{}|") != NULL;
}

struct mres *mres_new(const struct mres_options *opts)
{
	struct mres *m = xcalloc(1, sizeof(*m));
	m->o = *opts;
	m->arena = (struct arena)ARENA_INIT;
	strbuf_init(&m->scratch, 0);
	m->re = xcalloc(opts->napis ? opts->napis : 1, sizeof(*m->re));
	m->use_re = xcalloc(opts->napis ? opts->napis : 1, sizeof(*m->use_re));
	m->pat = xcalloc(opts->napis ? opts->napis : 1, sizeof(*m->pat));
	for (size_t i = 0; i < opts->napis; i++) {
		struct strbuf p = STRBUF_INIT;
		const char *a = opts->apis[i];
		if (needs_regex(a)) {
			for (; *a; a++) {
				if (*a == '.')
					strbuf_addch(&p, '\\');
				strbuf_addch(&p, *a);
			}
			strbuf_addstr(&p, "\\.");
			m->use_re[i] = regcomp(&m->re[i], p.buf, REG_EXTENDED | REG_NOSUB) == 0;
			strbuf_release(&p);
			if (m->use_re[i])
				continue;
			a = opts->apis[i]; /* not a regular expression POSIX takes: looked for as text */
		}
		strbuf_addf(&p, "%s.", a);
		m->pat[i] = strbuf_detach(&p, NULL);
	}
	return m;
}

static void table_free(struct rank_table *t)
{
	free(t->file);
	free(t->cols);
	free(t->cs);
	free(t->rows);
	free(t);
}

void mres_free(struct mres *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->o.napis; i++) {
		if (m->use_re[i])
			regfree(&m->re[i]);
		free(m->pat[i]);
	}
	free(m->re);
	free(m->use_re);
	free(m->pat);
	if (m->cur)
		table_free(m->cur); /* begun and not ended: never among the tables */
	for (size_t i = 0; i < m->ntables; i++)
		table_free(m->tables[i]);
	free(m->tables);
	if (m->out) {
		for (size_t i = 0; i < m->nindexes; i++)
			free(m->out[i].rows);
		free(m->out);
	}
	free(m->indexes);
	strbuf_release(&m->scratch);
	arena_release(&m->arena);
	free(m);
}

static bool api_matches(const struct mres *m, size_t i, const char *name)
{
	if (m->use_re[i])
		return regexec(&m->re[i], name, 0, NULL, 0) == 0;
	return strstr(name, m->pat[i]) != NULL;
}

static bool any_api_matches(const struct mres *m, const char *name)
{
	for (size_t i = 0; i < m->o.napis; i++)
		if (api_matches(m, i, name))
			return true;
	return false;
}

static ssize_t column(const char *const *h, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(h[i], name))
			return (ssize_t)i;
	return -1;
}

static bool in_list(const char *s, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, v[i]))
			return true;
	return false;
}

/*
 * check_index_dump_mode_consistent: the indexes are the config's when they
 * are all the mode's, or the mode's when the config names none (the first
 * rank that gets here decides them for the rest).  false: the rank is left out.
 */
static bool decide_indexes(struct mres *m, enum mode mode, int64_t rank, const char *file)
{
	const char *const *valid = mode == MODE_ALL ? all_indexes : summary_indexes;
	size_t nvalid = mode == MODE_ALL ? ARRAY_SIZE(all_indexes) : ARRAY_SIZE(summary_indexes);
	if (!m->indexes_set) {
		const char *const *src = m->o.nindexes ? m->o.indexes : valid;
		m->nindexes = m->o.nindexes ? m->o.nindexes : nvalid;
		m->indexes = xcalloc(m->nindexes, sizeof(*m->indexes));
		for (size_t i = 0; i < m->nindexes; i++)
			m->indexes[i] = src[i];
		m->indexes_set = true;
	}
	for (size_t i = 0; i < m->nindexes; i++) {
		if (in_list(m->indexes[i], valid, nvalid))
			continue;
		warning("%s: Compare indexes in rank%lld compare result are not consistent with those in other compare "
			"results, please check! The compare result will not be shown in merged result "
			"(\"%s\" is not an index of this mode).",
			file, (long long)rank, m->indexes[i]);
		return false;
	}
	return true;
}

int mres_begin(struct mres *m, int64_t rank, const char *file, const char *const *header, size_t n,
	       struct strbuf *err)
{
	enum mode mode = mode_of(header, n);
	struct rank_table *t;
	m->cur = NULL;
	for (size_t i = 0; i < m->ntables; i++)
		if (m->tables[i]->rank == rank)
			return msg_fail(err, file, "a second compare result for rank %lld (the first: %s)",
					(long long)rank, m->tables[i]->file);
	if (mode == MODE_NONE) {
		warning("%s: A valid dump task can not be identified from rank%lld compare result, please check! The "
			"compare result will not be shown in merged result.", file, (long long)rank);
		return 1;
	}
	if (mode == MODE_MD5) {
		warning("%s: Rank%lld compare result is 'md5' dump task and does not support merging result, please "
			"check! The compare result will not be shown in merged result.", file, (long long)rank);
		return 1;
	}
	if (!decide_indexes(m, mode, rank, file))
		return 1;
	t = xcalloc(1, sizeof(*t));
	t->rank = rank;
	t->file = xstrdup(file);
	t->cols = xcalloc(m->nindexes + 2, sizeof(*t->cols));
	t->cs = xcalloc(m->nindexes + 2, sizeof(*t->cs));
	for (size_t i = 0; i < m->nindexes + 2; i++) {
		const char *name = i < m->nindexes ? m->indexes[i] : i == m->nindexes ? "NPU max" : "Bench max";
		t->cols[i] = (size_t)column(header, n, name);
	}
	t->name_col = (size_t)column(header, n, "NPU Name");
	m->cur = t;
	return 0;
}

static const struct mres_value empty_value = { .kind = MRES_STR, .s = "" };

static const struct mres_value *cell_at(const struct mres_value *cells, size_t n, size_t i)
{
	return i < n ? &cells[i] : &empty_value;
}

static struct mres_value copy_value(struct mres *m, const struct mres_value *v)
{
	struct mres_value r = *v;
	if (v->kind == MRES_STR)
		r.s = arena_memdupz(&m->arena, v->s, strlen(v->s));
	return r;
}

/* table_value_check: msprobe refuses to write what looks like a formula. */
static int check_value(const struct mres *m, const struct mres_value *v, struct strbuf *err)
{
	if (v->kind == MRES_STR && mscsv_refused(v->s))
		return msg_fail(err, m->cur->file, "Malicious value [%s] is not allowed to be written into the merged "
				"xlsx.", v->s);
	return 0;
}

int mres_row(struct mres *m, const struct mres_value *cells, size_t n, struct strbuf *err)
{
	struct rank_table *t = m->cur;
	const struct mres_value *name;
	size_t k = m->nindexes + 2;
	if (!t)
		return 0;
	for (size_t i = 0; i < k; i++)
		observe(&t->cs[i], cell_at(cells, n, t->cols[i]));
	name = cell_at(cells, n, t->name_col);
	strbuf_reset(&m->scratch);
	mres_str(&m->scratch, name);
	if (!any_api_matches(m, m->scratch.buf))
		return 0;
	if (check_value(m, name, err) < 0)
		return -1;
	ALLOC_GROW(t->rows, t->nrows + 1, t->alloc);
	t->rows[t->nrows].name = arena_memdupz(&m->arena, m->scratch.buf, strlen(m->scratch.buf));
	t->rows[t->nrows].vals = arena_alloc(&m->arena, k * sizeof(struct mres_value));
	for (size_t i = 0; i < k; i++) {
		const struct mres_value *v = cell_at(cells, n, t->cols[i]);
		if (i < m->nindexes && check_value(m, v, err) < 0)
			return -1;
		t->rows[t->nrows].vals[i] = copy_value(m, v);
	}
	t->nrows++;
	return 0;
}

int mres_end(struct mres *m, struct strbuf *err)
{
	(void)err;
	if (!m->cur)
		return 0;
	ALLOC_GROW(m->tables, m->ntables + 1, m->tables_alloc);
	m->tables[m->ntables++] = m->cur;
	m->cur = NULL;
	return 0;
}

/* ---- the merge ---------------------------------------------------------------------- */

static int by_rank(const void *a, const void *b)
{
	const struct rank_table *x = *(const struct rank_table *const *)a, *y = *(const struct rank_table *const *)b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static bool is_placeholder(const struct mres_value *v)
{
	return v->kind == MRES_STR && (!strcmp(v->s, "N/A") || !strcmp(v->s, "unsupported") || !strcmp(v->s, "Nan"));
}

/* The value of index i in a kept row, N/A and its kind replaced by the two maxima (replace_compare_index_dict). */
static struct mres_value *cell_value(struct mres *m, const struct rank_table *t, const struct kept *row, size_t i)
{
	struct mres_value *v = arena_alloc(&m->arena, sizeof(*v));
	*v = typed(&row->vals[i], type_of(&t->cs[i]));
	if (is_placeholder(v)) {
		struct mres_value npu = typed(&row->vals[m->nindexes], type_of(&t->cs[m->nindexes]));
		struct mres_value bench = typed(&row->vals[m->nindexes + 1], type_of(&t->cs[m->nindexes + 1]));
		strbuf_reset(&m->scratch);
		strbuf_addstr(&m->scratch, "NPU:");
		mres_str(&m->scratch, &npu);
		strbuf_addstr(&m->scratch, "  Bench:");
		mres_str(&m->scratch, &bench);
		*v = (struct mres_value){ .kind = MRES_STR, .s = arena_memdupz(&m->arena, m->scratch.buf, strlen(m->scratch.buf)) };
	}
	return v;
}

static size_t find_or_add_row(struct mres *m, struct merged *g, const char *name, bool *added)
{
	/* the merged tables are small (the configured operators): a linear search is enough */
	for (size_t r = 0; r < g->n; r++)
		if (!strcmp(g->rows[r].name, name)) {
			*added = false;
			return r;
		}
	ALLOC_GROW(g->rows, g->n + 1, g->alloc);
	g->rows[g->n].name = name;
	g->rows[g->n].cells = arena_alloc(&m->arena, (m->ntables ? m->ntables : 1) * sizeof(struct mres_value *));
	memset(g->rows[g->n].cells, 0, (m->ntables ? m->ntables : 1) * sizeof(struct mres_value *));
	*added = true;
	return g->n++;
}

/* A rank's rows, api by api (extract_api_full_name), into every index's table. */
static void merge_rank(struct mres *m, size_t j)
{
	const struct rank_table *t = m->tables[j];
	for (size_t a = 0; a < m->o.napis; a++) {
		bool found = false;
		for (size_t r = 0; r < t->nrows; r++) {
			const struct kept *row = &t->rows[r];
			if (!api_matches(m, a, row->name))
				continue;
			found = true;
			for (size_t i = 0; i < m->nindexes; i++) {
				struct merged *g = &m->out[i];
				bool added;
				size_t at = find_or_add_row(m, g, row->name, &added);
				if (!g->rows[at].cells[j])
					g->rows[at].cells[j] = cell_value(m, t, row, i);
			}
		}
		if (!found)
			warning("%s: %s not found in rank%lld compare result.", t->file, m->o.apis[a], (long long)t->rank);
	}
}

int mres_finish(struct mres *m, struct strbuf *err)
{
	if (!m->ntables) {
		strbuf_addstr(err, "Nothing to merge.");
		return -1;
	}
	qsort(m->tables, m->ntables, sizeof(*m->tables), by_rank);
	m->out = xcalloc(m->nindexes, sizeof(*m->out));
	for (size_t j = 0; j < m->ntables; j++)
		merge_rank(m, j);
	if (!m->nindexes || !m->out[0].n) {
		/* msprobe writes a workbook of empty sheets here; an empty table is not a result */
		strbuf_addstr(err, "Nothing to merge: no rank's compare result has a row of the APIs asked for (");
		for (size_t a = 0; a < m->o.napis; a++)
			strbuf_addf(err, "%s%s", a ? ", " : "", m->o.apis[a]);
		strbuf_addstr(err, ").");
		return -1;
	}
	return 0;
}

size_t mres_nindexes(const struct mres *m)
{
	return m->out ? m->nindexes : 0;
}

const char *mres_index(const struct mres *m, size_t i)
{
	return m->indexes[i];
}

size_t mres_nranks(const struct mres *m)
{
	return m->ntables;
}

int64_t mres_rank(const struct mres *m, size_t j)
{
	return m->tables[j]->rank;
}

size_t mres_nrows(const struct mres *m, size_t i)
{
	return m->out[i].n;
}

const char *mres_row_name(const struct mres *m, size_t i, size_t r)
{
	return m->out[i].rows[r].name;
}

const struct mres_value *mres_cell(const struct mres *m, size_t i, size_t r, size_t j)
{
	return m->out[i].rows[r].cells[j];
}
