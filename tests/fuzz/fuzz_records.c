/*
 * Record lines (lib/json/recscan.c, lib/records/leafrec.c, lib/records/pair.c, lib/records/lines.c,
 * lib/msprobe/pyval.c).
 *
 * The whole input is taken as one line, and then as a file of lines read
 * by line_reader (blank lines, a last line without a newline, gzip; lines
 * of at most 1 KiB, PROBE_MAX_LINE, so that the bound is reached); each
 * line goes through leafrec_parse(), leafrec_parse_at(), pair_parse(),
 * errorrec_read() and a walk of its members and items with every span
 * decoded.  A record leafrec_parse() accepts must read the same with
 * leafrec_parse_at(), and every span must lie inside the line; kept in the
 * golden index's store (lib/records/recstore.c), it must come back byte
 * for byte, with its key.
 *
 * Every value span, and the whole line, is also read as a Python value
 * (pyval_parse(), pyval_from_text()), with and without
 * PYV_NONFINITE_STRINGS, printed and compared with itself: the one-pass
 * parser must give what the recursive parse it replaced gave (kept here,
 * below, as the reference) wherever that one can run (a few hundred
 * levels), refuse nothing recscan's depth limit lets through, and accept
 * nothing deeper than RS_MAX_DEPTH.
 */
#include "fuzz.h"
#include "../../lib/records/leafrec.h"
#include "../../lib/records/recstore.h"
#include "../../lib/records/lines.h"
#include "../../lib/records/pair.h"
#include "../../lib/records/errorrec.h"
#include "../../lib/msprobe/pyval.h"
#include "../../lib/json/recscan.h"
#include "../../lib/core/xalloc.h"

/* The parse of lib/msprobe/pyval.c before issue 17: recursive, each nested value skipped before it is read. */
static struct pyval *ref_parse(const struct span *s, unsigned flags, struct arena *a)
{
	struct pyval **items = NULL, *v;
	size_t n = 0, alloc = 0;
	bool obj = s->kind == SPAN_OBJECT;
	struct rs_iter it;
	struct span k, val;
	int r;
	if (s->kind != SPAN_ARRAY && s->kind != SPAN_OBJECT)
		return pyval_parse(s, flags, a); /* scalars: the same code as before */
	if ((obj ? rs_begin(&it, s->p, s->n) : rs_begin_array(&it, s->p, s->n)) < 0)
		return NULL;
	while ((r = obj ? rs_next(&it, &k, &val) : rs_next_item(&it, &val)) == 1) {
		struct pyval *kv = obj ? ref_parse(&k, 0, a) : NULL;
		struct pyval *vv = ref_parse(&val, flags, a);
		if ((obj && !kv) || !vv) {
			r = -1;
			break;
		}
		ALLOC_GROW(items, n + 2, alloc);
		if (obj)
			items[n++] = kv;
		items[n++] = vv;
	}
	if (r < 0) {
		free(items);
		return NULL;
	}
	v = arena_alloc(a, sizeof(*v));
	memset(v, 0, sizeof(*v));
	v->kind = obj ? PY_DICT : PY_LIST;
	v->items = arena_alloc(a, (n ? n : 1) * sizeof(*items));
	if (n)
		memcpy(v->items, items, n * sizeof(*items));
	v->n = obj ? n / 2 : n;
	free(items);
	return v;
}

/* The deepest nesting of brackets in s (outside strings), as a bound on what the reference may recurse into. */
static size_t bracket_depth(const char *s, size_t n)
{
	size_t depth = 0, max = 0;
	bool in_string = false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = false;
		} else if (c == '"') {
			in_string = true;
		} else if (c == '[' || c == '{') {
			if (++depth > max)
				max = depth;
		} else if ((c == ']' || c == '}') && depth) {
			depth--;
		}
	}
	return max;
}

