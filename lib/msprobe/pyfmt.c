#include "pyfmt.h"
#include "../core/swar.h"

#include <float.h>
#include <math.h>

/*
 * Shortest round-trip decimal digits of a finite, nonzero |x|: digits[]
 * receives the significant digits (no leading zeros, NUL-terminated) and
 * the return value is the decimal exponent e with x = 0.d1d2... * 10^e.
 */
static int pyfmt_shortest(double x, char digits[32]);

/* Parse "d.ddd" digits with exponent back into a double. */
static double digits_value(const char *digits, int exp10)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "0.%se%d", digits, exp10);
	return strtod(buf, NULL);
}

/* Add one unit in the last place of a digit string; returns the new exponent shift (0 or 1). */
static int digits_increment(char *d)
{
	size_t n = strlen(d);
	size_t i = n;
	while (i > 0) {
		i--;
		if (d[i] != '9') {
			d[i]++;
			return 0;
		}
		d[i] = '0';
	}
	/* all nines: 99 -> 100, keep the same number of digits: "10" with exp+1 */
	memmove(d + 1, d, n);
	d[0] = '1';
	d[n] = '\0';
	return 1;
}

static int digits_decrement(char *d)
{
	size_t n = strlen(d);
	size_t i = n;
	while (i > 0) {
		i--;
		if (d[i] != '0') {
			d[i]--;
			if (d[0] == '0' && n > 1) {
				/* 10 -> 09: one digit fewer, then pad back with a 9 */
				memmove(d, d + 1, n - 1);
				d[n - 1] = '9';
				return -1;
			}
			return 0;
		}
		d[i] = '9';
	}
	return 0;
}

static void strip_trailing_zeros(char *d)
{
	size_t n = strlen(d);
	while (n > 1 && d[n - 1] == '0')
		d[--n] = '\0';
}

/*
 * The prec-digit decimal that reads back as ax, if there is one: the
 * correctly rounded one, or, at a power of two where the rounding interval
 * is lopsided, one of its neighbours one unit away.
 */
static bool digits_that_read_back(double ax, int prec, char out[32], int *exp_out)
{
	char buf[48], d[32], up[32], down[32];
	int exp10;
	size_t k = 0;
	snprintf(buf, sizeof(buf), "%.*e", prec - 1, ax); /* "D.DDDDe+XX" */
	for (const char *p = buf; *p && *p != 'e'; p++)
		if (*p != '.')
			d[k++] = *p;
	d[k] = '\0';
	exp10 = atoi(strchr(buf, 'e') + 1) + 1;
	if (pyfmt_strtod(buf, NULL) == ax) { /* the nearest, read back as printed */
		memcpy(out, d, k + 1);
		*exp_out = exp10;
		return true;
	}
	memcpy(up, d, k + 1);
	memcpy(down, d, k + 1);
	int eu = exp10 + digits_increment(up);
	int ed = exp10 + digits_decrement(down);
	if (digits_value(up, eu) == ax) {
		memcpy(out, up, strlen(up) + 1);
		*exp_out = eu;
		return true;
	}
	if (down[0] != '0' && digits_value(down, ed) == ax) {
		memcpy(out, down, strlen(down) + 1);
		*exp_out = ed;
		return true;
	}
	return false;
}

/*
 * The shortest by bisection on the number of digits: if some prec-digit
 * decimal reads back, so does one of prec+1 digits (the same with a 0
 * appended); 17 digits always read back.  For subnormal numbers, whose
 * neighbours are far apart for their size.
 */
static int shortest_by_bisection(double ax, char digits[32])
{
	int exp10 = 0, lo = 1, hi = 17;
	if (!digits_that_read_back(ax, 17, digits, &exp10))
		return 0; /* unreachable for a finite double */
	while (lo < hi) {
		int mid = (lo + hi) / 2, e;
		char d[32];
		if (digits_that_read_back(ax, mid, d, &e)) {
			hi = mid;
			memcpy(digits, d, strlen(d) + 1);
			exp10 = e;
		} else {
			lo = mid + 1;
		}
	}
	return exp10;
}

/*
 * For a normal double, at most one decimal of 15 significant digits reads
 * back as it (the doubles that read back as one are less than 2.3e-16 of
 * it apart, 15 digits at least 1e-15 apart), and any shorter decimal that
 * reads back is that one without its trailing zeros.  So the shortest is
 * found by trying 15 digits, then 16, then 17 (which always read back);
 * between several of 16, digits_that_read_back() gives the nearest, as
 * Python does.  Three tries at most instead of the bisection's five.
 */
static int pyfmt_shortest(double x, char digits[32])
{
	double ax = fabs(x);
	int exp10 = 0;
	if (ax < DBL_MIN)
		exp10 = shortest_by_bisection(ax, digits);
	else if (!digits_that_read_back(ax, 15, digits, &exp10) && !digits_that_read_back(ax, 16, digits, &exp10) &&
		 !digits_that_read_back(ax, 17, digits, &exp10))
		return 0; /* unreachable for a finite double */
	strip_trailing_zeros(digits);
	return exp10;
}

