#include "merge.h"
#include "../msprobe/naming.h"
#include "metric.h"
#include "../core/csvrows.h"
#include "../core/msg.h"
#include "../core/partial.h"
#include "../core/strmap.h"
#include "../core/textesc.h"
#include "../core/xalloc.h"
#include "../core/xlsxr.h"
#include "../core/xlsxw.h"
#include "../json/jsonw.h"
#include "../msprobe/comm.h"
#include "../msprobe/mergeres.h"
#include "../msprobe/mscsv.h"
#include "../msprobe/pyfmt.h"
#include "../records/lines.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_COLS 64

/* ---- the communication operators of a rank (the group check) ---------------------- */

struct leafrow {
	char *leaf;   /* "input.0", "output.0.1", ... */
	bool input;
	char *npu;    /* the target's statistics (or md5) as one text, NULL when not a tensor */
	char *bench;  /* the golden's, NULL when unmatched */
};

struct cop {
	char *entry;
	char *group_text;    /* the ProcessGroup argument's cell, NULL: none */
	struct leafrow *leaves;
	size_t nleaves, alloc;
};

struct rank_ops {
	int64_t rank;
	char *file;
	struct cop *ops;
	size_t n, alloc;
};

struct finding {
	char *entry, *leaf, *group;
	bool golden;            /* the golden side's outputs */
	int64_t *ranks;         /* the ranks that differ from the others */
	size_t nranks;
	char **values;          /* per member rank present: its statistics */
	int64_t *members;
	size_t nmembers;
};

struct group_sum {
	char *text;             /* as the dump has it, or "(all ranks)" */
	int64_t *members;       /* the ranks present in the inputs */
	size_t nmembers;
	size_t ops, checked, disagree;
	char *first_entry;      /* the first operator where a rank's input differs from its golden */
	int64_t *first_ranks;
	size_t nfirst;
};

/* ---- the table being read ------------------------------------------------------------- */

struct table_in {
	int64_t rank;
	const char *file;
	bool header_done;
	bool mres_on;           /* mergeres takes it */
	struct rank_ops *ops;
	/* header columns for the group check (-1: none) */
	int c_name, c_dtype, c_md5[2], c_stat[2][4];
	struct mres_value vals[MAX_COLS];
	struct strbuf text;
};

struct merge {
	struct merge_options o;
	struct mres *mres;
	struct rank_ops **ranks;
	size_t nranks, ranks_alloc;
	size_t tables;          /* rank tables read */
	struct finding *findings;
	size_t nfindings, findings_alloc;
	struct group_sum *groups;
	size_t ngroups, groups_alloc;
	size_t disagreements;
	struct strbuf scratch;
};

struct merge *merge_new(const struct merge_options *opts)
{
	struct merge *m = xcalloc(1, sizeof(*m));
	struct mres_options mo = { .apis = opts->apis, .napis = opts->napis, .indexes = opts->indexes,
				   .nindexes = opts->nindexes };
	m->o = *opts;
	m->mres = mres_new(&mo);
	strbuf_init(&m->scratch, 0);
	return m;
}

static void rank_ops_free(struct rank_ops *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct cop *c = &r->ops[i];
		for (size_t k = 0; k < c->nleaves; k++) {
			free(c->leaves[k].leaf);
			free(c->leaves[k].npu);
			free(c->leaves[k].bench);
		}
		free(c->leaves);
		free(c->entry);
		free(c->group_text);
	}
	free(r->ops);
	free(r->file);
	free(r);
}

void merge_free(struct merge *m)
{
	if (!m)
		return;
	mres_free(m->mres);
	for (size_t i = 0; i < m->nranks; i++)
		rank_ops_free(m->ranks[i]);
	free(m->ranks);
	for (size_t i = 0; i < m->nfindings; i++) {
		struct finding *f = &m->findings[i];
		for (size_t k = 0; k < f->nmembers; k++)
			free(f->values[k]);
		free(f->values);
		free(f->members);
		free(f->ranks);
		free(f->entry);
		free(f->leaf);
		free(f->group);
	}
	free(m->findings);
	for (size_t i = 0; i < m->ngroups; i++) {
		free(m->groups[i].text);
		free(m->groups[i].members);
		free(m->groups[i].first_entry);
		free(m->groups[i].first_ranks);
	}
	free(m->groups);
	strbuf_release(&m->scratch);
	free(m);
}

/* ---- a table's header and rows -------------------------------------------------------- */

static int find_col(const char *const *h, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(h[i], name))
			return (int)i;
	return -1;
}

static int table_header(struct merge *m, struct table_in *t, const char *const *h, size_t n, struct strbuf *err)
{
	static const char *const stats[2][4] = { { "NPU max", "NPU min", "NPU mean", "NPU l2norm" },
						 { "Bench max", "Bench min", "Bench mean", "Bench l2norm" } };
	int ret;
	t->header_done = true;
	t->c_name = find_col(h, n, "NPU Name");
	t->c_dtype = find_col(h, n, "NPU Dtype");
	t->c_md5[0] = find_col(h, n, "NPU MD5");
	t->c_md5[1] = find_col(h, n, "BENCH MD5");
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < 4; i++)
			t->c_stat[s][i] = find_col(h, n, stats[s][i]);
	if (t->c_name < 0)
		return msg_fail(err, t->file, "not a compare result: its header has no NPU Name");
	ret = m->o.groups_only ? 1 : mres_begin(m->mres, t->rank, t->file, h, n, err);
	if (ret < 0)
		return -1;
	t->mres_on = ret == 0;
	t->ops = xcalloc(1, sizeof(*t->ops));
	t->ops->rank = t->rank;
	t->ops->file = xstrdup(t->file);
	ALLOC_GROW(m->ranks, m->nranks + 1, m->ranks_alloc);
	m->ranks[m->nranks++] = t->ops;
	m->tables++;
	return 0;
}

