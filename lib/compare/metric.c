#include "metric.h"
#include "../msprobe/naming.h"
#include "atbtab.h"
#include "consist.h"
#include "../dumps/layout.h"
#include "alike.h"
#include "../core/msg.h"
#include "../core/arena.h"
#include "../json/jsonw.h"
#include "../records/leafrec.h"
#include "../records/pair.h"
#include "../core/partial.h"
#include "../msprobe/mscsv.h"
#include "../msprobe/pyfmt.h"
#include "../json/recscan.h"
#include "../dumps/stack.h"
#include "../core/strmap.h"
#include "../core/swar.h"
#include "../tensors/tensor.h"
#include "tmetric.h"
#include "ckcmp.h"
#include "../core/xalloc.h"
#include "../core/xlsxw.h"
#include "../records/output.h"

#include <math.h>
#include <pthread.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

struct batch;

/*
 * One pair and what becomes of it.  The pair comes first: parse_pair()
 * fills it in place and clears only what follows it (an item is a few
 * kilobytes, most of it the two leaves' spans, and there are millions).
 */
struct item {
	struct pair p;      /* the pair record (its line: the batch's text) */
	struct batch *batch;
	bool in_table;      /* a row of msprobe's table */
	struct ms_row row;
	struct verdict_result v;
	struct tmetric *tm;       /* tensor mode: the tensors compared (prepare's arena), or NULL */
	const char *tm_cells[TM_NCELLS];
	const char *tensor_problem; /* why the tensors could not be compared by us, or NULL */
	bool tm_compared;           /* both tensors were read and compared */
};
_Static_assert(offsetof(struct item, p) == 0, "parse_pair() clears what follows the pair");

/*
 * Lines travel in batches: the reading thread copies them in, a worker
 * parses and prepares them (parse_pair, prepare_item: per pair, no shared
 * state), and the reading thread takes finished batches in input order for
 * everything that depends on the pairs before (tables, groups, msprobe's
 * whole-table rules, output).  A batch lives until the last of its items
 * has been written.
 */
#define BATCH_LINES 512
#define BATCH_BYTES (256 * 1024)

struct batch {
	char *text;             /* the lines, back to back */
	size_t text_len, text_alloc;
	struct line_span { size_t start, len; } *lines; /* in text */
	size_t n, alloc;
	uint64_t first_line;    /* input line number of the first */
	struct item *items;     /* n, once prepared */
	size_t items_alloc;
	struct arena arena;     /* what preparing allocates */
	size_t failed;          /* index of the first line that failed, n when none */
	struct strbuf err;
	bool prepared;          /* a worker is done with it */
	size_t consumed;        /* items taken into groups */
	size_t live;            /* items taken and not yet written */
	bool retired;           /* all taken, out of the flight: goes when live drops to 0 */
};

/* The pairs of one dump entry (or one golden-only leaf), and their memory. */
#define MSPROBE_CSV_ROWS 1000000 /* msprobe splits its CSV files after this many rows */

struct group {
	struct arena arena;
	struct item **items;
	size_t n, alloc;
	char *entry;        /* the target entry, NULL for golden-only leaves */
	int64_t rank, step;
	int exec_mode;      /* the folder of a graph/pynative root (leafrec.h) */
	bool complete;
};

struct metric_stream {
	struct metric_options opts;
	struct consist_table *consist; /* the pairs are a consistency compare's (consist.h): its table does it all */
	struct atb_table *atb;         /* the pairs are of ATB dumps (atbtab.h): so does its table */
	bool first_seen;               /* the first line has been looked at for that */
	uint64_t consist_structural;   /* its rows our verdict calls structural */
	struct alike *alike;
	const char *ms_refuses; /* msprobe's message when it would not compare these dumps at all, or NULL */
	uint64_t unreadable_pairs; /* matched tensor pairs whose files could not be read */
	struct strbuf first_unreadable; /* the first one's problem */
	bool mode_known;
	struct ms_table table;
	bool table_open;        /* a table has started */
	int64_t table_rank, table_step;
	int table_mode;         /* exec_mode of the table's target leaves */
	uint64_t tables;
	/* output_dir: the current file */
	FILE *file;
	struct xlsxw *book;        /* --xlsx: the current workbook (the file is m->part's) */
	bool first_marked;         /* --xlsx-reader: the table's first divergence is marked */
	struct partial *part;      /* the current (or last) part, renamed when the whole run succeeds */
	struct strbuf file_name;   /* without ".csv" */
	struct out_table {         /* every table written, for the names they get at the end */
		char *base;        /* msprobe's name, without ".csv" */
		const char *ext;   /* ".csv" or ".xlsx" */
		struct partial **parts;
		size_t nparts, alloc;
	} *out_tables;
	size_t nout_tables, out_tables_alloc;
	/* msprobe's refusal of the current table (formula injection, see emit_refusals) */
	enum { REFUSE_NONE, REFUSE_CELL, REFUSE_GOLDEN } refusal;
	struct strbuf refusal_msg;
	uint64_t refusal_line;
	int64_t refusal_seq;       /* REFUSE_GOLDEN: the golden leaf's seq (the earliest wins) */
	struct strbuf check_text;  /* scratch of the checks */
	const char *const *checked_header; /* the header list_cols are for */
	size_t list_cols[2];       /* its NPU_Stack_Info and Data_name columns (SIZE_MAX: none) */
	struct strbuf file_buf;
	size_t file_rows, file_part;
	bool stack_decided, stack_mode, header_done;
	struct strmap stacks;   /* dump path -> struct stack_map * (NULL: none) */
	struct strmap table_names; /* -o: the file names given in this run */
	struct group **queue;   /* pending groups, in input order */
	size_t nqueue, queue_alloc;
	struct group **pool;    /* finished groups, for reuse */
	size_t npool, pool_alloc;
	struct metric_stats stats;
	struct strbuf scratch;
	/* batches */
	struct batch *filling;      /* the reading thread's */
	struct batch **flight;      /* submitted, in input order */
	size_t nflight, flight_alloc;
	struct batch **spare;
	size_t nspare, spare_alloc;
	struct batch **all;         /* every batch, for freeing */
	size_t nall, all_alloc;
	uint64_t lines;             /* read so far */
	uint64_t error_line;        /* the line an error is about, 0 when none */
	/* workers */
	int jobs;
	pthread_t *threads;
	size_t nthreads;
	bool tensor_workers;        /* tensor mode: jobs workers, and the main thread only waits */
	pthread_mutex_t lock;
	pthread_cond_t work, done;  /* a batch to prepare / a batch prepared */
	struct batch **todo;        /* submitted, not yet taken by a worker */
	size_t ntodo, todo_alloc;
	bool stopping;
};

static void batch_free(struct batch *b);
static void stop_workers(struct metric_stream *m);
static struct xlsxw *open_book(const struct metric_stream *m, const char *final, struct partial **part,
			       struct strbuf *err);
static int close_book(struct metric_stream *m, struct strbuf *err);

