#include "utf8.h"

int utf8_sequence(const unsigned char *s, size_t n)
{
	unsigned c = s[0], lo = 0x80, hi = 0xBF;
	int len;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF) {
		len = 2;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		if (c == 0xE0)
			lo = 0xA0; /* no overlong forms */
		else if (c == 0xED)
			hi = 0x9F; /* no UTF-16 surrogates */
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F; /* nothing above U+10FFFF */
	} else {
		return 0;
	}
	for (int k = 1; k < len; k++) {
		unsigned d;
		if ((size_t)k >= n)
			return -1;
		d = s[k];
		if (k == 1 ? (d < lo || d > hi) : (d < 0x80 || d > 0xBF))
			return 0;
	}
	return len;
}

uint32_t utf8_code_point(const unsigned char *s, int len)
{
	static const unsigned char lead_mask[5] = { 0, 0x7F, 0x1F, 0x0F, 0x07 };
	uint32_t cp = s[0] & lead_mask[len];
	for (int k = 1; k < len; k++)
		cp = cp << 6 | (s[k] & 0x3F);
	return cp;
}

bool utf8_page_char(uint32_t cp)
{
	if (cp < 0x20)
		return cp == '\t' || cp == '\n' || cp == '\r';
	if (cp >= 0x7f && cp <= 0x9f)
		return false;
	if (cp >= 0xd800 && cp <= 0xdfff)
		return false;
	if (cp >= 0xfdd0 && cp <= 0xfdef)
		return false;
	return (cp & 0xfffe) != 0xfffe && cp <= 0x10ffff;
}

bool utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	while (p < end) {
		int len;
		if (*p < 0x80) {
			p++;
			continue;
		}
		if ((len = utf8_sequence(p, (size_t)(end - p))) <= 0)
			return false;
		p += len;
	}
	return true;
}

void utf8_put(struct strbuf *sb, uint32_t cp)
{
	char out[4];
	size_t n;
	if (cp < 0x80) {
		out[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		out[0] = (char)(0xF0 | (cp >> 18));
		out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	strbuf_add(sb, out, n);
}