static const struct mres_value *value_at(const struct table_in *t, size_t n, int col)
{
	static const struct mres_value none = { .kind = MRES_STR, .s = "" };
	return col >= 0 && (size_t)col < n ? &t->vals[col] : &none;
}

/* A value as text that compares equal across the forms of input: numbers with 16 significant digits (the workbook's). */
static void canonical(struct strbuf *out, const struct mres_value *v)
{
	double x;
	char *end;
	if (v->kind == MRES_INT || v->kind == MRES_FLOAT) {
		strbuf_addf(out, "%.16g", v->f);
		return;
	}
	if (v->kind == MRES_STR && *v->s && pyfmt_float_accepts(v->s, strlen(v->s))) {
		x = pyfmt_strtod(v->s, &end);
		if (!*end) {
			strbuf_addf(out, "%.16g", x);
			return;
		}
	}
	mres_str(out, v);
}

/* The entry and the leaf of a row name: "X.N.forward" and "input.0". */
static bool split_name(const char *name, struct strbuf *entry, const char **leaf)
{
	const char *best = NULL;
	static const char *const words[] = { ".forward.", ".backward." };
	for (size_t w = 0; w < ARRAY_SIZE(words); w++) {
		for (const char *p = strstr(name, words[w]); p; p = strstr(p + 1, words[w]))
			if (!best || p > best)
				best = p + strlen(words[w]) - 1;
	}
	if (!best)
		return false;
	strbuf_reset(entry);
	strbuf_add(entry, name, (size_t)(best - name));
	*leaf = best + 1;
	return true;
}

static bool tensor_dtype(const char *d)
{
	return *d && strncmp(d, "<class", 6) && strcmp(d, "None") && strcmp(d, "N/A") && !strstr(d, "ProcessGroup") &&
	       strcmp(d, "torch.Size") && strcmp(d, "slice") && strcmp(d, "ellipsis");
}

/* The statistics (or md5) of one side as one text; NULL when the side has none (unmatched: N/A). */
static char *side_text(struct table_in *t, size_t n, int side)
{
	strbuf_reset(&t->text);
	if (t->c_md5[side] >= 0) {
		canonical(&t->text, value_at(t, n, t->c_md5[side]));
	} else {
		for (int i = 0; i < 4; i++) {
			if (i)
				strbuf_addstr(&t->text, ", ");
			canonical(&t->text, value_at(t, n, t->c_stat[side][i]));
		}
	}
	if (!strcmp(t->text.buf, "N/A") || !strncmp(t->text.buf, "N/A,", 4))
		return NULL;
	return xstrdup(t->text.buf);
}

static struct cop *op_of(struct rank_ops *r, const char *entry)
{
	if (r->n && !strcmp(r->ops[r->n - 1].entry, entry))
		return &r->ops[r->n - 1];
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->ops[i].entry, entry))
			return &r->ops[i];
	ALLOC_GROW(r->ops, r->n + 1, r->alloc);
	r->ops[r->n] = (struct cop){ .entry = xstrdup(entry) };
	return &r->ops[r->n++];
}

/* A communication operator's row, for the group check. */
static void keep_comm_row(struct merge *m, struct table_in *t, size_t n)
{
	const char *leaf, *dtype;
	struct cop *c;
	strbuf_reset(&m->scratch);
	mres_str(&m->scratch, value_at(t, n, t->c_name));
	{
		struct strbuf entry = STRBUF_INIT;
		if (!split_name(m->scratch.buf, &entry, &leaf) || !comm_is_communication(entry.buf, entry.len)) {
			strbuf_release(&entry);
			return;
		}
		c = op_of(t->ops, entry.buf);
		strbuf_release(&entry);
	}
	strbuf_reset(&t->text);
	mres_str(&t->text, value_at(t, n, t->c_dtype));
	dtype = t->text.buf;
	if (!strncmp(leaf, "input", 5) && strstr(dtype, "ProcessGroup")) {
		if (!c->group_text) {
			strbuf_reset(&t->text);
			mres_str(&t->text, value_at(t, n, t->c_stat[0][0] >= 0 ? t->c_stat[0][0] : t->c_md5[0]));
			c->group_text = xstrdup(t->text.buf);
		}
		return;
	}
	if (!tensor_dtype(dtype))
		return;
	ALLOC_GROW(c->leaves, c->nleaves + 1, c->alloc);
	c->leaves[c->nleaves++] = (struct leafrow){
		.leaf = xstrdup(leaf), .input = !strncmp(leaf, "input", 5), .npu = side_text(t, n, 0),
		.bench = side_text(t, n, 1),
	};
}

static int table_row(struct merge *m, struct table_in *t, size_t n, struct strbuf *err)
{
	if (!t->ops) /* the readers refuse a row before the header: this holds whatever a new reader does */
		return msg_fail(err, t->file, "a row before the header: not a compare result");
	if (t->mres_on && mres_row(m->mres, t->vals, n, err) < 0)
		return -1;
	keep_comm_row(m, t, n);
	return 0;
}

static int table_end(struct merge *m, struct table_in *t, struct strbuf *err)
{
	if (!t->header_done)
		return msg_fail(err, t->file, "no header: not a compare result");
	return t->mres_on ? mres_end(m->mres, err) : 0;
}

/* ---- an .xlsx compare result ------------------------------------------------------------ */

struct xlsx_reading {
	struct merge *m;
	struct table_in *t;
	const char *sheet;  /* the sheet being read */
	bool first_sheet;
	size_t ncols;
};

