#include "match.h"
#include "alike.h"
#include "../core/arena.h"
#include "../core/msg.h"
#include "../core/partial.h"
#include "../dumps/flatten.h"
#include "../json/json.h"
#include "../json/jsonw.h"
#include "../dumps/layout.h"
#include "../records/leafrec.h"
#include "../records/lines.h"
#include "../records/recstore.h"
#include "../msprobe/mscell.h"
#include "../msprobe/msapimap.h"
#include "../msprobe/naming.h"
#include "layermap.h"
#include "../core/strmap.h"
#include "../core/xalloc.h"

#include <pthread.h>
#include <sys/stat.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

/* Inside this file: the golden side, still loading, turned out broken (err is whole); -1 is about the target line. */
#define GOLDEN_FAILED (-2)

#define NO_LEAF UINT32_MAX

/*
 * A golden leaf.  Its record text is kept in the golden store (recstore.h:
 * the shape its group's records share once, its own values after), about
 * a third of the text; the compare key, and the match key when it is the
 * same text, are read from inside the store.
 */
struct gleaf {
	struct recref rec;    /* the record's text (store) */
	const char *mkey;     /* the match key (inside the text's key, or store) */
	const char *dtype;    /* msprobe's dtype cell, for the gate (interned) */
	uint32_t mkey_len;
	uint32_t group;
	uint32_t dup_next;    /* next golden leaf with the same group and key */
	bool dup;             /* not the first with its key: reached through dup_next only */
	uint32_t hash;        /* key_hash() of the match key in the group */
	uint64_t matched_gen; /* the pairing that took it last */
	int64_t matched_tseq; /* the target seq that took it in that pairing */
};

struct ggroup {
	int64_t step, rank;
	int mode;                /* exec_mode (leafrec.h): the folder of a graph/pynative root, or none */
	uint32_t first, count; /* leaves [first, first + count) */
	bool paired;
	bool complete;         /* the loader has moved past it: no more leaves will come */
};

/*
 * Loading the golden side.  With a dump path whose ranks and steps each come
 * from one dump file, a thread loads it while the target streams in: target
 * leaves are looked up as soon as their golden counterparts are published,
 * so the golden flatten runs beside the target's instead of before it.
 * Otherwise the same code runs to the end before the first target record.
 *
 * Shared state (leaves, groups, table, stats.golden_leaves, matched_*) is
 * touched under `lock` only.  The loader prepares leaves in `batch` (its
 * own) and publishes them in one locked step; the texts they point to live
 * in the store arena, which only the loader allocates from and which never
 * moves, so a reader may use a text after dropping the lock.
 */
#define GOLDEN_BATCH 1024

/* Pages supplied in one call (prefault()): the leaves' up to 5 MB ahead, the table whole up to 64 MB. */
#define LEAVES_PREFAULT 65536
#define TABLE_PREFAULT_MAX ((size_t)64 << 20)

/* Output held back before opts.drain is called, while golden-only records are written. */
#define DRAIN_AT (1 << 20)

struct loader {
	pthread_mutex_t lock;
	pthread_cond_t more;  /* leaves published, a group completed, or loading ended */
	pthread_t thread;
	bool threaded;        /* a thread was started (and must be joined) */
	bool done;            /* loading ended, with status */
	int status;           /* 0, or -1 with err */
	struct strbuf err;
	/* the loading code's own */
	const char *operand;
	bool records_file;
	struct dump_list list;
	struct gleaf *batch;
	size_t nbatch;
	bool have_group;
	uint32_t group;
	struct strbuf scratch, scratch2;
	struct strmap dtypes;  /* interned dtype cells */
};

/* The target side's current (mode, step, rank) and what it pairs with. */
struct tgroup {
	bool started;
	bool skip;            /* a folder the golden side does not have: its leaves are passed over */
	int64_t step, rank;
	int mode;
	uint32_t golden;      /* group index */
	uint64_t gen;         /* pairing generation */
	struct strmap occurrences; /* fuzzy: occurrences of each name in this group */
	bool pair_checked;    /* its first matched pair went through alike's pair checks */
	struct yamlmap derived; /* -lm: the data mapping of this group (empty: none) */
	uint64_t derived_gen;   /* the pairing generation it was derived for */
};

struct matcher {
	struct match_options opts;
	struct alike *alike;    /* the like-for-like check of the pairs written */
	struct arena store;
	struct recstore texts;  /* the golden records' texts */
	struct gleaf *leaves;
	size_t nleaves, leaves_alloc;
	size_t leaves_ready;  /* leaves whose pages are supplied (prefault()) */
	struct ggroup *groups;
	size_t ngroups, groups_alloc;
	uint64_t *table;      /* slot_of(leaf index, its hash), 0 empty */
	size_t table_cap;
	struct strmap golden_occ; /* fuzzy: occurrences while loading one golden group */
	struct strmap golden_apis; /* -am FILE: "<group>:<API>" of every golden leaf, once all is loaded */
	bool golden_apis_ready;
	struct strbuf entry_buf, state_buf; /* -am FILE: the target row's entry and state */
	uint32_t golden_occ_group;
	struct tgroup cur;
	uint64_t gen;
	uint32_t hint;        /* the leaf after the last one found: golden dumps mostly follow the target's order */
	struct tranks {       /* ranks seen in each folder, in order, for by-position pairing */
		int64_t *v;
		size_t nr, alloc;
	} target_ranks[LEAF_EXEC_NMODES];
	bool target_modes[LEAF_EXEC_NMODES]; /* the folders the target records came from */
	bool mode_passed_over[LEAF_EXEC_NMODES]; /* a target folder without a golden one */
	struct strbuf target_root;           /* the target's graph/pynative root, from its first record there */
	struct {                             /* two target steps paired with one golden step */
		bool seen, warned;
		int64_t target_step, golden_step; /* the first target step and its golden step */
	} step_spread;
	struct strbuf scratch, scratch2;
	struct strbuf key_json; /* the current target leaf's displayed key (JSON) */
	struct match_stats stats;
	struct loader load;
	struct gleaf *hits;     /* the golden leaves of one lookup, copied out of the lock */
	size_t hits_alloc;
};

struct matcher *matcher_new(const struct match_options *opts)
{
	struct matcher *m = xcalloc(1, sizeof(*m));
	m->opts = *opts;
	m->alike = alike_new(&(struct alike_options){ .partial = opts->partial, .any_framework = true });
	m->store.big = true; /* the golden index lives until the end */
	recstore_init(&m->texts);
	strbuf_init(&m->scratch, 0);
	strbuf_init(&m->scratch2, 0);
	strbuf_init(&m->key_json, 0);
	m->golden_occ_group = UINT32_MAX;
	pthread_mutex_init(&m->load.lock, NULL);
	pthread_cond_init(&m->load.more, NULL);
	strbuf_init(&m->load.err, 0);
	strbuf_init(&m->load.scratch, 0);
	strbuf_init(&m->load.scratch2, 0);
	m->load.batch = xmalloc(GOLDEN_BATCH * sizeof(*m->load.batch));
	return m;
}