void pyfmt_double(struct strbuf *out, double x)
{
	char d[32] = "";
	int e; /* x = 0.d1d2... * 10^e */
	size_t n;

	if (isnan(x)) {
		strbuf_addstr(out, "nan");
		return;
	}
	if (signbit(x))
		strbuf_addch(out, '-');
	if (isinf(x)) {
		strbuf_addstr(out, "inf");
		return;
	}
	if (x == 0) {
		strbuf_addstr(out, "0.0");
		return;
	}
	e = pyfmt_shortest(x, d);
	n = strlen(d);
	if (e > -4 && e <= 16) {
		/* fixed notation */
		if (e <= 0) {
			strbuf_addstr(out, "0.");
			for (int i = 0; i < -e; i++)
				strbuf_addch(out, '0');
			strbuf_add(out, d, n);
		} else if ((size_t)e >= n) {
			strbuf_add(out, d, n);
			for (size_t i = n; i < (size_t)e; i++)
				strbuf_addch(out, '0');
			strbuf_addstr(out, ".0");
		} else {
			strbuf_add(out, d, (size_t)e);
			strbuf_addch(out, '.');
			strbuf_add(out, d + e, n - (size_t)e);
		}
		return;
	}
	/* exponent notation: d.ddde+XX */
	strbuf_addch(out, d[0]);
	if (n > 1) {
		strbuf_addch(out, '.');
		strbuf_add(out, d + 1, n - 1);
	}
	int sci = e - 1;
	strbuf_addf(out, "e%c%02d", sci < 0 ? '-' : '+', sci < 0 ? -sci : sci);
}

bool pyfmt_is_canonical(const char *s, size_t n)
{
	size_t i = 0, int_digits = 0, frac_digits = 0, lead_zeros = 0, sig;
	bool neg = n && s[0] == '-';
	if (neg)
		i++;
	if (i >= n || s[i] < '0' || s[i] > '9')
		return false;
	/* integer part */
	size_t int_start = i;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	int_digits = i - int_start;
	if (i < n && s[i] == 'e') {
		/* d e[+-]XX: one digit, no fraction */
		if (int_digits != 1 || s[int_start] == '0')
			return false;
		goto exponent;
	}
	if (int_digits > 1 && s[int_start] == '0')
		return false;
	if (i >= n || s[i] != '.')
		return false;
	i++;
	size_t frac_start = i;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	frac_digits = i - frac_start;
	if (!frac_digits)
		return false;
	if (i < n && s[i] == 'e') {
		/* d.ddd e[+-]XX */
		if (int_digits != 1 || s[int_start] == '0' || s[i - 1] == '0')
			return false;
		if (frac_digits > 16)
			return false;
		goto exponent;
	}
	if (i != n)
		return false;
	/* fixed notation: no trailing zero unless the fraction is just "0" */
	if (frac_digits > 1 && s[n - 1] == '0')
		return false;
	if (s[int_start] == '0') {
		/* 0.000ddd: at most three zeros (exponent -4), something after them */
		while (frac_start + lead_zeros < n && s[frac_start + lead_zeros] == '0')
			lead_zeros++;
		if (frac_start + lead_zeros == n)
			return true; /* "0.0", "-0.0" */
		if (lead_zeros > 3)
			return false;
		sig = frac_digits - lead_zeros;
	} else {
		if (int_digits > 16)
			return false;
		sig = int_digits + (frac_digits == 1 && s[frac_start] == '0' ? 0 : frac_digits);
		/* "1234.0": trailing integer zeros are significant-free; count without them */
		if (frac_digits == 1 && s[frac_start] == '0') {
			size_t k = int_start + int_digits;
			while (k > int_start + 1 && s[k - 1] == '0')
				k--, sig--;
		}
	}
	return sig <= 17;
exponent:
	i++;
	if (i >= n || (s[i] != '+' && s[i] != '-'))
		return false;
	bool eneg = s[i] == '-';
	i++;
	size_t e_start = i;
	int e = 0;
	while (i < n && s[i] >= '0' && s[i] <= '9') {
		e = e * 10 + (s[i] - '0');
		if (e > 400)
			return false;
		i++;
	}
	if (i != n || i - e_start < 2 || (i - e_start > 2 && s[e_start] == '0'))
		return false;
	if (eneg ? e <= 4 : e < 16)
		return false; /* Python writes these in fixed notation */
	if (eneg ? e > 324 : e > 308)
		return false;
	return true;
}