static struct mres_value xlsx_value(const struct xlsxr_cell *c)
{
	/* pandas' openpyxl reader: an empty cell "", an integral number an int, an error NaN */
	switch (c->type) {
	case XLSXR_TEXT: return (struct mres_value){ .kind = MRES_STR, .s = c->text };
	case XLSXR_NUMBER:
		if (isfinite(c->num) && c->num == trunc(c->num) && fabs(c->num) < 9.2e18)
			return (struct mres_value){ .kind = MRES_INT, .f = c->num };
		return (struct mres_value){ .kind = MRES_FLOAT, .f = c->num };
	case XLSXR_BOOL: return (struct mres_value){ .kind = MRES_BOOL, .b = c->b };
	case XLSXR_ERROR: return (struct mres_value){ .kind = MRES_NAN, .f = NAN };
	default: return (struct mres_value){ .kind = MRES_STR, .s = "" };
	}
}

static int xlsx_row(void *ctx, uint32_t row, const struct xlsxr_cell *cells, size_t n, struct strbuf *err)
{
	struct xlsx_reading *r = ctx;
	if (n > MAX_COLS)
		return msg_fail(err, r->t->file, "sheet %s: row %u: more than %d columns: not a compare result", r->sheet,
				row + 1, MAX_COLS);
	if (!r->t->header_done && (row != 0 || !r->first_sheet))
		return msg_fail(err, r->t->file, "sheet %s: row %u comes before a header row (row 1 of the first sheet): "
				"not a compare result", r->sheet, row + 1);
	if (row == 0) {
		const char *h[MAX_COLS];
		if (!r->first_sheet)
			return 0; /* a later part's header */
		for (size_t i = 0; i < n; i++)
			h[i] = cells[i].text;
		r->ncols = n;
		return table_header(r->m, r->t, h, n, err);
	}
	for (size_t i = 0; i < n; i++)
		r->t->vals[i] = xlsx_value(&cells[i]);
	for (size_t i = n; i < r->ncols; i++)
		r->t->vals[i] = (struct mres_value){ .kind = MRES_STR, .s = "" };
	return table_row(r->m, r->t, n > r->ncols ? n : r->ncols, err);
}

/* msprobe's read_excel reads the first sheet; a table msprobe split into part_0, part_1, ... is read whole here. */
static bool next_part(const struct xlsxr *x, size_t i)
{
	char want[32];
	snprintf(want, sizeof(want), "part_%zu", i);
	return i < xlsxr_nsheets(x) && !strcmp(xlsxr_sheet_name(x, 0), "part_0") &&
	       !strcmp(xlsxr_sheet_name(x, i), want);
}

static int read_xlsx_table(struct merge *m, struct table_in *t, struct strbuf *err)
{
	struct xlsxr *x = xlsxr_open(t->file, err);
	struct xlsx_reading r = { .m = m, .t = t, .first_sheet = true };
	int ret = 0;
	if (!x)
		return -1;
	if (!xlsxr_nsheets(x))
		ret = msg_fail(err, t->file, "a workbook without a sheet");
	for (size_t i = 0; !ret && i < xlsxr_nsheets(x) && (i == 0 || next_part(x, i)); i++) {
		r.sheet = xlsxr_sheet_name(x, i);
		ret = xlsxr_read_sheet(x, i, xlsx_row, &r, err);
		if (!ret && i == 0 && !t->header_done)
			ret = msg_fail(err, t->file, "sheet %s: no rows, not even a header: not a compare result", r.sheet);
		r.first_sheet = false;
	}
	xlsxr_close(x);
	return ret < 0 ? -1 : table_end(m, t, err);
}

/* ---- a CSV compare result ---------------------------------------------------------------- */

struct csv_reading {
	struct merge *m;
	struct table_in *t;
	const char *file;  /* the part being read */
	bool first_part;
	size_t ncols;
};

static int csv_row(void *ctx, const struct csvrows_row *row, struct strbuf *err)
{
	struct csv_reading *r = ctx;
	if (row->overflow)
		return msg_fail(err, r->file, "line %llu: more than %d columns: not a compare result",
				(unsigned long long)row->line, MAX_COLS);
	if (!row->index && r->first_part) {
		r->ncols = row->n;
		return table_header(r->m, r->t, (const char *const *)row->cells, row->n, err);
	}
	if (row->n != r->ncols) {
		strbuf_addf(err, "%s:%llu: %zu cells where the %s has %zu", r->file, (unsigned long long)row->line,
			    row->n, r->first_part ? "header" : "first part's header", r->ncols);
		return -1;
	}
	if (!row->index)
		return 0; /* a later part's header */
	for (size_t i = 0; i < row->n; i++)
		r->t->vals[i] = (struct mres_value){ .kind = MRES_STR, .s = row->cells[i] };
	return table_row(r->m, r->t, row->n, err);
}

/* A table from one CSV file, or from the parts probe-metric -o and msprobe split it into, in order. */
static int read_csv_table(struct merge *m, struct table_in *t, char *const *parts, size_t nparts, struct strbuf *err)
{
	struct csv_reading r = { .m = m, .t = t, .first_part = true };
	size_t max;
	if (line_reader_limit(&max, err) < 0)
		return -1;
	for (size_t i = 0; i < nparts; i++) {
		r.file = parts[i];
		if (csvrows_read(parts[i], max, MAX_COLS, csv_row, &r, err) < 0)
			return -1;
		if (!t->header_done)
			return msg_fail(err, parts[i], "no rows, not even a header: not a compare result");
		r.first_part = false;
	}
	return table_end(m, t, err);
}

/* ---- file names and ranks ------------------------------------------------------------------ */

