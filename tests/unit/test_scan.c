/*
 * The word-at-a-time byte searches (swar.h) against plain byte loops, for
 * every byte value at every position of a word or vector, and the scanners
 * and writers built on them: string ends, JSON string escaping, leaf fields.
 */
#include "tap.h"
#include "../../lib/json/jsonw.h"
#include "../../lib/records/leafrec.h"
#include "../../lib/json/recscan.h"
#include "../../lib/core/swar.h"

static void check_word_masks(void)
{
	int bad_eq = 0, bad_below = 0;
	for (int pos = 0; pos < 8; pos++) {
		for (int v = 0; v < 256; v++) {
			/* the other bytes vary too: a neighbour must not leak into the answer */
			for (int fill = 0; fill < 256; fill += 51) {
				unsigned char b[8];
				uint64_t w, eq, below;
				memset(b, fill, sizeof(b));
				b[pos] = (unsigned char)v;
				memcpy(&w, b, 8);
				eq = swar_eq(w, '"');
				below = swar_below_space(w);
				for (int i = 0; i < 8; i++) {
					bool want_eq = b[i] == '"', want_below = b[i] < 0x20;
					bool got_eq = (eq >> (8 * i + 7)) & 1, got_below = (below >> (8 * i + 7)) & 1;
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
					got_eq = (eq >> (8 * (7 - i) + 7)) & 1;
					got_below = (below >> (8 * (7 - i) + 7)) & 1;
#endif
					bad_eq += want_eq != got_eq;
					bad_below += want_below != got_below;
				}
			}
		}
	}
	is_int(bad_eq, 0, "swar_eq flags exactly the equal bytes");
	is_int(bad_below, 0, "swar_below_space flags exactly the control bytes");
}

static void check_find(void)
{
	char buf[80];
	int bad = 0;
	for (int len = 0; len <= 70; len++) {
		for (int at = 0; at <= len; at++) {
			for (int which = 0; which < 2; which++) {
				const char *got, *want;
				memset(buf, 'a', sizeof(buf));
				if (at < len)
					buf[at] = which ? '\\' : '"';
				buf[len] = '"'; /* past end: must not be seen */
				got = swar_find_quote_or_backslash(buf, buf + len);
				want = buf + at;
				bad += got != want;
			}
		}
	}
	is_int(bad, 0, "swar_find_quote_or_backslash: first hit or the end, never past it");
}

/*
 * The searches that stop at a class of bytes, for every byte value at every
 * position of runs long enough to take the 16-byte, the 8-byte and the byte
 * paths: the first stop, or the end; never a byte past the end.
 */
static bool stops_plain(unsigned char c)
{
	return c < 0x20 || c >= 0x80 || c == '"' || c == '\\';
}

static bool stops_high(unsigned char c)
{
	return c >= 0x80 || c == '\\';
}

/* Continues a number or literal: JSON's number bytes, letters (true, NaN, Infinity), and '_' when asked. */
static bool continues_word(unsigned char c, bool underscore)
{
	return (c && strchr("0123456789+-.", c)) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (underscore && c == '_');
}

static bool stops_bracket(unsigned char c)
{
	return c == '[' || c == ']' || c == '{' || c == '}' || c == '"';
}