/* One job per processor online, 1 to 64. */
static int online_processors(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

struct metric_stream *metric_new(const struct metric_options *opts)
{
	struct metric_stream *m = xcalloc(1, sizeof(*m));
	m->opts = *opts;
	if (!m->opts.rows_per_file)
		m->opts.rows_per_file = MSPROBE_CSV_ROWS;
	m->jobs = opts->jobs > 0 ? opts->jobs : online_processors();
	strbuf_init(&m->scratch, 0);
	strbuf_init(&m->file_name, 0);
	strbuf_init(&m->refusal_msg, 0);
	strbuf_init(&m->check_text, 0);
	strbuf_init(&m->file_buf, 0);
	strbuf_init(&m->first_unreadable, 0);
	m->alike = alike_new(&(struct alike_options){ .partial = opts->partial,
						       .any_framework = opts->output == METRIC_CSV });
	if (opts->force_mode) {
		m->mode_known = true;
		ms_table_init(&m->table, opts->mode, false);
	}
	return m;
}

static void group_free(struct group *g)
{
	arena_release(&g->arena);
	free(g->items);
	free(g->entry);
	free(g);
}

void metric_free(struct metric_stream *m)
{
	if (!m)
		return;
	consist_table_free(m->consist);
	atb_table_free(m->atb);
	stop_workers(m);
	for (size_t i = 0; i < m->nqueue; i++)
		group_free(m->queue[i]);
	for (size_t i = 0; i < m->nall; i++)
		batch_free(m->all[i]);
	free(m->all);
	free(m->flight);
	free(m->spare);
	free(m->todo);
	for (size_t i = 0; i < m->npool; i++)
		group_free(m->pool[i]);
	for (size_t i = 0; i < m->stacks.cap; i++)
		if (m->stacks.slots[i].hash)
			stack_map_free(m->stacks.slots[i].value.p);
	strmap_release(&m->stacks);
	strmap_release(&m->table_names);
	free(m->queue);
	free(m->pool);
	if (m->file)
		fclose(m->file);
	xlsxw_free(m->book);
	for (size_t i = 0; i < m->nout_tables; i++) {
		free(m->out_tables[i].base);
		free(m->out_tables[i].parts);
	}
	free(m->out_tables);
	strbuf_release(&m->scratch);
	strbuf_release(&m->refusal_msg);
	strbuf_release(&m->check_text);
	strbuf_release(&m->file_name);
	strbuf_release(&m->file_buf);
	strbuf_release(&m->first_unreadable);
	alike_free(m->alike);
	free(m);
}

/* ---- groups ---------------------------------------------------------------- */

static struct group *new_group(struct metric_stream *m, const char *entry, int64_t rank, int64_t step, int exec_mode)
{
	struct group *g;
	if (m->npool) {
		g = m->pool[--m->npool];
	} else {
		g = xcalloc(1, sizeof(*g));
	}
	g->entry = entry ? xstrdup(entry) : NULL;
	g->rank = rank;
	g->step = step;
	g->exec_mode = exec_mode;
	g->complete = !entry;
	ALLOC_GROW(m->queue, m->nqueue + 1, m->queue_alloc);
	m->queue[m->nqueue++] = g;
	return g;
}

static void item_written(struct metric_stream *m, struct item *it);

static void recycle_group(struct metric_stream *m, struct group *g)
{
	for (size_t i = 0; i < g->n; i++)
		item_written(m, g->items[i]);
	arena_reset(&g->arena);
	g->n = 0;
	free(g->entry);
	g->entry = NULL;
	ALLOC_GROW(m->pool, m->npool + 1, m->pool_alloc);
	m->pool[m->npool++] = g;
}

/* ---- stacks ---------------------------------------------------------------- */

/* The stack.json beside a dump file, loaded once per dump (NULL when there is none). */
static const struct stack_map *stacks_of(struct metric_stream *m, const char *dump)
{
	bool created;
	struct strmap_slot *s = strmap_put(&m->stacks, dump, strlen(dump), &created);
	if (created) {
		struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;
		const char *slash = strrchr(dump, '/');
		if (strcmp(dump, "-")) {
			if (slash)
				strbuf_add(&path, dump, (size_t)(slash - dump) + 1);
			strbuf_addstr(&path, "stack.json");
			if (!access(path.buf, R_OK)) {
				s->value.p = stack_map_load(path.buf, &err);
				if (!s->value.p)
					warning("%s; NPU_Stack_Info left empty", err.buf);
			}
		}
		strbuf_release(&path);
		strbuf_release(&err);
	}
	return s->value.p;
}

static void decide_stack_mode(struct metric_stream *m, const struct item *it)
{
	if (m->stack_decided)
		return;
	m->stack_decided = true;
	if (m->opts.no_stack)
		return;
	if (it->p.t.f[LF_STACK].kind == SPAN_ARRAY) {
		m->stack_mode = true;
		return;
	}
	leafrec_str(&it->p.t, LF_DUMP, &m->scratch);
	m->stack_mode = m->scratch.len && stacks_of(m, m->scratch.buf) != NULL;
}

/* ';' or '\\': where a string could hold msprobe's pattern past its first character */
SWAR_SEARCH_EITHER(find_semi_or_backslash, ';', '\\')

/* A string span msprobe's parse-time pattern refuses. */
static bool span_special(struct metric_stream *m, const struct span *v)
{
	const unsigned char *q, *end;
	if (v->kind != SPAN_STRING || v->n < 3)
		return false;
	/* the common case at once: a plain first character, no ';' and no escape (which could make one) */
	q = (const unsigned char *)v->p + 1;
	end = (const unsigned char *)v->p + v->n - 1;
	switch (*q) {
	case '+': case '-': case '=': case '%': case '@': case 0xef: case '\\':
		break;
	default:
		if (find_semi_or_backslash((const char *)q, (const char *)end) == (const char *)end)
			return false;
	}
	strbuf_reset(&m->check_text);
	return span_string(v, &m->check_text) == 0 && mscsv_special(m->check_text.buf, m->check_text.len);
}

/*
 * NPU_Stack_Info of the first row of an entry: Python repr of its frames (and, when cached, its CSV cell);
 * *special: whether msprobe refuses a frame of it (see emit_refusals).
 */
static const char *entry_stack(struct metric_stream *m, struct item *it, struct arena *a, const char **csv,
			       bool *special)
{
	const struct span *st = &it->p.t.f[LF_STACK];
	const struct stack_map *sm;
	const struct stack *s;
	size_t len;
	if (st->kind == SPAN_ARRAY && it->p.t.f[LF_STACK_FROM].kind != SPAN_NONE)
		return NULL; /* borrowed from the forward call by probe-stack: msprobe shows none */
	if (st->kind == SPAN_ARRAY) {
		struct pyval *v = pyval_parse(st, 0, a);
		struct strbuf sb = STRBUF_INIT;
		const char *res;
		struct rs_iter ri;
		struct span f;
		if (rs_begin_array(&ri, st->p, st->n) == 0)
			while (!*special && rs_next_item(&ri, &f) == 1)
				*special = span_special(m, &f);
		if (!v)
			return NULL;
		pyval_repr(&sb, v);
		res = arena_memdupz(a, sb.buf, sb.len);
		strbuf_release(&sb);
		return res;
	}
	leafrec_str(&it->p.t, LF_DUMP, &m->scratch);
	sm = m->scratch.len ? stacks_of(m, m->scratch.buf) : NULL;
	if (!sm)
		return NULL;
	s = stack_map_get(sm, it->row.t.entry, strlen(it->row.t.entry));
	if (!s)
		return NULL;
	*special = s->special;
	*csv = stack_csv(sm, s, &len);
	return stack_repr(sm, s, &len);
}

/* ---- mode ------------------------------------------------------------------ */

/*
 * Two dumps msprobe will not compare: a tensor dump against another task
 * (any matched pair tells), or an md5 dump against a plain statistics one
 * (msprobe looks for an md5 anywhere in each dump; here the first matched
 * tensor pair decides, md5: whether each side carries one).  The CSV
 * cannot be written; the records get "msprobe": null.
 */
static int check_tasks(struct metric_stream *m, const struct item *it, const bool *md5, struct strbuf *err)
{
	enum alike_kind t, g;
	if (m->ms_refuses || !it->p.has_t || !it->p.has_g || m->opts.force_mode)
		return 0;
	t = alike_kind_of(&it->p.t);
	g = alike_kind_of(&it->p.g);
	if (t == ALIKE_NONE || g == ALIKE_NONE)
		return 0;
	if ((t == ALIKE_TENSOR) != (g == ALIKE_TENSOR))
		m->ms_refuses = "Please check the dump task is consistent.";
	else if (md5 && md5[0] != md5[1])
		m->ms_refuses = "Please check the dump task is consistent, dump mode of npu and bench should both be "
				"statistics or md5.";
	if (!m->ms_refuses || m->opts.output != METRIC_CSV)
		return 0;
	strbuf_addf(err, "%s against %s: msprobe writes no compare_result for these (\"%s\"); probe-metric "
			 "without --csv compares what they have in common",
		    alike_kind_dump(t), alike_kind_dump(g), m->ms_refuses);
	return -1;
}

static int decide_mode(struct metric_stream *m, const struct item *it, struct strbuf *err)
{
	const struct leafrec *sides[2] = { it->p.has_t ? &it->p.t : NULL, it->p.has_g ? &it->p.g : NULL };
	bool md5[2] = { false, false }, tensor[2] = { false, false };
	enum ms_mode mode;
	for (int i = 0; i < 2; i++) {
		if (!sides[i] || mscell_kind_of(sides[i]) != MS_TENSOR)
			continue;
		tensor[i] = true;
		md5[i] = sides[i]->f[LF_MD5].kind == SPAN_STRING;
		if (span_str_eq(&sides[i]->f[LF_TASK], "tensor", 6))
			md5[i] = false;
	}
	if (!tensor[0] && !tensor[1])
		return 0; /* not yet */
	if (check_tasks(m, it, tensor[0] && tensor[1] ? md5 : NULL, err) < 0)
		return -1;
	const struct leafrec *s = tensor[0] ? sides[0] : sides[1];
	if (m->ms_refuses)
		mode = MS_MODE_STATISTICS; /* what the two have in common; msprobe's view stays empty */
	else if (span_str_eq(&s->f[LF_TASK], "tensor", 6))
		mode = MS_MODE_TENSOR;
	else
		mode = (tensor[0] ? md5[0] : md5[1]) ? MS_MODE_MD5 : MS_MODE_STATISTICS;
	ms_table_init(&m->table, mode, false);
	m->mode_known = true;
	return 1;
}

/* ---- reading a pair -------------------------------------------------------- */

/* The pair's spans, pointing into line (nothing allocated yet). */
static int parse_pair(struct item *it, const char *line, size_t len, struct strbuf *err)
{
	memset((char *)it + sizeof(it->p), 0, sizeof(*it) - sizeof(it->p));
	if (pair_parse(&it->p, line, len, err) < 0)
		return -1;
	it->row.matched = it->p.has_g && !it->p.gated; /* msprobe_unmatched: the dtype gate */
	return 0;
}

/* ---- tensors ----------------------------------------------------------------- */

/*
 * The leaf's tensor file ("data", made by probe-flatten from the dump's place), or NULL;
 * *name: its "data_name" (what tensor_open_leaf() keeps inside the tensor folder), or NULL;
 * *member: its "data_member" (the parameter inside a checkpoint "data" names), or NULL.
 */
static const char *tensor_path(const struct leafrec *r, struct arena *a, const char **name, const char **member)
{
	struct strbuf sb = STRBUF_INIT;
	const char *path = NULL;
	*name = NULL;
	*member = NULL;
	if (r->f[LF_DATA_MEMBER].kind == SPAN_STRING && span_string(&r->f[LF_DATA_MEMBER], &sb) == 0)
		*member = arena_memdupz(a, sb.buf, sb.len);
	strbuf_reset(&sb);
	if (r->f[LF_DATA].kind == SPAN_STRING && span_string(&r->f[LF_DATA], &sb) == 0 && sb.len)
		path = arena_memdupz(a, sb.buf, sb.len);
	strbuf_reset(&sb);
	if (r->f[LF_DATA_NAME].kind == SPAN_STRING && span_string(&r->f[LF_DATA_NAME], &sb) == 0 && sb.len)
		*name = arena_memdupz(a, sb.buf, sb.len);
	strbuf_release(&sb);
	return path;
}

/*
 * msprobe's file checker before torch.load: a regular file under 10 GiB
 * named *.pt, whose resolved path is at most 4096 characters of
 * [a-zA-Z0-9_.:/-] with a base name of at most 255.
 */
static bool msprobe_would_read(const char *path)
{
	char *real = realpath(path, NULL);
	const char *base;
	bool ok = real != NULL;
	struct stat st;
	if (ok) {
		size_t n = strlen(real);
		base = strrchr(real, '/');
		base = base ? base + 1 : real;
		ok = n <= 4096 && strlen(base) <= 255 && n >= 3 && !strcmp(real + n - 3, ".pt") &&
		     strspn(real, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:/-") == n &&
		     !stat(real, &st) && S_ISREG(st.st_mode) && st.st_size < ((off_t)10 << 30);
	}
	free(real);
	return ok;
}

static const char *arena_printf(struct arena *a, const char *fmt, const char *x, const char *y)
{
	struct strbuf sb = STRBUF_INIT;
	const char *res;
	strbuf_addf(&sb, fmt, x, y);
	res = arena_memdupz(a, sb.buf, sb.len);
	strbuf_release(&sb);
	return res;
}

/* Both tensor files read and compared (ours), and msprobe's cells as msprobe gets them. */
static void prepare_tensors(const struct metric_stream *m, struct item *it, struct arena *a)
{
	const struct tm_band band = { m->opts.band.rtol, m->opts.band.atol, 0 };
	const char *tn, *gn = NULL, *tmem, *gmem = NULL;
	const char *tp = tensor_path(&it->p.t, a, &tn, &tmem), *gp = it->p.has_g ? tensor_path(&it->p.g, a, &gn, &gmem) : NULL;
	struct tensor tt, tg;
	struct strbuf err = STRBUF_INIT;
	const char *ms_note = NULL;
	bool t_open = false, g_open = false, compared = false, faulted = false;

	it->tm = arena_alloc(a, sizeof(*it->tm));
	tmetric_unsupported(it->tm, "");
	if (!tp || (it->p.has_g && !gp)) {
		it->tensor_problem = "no tensor file named in the record";
	} else if (!it->p.has_g) {
		/* unmatched: nothing to compare */
	} else {
		t_open = ckcmp_open_leaf(&tt, tp, tn, tmem, &err) == 0;
		g_open = t_open && ckcmp_open_leaf(&tg, gp, gn, gmem, &err) == 0;
		/*
		 * Ours: the elements, of files that hold what their dumps say (else the pair is
		 * unreadable, with the reason).  msprobe's cells: what its reading of the files gives.
		 */
		if (g_open)
			tensor_match_upcast(&tt, &tg); /* MindSpore's bfloat16 saved as float32 */
		if (!g_open) {
			it->tensor_problem = arena_memdupz(a, err.buf, err.len);
		} else if (tmetric_compare_files(&tt, &tg, &band, it->tm, &err) < 0) {
			faulted = true; /* a file shrank while it was read */
			it->tensor_problem = arena_memdupz(a, err.buf, err.len);
		} else {
			compared = verdict_tensor_declared(&it->p.t, &tt, tp, &err) == 0 &&
				   verdict_tensor_declared(&it->p.g, &tg, gp, &err) == 0;
			if (!compared)
				it->tensor_problem = arena_memdupz(a, err.buf, err.len);
		}
	}

	/*
	 * msprobe's view of the same row (msprobe-compare.md section 6, steps 1-2); parameters of
	 * checkpoints (data_member) as if msprobe had the two tensors to compare
	 */
	if (tmem && (!it->row.matched || gmem))
		ms_note = !it->row.matched ? "Bench api/module unmatched." : !g_open || faulted ? "Dump file: read failed." : NULL;
	else if (!strcmp(it->row.t.data_name, "-1"))
		ms_note = "NPU does not have data file.";
	else if (it->row.matched && !strcmp(it->row.g.data_name, "-1"))
		ms_note = "Bench does not have data file.";
	else if (!it->row.matched)
		ms_note = "Bench api/module unmatched.";
	else if (!g_open || faulted || !msprobe_would_read(tp) || !msprobe_would_read(gp))
		ms_note = arena_printf(a, "Dump file: %s or %s not found or read failed.", it->row.t.data_name,
				       it->row.g.data_name);
	if (ms_note) {
		/* msprobe's cells say unsupported; ours stay what the bytes said */
		struct tmetric cells;
		tmetric_unsupported(&cells, ms_note);
		memcpy(it->tm->cell, cells.cell, sizeof(cells.cell));
		memcpy(it->tm->notes, cells.notes, sizeof(cells.notes));
	}
	for (int i = 0; i < TM_NCELLS; i++)
		it->tm_cells[i] = it->tm->cell[i];
	it->row.tensor_cells = it->tm_cells;
	it->tm_compared = compared;
	if (t_open)
		tensor_close(&tt);
	if (g_open)
		tensor_close(&tg);
	strbuf_release(&err);
}

/*
 * Does this pair go through tensor comparison: a tensor leaf of a tensor
 * dump against one of a tensor dump or none (unmatched), unless --mode says
 * otherwise.
 */
static bool wants_tensors(const struct metric_stream *m, const struct item *it)
{
	if (m->opts.force_mode && m->opts.mode != MS_MODE_TENSOR)
		return false;
	return it->p.has_t && span_str_eq(&it->p.t.f[LF_TASK], "tensor", 6) && mscell_kind_of(&it->p.t) == MS_TENSOR &&
	       (!it->p.has_g || alike_compares_elements(&it->p.t, &it->p.g));
}

/* msprobe's cells and our verdict for a parsed pair; allocations from a. */
static int prepare_item(const struct metric_stream *m, struct item *it, struct arena *a, struct strbuf *err)
{
	const char *why;
	bool matched = it->row.matched;

	strbuf_init(&it->v.reason, 0);
	it->in_table = it->p.has_t && it->p.t.f[LF_MSPROBE_SKIPS].kind != SPAN_TRUE;
	if (it->in_table) {
		if (mscell_from_record(&it->row.t, &it->p.t, a, &why) < 0 ||
		    (it->p.has_g && mscell_from_record(&it->row.g, &it->p.g, a, &why) < 0)) {
			strbuf_addf(err, "a leaf of this pair: %s", why);
			return -1;
		}
		it->row.matched = matched;
	}
	if (it->in_table && wants_tensors(m, it))
		prepare_tensors(m, it, a);
	verdict_pair(it->p.has_t ? &it->p.t : NULL, it->p.has_g ? &it->p.g : NULL, &m->opts.band, &it->v);
	if (it->tm_compared || it->tensor_problem)
		verdict_tensor(&it->v, it->tm_compared ? it->tm : NULL, it->tensor_problem);
	return 0;
}

/* ---- output ---------------------------------------------------------------- */

static void add_msprobe(struct strbuf *out, const struct metric_stream *m, const struct item *it)
{
	size_t ncols;
	const char *const *header = ms_header(&m->table, &ncols);
	const struct ms_row *r = &it->row;
	strbuf_addstr(out, ",\"msprobe\":");
	if (!it->in_table || m->ms_refuses) {
		strbuf_addstr(out, "null");
		return;
	}
	strbuf_addstr(out, "{\"mode\":");
	jsonw_str(out, ms_mode_name(m->table.mode));
	strbuf_addstr(out, ",\"result\":");
	jsonw_str(out, r->cells[ms_result_col(&m->table)]);
	strbuf_addstr(out, ",\"err_message\":");
	strbuf_addstr(out, r->err_message);
	/* the metric cells: what lies between the 8 leading columns and Requires_grad Consistent */
	for (size_t c = 8; c < ncols && strcmp(header[c], "Requires_grad Consistent"); c++) {
		if (!strncmp(header[c], "NPU ", 4) || !strncmp(header[c], "Bench ", 6))
			if (strcmp(header[c], "NPU MD5"))
				continue; /* the statistics themselves are in t and g */
		strbuf_addch(out, ',');
		jsonw_str(out, header[c]);
		strbuf_addch(out, ':');
		jsonw_str(out, r->cells[c]);
	}
	strbuf_addch(out, '}');
}

static void emit_ndjson(struct metric_stream *m, const struct item *it, struct strbuf *out)
{
	/* the pair record without its closing brace, then ours */
	size_t end = it->p.len;
	while (end && it->p.line[end - 1] != '}')
		end--;
	strbuf_add(out, it->p.line, end - 1);
	add_msprobe(out, m, it);
	strbuf_addstr(out, ",\"verdict\":");
	jsonw_str(out, verdict_name(it->v.verdict));
	strbuf_addstr(out, ",\"reason\":");
	jsonw_string(out, it->v.reason.buf, it->v.reason.len);
	if (it->p.has_t && it->p.has_g)
		verdict_write_metrics(out, &it->p.t, &it->p.g, it->tm, it->tm_compared, it->tensor_problem);
	strbuf_addstr(out, "}\n");
}

/* ---- msprobe's refusals ------------------------------------------------------ */

/*
 * msprobe guards its CSV against formula injection (mscsv.h: mscsv_special,
 * mscsv_refused), and where it would write no table, none is written here
 * either, with its message.  Its order decides which message: while it
 * parses, the target ("NPU") dump entry by entry (the API name, then the
 * strings of input_args, input_kwargs and output, then the entry's stack
 * lines), then the golden dump; only then, writing, the header and every
 * string cell.  A target's refusal is therefore final at once (the records
 * come in its order); a golden's or a cell's only at the end of the table
 * (a target's, or an earlier golden leaf's, may still come): until then
 * nothing more of the table is written, and the input is read on.
 */
static uint64_t item_line(const struct item *it)
{
	return it->batch->first_line + (uint64_t)(it - it->batch->items);
}

/* The string values of an object's members, and of the objects in it (check_json_key_value: not in arrays). */
static bool object_special(struct metric_stream *m, const struct span *obj, int depth)
{
	struct rs_iter it;
	struct span k, v;
	if (obj->kind != SPAN_OBJECT || depth > 400 || rs_begin(&it, obj->p, obj->n) < 0)
		return false;
	while (rs_next(&it, &k, &v) == 1)
		if (v.kind == SPAN_OBJECT ? object_special(m, &v, depth + 1) : span_special(m, &v))
			return true;
	return false;
}

/*
 * msprobe's parse-time check of one leaf (check_op_str_pattern_valid on the API
 * name, check_dump_json_str on the strings of inputs and outputs): its message
 * into msg, or false.  Statistics the records spell "inf", "-inf", "nan" are
 * numbers (probe-records(5)): only other strings are looked at.
 */
static bool leaf_refused(struct metric_stream *m, const struct leafrec *r, bool name, struct strbuf *msg)
{
	static const enum leaf_field strings[] = { LF_TYPE, LF_DTYPE, LF_VALUE, LF_MD5, LF_DATA_NAME };
	static const enum leaf_field stats[] = { LF_MAX, LF_MIN, LF_MEAN, LF_NORM };
	const struct span *st = &r->f[LF_STATE];
	bool data = false;
	if (name && span_special(m, &r->f[LF_ENTRY])) {
		strbuf_addstr(msg, "api name contains special characters, please check!");
		return true;
	}
	if (!span_str_eq(st, "input", 5) && !span_str_eq(st, "output", 6))
		return false; /* parameters and parameters_grad are not looked at while parsing */
	for (size_t i = 0; i < ARRAY_SIZE(strings) && !data; i++)
		data = r->f[strings[i]].kind == SPAN_STRING && span_special(m, &r->f[strings[i]]);
	for (size_t i = 0; i < ARRAY_SIZE(stats) && !data; i++)
		data = r->f[stats[i]].kind == SPAN_STRING && !span_str_eq(&r->f[stats[i]], "-inf", 4) &&
		       span_special(m, &r->f[stats[i]]);
	data = data || (r->f[LF_ATTRS].kind == SPAN_OBJECT && object_special(m, &r->f[LF_ATTRS], 0)) ||
	       (r->f[LF_P2P].kind == SPAN_OBJECT && object_special(m, &r->f[LF_P2P], 0));
	if (data) {
		leafrec_str(r, LF_ENTRY, &m->check_text);
		strbuf_addf(msg, "data info of %s contains special characters, please check!", m->check_text.buf);
	}
	return data;
}

static int refuse_now(struct metric_stream *m, const struct item *it, const struct strbuf *msg, struct strbuf *err)
{
	strbuf_addf(err, "msprobe refuses to compare these dumps: %s", msg->buf);
	m->error_line = item_line(it);
	return -1;
}

/*
 * The parse-time checks of a group's pairs: -1 with the message in err for a
 * target's refusal; a golden's is kept (the earliest golden leaf's) for the end
 * of the table.  stack: the group's first row's item when its stack has a line
 * msprobe refuses (entry_stack), else NULL.
 */
static int emit_refusals(struct metric_stream *m, const struct group *g, const struct item *stack,
			 struct strbuf *err)
{
	struct strbuf msg = STRBUF_INIT;
	const struct span *last = NULL; /* the golden entry name looked at last */
	int ret = 0;
	for (size_t i = 0; i < g->n && !ret; i++) {
		const struct item *it = g->items[i];
		strbuf_reset(&msg);
		/* a group is one target entry: its name is looked at once */
		if (it->p.has_t && leaf_refused(m, &it->p.t, i == 0, &msg))
			ret = refuse_now(m, it, &msg, err);
	}
	if (!ret && stack) {
		strbuf_reset(&msg);
		leafrec_str(&stack->p.t, LF_ENTRY, &m->check_text);
		strbuf_addf(&msg, "stack info of %s contains special characters, please check!", m->check_text.buf);
		ret = refuse_now(m, stack, &msg, err);
	}
	for (size_t i = 0; i < g->n && !ret; i++) {
		const struct item *it = g->items[i];
		strbuf_reset(&msg);
		bool name;
		if (!it->p.has_g || (m->refusal == REFUSE_GOLDEN && it->p.g.seq >= m->refusal_seq))
			continue;
		name = !last || !span_same(last, &it->p.g.f[LF_ENTRY]);
		last = &it->p.g.f[LF_ENTRY];
		if (!leaf_refused(m, &it->p.g, name, &msg))
			continue;
		m->refusal = REFUSE_GOLDEN;
		m->refusal_seq = it->p.g.seq;
		m->refusal_line = item_line(it);
		strbuf_reset(&m->refusal_msg);
		strbuf_addf(&m->refusal_msg, "msprobe refuses to compare these dumps: %s", msg.buf);
	}
	strbuf_release(&msg);
	return ret;
}

/* The extension of msprobe's files. */
static const char *table_ext(const struct metric_stream *m)
{
	return m->opts.xlsx ? ".xlsx" : ".csv";
}

/* The path msprobe would name in its message. */
static void table_path(const struct metric_stream *m, struct strbuf *out)
{
	if (m->opts.output_dir)
		strbuf_addf(out, "%s%s", m->file_name.buf, table_ext(m));
	else
		strbuf_addstr(out, "<stdout>");
}

/* check_df_malicious refuses a cell: its message, for the end of the table (nothing more of the table is written). */
static void refuse_cell(struct metric_stream *m, const char *cell, const struct item *it)
{
	m->refusal = REFUSE_CELL;
	m->refusal_line = it ? item_line(it) : 0;
	strbuf_reset(&m->refusal_msg);
	strbuf_addf(&m->refusal_msg, "msprobe refuses to write this table: Malicious value [%s] not allowed to be "
			 "written into the %s: ", cell, m->opts.xlsx ? "excel" : "csv");
	table_path(m, &m->refusal_msg);
	strbuf_addch(&m->refusal_msg, '.');
}

/* The columns of the header h that hold lists in msprobe's table (NPU_Stack_Info, Data_name): not strings, not checked. */
static void find_list_columns(struct metric_stream *m, const char *const *h, size_t n)
{
	if (h == m->checked_header)
		return;
	m->checked_header = h;
	m->list_cols[0] = m->list_cols[1] = SIZE_MAX;
	for (size_t i = 0, k = 0; i < n && k < 2; i++)
		if (!strcmp(h[i], "NPU_Stack_Info") || !strcmp(h[i], "Data_name"))
			m->list_cols[k++] = i;
}

/* At the end of a table: msprobe's refusal of it, if any (-1 with the message). */
static int emit_refusal_at_end(struct metric_stream *m, struct strbuf *err)
{
	if (!m->refusal)
		return 0;
	strbuf_addbuf(err, &m->refusal_msg);
	m->error_line = m->refusal_line;
	return -1;
}

/* The header; false when msprobe would refuse a cell of it (nothing written then). */
static bool emit_csv_header(struct metric_stream *m, struct strbuf *out)
{
	size_t n, start = out->len;
	const char *const *h = ms_header(&m->table, &n);
	for (size_t i = 0; i < n; i++) {
		if (mscsv_refused(h[i])) {
			strbuf_setlen(out, start);
			refuse_cell(m, h[i], NULL);
			return false;
		}
		mscsv_add_cell(out, h[i], i == 0);
	}
	strbuf_addch(out, '\n');
	m->header_done = true;
	return true;
}

/*
 * A row; false when msprobe would refuse a cell of it (nothing written then).
 * The cells go out as they are, and only those msprobe's check could refuse
 * are looked at after: a cell that starts with a formula character, or any
 * when the row holds a ';' (one memchr over the row, not a scan per cell).
 */
/* The first bytes a cell msprobe's check could refuse starts with (0xef: the full-width forms' UTF-8). */
static const bool formula_first[256] = { ['+'] = 1, ['-'] = 1, ['='] = 1, ['%'] = 1, ['@'] = 1, [0xef] = 1 };

static bool emit_csv_row(struct metric_stream *m, const struct item *it, struct strbuf *out)
{
	size_t n, start = out->len, nsuspect = 0, suspect[64];
	const char *const *h = ms_header(&m->table, &n);
	const char *refused = NULL;
	bool all = n > ARRAY_SIZE(suspect);
	find_list_columns(m, h, n);
	for (size_t i = 0; i < n; i++) {
		const char *cell = it->row.cells[i];
		if (it->row.stack_csv && cell == it->row.stack && !strcmp(h[i], "NPU_Stack_Info")) {
			strbuf_addch(out, ',');
			strbuf_addstr(out, it->row.stack_csv);
			continue;
		}
		mscsv_add_cell(out, cell, i == 0);
		if (formula_first[(unsigned char)cell[0]] && !all)
			suspect[nsuspect++] = i;
	}
	/* a ';' may start a formula anywhere: every cell is looked at */
	all = all || memchr(out->buf + start, ';', out->len - start);
	if (all)
		for (size_t i = 0; i < n; i++)
			suspect[i < ARRAY_SIZE(suspect) ? i : 0] = i;
	for (size_t k = 0; k < (all ? n : nsuspect) && !refused; k++) {
		size_t i = all ? k : suspect[k];
		if (i != m->list_cols[0] && i != m->list_cols[1] && mscsv_refused(it->row.cells[i]))
			refused = it->row.cells[i];
	}
	if (refused) {
		strbuf_setlen(out, start);
		refuse_cell(m, refused, it);
		return false;
	}
	strbuf_addch(out, '\n');
	return true;
}

/* ---- msprobe's workbook (--xlsx) ------------------------------------------- */

static const char *const reader_columns[] = { "probe verdict", "probe reason" };

/* The header, as emit_csv_header; with --xlsx-reader, our verdict's columns after msprobe's. */
static bool emit_xlsx_header(struct metric_stream *m, struct strbuf *err)
{
	size_t n;
	const char *const *h = ms_header(&m->table, &n);
	const char *cols[40];
	for (size_t i = 0; i < n; i++) {
		if (mscsv_refused(h[i])) {
			refuse_cell(m, h[i], NULL);
			return false;
		}
		cols[i] = h[i];
	}
	if (m->opts.xlsx_reader)
		for (size_t i = 0; i < ARRAY_SIZE(reader_columns); i++)
			cols[n++] = reader_columns[i];
	if (xlsxw_begin(m->book, NULL, cols, n, err) < 0)
		return false;
	m->header_done = true;
	m->first_marked = false;
	return true;
}

/* msprobe's check_df_malicious on the string cells of a row (the list columns are not strings). */
static const char *row_refused(struct metric_stream *m, const struct item *it, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *cell = it->row.cells[i];
		if (i == m->list_cols[0] || i == m->list_cols[1])
			continue;
		if ((formula_first[(unsigned char)cell[0]] || strchr(cell, ';')) && mscsv_refused(cell))
			return cell;
	}
	return NULL;
}

static unsigned reader_style(struct metric_stream *m, const struct item *it)
{
	unsigned style = it->row.result == MS_ERROR ? XLSXW_ROW_BAD : it->row.result == MS_WARNING ? XLSXW_ROW_WARN
											  : XLSXW_ROW_PLAIN;
	if (it->v.verdict == VERDICT_DIFF && !m->first_marked) {
		m->first_marked = true;
		style |= XLSXW_ROW_MARKED;
	}
	return style;
}

/* A row of the workbook; false when msprobe would refuse a cell of it (as emit_csv_row), or it cannot be written. */
static bool emit_xlsx_row(struct metric_stream *m, const struct item *it, struct strbuf *err)
{
	struct xlsxw_cell cells[40];
	size_t n;
	const char *const *h = ms_header(&m->table, &n);
	const char *refused;
	unsigned style = 0;
	find_list_columns(m, h, n);
	if ((refused = row_refused(m, it, n))) {
		refuse_cell(m, refused, it);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		const char *cell = it->row.cells[i];
		enum ms_cell_type t = ms_cell_type(&m->table, &it->row, i, &cells[i].num);
		static const enum xlsxw_type as[] = {
			[MS_CELL_TEXT] = XLSXW_TEXT, [MS_CELL_NUMBER] = XLSXW_NUMBER, [MS_CELL_TRUE] = XLSXW_TRUE,
			[MS_CELL_FALSE] = XLSXW_FALSE, [MS_CELL_EMPTY] = XLSXW_EMPTY,
		};
		cells[i].type = as[t];
		/* the CSV's " inf" is for Excel reading a CSV: the workbook has pandas' "inf" */
		cells[i].text = t == MS_CELL_TEXT && (!strcmp(cell, " inf") || !strcmp(cell, " -inf")) ? cell + 1 : cell;
	}
	if (m->opts.xlsx_reader) {
		bool first;
		style = reader_style(m, it);
		first = style & XLSXW_ROW_MARKED;
		cells[n++] = (struct xlsxw_cell){ .type = XLSXW_TEXT,
						  .text = first ? "diff: first divergence" : verdict_name(it->v.verdict) };
		cells[n++] = (struct xlsxw_cell){ .type = XLSXW_TEXT, .text = it->v.reason.buf ? it->v.reason.buf : "" };
	}
	return xlsxw_row(m->book, cells, n, style, err) == 0;
}

/* Without -o: the workbook is made in $TMPDIR and copied to stdout at the end. */
static int open_stdout_book(struct metric_stream *m, struct strbuf *err)
{
	const char *tmp = getenv("TMPDIR");
	struct strbuf final = STRBUF_INIT;
	strbuf_addf(&final, "%s/probe-metric.xlsx", tmp && *tmp ? tmp : "/tmp");
	m->book = open_book(m, final.buf, &m->part, err);
	strbuf_release(&final);
	return m->book ? 0 : -1;
}

static int copy_book_to_stdout(struct metric_stream *m, struct strbuf *out, struct strbuf *err)
{
	char buf[1 << 16];
	size_t got;
	FILE *f;
	if (close_book(m, err) < 0)
		return -1;
	if (!(f = fopen(partial_tmp_name(m->part), "rb")))
		return msg_fail(err, partial_tmp_name(m->part), "cannot read the workbook back: %s", strerror(errno));
	output_flush_strbuf(out, 0);
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
		output_write(buf, got);
	fclose(f);
	partial_drop(m->part);
	m->part = NULL;
	return 0;
}

static void count(struct metric_stream *m, const struct item *it)
{
	m->stats.pairs++;
	switch (it->v.verdict) {
	case VERDICT_SAME: m->stats.same++; break;
	case VERDICT_DIFF: m->stats.diff++; break;
	case VERDICT_UNMATCHED: m->stats.unmatched++; break;
	case VERDICT_GOLDEN_ONLY: m->stats.golden_only++; break;
	case VERDICT_UNREADABLE: m->stats.unreadable++; break;
	}
	if (it->in_table) {
		m->stats.rows++;
		if (it->row.result == MS_ERROR)
			m->stats.error++;
		else if (it->row.result == MS_WARNING)
			m->stats.warning++;
		else
			m->stats.pass++;
	}
}

/* ---- msprobe's files (output_dir) ----------------------------------------- */

static int write_file_buf(struct metric_stream *m, struct strbuf *err)
{
	if (m->file_buf.len && fwrite(m->file_buf.buf, 1, m->file_buf.len, m->file) != m->file_buf.len) {
		strbuf_addf(err, "%s: write error: %s", m->file_name.buf, strerror(errno));
		return -1;
	}
	strbuf_reset(&m->file_buf);
	return 0;
}

/* The path of the current part, as msprobe names it (the final names are given at the end: table_name). */
static void part_path(const struct metric_stream *m, struct strbuf *path)
{
	strbuf_reset(path);
	strbuf_addbuf(path, &m->file_name);
	if (m->file_part)
		strbuf_addf(path, "_part_%zu", m->file_part);
	strbuf_addstr(path, table_ext(m));
}

/* A workbook at a temporary name of its own for final (partial.h), its temporary files beside it. */
static struct xlsxw *open_book(const struct metric_stream *m, const char *final, struct partial **part,
			       struct strbuf *err)
{
	struct strbuf dir = STRBUF_INIT;
	struct xlsxw_options xo = { .reader = m->opts.xlsx_reader };
	struct xlsxw *w;
	const char *slash = strrchr(final, '/');
	int fd = partial_create_private(final, part, err);
	if (fd < 0)
		return NULL;
	close(fd);
	if (slash) {
		strbuf_add(&dir, final, (size_t)(slash - final));
		xo.tmpdir = dir.len ? dir.buf : "/";
	}
	w = xlsxw_new(partial_tmp_name(*part), &xo, err);
	strbuf_release(&dir);
	if (!w)
		partial_drop(*part);
	return w;
}

/*
 * A part is written under a temporary name of its own (partial.h: created
 * anew, never through a file or link that is there); every table gets its
 * names when the whole run has succeeded (metric_finish), and the parts are
 * removed when it fails or is interrupted: a directory holds files that
 * look done only when they all are.
 */
static int open_part(struct metric_stream *m, struct strbuf *err)
{
	struct strbuf final = STRBUF_INIT;
	struct out_table *t = &m->out_tables[m->nout_tables - 1];
	part_path(m, &final);
	if (m->opts.xlsx)
		m->book = open_book(m, final.buf, &m->part, err);
	else
		m->file = partial_fopen(final.buf, &m->part, err);
	strbuf_release(&final);
	if (!m->file && !m->book)
		return -1;
	ALLOC_GROW(t->parts, t->nparts + 1, t->alloc);
	t->parts[t->nparts++] = m->part;
	m->file_rows = 0;
	m->header_done = false;
	return 0;
}

/*
 * Every table under its name, in the order they were written: msprobe's,
 * then with _2, _3, ... after the time when a file has it
 * (partial_numbered_name): an earlier run in the same second, or one
 * running now, keeps its table.
 */
static int name_tables(struct metric_stream *m, struct strbuf *err)
{
	for (size_t i = 0; i < m->nout_tables; i++) {
		struct out_table *t = &m->out_tables[i];
		struct partial_numbered pn = { .base = t->base, .ext = t->ext, .nparts = t->nparts };
		if (partial_commit_unique(t->parts, t->nparts, partial_numbered_name, &pn, err) < 0)
			return -1;
	}
	return 0;
}

static int close_book(struct metric_stream *m, struct strbuf *err)
{
	int ret = xlsxw_close(m->book, err);
	if (!ret && xlsxw_cut_cells(m->book))
		warning("%s: %llu cells longer than Excel's %d characters were cut there", m->file_name.buf,
			(unsigned long long)xlsxw_cut_cells(m->book), XLSXW_MAX_TEXT);
	xlsxw_free(m->book);
	m->book = NULL;
	return ret;
}

static int close_part(struct metric_stream *m, struct strbuf *err)
{
	int ret;
	if (m->book)
		return close_book(m, err);
	ret = write_file_buf(m, err);
	if (m->file && (fclose(m->file) || ret < 0)) {
		if (!ret)
			strbuf_addf(err, "%s: write error: %s", m->file_name.buf, strerror(errno));
		ret = -1;
	}
	m->file = NULL;
	return ret;
}

/*
 * msprobe compares one step at a time and names its file by rank and second; a run
 * of several steps of a rank here would give two tables one name (or names that
 * differ only by when they were written): a later table of the same rank gets
 * _step<N> (and a number, should that be taken too) before the time.
 */
static void name_table_once(struct metric_stream *m, const struct item *it)
{
	bool created;
	size_t cut = m->file_name.len;
	for (int n = 0;; n++) {
		strmap_put(&m->table_names, m->file_name.buf, m->file_name.len, &created);
		if (created)
			break;
		strbuf_setlen(&m->file_name, cut);
		if (it->p.has_t && it->p.t.step >= 0)
			strbuf_addf(&m->file_name, "_step%lld", (long long)it->p.t.step);
		if (n)
			strbuf_addf(&m->file_name, "_%d", n + 1);
	}
}

/*
 * A table of a graph/pynative root goes where msprobe's mix compare puts it,
 * OUTPUT/<graph|pynative>/step<N>/: the directories made (as msprobe makes
 * them) and added to m->file_name.
 */
static int mode_step_dir(struct metric_stream *m, const struct leafrec *t, struct strbuf *err)
{
	strbuf_addstr(&m->file_name, leaf_exec_mode_names[t->exec_mode]);
	for (int k = 0; k < 2; k++) {
		if (mkdir(m->file_name.buf, 0777) && errno != EEXIST) {
			strbuf_addf(err, "%s: cannot make the directory: %s", m->file_name.buf, strerror(errno));
			return -1;
		}
		strbuf_addch(&m->file_name, '/');
		if (k || t->step < 0)
			break;
		strbuf_addf(&m->file_name, "step%lld", (long long)t->step);
	}
	return 0;
}

static int open_table_file(struct metric_stream *m, const struct item *it, struct strbuf *err)
{
	char stamp[NAMING_STAMP_SIZE];
	naming_stamp_now(stamp);
	strbuf_reset(&m->file_name);
	strbuf_addf(&m->file_name, "%s/", m->opts.output_dir);
	if (it->p.has_t && it->p.t.exec_mode && mode_step_dir(m, &it->p.t, err) < 0)
		return -1;
	strbuf_addstr(&m->file_name, "compare_result");
	if (it->p.has_t) {
		leafrec_str(&it->p.t, LF_DUMP, &m->scratch);
		struct strbuf dir = STRBUF_INIT;
		layout_rank_dir(m->scratch.buf, &dir);
		if (dir.len)
			strbuf_addf(&m->file_name, "_%s", dir.buf);
		strbuf_release(&dir);
	}
	name_table_once(m, it);
	strbuf_addf(&m->file_name, "_%s", stamp);
	m->file_part = 0;
	ALLOC_GROW(m->out_tables, m->nout_tables + 1, m->out_tables_alloc);
	m->out_tables[m->nout_tables++] = (struct out_table){ .base = xstrdup(m->file_name.buf), .ext = table_ext(m) };
	return open_part(m, err);
}

/* One more data row for the file: split it when it is full (msprobe's _part_N files). */
static int file_row_room(struct metric_stream *m, struct strbuf *err)
{
	if (m->opts.xlsx || m->file_rows < m->opts.rows_per_file)
		return 0;
	if (close_part(m, err) < 0)
		return -1;
	if (!m->file_part)
		m->file_part = 1; /* the first part was written without a number: it becomes _part_1 */
	m->file_part++;
	return open_part(m, err);
}

/* Judge and write one complete group. */
static int emit_group(struct metric_stream *m, struct group *g, struct strbuf *out, struct strbuf *err)
{
	struct ms_row **rows = xmalloc((g->n ? g->n : 1) * sizeof(*rows));
	size_t nrows = 0, err_before;
	const struct item *bad_stack = NULL;
	for (size_t i = 0; i < g->n; i++) {
		struct item *it = g->items[i];
		bool special = false;
		if (!it->in_table)
			continue;
		if (!nrows && m->stack_mode) {
			it->row.stack = entry_stack(m, it, &g->arena, &it->row.stack_csv, &special);
			bad_stack = special ? it : NULL;
		}
		rows[nrows++] = &it->row;
	}
	if (nrows)
		ms_judge_group(&m->table, rows, nrows, &g->arena);
	free(rows);
	if (m->opts.output == METRIC_CSV && emit_refusals(m, g, bad_stack, err) < 0)
		return -1;
	if (m->opts.output_dir)
		out = &m->file_buf;
	err_before = err->len;
	for (size_t i = 0; i < g->n; i++) {
		struct item *it = g->items[i];
		count(m, it);
		if (m->opts.output == METRIC_NDJSON) {
			emit_ndjson(m, it, out);
			continue;
		}
		if (!it->in_table || m->refusal)
			continue; /* msprobe writes nothing of a table it refuses: neither does this */
		if (m->opts.output_dir) {
			if ((!m->file && !m->book && open_table_file(m, it, err) < 0) || file_row_room(m, err) < 0)
				return -1;
			m->file_rows++;
		} else if (m->opts.xlsx && !m->book && open_stdout_book(m, err) < 0) {
			return -1;
		}
		if (m->opts.xlsx) {
			/* a refusal is kept for the end of the table (err untouched); a write error is one now */
			bool done = (m->header_done || emit_xlsx_header(m, err)) && emit_xlsx_row(m, it, err);
			if (!done && err->len > err_before)
				return -1;
			continue;
		}
		if (!m->header_done && !emit_csv_header(m, out))
			continue;
		emit_csv_row(m, it, out);
	}
	if (m->opts.output_dir && m->file_buf.len > (1 << 16))
		return write_file_buf(m, err);
	return 0;
}

static bool group_final(const struct metric_stream *m, const struct group *g)
{
	if (!g->complete)
		return false;
	for (size_t i = 0; i < g->n; i++)
		if (g->items[i]->in_table && !ms_row_final(&m->table, &g->items[i]->row))
			return false;
	return true;
}

/* Observe every pending row once the mode is known (they waited for it). */
static void observe_pending(struct metric_stream *m)
{
	for (size_t q = 0; q < m->nqueue; q++)
		for (size_t i = 0; i < m->queue[q]->n; i++)
			if (m->queue[q]->items[i]->in_table)
				ms_table_observe(&m->table, &m->queue[q]->items[i]->row);
}

static int flush(struct metric_stream *m, struct strbuf *out, struct strbuf *err)
{
	size_t done = 0;
	int ret = 0;
	if (!m->mode_known)
		return 0;
	while (done < m->nqueue && group_final(m, m->queue[done])) {
		ret = emit_group(m, m->queue[done], out, err);
		recycle_group(m, m->queue[done]);
		done++;
		if (ret < 0)
			break;
	}
	if (done) {
		memmove(m->queue, m->queue + done, (m->nqueue - done) * sizeof(*m->queue));
		m->nqueue -= done;
	}
	return ret;
}

/* The end of one rank's (and step's) table: everything pending is final. */
static int end_table(struct metric_stream *m, struct strbuf *out, struct strbuf *err)
{
	if (m->nqueue)
		m->queue[m->nqueue - 1]->complete = true;
	if (!m->mode_known) {
		/* no tensor anywhere: msprobe would call it statistics */
		ms_table_init(&m->table, MS_MODE_STATISTICS, m->stack_mode);
		m->mode_known = true;
		observe_pending(m);
	}
	m->table.at_end = true;
	if (flush(m, out, err) < 0 || emit_refusal_at_end(m, err) < 0)
		return -1;
	if ((m->file || (m->book && m->opts.output_dir)) && close_part(m, err) < 0)
		return -1;
	return 0;
}

/* A target leaf of another rank, step or folder (exec_mode) than the current table's starts a new table. */
static int maybe_new_table(struct metric_stream *m, const struct leafrec *t, struct strbuf *out,
			   struct strbuf *err)
{
	int64_t rank = t->rank, step = t->step;
	if (m->table_open && m->table_rank == rank && m->table_step == step && m->table_mode == t->exec_mode)
		return 0;
	if (m->table_open) {
		if (m->opts.output == METRIC_CSV && !m->opts.output_dir) {
			strbuf_addf(err, "these pairs hold more than one %s, and %s; "
					 "--output-dir writes one file per rank, as msprobe does%s",
				    t->exec_mode || m->table_mode ? "rank, step or folder (graph/, pynative/)" : "rank or step",
				    m->opts.xlsx ? "--xlsx to stdout writes a single workbook" : "--csv writes a single table",
				    t->exec_mode || m->table_mode ? " (into <dir>/<folder>/step<N>/)" : "");
			return -1;
		}
		if (end_table(m, out, err) < 0)
			return -1;
		ms_table_init(&m->table, m->table.mode, false);
		m->stack_decided = false;
		m->stack_mode = false;
	}
	m->table_open = true;
	m->table_rank = rank;
	m->table_step = step;
	m->table_mode = t->exec_mode;
	m->tables++;
	return 0;
}

/* The like-for-like check (alike.h), in input order; and the pairs that could not be read. */
static int like_for_like(struct metric_stream *m, const struct item *it, struct strbuf *err)
{
	if (!it->p.has_t) {
		alike_golden_only(m->alike, &it->p.g, it->p.partial);
		return 0;
	}
	if (alike_target(m->alike, &it->p.t, it->p.has_g, it->p.has_g ? &it->p.g : NULL, it->p.partial, err) < 0)
		return -1;
	if (m->mode_known && check_tasks(m, it, NULL, err) < 0)
		return -1;
	if (it->v.verdict == VERDICT_UNREADABLE) {
		struct strbuf tp = STRBUF_INIT, gp = STRBUF_INIT;
		leafrec_str(&it->p.t, LF_DATA, &tp);
		if (it->p.has_g)
			leafrec_str(&it->p.g, LF_DATA, &gp);
		alike_unreadable(m->alike, tp.len ? tp.buf : NULL, gp.len ? gp.buf : NULL);
		if (!m->unreadable_pairs++)
			strbuf_addstr(&m->first_unreadable, it->tensor_problem ? it->tensor_problem : it->v.reason.buf);
		strbuf_release(&tp);
		strbuf_release(&gp);
	}
	return 0;
}

/* A prepared item, in input order: into its table and group; whatever became final goes out. */
static int take_item(struct metric_stream *m, struct item *it, struct strbuf *out, struct strbuf *err)
{
	struct group *g = m->nqueue ? m->queue[m->nqueue - 1] : NULL;
	const char *entry = NULL;
	int64_t rank, step;
	int got, exec_mode;

	if (like_for_like(m, it, err) < 0)
		return -1;
	if (it->p.has_t && maybe_new_table(m, &it->p.t, out, err) < 0)
		return -1;
	if (it->p.has_t) {
		leafrec_str(&it->p.t, LF_ENTRY, &m->scratch);
		entry = m->scratch.buf;
	}
	rank = it->p.has_t ? it->p.t.rank : it->p.g.rank;
	step = it->p.has_t ? it->p.t.step : it->p.g.step;
	exec_mode = it->p.has_t ? it->p.t.exec_mode : it->p.g.exec_mode;
	/* the rows of one entry go together; a golden-only leaf stands alone */
	if (!g || !g->entry || !entry || strcmp(g->entry, entry) || g->rank != rank || g->step != step ||
	    g->exec_mode != exec_mode) {
		if (g)
			g->complete = true;
		g = new_group(m, entry, rank, step, exec_mode);
	}
	ALLOC_GROW(g->items, g->n + 1, g->alloc);
	g->items[g->n++] = it;
	if (it->p.has_t)
		decide_stack_mode(m, it);
	if (!m->mode_known) {
		got = decide_mode(m, it, err);
		if (got < 0)
			return -1;
		if (got > 0) {
			m->table.stack_mode = m->stack_mode;
			observe_pending(m);
		}
	} else if (it->in_table) {
		m->table.stack_mode = m->stack_mode;
		ms_table_observe(&m->table, &it->row);
	}
	return flush(m, out, err);
}

/* ---- batches --------------------------------------------------------------- */

static struct batch *batch_get(struct metric_stream *m)
{
	struct batch *b;
	if (m->nspare)
		return m->spare[--m->nspare];
	b = xcalloc(1, sizeof(*b));
	strbuf_init(&b->err, 0);
	ALLOC_GROW(m->all, m->nall + 1, m->all_alloc);
	m->all[m->nall++] = b;
	return b;
}

static void batch_free(struct batch *b)
{
	for (size_t i = b->consumed; i < b->failed && b->prepared; i++)
		strbuf_release(&b->items[i].v.reason);
	free(b->text);
	free(b->lines);
	free(b->items);
	arena_release(&b->arena);
	strbuf_release(&b->err);
	free(b);
}

/* A batch whose items have all been written: kept for reuse. */
static void batch_put(struct metric_stream *m, struct batch *b)
{
	b->text_len = 0;
	b->n = 0;
	b->consumed = b->live = 0;
	b->prepared = b->retired = false;
	arena_reset(&b->arena);
	strbuf_reset(&b->err);
	ALLOC_GROW(m->spare, m->nspare + 1, m->spare_alloc);
	m->spare[m->nspare++] = b;
}

static void item_written(struct metric_stream *m, struct item *it)
{
	struct batch *b = it->batch;
	strbuf_release(&it->v.reason);
	/* the last item of a batch that has left the flight goes: the batch can be reused */
	if (!--b->live && b->retired)
		batch_put(m, b);
}

static void prepare_batch(const struct metric_stream *m, struct batch *b)
{
	ALLOC_GROW(b->items, b->n, b->items_alloc);
	b->failed = b->n;
	for (size_t i = 0; i < b->n; i++) {
		struct item *it = &b->items[i];
		if (parse_pair(it, b->text + b->lines[i].start, b->lines[i].len, &b->err) < 0 ||
		    prepare_item(m, it, &b->arena, &b->err) < 0) {
			b->failed = i;
			break;
		}
		it->batch = b;
	}
}

/* Under the lock: the oldest batch no thread has taken (there is one). */
static struct batch *take_todo(struct metric_stream *m)
{
	struct batch *b = m->todo[0];
	memmove(m->todo, m->todo + 1, --m->ntodo * sizeof(*m->todo));
	return b;
}

static void *worker_main(void *arg)
{
	struct metric_stream *m = arg;
	pthread_mutex_lock(&m->lock);
	for (;;) {
		struct batch *b;
		while (!m->ntodo && !m->stopping)
			pthread_cond_wait(&m->work, &m->lock);
		if (!m->ntodo)
			break;
		b = take_todo(m);
		pthread_mutex_unlock(&m->lock);
		prepare_batch(m, b);
		pthread_mutex_lock(&m->lock);
		b->prepared = true;
		pthread_cond_broadcast(&m->done);
	}
	pthread_mutex_unlock(&m->lock);
	mscell_release_thread();
	ms_release_thread();
	return NULL;
}

static bool add_worker(struct metric_stream *m)
{
	if (pthread_create(&m->threads[m->nthreads], NULL, worker_main, m))
		return false;
	m->nthreads++;
	return true;
}

/*
 * The jobs to start, once the mode is known.  Statistics and md5 pairs
 * read from a pipe come from stages (probe-match, probe-flatten) at work
 * on the same processors, and a pair's work is small: a helper then
 * costs more than it gives (the items it fills are read by another
 * processor's cache).  Without -j such a stream starts half the
 * processors' jobs, at least one.  Measured on 2 processors, the 209 MB
 * pair from probe-flatten to CSV (medians of 6 alternating runs): one job
 * 5.7 CPU-s and 3.6 s, two 6.8 CPU-s and 4.0 s.  Tensor pairs, whole
 * files of work each, take them all.
 */
static int jobs_to_start(const struct metric_stream *m)
{
	if (m->opts.jobs > 0 || !m->opts.input_shared || m->table.mode == MS_MODE_TENSOR)
		return m->jobs;
	return m->jobs / 2 > 1 ? m->jobs / 2 : 1;
}

static void start_workers(struct metric_stream *m)
{
	int jobs = jobs_to_start(m);
	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->work, NULL);
	pthread_cond_init(&m->done, NULL);
	m->threads = xcalloc((size_t)m->jobs, sizeof(*m->threads));
	for (int i = 0; i < jobs - 1; i++) /* the main thread is one of the jobs: it helps while it waits */
		if (!add_worker(m))
			break; /* fewer workers, or none: batches are then prepared here */
}

