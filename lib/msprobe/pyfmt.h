/*
 * pyfmt.h: numbers printed the way Python prints them.
 *
 * msprobe writes every statistic and every CSV cell with Python's str()
 * or repr(); reproducing its output byte for byte needs the same text.
 *
 * pyfmt_double() appends repr(float(x)): the shortest decimal string that
 * reads back as the same double, in fixed notation when the decimal
 * exponent is in [-4, 16) ("0.0001", "123.0", "1234567890123456.0") and
 * in exponent notation otherwise ("1e-05", "1.5e+16"); "inf", "-inf",
 * "nan" and "-0.0" as Python spells them.
 */
#ifndef PROBE_PYFMT_H
#define PROBE_PYFMT_H

#include "../core/strbuf.h"

void pyfmt_double(struct strbuf *out, double x);


/*
 * Whether text[0..len) has the form Python's repr gives a finite float:
 * fixed notation for decimal exponents in [-4, 16) with no superfluous
 * zeros ("0.5", "120.0", "0.0001"), exponent notation otherwise ("1e-05",
 * "1.5e+16"), at most 17 significant digits.  Texts msprobe's dumps hold
 * (written by Python) always pass; a text that passes is taken to be the
 * repr of its value without converting it, which is what makes large
 * comparisons fast.  (The form does not prove the digits shortest; dumps
 * written by other programs could in principle hold a longer text of the
 * right form, which would then be printed as it is.)
 */
bool pyfmt_is_canonical(const char *text, size_t len);

/*
 * strtod(3) in the C locale, with the same result and *end for every text:
 * a plain decimal ([-]digits[.digits][e[+-]digits]) of at most 2^53 in its
 * significant digits and a power of ten within 10^22 either way is one
 * exact multiplication or division (both operands are exact doubles, so the
 * one rounding is the correct one, as strtod's is; Clinger's fast path),
 * and everything else goes to strtod.  About two thirds of the statistics
 * msprobe writes take the fast path.
 */
double pyfmt_strtod(const char *s, char **end);

/*
 * Whether Python's float() accepts the text (ASCII digits: the other
 * Unicode digits and spaces it takes too are not recognised).
 */
bool pyfmt_float_accepts(const char *s, size_t len);

#endif
