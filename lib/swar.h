/*
 * swar.h: byte searches eight bytes at a time ("SIMD within a register").
 *
 * The record tools spend most of their time finding the end of short JSON
 * strings; a call into libc's memchr costs more than the search itself for a
 * 20-byte key.  These inline helpers read whole 64-bit words with memcpy (no
 * alignment or aliasing assumptions) and never read at or past `end`.
 */
#ifndef PROBE_SWAR_H
#define PROBE_SWAR_H

#include <stdint.h>
#include <string.h>

#define SWAR_ONES 0x0101010101010101ULL
#define SWAR_HIGHS 0x8080808080808080ULL

/* High bit set in each byte of w that equals c (exact: no false positives). */
static inline uint64_t swar_eq(uint64_t w, unsigned char c)
{
	uint64_t x = w ^ (SWAR_ONES * c);
	return ~(((x & ~SWAR_HIGHS) + ~SWAR_HIGHS) | x) & SWAR_HIGHS;
}

/* High bit set in each byte of w below 0x20 (a control character). */
static inline uint64_t swar_below_space(uint64_t w)
{
	return ~(((w & ~SWAR_HIGHS) + (~SWAR_HIGHS - SWAR_ONES * 0x1F)) | w) & SWAR_HIGHS;
}

static inline uint64_t swar_load(const char *p)
{
	uint64_t w;
	memcpy(&w, p, 8);
	return w;
}

/* Index of the lowest flagged byte of a nonzero mask (little-endian order). */
static inline unsigned swar_first(uint64_t mask)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (unsigned)__builtin_ctzll(mask) >> 3;
#else
	return (unsigned)__builtin_clzll(mask) >> 3;
#endif
}

/* First '"' or '\\' in [p, end), or end. */
static inline const char *swar_find_quote_or_backslash(const char *p, const char *end)
{
	while (end - p >= 8) {
		uint64_t w = swar_load(p);
		uint64_t m = swar_eq(w, '"') | swar_eq(w, '\\');
		if (m)
			return p + swar_first(m);
		p += 8;
	}
	while (p < end && *p != '"' && *p != '\\')
		p++;
	return p;
}

#endif
