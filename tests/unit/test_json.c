/*
 * The streaming JSON reader: events, number texts, escapes, positions and
 * errors, each checked at every buffer split (the input fed 1, 2, ... n
 * bytes per read, and with tiny internal buffers that must grow).
 */
#include "tap.h"
#include "../../lib/json/json.h"
#include "../../lib/core/xalloc.h"

#include <unistd.h>
#include <zlib.h>

/* All events of an input as text, one line each; the error message last. */
static void events(const char *input, size_t len, unsigned flags, size_t chunk, size_t cap,
		   struct strbuf *out)
{
	struct source *src = source_from_memory("t.json", input, len);
	struct json_reader r;
	struct json_token tok;
	enum json_type t;
	source_set_max_chunk(src, chunk);
	json_reader_init(&r, src, flags, cap);
	strbuf_reset(out);
	do {
		t = json_reader_next(&r, &tok);
		strbuf_addf(out, "%s", json_type_name(t));
		if (t == JSON_KEY || t == JSON_STRING || t == JSON_NUMBER) {
			strbuf_addch(out, ' ');
			strbuf_add(out, tok.text, tok.len);
			strbuf_addf(out, "/%zu", tok.len);
		}
		if (tok.nonfinite)
			strbuf_addstr(out, " nonfinite");
		strbuf_addf(out, " @%llu %llu:%llu\n", (unsigned long long)tok.offset,
			    (unsigned long long)tok.line, (unsigned long long)tok.col);
	} while (t != JSON_EOF && t != JSON_ERROR);
	if (t == JSON_ERROR)
		strbuf_addf(out, "error: %s\n", json_reader_error(&r));
	json_reader_release(&r);
	source_close(src);
}

/* Same events whatever the read size and the buffer size. */
static bool same_at_every_split(const char *input, unsigned flags, const char *what)
{
	struct strbuf want = STRBUF_INIT, got = STRBUF_INIT;
	size_t len = strlen(input);
	bool same = true;
	static const size_t caps[] = { 8, 16, 64, 0 };
	events(input, len, flags, 0, 0, &want);
	for (size_t ci = 0; ci < ARRAY_SIZE(caps) && same; ci++) {
		for (size_t k = 1; k <= len + 1 && same; k++) {
			events(input, len, flags, k, caps[ci], &got);
			if (strcmp(got.buf, want.buf)) {
				same = false;
				diag("%s: chunk %zu, buffer %zu differs:\n%s\n--- whole input gave:\n%s", what, k,
				     caps[ci], got.buf, want.buf);
			}
		}
	}
	ok(same, "every split: %s", what);
	strbuf_release(&want);
	strbuf_release(&got);
	return same;
}

static void expect_events(const char *input, unsigned flags, const char *want, const char *what)
{
	struct strbuf got = STRBUF_INIT;
	events(input, strlen(input), flags, 0, 0, &got);
	is_str(got.buf, want, what);
	same_at_every_split(input, flags, what);
	strbuf_release(&got);
}

/* The error message of an input (identical at every split). */
static void expect_error(const char *input, const char *want, const char *what)
{
	struct strbuf got = STRBUF_INIT;
	const char *msg;
	events(input, strlen(input), 0, 0, 0, &got);
	msg = strstr(got.buf, "error: ");
	if (got.len && got.buf[got.len - 1] == '\n')
		strbuf_setlen(&got, got.len - 1);
	is_str(msg ? msg + 7 : got.buf, want, what);
	same_at_every_split(input, 0, what);
	strbuf_release(&got);
}

