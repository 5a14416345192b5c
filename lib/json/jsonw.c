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