static void stop_workers(struct metric_stream *m)
{
	if (!m->threads)
		return;
	pthread_mutex_lock(&m->lock);
	m->stopping = true;
	pthread_cond_broadcast(&m->work);
	pthread_mutex_unlock(&m->lock);
	for (size_t i = 0; i < m->nthreads; i++)
		pthread_join(m->threads[i], NULL);
	free(m->threads);
	m->threads = NULL;
	pthread_mutex_destroy(&m->lock);
	pthread_cond_destroy(&m->work);
	pthread_cond_destroy(&m->done);
}

static void submit(struct metric_stream *m)
{
	struct batch *b = m->filling;
	m->filling = NULL;
	ALLOC_GROW(m->flight, m->nflight + 1, m->flight_alloc);
	m->flight[m->nflight++] = b;
	if (m->jobs > 1 && !m->threads && m->mode_known)
		start_workers(m);
	/*
	 * Tensor pairs are whole files of work each: the main thread, which
	 * has little else to do, would keep one to itself while the helpers
	 * ran dry.  It waits instead, and a helper takes its place.
	 */
	if (m->threads && m->mode_known && m->table.mode == MS_MODE_TENSOR && !m->tensor_workers) {
		m->tensor_workers = true;
		if (m->nthreads)
			add_worker(m);
	}
	if (!m->nthreads) {
		prepare_batch(m, b);
		b->prepared = true;
		return;
	}
	pthread_mutex_lock(&m->lock);
	ALLOC_GROW(m->todo, m->ntodo + 1, m->todo_alloc);
	m->todo[m->ntodo++] = b;
	pthread_cond_signal(&m->work);
	pthread_mutex_unlock(&m->lock);
}

