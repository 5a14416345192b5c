#include "leafrec.h"
#include "../core/xalloc.h"

#include <pthread.h>

const char *const leaf_field_names[LF_NFIELDS] = {
	"rank", "step", "seq", "entry", "name", "key", "state", "type", "dtype", "shape",
	"max", "min", "mean", "norm", "requires_grad", "md5", "value", "attrs", "p2p",
	"data_name", "data", "task", "dump", "msprobe_skips", "stack", "modules", "stack_from",
	"where", "exec_mode", "process", "alias", "data_member",
};

const char *const leaf_exec_mode_names[LEAF_EXEC_NMODES] = { NULL, "graph", "pynative" };

int leafrec_exec_mode_same(int *seen, int mode, const char *tool, struct strbuf *err)
{
	if (*seen < 0)
		*seen = mode;
	if (*seen == mode)
		return 0;
	strbuf_addf(err, "records of two folders (%s and %s) in one input: %s shows one at a time; choose one, "
		    "e.g. jq -c 'select((.t // .g // .).exec_mode == \"%s\")'",
		    *seen ? leaf_exec_mode_names[*seen] : "none", mode ? leaf_exec_mode_names[mode] : "none", tool,
		    leaf_exec_mode_names[*seen ? *seen : mode]);
	return -1;
}

int leafrec_exec_mode_of(const char *name, size_t n)
{
	for (int i = 1; i < LEAF_EXEC_NMODES; i++)
		if (strlen(leaf_exec_mode_names[i]) == n && !memcmp(leaf_exec_mode_names[i], name, n))
			return i;
	return LEAF_EXEC_NONE;
}

/*
 * Field index of a key (the hot path of every record tool).  The first eight
 * bytes of the key, as one word, are hashed by a multiplication into a
 * 256-slot table, then compared with the slot's name as a word.  The
 * multiplier was searched so that the names fall in distinct slots on
 * little-endian machines; a slot two names share is marked and falls back to
 * a linear search.
 */
#define FIELD_SHARED 255
static unsigned char field_slot[256]; /* field + 1, 0 none, FIELD_SHARED */
static uint64_t field_word[LF_NFIELDS];
static unsigned char field_len[LF_NFIELDS];

static uint64_t word_of(const char *k, size_t n)
{
	uint64_t w = 0;
	memcpy(&w, k, n < 8 ? n : 8);
	return w;
}

static unsigned field_hash(uint64_t w, size_t n)
{
	return (unsigned)(((w ^ n) * 0x91b7584a2265b1f5ULL) >> 56);
}

static void field_table_init(void)
{
	for (int f = 0; f < LF_NFIELDS; f++) {
		const char *name = leaf_field_names[f];
		size_t n = strlen(name);
		unsigned h;
		field_word[f] = word_of(name, n);
		field_len[f] = (unsigned char)n;
		h = field_hash(field_word[f], n);
		field_slot[h] = field_slot[h] ? FIELD_SHARED : (unsigned char)(f + 1);
	}
}

static bool field_is(int f, uint64_t w, const char *k, size_t n)
{
	return field_len[f] == n && field_word[f] == w && (n <= 8 || !memcmp(leaf_field_names[f] + 8, k + 8, n - 8));
}

/* key: a key span inside a text that goes on at least to bound. */
static int field_of(const struct span *key, const char *bound)
{
	static const uint64_t low_bytes[8] = {
		0, 0xff, 0xffff, 0xffffff, 0xffffffffULL, 0xffffffffffULL, 0xffffffffffffULL, 0xffffffffffffffULL,
	};
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	const char *k = key->p + 1;
	size_t n = key->n - 2;
	unsigned slot;
	uint64_t w;
	pthread_once(&once, field_table_init);
	if (n == 0 || n > 16)
		return -1;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (bound - k >= 8) {
		memcpy(&w, k, 8); /* one load; the bytes past the key are masked off */
		if (n < 8)
			w &= low_bytes[n];
	} else
#endif
	{
		(void)low_bytes;
		(void)bound;
		w = word_of(k, n);
	}
	slot = field_slot[field_hash(w, n)];
	if (slot == 0)
		return -1;
	if (slot != FIELD_SHARED)
		return field_is((int)slot - 1, w, k, n) ? (int)slot - 1 : -1;
	for (int f = 0; f < LF_NFIELDS; f++)
		if (field_is(f, w, k, n))
			return f;
	return -1;
}

static int64_t int_or_null(const struct span *s, bool *ok)
{
	int64_t v;
	if (s->kind == SPAN_NONE || s->kind == SPAN_NULL)
		return -1;
	if (!span_int(s, &v) || v < 0) {
		*ok = false;
		return -1;
	}
	return v;
}

