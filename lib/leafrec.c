#include "leafrec.h"

const char *const leaf_field_names[LF_NFIELDS] = {
	"rank", "step", "seq", "entry", "name", "key", "state", "type", "dtype", "shape",
	"max", "min", "mean", "norm", "requires_grad", "md5", "value", "attrs", "p2p",
	"data_name", "data", "task", "dump", "msprobe_skips", "stack", "modules",
};

/* Field index of a key: a switch on the length, then the bytes (the hot path of every record tool). */
static int field_of(const struct span *key)
{
	const char *k = key->p + 1;
	size_t n = key->n - 2;
	static int by_len[20][10];
	static bool ready;
	if (!ready) {
		for (int i = 0; i < 20; i++)
			for (int j = 0; j < 10; j++)
				by_len[i][j] = -1;
		for (int f = 0; f < LF_NFIELDS; f++) {
			size_t l = strlen(leaf_field_names[f]);
			for (int j = 0; j < 10; j++)
				if (by_len[l][j] < 0) {
					by_len[l][j] = f;
					break;
				}
		}
		ready = true;
	}
	if (n >= 20)
		return -1;
	for (int j = 0; j < 10 && by_len[n][j] >= 0; j++) {
		int f = by_len[n][j];
		if (!memcmp(leaf_field_names[f], k, n))
			return f;
	}
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
	r->rank = int_or_null(&r->f[LF_RANK], &ok);
	r->step = int_or_null(&r->f[LF_STEP], &ok);
	r->seq = int_or_null(&r->f[LF_SEQ], &ok);
	if (!ok) {
		*why = "\"rank\", \"step\" and \"seq\" must be whole numbers or null";
		return -1;
	}
	return 0;
}

static int read_members(struct leafrec *r, struct rs_iter *it, const char **why)
{
	struct span k, v;
	int got;
	while ((got = rs_next(it, &k, &v)) == 1) {
		int i = field_of(&k);
		if (i >= 0)
			r->f[i] = v;
	}
	if (got < 0) {
		*why = it->error;
		return -1;
	}
	return 0;
}

int leafrec_parse(struct leafrec *r, const char *text, size_t len, const char **why)
{
	struct rs_iter it;
	memset(r->f, 0, sizeof(r->f));
	r->text = text;
	r->len = len;
	if (rs_begin(&it, text, len) < 0) {
		*why = it.error;
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

void leafrec_move(struct leafrec *r, ptrdiff_t delta)
{
	r->text += delta;
	for (int i = 0; i < LF_NFIELDS; i++)
		if (r->f[i].p)
			r->f[i].p += delta;
}