enum kind { K_XLSX, K_CSV, K_RECORDS };

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

static bool digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return n > 0;
}

/* "_<14 digits>.xlsx" and nothing else at p. */
static bool stamp_xlsx(const char *p)
{
	return p[0] == '_' && digits(p + 1, 14) && !strcmp(p + 15, ".xlsx");
}

/*
 * The rank of a compare result by its name (check_compare_result_name):
 * >= 0, -1 for a single-rank result (warned), -2 for a name msprobe refuses.
 */
static int64_t rank_of_name(const char *path, enum kind k)
{
	const char *b = base_name(path), *p;
	static const char prefix[] = "compare_result_rank";
	char *end;
	int64_t rank;
	if (strncmp(b, prefix, strlen(prefix)))
		return -2;
	p = b + strlen(prefix);
	if (*p >= '0' && *p <= '9') {
		rank = strtoll(p, &end, 10);
		if (k == K_CSV)
			return rank;
		if (!strncmp(end, "-rank", 5)) {
			char *end2;
			if (strtoll(end + 5, &end2, 10) != rank || end2 == end + 5)
				return -2;
			end = end2;
		}
		return stamp_xlsx(end) ? rank : -2;
	}
	if (k == K_CSV)
		return *p == '_' ? -1 : -2;
	if ((p[0] == '_' && stamp_xlsx(p)) || (!strncmp(p, "-rank", 5) && stamp_xlsx(p + 5)))
		return -1;
	return -2;
}

/* A compare result of one file (or, for CSV, of the nparts files of one table: path is the first). */
static int read_table(struct merge *m, const char *path, enum kind k, char *const *parts, size_t nparts,
		      struct strbuf *err)
{
	int64_t rank = rank_of_name(path, k);
	struct table_in t = { .file = path };
	int ret;
	if (rank == -1) {
		warning("%s: Single rank compare result do not need to be merged.", path);
		return 0;
	}
	if (rank < 0)
		return msg_fail(err, path, "Wrong compare result name: %s, please check! (msprobe's names: "
				"compare_result_rank<N>_<YYYYmmddHHMMSS>.xlsx)", base_name(path));
	t.rank = rank;
	strbuf_init(&t.text, 0);
	ret = k == K_XLSX ? read_xlsx_table(m, &t, err) : read_csv_table(m, &t, parts, nparts, err);
	strbuf_release(&t.text);
	return ret;
}

