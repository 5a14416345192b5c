#include "mscsv.h"

#include <csv.h>

#include <string.h>
#include "pyfmt.h"

/* A cell quoted as the csv module does it: within quotes, each quote doubled (libcsv). */
static void add_quoted(struct strbuf *out, const char *cell)
{
	size_t n = strlen(cell);
	if (!memchr(cell, '"', n)) {
		/* nothing to double (a shape, a list of messages): what csv_write() gives, without its two passes */
		strbuf_grow(out, n + 2);
		out->buf[out->len] = '"';
		memcpy(out->buf + out->len + 1, cell, n);
		out->buf[out->len + n + 1] = '"';
		out->len += n + 2;
		out->buf[out->len] = '\0';
		return;
	}
	size_t need = csv_write(NULL, 0, cell, n);
	strbuf_grow(out, need);
	out->len += csv_write(out->buf + out->len, need, cell, n);
	out->buf[out->len] = '\0';
}

/* Bytes that end a plain cell: the NUL, and those that make pandas quote it. */
static const bool csv_stop[256] = { [0] = true, [','] = true, ['"'] = true, ['\n'] = true };

void mscsv_add_cell(struct strbuf *out, const char *cell, bool first)
{
	const unsigned char *p = (const unsigned char *)cell;
	if (!first)
		strbuf_addch(out, ',');
	/* pandas writes with Python's csv module and "\n" line ends: a lone CR is not quoted */
	while (!csv_stop[p[0]]) {
		if (csv_stop[p[1]]) {
			p++;
			break;
		}
		if (csv_stop[p[2]]) {
			p += 2;
			break;
		}
		if (csv_stop[p[3]]) {
			p += 3;
			break;
		}
		p += 4;
	}
	if (!*p) {
		strbuf_add(out, cell, (size_t)((const char *)p - cell));
		return;
	}
	add_quoted(out, cell);
}

/* The length of a character msprobe's pattern starts a formula with, at s (n bytes), or 0. */
static size_t formula_char(const unsigned char *s, size_t n)
{
	switch (s[0]) {
	case '+': case '-': case '=': case '%': case '@':
		return 1;
	case 0xef: /* U+FF0B U+FF0D U+FF1D U+FF05 U+FF20: EF BC 8B / 8D / 9D / 85, EF BC A0 */
		if (n >= 3 && s[1] == 0xbc && (s[2] == 0x8b || s[2] == 0x8d || s[2] == 0x9d || s[2] == 0x85 || s[2] == 0xa0))
			return 3;
		return 0;
	default:
		return 0;
	}
}

bool mscsv_special(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	if (!len)
		return false;
	if (formula_char(p, len))
		return true;
	while ((p = memchr(p, ';', (size_t)(end - p))) != NULL) {
		p++;
		if (p < end && formula_char(p, (size_t)(end - p)))
			return true;
	}
	return false;
}

/* A plain decimal number as probe writes them ("-0.25", "-1e-05", "-3"): the whole of s, in one pass. */
static bool plain_number(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	if ((unsigned)(*s - '0') >= 10)
		return false;
	while ((unsigned)(*s - '0') < 10)
		s++;
	if (*s == '.') {
		s++;
		while ((unsigned)(*s - '0') < 10)
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			s++;
		if ((unsigned)(*s - '0') >= 10)
			return false;
		while ((unsigned)(*s - '0') < 10)
			s++;
	}
	return !*s;
}

bool mscsv_refused(const char *cell)
{
	size_t len;
	const char *p = cell, *end;
	unsigned char c = (unsigned char)cell[0];
	/* the common cases at once: no formula character first and no ';'; a number such as -0.25 */
	if (c != '+' && c != '-' && c != '=' && c != '%' && c != '@' && c != 0xef && !strchr(cell, ';'))
		return false;
	if (plain_number(cell))
		return false;
	len = strlen(cell);
	end = cell + len;
	if (c != 0xef && !memchr(cell, ';', len))
		return !pyfmt_float_accepts(cell, len);
	if (!mscsv_special(cell, len))
		return false;
	/* check_value_is_valid: numbers such as -1.00 or +1.00, also between ';', pass */
	for (;;) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *stop = semi ? semi : end;
		if (!pyfmt_float_accepts(p, (size_t)(stop - p)))
			return true;
		if (!semi)
			return false;
		p = semi + 1;
	}
}

bool mscsv_neutralise(const char *cell, struct strbuf *out)
{
	const char *p = cell, *end = cell + strlen(cell);
	bool changed = false;
	for (;;) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *stop = semi ? semi : end;
		size_t n = (size_t)(stop - p);
		bool lead = n && (formula_char((const unsigned char *)p, n) || *p == '\t' || *p == '\r');
		if (lead && !pyfmt_float_accepts(p, n)) {
			if (!changed) {
				strbuf_reset(out);
				strbuf_add(out, cell, (size_t)(p - cell));
				changed = true;
			}
			strbuf_addch(out, '\'');
		}
		if (changed)
			strbuf_add(out, p, semi ? n + 1 : n);
		if (!semi)
			return changed;
		p = semi + 1;
	}
}
