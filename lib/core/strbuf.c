#include "strbuf.h"
#include "xalloc.h"

char strbuf_empty[1];

void strbuf_init(struct strbuf *sb, size_t hint)
{
	sb->alloc = sb->len = 0;
	sb->buf = strbuf_empty;
	if (hint)
		strbuf_grow(sb, hint);
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb, 0);
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *res;
	strbuf_grow(sb, 0);
	res = sb->buf;
	if (len)
		*len = sb->len;
	strbuf_init(sb, 0);
	return res;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t need = st_add(st_add(sb->len, extra), 1);
	bool fresh = !sb->alloc;
	if (need <= sb->alloc)
		return;
	if (fresh)
		sb->buf = NULL;
	ALLOC_GROW(sb->buf, need, sb->alloc);
	if (fresh)
		sb->buf[0] = '\0';
}

void strbuf_add_slow(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	strbuf_setlen(sb, sb->len + len);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;
	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc ? sb->alloc - sb->len : 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if (sb->len + (size_t)n + 1 > sb->alloc) {
		strbuf_grow(sb, (size_t)n);
		n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	strbuf_setlen(sb, sb->len + (size_t)n);
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_addu(struct strbuf *sb, uint64_t v)
{
	char tmp[24];
	size_t i = sizeof(tmp);
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	strbuf_add(sb, tmp + i, sizeof(tmp) - i);
}

void strbuf_addi(struct strbuf *sb, int64_t v)
{
	if (v < 0) {
		strbuf_addch(sb, '-');
		strbuf_addu(sb, (uint64_t)0 - (uint64_t)v);
	} else {
		strbuf_addu(sb, (uint64_t)v);
	}
}

bool mem_holds(const char *p, size_t n, const char *w)
{
	size_t wl = strlen(w);
	for (size_t i = 0; i + wl <= n; i++)
		if (!memcmp(p + i, w, wl))
			return true;
	return false;
}

void strbuf_add_replacing(struct strbuf *sb, const char *s, size_t len, const char *from, const char *to)
{
	size_t k = strlen(from), i = 0;
	while (i < len) {
		if (k && i + k <= len && !memcmp(s + i, from, k)) {
			strbuf_addstr(sb, to);
			i += k;
		} else {
			strbuf_addch(sb, s[i++]);
		}
	}
}