static int read_table_file(struct merge *m, const char *path, enum kind k, struct strbuf *err)
{
	char *one = (char *)path;
	return read_table(m, path, k, &one, 1, err);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files of a directory a merge takes (*.xlsx, and compare_result_*.csv), in name order. */
static int list_dir(const char *dir, bool csv_only, char ***names, size_t *n, struct strbuf *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t alloc = 0;
	*names = NULL;
	*n = 0;
	if (!d)
		return msg_fail(err, dir, "cannot read the directory: %s", strerror(errno));
	while ((e = readdir(d))) {
		bool csv = ends_with(e->d_name, ".csv") && !strncmp(e->d_name, "compare_result_", 15);
		if (!csv && (csv_only || !ends_with(e->d_name, ".xlsx")))
			continue;
		ALLOC_GROW(*names, *n + 1, alloc);
		(*names)[(*n)++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (*n)
		qsort(*names, *n, sizeof(**names), by_name);
	return 0;
}

/* The part number of a split CSV table's file name ("..._part_3.csv": 3), 0 when it is not one. */
static unsigned long part_number(const char *name, size_t *base_len)
{
	const char *p = strstr(name, "_part_");
	char *end;
	unsigned long n;
	for (const char *q = p; q; q = strstr(q + 1, "_part_"))
		p = q; /* the last one */
	if (!p || !ends_with(name, ".csv") || p[6] < '1' || p[6] > '9')
		return 0;
	n = strtoul(p + 6, &end, 10);
	if (strcmp(end, ".csv"))
		return 0;
	*base_len = (size_t)(p - name);
	return n;
}

/* The directory's files by table: a split CSV table's parts together, in part order. */
static int by_table(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t bx = 0, by = 0;
	unsigned long px = part_number(x, &bx), py = part_number(y, &by);
	int c;
	if (!px)
		bx = strlen(x);
	if (!py)
		by = strlen(y);
	c = strncmp(x, y, bx < by ? bx : by);
	if (c || bx != by)
		return c ? c : (bx > by) - (bx < by);
	return (px > py) - (px < py);
}

static int read_dir(struct merge *m, const char *dir, bool csv_only, struct strbuf *err)
{
	char **names;
	size_t n;
	int ret = 0;
	if (list_dir(dir, csv_only, &names, &n, err) < 0)
		return -1;
	if (n)
		qsort(names, n, sizeof(*names), by_table);
	for (size_t i = 0; i < n; i++) {
		struct strbuf path = STRBUF_INIT;
		strbuf_addf(&path, "%s/%s", dir, names[i]);
		free(names[i]);
		names[i] = strbuf_detach(&path, NULL);
	}
	for (size_t i = 0; i < n && !ret;) {
		size_t base, k = 1;
		const char *b = base_name(names[i]);
		if (part_number(b, &base) == 1)
			while (i + k < n) {
				size_t base2;
				const char *b2 = base_name(names[i + k]);
				if (part_number(b2, &base2) != k + 1 || base2 != base || strncmp(b, b2, base))
					break;
				k++;
			}
		ret = read_table(m, names[i], ends_with(names[i], ".csv") ? K_CSV : K_XLSX, names + i, k, err);
		i += k;
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ret;
}

/* ---- records: each rank's table written by probe-metric's CSV writer, then read ---------------- */

static void remove_dir(const char *dir)
{
	char **names;
	size_t n;
	struct strbuf ignored = STRBUF_INIT, path = STRBUF_INIT;
	if (list_dir(dir, true, &names, &n, &ignored) == 0) {
		for (size_t i = 0; i < n; i++) {
			strbuf_reset(&path);
			strbuf_addf(&path, "%s/%s", dir, names[i]);
			unlink(path.buf);
			free(names[i]);
		}
		free(names);
	}
	rmdir(dir);
	strbuf_release(&ignored);
	strbuf_release(&path);
}

static int read_records(struct merge *m, const char *path, struct strbuf *err)
{
	const char *tmp = getenv("TMPDIR");
	struct strbuf dir = STRBUF_INIT, out = STRBUF_INIT;
	struct metric_options mo = { .output = METRIC_CSV, .partial = m->o.partial };
	struct line_reader *lr;
	struct metric_stream *ms;
	struct line_sink sink;
	int ret = -1;
	strbuf_addf(&dir, "%s/probe-merge-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir.buf)) {
		msg_fail(err, dir.buf, "cannot make a temporary directory: %s", strerror(errno));
		strbuf_release(&dir);
		return -1;
	}
	if (!(lr = line_reader_open(path, err)))
		goto done;
	mo.output_dir = dir.buf;
	mo.input_name = line_reader_name(lr);
	ms = metric_new(&mo);
	sink = metric_sink(ms);
	ret = line_reader_feed(lr, &sink, &out, err);
	metric_free(ms);
	line_reader_close(lr);
	if (ret == 0)
		ret = read_dir(m, dir.buf, true, err);
done:
	remove_dir(dir.buf);
	strbuf_release(&dir);
	strbuf_release(&out);
	return ret < 0 ? -1 : 0;
}

int merge_add_operand(struct merge *m, const char *path, struct strbuf *err)
{
	struct stat st;
	if (strcmp(path, "-") && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return read_dir(m, path, false, err);
	if (ends_with(path, ".xlsx"))
		return read_table_file(m, path, K_XLSX, err);
	if (ends_with(path, ".csv"))
		return read_table_file(m, path, K_CSV, err);
	return read_records(m, path, err);
}

/* ---- the group check ---------------------------------------------------------------------- */

/* The ranks in a group's text: every number in it ("[0, 1, 2, 3]", "tp-0-1-2-3"). */
static size_t group_ranks(const char *text, int64_t **out)
{
	size_t n = 0, alloc = 0;
	*out = NULL;
	for (const char *p = text; *p;) {
		if (*p >= '0' && *p <= '9') {
			char *end;
			int64_t r = strtoll(p, &end, 10);
			ALLOC_GROW(*out, n + 1, alloc);
			(*out)[n++] = r;
			p = end;
		} else {
			p++;
		}
	}
	return n;
}

static bool has_rank(const int64_t *v, size_t n, int64_t r)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == r)
			return true;
	return false;
}

/* Operators whose ranks end with the same tensor. */
static bool ends_alike(const char *entry)
{
	static const char *const apis[] = { "all_reduce", "all_gather", "all_gather_into_tensor", "_all_gather_base",
					    "broadcast", "all_reduce_coalesced", "all_gather_coalesced" };
	const char *a = strchr(entry, '.'), *e;
	size_t n;
	if (!a)
		return false;
	a++;
	e = strchr(a, '.');
	n = e ? (size_t)(e - a) : strlen(a);
	for (size_t i = 0; i < ARRAY_SIZE(apis); i++)
		if (strlen(apis[i]) == n && !strncmp(a, apis[i], n))
			return true;
	return false;
}

static struct group_sum *group_for(struct merge *m, const char *text)
{
	for (size_t i = 0; i < m->ngroups; i++)
		if (!strcmp(m->groups[i].text, text))
			return &m->groups[i];
	ALLOC_GROW(m->groups, m->ngroups + 1, m->groups_alloc);
	m->groups[m->ngroups] = (struct group_sum){ .text = xstrdup(text) };
	return &m->groups[m->ngroups++];
}

static struct cop *rank_op(const struct rank_ops *r, const char *entry)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->ops[i].entry, entry))
			return &r->ops[i];
	return NULL;
}

static const struct leafrow *leaf_of(const struct cop *c, const char *leaf)
{
	for (size_t i = 0; i < c->nleaves; i++)
		if (!strcmp(c->leaves[i].leaf, leaf))
			return &c->leaves[i];
	return NULL;
}

/* One output leaf of one operator across the group's ranks (members[], ops[]): a finding when they differ. */
static void compare_leaf(struct merge *m, const char *entry, const char *group, const char *leaf, bool golden,
			 struct cop **ops, const int64_t *members, size_t n)
{
	const char *vals[256];
	size_t best = 0, best_count = 0, k = 0;
	bool differ = false;
	if (n > ARRAY_SIZE(vals))
		n = ARRAY_SIZE(vals);
	for (size_t i = 0; i < n; i++) {
		const struct leafrow *l = leaf_of(ops[i], leaf);
		vals[i] = l ? (golden ? l->bench : l->npu) : NULL;
		if (!vals[i])
			return; /* a rank without it (or an unmatched golden): nothing to hold against */
		differ = differ || strcmp(vals[i], vals[0]);
	}
	if (!differ)
		return;
	for (size_t i = 0; i < n; i++) {
		size_t c = 0;
		for (size_t j = 0; j < n; j++)
			c += !strcmp(vals[i], vals[j]);
		if (c > best_count) {
			best_count = c;
			best = i;
		}
	}
	ALLOC_GROW(m->findings, m->nfindings + 1, m->findings_alloc);
	struct finding *f = &m->findings[m->nfindings++];
	*f = (struct finding){ .entry = xstrdup(entry), .leaf = xstrdup(leaf), .group = xstrdup(group),
			       .golden = golden, .nmembers = n };
	f->ranks = xcalloc(n, sizeof(*f->ranks));
	f->members = xcalloc(n, sizeof(*f->members));
	f->values = xcalloc(n, sizeof(*f->values));
	for (size_t i = 0; i < n; i++) {
		f->members[i] = members[i];
		f->values[i] = xstrdup(vals[i]);
		/* no majority (every value as common as the most common): every rank is named */
		if (best_count * 2 <= n || strcmp(vals[i], vals[best]))
			f->ranks[k++] = members[i];
	}
	f->nranks = k;
}