static void test_values(void)
{
	expect_events("{\"a\": [1, -0.5, 1e-05, 1.0E+16, NaN, Infinity, -Infinity], \"b\": null}", 0,
		      "object @0 1:1\n"
		      "key a/1 @1 1:2\n"
		      "array @6 1:7\n"
		      "number 1/1 @7 1:8\n"
		      "number -0.5/4 @10 1:11\n"
		      "number 1e-05/5 @16 1:17\n"
		      "number 1.0E+16/7 @23 1:24\n"
		      "number NaN/3 nonfinite @32 1:33\n"
		      "number Infinity/8 nonfinite @37 1:38\n"
		      "number -Infinity/9 nonfinite @47 1:48\n"
		      "']' @56 1:57\n"
		      "key b/1 @59 1:60\n"
		      "null @64 1:65\n"
		      "'}' @68 1:69\n"
		      "end of input @69 1:70\n",
		      "numbers keep their text; NaN and Infinity are numbers");
	expect_events("[true, false, \"\", {}, []]", 0,
		      "array @0 1:1\ntrue @1 1:2\nfalse @7 1:8\nstring /0 @14 1:15\nobject @18 1:19\n"
		      "'}' @19 1:20\narray @22 1:23\n']' @23 1:24\n']' @24 1:25\nend of input @25 1:26\n",
		      "literals, empty string, empty containers");
	expect_events("{\n \"k\": {\n  \"x\": 1\n }\n}\n", 0,
		      "object @0 1:1\nkey k/1 @3 2:2\nobject @8 2:7\nkey x/1 @12 3:3\nnumber 1/1 @17 3:8\n"
		      "'}' @20 4:2\n'}' @22 5:1\nend of input @24 6:1\n",
		      "lines and columns of an indented document");
	expect_events("{\"z\": 1, \"a\": 2, \"m\": 3}", 0,
		      "object @0 1:1\nkey z/1 @1 1:2\nnumber 1/1 @6 1:7\nkey a/1 @9 1:10\nnumber 2/1 @14 1:15\n"
		      "key m/1 @17 1:18\nnumber 3/1 @22 1:23\n'}' @23 1:24\nend of input @24 1:25\n",
		      "keys in file order");
	expect_events("\"tab\\there \\\"q\\\" \\\\ \\/ \\u00e9 \\ud83d\\ude00 \\u0000end\"", 0,
		      "string tab\there \"q\" \\ / \xc3\xa9 \xf0\x9f\x98\x80 \0end/28 @0 1:1\nend of input @52 1:53\n",
		      "escapes decoded, surrogate pair joined, \\u0000 kept");
	expect_events("\"caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80\"", 0,
		      "string caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80/17 @0 1:1\n"
		      "end of input @19 1:20\n",
		      "UTF-8 passes through");
	expect_events("{\"a\":1}\n{\"a\":2}\n[]\n", JSON_MULTI,
		      "object @0 1:1\nkey a/1 @1 1:2\nnumber 1/1 @5 1:6\n'}' @6 1:7\n"
		      "object @8 2:1\nkey a/1 @9 2:2\nnumber 2/1 @13 2:6\n'}' @14 2:7\n"
		      "array @16 3:1\n']' @17 3:2\nend of input @19 4:1\n",
		      "a sequence of values (NDJSON)");
	expect_events("", JSON_MULTI, "end of input @0 1:1\n", "an empty sequence is just its end");
	expect_events("12345678901234567890123456789012345678901234567890", 0,
		      "number 12345678901234567890123456789012345678901234567890/50 @0 1:1\nend of input @50 1:51\n",
		      "a long number is kept whole");
}

static void test_errors(void)
{
	expect_error("", "t.json:1:1: empty input: no JSON value", "empty input");
	expect_error("{\"a\":1,}", "t.json:1:8: expected a string key", "trailing comma in an object");
	expect_error("[1,]", "t.json:1:4: unexpected character ']'", "trailing comma in an array");
	expect_error("{\"a\" 1}", "t.json:1:6: expected ':' after the key", "missing colon");
	expect_error("{\"a\":1 \"b\":2}", "t.json:1:8: expected ',' or '}'", "missing comma");
	expect_error("[1 2]", "t.json:1:4: expected ',' or ']'", "missing comma in an array");
	expect_error("{\"a\":[1,2}", "t.json:1:10: expected ',' or ']'", "mismatched brackets");
	expect_error("{\"a\":\n [1,\n  2", "t.json:3:4: unexpected end of input inside an array", "truncated");
	expect_error("{\"a\"", "t.json:1:5: unexpected end of input inside an object", "truncated after a key");
	expect_error("\"abc", "t.json:1:5: unterminated string", "unterminated string");
	expect_error("\"a\nb\"", "t.json:1:3: control character 0x0a in string", "raw newline in a string");
	expect_error("\"\\x\"", "t.json:1:2: invalid escape '\\x' in string", "bad escape");
	expect_error("\"\\u12g4\"", "t.json:1:2: invalid \\u escape in string", "bad \\u escape");
	expect_error("\"\\ud800\"", "t.json:1:2: lone high surrogate \\uD800 in string", "lone high surrogate");
	expect_error("\"\\udc00\"", "t.json:1:2: lone low surrogate \\uDC00 in string", "lone low surrogate");
	expect_error("\"\xc3\x28\"", "t.json:1:2: invalid UTF-8 in string", "invalid UTF-8");
	expect_error("\"\xed\xa0\x80\"", "t.json:1:2: invalid UTF-8 in string", "UTF-8 encoded surrogate");
	expect_error("\"\xc0\xaf\"", "t.json:1:2: invalid UTF-8 in string", "overlong UTF-8");
	expect_error("\"\xe4\xb8", "t.json:1:2: invalid UTF-8 in string (cut short)", "UTF-8 cut by the end");
	expect_error("[01]", "t.json:1:2: invalid literal '01'", "leading zero");
	expect_error("[1.]", "t.json:1:2: invalid literal '1.'", "bare decimal point");
	expect_error("[.5]", "t.json:1:2: unexpected character '.'", "missing integer part");
	expect_error("[1e]", "t.json:1:2: invalid literal '1e'", "empty exponent");
	expect_error("[nan]", "t.json:1:2: invalid literal 'nan'", "lower-case nan is not Python's");
	expect_error("[tru]", "t.json:1:2: invalid literal 'tru'", "truncated literal");
	expect_error("[1] 2", "t.json:1:5: unexpected data after the JSON value", "two values without JSON_MULTI");
	expect_error("\xef\xbb\xbf{}", "t.json:1:1: unexpected byte order mark (BOM)", "byte order mark");
	expect_error("[@]", "t.json:1:2: unexpected character '@'", "stray character");
	expect_error("{1:2}", "t.json:1:2: expected a string key", "number as a key");
}