void matcher_free(struct matcher *m)
{
	if (!m)
		return;
	if (m->load.threaded)
		pthread_join(m->load.thread, NULL);
	pthread_mutex_destroy(&m->load.lock);
	pthread_cond_destroy(&m->load.more);
	strbuf_release(&m->load.err);
	strbuf_release(&m->load.scratch);
	strbuf_release(&m->load.scratch2);
	strmap_release(&m->load.dtypes);
	layout_release(&m->load.list);
	alike_free(m->alike);
	free(m->load.batch);
	free(m->hits);
	arena_release(&m->store);
	recstore_release(&m->texts);
	free(m->leaves);
	free(m->groups);
	free(m->table);
	for (int i = 0; i < LEAF_EXEC_NMODES; i++)
		free(m->target_ranks[i].v);
	strbuf_release(&m->target_root);
	strmap_release(&m->golden_occ);
	strmap_release(&m->cur.occurrences);
	yamlmap_release(&m->cur.derived);
	strmap_release(&m->golden_apis);
	strbuf_release(&m->entry_buf);
	strbuf_release(&m->state_buf);
	strbuf_release(&m->scratch);
	strbuf_release(&m->scratch2);
	strbuf_release(&m->key_json);
	free(m);
}

/* ---- keys ---------------------------------------------------------------- */

/* Python's s.replace(old, new, 1). */
static void replace_first(struct strbuf *out, const char *s, const char *old, size_t oldn, const char *new)
{
	const char *p = oldn ? strstr(s, old) : s;
	strbuf_reset(out);
	if (!p) {
		strbuf_addstr(out, s);
		return;
	}
	strbuf_add(out, s, (size_t)(p - s));
	strbuf_addstr(out, new);
	strbuf_addstr(out, p + oldn);
}

void matcher_mapped_name(struct strbuf *out, const char *name, const struct yamlmap *map)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, cell = STRBUF_INIT;
	bool pg = false;
	const char *p, *rest, *cut = NULL;
	/* a parameters_grad component, or ".forward." / ".backward.", or the row has no key */
	for (p = name; (p = strstr(p, "parameters_grad")); p++)
		if ((p == name || p[-1] == '.') && (p[15] == '.' || p[15] == '\0'))
			pg = true;
	strbuf_reset(out);
	if (!*name || (!pg && !strstr(name, ".forward.") && !strstr(name, ".backward."))) {
		strbuf_addstr(out, "N/A");
		return;
	}
	replace_first(&a, name, "Cell", 4, "Module");
	if (map && map->nr) {
		/* the cell name: after the first dot, up to the first .forward./.backward./.parameters_grad. */
		rest = strchr(a.buf, '.');
		rest = rest ? rest + 1 : a.buf;
		static const char *const seps[] = { ".forward.", ".backward.", ".parameters_grad." };
		for (size_t i = 0; i < ARRAY_SIZE(seps); i++) {
			const char *q = strstr(rest, seps[i]);
			if (q && (!cut || q < cut))
				cut = q;
		}
		strbuf_add(&cell, rest, cut ? (size_t)(cut - rest) : strlen(rest));
		const char *exact = yamlmap_get(map, cell.buf, cell.len);
		if (exact) {
			strbuf_reset(&b);
			strbuf_addstr(&b, exact);
		} else {
			strbuf_reset(&b);
			strbuf_addbuf(&b, &cell);
			for (size_t i = 0; i < map->nr; i++) {
				if (strstr(b.buf, map->keys[i])) {
					struct strbuf t = STRBUF_INIT;
					replace_first(&t, b.buf, map->keys[i], strlen(map->keys[i]), map->values[i]);
					strbuf_reset(&b);
					strbuf_addbuf(&b, &t);
					strbuf_release(&t);
				}
			}
		}
		if (strcmp(b.buf, cell.buf)) {
			replace_first(out, a.buf, cell.buf, cell.len, b.buf);
			goto done;
		}
	}
	strbuf_addbuf(out, &a);
done:
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&cell);
}

/* Occurrence-numbered fuzzy key: "<name without index>\x1f<k>". */
static void fuzzy_key(struct strbuf *out, const char *name, struct strmap *occ)
{
	struct strmap_slot *s;
	naming_fuzzy_name(out, name);
	s = strmap_put(occ, out->buf, out->len, NULL);
	strbuf_addch(out, '\x1f');
	strbuf_addu(out, s->value.u++);
}

static uint32_t key_hash(const char *key, size_t len, uint32_t group)
{
	return (uint32_t)XXH3_64bits_withSeed(key, len, group);
}

/*
 * A slot of the golden table holds the leaf's key hash beside its index,
 * so that probing past other keys, and growing the table, read the table
 * only: each leaf looked at is a cache miss in an array of hundreds of MB.
 */
static uint64_t slot_of(uint32_t idx, uint32_t hash)
{
	return (uint64_t)hash << 32 | (idx + 1);
}

static uint32_t slot_leaf(uint64_t slot)
{
	return (uint32_t)slot - 1;
}

static uint32_t slot_hash(uint64_t slot)
{
	return (uint32_t)(slot >> 32);
}

/* ---- golden index ---------------------------------------------------------- */

/* Under the lock.  A new group starts at the end of the published leaves. */
static uint32_t group_of(struct matcher *m, int mode, int64_t step, int64_t rank)
{
	for (size_t i = m->ngroups; i-- > 0;)
		if (m->groups[i].step == step && m->groups[i].rank == rank && m->groups[i].mode == mode)
			return (uint32_t)i;
	ALLOC_GROW(m->groups, m->ngroups + 1, m->groups_alloc);
	m->groups[m->ngroups] = (struct ggroup){ .step = step, .rank = rank, .mode = mode, .first = (uint32_t)m->nleaves };
	return (uint32_t)m->ngroups++;
}

/* A slot placed in a table of cap slots (a power of two) known not to hold its key. */
static void table_place(uint64_t *table, size_t cap, uint64_t slot)
{
	size_t mask = cap - 1;
	size_t i = slot_hash(slot) & mask;
	while (table[i])
		i = (i + 1) & mask;
	table[i] = slot;
}

static void table_grow(struct matcher *m, size_t leaves)
{
	size_t cap = m->table_cap ? m->table_cap : 1024;
	uint64_t *table;
	while (cap < leaves * 2)
		cap *= 2;
	if (cap == m->table_cap)
		return;
	table = xcalloc(cap, sizeof(*table));
	if (cap <= TABLE_PREFAULT_MAX / sizeof(*table))
		prefault(table, cap * sizeof(*table)); /* every page is written soon: slots are random */
	for (size_t i = 0; i < m->table_cap; i++)
		if (m->table[i])
			table_place(table, cap, m->table[i]);
	free(m->table);
	m->table = table;
	m->table_cap = cap;
}

/*
 * Under the lock.  A key already present chains after the others (msprobe's
 * join then makes one row per golden leaf); that is only possible while no
 * target leaf has taken the key yet, which holds when the golden side is
 * read to the end first, and when each rank comes from one dump file (keys
 * are unique within a dump file).  -1 with the reason otherwise.
 */
