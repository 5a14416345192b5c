/*
 * swar.h: byte searches eight bytes at a time ("SIMD within a register"),
 * and sixteen at a time with SSE2 where the compiler targets it (every
 * x86-64).
 *
 * The record tools spend most of their time finding the end of short JSON
 * strings; a call into libc's memchr costs more than the search itself for a
 * 20-byte key.  These inline helpers read whole 64-bit words with memcpy, or
 * unaligned 16-byte vectors (no alignment or aliasing assumptions), and
 * never read at or past `end`.
 */
#ifndef PROBE_SWAR_H
#define PROBE_SWAR_H

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#define SWAR_SSE2 1
#endif

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

#ifdef SWAR_SSE2
/* Bit i set when byte i of the 16 at p is c1 or c2. */
static inline unsigned sse2_eq2(const char *p, char c1, char c2)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
	return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(c1)),
							_mm_cmpeq_epi8(v, _mm_set1_epi8(c2))));
}
#endif

/* First '"' or '\\' in [p, end), or end. */
static inline const char *swar_find_quote_or_backslash(const char *p, const char *end)
{
#ifdef SWAR_SSE2
	while (end - p >= 16) {
		unsigned m = sse2_eq2(p, '"', '\\');
		if (m)
			return p + __builtin_ctz(m);
		p += 16;
	}
#endif
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

/* Whether c can stand in a JSON string as it is: ASCII but the controls, '"' and '\\'. */
static inline int swar_plain_byte(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* First byte of [p, end) that is not plain string text (see swar_plain_byte), or end. */
static inline const char *swar_plain_run(const char *p, const char *end)
{
#ifdef SWAR_SSE2
	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		/* signed: bytes from 0x80 up are negative, so "below 0x20" takes them too */
		__m128i odd = _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)),
					   _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
							_mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
		unsigned m = (unsigned)_mm_movemask_epi8(odd);
		if (m)
			return p + __builtin_ctz(m);
		p += 16;
	}
#endif
	while (end - p >= 8) {
		uint64_t w = swar_load(p);
		uint64_t m = swar_eq(w, '"') | swar_eq(w, '\\') | swar_below_space(w) | (w & SWAR_HIGHS);
		if (m)
			return p + swar_first(m);
		p += 8;
	}
	while (p < end && swar_plain_byte((unsigned char)*p))
		p++;
	return p;
}

/* First '\\' or byte from 0x80 up in [p, end), or end: where a string needs more than copying. */
static inline const char *swar_find_backslash_or_high(const char *p, const char *end)
{
#ifdef SWAR_SSE2
	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(v, _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
		if (m)
			return p + __builtin_ctz(m);
		p += 16;
	}
#endif
	while (end - p >= 8) {
		uint64_t w = swar_load(p);
		uint64_t m = swar_eq(w, '\\') | (w & SWAR_HIGHS);
		if (m)
			return p + swar_first(m);
		p += 8;
	}
	while (p < end && *p != '\\' && (unsigned char)*p < 0x80)
		p++;
	return p;
}

#endif
