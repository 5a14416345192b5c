#include "dump.h"
#include "../core/msg.h"
#include "../core/source.h"
#include "../core/xalloc.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

const char *dump_leaf_state_name(enum leaf_state s)
{
	switch (s) {
	case STATE_INPUT: return "input";
	case STATE_PARAMETERS: return "parameters";
	case STATE_OUTPUT: return "output";
	case STATE_PARAMS_GRAD: return "parameters_grad";
	case STATE_DEBUG: return "debug";
	}
	return "?";
}

/* One row of the entry being read, before reordering. */
struct row {
	const char *name;
	enum leaf_state state;
	const struct jnode *obj;
	const struct jnode *p2p;
	const char *data_name;
	uint64_t line, col;
};

/*
 * The entry names seen, as 64-bit hashes (8 bytes of memory an entry at
 * most 50 % load): JSON leaves a repeated key's meaning open, and msprobe
 * (Python's json) would keep the last value at the first one's place, which
 * a stream cannot do, so a repeated entry is an error.  Two different
 * names collide with probability about n^2 / 2^65.
 */
struct name_set {
	uint64_t *slots;
	size_t cap, size;
};

/* Insert a hash; false when it was there already. */
static bool insert_hash(struct name_set *s, uint64_t h)
{
	for (size_t j = (size_t)h & (s->cap - 1);; j = (j + 1) & (s->cap - 1)) {
		if (!s->slots[j]) {
			s->slots[j] = h;
			s->size++;
			return true;
		}
		if (s->slots[j] == h)
			return false;
	}
}

/*
 * The hash of a name about to be added, with room for it and its slot on
 * its way into the cache: the table is megabytes, so the slot is a miss to
 * memory, which the caller's work on the entry hides until insert_hash().
 */
static uint64_t name_set_prepare(struct name_set *s, const char *name, size_t len)
{
	uint64_t h = XXH3_64bits(name, len);
	h = h ? h : 1;
	if ((s->size + 1) * 2 > s->cap) {
		size_t old = s->cap;
		uint64_t *v = s->slots;
		s->cap = old ? old * 2 : 1024;
		s->slots = xcalloc(s->cap, sizeof(*s->slots));
		prefault(s->slots, s->cap * sizeof(*s->slots)); /* hashes land on every page */
		s->size = 0;
		for (size_t i = 0; i < old; i++)
			if (v[i])
				insert_hash(s, v[i]);
		free(v);
	}
	__builtin_prefetch(&s->slots[h & (s->cap - 1)], 1);
	return h;
}

/* State of one dump_read() call. */
struct reading {
	struct dump_reader *d;
	struct json_reader json;
	struct source *src;
	struct arena arena;
	struct backward_counter counter;
	struct name_set names;  /* entries seen */
	struct strbuf path;     /* row name being built */
	struct strbuf key;
	struct row *rows;
	size_t nrows, rows_alloc;
	const char *entry;
	const struct jnode *entry_node;
	struct jtree_budget entry_mem;   /* the entry's memory so far (its tree, rows and names), and the most */
	uint64_t entry_line, entry_col;  /* where its name is */
	uint64_t first_skip_line, first_bare_line, first_bare_col;
	char *first_skip;
	dump_leaf_fn fn;
	void *ctx;
};

void dump_reader_init(struct dump_reader *d, const char *path)
{
	memset(d, 0, sizeof(*d));
	d->path = path;
	strbuf_init(&d->err, 0);
}

static void free_meta(struct dump_meta *m)
{
	free(m->task);
	free(m->level);
	free(m->framework);
	free(m->dump_data_dir);
	memset(m, 0, sizeof(*m));
}

void dump_reader_release(struct dump_reader *d)
{
	free_meta(&d->meta);
	strbuf_release(&d->err);
}

/* Report an error at a position of the dump; returns -1. */
static int PRINTF_LIKE(4, 5) fail_at(struct reading *rd, uint64_t line, uint64_t col, const char *fmt, ...)
{
	struct strbuf *e = &rd->d->err;
	va_list ap;
	if (e->len)
		return -1;
	strbuf_addf(e, "%s:%llu:%llu: ", json_reader_name(&rd->json), (unsigned long long)line,
		    (unsigned long long)col);
	va_start(ap, fmt);
	strbuf_vaddf(e, fmt, ap);
	va_end(ap);
	return -1;
}

