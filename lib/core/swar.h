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

/*
 * The searches below share one shape: 16 bytes a step with SSE2 (VEC gives
 * bit i for byte i), then 8 (WORD gives the high bit of each byte), then
 * byte by byte (STOPS); each stops at the first byte of its class, or end.
 */
#ifdef SWAR_SSE2
#define SWAR_VEC_STEPS(VEC)                                                            \
	while (end - p >= 16) {                                                        \
		unsigned vm = VEC(_mm_loadu_si128((const __m128i *)(const void *)p)); \
		if (vm)                                                                \
			return p + __builtin_ctz(vm);                                  \
		p += 16;                                                               \
	}
#else
#define SWAR_VEC_STEPS(VEC)
#endif
#define SWAR_SEARCH(name, VEC, WORD, STOPS)                               \
	static inline const char *name(const char *p, const char *end)   \
	{                                                                 \
		SWAR_VEC_STEPS(VEC)                                       \
		while (end - p >= 8) {                                    \
			uint64_t wm = WORD(swar_load(p));                 \
			if (wm)                                           \
				return p + swar_first(wm);                \
			p += 8;                                           \
		}                                                         \
		while (p < end && !STOPS((unsigned char)*p))              \
			p++;                                              \
		return p;                                                 \
	}

/*
 * name(p, end): the first byte of [p, end) that is A or B, or end; the
 * three steps of SWAR_SEARCH defined for the two bytes (as NAME_vec,
 * NAME_word, NAME_is).
 */
#ifdef SWAR_SSE2
#define SWAR_EITHER_VEC(name, A, B)                                                                  \
	static inline unsigned name##_vec(__m128i v)                                                 \
	{                                                                                            \
		return (unsigned)_mm_movemask_epi8(                                                   \
			_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(A)), _mm_cmpeq_epi8(v, _mm_set1_epi8(B)))); \
	}
#else
#define SWAR_EITHER_VEC(name, A, B)
#endif
#define SWAR_SEARCH_EITHER(name, A, B)                                          \
	SWAR_EITHER_VEC(name, A, B)                                             \
	static inline uint64_t name##_word(uint64_t w)                          \
	{                                                                       \
		return swar_eq(w, A) | swar_eq(w, B);                           \
	}                                                                       \
	static inline int name##_is(unsigned char c)                            \
	{                                                                       \
		return c == (A) || c == (B);                                    \
	}                                                                       \
	SWAR_SEARCH(name, name##_vec, name##_word, name##_is)

/* First '"' or '\\' in [p, end), or end. */
SWAR_SEARCH_EITHER(swar_find_quote_or_backslash, '"', '\\')

/* Whether c can stand in a JSON string as it is: ASCII but the controls, '"' and '\\'. */
static inline int swar_plain_byte(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}
#ifdef SWAR_SSE2
static inline unsigned vec_not_plain(__m128i v)
{
	/* signed: bytes from 0x80 up are negative, so "below 0x20" takes them too */
	return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)),
							_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
								     _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')))));
}
#endif
static inline uint64_t word_not_plain(uint64_t w)
{
	return swar_eq(w, '"') | swar_eq(w, '\\') | swar_below_space(w) | (w & SWAR_HIGHS);
}
static inline int is_not_plain(unsigned char c)
{
	return !swar_plain_byte(c);
}
/* First byte of [p, end) that is not plain string text (see swar_plain_byte), or end. */
SWAR_SEARCH(swar_plain_run, vec_not_plain, word_not_plain, is_not_plain)

#ifdef SWAR_SSE2
static inline unsigned vec_backslash_or_high(__m128i v)
{
	return (unsigned)_mm_movemask_epi8(_mm_or_si128(v, _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
}
#endif
static inline uint64_t word_backslash_or_high(uint64_t w)
{
	return swar_eq(w, '\\') | (w & SWAR_HIGHS);
}
static inline int is_backslash_or_high(unsigned char c)
{
	return c == '\\' || c >= 0x80;
}
/* First '\\' or byte from 0x80 up in [p, end), or end: where a string needs more than copying. */
SWAR_SEARCH(swar_find_backslash_or_high, vec_backslash_or_high, word_backslash_or_high, is_backslash_or_high)

/*
 * Bytes that continue a number or a literal: [0-9A-Za-z+.-], and '_' when
 * `underscore` (the dump tokenizer's class; the record scanner's has none).
 * The tables of the callers say the same for the last bytes.
 */
static inline int swar_word_byte(unsigned char c, int underscore)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c == '+' || c == '-' ||
	       c == '.' || (underscore && c == '_');
}
#ifdef SWAR_SSE2
/* lo <= byte <= hi, unsigned: the offset from lo moved into signed range, then one comparison */
static inline __m128i vec_in_range(__m128i v, unsigned char lo, unsigned char hi)
{
	return _mm_cmplt_epi8(_mm_sub_epi8(v, _mm_set1_epi8((char)(lo + 128))),
			      _mm_set1_epi8((char)(hi - lo + 1 - 128)));
}
static inline unsigned vec_word_bytes(__m128i v, int underscore)
{
	__m128i m = _mm_or_si128(vec_in_range(v, '0', '9'), vec_in_range(_mm_or_si128(v, _mm_set1_epi8(0x20)), 'a', 'z'));
	m = _mm_or_si128(m, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('+')), _mm_cmpeq_epi8(v, _mm_set1_epi8('-'))));
	m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('.')));
	if (underscore)
		m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('_')));
	return (unsigned)_mm_movemask_epi8(m);
}
#endif
/* First byte of [p, end) that does not continue a number or literal (see swar_word_byte), or end. */
static inline const char *swar_word_end(const char *p, const char *end, int underscore)
{
#ifdef SWAR_SSE2
	while (end - p >= 16) {
		unsigned stop = ~vec_word_bytes(_mm_loadu_si128((const __m128i *)(const void *)p), underscore) & 0xffff;
		if (stop)
			return p + __builtin_ctz(stop);
		p += 16;
	}
#endif
	while (p < end && swar_word_byte((unsigned char)*p, underscore))
		p++;
	return p;
}

/* '[', ']', '{', '}' or '"': where a skipped array or object needs more than a search. */
#ifdef SWAR_SSE2
static inline unsigned vec_bracket_or_quote(__m128i v)
{
	/* with 0x20 set, '[' and ']' read as '{' and '}' */
	__m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
	return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
							_mm_or_si128(_mm_cmpeq_epi8(folded, _mm_set1_epi8('{')),
								     _mm_cmpeq_epi8(folded, _mm_set1_epi8('}')))));
}
#endif
static inline uint64_t word_bracket_or_quote(uint64_t w)
{
	uint64_t folded = w | (SWAR_ONES * 0x20);
	return swar_eq(w, '"') | swar_eq(folded, '{') | swar_eq(folded, '}');
}
static inline int is_bracket_or_quote(unsigned char c)
{
	return c == '[' || c == ']' || c == '{' || c == '}' || c == '"';
}
/* First '[', ']', '{', '}' or '"' in [p, end), or end. */
SWAR_SEARCH(swar_find_bracket_or_quote, vec_bracket_or_quote, word_bracket_or_quote, is_bracket_or_quote)

#endif
