/*
 * JSON values as Python sees them (lib/msprobe/pyval.c): what they print as, what
 * is refused, and the depth limit shared with the record scanner
 * (lib/json/recscan.c): 10,000 levels read, deeper refused without a crash, in
 * one pass whatever the depth.
 */
#include "tap.h"
#include "../../lib/msprobe/pyval.h"
#include "../../lib/json/recscan.h"

#include <time.h>

#ifndef RS_MAX_DEPTH
#define RS_MAX_DEPTH 10000 /* (so that this test builds, and fails, on a tree without the limit) */
#endif

/* repr() of the value of json, "NULL" when it is refused. */
static void repr_of(const char *json, size_t len, unsigned flags, struct strbuf *out)
{
	struct arena a = ARENA_INIT;
	struct pyval *v = pyval_from_text(json, len, flags, &a);
	strbuf_reset(out);
	if (v)
		pyval_repr(out, v);
	else
		strbuf_addstr(out, "NULL");
	arena_release(&a);
}

static void check_repr(const char *json, const char *want, unsigned flags)
{
	struct strbuf got = STRBUF_INIT;
	repr_of(json, strlen(json), flags, &got);
	is_str(got.buf, want, json);
	strbuf_release(&got);
}

/* depth levels of "[" (or of {"a": ...}) around inner. */
static char *nest(size_t depth, bool objects, const char *inner, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < depth; i++)
		strbuf_addstr(&sb, objects ? "{\"a\":" : "[");
	strbuf_addstr(&sb, inner);
	for (size_t i = 0; i < depth; i++)
		strbuf_addch(&sb, objects ? '}' : ']');
	return strbuf_detach(&sb, len);
}

static bool parses(const char *s, size_t len)
{
	struct arena a = ARENA_INIT;
	bool ok = pyval_from_text(s, len, 0, &a) != NULL;
	arena_release(&a);
	return ok;
}

static void check_values(void)
{
	check_repr("[1, 2.50, -0, true, null, \"a'b\"]", "[1, 2.5, 0, True, None, \"a'b\"]", 0);
	check_repr("{\"k\": [1, {\"x\": []}], \"e\": {}}", "{'k': [1, {'x': []}], 'e': {}}", 0);
	check_repr("  [ 1 ,\t2 ]\n", "[1, 2]", 0);
	check_repr("[\"nan\", \"inf\", \"-inf\"]", "[nan, inf, -inf]", PYV_NONFINITE_STRINGS);
	check_repr("{\"nan\": \"nan\"}", "{'nan': nan}", PYV_NONFINITE_STRINGS);
	check_repr("[\"nan\"]", "['nan']", 0);
	check_repr("[[], [[]], {}]", "[[], [[]], {}]", 0);
	check_repr("{\"a\": 1, \"a\": 2}", "{'a': 1, 'a': 2}", 0);
	check_repr("[\"\\u00e9\\n\"]", "['\xc3\xa9\\n']", 0);

	static const char *const bad[] = {
		"[1,]", "[,1]", "[1 2]", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{1:2}", "[1}", "{\"a\":1]",
		"[[1]", "[1]]", "[1] x", "[\"\\x\"]", "[\"\xff\"]", "{\"\xff\":1}", "[nul]", "[+1]", "[", "{",
		"[\"abc]", "{\"a\" 1}", "[1,,2]",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		check_repr(bad[i], "NULL", 0);
}

static void check_depth(void)
{
	size_t len;
	char *s;

	s = nest(RS_MAX_DEPTH, false, "1", &len);
	ok(parses(s, len), "arrays nested %d deep are read", RS_MAX_DEPTH);
	free(s);
	s = nest(RS_MAX_DEPTH + 1, false, "1", &len);
	ok(!parses(s, len), "arrays nested %d deep are refused", RS_MAX_DEPTH + 1);
	free(s);
	s = nest(RS_MAX_DEPTH, true, "{}", &len);
	ok(!parses(s, len), "objects nested %d deep are refused", RS_MAX_DEPTH + 1);
	free(s);
	s = nest(RS_MAX_DEPTH - 1, true, "{}", &len);
	ok(parses(s, len), "objects nested %d deep are read", RS_MAX_DEPTH);
	free(s);

	/* 100,000 levels: refused, no stack overflow; and quickly, as the scan is one pass */
	for (int objects = 0; objects < 2; objects++) {
		clock_t t0 = clock();
		s = nest(100000, objects, "1", &len);
		ok(!parses(s, len), "%s nested 100,000 deep are refused without a crash", objects ? "objects" : "arrays");
		free(s);
		/* the limit itself, many times: the old parse (a skip of the rest per level) took ~1 s for one */
		s = nest(RS_MAX_DEPTH - 1, objects, "1", &len);
		for (int i = 0; i < 20; i++)
			if (!parses(s, len))
				break;
		free(s);
		ok((double)(clock() - t0) / CLOCKS_PER_SEC < 5.0, "%s: 20 parses at the depth limit take %.2f s",
		   objects ? "objects" : "arrays", (double)(clock() - t0) / CLOCKS_PER_SEC);
	}

	/* a value of 10,000 levels prints and compares (pyval_repr and pyval_eq recurse that deep) */
	{
		struct arena a = ARENA_INIT;
		struct strbuf out = STRBUF_INIT;
		struct pyval *x, *y;
		s = nest(RS_MAX_DEPTH, false, "1", &len);
		x = pyval_from_text(s, len, 0, &a);
		y = pyval_from_text(s, len, 0, &a);
		if (x && y) {
			pyval_repr(&out, x);
			ok(out.len == len && pyval_eq(x, y), "a value at the depth limit prints and compares");
		} else {
			ok(false, "a value at the depth limit prints and compares");
		}
		free(s);
		strbuf_release(&out);
		arena_release(&a);
	}
}

/* The record scanner: a member nested past the limit is an error at its bracket, the same limit. */
static void check_scan_depth(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct rs_iter it;
	struct span k, v;
	char *deep;
	size_t len;
	int r;

	/* the object itself is a level: its member may nest RS_MAX_DEPTH - 1 deep */
	deep = nest(RS_MAX_DEPTH - 1, false, "", &len);
	strbuf_addf(&sb, "{\"a\":1,\"v\":%s}", deep);
	free(deep);
	rs_begin(&it, sb.buf, sb.len);
	while ((r = rs_next(&it, &k, &v)) == 1)
		;
	ok(r == 0, "a record nested %d deep is scanned", RS_MAX_DEPTH);

	strbuf_reset(&sb);
	deep = nest(100000, true, "1", &len);
	strbuf_addf(&sb, "{\"a\":1,\"v\":%s}", deep);
	free(deep);
	rs_begin(&it, sb.buf, sb.len);
	while ((r = rs_next(&it, &k, &v)) == 1)
		;
	ok(r < 0, "a record nested 100,000 deep is an error");
	is_str(it.error, "nesting deeper than 10000 levels", "which says the limit");
	is_int((long long)it.error_at, (long long)(strlen("{\"a\":1,\"v\":") + (RS_MAX_DEPTH - 1) * strlen("{\"a\":")),
	       "at the bracket that opens level 10,001");
	strbuf_release(&sb);
}

int main(void)
{
	check_values();
	check_depth();
	check_scan_depth();
	return done_testing();
}
