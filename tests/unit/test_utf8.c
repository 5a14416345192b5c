/*
 * The one UTF-8 decoder (lib/core/utf8.c) and the one decoder of JSON's
 * \uXXXX escapes (lib/json/json.c): sequences from RFC 3629's table, the
 * forms it forbids (overlong, surrogates, past U+10FFFF), cut-short ones,
 * and escapes from RFC 8259 section 7 (U+1D11E as a surrogate pair).
 * The expected values are worked out by hand from the two RFCs.
 */
#include "tap.h"
#include "../../lib/core/utf8.h"
#include "../../lib/json/json.h"

static int seq(const char *s, size_t n)
{
	return utf8_sequence((const unsigned char *)s, n);
}

static void sequences(void)
{
	static const struct {
		const char *bytes;
		size_t n;
		int len;
		uint32_t cp;
		const char *what;
	} cases[] = {
		{ "A", 1, 1, 0x41, "ASCII" },
		{ "\xC3\xA9", 2, 2, 0xE9, "U+00E9 in two bytes" },
		{ "\xE2\x82\xAC", 3, 3, 0x20AC, "U+20AC in three bytes" },
		{ "\xF0\x9D\x84\x9E", 4, 4, 0x1D11E, "U+1D11E in four bytes" },
		{ "\xF4\x8F\xBF\xBF", 4, 4, 0x10FFFF, "U+10FFFF, the last code point" },
		{ "\xEF\xBF\xBD", 3, 3, 0xFFFD, "U+FFFD" },
		{ "\xC0\x80", 2, 0, 0, "overlong NUL (C0 80)" },
		{ "\xC1\xBF", 2, 0, 0, "overlong U+007F (C1 BF)" },
		{ "\xE0\x80\x80", 3, 0, 0, "overlong in three bytes (E0 80 80)" },
		{ "\xF0\x80\x80\x80", 4, 0, 0, "overlong in four bytes" },
		{ "\xED\xA0\x80", 3, 0, 0, "a UTF-16 surrogate, U+D800" },
		{ "\xED\xBF\xBF", 3, 0, 0, "a UTF-16 surrogate, U+DFFF" },
		{ "\xF4\x90\x80\x80", 4, 0, 0, "past U+10FFFF" },
		{ "\xF5\x80\x80\x80", 4, 0, 0, "lead byte F5" },
		{ "\x80", 1, 0, 0, "a lone continuation byte" },
		{ "\xC3\x41", 2, 0, 0, "a lead byte and no continuation" },
		{ "\xE2\x82", 2, -1, 0, "three bytes cut after two" },
		{ "\xF0\x9D", 2, -1, 0, "four bytes cut after two" },
		{ "\xE2\x41", 2, 0, 0, "a bad second byte is invalid, not cut short" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int len = seq(cases[i].bytes, cases[i].n);
		is_int(len, cases[i].len, cases[i].what);
		if (len > 0 && cases[i].len > 0)
			is_int(utf8_code_point((const unsigned char *)cases[i].bytes, len), cases[i].cp, "its code point");
	}
	ok(utf8_valid("caf\xC3\xA9 \xE2\x82\xAC", 9), "a valid string");
	ok(!utf8_valid("caf\xC3", 4), "a string cut inside a character is not valid");
	ok(!utf8_valid("a\xED\xA0\x80z", 5), "a string holding a surrogate is not valid");
	ok(utf8_valid("", 0), "the empty string is valid");
}

static void encoding(void)
{
	static const uint32_t cps[] = { 0x24, 0x7F, 0x80, 0xA2, 0x7FF, 0x800, 0x20AC, 0xFFFD, 0x10000, 0x1D11E, 0x10FFFF };
	struct strbuf sb = STRBUF_INIT;
	utf8_put(&sb, 0x20AC);
	is_str(sb.buf, "\xE2\x82\xAC", "U+20AC encoded");
	for (size_t i = 0; i < ARRAY_SIZE(cps); i++) {
		int len;
		strbuf_reset(&sb);
		utf8_put(&sb, cps[i]);
		len = seq(sb.buf, sb.len);
		if (!ok(len == (int)sb.len && utf8_code_point((const unsigned char *)sb.buf, len) == cps[i],
			"U+%04X encoded decodes to itself", (unsigned)cps[i]))
			diag("length %zu, decoded length %d", sb.len, len);
	}
	strbuf_release(&sb);
}

static void escapes(void)
{
	static const struct {
		const char *text;
		enum json_u got;
		uint32_t cp;
		size_t used;
		const char *what;
	} cases[] = {
		{ "\\u00e9", JSON_U_PAIRED_OR_PLAIN, 0xE9, 6, "\\u00e9" },
		{ "\\u20AC", JSON_U_PAIRED_OR_PLAIN, 0x20AC, 6, "upper-case hex" },
		{ "\\uD834\\uDD1E", JSON_U_PAIRED_OR_PLAIN, 0x1D11E, 12, "RFC 8259's surrogate pair for U+1D11E" },
		{ "\\uD834", JSON_U_LONE_SURROGATE, 0xD834, 6, "a high surrogate at the end" },
		{ "\\uD834x", JSON_U_LONE_SURROGATE, 0xD834, 6, "a high surrogate before a letter" },
		{ "\\uD834\\u0041", JSON_U_LONE_SURROGATE, 0xD834, 6, "a high surrogate before a non-surrogate" },
		{ "\\uDD1E", JSON_U_LONE_SURROGATE, 0xDD1E, 6, "a low surrogate first" },
		{ "\\u12", JSON_U_MALFORMED, 0, 0, "two hex digits" },
		{ "\\u12g4", JSON_U_MALFORMED, 0, 0, "a letter that is not hex" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		uint32_t cp = 0;
		size_t used = 0;
		const char *t = cases[i].text;
		enum json_u got = json_unicode_escape(t, t + strlen(t), &cp, &used);
		is_int(got, cases[i].got, cases[i].what);
		if (got != JSON_U_MALFORMED && cases[i].got != JSON_U_MALFORMED) {
			is_int(cp, cases[i].cp, "its code point");
			is_int((long long)used, (long long)cases[i].used, "the bytes it takes");
		}
	}
}

int main(void)
{
	sequences();
	encoding();
	escapes();
	return done_testing();
}
