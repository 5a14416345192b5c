/*
 * strbuf.h: a growable byte buffer.
 *
 * Invariants: `buf` is never NULL and always NUL-terminated at buf[len]
 * (an empty strbuf points at a shared static "").  `len` counts the bytes
 * in use, which may include NULs.  `alloc` is 0 while `buf` is the shared
 * empty string.
 *
 * Ownership: a strbuf owns its memory.  strbuf_release() frees it and
 * leaves an empty strbuf; strbuf_detach() hands the memory to the caller
 * (who frees it) and leaves an empty strbuf.  Pointers into `buf` are
 * invalidated by any call that grows it.
 */
#ifndef PROBE_STRBUF_H
#define PROBE_STRBUF_H

#include "compat.h"

struct strbuf {
	size_t alloc;
	size_t len;
	char *buf;
};

extern char strbuf_empty[];
#define STRBUF_INIT { 0, 0, strbuf_empty }

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
char *strbuf_detach(struct strbuf *sb, size_t *len);

/* Make room for `extra` more bytes (plus the NUL) without changing len. */
void strbuf_grow(struct strbuf *sb, size_t extra);

static inline void strbuf_setlen(struct strbuf *sb, size_t len)
{
	sb->len = len;
	if (sb->alloc)
		sb->buf[len] = '\0';
}
static inline void strbuf_reset(struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
}

static inline void strbuf_addch(struct strbuf *sb, char c)
{
	if (sb->len + 1 >= sb->alloc)
		strbuf_grow(sb, 1);
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
}

void strbuf_add_slow(struct strbuf *sb, const void *data, size_t len);
static inline void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	if (LIKELY(sb->alloc && len < sb->alloc - sb->len)) {
		memcpy(sb->buf + sb->len, data, len);
		sb->len += len;
		sb->buf[sb->len] = '\0';
		return;
	}
	strbuf_add_slow(sb, data, len);
}
static inline void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}
static inline void strbuf_addbuf(struct strbuf *sb, const struct strbuf *other)
{
	strbuf_add(sb, other->buf, other->len);
}
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) PRINTF_LIKE(2, 3);
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);

/* Append the decimal text of an integer. */
void strbuf_addi(struct strbuf *sb, int64_t v);
/* s[0..len) with every occurrence of from (left to right, not overlapping) made to: Python's str.replace. */
void strbuf_add_replacing(struct strbuf *sb, const char *s, size_t len, const char *from, const char *to);
void strbuf_addu(struct strbuf *sb, uint64_t v);

/* Whether p[0..n) holds the text w (p need not end in NUL, unlike for strstr). */
bool mem_holds(const char *p, size_t n, const char *w);

#endif