/* Whether a rank's inputs of an operator differ from its golden's. */
static bool inputs_differ(const struct cop *c)
{
	for (size_t i = 0; i < c->nleaves; i++) {
		const struct leafrow *l = &c->leaves[i];
		if (l->input && l->npu && (!l->bench || strcmp(l->npu, l->bench)))
			return true;
	}
	return false;
}

/* One operator of the first rank that has it, across the ranks of its group. */
static void check_entry(struct merge *m, const struct cop *c)
{
	const char *text = c->group_text ? c->group_text : "(all ranks)";
	int64_t *granks = NULL, members[256];
	struct cop *ops[256];
	size_t ng = c->group_text ? group_ranks(c->group_text, &granks) : 0, n = 0;
	struct group_sum *g = group_for(m, text);
	for (size_t j = 0; j < m->nranks && n < ARRAY_SIZE(ops); j++) {
		struct cop *o = rank_op(m->ranks[j], c->entry);
		if (!o || (c->group_text && !has_rank(granks, ng, m->ranks[j]->rank)))
			continue;
		if ((o->group_text == NULL) != (c->group_text == NULL) ||
		    (o->group_text && strcmp(o->group_text, c->group_text)))
			continue; /* that rank's operator of this name is another group's */
		members[n] = m->ranks[j]->rank;
		ops[n++] = o;
	}
	free(granks);
	g->ops++;
	if (!g->nmembers && n) {
		g->members = xcalloc(n, sizeof(*g->members));
		memcpy(g->members, members, n * sizeof(*members));
		g->nmembers = n;
	}
	if (!g->first_entry) {
		size_t k = 0;
		int64_t differ[256];
		for (size_t i = 0; i < n; i++)
			if (inputs_differ(ops[i]))
				differ[k++] = members[i];
		if (k) {
			g->first_entry = xstrdup(c->entry);
			g->first_ranks = xcalloc(k, sizeof(*g->first_ranks));
			memcpy(g->first_ranks, differ, k * sizeof(*differ));
			g->nfirst = k;
		}
	}
	if (n < 2 || !ends_alike(c->entry))
		return;
	g->checked++;
	size_t before = m->nfindings;
	for (size_t k = 0; k < c->nleaves; k++) {
		if (c->leaves[k].input)
			continue;
		compare_leaf(m, c->entry, text, c->leaves[k].leaf, false, ops, members, n);
		compare_leaf(m, c->entry, text, c->leaves[k].leaf, true, ops, members, n);
	}
	if (m->nfindings > before) {
		g->disagree++;
		for (size_t i = before; i < m->nfindings; i++)
			if (!m->findings[i].golden) {
				m->disagreements++;
				break;
			}
	}
}

/* Every operator once, in the order of the first rank that has it. */
static void check_groups(struct merge *m)
{
	struct strmap done = STRMAP_INIT;
	for (size_t j = 0; j < m->nranks; j++)
		for (size_t i = 0; i < m->ranks[j]->n; i++) {
			const struct cop *c = &m->ranks[j]->ops[i];
			bool created;
			strbuf_reset(&m->scratch);
			strbuf_addf(&m->scratch, "%s\x1f%s", c->entry, c->group_text ? c->group_text : "");
			strmap_put(&done, m->scratch.buf, m->scratch.len, &created);
			if (created)
				check_entry(m, c);
		}
	strmap_release(&done);
}