/*
 * Whether batch b is prepared; wait: until it is.  While it waits, the
 * main thread prepares batches no worker has taken yet (b itself, most
 * often), so that -j N keeps N threads at work, the main one included,
 * and no more threads than that compete for the processors (tensor mode
 * excepted: see submit()).
 */
static bool is_prepared(struct metric_stream *m, struct batch *b, bool wait)
{
	bool ready;
	if (!m->nthreads)
		return b->prepared;
	pthread_mutex_lock(&m->lock);
	while (!b->prepared && wait) {
		if (!m->ntodo || m->tensor_workers) {
			pthread_cond_wait(&m->done, &m->lock);
			continue;
		}
		struct batch *next = take_todo(m);
		pthread_mutex_unlock(&m->lock);
		prepare_batch(m, next);
		pthread_mutex_lock(&m->lock);
		next->prepared = true;
	}
	ready = b->prepared;
	pthread_mutex_unlock(&m->lock);
	return ready;
}

/*
 * Take the prepared batches at the head of the flight, in order.  all: wait
 * for every batch; otherwise wait only while the flight is at its limit.
 */
static int take_batches(struct metric_stream *m, bool all, struct strbuf *out, struct strbuf *err)
{
	size_t limit = m->nthreads ? 2 * m->nthreads + 2 : 1;
	while (m->nflight) {
		struct batch *b = m->flight[0];
		if (!is_prepared(m, b, all || m->nflight > limit))
			return 0;
		while (b->consumed < b->failed) {
			struct item *it = &b->items[b->consumed++];
			b->live++;
			if (take_item(m, it, out, err) < 0) {
				if (!m->error_line) /* the line of the pair the error is about, when it was another */
					m->error_line = b->first_line + (b->consumed - 1);
				return -1;
			}
		}
		if (b->failed < b->n) {
			m->error_line = b->first_line + b->failed;
			strbuf_addbuf(err, &b->err);
			return -1;
		}
		memmove(m->flight, m->flight + 1, --m->nflight * sizeof(*m->flight));
		b->retired = true;
		if (!b->live)
			batch_put(m, b);
	}
	return 0;
}