/* pyval_parse() of a span against the reference, with its repr() and pyval_eq(); `scanned`: recscan accepted it. */
static void use_pyval(const struct span *s, bool scanned, struct strbuf *sb)
{
	static const unsigned flag_sets[] = { 0, PYV_NONFINITE_STRINGS };
	size_t depth = bracket_depth(s->p, s->n);
	/* recscan's limit: a value it skipped holds RS_MAX_DEPTH - 1 levels at most */
	FUZZ_CHECK(!scanned || depth < RS_MAX_DEPTH, "recscan let a value nested %zu deep through", depth);
	for (size_t f = 0; f < ARRAY_SIZE(flag_sets); f++) {
		struct arena a = ARENA_INIT;
		struct pyval *v = pyval_parse(s, flag_sets[f], &a);
		if (v) {
			FUZZ_CHECK(depth <= RS_MAX_DEPTH, "a value nested %zu deep read", depth);
			strbuf_reset(sb);
			pyval_repr(sb, v);
			pyval_str(sb, v);
			(void)pyval_eq(v, v);
		}
		if (depth <= 200) {
			struct strbuf want = STRBUF_INIT;
			struct pyval *w = ref_parse(s, flag_sets[f], &a);
			FUZZ_CHECK(!v == !w, "pyval_parse %s what the recursive parse %s", v ? "accepts" : "refuses",
				   w ? "accepts" : "refuses");
			if (v && w) {
				strbuf_reset(sb);
				pyval_repr(sb, v);
				pyval_repr(&want, w);
				FUZZ_CHECK(sb->len == want.len && !memcmp(sb->buf, want.buf, sb->len),
					   "repr %s, the recursive parse %s", sb->buf, want.buf);
			}
			strbuf_release(&want);
		}
		arena_release(&a);
	}
}

static void check_span(const struct span *s, const char *line, size_t len)
{
	if (s->kind == SPAN_NONE)
		return;
	FUZZ_CHECK(s->p >= line && s->n <= len && (size_t)(s->p - line) <= len - s->n,
		   "a span outside the line (at %td, %zu bytes, line of %zu)", s->p - line, s->n, len);
}

static void use_span(const struct span *s, const char *line, size_t len, struct strbuf *sb)
{
	int64_t v;
	const char *p;
	size_t n;
	check_span(s, line, len);
	if (s->kind != SPAN_NONE)
		use_pyval(s, true, sb);
	strbuf_reset(sb);
	if (span_string(s, sb) == 0)
		FUZZ_CHECK(s->kind == SPAN_STRING, "a decoded span that is not a string");
	if (span_plain_string(s, &p, &n))
		FUZZ_CHECK(n + 2 == s->n, "a plain string of the wrong length");
	(void)span_int(s, &v);
	(void)span_same(s, s);
}

/* Members (or items) of a container span, recursively, to a depth. */
static void walk(const char *s, size_t n, const char *line, size_t len, int depth, struct strbuf *sb)
{
	struct rs_iter it;
	struct span k, v;
	int r, count = 0;
	if (depth > 8)
		return;
	if (rs_begin(&it, s, n) == 0) {
		while ((r = rs_next(&it, &k, &v)) == 1 && count++ < 1000) {
			use_span(&k, line, len, sb);
			use_span(&v, line, len, sb);
			if (v.kind == SPAN_OBJECT || v.kind == SPAN_ARRAY)
				walk(v.p, v.n, line, len, depth + 1, sb);
		}
		if (r < 0)
			FUZZ_CHECK(it.error && it.error_at <= n, "an error without a message or place");
	}
	if (rs_begin_array(&it, s, n) == 0) {
		while ((r = rs_next_item(&it, &v)) == 1 && count++ < 1000) {
			use_span(&v, line, len, sb);
			if (v.kind == SPAN_OBJECT || v.kind == SPAN_ARRAY)
				walk(v.p, v.n, line, len, depth + 1, sb);
		}
		if (r < 0)
			FUZZ_CHECK(it.error && it.error_at <= n, "an error without a message or place");
	}
}

static void check_leaf(const struct leafrec *r, const char *line, size_t len, struct strbuf *sb)
{
	FUZZ_CHECK(r->text >= line && r->len <= len && (size_t)(r->text - line) <= len - r->len,
		   "a leaf record outside the line");
	for (int f = 0; f < LF_NFIELDS; f++) {
		use_span(&r->f[f], line, len, sb);
		leafrec_str(r, (enum leaf_field)f, sb);
	}
}

/* The record kept as probe-match keeps a golden leaf, and given back. */
static void check_kept(const struct leafrec *r, const char *line, size_t len, struct strbuf *sb)
{
	struct recstore store;
	struct recref ref;
	recstore_init(&store);
	recstore_keep(&store, line, len, r, &ref);
	strbuf_reset(sb);
	recstore_text(&ref, sb);
	FUZZ_CHECK(sb->len == len && !memcmp(sb->buf, line, len), "the record store gives back other bytes");
	FUZZ_CHECK(ref.key && ref.key_len == r->f[LF_KEY].n && !memcmp(ref.key, r->f[LF_KEY].p, ref.key_len),
		   "the record store's key is not the record's");
	recstore_release(&store);
}

