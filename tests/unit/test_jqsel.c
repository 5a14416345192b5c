/*
 * A --where filter from a hostile user (jqsel.h, issue 41 class 8): modules and the
 * builtins that read input or write are refused as jq's lexer would find them, the
 * rest is compiled and run in its own process; names quoted in messages are cut
 * (textesc.h's text_cut, used for filters and for checkpoint names).
 */
#include "tap.h"
#include "../../lib/core/jqsel.h"
#include "../../lib/core/textesc.h"

#include <stdlib.h>

/* A filter as a test's name: its line ends made visible, so that TAP keeps one line a test. */
static const char *shown(struct strbuf *sb, const char *filter)
{
	strbuf_reset(sb);
	text_escape_str(sb, filter, 0);
	return sb->buf;
}

static void check_refused(const char *filter, const char *word)
{
	struct strbuf err = STRBUF_INIT, name = STRBUF_INIT;
	struct jqsel *s = jqsel_new(filter, &err);
	char want[64];
	snprintf(want, sizeof(want), "'%s' is not allowed", word);
	ok(!s && strstr(err.buf, want), "[%s] refused for %s (%s)", shown(&name, filter), word, err.buf);
	jqsel_free(s);
	strbuf_release(&err);
	strbuf_release(&name);
}

static void check_runs(const char *filter, const char *record, int want)
{
	struct strbuf err = STRBUF_INIT, name = STRBUF_INIT;
	struct jqsel *s = jqsel_new(filter, &err);
	int got = s ? jqsel_match(s, record, strlen(record), &err) : -2;
	ok(got == want, "[%s] on %s: %d (want %d) %s", shown(&name, filter), record, got, want, err.buf);
	jqsel_free(s);
	strbuf_release(&err);
	strbuf_release(&name);
}

static void check_cut(const char *s, size_t max, const char *want, const char *what)
{
	struct strbuf out = STRBUF_INIT;
	text_quote_cut(&out, s, strlen(s), max);
	is_str(out.buf, want, what);
	strbuf_release(&out);
}

int main(void)
{
	check_refused("include \"x\"; .", "include");
	check_refused("import \"x\" as y; .", "import");
	check_refused("\"x\" | modulemeta", "modulemeta");
	check_refused("input", "input");
	check_refused("[inputs]", "inputs");
	check_refused("\"\\(\"a\\(input)\")\"", "input");
	check_refused("# a comment\ninput_filename", "input_filename");
	check_refused("debug", "debug");
	check_refused(".a|stderr", "stderr");
	check_refused("1 as $x | debug", "debug");

	check_runs("\"include\" | length > 0", "{}", 1);
	check_runs(".input == 1 # import\n", "{\"input\":1}", 1);
	check_runs("1 as $debug | $debug == 1", "{}", 1);
	check_runs(".a", "{\"a\":false}", 0);
	check_runs("empty", "{}", 0);
	check_runs("error(\"no\")", "{}", -1);
	check_runs("halt_error", "{}", -1);
	check_runs(".a", "not json", -1);

	setenv("PROBE_WHERE_SECONDS", "1", 1);
	{
		struct strbuf err = STRBUF_INIT;
		struct jqsel *s = jqsel_new("last(range(1e15))", &err);
		ok(s && jqsel_match(s, "{}", 2, &err) == -1 && strstr(err.buf, "took more than 1 s"), "a loop stopped: %s",
		   err.buf);
		strbuf_reset(&err);
		ok(s && jqsel_match(s, "{}", 2, &err) == -1 && strstr(err.buf, "stopped on an earlier record"),
		   "and stopped for good: %s", err.buf);
		jqsel_free(s);
		strbuf_release(&err);
	}
	setenv("PROBE_WHERE_SECONDS", "0", 1);
	{
		struct strbuf err = STRBUF_INIT;
		struct jqsel *s = jqsel_new("true", &err);
		ok(!s && strstr(err.buf, "PROBE_WHERE_SECONDS=0"), "a bound of 0 refused: %s", err.buf);
		jqsel_free(s);
		strbuf_release(&err);
	}
	unsetenv("PROBE_WHERE_SECONDS");

	check_cut("abc", 3, "'abc'", "not cut at its length");
	check_cut("abcd", 3, "'abc...'", "cut");
	check_cut("ab\xc3\xa9z", 3, "'ab...'", "cut before a UTF-8 sequence, not inside it");
	check_cut("", 0, "''", "empty");
	return done_testing();
}