static int json_failed(struct reading *rd)
{
	if (!rd->d->err.len)
		strbuf_addstr(&rd->d->err, json_reader_error(&rd->json));
	return -1;
}

static const char *token_article(enum json_type t)
{
	switch (t) {
	case JSON_OBJECT_BEGIN: return "an object";
	case JSON_ARRAY_BEGIN: return "an array";
	case JSON_STRING: return "a string";
	case JSON_NUMBER: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	default: return json_type_name(t);
	}
}

static const char *node_article(enum jkind k)
{
	switch (k) {
	case J_OBJECT: return "an object";
	case J_ARRAY: return "an array";
	case J_STRING: return "a string";
	case J_NUMBER: return "a number";
	case J_TRUE:
	case J_FALSE: return "a boolean";
	case J_NULL: return "null";
	}
	return "?";
}

static bool has_component(const char *name, size_t len, const char *part)
{
	size_t n = strlen(part);
	const char *p = name, *end = name + len;
	while (p <= end) {
		const char *dot = memchr(p, '.', (size_t)(end - p));
		const char *stop = dot ? dot : end;
		if ((size_t)(stop - p) == n && !memcmp(p, part, n))
			return true;
		if (!dot)
			break;
		p = dot + 1;
	}
	return false;
}

static int too_large(struct reading *rd);

static int add_row(struct reading *rd, enum leaf_state state, const struct jnode *obj,
		   const struct jnode *p2p, const char *data_name, const struct jnode *where)
{
	struct row *r;
	const char *name;
	size_t name_len;
	if (data_name) {
		/* msprobe names a saved tensor after its file: data_name minus the extension */
		const char *dot = strrchr(data_name, '.');
		name_len = dot ? (size_t)(dot - data_name) : strlen(data_name);
		name = arena_memdupz(&rd->arena, data_name, name_len);
	} else {
		name_len = rd->path.len;
		name = arena_memdupz(&rd->arena, rd->path.buf, name_len);
	}
	ALLOC_GROW(rd->rows, rd->nrows + 1, rd->rows_alloc);
	rd->entry_mem.bytes += sizeof(*r) + name_len + 1;
	r = &rd->rows[rd->nrows++];
	r->name = name;
	r->state = state;
	r->obj = obj;
	r->p2p = p2p;
	r->data_name = data_name;
	r->line = where->line;
	r->col = where->col;
	return rd->entry_mem.bytes > rd->entry_mem.limit ? too_large(rd) : 0;
}

/*
 * The data_name of a leaf object: NULL when absent, null, "" or "-1" (msprobe's
 * "no file": the row keeps its structural name); -1 when not a string.
 */
static int leaf_data_name(struct reading *rd, const struct jnode *obj, const char **out)
{
	const struct jnode *dn = jtree_get(obj, "data_name");
	*out = NULL;
	if (!dn || dn->kind == J_NULL || (dn->kind == J_STRING && (dn->len == 0 || !strcmp(dn->text, "-1"))))
		return 0;
	if (dn->kind != J_STRING)
		return fail_at(rd, dn->line, dn->col, "\"data_name\" of %s is %s, expected a string",
			       rd->path.buf, node_article(dn->kind));
	*out = dn->text;
	return 0;
}