static void check_class_searches(void)
{
	char buf[48];
	int bad_plain = 0, bad_high = 0;
	for (int len = 0; len <= 40; len += 1 + (len > 20) * 6) {
		for (int at = 0; at <= len; at++) {
			for (int v = 0; v < 256; v++) {
				const char *want_plain = buf + len, *want_high = buf + len;
				memset(buf, 'a', sizeof(buf));
				if (at < len)
					buf[at] = (char)v;
				buf[len] = '\\'; /* past end: must not be seen */
				if (at < len && stops_plain((unsigned char)v))
					want_plain = buf + at;
				if (at < len && stops_high((unsigned char)v))
					want_high = buf + at;
				bad_plain += swar_plain_run(buf, buf + len) != want_plain;
				bad_high += swar_find_backslash_or_high(buf, buf + len) != want_high;
			}
		}
	}
	is_int(bad_plain, 0, "swar_plain_run: the first byte that is not plain, or the end");
	is_int(bad_high, 0, "swar_find_backslash_or_high: the first backslash or high byte, or the end");

	int bad_word = 0, bad_word_ = 0, bad_bracket = 0;
	for (int len = 0; len <= 40; len += 1 + (len > 20) * 6) {
		for (int at = 0; at <= len; at++) {
			for (int v = 0; v < 256; v++) {
				const char *want_word = buf + len, *want_word_ = buf + len, *want_bracket = buf + len;
				/* runs of word bytes (the search goes on) with one byte v at `at` */
				memset(buf, '7', sizeof(buf));
				if (at < len)
					buf[at] = (char)v;
				buf[len] = ' '; /* past end: must not be seen */
				if (at < len && !continues_word((unsigned char)v, false))
					want_word = buf + at;
				if (at < len && !continues_word((unsigned char)v, true))
					want_word_ = buf + at;
				bad_word += swar_word_end(buf, buf + len, 0) != want_word;
				bad_word_ += swar_word_end(buf, buf + len, 1) != want_word_;
				memset(buf, '1', sizeof(buf));
				if (at < len)
					buf[at] = (char)v;
				buf[len] = ']';
				if (at < len && stops_bracket((unsigned char)v))
					want_bracket = buf + at;
				bad_bracket += swar_find_bracket_or_quote(buf, buf + len) != want_bracket;
			}
		}
	}
	is_int(bad_word, 0, "swar_word_end: the first byte that does not continue a number or literal, or the end");
	is_int(bad_word_, 0, "swar_word_end with '_': the same, '_' continuing");
	is_int(bad_bracket, 0, "swar_find_bracket_or_quote: the first bracket, brace or quote, or the end");
}

/* Nested values are skipped to their closing bracket, whatever they hold. */
static void check_nested_values(void)
{
	static const struct {
		const char *rec, *value; /* the value of "k"; NULL: an error */
	} cases[] = {
		{ "{\"k\":[32, 3, 224, 224],\"z\":1}", "[32, 3, 224, 224]" },
		{ "{\"k\":[],\"z\":1}", "[]" },
		{ "{\"k\":{},\"z\":1}", "{}" },
		{ "{\"k\":[1,[2,[3]],4],\"z\":1}", "[1,[2,[3]],4]" },
		{ "{\"k\":[\"]\",\"[\",\"}\"],\"z\":1}", "[\"]\",\"[\",\"}\"]" },
		{ "{\"k\":{\"a\":{\"b\":[1]}},\"z\":1}", "{\"a\":{\"b\":[1]}}" },
		{ "{\"k\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19],\"z\":1}",
		  "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19]" },
		{ "{\"k\":[1,2},\"z\":1}", "[1,2}" }, /* brackets are counted, not matched: the scanner checks no more */
		{ "{\"k\":{\"a\":1],\"z\":1}", "{\"a\":1]" },
		{ "{\"k\":[1,[2,3]}", NULL },
		{ "{\"k\":[1,2,3}", NULL },
		{ "{\"k\":[\"unterminated]}", NULL },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct rs_iter it;
		struct span k, v = { 0 };
		int got = rs_begin(&it, cases[i].rec, strlen(cases[i].rec));
		if (got == 0)
			got = rs_next(&it, &k, &v);
		if (!cases[i].value) {
			ok(got != 1 || v.kind == SPAN_NONE, "no value: %s", cases[i].rec);
			continue;
		}
		ok(got == 1 && v.n == strlen(cases[i].value) && !memcmp(v.p, cases[i].value, v.n), "%s", cases[i].rec);
	}
}

static void check_string_ends(void)
{
	static const char *const cases[] = {
		"{\"k\":\"plain\"}",
		"{\"k\":\"a\\\"b\"}",
		"{\"k\":\"ends in backslash\\\\\"}",
		"{\"k\":\"\\\\\\\"\"}",
		"{\"a-rather-long-key-over-eight-bytes\":\"and a value over sixteen bytes long\"}",
	};
	static const char *const values[] = {
		"plain", "a\"b", "ends in backslash\\", "\\\"", "and a value over sixteen bytes long",
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct rs_iter it;
		struct span k, v;
		struct strbuf sb = STRBUF_INIT;
		int got = rs_begin(&it, cases[i], strlen(cases[i]));
		if (got == 0)
			got = rs_next(&it, &k, &v);
		if (got == 1)
			span_string(&v, &sb);
		is_str(sb.buf, values[i], cases[i]);
		strbuf_release(&sb);
	}
}