static int table_insert(struct matcher *m, uint32_t idx, struct strbuf *err)
{
	size_t mask = m->table_cap - 1;
	struct gleaf *g = &m->leaves[idx];
	for (size_t i = (size_t)g->hash & mask;; i = (i + 1) & mask) {
		uint64_t slot = m->table[i];
		if (!slot) {
			m->table[i] = slot_of(idx, g->hash);
			return 0;
		}
		if (slot_hash(slot) != g->hash)
			continue;
		struct gleaf *o = &m->leaves[slot_leaf(slot)];
		if (o->group == g->group && o->mkey_len == g->mkey_len && !memcmp(o->mkey, g->mkey, g->mkey_len)) {
			if (o->matched_gen) {
				strbuf_addf(err, "golden key %.*s repeats after a target leaf took it", (int)g->mkey_len,
					    g->mkey);
				return -1;
			}
			while (o->dup_next != NO_LEAF)
				o = &m->leaves[o->dup_next];
			o->dup_next = idx;
			g->dup = true;
			return 0;
		}
	}
}

/* Make the loader's batch visible to lookups. */
static int publish(struct matcher *m, struct strbuf *err)
{
	struct loader *l = &m->load;
	int ret = 0;
	if (!l->nbatch)
		return 0;
	pthread_mutex_lock(&l->lock);
	ALLOC_GROW(m->leaves, m->nleaves + l->nbatch, m->leaves_alloc);
	if (m->nleaves + l->nbatch > m->leaves_ready) {
		/* the pages of the leaves to come, a quarter more than there are, up to a few MB at a time */
		size_t ahead = m->nleaves / 4 < LEAVES_PREFAULT ? m->nleaves / 4 : LEAVES_PREFAULT;
		size_t ready = m->nleaves + l->nbatch + ahead;
		ready = ready < m->leaves_alloc ? ready : m->leaves_alloc;
		prefault(m->leaves + m->leaves_ready, (ready - m->leaves_ready) * sizeof(*m->leaves));
		m->leaves_ready = ready;
	}
	table_grow(m, m->nleaves + l->nbatch);
	for (size_t i = 0; i < l->nbatch && !ret; i++) {
		m->leaves[m->nleaves] = l->batch[i];
		ret = table_insert(m, (uint32_t)m->nleaves, err);
		m->nleaves++;
		m->groups[l->group].count++;
		m->stats.golden_leaves++;
	}
	pthread_mutex_unlock(&l->lock);
	pthread_cond_broadcast(&l->more);
	l->nbatch = 0;
	return ret;
}

/* The loader moves on to the golden leaves of (mode, step, rank). */
static int switch_group(struct matcher *m, int mode, int64_t step, int64_t rank, struct strbuf *err)
{
	struct loader *l = &m->load;
	uint32_t g;
	int ret = 0;
	if (publish(m, err) < 0)
		return -1;
	pthread_mutex_lock(&l->lock);
	if (l->have_group)
		m->groups[l->group].complete = true;
	g = group_of(m, mode, step, rank);
	if (m->groups[g].first + m->groups[g].count != m->nleaves) {
		strbuf_addf(err, "the golden records of rank %lld, step %lld%s%s are not together", (long long)rank,
			    (long long)step, mode ? " in the folder " : "", mode ? leaf_exec_mode_names[mode] : "");
		ret = -1;
	}
	l->group = g;
	l->have_group = true;
	pthread_mutex_unlock(&l->lock);
	pthread_cond_broadcast(&l->more);
	return ret;
}

static const char *store(struct matcher *m, const char *s, size_t n)
{
	return arena_memdupz(&m->store, s, n);
}

static const char *intern_dtype(struct matcher *m, const struct strbuf *cell)
{
	bool created;
	struct strmap_slot *s = strmap_put(&m->load.dtypes, cell->buf, cell->len, &created);
	if (created)
		s->value.p = (void *)store(m, cell->buf, cell->len);
	return s->value.p;
}

/* One golden record into the loader's batch; rec: its fields when the caller has them, else it is parsed. */
static int add_golden(struct matcher *m, const char *text, size_t len, const struct leafrec *rec, struct strbuf *err)
{
	struct loader *l = &m->load;
	struct leafrec parsed;
	const struct leafrec *rp = rec;
	const char *why;
	struct gleaf *g;

	if (!rp) {
		if (leafrec_parse(&parsed, text, len, &why) < 0) {
			strbuf_addf(err, "%s", why);
			if (parsed.error_at)
				strbuf_addf(err, " (at byte %zu)", parsed.error_at);
			return -1;
		}
		rp = &parsed;
	}
	if (m->stats.golden_leaves + l->nbatch >= NO_LEAF - 1) {
		strbuf_addstr(err, "more than 4 billion golden leaves");
		return -1;
	}
	if ((!l->have_group || m->groups[l->group].step != rp->step || m->groups[l->group].rank != rp->rank ||
	     m->groups[l->group].mode != rp->exec_mode) &&
	    switch_group(m, rp->exec_mode, rp->step, rp->rank, err) < 0)
		return -1;

	g = &l->batch[l->nbatch];
	memset(g, 0, sizeof(*g));
	recstore_keep(&m->texts, text, len, rp, &g->rec);
	g->group = l->group;
	g->dup_next = NO_LEAF;
	g->matched_tseq = -1;

	/* the match key */
	if (m->opts.fuzzy) {
		if (m->golden_occ_group != l->group) {
			strmap_clear(&m->golden_occ);
			m->golden_occ_group = l->group;
		}
		leafrec_str(rp, LF_NAME, &l->scratch2);
		fuzzy_key(&l->scratch, l->scratch2.buf, &m->golden_occ);
	} else if (g->rec.key && !memchr(g->rec.key, '\\', g->rec.key_len)) {
		g->mkey = g->rec.key + 1; /* the key itself, without its quotes */
		g->mkey_len = g->rec.key_len - 2;
	} else {
		leafrec_str(rp, LF_KEY, &l->scratch);
	}
	if (!g->mkey) {
		g->mkey = store(m, l->scratch.buf, l->scratch.len);
		g->mkey_len = (uint32_t)l->scratch.len;
	}
	g->hash = key_hash(g->mkey, g->mkey_len, l->group);
	mscell_dtype(rp, &l->scratch);
	g->dtype = intern_dtype(m, &l->scratch);
	if (++l->nbatch == GOLDEN_BATCH)
		return publish(m, err);
	return 0;
}

struct golden_loading {
	struct matcher *m;
	struct strbuf err;
};

static int golden_record(const char *record, size_t len, const struct leafrec *rec, void *ctx)
{
	struct golden_loading *gl = ctx;
	/* the record text ends in its newline, which the index does not keep */
	return add_golden(gl->m, record, len - 1, rec, &gl->err) < 0 ? -1 : 0;
}

/*
 * A file whose first JSON object has "name" and "key" before any dump header key.
 * Only a regular file is looked at: what this reads from a pipe or a FIFO (<(...),
 * mkfifo) would be gone for the reading that follows, and a FIFO opened a second
 * time waits for ever; such a golden side is read as a dump, as stdin is.
 */
bool matcher_operand_is_records(const char *path)
{
	struct strbuf err = STRBUF_INIT;
	struct source *src;
	struct json_reader r;
	struct json_token tok;
	struct stat st;
	bool records = false, name = false, key = false;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	src = source_open_regular(path, &err);
	strbuf_release(&err);
	if (!src)
		return false;
	json_reader_init(&r, src, JSON_MULTI, 0);
	if (json_reader_next(&r, &tok) == JSON_OBJECT_BEGIN) {
		while (json_reader_next(&r, &tok) == JSON_KEY) {
			if ((tok.len == 4 && !memcmp(tok.text, "data", 4)) || (tok.len == 4 && !memcmp(tok.text, "task", 4)))
				break;
			if (tok.len == 4 && !memcmp(tok.text, "name", 4))
				name = true;
			if (tok.len == 3 && !memcmp(tok.text, "key", 3))
				key = true;
			if (name && key) {
				records = true;
				break;
			}
			struct json_token v;
			enum json_type t = json_reader_next(&r, &v);
			if ((t == JSON_OBJECT_BEGIN || t == JSON_ARRAY_BEGIN) && json_reader_skip(&r) < 0)
				break;
			if (t == JSON_ERROR)
				break;
		}
	}
	json_reader_release(&r);
	source_close(src);
	return records;
}