/* msprobe's op_item_parse: turn one value of an entry into rows. */
static int walk(struct reading *rd, const struct jnode *node, enum leaf_state state, int depth)
{
	const struct jnode *c;
	size_t mark = rd->path.len;
	const char *data_name;

	if (depth > DUMP_MAX_DEPTH)
		return fail_at(rd, node->line, node->col,
			       "entry \"%s\" nests deeper than %d levels (msprobe's limit) at %s",
			       rd->entry, DUMP_MAX_DEPTH, rd->path.buf);
	switch (node->kind) {
	case J_NULL:
		return add_row(rd, state, NULL, NULL, NULL, node);
	case J_ARRAY: {
		bool index = !has_component(rd->path.buf, rd->path.len, "parameters_grad");
		size_t i = 0;
		for (c = node->child; c; c = c->next, i++) {
			if (index) {
				strbuf_addch(&rd->path, '.');
				strbuf_addu(&rd->path, i);
			}
			if (walk(rd, c, state, depth + 1) < 0)
				return -1;
			strbuf_setlen(&rd->path, mark);
		}
		return 0;
	}
	case J_OBJECT:
		if (!node->count)
			return 0;
		if (jtree_is_str(jtree_get(node, "class_type"), "torch.distributed.P2POp")) {
			const struct jnode *t = jtree_get(node, "tensor");
			if (t && t->kind != J_OBJECT)
				t = NULL;
			if (t && leaf_data_name(rd, t, &data_name) < 0)
				return -1;
			return add_row(rd, state, t, node, t ? data_name : NULL, node);
		}
		c = jtree_get(node, "type");
		if (c && c->kind == J_STRING) {
			if (leaf_data_name(rd, node, &data_name) < 0)
				return -1;
			return add_row(rd, state, node, NULL, data_name, node);
		}
		for (c = node->child; c; c = c->next) {
			if (memchr(c->key, '\0', c->key_len))
				return fail_at(rd, c->line, c->col, "a key in entry \"%s\" contains a NUL character: "
					       "its rows cannot be named", rd->entry);
			strbuf_addch(&rd->path, '.');
			strbuf_add(&rd->path, c->key, c->key_len);
			if (walk(rd, c, state, depth + 1) < 0)
				return -1;
			strbuf_setlen(&rd->path, mark);
		}
		return 0;
	default:
		/* msprobe's compare makes no row of a bare value; say so instead of dropping it quietly */
		if (!rd->d->bare_values++) {
			rd->first_bare_line = node->line;
			rd->first_bare_col = node->col;
		}
		return 0;
	}
}

static const struct {
	const char *key;
	const char *suffix;
	enum leaf_state state;
} io_keys[] = {
	{ "input_args", ".input", STATE_INPUT },
	{ "input_kwargs", ".input", STATE_INPUT },
	{ "input", ".input", STATE_INPUT },
	{ "output", ".output", STATE_OUTPUT },
	{ "parameters", ".parameters", STATE_PARAMETERS },
};

static int collect_rows(struct reading *rd, const struct entry_name *en)
{
	rd->nrows = 0;
	strbuf_reset(&rd->path);
	strbuf_addstr(&rd->path, rd->entry);
	if (en->layout != LAYOUT_IO)
		return walk(rd, rd->entry_node, en->layout == LAYOUT_DEBUG ? STATE_DEBUG : STATE_PARAMS_GRAD, 0);
	for (size_t i = 0; i < ARRAY_SIZE(io_keys); i++) {
		const struct jnode *v = jtree_get(rd->entry_node, io_keys[i].key);
		if (!v)
			continue;
		strbuf_setlen(&rd->path, strlen(rd->entry));
		strbuf_addstr(&rd->path, io_keys[i].suffix);
		if (walk(rd, v, io_keys[i].state, 0) < 0)
			return -1;
	}
	return 0;
}

/* msprobe's reorder_index: inputs (and debug rows), parameters, outputs, parameter grads. */
static int state_rank(enum leaf_state s)
{
	switch (s) {
	case STATE_PARAMETERS: return 1;
	case STATE_OUTPUT: return 2;
	case STATE_PARAMS_GRAD: return 3;
	default: return 0;
	}
}

static int emit_rows(struct reading *rd, const struct entry_name *en, uint64_t order)
{
	struct dump_reader *d = rd->d;
	bool skips = !d->debug_file && (en->dir == DIR_NONE || !en->base_len);
	for (int pass = 0; pass < 4; pass++) {
		for (size_t i = 0; i < rd->nrows; i++) {
			const struct row *r = &rd->rows[i];
			struct leaf leaf;
			int stop;
			if (state_rank(r->state) != pass)
				continue;
			naming_compare_key(&rd->key, rd->entry, en, r->name, order, !d->debug_file);
			leaf = (struct leaf){
				.entry = rd->entry,
				.name = r->name,
				.key = rd->key.buf,
				.state = r->state,
				.obj = r->obj,
				.p2p = r->p2p,
				.data_name = r->data_name,
				.seq = d->rows,
				.entry_seq = d->entries,
				.msprobe_skips = skips,
				.line = r->line,
				.col = r->col,
			};
			d->rows++;
			stop = rd->fn(d, &leaf, rd->ctx);
			if (stop)
				return stop;
		}
	}
	return 0;
}