/*
 * Lines per batch: one until the mode is known (it is, after the first
 * tensor leaf), then many for statistics and md5 (cheap pairs), one for
 * tensor dumps (a pair's files are work enough, and the threads should
 * share them).
 */
static size_t batch_lines(const struct metric_stream *m)
{
	if (!m->mode_known)
		return 1;
	return m->table.mode == MS_MODE_TENSOR ? 1 : BATCH_LINES;
}

static int add_line(struct metric_stream *m, const char *line, size_t len, struct strbuf *out, struct strbuf *err)
{
	struct batch *b = m->filling;
	if (!b) {
		b = m->filling = batch_get(m);
		b->first_line = m->lines + 1;
	}
	m->lines++;
	ALLOC_GROW(b->lines, b->n + 1, b->alloc);
	ALLOC_GROW(b->text, b->text_len + len + 1, b->text_alloc);
	memcpy(b->text + b->text_len, line, len);
	b->text[b->text_len + len] = '\0';
	b->lines[b->n].start = b->text_len;
	b->lines[b->n].len = len;
	b->n++;
	b->text_len += len + 1;
	if (b->n < batch_lines(m) && b->text_len < BATCH_BYTES)
		return 0; /* the flight is as it was: what the helpers finish is taken at the next submit */
	submit(m);
	return take_batches(m, false, out, err);
}