static int add_golden_line(void *m, const char *line, size_t len, struct strbuf *out, struct strbuf *err)
{
	return add_golden(m, line, len, NULL, err) < 0 ? PROBE_ERR_LINE : 0;
}

static int load_records_file(struct matcher *m, const char *path, struct strbuf *err)
{
	struct line_sink sink = { .ctx = m, .add = add_golden_line };
	struct line_reader *lr = line_reader_open(path, err);
	int r;
	if (!lr)
		return -1;
	r = line_reader_feed(lr, &sink, NULL, err);
	line_reader_close(lr);
	return r;
}

/* The whole golden side into the index; ends with done set (and the status). */
static void load_all(struct matcher *m)
{
	struct loader *l = &m->load;
	struct strbuf err = STRBUF_INIT;
	int ret = 0;

	if (l->records_file) {
		ret = load_records_file(m, l->operand, &err);
	} else {
		for (size_t i = 0; i < l->list.nr && !ret; i++) {
			struct golden_loading gl = { m, STRBUF_INIT };
			if (flatten_dump(&l->list.v[i], -1, -1, golden_record, &gl, &err) != 0) {
				if (gl.err.len)
					strbuf_addf(&err, "%s: %s", l->list.v[i].path, gl.err.buf);
				ret = -1;
			}
			strbuf_release(&gl.err);
		}
	}
	if (!ret)
		ret = publish(m, &err);
	pthread_mutex_lock(&l->lock);
	if (!ret && !m->nleaves) {
		strbuf_addf(&err, "%s: no golden leaves: nothing to compare", l->operand);
		ret = -1;
	}
	if (l->have_group)
		m->groups[l->group].complete = true;
	if (!ret)
		table_grow(m, m->nleaves); /* an index even for no leaves */
	l->status = ret;
	strbuf_addbuf(&l->err, &err);
	l->done = true;
	pthread_mutex_unlock(&l->lock);
	pthread_cond_broadcast(&l->more);
	strbuf_release(&err);
}

static void *loader_main(void *arg)
{
	load_all(arg);
	return NULL;
}

/* Each (mode, step, rank) from one dump file, so that no golden key can repeat: loading may overlap. */
static bool may_overlap(const struct dump_list *list)
{
	for (size_t i = 0; i < list->nr; i++) {
		if (list->v[i].debug || list->v[i].csv)
			return false;
		for (size_t j = 0; j < i; j++)
			if (list->v[j].rank == list->v[i].rank && list->v[j].step == list->v[i].step &&
			    list->v[j].exec_mode == list->v[i].exec_mode)
				return false;
	}
	return true;
}

/*
 * The golden leaves the dump files will give, guessed from their bytes (a
 * statistics leaf of msprobe's dump.json is about 250 bytes), so that the
 * index's table is made at its size once instead of rehashed at every
 * doubling.  A guess on the low side (smaller leaves) costs the growing
 * it saves; on the high side (tensors' leaves, stacks) at most a table of
 * 8 bytes a guessed leaf.
 */
static size_t expected_leaves(const struct dump_list *list)
{
	uint64_t bytes = 0;
	struct stat st;
	for (size_t i = 0; i < list->nr; i++)
		if (!list->v[i].atb && !list->v[i].ckpt && !list->v[i].csv && stat(list->v[i].path, &st) == 0 &&
		    S_ISREG(st.st_mode))
			bytes += (uint64_t)st.st_size;
	return (size_t)(bytes / 320 < (1u << 26) ? bytes / 320 : (1u << 26));
}

int matcher_load_golden(struct matcher *m, const char *operand, struct strbuf *err)
{
	struct loader *l = &m->load;

	l->operand = operand;
	if (strcmp(operand, "-") && matcher_operand_is_records(operand))
		l->records_file = true;
	else if (layout_discover(operand, &l->list, err) < 0)
		return -1;
	if (!l->records_file && m->opts.only_ranks && layout_keep_ranks(&l->list, m->opts.only_ranks, err) < 0)
		return -1;
	if (!l->records_file)
		table_grow(m, expected_leaves(&l->list));
	if (!l->records_file && may_overlap(&l->list) && !getenv("PROBE_NO_THREADS") &&
	    pthread_create(&l->thread, NULL, loader_main, m) == 0) {
		int ret = 0;
		l->threaded = true;
		/* a golden side that is broken from its start fails here, before any output */
		pthread_mutex_lock(&l->lock);
		while (!l->done && !m->nleaves)
			pthread_cond_wait(&l->more, &l->lock);
		/*
		 * Only a failure before the first leaf is reported here: one
		 * after it (even if the loader got there before this thread
		 * looked) surfaces in the stream, the same way on every machine.
		 */
		if (l->done && l->status < 0 && !m->nleaves) {
			strbuf_addbuf(err, &l->err);
			ret = -1;
		}
		pthread_mutex_unlock(&l->lock);
		return ret;
	}
	load_all(m);
	if (l->status < 0) {
		strbuf_addbuf(err, &l->err);
		return -1;
	}
	return 0;
}

/* Under the lock: wait for the loader to publish more; -1 (reason in err) when loading failed. */
static int wait_for_loader(struct matcher *m, struct strbuf *err)
{
	struct loader *l = &m->load;
	if (!l->done)
		pthread_cond_wait(&l->more, &l->lock);
	if (l->done && l->status < 0) {
		strbuf_addbuf(err, &l->err);
		return GOLDEN_FAILED;
	}
	return 0;
}

/* Under the lock: wait until loading has ended. */
static int wait_for_all(struct matcher *m, struct strbuf *err)
{
	while (!m->load.done)
		pthread_cond_wait(&m->load.more, &m->load.lock);
	return wait_for_loader(m, err);
}

/* ---- pairing ranks -------------------------------------------------------- */

/* Whether the golden groups of a folder (mode) are all of one step. */
static bool single_step(const struct matcher *m, int mode)
{
	int64_t step = -1;
	bool seen = false;
	for (size_t i = 0; i < m->ngroups; i++) {
		if (m->groups[i].mode != mode)
			continue;
		if (seen && m->groups[i].step != step)
			return false;
		step = m->groups[i].step;
		seen = true;
	}
	return true;
}

static void add_rank_list(struct strbuf *out, const struct matcher *m, int mode, int64_t step, bool any_step)
{
	bool first = true;
	for (size_t i = 0; i < m->ngroups; i++) {
		if (m->groups[i].mode != mode || (!any_step && m->groups[i].step != step))
			continue;
		strbuf_addstr(out, first ? "" : ", ");
		if (m->groups[i].rank < 0)
			strbuf_addstr(out, "none");
		else
			strbuf_addi(out, m->groups[i].rank);
		first = false;
	}
}