static bool ascii_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * m * 10^e for up to 19 digits and |e| <= 27 (the statistics msprobe
 * prints with 17 digits), in the x87's 64-bit significand, where m and
 * 10^|e| (5^27 < 2^63) are exact and the product or quotient is rounded
 * once.  Rounding that to a double again is right unless the 11 bits it
 * drops lie at the half-way point between two doubles, within the first
 * rounding's error: then false, and strtod decides.
 */
static bool scaled_in_x87(uint64_t m, int e, double *out)
{
#if LDBL_MANT_DIG == 64 && defined(__x86_64__)
	static const long double pow10[] = {
		1e0L, 1e1L, 1e2L, 1e3L, 1e4L, 1e5L, 1e6L, 1e7L, 1e8L, 1e9L, 1e10L, 1e11L, 1e12L, 1e13L,
		1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L,
	};
	long double r;
	uint64_t significand;
	unsigned dropped;
	if (e < -27 || e > 27)
		return false;
	r = e < 0 ? (long double)m / pow10[-e] : (long double)m * pow10[e];
	memcpy(&significand, &r, sizeof(significand)); /* the x87 format: the 64-bit significand first */
	dropped = (unsigned)(significand & 0x7ff);
	if (dropped >= 0x3ff && dropped <= 0x401)
		return false;
	*out = (double)r;
	return true;
#else
	(void)m, (void)e, (void)out;
	return false;
#endif
}

double pyfmt_strtod(const char *s, char **end)
{
#if FLT_EVAL_METHOD == 0 /* double arithmetic rounds to double: no x87 double rounding */
	static const double exact_pow10[] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
	};
	const char *p = s;
	bool neg = *p == '-';
	uint64_t m = 0;
	int digits = 0, frac = 0, e = 0;

	p += neg;
	if (!ascii_digit(*p))
		goto slow;
	for (; ascii_digit(*p); p++) {
		if ((m || *p != '0') && ++digits > 19)
			goto slow;
		m = m * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		if (!ascii_digit(*++p))
			goto slow;
		for (; ascii_digit(*p); p++, frac++) {
			if ((m || *p != '0') && ++digits > 19)
				goto slow;
			m = m * 10 + (uint64_t)(*p - '0');
		}
	}
	if (*p == 'e' || *p == 'E') {
		bool eneg = false;
		int edigits = 0;
		p++;
		if (*p == '+' || *p == '-')
			eneg = *p++ == '-';
		if (!ascii_digit(*p))
			goto slow;
		for (; ascii_digit(*p); p++) {
			if (++edigits > 4)
				goto slow;
			e = e * 10 + (*p - '0');
		}
		e = eneg ? -e : e;
	}
	if (swar_word_byte((unsigned char)*p, 1))
		goto slow; /* strtod might read on (hex, inf, nan, '1.5.'): let it say where it stops */
	e -= frac;
	double x;
	if (m <= (UINT64_C(1) << 53) && e >= -22 && e <= 22) {
		x = e < 0 ? (double)m / exact_pow10[-e] : (double)m * exact_pow10[e];
	} else if (!scaled_in_x87(m, e, &x)) {
		goto slow;
	}
	if (end)
		*end = (char *)p;
	return neg ? -x : x;
slow:
#endif
	return strtod(s, end);
}

/* Python's str.isspace() for ASCII: what float() strips around the number. */
static bool py_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

/* Digits with single underscores between them (PEP 515); the count of digits, 0 when there are none. */
static size_t py_digits(const char **p, const char *end)
{
	const char *s = *p, *start = s;
	for (;;) {
		while (s < end && (unsigned)(*s - '0') < 10)
			s++;
		if (s == start || s + 1 >= end || *s != '_' || (unsigned)(s[1] - '0') >= 10)
			break;
		s++; /* one underscore between two digits */
	}
	*p = s;
	return (size_t)(s - start);
}

static bool word_ci(const char *s, const char *end, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(end - s) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((s[i] | 0x20) != word[i])
			return false;
	return true;
}

bool pyfmt_float_accepts(const char *s, size_t len)
{
	const char *end = s + len;
	size_t whole, frac = 0;
	while (s < end && py_space((unsigned char)*s))
		s++;
	while (end > s && py_space((unsigned char)end[-1]))
		end--;
	if (s < end && (*s == '+' || *s == '-'))
		s++;
	if (s == end)
		return false;
	if (!((*s >= '0' && *s <= '9') || *s == '.'))
		return word_ci(s, end, "inf") || word_ci(s, end, "infinity") || word_ci(s, end, "nan");
	whole = py_digits(&s, end);
	if (s < end && *s == '.') {
		s++;
		if (s < end && *s >= '0' && *s <= '9')
			frac = py_digits(&s, end);
	}
	if (!whole && !frac)
		return false;
	if (s < end && (*s == 'e' || *s == 'E')) {
		s++;
		if (s < end && (*s == '+' || *s == '-'))
			s++;
		if (!py_digits(&s, end))
			return false;
	}
	return s == end;
}