/* ---- one entry's tree, within its memory ---------------------------------- */

/* The entry takes more memory than it may: an error naming it and the limit. */
static int too_large(struct reading *rd)
{
	size_t l = rd->entry_mem.limit;
	char limit[64];
	if (l % ((size_t)1 << 20) == 0)
		snprintf(limit, sizeof(limit), "%zu MiB", l >> 20);
	else if (l % 1024 == 0)
		snprintf(limit, sizeof(limit), "%zu KiB", l >> 10);
	else
		snprintf(limit, sizeof(limit), "%zu bytes", l);
	return fail_at(rd, rd->entry_line, rd->entry_col,
		       "entry \"%s\" is too large: it takes more than %s of memory (%llu values read), and one "
		       "entry may take at most %s (probe-flatten(1), Limits)",
		       rd->entry, limit, (unsigned long long)rd->entry_mem.values, limit);
}

static int read_entry(struct reading *rd, const struct json_token *key)
{
	struct json_token tok;
	struct entry_name en;
	uint64_t order, name_hash;
	int ret;

	arena_reset(&rd->arena);
	if (!key->len || memchr(key->text, '\0', key->len))
		return fail_at(rd, key->line, key->col, "an entry name %s: its rows cannot be named",
			       key->len ? "contains a NUL character" : "is empty");
	name_hash = name_set_prepare(&rd->names, key->text, key->len);
	rd->entry = arena_memdupz(&rd->arena, key->text, key->len);
	if (json_reader_next(&rd->json, &tok) == JSON_ERROR)
		return json_failed(rd);
	naming_parse_entry(rd->entry, strlen(rd->entry), &en);
	/* a single-point save may be any value; API and module entries are objects */
	if (tok.type != JSON_OBJECT_BEGIN && en.layout != LAYOUT_DEBUG)
		return fail_at(rd, key->line, key->col, "entry \"%s\" is %s, expected an object",
			       rd->entry, token_article(tok.type));
	rd->entry_mem = (struct jtree_budget){ .limit = rd->d->max_entry_bytes ? rd->d->max_entry_bytes
									  : DUMP_MAX_ENTRY_BYTES };
	rd->entry_line = key->line;
	rd->entry_col = key->col;
	rd->entry_node = jtree_build_within(&rd->json, &tok, &rd->arena, &rd->entry_mem);
	if (!rd->entry_node)
		return rd->entry_mem.exceeded ? too_large(rd) : json_failed(rd);
	/* checked after the entry is read (a malformed entry is reported as such), before any of its rows */
	if (!insert_hash(&rd->names, name_hash))
		return fail_at(rd, key->line, key->col,
			       "entry \"%s\" appears a second time in \"data\" (JSON leaves the meaning open; "
			       "msprobe would keep this one at the first one's place)",
			       rd->entry);

	order = naming_backward_next(&rd->counter, rd->entry, &en);
	if (!rd->d->debug_file && (en.dir == DIR_NONE || !en.base_len)) {
		if (!rd->d->skipped_entries++) {
			rd->first_skip = xstrdup(rd->entry);
			rd->first_skip_line = key->line;
		}
	}
	if (collect_rows(rd, &en) < 0)
		return -1;
	if (rd->d->on_entry && (ret = rd->d->on_entry(rd->entry, rd->d->entry_ctx)) != 0)
		return ret;
	ret = emit_rows(rd, &en, order);
	rd->d->entries++;
	return ret;
}

static int read_data(struct reading *rd, const struct json_token *key)
{
	struct json_token tok;
	enum json_type t = json_reader_next(&rd->json, &tok);
	if (t == JSON_ERROR)
		return json_failed(rd);
	if (t != JSON_OBJECT_BEGIN)
		return fail_at(rd, key->line, key->col, "not a dump: \"data\" is %s, expected an object",
			       token_article(t));
	for (;;) {
		int ret;
		t = json_reader_next(&rd->json, &tok);
		if (t == JSON_ERROR)
			return json_failed(rd);
		if (t == JSON_OBJECT_END)
			return 0;
		ret = read_entry(rd, &tok);
		if (ret)
			return ret;
	}
}