static const char *rank_text(int64_t rank, char buf[24])
{
	if (rank < 0)
		return "(no rank)";
	snprintf(buf, 24, "%lld", (long long)rank);
	return buf;
}

/* " in graph/" for a folder of a graph/pynative root, "" otherwise: where a message's rank is. */
static const char *in_folder(int mode, char buf[24])
{
	if (!mode)
		return "";
	snprintf(buf, 24, " in %s/", leaf_exec_mode_names[mode]);
	return buf;
}

/* The golden side's folders, as "graph/ and pynative/" ("" when it has none). */
static void add_golden_modes(struct strbuf *out, const struct matcher *m)
{
	bool has[LEAF_EXEC_NMODES] = { false };
	size_t n = 0;
	for (size_t i = 0; i < m->ngroups; i++)
		has[m->groups[i].mode] = true;
	for (int k = 1; k < LEAF_EXEC_NMODES; k++)
		if (has[k])
			strbuf_addf(out, "%s%s/", n++ ? " and " : "", leaf_exec_mode_names[k]);
}

static bool golden_has_mode(const struct matcher *m, int mode)
{
	for (size_t i = 0; i < m->ngroups; i++)
		if (m->groups[i].mode == mode)
			return true;
	return false;
}

/* What the messages call the target's graph/pynative root. */
static const char *target_root(const struct matcher *m)
{
	return m->target_root.len ? m->target_root.buf : "the target";
}

/*
 * A target folder the golden side does not have (both are graph/pynative
 * roots): its leaves are passed over, and matcher_finish() says so; 1.
 * A graph/pynative root against a dump that is not one: -1 with the reason
 * in err.  0 when the golden side has the folder.
 */
static int check_folder(struct matcher *m, int mode, struct strbuf *err)
{
	bool golden_modes = false;
	if (golden_has_mode(m, mode))
		return 0;
	for (size_t i = 0; i < m->ngroups; i++)
		golden_modes |= m->groups[i].mode != LEAF_EXEC_NONE;
	if (mode && !golden_modes) {
		strbuf_addf(err, "the target records come from the %s/ folder of a graph/pynative root (%s) and the golden "
			    "side %s is not such a root: compare two such roots, or a folder with a dump (%s/%s)",
			    leaf_exec_mode_names[mode], target_root(m), m->load.operand, target_root(m),
			    leaf_exec_mode_names[mode]);
		return -1;
	}
	if (!mode) {
		strbuf_addf(err, "the golden side %s is a graph/pynative root (", m->load.operand);
		add_golden_modes(err, m);
		strbuf_addstr(err, ") and the target records are not from one: compare two such roots, or name the "
				   "golden folder to compare with");
		return -1;
	}
	m->mode_passed_over[mode] = true;
	return 1;
}

/* The golden group the target's (mode, step, rank) pairs with: within the target's folder only. */
static int pair_group(struct matcher *m, int mode, int64_t step, int64_t rank, uint32_t *out, struct strbuf *err)
{
	bool any_step = single_step(m, mode);
	size_t candidates = 0;
	uint32_t only = 0;
	char b1[24], b2[24], f[24];

	if (m->opts.ranks_by_position) {
		/* the k-th target rank (in order of appearance) with the k-th golden rank */
		struct tranks *tr = &m->target_ranks[mode];
		size_t k;
		for (k = 0; k < tr->nr && tr->v[k] != rank; k++)
			;
		if (k == tr->nr) {
			if (k && rank < tr->v[k - 1]) {
				strbuf_addf(err, "--ranks-by-position needs the target ranks in order; rank %s comes after %s%s",
					    rank_text(rank, b1), rank_text(tr->v[k - 1], b2), in_folder(mode, f));
				return -1;
			}
			ALLOC_GROW(tr->v, tr->nr + 1, tr->alloc);
			tr->v[tr->nr++] = rank;
		}
		for (size_t i = 0, seen = 0; i < m->ngroups; i++) {
			if (m->groups[i].mode != mode || (!any_step && m->groups[i].step != step))
				continue;
			if (seen++ == k) {
				*out = (uint32_t)i;
				return 0;
			}
		}
		strbuf_addf(err, "target rank %s%s is the %zu%s rank, and the golden side has fewer", rank_text(rank, b1),
			    in_folder(mode, f), k + 1, k == 0 ? "st" : k == 1 ? "nd" : k == 2 ? "rd" : "th");
		return -1;
	}
	for (size_t i = 0; i < m->ngroups; i++) {
		if (m->groups[i].mode != mode || (!any_step && m->groups[i].step != step))
			continue;
		candidates++;
		only = (uint32_t)i;
		if (m->groups[i].rank == rank) {
			*out = (uint32_t)i;
			return 0;
		}
	}
	/* one golden rank and a target without a rank number (or the other way): nothing to tell apart */
	if (candidates == 1 && (rank < 0 || m->groups[only].rank < 0)) {
		*out = only;
		return 0;
	}
	if (!candidates) {
		strbuf_addf(err, "target step %lld%s has no golden counterpart (golden steps differ)", (long long)step,
			    in_folder(mode, f));
		return -1;
	}
	strbuf_addf(err, "target rank %s%s has no golden counterpart (golden ranks: ", rank_text(rank, b1),
		    in_folder(mode, f));
	add_rank_list(err, m, mode, step, any_step);
	strbuf_addstr(err, "); --ranks-by-position pairs them by position, as msprobe does");
	return -1;
}

/* ---- output --------------------------------------------------------------- */

static void add_pair_head(struct strbuf *out, const char *key_json, size_t key_len)
{
	strbuf_add(out, "{\"key\":", 7);
	strbuf_add(out, key_json, key_len);
}

/* A golden-only leaf written (its record's text), for the like-for-like check. */
static void note_golden_only(struct matcher *m, const char *text, size_t len)
{
	struct leafrec r;
	const char *why;
	if (leafrec_parse(&r, text, len, &why) == 0)
		alike_golden_only(m->alike, &r, false);
}

/* The golden-only leaves of the current group: under the lock, once the group is complete. */
static int flush_golden_only(struct matcher *m, struct strbuf *out, struct strbuf *err)
{
	const struct ggroup *g;
	int64_t after = -1;
	size_t at;
	if (!m->cur.started)
		return 0;
	while (!m->groups[m->cur.golden].complete)
		if (wait_for_loader(m, err) < 0)
			return GOLDEN_FAILED;
	g = &m->groups[m->cur.golden];
	for (uint32_t i = g->first; i < g->first + g->count; i++) {
		struct gleaf *l = &m->leaves[i];
		if (l->matched_gen == m->cur.gen) {
			after = l->matched_tseq;
			continue;
		}
		add_pair_head(out, l->rec.key, l->rec.key_len);
		strbuf_add(out, ",\"t\":null,\"g\":", 14);
		at = out->len;
		recstore_text(&l->rec, out);
		note_golden_only(m, out->buf + at, out->len - at);
		strbuf_add(out, ",\"t_after\":", 11);
		if (after < 0)
			strbuf_add(out, "null", 4);
		else
			strbuf_addi(out, after);
		if (m->opts.partial)
			strbuf_add(out, ",\"partial\":true", 15);
		strbuf_add(out, "}\n", 2);
		m->stats.golden_only++;
		if (m->opts.drain && out->len >= DRAIN_AT)
			m->opts.drain(out);
	}
	return 0;
}