/* The input line the message is about, when there is one, put before it (msg.h: a whole message). */
static int whole_message(const struct metric_stream *m, struct strbuf *err)
{
	if (m->error_line)
		msg_place(err, "%s:%llu", m->opts.input_name ? m->opts.input_name : "stdin", (unsigned long long)m->error_line);
	return PROBE_ERR;
}

/* The pairs of verl's consistency compare go to a table of their own (consisttab.c). */
static void start_consistency(struct metric_stream *m)
{
	struct consist_table_options co = {
		.output = m->opts.output != METRIC_CSV ? CONSIST_NDJSON : m->opts.xlsx ? CONSIST_XLSX : CONSIST_CSV,
		.output_dir = m->opts.output_dir,
		.no_stack = m->opts.no_stack,
		.rtol = m->opts.band.rtol,
		.atol = m->opts.band.atol,
		.force_mode = !m->opts.force_mode ? 0 : m->opts.mode == MS_MODE_STATISTICS ? 1 : 2,
	};
	if (m->opts.rows_per_file && m->opts.rows_per_file != MSPROBE_CSV_ROWS)
		warning("--rows-per-file is not applied to a consistency table (a module-level table is one file per rank)");
	m->consist = consist_table_new(&co);
}

static int consistency_add(struct metric_stream *m, const char *line, size_t len, struct strbuf *err)
{
	m->lines++;
	if (consist_table_add(m->consist, line, len, err) < 0)
		return msg_place(err, "%s:%llu", m->opts.input_name ? m->opts.input_name : "stdin",
				 (unsigned long long)m->lines);
	return 0;
}

