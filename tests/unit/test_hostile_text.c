/*
 * Text from the dumps, made safe: msprobe's formula-injection guards and the rule
 * of probe's own CSVs (mstable.h), and control characters for a terminal (textesc.h).
 */
#include "tap.h"
#include "../../lib/msprobe/mscsv.h"
#include "../../lib/msprobe/pyfmt.h"
#include "../../lib/core/textesc.h"

static void check_float(const char *s, bool want)
{
	ok(pyfmt_float_accepts(s, strlen(s)) == want, "float(%s) %s", s, want ? "is a number" : "raises ValueError");
}

static void check_refused(const char *s, bool special, bool refused)
{
	ok(mscsv_special(s, strlen(s)) == special && mscsv_refused(s) == refused, "[%s]: %s while parsing, %s in a cell",
	   s, special ? "refused" : "passes", refused ? "refused" : "passes");
}

static void check_neutralise(const char *cell, const char *want)
{
	struct strbuf out = STRBUF_INIT;
	bool changed = mscsv_neutralise(cell, &out);
	is_str(changed ? out.buf : cell, want, cell);
	ok(changed == !!strcmp(cell, want), "[%s] %s", cell, changed ? "changed" : "as it was");
	strbuf_release(&out);
}

static void check_escape(const char *s, size_t len, unsigned keep, const char *want, const char *what)
{
	struct strbuf out = STRBUF_INIT;
	text_escape(&out, s, len, keep);
	is_str(out.buf, want, what);
	ok(text_needs_escape(s, len, keep) == !!strcmp(out.buf, s) || memchr(s, 0, len),
	   "%s: text_needs_escape agrees", what);
	strbuf_release(&out);
}

int main(void)
{
	/* Python's float() (check_value_is_valid lets numbers through) */
	check_float("-1.5", true);
	check_float("+1.00", true);
	check_float(" -inf ", true);
	check_float("-Infinity", true);
	check_float("nan", true);
	check_float("1_000.5", true);
	check_float("5.", true);
	check_float(".5e-3", true);
	check_float("1.e5", true);
	check_float("\t-2\f", true);
	check_float("", false);
	check_float("-", false);
	check_float(".", false);
	check_float("1__0", false);
	check_float("_1", false);
	check_float("1_", false);
	check_float("1e", false);
	check_float("1e_5", false);
	check_float("0x10", false);
	check_float("--1", false);
	check_float("-x", false);
	check_float("infinit", false);

	/* msprobe's pattern ^[＋－＝％＠+\-=%@]|;[＋－＝％＠+\-=%@], and the float exemption of cells */
	check_refused("=1+2", true, true);
	check_refused("@SUM(A1)", true, true);
	check_refused("%x", true, true);
	check_refused("-x", true, true);
	check_refused("+", true, true);
	check_refused("-1.5", true, false);
	check_refused("+2;-3e5", true, false);
	check_refused("x;-1", true, true);
	check_refused("a;=1+2", true, true);
	check_refused("＝1+2", true, true);
	check_refused("x;＠y", true, true);
	check_refused("\xef\xbc\x8e", false, false); /* U+FF0E, not one of them */
	check_refused("1+2=3", false, false);
	check_refused("a;b", false, false);
	check_refused("a;", false, false);
	check_refused("", false, false);
	check_refused(" -inf", false, false);
	check_refused("['File a.py, line 1, in f, \\n x = -y']", false, false);

	/* probe's own CSVs: a quote before what a spreadsheet would run, numbers as they are */
	check_neutralise("=1+2", "'=1+2");
	check_neutralise("@SUM(A1)", "'@SUM(A1)");
	check_neutralise("-x", "'-x");
	check_neutralise("-1.5", "-1.5");
	check_neutralise("-inf", "-inf");
	check_neutralise("+3", "+3");
	check_neutralise("\tx", "'\tx");
	check_neutralise("\rx", "'\rx");
	check_neutralise("x;=cmd", "x;'=cmd");
	check_neutralise("=a;-1;-b", "'=a;-1;'-b");
	check_neutralise("＠x", "'＠x");
	check_neutralise("mid=dle", "mid=dle");
	check_neutralise("", "");

	/* control characters for a terminal */
	check_escape("plain text", 10, 0, "plain text", "plain ASCII");
	check_escape("a\x1b]0;x\x07" "b", 8, 0, "a\\x1b]0;x\\x07b", "an OSC sequence");
	check_escape("l1\nl2\tx\r", 8, TEXT_KEEP_NL | TEXT_KEEP_TAB, "l1\nl2\tx\\x0d", "kept line ends and tabs, CR escaped");
	check_escape("l1\nl2\tx", 7, 0, "l1\\x0al2\\x09x", "line ends and tabs escaped when not kept");
	check_escape("\x7f", 1, 0, "\\x7f", "DEL");
	check_escape("\xc2\x9b" "2J", 4, 0, "\\u009b2J", "C1 CSI in UTF-8");
	check_escape("\xc2\x85", 2, 0, "\\u0085", "C1 NEL");
	check_escape("\xc2\xa0\xe4\xb8\xad\xf0\x9f\x98\x80", 9, 0, "\xc2\xa0\xe4\xb8\xad\xf0\x9f\x98\x80",
		     "NBSP, CJK and an emoji stay");
	check_escape("\x9b", 1, 0, "\\x9b", "a lone 0x9b (not UTF-8)");
	check_escape("\xc0\x9b", 2, 0, "\\xc0\\x9b", "an overlong ESC");
	check_escape("\xed\xa0\x80", 3, 0, "\\xed\\xa0\\x80", "a surrogate");
	check_escape("\xe4\xb8", 2, 0, "\\xe4\\xb8", "a truncated sequence");
	check_escape("\xf4\x90\x80\x80", 4, 0, "\\xf4\\x90\\x80\\x80", "beyond U+10FFFF");
	check_escape("a\0b", 3, 0, "a\\x00b", "a NUL");

	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "keep\x1b");
	size_t from = sb.len;
	strbuf_addstr(&sb, "x\x1b[2J\n");
	text_escape_tail(&sb, from, TEXT_KEEP_NL);
	is_str(sb.buf, "keep\x1bx\\x1b[2J\n", "text_escape_tail: only the tail");
	strbuf_release(&sb);
	return done_testing();
}