/*
 * Under the lock: the golden group of (mode, step, rank), as soon as the
 * loader has it; 1 when the golden side has no such folder (check_folder()).
 */
static int find_group(struct matcher *m, int mode, int64_t step, int64_t rank, uint32_t *out, struct strbuf *err)
{
	int ret;
	for (;;) {
		/* the same folder, step and rank is what pair_group() would choose once everything is loaded */
		if (!m->opts.ranks_by_position)
			for (size_t i = 0; i < m->ngroups; i++)
				if (m->groups[i].step == step && m->groups[i].rank == rank && m->groups[i].mode == mode) {
					*out = (uint32_t)i;
					return 0;
				}
		if (m->load.done)
			break;
		if (wait_for_loader(m, err) < 0)
			return GOLDEN_FAILED;
	}
	if (m->load.status < 0) {
		strbuf_addbuf(err, &m->load.err);
		return GOLDEN_FAILED;
	}
	ret = check_folder(m, mode, err);
	if (ret)
		return ret < 0 ? GOLDEN_FAILED : 1;
	return pair_group(m, mode, step, rank, out, err);
}

/* The target's graph/pynative root, for messages: from the first record of a folder that names its dump. */
static void note_target_root(struct matcher *m, const struct leafrec *r)
{
	m->target_modes[r->exec_mode] = true;
	if (!r->exec_mode || m->target_root.len || r->f[LF_DUMP].kind != SPAN_STRING)
		return;
	leafrec_str(r, LF_DUMP, &m->scratch);
	layout_mode_root(m->scratch.buf, &m->target_root);
}

static const char *golden_dump_of(const struct matcher *m, uint32_t g);

/*
 * A golden dump of one step pairs with every target step (pair_group()):
 * right for one target step against a golden step of another number, but
 * two target steps compared with the same golden step is seldom meant.
 * Said once, naming both dumps.
 */
static void warn_step_spread(struct matcher *m, const struct leafrec *r, uint32_t g)
{
	int64_t gstep = m->groups[g].step;
	if (m->step_spread.warned || r->step < 0 || gstep < 0)
		return;
	if (!m->step_spread.seen) {
		m->step_spread.seen = true;
		m->step_spread.target_step = r->step;
		m->step_spread.golden_step = gstep;
		return;
	}
	if (r->step == m->step_spread.target_step || gstep != m->step_spread.golden_step)
		return;
	const char *golden = golden_dump_of(m, g);
	m->step_spread.warned = true;
	strbuf_reset(&m->scratch2);
	if (r->f[LF_DUMP].kind == SPAN_STRING)
		leafrec_str(r, LF_DUMP, &m->scratch2);
	warning("the golden side holds one step (step %lld%s%s) and every target step is compared with it: "
		"target steps %lld and %lld so far%s%s; to compare step with step give the golden dump's root, "
		"or give one target step", (long long)gstep, golden ? ", " : "", golden ? golden : "",
		(long long)m->step_spread.target_step, (long long)r->step, m->scratch2.len ? ", the last " : "",
		m->scratch2.buf);
}

static int start_group(struct matcher *m, const struct leafrec *r, struct strbuf *out, struct strbuf *err)
{
	uint32_t g = 0;
	int ret;
	if (m->cur.started && m->cur.step == r->step && m->cur.rank == r->rank && m->cur.mode == r->exec_mode)
		return 0;
	note_target_root(m, r);
	pthread_mutex_lock(&m->load.lock);
	ret = m->cur.skip ? 0 : flush_golden_only(m, out, err);
	if (!ret)
		ret = find_group(m, r->exec_mode, r->step, r->rank, &g, err);
	if (!ret) {
		m->groups[g].paired = true;
		warn_step_spread(m, r, g);
	}
	pthread_mutex_unlock(&m->load.lock);
	if (ret < 0)
		return ret;
	m->cur.skip = ret == 1;
	m->cur.started = true;
	m->cur.step = r->step;
	m->cur.rank = r->rank;
	m->cur.mode = r->exec_mode;
	m->cur.golden = g;
	m->cur.gen = ++m->gen;
	m->cur.pair_checked = false;
	strmap_clear(&m->cur.occurrences);
	return 0;
}

/* -am FILE: the golden's APIs (first two fields of each key) by group, once the whole golden side is in. */
static int index_golden_apis(struct matcher *m, struct strbuf *err)
{
	struct strbuf k = STRBUF_INIT;
	int ret;
	pthread_mutex_lock(&m->load.lock);
	ret = wait_for_all(m, err);
	pthread_mutex_unlock(&m->load.lock);
	if (ret < 0)
		return GOLDEN_FAILED;
	for (size_t i = 0; i < m->nleaves; i++) {
		const struct gleaf *g = &m->leaves[i];
		const char *dot = memchr(g->mkey, '.', g->mkey_len), *end;
		bool created;
		if (!dot)
			continue;
		end = memchr(dot + 1, '.', g->mkey_len - (size_t)(dot + 1 - g->mkey));
		strbuf_reset(&k);
		strbuf_addf(&k, "%u:", g->group);
		strbuf_add(&k, g->mkey, end ? (size_t)(end - g->mkey) : g->mkey_len);
		strmap_put(&m->golden_apis, k.buf, k.len, &created);
	}
	strbuf_release(&k);
	m->golden_apis_ready = true;
	return 0;
}

static bool golden_has_api(void *ctx, const char *api, size_t len)
{
	const struct matcher *m = ctx;
	struct strbuf k = STRBUF_INIT;
	bool has;
	strbuf_addf(&k, "%u:", m->cur.golden);
	strbuf_add(&k, api, len);
	has = strmap_find(&m->golden_apis, k.buf, k.len) != NULL;
	strbuf_release(&k);
	return has;
}

/* The target's match key into m->scratch, and its displayed key into key (JSON). */
static void target_key(struct matcher *m, const struct leafrec *r, struct strbuf *key_json)
{
	struct strbuf *k = &m->scratch, *name = &m->scratch2;
	strbuf_reset(key_json);
	if (m->opts.fuzzy && !m->opts.data_mapping && !m->cur.derived.nr && !m->opts.cell_mapping && !m->opts.api_mapping) {
		leafrec_str(r, LF_NAME, name);
		fuzzy_key(k, name->buf, &m->cur.occurrences);
		jsonw_string(key_json, k->buf, (size_t)(strchr(k->buf, '\x1f') - k->buf));
		return;
	}
	if (m->opts.api_mapping) {
		leafrec_str(r, LF_NAME, name);
		if (m->opts.api_user) {
			leafrec_str(r, LF_ENTRY, &m->entry_buf);
			leafrec_str(r, LF_STATE, &m->state_buf);
		}
		if (!m->opts.api_user || !msapi_user_key(m->opts.api_user, name->buf, m->entry_buf.buf ? m->entry_buf.buf : "",
							 m->state_buf.buf ? m->state_buf.buf : "", golden_has_api, m, k))
			msapi_mapped_name(k, name->buf);
	} else if (m->opts.cell_mapping) {
		leafrec_str(r, LF_NAME, name);
		matcher_mapped_name(k, name->buf, m->opts.cell_map);
	} else if (m->cur.derived.nr || (m->opts.data_mapping && !m->opts.layer_rules)) {
		const char *mapped;
		leafrec_str(r, LF_NAME, name);
		mapped = yamlmap_get(m->cur.derived.nr ? &m->cur.derived : m->opts.data_mapping, name->buf, name->len);
		strbuf_reset(k);
		strbuf_addstr(k, mapped ? mapped : name->buf);
	} else {
		leafrec_str(r, LF_KEY, k);
		strbuf_add(key_json, r->f[LF_KEY].p, r->f[LF_KEY].n);
		return;
	}
	jsonw_string(key_json, k->buf, k->len);
}

