#include "pyfmt.h"

#include <math.h>

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

int pyfmt_shortest(double x, char digits[32])
{
	double ax = fabs(x);
	for (int prec = 1; prec <= 17; prec++) {
		char buf[48], d[32];
		int exp10;
		snprintf(buf, sizeof(buf), "%.*e", prec - 1, ax);
		/* buf: "D.DDDDe+XX" */
		size_t k = 0;
		for (const char *p = buf; *p && *p != 'e'; p++)
			if (*p != '.')
				d[k++] = *p;
		d[k] = '\0';
		exp10 = atoi(strchr(buf, 'e') + 1) + 1;
		if (digits_value(d, exp10) == ax) {
			strip_trailing_zeros(d);
			memcpy(digits, d, strlen(d) + 1);
			return exp10;
		}
		/*
		 * The correctly rounded prec-digit string did not read back; at a
		 * power of two the rounding interval is lopsided and a neighbour
		 * one unit away may still do.
		 */
		char up[32], down[32];
		memcpy(up, d, k + 1);
		memcpy(down, d, k + 1);
		int eu = exp10 + digits_increment(up);
		int ed = exp10 + digits_decrement(down);
		if (digits_value(up, eu) == ax) {
			strip_trailing_zeros(up);
			memcpy(digits, up, strlen(up) + 1);
			return eu;
		}
		if (down[0] != '0' && digits_value(down, ed) == ax) {
			strip_trailing_zeros(down);
			memcpy(digits, down, strlen(down) + 1);
			return ed;
		}
	}
	/* unreachable: 17 significant digits always round-trip */
	snprintf(digits, 32, "0");
	return 0;
}

void pyfmt_double(struct strbuf *out, double x)
{
	char d[32];
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