static void check_surrogates(void)
{
	static const char *const cases[] = {
		"\"pair \\ud83d\\ude00 ok\"",
		"\"lone high \\ud800 here\"",
		"\"lone high at the end \\ud800\"",
		"\"high then not low \\ud800\\u0041\"",
		"\"lone low \\udc00 here\"",
	};
	static const char *const values[] = {
		"pair \xf0\x9f\x98\x80 ok",
		"lone high \xef\xbf\xbd here",
		"lone high at the end \xef\xbf\xbd",
		"high then not low \xef\xbf\xbd" "A",
		"lone low \xef\xbf\xbd here",
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct span v = { cases[i], strlen(cases[i]), SPAN_STRING };
		struct strbuf sb = STRBUF_INIT;
		int got = span_string(&v, &sb);
		is_int(got, 0, "span_string accepts it");
		is_str(sb.buf, values[i], cases[i]);
		strbuf_release(&sb);
	}
}

static void check_escaping(void)
{
	struct strbuf sb = STRBUF_INIT;
	jsonw_string(&sb, "0123456789abcdef\"x", 18);
	is_str(sb.buf, "\"0123456789abcdef\\\"x\"", "a quote after a plain run of 16 bytes");
	strbuf_reset(&sb);
	jsonw_string(&sb, "tab\there, del\x7f, \xc3\xa9", strlen("tab\there, del\x7f, \xc3\xa9"));
	is_str(sb.buf, "\"tab\\there, del\x7f, \xc3\xa9\"", "controls escaped; DEL and valid UTF-8 kept");
	strbuf_reset(&sb);
	jsonw_string(&sb, "bad \xff byte", 10);
	is_str(sb.buf, "\"bad \xef\xbf\xbd byte\"", "an invalid UTF-8 byte becomes U+FFFD");
	strbuf_release(&sb);
}

static void check_fields(void)
{
	/* every field name found, whatever follows the key in memory */
	int bad = 0;
	for (int f = 0; f < LF_NFIELDS; f++) {
		struct strbuf rec = STRBUF_INIT;
		if (f == LF_ENTRY || f == LF_NAME || f == LF_KEY)
			continue; /* in every record below */
		struct leafrec r;
		const char *why;
		/* exec_mode takes only its two names */
		const char *v = f == LF_EXEC_MODE ? "\"graph\"" : "7";
		strbuf_addf(&rec, "{\"entry\":\"e\",\"name\":\"n\",\"key\":\"k\",\"%s\":%s}", leaf_field_names[f], v);
		if (leafrec_parse(&r, rec.buf, rec.len, &why) < 0 || r.f[f].kind == SPAN_NONE ||
		    r.f[f].n != strlen(v) || memcmp(r.f[f].p, v, strlen(v)))
			bad++, diag("field %s not found", leaf_field_names[f]);
		strbuf_release(&rec);
	}
	is_int(bad, 0, "each leaf field is found by its name");
	/* near misses are not fields */
	static const char *const others[] = { "rankk", "ran", "Max", "requires_gra", "requires_gradd", "dat", "x" };
	bad = 0;
	for (size_t i = 0; i < ARRAY_SIZE(others); i++) {
		struct strbuf rec = STRBUF_INIT;
		struct leafrec r;
		const char *why;
		strbuf_addf(&rec, "{\"entry\":\"e\",\"name\":\"n\",\"key\":\"k\",\"%s\":7}", others[i]);
		if (leafrec_parse(&r, rec.buf, rec.len, &why) < 0)
			bad++;
		for (int f = LF_STATE; f < LF_NFIELDS; f++)
			if (r.f[f].kind != SPAN_NONE)
				bad++, diag("\"%s\" taken for %s", others[i], leaf_field_names[f]);
		strbuf_release(&rec);
	}
	is_int(bad, 0, "keys that only resemble field names are ignored");
}

int main(void)
{
	check_word_masks();
	check_find();
	check_class_searches();
	check_string_ends();
	check_nested_values();
	check_surrogates();
	check_escaping();
	check_fields();
	return done_testing();
}