/* The pairs of ATB dumps go to msprobe's ATB table (atbtab.c); what does not apply to it is said. */
static int start_atb(struct metric_stream *m, struct strbuf *err)
{
	struct atb_table_options ao = {
		.output = m->opts.output != METRIC_CSV ? ATB_NDJSON : m->opts.xlsx ? ATB_XLSX : ATB_CSV,
		.output_dir = m->opts.output_dir,
		.rtol = m->opts.band.rtol,
		.atol = m->opts.band.atol,
		.jobs = m->jobs,
	};
	if (m->opts.xlsx_reader) {
		strbuf_addstr(err, "--xlsx-reader is not there for an ATB compare: use --xlsx (msprobe's workbook) or the "
				   "records (our verdict)");
		return PROBE_ERR;
	}
	if (m->opts.force_mode) {
		strbuf_addstr(err, "--mode: msprobe's ATB compare takes its mode from the dumps (statistics when Tensor "
				   "Path is N/A), and so does probe-metric");
		return PROBE_ERR;
	}
	if (m->opts.rows_per_file && m->opts.rows_per_file != MSPROBE_CSV_ROWS)
		warning("--rows-per-file is not applied to an ATB table (msprobe writes one workbook per exec folder)");
	m->atb = atb_table_new(&ao);
	return 0;
}