static int by_rank(const void *a, const void *b)
{
	const struct rank_ops *x = *(const struct rank_ops *const *)a, *y = *(const struct rank_ops *const *)b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

int merge_finish(struct merge *m, struct strbuf *err)
{
	if (m->tables < 2) {
		strbuf_addf(err, "Number of compare result is no more than 1, no need to merge (%zu rank%s read).",
			    m->tables, m->tables == 1 ? "" : "s");
		return -1;
	}
	qsort(m->ranks, m->nranks, sizeof(*m->ranks), by_rank);
	if (!m->o.groups_only && mres_finish(m->mres, err) < 0)
		return -1;
	check_groups(m);
	return 0;
}

/* ---- writers -------------------------------------------------------------------------------- */

static void cell_of(const struct mres_value *v, struct xlsxw_cell *c, struct strbuf *text)
{
	if (!v || v->kind == MRES_NAN || (v->kind == MRES_STR && !*v->s)) {
		c->type = XLSXW_EMPTY;
		return;
	}
	switch (v->kind) {
	case MRES_INT:
	case MRES_FLOAT:
		if (isfinite(v->f)) {
			c->type = XLSXW_NUMBER;
			c->num = v->f;
			return;
		}
		break;
	case MRES_BOOL:
		c->type = v->b ? XLSXW_TRUE : XLSXW_FALSE;
		return;
	default:
		break;
	}
	mres_str(text, v);
	c->type = XLSXW_TEXT;
}

static int write_sheets(const struct merge *m, struct xlsxw *w, struct strbuf *err)
{
	size_t nr = mres_nranks(m->mres);
	const char **header = xcalloc(nr + 1, sizeof(*header));
	struct xlsxw_cell *cells = xcalloc(nr + 1, sizeof(*cells));
	struct strbuf *texts = xcalloc(nr + 1, sizeof(*texts));
	int ret = 0;
	header[0] = "NPU Name";
	for (size_t j = 0; j < nr; j++) {
		strbuf_init(&texts[j + 1], 0);
		strbuf_addf(&texts[j + 1], "rank%lld", (long long)mres_rank(m->mres, j));
		header[j + 1] = xstrdup(texts[j + 1].buf);
	}
	for (size_t i = 0; i < mres_nindexes(m->mres) && !ret; i++) {
		ret = xlsxw_begin(w, mres_index(m->mres, i), header, nr + 1, err);
		for (size_t r = 0; r < mres_nrows(m->mres, i) && !ret; r++) {
			cells[0] = (struct xlsxw_cell){ .type = XLSXW_TEXT, .text = mres_row_name(m->mres, i, r) };
			for (size_t j = 0; j < nr; j++) {
				strbuf_reset(&texts[j + 1]);
				cell_of(mres_cell(m->mres, i, r, j), &cells[j + 1], &texts[j + 1]);
				cells[j + 1].text = texts[j + 1].buf;
			}
			ret = xlsxw_row(w, cells, nr + 1, 0, err);
		}
		if (!ret)
			ret = xlsxw_end(w, err);
	}
	for (size_t j = 0; j < nr; j++) {
		free((char *)header[j + 1]);
		strbuf_release(&texts[j + 1]);
	}
	free(header);
	free(cells);
	free(texts);
	return ret;
}

int merge_write_xlsx(struct merge *m, const char *dir, struct strbuf *path, struct strbuf *err)
{
	char stamp[NAMING_STAMP_SIZE];
	struct strbuf base = STRBUF_INIT, final = STRBUF_INIT;
	struct xlsxw_options xo = { .tmpdir = dir };
	struct partial *part;
	struct xlsxw *w;
	int fd, ret;
	naming_stamp_now(stamp);
	strbuf_addf(&base, "%s/multi_ranks_compare_merge_%s", dir, stamp);
	strbuf_addf(&final, "%s.xlsx", base.buf);
	partial_init();
	fd = partial_create_private(final.buf, &part, err);
	ret = fd < 0 ? -1 : 0;
	if (!ret) {
		close(fd);
		ret = (w = xlsxw_new(partial_tmp_name(part), &xo, err)) ? 0 : -1;
		if (!ret) {
			ret = write_sheets(m, w, err);
			if (!ret)
				ret = xlsxw_close(w, err);
			xlsxw_free(w);
		}
		if (!ret)
			ret = partial_commit_numbered(part, base.buf, ".xlsx", path, err);
		else
			partial_drop(part);
	}
	strbuf_release(&base);
	strbuf_release(&final);
	return ret;
}

static void add_csv_cell(struct strbuf *out, const char *cell, bool first, struct strbuf *tmp)
{
	strbuf_reset(tmp);
	mscsv_add_cell(out, mscsv_neutralise(cell, tmp) ? tmp->buf : cell, first);
}

void merge_write_csv(const struct merge *m, struct strbuf *out)
{
	struct strbuf cell = STRBUF_INIT, tmp = STRBUF_INIT;
	size_t nr = mres_nranks(m->mres);
	mscsv_add_cell(out, "compare_index", true);
	mscsv_add_cell(out, "NPU Name", false);
	for (size_t j = 0; j < nr; j++) {
		strbuf_reset(&cell);
		strbuf_addf(&cell, "rank%lld", (long long)mres_rank(m->mres, j));
		mscsv_add_cell(out, cell.buf, false);
	}
	strbuf_addch(out, '\n');
	for (size_t i = 0; i < mres_nindexes(m->mres); i++)
		for (size_t r = 0; r < mres_nrows(m->mres, i); r++) {
			add_csv_cell(out, mres_index(m->mres, i), true, &tmp);
			add_csv_cell(out, mres_row_name(m->mres, i, r), false, &tmp);
			for (size_t j = 0; j < nr; j++) {
				const struct mres_value *v = mres_cell(m->mres, i, r, j);
				strbuf_reset(&cell);
				if (v && v->kind != MRES_NAN)
					mres_str(&cell, v);
				add_csv_cell(out, cell.buf, false, &tmp);
			}
			strbuf_addch(out, '\n');
		}
	strbuf_release(&cell);
	strbuf_release(&tmp);
}

static void json_value(struct strbuf *out, const struct mres_value *v, struct strbuf *tmp)
{
	if (!v || v->kind == MRES_NAN) {
		strbuf_addstr(out, "null");
		return;
	}
	switch (v->kind) {
	case MRES_BOOL:
		strbuf_addstr(out, v->b ? "true" : "false");
		return;
	case MRES_INT:
	case MRES_FLOAT:
		if (isfinite(v->f)) {
			strbuf_reset(tmp);
			mres_str(tmp, v);
			strbuf_addbuf(out, tmp);
			return;
		}
		/* records spell the infinities as strings (probe-records(5)) */
		jsonw_str(out, v->f > 0 ? "inf" : "-inf");
		return;
	default:
		jsonw_str(out, v->s);
	}
}

void merge_write_ndjson(const struct merge *m, struct strbuf *out)
{
	struct strbuf tmp = STRBUF_INIT;
	size_t nr = mres_nranks(m->mres);
	for (size_t i = 0; i < mres_nindexes(m->mres); i++)
		for (size_t r = 0; r < mres_nrows(m->mres, i); r++) {
			strbuf_addstr(out, "{\"index\":");
			jsonw_str(out, mres_index(m->mres, i));
			strbuf_addstr(out, ",\"name\":");
			jsonw_str(out, mres_row_name(m->mres, i, r));
			strbuf_addstr(out, ",\"ranks\":{");
			for (size_t j = 0; j < nr; j++) {
				strbuf_addf(out, "%s\"%lld\":", j ? "," : "", (long long)mres_rank(m->mres, j));
				json_value(out, mres_cell(m->mres, i, r, j), &tmp);
			}
			strbuf_addstr(out, "}}\n");
		}
	strbuf_release(&tmp);
}

static void json_ranks(struct strbuf *out, const int64_t *v, size_t n)
{
	strbuf_addch(out, '[');
	for (size_t i = 0; i < n; i++)
		strbuf_addf(out, "%s%lld", i ? "," : "", (long long)v[i]);
	strbuf_addch(out, ']');
}

static void text_ranks(struct strbuf *out, const int64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		strbuf_addf(out, "%s%lld", i ? ", " : "", (long long)v[i]);
}

static void groups_ndjson(const struct merge *m, struct strbuf *out)
{
	for (size_t i = 0; i < m->nfindings; i++) {
		const struct finding *f = &m->findings[i];
		strbuf_addstr(out, "{\"check\":\"group_output\",\"group\":");
		jsonw_str(out, f->group);
		strbuf_addstr(out, ",\"op\":");
		jsonw_str(out, f->entry);
		strbuf_addstr(out, ",\"leaf\":");
		jsonw_str(out, f->leaf);
		strbuf_addf(out, ",\"side\":\"%s\",\"ranks\":", f->golden ? "golden" : "target");
		json_ranks(out, f->ranks, f->nranks);
		strbuf_addstr(out, ",\"values\":{");
		for (size_t k = 0; k < f->nmembers; k++) {
			strbuf_addf(out, "%s\"%lld\":", k ? "," : "", (long long)f->members[k]);
			jsonw_str(out, f->values[k]);
		}
		strbuf_addstr(out, "}}\n");
	}
	for (size_t i = 0; i < m->ngroups; i++) {
		const struct group_sum *g = &m->groups[i];
		strbuf_addstr(out, "{\"check\":\"group\",\"group\":");
		jsonw_str(out, g->text);
		strbuf_addstr(out, ",\"ranks\":");
		json_ranks(out, g->members, g->nmembers);
		strbuf_addf(out, ",\"operators\":%zu,\"checked\":%zu,\"disagree\":%zu,\"first_input_diff\":", g->ops,
			    g->checked, g->disagree);
		if (g->first_entry) {
			strbuf_addstr(out, "{\"op\":");
			jsonw_str(out, g->first_entry);
			strbuf_addstr(out, ",\"ranks\":");
			json_ranks(out, g->first_ranks, g->nfirst);
			strbuf_addch(out, '}');
		} else {
			strbuf_addstr(out, "null");
		}
		strbuf_addstr(out, "}\n");
	}
}

/* The names, groups and values in it come from the tables: their control characters made visible (textesc.h). */
static void groups_text(const struct merge *m, struct strbuf *out)
{
	size_t start = out->len;
	if (!m->ngroups)
		strbuf_addstr(out, "no communication operator in the inputs\n");
	for (size_t i = 0; i < m->ngroups; i++) {
		const struct group_sum *g = &m->groups[i];
		strbuf_addstr(out, "group ");
		text_escape_str(out, g->text, 0);
		strbuf_addstr(out, ": ranks ");
		text_ranks(out, g->members, g->nmembers);
		strbuf_addf(out, "; %zu communication operator%s, %zu whose outputs must agree", g->ops,
			    g->ops == 1 ? "" : "s", g->checked);
		if (g->disagree)
			strbuf_addf(out, ", %zu that disagree%s\n", g->disagree, g->disagree == 1 ? "s" : "");
		else
			strbuf_addstr(out, ", all agree\n");
		for (size_t k = 0; k < m->nfindings; k++) {
			const struct finding *f = &m->findings[k];
			if (strcmp(f->group, g->text))
				continue;
			strbuf_addstr(out, "  ");
			text_escape_str(out, f->entry, 0);
			strbuf_addch(out, ' ');
			text_escape_str(out, f->leaf, 0);
			strbuf_addf(out, " (%s): rank%s ", f->golden ? "golden" : "target", f->nranks == 1 ? "" : "s");
			text_ranks(out, f->ranks, f->nranks);
			strbuf_addstr(out, f->nranks == f->nmembers ? " all differ\n"
				      : f->nranks == 1		  ? " differs from the others\n"
								  : " differ from the others\n");
			for (size_t r = 0; r < f->nmembers; r++) {
				strbuf_addf(out, "    rank %lld: ", (long long)f->members[r]);
				text_escape_str(out, f->values[r], 0);
				strbuf_addch(out, '\n');
			}
		}
		if (g->first_entry) {
			strbuf_addstr(out, "  the first input that differs from its golden: ");
			text_escape_str(out, g->first_entry, 0);
			strbuf_addf(out, " on rank%s ", g->nfirst == 1 ? "" : "s");
			text_ranks(out, g->first_ranks, g->nfirst);
			strbuf_addch(out, '\n');
		} else {
			strbuf_addstr(out, "  every rank's inputs agree with its golden\n");
		}
	}
	text_escape_tail(out, start, TEXT_KEEP_NL);
}

void merge_write_groups(const struct merge *m, bool text, struct strbuf *out)
{
	if (text)
		groups_text(m, out);
	else
		groups_ndjson(m, out);
}

size_t merge_group_disagreements(const struct merge *m)
{
	return m->disagreements;
}