static void test_depth(void)
{
	size_t n = 100000;
	char *deep = xmalloc(n + 1);
	struct strbuf got = STRBUF_INIT;
	memset(deep, '[', n);
	deep[n] = '\0';
	events(deep, n, 0, 0, 0, &got);
	ok(strstr(got.buf, "error: t.json:1:10001: nesting deeper than 10000 levels") != NULL,
	   "100,000 nested arrays end in a clear error at the 10,001st");
	free(deep);
	strbuf_release(&got);
}

static void test_skip(void)
{
	const char *in = "{\"skip\": {\"a\": [1, {\"b\": []}], \"c\": \"}\"}, \"next\": 1}";
	struct source *src = source_from_memory("t.json", in, strlen(in));
	struct json_reader r;
	struct json_token tok;
	json_reader_init(&r, src, 0, 0);
	json_reader_next(&r, &tok);
	json_reader_next(&r, &tok);
	json_reader_next(&r, &tok);
	ok(json_reader_skip(&r) == 0, "skip a nested object");
	json_reader_next(&r, &tok);
	ok(tok.type == JSON_KEY && tok.len == 4 && !memcmp(tok.text, "next", 4), "the key after it comes next");
	json_reader_release(&r);
	source_close(src);
}

static void test_big_token(void)
{
	size_t n = 3 << 20;
	char *s = xmalloc(n + 3);
	struct strbuf got = STRBUF_INIT;
	s[0] = '"';
	memset(s + 1, 'x', n);
	s[n + 1] = '"';
	s[n + 2] = '\0';
	events(s, n + 2, 0, 4096, 16, &got);
	ok(!strncmp(got.buf, "string xxx", 10) && strstr(got.buf, "/3145728 @0 1:1\nend of input"),
	   "a 3 MiB string read 4 KiB at a time through a 16-byte buffer");
	free(s);
	strbuf_release(&got);
}

/* gzip: the same events from a .gz file; a truncated one is an error */
static void test_gzip(void)
{
	const char *in = "{\"task\": \"statistics\", \"data\": {\"x\": [1.5, NaN]}}";
	char path[] = "/tmp/probe-test-json-XXXXXX";
	unsigned char gz[512];
	z_stream zs = { 0 };
	int fd = mkstemp(path);
	struct strbuf want = STRBUF_INIT, got = STRBUF_INIT, err = STRBUF_INIT;
	struct source *src;
	struct json_reader r;
	struct json_token tok;
	enum json_type t;

	deflateInit2(&zs, 9, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
	zs.next_in = (unsigned char *)in;
	zs.avail_in = (unsigned)strlen(in);
	zs.next_out = gz;
	zs.avail_out = sizeof(gz);
	deflate(&zs, Z_FINISH);
	size_t gzlen = sizeof(gz) - zs.avail_out;
	deflateEnd(&zs);

	for (int truncated = 0; truncated < 2; truncated++) {
		size_t len = truncated ? gzlen - 10 : gzlen;
		if (ftruncate(fd, 0) || pwrite(fd, gz, len, 0) != (ssize_t)len)
			diag("cannot write %s", path);
		src = source_open(path, &err);
		ok(src && source_is_gzip(src), "a gzip file is recognised by its magic bytes");
		if (!src)
			continue;
		source_set_max_chunk(src, 3);
		json_reader_init(&r, src, 0, 8);
		strbuf_reset(&got);
		do {
			t = json_reader_next(&r, &tok);
			strbuf_addf(&got, "%s ", json_type_name(t));
		} while (t != JSON_EOF && t != JSON_ERROR);
		if (truncated)
			ok(t == JSON_ERROR && strstr(json_reader_error(&r), "truncated gzip stream"),
			   "a truncated gzip stream is an error: %s", json_reader_error(&r));
		else
			is_str(got.buf, "object key string key object key array number number ']' '}' '}' end of input ",
			       "the events of the inflated text");
		json_reader_release(&r);
		source_close(src);
	}
	close(fd);
	unlink(path);
	strbuf_release(&want);
	strbuf_release(&got);
	strbuf_release(&err);
}

int main(void)
{
	test_values();
	test_errors();
	test_depth();
	test_skip();
	test_big_token();
	test_gzip();
	return done_testing();
}
