#include "textesc.h"

/* The length of the well-formed UTF-8 sequence at s (at most n bytes), 0 when there is none. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	if (c >= 0xc2 && c <= 0xdf)
		return n >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if (n < 3 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f))
			return 0; /* overlong, or a surrogate */
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if (n < 4 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))
			return 0; /* overlong, or beyond U+10FFFF */
		return 4;
	}
	return 0; /* a continuation byte, C0/C1 (overlong), F5-FF */
}

static bool kept(unsigned char c, unsigned keep)
{
	return (c == '\n' && (keep & TEXT_KEEP_NL)) || (c == '\t' && (keep & TEXT_KEEP_TAB));
}

/* The bytes from s on that need nothing: printable ASCII, the kept controls, well-formed UTF-8 beyond C1. */
static size_t plain_run(const unsigned char *s, size_t n, unsigned keep)
{
	size_t i = 0;
	while (i < n) {
		unsigned char c = s[i];
		if (c >= 0x20 && c < 0x7f) {
			i++;
			continue;
		}
		if (c < 0x80) {
			if (!kept(c, keep))
				break;
			i++;
			continue;
		}
		size_t k = utf8_len(s + i, n - i);
		if (!k || (k == 2 && c == 0xc2 && s[i + 1] < 0xa0))
			break; /* not UTF-8, or a C1 control */
		i += k;
	}
	return i;
}

bool text_needs_escape(const char *s, size_t len, unsigned keep)
{
	return plain_run((const unsigned char *)s, len, keep) < len;
}

void text_escape(struct strbuf *out, const char *s, size_t len, unsigned keep)
{
	const unsigned char *p = (const unsigned char *)s;
	static const char hex[] = "0123456789abcdef";
	while (len) {
		size_t run = plain_run(p, len, keep);
		strbuf_add(out, p, run);
		p += run;
		len -= run;
		if (!len)
			break;
		if (p[0] == 0xc2 && len >= 2 && p[1] >= 0x80 && p[1] < 0xa0) {
			strbuf_addf(out, "\\u00%c%c", hex[p[1] >> 4], hex[p[1] & 15]);
			p += 2;
			len -= 2;
			continue;
		}
		strbuf_addf(out, "\\x%c%c", hex[p[0] >> 4], hex[p[0] & 15]);
		p++;
		len--;
	}
}

void text_escape_str(struct strbuf *out, const char *s, unsigned keep)
{
	text_escape(out, s, strlen(s), keep);
}

void text_escape_tail(struct strbuf *out, size_t from, unsigned keep)
{
	struct strbuf tail = STRBUF_INIT;
	if (from >= out->len || !text_needs_escape(out->buf + from, out->len - from, keep))
		return;
	text_escape(&tail, out->buf + from, out->len - from, keep);
	strbuf_setlen(out, from);
	strbuf_addbuf(out, &tail);
	strbuf_release(&tail);
}

void text_sh_word(struct strbuf *out, const char *word)
{
	static const char safe[] = "_-./:@%+=,";
	bool plain = *word != 0;
	for (const char *p = word; *p && plain; p++)
		plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
			strchr(safe, *p);
	if (plain) {
		strbuf_addstr(out, word);
		return;
	}
	strbuf_addch(out, '\'');
	for (const char *p = word; *p; p++) {
		if (*p == '\'')
			strbuf_addstr(out, "'\\''");
		else
			strbuf_addch(out, *p);
	}
	strbuf_addch(out, '\'');
}

void text_sh_path(struct strbuf *out, const char *path)
{
	if (path[0] == '-' && path[1])
		strbuf_addstr(out, "./");
	text_sh_word(out, path);
}

size_t text_cut_len(const char *s, size_t len, size_t max)
{
	size_t n = len;
	if (len > max) {
		n = max;
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	return n;
}

void text_cut(struct strbuf *out, const char *s, size_t len, size_t max)
{
	size_t n = text_cut_len(s, len, max);
	strbuf_add(out, s, n);
	if (n < len)
		strbuf_addstr(out, "...");
}

void text_quote_cut(struct strbuf *out, const char *s, size_t len, size_t max)
{
	strbuf_addch(out, '\'');
	text_cut(out, s, len, max);
	strbuf_addch(out, '\'');
}