static int metric_add(struct metric_stream *m, const char *line, size_t len, struct strbuf *out, struct strbuf *err)
{
	if (!m->first_seen) {
		m->first_seen = true;
		if (atb_pair_line(line, len) && start_atb(m, err) < 0)
			return PROBE_ERR;
		if (consist_pair_line(line, len)) {
			if (m->opts.xlsx_reader) {
				strbuf_addstr(err, "--xlsx-reader is not there for a consistency compare: use --xlsx (msprobe's "
						   "workbook) or the records (our verdict)");
				return PROBE_ERR;
			}
			if (m->opts.force_mode && m->opts.mode == MS_MODE_MD5) {
				strbuf_addstr(err, "--mode md5: a consistency compare has a statistics or a tensor table only");
				return PROBE_ERR;
			}
			start_consistency(m);
		}
	}
	if (m->consist)
		return consistency_add(m, line, len, err);
	if (m->atb) {
		m->lines++;
		if (atb_table_add(m->atb, line, len, out, err) < 0)
			return msg_place(err, "%s:%llu", m->opts.input_name ? m->opts.input_name : "stdin",
					 (unsigned long long)m->lines);
		return 0;
	}
	return add_line(m, line, len, out, err) < 0 ? whole_message(m, err) : 0;
}

static int finish_stream(struct metric_stream *m, struct strbuf *out, struct strbuf *err)
{
	if (m->filling)
		submit(m);
	if (take_batches(m, true, out, err) < 0)
		return -1;
	m->error_line = 0;
	if (end_table(m, out, err) < 0)
		return -1;
	if (!m->stats.pairs) {
		strbuf_addstr(err, "no pair records: nothing to compare");
		return -1;
	}
	if (m->opts.output == METRIC_CSV && !m->stats.rows) {
		strbuf_addstr(err, "no row of msprobe's table: nothing to compare");
		return -1;
	}
	if (alike_finish(m->alike, err) < 0)
		return -1;
	if (m->unreadable_pairs) {
		struct strbuf dirs = STRBUF_INIT;
		alike_missing_dirs(m->alike, "  ", &dirs);
		warning("%llu of %llu pairs could not be compared: their tensor files are unreadable (the first: %s)%s%.*s",
			(unsigned long long)m->unreadable_pairs, (unsigned long long)m->stats.pairs,
			m->first_unreadable.buf, dirs.len ? "\n" : "", (int)(dirs.len ? dirs.len - 1 : 0), dirs.buf);
		strbuf_release(&dirs);
	}
	if (m->opts.output_dir && name_tables(m, err) < 0)
		return -1;
	if (m->book && copy_book_to_stdout(m, out, err) < 0)
		return -1;
	return 0;
}

static int metric_finish(struct metric_stream *m, struct strbuf *out, struct strbuf *err)
{
	if (m->atb) {
		struct atb_table_stats as;
		int ret = atb_table_finish(m->atb, out, err);
		atb_table_stats(m->atb, &as);
		m->stats.pairs = as.pairs;
		m->stats.rows = as.rows;
		m->stats.same = as.same;
		m->stats.diff = as.diff;
		m->stats.unmatched = as.unmatched;
		m->stats.golden_only = as.golden_only;
		m->stats.unreadable = as.unreadable;
		return ret;
	}
	if (m->consist) {
		struct consist_table_stats cs;
		int ret = consist_table_finish(m->consist, out, err);
		consist_table_stats(m->consist, &cs);
		m->stats.pairs = m->stats.rows = cs.rows;
		m->stats.pass = cs.pass;
		m->stats.warning = cs.warning;
		m->stats.error = cs.error;
		m->stats.same = cs.same;
		m->stats.diff = cs.diff;
		m->stats.unmatched = cs.unmatched;
		m->stats.golden_only = cs.golden_only;
		m->consist_structural = cs.structural;
		return ret;
	}
	return finish_stream(m, out, err) < 0 ? whole_message(m, err) : 0;
}

static int sink_add(void *ctx, const char *line, size_t len, struct strbuf *out, struct strbuf *err)
{
	return metric_add(ctx, line, len, out, err);
}

static int sink_finish(void *ctx, struct strbuf *out, struct strbuf *err)
{
	return metric_finish(ctx, out, err);
}

struct line_sink metric_sink(struct metric_stream *ctx)
{
	return (struct line_sink){ .ctx = ctx, .add = sink_add, .finish = sink_finish };
}

void metric_summary(const struct metric_stream *m, struct strbuf *out)
{
	const struct metric_stats *s = &m->stats;
	strbuf_addf(out,
		    "%llu pairs: %llu same, %llu diff, %llu unmatched, %llu golden only, %llu unreadable; "
		    "msprobe: %llu rows, %llu pass, %llu warning, %llu error",
		    (unsigned long long)s->pairs, (unsigned long long)s->same, (unsigned long long)s->diff,
		    (unsigned long long)s->unmatched, (unsigned long long)s->golden_only,
		    (unsigned long long)s->unreadable, (unsigned long long)s->rows, (unsigned long long)s->pass,
		    (unsigned long long)s->warning, (unsigned long long)s->error);
	if (m->consist)
		strbuf_addf(out, " (a consistency compare: %llu more rows our verdict calls structural)",
			    (unsigned long long)m->consist_structural);
}
