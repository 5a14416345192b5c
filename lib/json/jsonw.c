#include "jsonw.h"
#include "../core/utf8.h"
#include "../core/swar.h"

static const char hexdig[] = "0123456789abcdef";

/* Index of the first byte of s[i..len) that is not plain (swar_plain_byte), or len. */
static size_t plain_run(const unsigned char *s, size_t i, size_t len)
{
	const char *base = (const char *)s;
	return (size_t)(swar_plain_run(base + i, base + len) - base);
}

void jsonw_string(struct strbuf *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;
	strbuf_grow(out, len + 2);
	out->buf[out->len++] = '"';
	for (;;) {
		i = plain_run(p, i, len);
		if (i == len)
			break;
		unsigned char c = p[i];
		if (c >= 0x80) {
			int n = utf8_sequence(p + i, len - i);
			if (n > 0) {
				i += (size_t)n;
				continue;
			}
		}
		strbuf_add(out, s + run, i - run);
		switch (c) {
		case '"': strbuf_add(out, "\\\"", 2); break;
		case '\\': strbuf_add(out, "\\\\", 2); break;
		case '\n': strbuf_add(out, "\\n", 2); break;
		case '\t': strbuf_add(out, "\\t", 2); break;
		case '\r': strbuf_add(out, "\\r", 2); break;
		default:
			if (c < 0x20) {
				char esc[6] = { '\\', 'u', '0', '0', hexdig[c >> 4], hexdig[c & 15] };
				strbuf_add(out, esc, 6);
			} else {
				strbuf_add(out, "\xEF\xBF\xBD", 3); /* invalid UTF-8 byte */
			}
		}
		i++;
		run = i;
	}
	strbuf_add(out, s + run, len - run);
	strbuf_addch(out, '"');
}

/* The code unit of the four hex digits at s, or -1. */
static long hex4(const unsigned char *s)
{
	long u = 0;
	for (int k = 0; k < 4; k++) {
		unsigned char c = s[k];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		u = u << 4 | d;
	}
	return u;
}

/*
 * The escape at p[0] == '\\' (avail bytes there): its length in *n, and whether a page may hold
 * what it stands for; -1 when it is cut short by the end of the text.
 */
static int script_escape(const unsigned char *p, size_t avail, size_t *n)
{
	long u, lo;
	uint32_t cp;
	*n = avail < 2 ? avail : 2;
	if (avail < 2)
		return -1;
	if (p[1] != 'u')
		return 1;
	if (avail < 6)
		return -1;
	if ((u = hex4(p + 2)) < 0)
		return 1; /* not JSON: copied as it is */
	*n = 6;
	cp = (uint32_t)u;
	if (u >= 0xd800 && u <= 0xdbff) {
		if (avail < 12)
			return -1;
		if (p[6] == '\\' && p[7] == 'u' && (lo = hex4(p + 8)) >= 0xdc00 && lo <= 0xdfff) {
			cp = 0x10000 + (((uint32_t)u - 0xd800) << 10) + ((uint32_t)lo - 0xdc00);
			*n = 12;
		}
	}
	return utf8_page_char(cp);
}

size_t jsonw_script_safe(struct strbuf *out, const char *json, size_t len, bool all)
{
	const unsigned char *p = (const unsigned char *)json;
	size_t i = 0, run = 0;
	strbuf_grow(out, len);
	while (i < len) {
		unsigned char c = p[i];
		const char *rep = "\\ufffd";
		size_t n = 1;
		if (c >= 0x20 && c < 0x7f && c != '<' && c != '>' && c != '&' && c != '\\') {
			i++;
			continue;
		}
		if (c == '\\') {
			int ok = script_escape(p + i, len - i, &n);
			if (ok < 0 && !all)
				break;
			if (ok) { /* a page may hold it, or the text is cut: copied */
				i += n;
				continue;
			}
		} else if (c == '\t' || c == '\n' || c == '\r') {
			i++;
			continue;
		} else if (c == '<' || c == '>' || c == '&') {
			rep = c == '<' ? "\\u003c" : c == '>' ? "\\u003e" : "\\u0026";
		} else if (c >= 0x80) {
			int sl = utf8_sequence(p + i, len - i);
			if (sl < 0 && !all)
				break;
			if (sl > 0) {
				uint32_t cp = utf8_code_point(p + i, sl);
				n = (size_t)sl;
				if (cp == 0x2028 || cp == 0x2029)
					rep = cp == 0x2028 ? "\\u2028" : "\\u2029";
				else if (utf8_page_char(cp)) {
					i += n;
					continue;
				}
			}
		}
		strbuf_add(out, json + run, i - run);
		strbuf_addstr(out, rep);
		i += n;
		run = i;
	}
	strbuf_add(out, json + run, i - run);
	return i;
}

/* A number token's text; NaN/Infinity/-Infinity become "nan"/"inf"/"-inf". */
static void jsonw_number(struct strbuf *out, const char *text, size_t len, bool nonfinite)
{
	if (!nonfinite) {
		strbuf_add(out, text, len);
		return;
	}
	if (text[0] == 'N')
		strbuf_add(out, "\"nan\"", 5);
	else if (text[0] == '-')
		strbuf_add(out, "\"-inf\"", 6);
	else
		strbuf_add(out, "\"inf\"", 5);
}

void jsonw_tree(struct strbuf *out, const struct jnode *node)
{
	const struct jnode *c;
	switch (node->kind) {
	case J_NULL: strbuf_add(out, "null", 4); return;
	case J_FALSE: strbuf_add(out, "false", 5); return;
	case J_TRUE: strbuf_add(out, "true", 4); return;
	case J_NUMBER: jsonw_number(out, node->text, node->len, node->nonfinite); return;
	case J_STRING: jsonw_string(out, node->text, node->len); return;
	case J_ARRAY:
		strbuf_addch(out, '[');
		for (c = node->child; c; c = c->next) {
			if (c != node->child)
				strbuf_addch(out, ',');
			jsonw_tree(out, c);
		}
		strbuf_addch(out, ']');
		return;
	case J_OBJECT:
		strbuf_addch(out, '{');
		for (c = node->child; c; c = c->next) {
			if (c != node->child)
				strbuf_addch(out, ',');
			jsonw_string(out, c->key, c->key_len);
			strbuf_addch(out, ':');
			jsonw_tree(out, c);
		}
		strbuf_addch(out, '}');
		return;
	}
}
