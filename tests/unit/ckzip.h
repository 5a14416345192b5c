/*
 * ckzip.h: a zip archive of stored entries, written by the tests of
 * checkpoints (test_ckpt.c, tests/fuzz/fuzz_ckpt.c) without probe's own
 * writer: local headers, the central directory and the end record, each
 * entry's CRC-32 right, no data descriptors, no zip64.
 */
#ifndef PROBE_TEST_CKZIP_H
#define PROBE_TEST_CKZIP_H

#include "../../lib/core/strbuf.h"

#include <zlib.h>

struct ckzip_member {
	const char *name;
	const void *data;
	size_t len;
};

static inline void ckzip_le(struct strbuf *sb, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		strbuf_addch(sb, (char)((v >> (8 * i)) & 0xff));
}

/* The archive of the n members, appended to z. */
static inline void ckzip_stored(struct strbuf *z, const struct ckzip_member *m, size_t n)
{
	struct strbuf cd = STRBUF_INIT;
	size_t base = z->len, cd_at;
	for (size_t i = 0; i < n; i++) {
		uint32_t crc = (uint32_t)crc32(0, m[i].data, (uInt)m[i].len);
		size_t at = z->len - base, nl = strlen(m[i].name);
		ckzip_le(z, 0x04034b50, 4), ckzip_le(z, 20, 2), ckzip_le(z, 0, 2), ckzip_le(z, 0, 2), ckzip_le(z, 0, 4);
		ckzip_le(z, crc, 4), ckzip_le(z, m[i].len, 4), ckzip_le(z, m[i].len, 4), ckzip_le(z, nl, 2);
		ckzip_le(z, 0, 2);
		strbuf_addstr(z, m[i].name);
		strbuf_add(z, m[i].data, m[i].len);
		ckzip_le(&cd, 0x02014b50, 4), ckzip_le(&cd, 20, 2), ckzip_le(&cd, 20, 2), ckzip_le(&cd, 0, 2);
		ckzip_le(&cd, 0, 2), ckzip_le(&cd, 0, 4), ckzip_le(&cd, crc, 4), ckzip_le(&cd, m[i].len, 4);
		ckzip_le(&cd, m[i].len, 4), ckzip_le(&cd, nl, 2), ckzip_le(&cd, 0, 2), ckzip_le(&cd, 0, 2);
		ckzip_le(&cd, 0, 2), ckzip_le(&cd, 0, 2), ckzip_le(&cd, 0, 4), ckzip_le(&cd, at, 4);
		strbuf_addstr(&cd, m[i].name);
	}
	cd_at = z->len - base;
	strbuf_addbuf(z, &cd);
	ckzip_le(z, 0x06054b50, 4), ckzip_le(z, 0, 2), ckzip_le(z, 0, 2), ckzip_le(z, n, 2), ckzip_le(z, n, 2);
	ckzip_le(z, cd.len, 4), ckzip_le(z, cd_at, 4), ckzip_le(z, 0, 2);
	strbuf_release(&cd);
}

#endif