static const char *const meta_keys[] = { "task", "level", "framework", "dump_data_dir" };

static char **meta_field(struct dump_meta *m, size_t i)
{
	switch (i) {
	case 0: return &m->task;
	case 1: return &m->level;
	case 2: return &m->framework;
	default: return &m->dump_data_dir;
	}
}

static int meta_index(const struct json_token *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(meta_keys); i++)
		if (key->len == strlen(meta_keys[i]) && !memcmp(key->text, meta_keys[i], key->len))
			return (int)i;
	return -1;
}

/* Read a header field's value (string or null). */
static int read_meta_value(struct json_reader *json, const struct json_token *key, int i,
			   struct dump_meta *meta, struct strbuf *err)
{
	struct json_token tok;
	enum json_type t = json_reader_next(json, &tok);
	char **field = meta_field(meta, (size_t)i);
	if (t == JSON_ERROR) {
		strbuf_addstr(err, json_reader_error(json));
		return -1;
	}
	if (t == JSON_STRING) {
		free(*field);
		*field = xmemdupz(tok.text, tok.len);
		return 0;
	}
	if (t == JSON_NULL && i != 0) {
		free(*field);
		*field = NULL;
		return 0;
	}
	strbuf_addf(err, "%s:%llu:%llu: not a dump: \"%s\" is %s, expected a string", json_reader_name(json),
		    (unsigned long long)key->line, (unsigned long long)key->col, meta_keys[i],
		    token_article(t));
	return -1;
}

static int skip_value(struct json_reader *json)
{
	struct json_token tok;
	enum json_type t = json_reader_next(json, &tok);
	if (t == JSON_ERROR)
		return -1;
	if (t == JSON_OBJECT_BEGIN || t == JSON_ARRAY_BEGIN)
		return json_reader_skip(json);
	return 0;
}

/*
 * The header fields of a dump whose "data" comes before "task": a second,
 * quick pass over the file that skips "data".
 */
static int prescan_header(struct reading *rd)
{
	struct dump_reader *d = rd->d;
	struct strbuf err = STRBUF_INIT;
	struct source *src;
	struct json_reader json;
	struct json_token tok;
	int ret = 0;

	/* a pipe, a FIFO, <(...), a device: what was read is gone, and a second open would wait or read other bytes */
	if (!strcmp(d->path, "-") || !source_is_regular(rd->src))
		return fail_at(rd, 1, 1, "\"data\" comes before \"task\", which needs a second pass "
			       "over the dump; name a regular file (a pipe, a FIFO or standard input is read only once)");
	src = source_open_regular(d->path, &err);
	if (!src) {
		strbuf_addbuf(&d->err, &err);
		strbuf_release(&err);
		return -1;
	}
	json_reader_init(&json, src, 0, d->buffer_size);
	if (json_reader_next(&json, &tok) != JSON_OBJECT_BEGIN)
		ret = -1;
	while (!ret) {
		enum json_type t = json_reader_next(&json, &tok);
		int i;
		if (t == JSON_OBJECT_END)
			break;
		if (t != JSON_KEY) {
			ret = -1;
			break;
		}
		i = meta_index(&tok);
		if (i >= 0)
			ret = read_meta_value(&json, &tok, i, &d->meta, &err);
		else
			ret = skip_value(&json);
	}
	if (ret < 0 && !err.len)
		strbuf_addstr(&err, json_reader_error(&json));
	if (ret < 0)
		strbuf_addbuf(&d->err, &err);
	json_reader_release(&json);
	source_close(src);
	strbuf_release(&err);
	return ret;
}

static void report_oddities(struct reading *rd)
{
	struct dump_reader *d = rd->d;
	if (d->skipped_entries)
		warning("%s:%llu: %llu entr%s without forward, backward or parameters_grad in the last two "
			"name parts (first: \"%s\"); msprobe's compare ignores them",
			json_reader_name(&rd->json), (unsigned long long)rd->first_skip_line,
			(unsigned long long)d->skipped_entries, d->skipped_entries == 1 ? "y" : "ies",
			rd->first_skip);
	if (d->bare_values)
		warning("%s:%llu:%llu: %llu bare value%s where a leaf object belongs; they are not leaves "
			"(msprobe's compare makes no row of them either)",
			json_reader_name(&rd->json), (unsigned long long)rd->first_bare_line,
			(unsigned long long)rd->first_bare_col, (unsigned long long)d->bare_values,
			d->bare_values == 1 ? "" : "s");
}

