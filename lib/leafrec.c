#include "leafrec.h"

const char *const leaf_field_names[LF_NFIELDS] = {
	"rank", "step", "seq", "entry", "name", "key", "state", "type", "dtype", "shape",
	"max", "min", "mean", "norm", "requires_grad", "md5", "value", "attrs", "p2p",
	"data_name", "data", "task", "dump", "msprobe_skips", "stack", "modules",
};

/* Field index of a key, by length then bytes (the hot path of every record tool). */
static int field_of(const struct span *key)
{
	const char *k = key->p + 1;
	size_t n = key->n - 2;
	for (int i = 0; i < LF_NFIELDS; i++) {
		const char *f = leaf_field_names[i];
		if (f[0] == k[0] && strlen(f) == n && !memcmp(f, k, n))
			return i;
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

int leafrec_parse(struct leafrec *r, const char *text, size_t len, const char **why)
{
	struct rs_iter it;
	struct span k, v;
	int got;
	bool ok = true;

	memset(r->f, 0, sizeof(r->f));
	r->text = text;
	r->len = len;
	if (rs_begin(&it, text, len) < 0) {
		*why = it.error;
		return -1;
	}
	while ((got = rs_next(&it, &k, &v)) == 1) {
		int i = field_of(&k);
		if (i >= 0)
			r->f[i] = v;
	}
	if (got < 0) {
		*why = it.error;
		return -1;
	}
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