static uint32_t lookup(const struct matcher *m, const char *key, size_t len, uint32_t group)
{
	uint32_t h = key_hash(key, len, group);
	size_t mask = m->table_cap - 1;
	if (!m->table)
		return NO_LEAF; /* nothing published yet */
	for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
		uint64_t slot = m->table[i];
		if (!slot)
			return NO_LEAF;
		if (slot_hash(slot) != h)
			continue;
		const struct gleaf *g = &m->leaves[slot_leaf(slot)];
		if (g->group == group && g->mkey_len == len && !memcmp(g->mkey, key, len))
			return slot_leaf(slot);
	}
}

/*
 * lookup(), trying first the leaf after the previous hit: the two dumps of a
 * comparison list their leaves mostly in the same order, and that leaf is
 * then in the cache already, where the table and a leaf found through it
 * are not.  Only a leaf that lookup() itself would return is taken: the
 * first of its key in the group (a repeat is never first).
 */
static uint32_t lookup_hinted(const struct matcher *m, const char *key, size_t len, uint32_t group)
{
	if (m->hint < m->nleaves) {
		const struct gleaf *g = &m->leaves[m->hint];
		if (!g->dup && g->group == group && g->mkey_len == len && !memcmp(g->mkey, key, len))
			return m->hint;
	}
	return lookup(m, key, len, group);
}

/*
 * Under the lock: the golden leaves with the target's key (m->scratch) into
 * m->hits, marked taken.  While the key's group is still loading, a miss
 * waits for more leaves.  Returns the number of hits, or -1 (reason in err).
 */
static ssize_t take_hits(struct matcher *m, int64_t tseq, struct strbuf *err)
{
	uint32_t group = m->cur.golden, idx;
	size_t n = 0;
	for (;;) {
		idx = lookup_hinted(m, m->scratch.buf, m->scratch.len, group);
		if (idx != NO_LEAF || m->groups[group].complete)
			break;
		if (wait_for_loader(m, err) < 0)
			return GOLDEN_FAILED;
	}
	if (idx != NO_LEAF)
		m->hint = idx + 1;
	for (; idx != NO_LEAF; idx = m->leaves[idx].dup_next) {
		struct gleaf *g = &m->leaves[idx];
		if (g->matched_gen != m->cur.gen) {
			g->matched_gen = m->cur.gen;
			g->matched_tseq = tseq;
		}
		ALLOC_GROW(m->hits, n + 1, m->hits_alloc);
		m->hits[n++] = *g;
	}
	return (ssize_t)n;
}

/*
 * A matched target leaf, for the like-for-like check; the first pair of a
 * group with its golden leaf parsed (frameworks, tasks), the others without
 * (the golden text stays unparsed on the hot path).
 */
static int check_pair(struct matcher *m, const struct leafrec *t, const char *gtext, size_t glen, struct strbuf *err)
{
	struct leafrec g;
	const char *why;
	bool full = !m->cur.pair_checked && leafrec_parse(&g, gtext, glen, &why) == 0;
	m->cur.pair_checked |= full;
	return alike_target(m->alike, t, true, full ? &g : NULL, false, err);
}

/* -lm: the golden dump file of group g (a golden read from records has none). */
static const char *golden_dump_of(const struct matcher *m, uint32_t g)
{
	const struct ggroup *gr = &m->groups[g];
	if (m->load.records_file)
		return NULL;
	for (size_t i = 0; i < m->load.list.nr; i++)
		if (m->load.list.v[i].step == gr->step && m->load.list.v[i].rank == gr->rank &&
		    m->load.list.v[i].exec_mode == gr->mode)
			return m->load.list.v[i].path;
	return m->load.list.nr == 1 ? m->load.list.v[0].path : NULL;
}

/* -lm: write the derived mapping as msprobe's data_mapping_<ts>.yaml (with the rank and step when known). */
static int save_derived(const struct matcher *m, struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT, yaml = STRBUF_INIT;
	char ts[NAMING_STAMP_SIZE];
	int ret = 0;
	naming_stamp_now(ts);
	strbuf_addf(&path, "%s/data_mapping", m->opts.save_mapping);
	if (m->cur.mode)
		strbuf_addf(&path, "_%s", leaf_exec_mode_names[m->cur.mode]);
	if (m->cur.step >= 0)
		strbuf_addf(&path, "_step%lld", (long long)m->cur.step);
	if (m->cur.rank >= 0)
		strbuf_addf(&path, "_rank%lld", (long long)m->cur.rank);
	strbuf_addf(&path, "_%s", ts);
	layermap_write_yaml(&m->cur.derived, &yaml);
	/* whole or not at all, and never over another run's: _2, _3, ... before .yaml when taken (partial.h) */
	if (partial_write_numbered(path.buf, ".yaml", yaml.buf, yaml.len, NULL, err) < 0)
		ret = -1;
	strbuf_release(&path);
	strbuf_release(&yaml);
	return ret;
}

/* -lm: derive this group's data mapping from the target's dump (its record says which) and the golden's. */
static int derive_layer_mapping(struct matcher *m, const struct leafrec *r, struct strbuf *err)
{
	struct strbuf target = STRBUF_INIT, warn = STRBUF_INIT;
	const char *golden = golden_dump_of(m, m->cur.golden);
	int ret = 0;
	yamlmap_release(&m->cur.derived);
	m->cur.derived = (struct yamlmap)YAMLMAP_INIT;
	m->cur.derived_gen = m->cur.gen;
	if (r->f[LF_DUMP].kind == SPAN_STRING)
		leafrec_str(r, LF_DUMP, &target);
	if (!target.len)
		ret = msg_fail(err, "--layer-mapping", "the target records do not name their dump (\"dump\"): "
			       "the layer mapping reads the dump's stack.json and construct.json");
	else if (!golden)
		ret = msg_fail(err, "--layer-mapping", "the golden side must be a dump, not records: the layer "
			       "mapping reads its stack.json and construct.json");
	else if (layermap_derive(target.buf, golden, m->opts.layer_rules, &m->cur.derived, &warn, err) < 0)
		ret = -1;
	if (!ret && warn.len)
		warning("%s", warn.buf);
	if (!ret && m->opts.save_mapping)
		ret = save_derived(m, err);
	strbuf_release(&target);
	strbuf_release(&warn);
	return ret < 0 ? GOLDEN_FAILED : 0;
}