static int read_top(struct reading *rd)
{
	struct dump_reader *d = rd->d;
	struct json_token tok, data_key = { 0 };
	bool seen[ARRAY_SIZE(meta_keys)] = { false };
	bool seen_data = false, prescanned = false;
	enum json_type t = json_reader_next(&rd->json, &tok);

	if (t == JSON_ERROR)
		return json_failed(rd);
	if (t != JSON_OBJECT_BEGIN)
		return fail_at(rd, tok.line, tok.col, "not a dump: the top-level value is %s, expected an object",
			       token_article(t));
	for (;;) {
		int i, ret;
		t = json_reader_next(&rd->json, &tok);
		if (t == JSON_ERROR)
			return json_failed(rd);
		if (t == JSON_OBJECT_END)
			break;
		i = meta_index(&tok);
		if (i >= 0) {
			if (seen[i])
				return fail_at(rd, tok.line, tok.col, "duplicate key \"%s\" in the dump header", meta_keys[i]);
			seen[i] = true;
			if (prescanned) {
				if (skip_value(&rd->json) < 0)
					return json_failed(rd);
			} else if (read_meta_value(&rd->json, &tok, i, &d->meta, &d->err) < 0) {
				return -1;
			}
			continue;
		}
		if (tok.len == 4 && !memcmp(tok.text, "data", 4)) {
			if (seen_data)
				return fail_at(rd, tok.line, tok.col, "duplicate key \"data\" in the dump");
			seen_data = true;
			data_key = tok;
			data_key.text = NULL;
			if (!d->meta.task) {
				if (prescan_header(rd) < 0)
					return -1;
				prescanned = true;
				if (!d->meta.task)
					return fail_at(rd, 1, 1, "not a dump: no \"task\" (statistics, tensor, ...)");
			}
			ret = read_data(rd, &tok);
			if (ret)
				return ret;
			continue;
		}
		if (skip_value(&rd->json) < 0)
			return json_failed(rd);
	}
	if (json_reader_next(&rd->json, &tok) == JSON_ERROR)
		return json_failed(rd);
	if (!seen_data)
		return fail_at(rd, 1, 1, "not a dump: no \"data\" object");
	if (!d->entries)
		return fail_at(rd, data_key.line, data_key.col, "\"data\" has no entries: nothing to compare");
	if (!d->rows)
		return fail_at(rd, data_key.line, data_key.col,
			       "\"data\" has %llu entr%s but no leaves: nothing to compare",
			       (unsigned long long)d->entries, d->entries == 1 ? "y" : "ies");
	report_oddities(rd);
	return 0;
}

int dump_read(struct dump_reader *d, dump_leaf_fn fn, void *ctx)
{
	struct reading rd = { 0 };
	struct strbuf err = STRBUF_INIT;
	int ret;

	free_meta(&d->meta);
	strbuf_reset(&d->err);
	d->entries = d->rows = d->skipped_entries = d->bare_values = 0;
	rd.src = source_open(d->path, &err);
	if (!rd.src) {
		strbuf_addbuf(&d->err, &err);
		strbuf_release(&err);
		return -1;
	}
	source_set_max_chunk(rd.src, d->max_chunk);
	rd.d = d;
	rd.fn = fn;
	rd.ctx = ctx;
	json_reader_init(&rd.json, rd.src, 0, d->buffer_size);
	strbuf_init(&rd.path, 256);
	strbuf_init(&rd.key, 256);
	ret = read_top(&rd);
	json_reader_release(&rd.json);
	source_close(rd.src);
	arena_release(&rd.arena);
	naming_backward_release(&rd.counter);
	free(rd.names.slots);
	strbuf_release(&rd.path);
	strbuf_release(&rd.key);
	free(rd.rows);
	free(rd.first_skip);
	strbuf_release(&err);
	return ret;
}
