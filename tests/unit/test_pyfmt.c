/* Python's float repr, checked against values printed by CPython itself. */
#include "tap.h"
#include "../../lib/pyfmt.h"

#include <math.h>

static const struct {
	uint64_t bits;
	const char *repr;
} table[] = {
#include "data/pyrepr.inc"
};

static const char *fmt(double x, struct strbuf *sb)
{
	strbuf_reset(sb);
	pyfmt_double(sb, x);
	return sb->buf;
}

int main(void)
{
	struct strbuf sb = STRBUF_INIT;
	size_t bad = 0;

	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		double x;
		memcpy(&x, &table[i].bits, sizeof(x));
		if (strcmp(fmt(x, &sb), table[i].repr)) {
			if (bad++ < 10)
				diag("repr(%.17g): got %s, python says %s", x, sb.buf, table[i].repr);
		}
		/* the negation prints the same digits with the sign flipped */
		const char *want = table[i].repr;
		bool neg = want[0] == '-';
		fmt(-x, &sb);
		if (neg ? strcmp(sb.buf, want + 1) : (sb.buf[0] != '-' || strcmp(sb.buf + 1, want))) {
			if (bad++ < 10)
				diag("repr(%.17g): got %s", -x, sb.buf);
		}
	}
	ok(bad == 0, "repr of %zu doubles (and their negatives) equals CPython's", ARRAY_SIZE(table));

	is_str(fmt(NAN, &sb), "nan", "nan");
	is_str(fmt(INFINITY, &sb), "inf", "inf");
	is_str(fmt(-INFINITY, &sb), "-inf", "-inf");
	is_str(fmt(-0.0, &sb), "-0.0", "negative zero");
	is_str(fmt((double)0.1f, &sb), "0.10000000149011612", "float32 0.1 widened");
	is_str(fmt(1e-5, &sb), "1e-05", "exponent notation below 1e-4");
	is_str(fmt(1e16, &sb), "1e+16", "exponent notation from 1e16");
	is_str(fmt(1234567890123456.0, &sb), "1234567890123456.0", "fixed notation below 1e16");

	/* round trip and shortness on a sweep of awkward values */
	size_t fails = 0;
	for (int k = -1074; k < 1024; k++) {
		double x = ldexp(1.0, k);
		double xs[3] = { x, nextafter(x, 0), nextafter(x, INFINITY) };
		for (int j = 0; j < 3; j++) {
			fmt(xs[j], &sb);
			if (strtod(sb.buf, NULL) != xs[j] && fails++ < 5)
				diag("%a printed %s does not read back", xs[j], sb.buf);
		}
	}
	ok(fails == 0, "every power of two and its neighbours reads back");

	/* every CPython repr has the canonical form; other spellings of the same numbers do not */
	size_t rejected = 0;
	for (size_t i = 0; i < ARRAY_SIZE(table); i++)
		if (!pyfmt_is_canonical(table[i].repr, strlen(table[i].repr)) && rejected++ < 5)
			diag("CPython's %s taken for non-canonical", table[i].repr);
	ok(rejected == 0, "all %zu CPython reprs have the canonical form", ARRAY_SIZE(table));
	static const char *const other[] = {
		"1.50", "1E5", "1e5", "1e-5", "01.5", ".5", "5.", "0.00001", "1e+15", "1.0e+16",
		"100000000000000000.0", "1.", "-", "", "1e+016", "0.10000000000000000001", "+1.0", "1.5e+16.0",
		"nan", "inf", "2", "-0", "1.5e-04",
	};
	size_t accepted = 0;
	for (size_t i = 0; i < ARRAY_SIZE(other); i++)
		if (pyfmt_is_canonical(other[i], strlen(other[i])) && accepted++ < 5)
			diag("%s taken for canonical", other[i]);
	ok(accepted == 0, "%zu other spellings are not canonical", ARRAY_SIZE(other));
	strbuf_release(&sb);
	return done_testing();
}