static int add_target(struct matcher *m, const char *line, size_t len, struct strbuf *out, struct strbuf *err)
{
	struct leafrec r;
	const char *why;
	struct strbuf *key_json = &m->key_json;
	ssize_t hits;
	bool gate, cross;

	if (leafrec_parse(&r, line, len, &why) < 0) {
		strbuf_addstr(err, why);
		if (r.error_at)
			strbuf_addf(err, " (at byte %zu)", r.error_at);
		if (!m->stats.targets &&
		    (len == 1 || mem_holds(line, len, "\"task\"") || mem_holds(line, len, "\"data\"")))
			strbuf_addstr(err, " (this looks like a dump: probe-flatten DUMP | probe-match GOLDEN)");
		return -1;
	}
	int ret = start_group(m, &r, out, err);
	if (ret < 0)
		return ret;
	if (m->cur.skip) {
		m->stats.passed_over++;
		return 0;
	}
	if (m->opts.layer_rules && m->cur.derived_gen != m->cur.gen && derive_layer_mapping(m, &r, err) < 0)
		return GOLDEN_FAILED;
	if (m->opts.api_user && !m->golden_apis_ready && index_golden_apis(m, err) < 0)
		return GOLDEN_FAILED;
	gate = !m->opts.data_mapping && !m->cur.derived.nr;
	m->stats.targets++;
	target_key(m, &r, key_json);
	pthread_mutex_lock(&m->load.lock);
	hits = take_hits(m, r.seq, err);
	pthread_mutex_unlock(&m->load.lock);
	if (hits < 0)
		return (int)hits;
	if (!hits) {
		add_pair_head(out, key_json->buf, key_json->len);
		strbuf_add(out, ",\"t\":", 5);
		strbuf_add(out, line, len);
		strbuf_add(out, ",\"g\":null", 9);
		if (m->opts.partial)
			strbuf_add(out, ",\"partial\":true", 15);
		strbuf_add(out, "}\n", 2);
		m->stats.unmatched++;
		m->stats.pairs++;
		alike_target(m->alike, &r, false, NULL, false, err);
	} else if (gate) {
		mscell_dtype(&r, &m->scratch2);
	}
	/* msprobe's table of dtype kinds is for a MindSpore target against a PyTorch golden */
	cross = gate && r.f[LF_TYPE].kind == SPAN_STRING && r.f[LF_TYPE].n > 11 && !memcmp(r.f[LF_TYPE].p, "\"mindspore.", 11);
	for (ssize_t i = 0; i < hits; i++) {
		const struct gleaf *g = &m->hits[i];
		size_t at;
		add_pair_head(out, key_json->buf, key_json->len);
		strbuf_add(out, ",\"t\":", 5);
		strbuf_add(out, line, len);
		strbuf_add(out, ",\"g\":", 5);
		at = out->len;
		recstore_text(&g->rec, out);
		if (!i && check_pair(m, &r, out->buf + at, out->len - at, err) < 0)
			return -1;
		if (gate && !mscell_dtype_gate(m->scratch2.buf, g->dtype, cross && !strncmp(g->dtype, "torch.", 6))) {
			strbuf_add(out, ",\"msprobe_unmatched\":\"dtype\"", 28);
			m->stats.gated++;
		}
		strbuf_add(out, "}\n", 2);
		m->stats.pairs++;
	}
	return 0;
}

int matcher_add_target(struct matcher *m, const char *line, size_t len, struct strbuf *out, struct strbuf *err)
{
	int r = add_target(m, line, len, out, err);
	return r >= 0 ? r : r == GOLDEN_FAILED ? PROBE_ERR : PROBE_ERR_LINE;
}

static int matcher_finish(struct matcher *m, struct strbuf *out, struct strbuf *err)
{
	char b[24];
	int ret;
	pthread_mutex_lock(&m->load.lock);
	ret = wait_for_all(m, err);
	if (!ret && !m->cur.skip)
		ret = flush_golden_only(m, out, err);
	pthread_mutex_unlock(&m->load.lock);
	if (ret < 0)
		return -1;
	if (!m->stats.targets && m->stats.passed_over) {
		strbuf_addf(err, "no folder to compare: the target %s has ", target_root(m));
		for (int k = 1, n = 0; k < LEAF_EXEC_NMODES; k++)
			if (m->target_modes[k])
				strbuf_addf(err, "%s%s/", n++ ? " and " : "", leaf_exec_mode_names[k]);
		strbuf_addf(err, ", the golden %s has ", m->load.operand);
		add_golden_modes(err, m);
		strbuf_addstr(err, " (msprobe compares the graph/ and pynative/ folders both roots have)");
		return -1;
	}
	if (!m->stats.targets) {
		strbuf_addstr(err, "no target records: nothing to compare");
		return -1;
	}
	/* a folder of one side only: msprobe passes over it without a word; this says it */
	for (int k = 1; k < LEAF_EXEC_NMODES; k++)
		if (m->mode_passed_over[k])
			warning("%s/%s: the golden side %s has no %s/ folder: not compared (msprobe's compare passes over a "
				"folder of one side without a word)",
				target_root(m), leaf_exec_mode_names[k], m->load.operand, leaf_exec_mode_names[k]);
	for (int k = 1; k < LEAF_EXEC_NMODES; k++)
		if (!m->target_modes[k] && golden_has_mode(m, k) && m->stats.targets)
			warning("%s/%s: the target %s has no %s/ folder: not compared (msprobe's compare passes over a "
				"folder of one side without a word)",
				m->load.operand, leaf_exec_mode_names[k], target_root(m), leaf_exec_mode_names[k]);
	for (size_t i = 0; i < m->ngroups; i++) {
		const struct ggroup *g = &m->groups[i];
		char f[24];
		if (g->paired || (g->mode && !m->target_modes[g->mode]))
			continue;
		strbuf_addf(err, "golden rank %s (step %lld%s) has no target counterpart", rank_text(g->rank, b),
			    (long long)g->step, in_folder(g->mode, f));
		return -1;
	}
	if (alike_finish(m->alike, err) < 0)
		return -1;
	if (m->stats.unmatched == m->stats.targets) {
		strbuf_addf(err, "none of the %llu target leaves has a golden counterpart: nothing to compare",
			    (unsigned long long)m->stats.targets);
		return -1;
	}
	return 0;
}

void matcher_summary(const struct matcher *m, struct strbuf *out)
{
	const struct match_stats *s = &m->stats;
	size_t at;
	strbuf_addf(out,
		    "%llu target leaves, %llu golden leaves: %llu pairs, %llu target leaves unmatched, "
		    "%llu golden leaves unmatched, %llu pairs msprobe's dtype gate leaves unmatched",
		    (unsigned long long)s->targets, (unsigned long long)s->golden_leaves,
		    (unsigned long long)(s->pairs - s->unmatched), (unsigned long long)s->unmatched,
		    (unsigned long long)s->golden_only, (unsigned long long)s->gated);
	if (s->passed_over)
		strbuf_addf(out, "; %llu target leaves of a folder the golden side has not passed over",
			    (unsigned long long)s->passed_over);
	strbuf_addch(out, '\n');
	at = out->len;
	alike_explain_all(m->alike, out);
	if (out->len == at || out->buf[out->len - 1] == '\n')
		strbuf_setlen(out, out->len - 1); /* the last newline: the message's own */
}

static int sink_add(void *ctx, const char *line, size_t len, struct strbuf *out, struct strbuf *err)
{
	return matcher_add_target(ctx, line, len, out, err);
}

static int sink_finish(void *ctx, struct strbuf *out, struct strbuf *err)
{
	return matcher_finish(ctx, out, err);
}

struct line_sink matcher_sink(struct matcher *ctx)
{
	return (struct line_sink){ .ctx = ctx, .add = sink_add, .finish = sink_finish };
}