static int finish(struct leafrec *r, const char **why)
{
	bool ok = true;
	if (r->f[LF_NAME].kind != SPAN_STRING || r->f[LF_KEY].kind != SPAN_STRING ||
	    r->f[LF_ENTRY].kind != SPAN_STRING) {
		*why = "not a leaf record (no \"entry\", \"name\" and \"key\" strings)";
		return -1;
	}
	/* the names every tool matches and reports on: a bad escape or byte would cut them short */
	for (int i = 0; i < 3; i++) {
		static const int names[3] = { LF_ENTRY, LF_NAME, LF_KEY };
		const struct span *s = &r->f[names[i]];
		if (!span_string_valid(s)) {
			*why = "a leaf's \"entry\", \"name\" or \"key\" is not valid UTF-8 or has a bad escape";
			if (r->text && s->p >= r->text && s->p < r->text + r->len)
				r->error_at = (size_t)(s->p - r->text) + 1;
			return -1;
		}
	}
	r->rank = int_or_null(&r->f[LF_RANK], &ok);
	r->step = int_or_null(&r->f[LF_STEP], &ok);
	r->seq = int_or_null(&r->f[LF_SEQ], &ok);
	if (!ok) {
		*why = "\"rank\", \"step\" and \"seq\" must be whole numbers or null";
		return -1;
	}
	r->exec_mode = LEAF_EXEC_NONE;
	if (r->f[LF_EXEC_MODE].kind != SPAN_NONE && r->f[LF_EXEC_MODE].kind != SPAN_NULL) {
		const struct span *m = &r->f[LF_EXEC_MODE];
		/* the two names have no escapes: the text between the quotes is the name */
		if (m->kind == SPAN_STRING)
			r->exec_mode = leafrec_exec_mode_of(m->p + 1, m->n - 2);
		if (r->exec_mode == LEAF_EXEC_NONE) {
			*why = "\"exec_mode\" must be \"graph\", \"pynative\" or null";
			if (r->text && m->p >= r->text && m->p < r->text + r->len)
				r->error_at = (size_t)(m->p - r->text) + 1;
			return -1;
		}
	}
	return 0;
}

static int read_members(struct leafrec *r, struct rs_iter *it, const char **why)
{
	struct span k, v;
	int got;
	while ((got = rs_next(it, &k, &v)) == 1) {
		int i = field_of(&k, it->end);
		if (i >= 0)
			r->f[i] = v;
	}
	if (got < 0) {
		*why = it->error;
		r->error_at = it->error_at + 1;
		return -1;
	}
	return 0;
}

int leafrec_parse(struct leafrec *r, const char *text, size_t len, const char **why)
{
	struct rs_iter it;
	memset(r->f, 0, sizeof(r->f));
	r->error_at = 0;
	r->text = text;
	r->len = len;
	if (rs_begin(&it, text, len) < 0) {
		*why = it.error;
		r->error_at = it.error_at + 1;
		return -1;
	}
	if (read_members(r, &it, why) < 0)
		return -1;
	return finish(r, why);
}

int leafrec_parse_at(struct leafrec *r, const char *p, const char *bound, const char **after, const char **why)
{
	struct rs_iter it;
	memset(r->f, 0, sizeof(r->f));
	r->error_at = 0;
	if (rs_begin_at(&it, p, bound) < 0) {
		*why = it.error;
		return -1;
	}
	r->text = it.p - 1;
	if (read_members(r, &it, why) < 0)
		return -1;
	r->len = (size_t)(it.p - r->text);
	*after = it.p;
	return finish(r, why);
}

void leafrec_str(const struct leafrec *r, enum leaf_field i, struct strbuf *out)
{
	strbuf_reset(out);
	if (r->f[i].kind == SPAN_STRING)
		span_string(&r->f[i], out);
}

char *leafrec_proc_folder(const struct leafrec *r)
{
	struct strbuf dump = STRBUF_INIT;
	char *found = NULL;
	leafrec_str(r, LF_DUMP, &dump);
	for (const char *p = dump.buf; *p;) {
		size_t n = strcspn(p, "/");
		if (n > 4 && !memcmp(p, "proc", 4) && strspn(p + 4, "0123456789") == n - 4) {
			free(found);
			found = xmemdupz(p, n); /* the last one, the dump's own */
		}
		p += n + (p[n] == '/');
	}
	strbuf_release(&dump);
	return found;
}

void leafrec_rank_label(struct strbuf *out, int64_t rank, const char *proc)
{
	if (rank >= 0)
		strbuf_addf(out, "rank %lld", (long long)rank);
	else
		strbuf_addstr(out, proc ? proc : "no rank");
}
