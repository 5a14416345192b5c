/* Python's float repr, checked against values printed by CPython itself. */
#include "tap.h"
#include "../../lib/msprobe/pyfmt.h"

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

/* pyfmt_strtod() against libc's strtod on one text: the same bits and the same end. */
static bool same_as_strtod(const char *text)
{
	char *end1, *end2;
	double a = pyfmt_strtod(text, &end1), b = strtod(text, &end2);
	if (memcmp(&a, &b, sizeof(a)) || end1 != end2) {
		diag("pyfmt_strtod(\"%s\"): %.17g ending at %td, strtod: %.17g ending at %td", text, a, end1 - text, b,
		     end2 - text);
		return false;
	}
	return true;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static unsigned rnd(unsigned n)
{
	rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
	return (unsigned)(rng_state % n);
}

static void append_digits(struct strbuf *sb, unsigned n, bool leading_zeros)
{
	for (unsigned i = 0; i < n; i++)
		strbuf_addch(sb, (char)('0' + (leading_zeros && i < n / 2 ? 0 : rnd(10))));
}

static void check_strtod(void)
{
	static const char *const edges[] = {
		"0", "-0", "0.0", "-0.0", "1", "-1", "1.0", "0.5", "1e22", "1e23", "1e-22", "1e-23",
		"9007199254740992", "9007199254740993", "9007199254740991.5", "90071992547409920e-1",
		"0.1", "0.2", "0.3", "0.4993983507156372", "-0.10161025077104568", "7.441285561071709e-05",
		"1267.74462890625", "123456789012345678", "1234567890123456789", "12345678901234567890",
		"0.000000000000000000000000001", "00000000000000000000000001", "1.", "1.e5", ".5", "-.5",
		"+1", " 1", "1e", "1e+", "1e-", "1e+5", "1E5", "1e05", "1e00022", "1e99999", "1e-99999",
		"0x10", "0X1p3", "inf", "-inf", "nan", "Infinity", "NaN", "1_0", "1x", "1.5%", "1.5,", "1.5}",
		"1.5 ", "1.2.3", "-", "", "e5", "1.0e-5", "4.9e-324", "1.7976931348623157e308", "2e308",
	};
	bool good = true;
	for (size_t i = 0; i < ARRAY_SIZE(edges); i++)
		good &= same_as_strtod(edges[i]);
	ok(good, "pyfmt_strtod equals strtod on %zu edge cases", ARRAY_SIZE(edges));

	/* generated decimals around the fast path's limits: 19 digits, 2^53, 10^22 */
	static const char *const after[] = { "", ",", "}", "%", " ", "x", "e", "E", ".", "_", "]", "e+", "-" };
	struct strbuf sb = STRBUF_INIT;
	size_t bad = 0, n = 200000;
	for (size_t i = 0; i < n; i++) {
		strbuf_reset(&sb);
		if (rnd(2))
			strbuf_addch(&sb, '-');
		append_digits(&sb, 1 + rnd(20), rnd(4) == 0);
		if (rnd(3)) {
			strbuf_addch(&sb, '.');
			append_digits(&sb, 1 + rnd(20), rnd(3) == 0);
		}
		if (rnd(3) == 0) {
			strbuf_addch(&sb, rnd(2) ? 'e' : 'E');
			unsigned sign = rnd(3);
			if (sign)
				strbuf_addch(&sb, sign == 1 ? '-' : '+');
			strbuf_addf(&sb, "%0*u", (int)(1 + rnd(3)), rnd(40));
		}
		if (rnd(4) == 0)
			strbuf_addstr(&sb, after[rnd(ARRAY_SIZE(after))]);
		bad += !same_as_strtod(sb.buf);
		if (bad > 10)
			break;
	}
	ok(bad == 0, "pyfmt_strtod equals strtod on %zu generated decimals", n);
	strbuf_release(&sb);
}

/*
 * The digits of the shortest decimal that reads back as x, found the slow
 * way, as a second implementation to check pyfmt_double() against: every
 * number of digits from 1, the correctly rounded decimal first, then the
 * one a unit above and below it (a decimal on the far side can read back
 * where the near one does not: next to a power of two the doubles below are
 * closer together than above).  *exp10: x = 0.DIGITS * 10^exp10.
 */
static void shortest_slowly(double x, char digits[40], int *exp10)
{
	for (int prec = 1; prec <= 17; prec++) {
		char buf[64], alt[64];
		snprintf(buf, sizeof(buf), "%.*e", prec - 1, x);
		for (int delta = 0; delta <= 2; delta++) {
			/* the decimal, or its neighbour, as an integer of prec digits and an exponent */
			char *e = strchr(buf, 'e');
			long long mant = 0;
			int ex = atoi(e + 1);
			for (const char *q = buf; q < e; q++)
				if (*q != '.')
					mant = mant * 10 + (*q - '0');
			mant += delta == 1 ? 1 : delta == 2 ? -1 : 0;
			if (mant <= 0)
				continue;
			snprintf(alt, sizeof(alt), "%llde%d", mant, ex - (prec - 1));
			if (strtod(alt, NULL) != x)
				continue;
			/* 0.DIGITS form: the integer's digits without trailing zeros */
			int n = snprintf(digits, 40, "%lld", mant);
			*exp10 = ex - (prec - 1) + n;
			while (n > 1 && digits[n - 1] == '0')
				digits[--n] = '\0';
			return;
		}
	}
	digits[0] = '\0';
	*exp10 = 0;
}

/* The digits and exponent (0.DIGITS * 10^exp10) of a repr such as "-0.00123", "1.5e+16", "12.0". */
static void digits_of_repr(const char *r, char digits[40], int *exp10)
{
	int n = 0, point = -1, e = 0, lead = 0;
	bool seen = false;
	const char *p = r + (*r == '-');
	for (; *p && *p != 'e'; p++) {
		if (*p == '.') {
			point = n + lead;
			continue;
		}
		if (!seen && *p == '0') {
			lead++;
			continue;
		}
		seen = true;
		digits[n++] = *p;
	}
	if (point < 0)
		point = n + lead;
	if (*p == 'e')
		e = atoi(p + 1);
	while (n > 1 && digits[n - 1] == '0')
		n--;
	digits[n] = '\0';
	*exp10 = point - lead + e;
}

static bool same_digits_as_slowly(double x, struct strbuf *sb)
{
	char want[40], got[40];
	int we, ge;
	shortest_slowly(fabs(x), want, &we);
	digits_of_repr(fmt(x, sb), got, &ge);
	if (strcmp(want, got) || we != ge) {
		diag("%a: repr %s (digits %s, exponent %d); shortest decimal %s, exponent %d", x, sb->buf, got, ge, want,
		     we);
		return false;
	}
	return true;
}

/* The repr's digits against the slow search, on doubles of every kind the statistics hold. */
static void check_shortest(void)
{
	struct strbuf sb = STRBUF_INIT;
	size_t bad = 0, n = 0;
	for (int i = 0; i < 20000 && bad < 10; i++, n += 4) {
		uint64_t bits = (uint64_t)rnd(1u << 31) << 33 ^ (uint64_t)rnd(1u << 31) << 2 ^ rnd(4);
		double x, f32, dec, edge;
		memcpy(&x, &bits, sizeof(x));
		if (!isfinite(x) || x == 0)
			x = 1.5;
		f32 = (double)(float)(rnd(2000000) / 1000.0 - 1000.0); /* a float32 statistic widened */
		dec = (double)rnd(100000000) / pow(10, rnd(12)) * (rnd(2) ? 1 : -1);
		edge = ldexp(1.0, (int)rnd(2000) - 1000);
		edge = rnd(2) ? nextafter(edge, 0) : rnd(2) ? nextafter(edge, INFINITY) : edge;
		bad += !same_digits_as_slowly(x, &sb);
		bad += f32 != 0 && !same_digits_as_slowly(f32, &sb);
		bad += dec != 0 && !same_digits_as_slowly(dec, &sb);
		bad += !same_digits_as_slowly(edge, &sb);
	}
	ok(bad == 0, "the digits of repr() of %zu doubles are the shortest that read back (a second, slow search)", n);
	strbuf_release(&sb);
}

int main(void)
{
	struct strbuf sb = STRBUF_INIT;
	size_t bad = 0;

	check_strtod();
	check_shortest();
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