static void one_line(const char *line, size_t len)
{
	struct leafrec r, r2;
	struct pair p;
	struct rs_iter it;
	struct span fields[3];
	static const char *const keys[] = { "t", "g", "verdict" };
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	const char *why = NULL, *after = NULL;
	int ok1, ok2;

	ok1 = leafrec_parse(&r, line, len, &why);
	if (ok1 == 0) {
		check_leaf(&r, line, len, &sb);
		check_kept(&r, line, len, &sb);
	} else {
		FUZZ_CHECK(why != NULL, "leafrec_parse failed without a reason");
	}
	why = NULL;
	ok2 = leafrec_parse_at(&r2, line, line + len, &after, &why);
	if (ok2 == 0) {
		check_leaf(&r2, line, len, &sb);
		FUZZ_CHECK(after >= line && after <= line + len, "parse_at ends outside the line");
	} else {
		FUZZ_CHECK(why != NULL, "leafrec_parse_at failed without a reason");
	}
	if (ok1 == 0) {
		FUZZ_CHECK(ok2 == 0, "leafrec_parse accepts what leafrec_parse_at refuses (%s)", why);
		for (int f = 0; f < LF_NFIELDS; f++)
			FUZZ_CHECK(r.f[f].p == r2.f[f].p && r.f[f].n == r2.f[f].n && r.f[f].kind == r2.f[f].kind,
				   "field %s differs between leafrec_parse and leafrec_parse_at", leaf_field_names[f]);
		FUZZ_CHECK(r.rank == r2.rank && r.step == r2.step && r.seq == r2.seq, "rank/step/seq differ");
	}
	FUZZ_CHECK((ok1 == 0) == pair_line_is_leaf(line, len), "pair_line_is_leaf disagrees with leafrec_parse");

	if (pair_parse(&p, line, len, &err) == 0) {
		FUZZ_CHECK(p.has_t || p.has_g, "a pair without a leaf");
		if (p.has_t)
			check_leaf(&p.t, line, len, &sb);
		if (p.has_g)
			check_leaf(&p.g, line, len, &sb);
		use_span(&p.verdict, line, len, &sb);
		use_span(&p.reason, line, len, &sb);
		use_span(&p.metrics, line, len, &sb);
	} else {
		FUZZ_CHECK(err.len, "pair_parse failed without a message");
	}

	if (rs_begin(&it, line, len) == 0 && rs_fields(&it, keys, ARRAY_SIZE(keys), fields) == 0)
		for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
			use_span(&fields[i], line, len, &sb);
	walk(line, len, line, len, 0, &sb);

	strbuf_reset(&sb);
	(void)errorrec_read(line, len, &sb);

	/* the whole line as one value, whatever its first byte says it is */
	{
		struct arena a = ARENA_INIT;
		struct pyval *v = pyval_from_text(line, len, PYV_NONFINITE_STRINGS, &a);
		if (v) {
			strbuf_reset(&sb);
			pyval_repr(&sb, v);
		}
		arena_release(&a);
		if (len && (line[0] == '[' || line[0] == '{'))
			use_pyval(&(struct span){ line, len, line[0] == '[' ? SPAN_ARRAY : SPAN_OBJECT }, false, &sb);
	}

	strbuf_release(&sb);
	strbuf_release(&err);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	setenv("PROBE_MAX_LINE", "1K", 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the line in a buffer of its own size, so that reading past it is caught */
	char *copy = malloc(size ? size : 1);
	struct fuzz_file file;
	struct line_reader *lr;
	struct strbuf err = STRBUF_INIT;
	const char *line;
	size_t len;
	int r, n = 0;

	if (!copy)
		abort();
	memcpy(copy, data, size);
	one_line(copy, size);
	free(copy);

	fuzz_file_open(&file, data, size);
	if ((lr = line_reader_open(file.path, &err)) != NULL) {
		while ((r = line_reader_next(lr, &line, &len)) == 1 && n++ < 64) {
			FUZZ_CHECK(len <= size && !memchr(line, '\n', len), "a line with a newline in it");
			FUZZ_CHECK(len <= 1024, "a line of %zu bytes past PROBE_MAX_LINE=1K", len);
			copy = malloc(len ? len : 1);
			if (!copy)
				abort();
			memcpy(copy, line, len);
			one_line(copy, len);
			free(copy);
		}
		if (r < 0)
			FUZZ_CHECK(*line_reader_error(lr), "line_reader failed without a message");
		line_reader_close(lr);
	}
	fuzz_file_close(&file);
	strbuf_release(&err);
	return 0;
}
