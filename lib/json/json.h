/*
 * json.h: a streaming JSON tokenizer.
 *
 * It pulls bytes from a source (see source.h) into a buffer of its own and
 * hands out one token at a time, so memory stays constant whatever the
 * size of the input: the buffer only grows when a single token is larger
 * than it (up to JSON_MAX_TOKEN bytes).
 *
 * It accepts RFC 8259 JSON plus what Python's json module writes with
 * allow_nan: the bare tokens NaN, Infinity and -Infinity, returned as
 * JSON_NUMBER tokens with `nonfinite` set.  Number tokens keep their text
 * exactly as written ("1.0" stays "1.0").  Strings are checked for valid
 * UTF-8 and returned decoded (escapes resolved, surrogate pairs joined);
 * a lone surrogate escape is an error.  Object keys come in file order;
 * duplicate keys are not detected here (the tree builder does it).
 *
 * With JSON_MULTI the input is a sequence of values (NDJSON and the like);
 * otherwise it must hold exactly one value.
 *
 * Positions: every token carries its byte offset and its 1-based line and
 * column (columns count bytes).  Errors are reported as
 * "NAME:LINE:COL: what is wrong" in json_reader_error().
 *
 * Lifetimes: a token's `text` points into the reader and stays valid only
 * until the next call on that reader; copy what you keep.  The reader
 * borrows `src` (the caller closes it after json_reader_release()).
 */
#ifndef PROBE_JSON_H
#define PROBE_JSON_H

#include "../core/compat.h"
#include "../core/source.h"
#include "../core/strbuf.h"

#define JSON_MAX_DEPTH_DEFAULT 10000
#define JSON_MAX_TOKEN ((size_t)64 << 20)

enum json_type {
	JSON_EOF = 0,
	JSON_ERROR,
	JSON_OBJECT_BEGIN,
	JSON_OBJECT_END,
	JSON_ARRAY_BEGIN,
	JSON_ARRAY_END,
	JSON_KEY,
	JSON_STRING,
	JSON_NUMBER,
	JSON_TRUE,
	JSON_FALSE,
	JSON_NULL,
};

struct json_token {
	enum json_type type;
	bool nonfinite;    /* NUMBER only: NaN, Infinity or -Infinity */
	const char *text;  /* KEY, STRING: decoded UTF-8; NUMBER: as written */
	size_t len;
	uint64_t offset;   /* of the token's first byte */
	uint64_t line;     /* 1-based */
	uint64_t col;      /* 1-based, in bytes */
};

enum json_flags {
	JSON_MULTI = 1 << 0, /* a sequence of top-level values */
};

struct json_reader {
	struct source *src;
	unsigned flags;
	char *buf;
	size_t cap, pos, end;
	uint64_t base;       /* stream offset of buf[0] */
	uint64_t line;       /* line of buf[pos] */
	uint64_t line_start; /* stream offset where that line starts */
	bool eof;
	bool failed;
	unsigned char *stack; /* one byte per open container: '{' or '[' */
	size_t depth, stack_alloc, max_depth;
	int state;
	bool first;          /* just after '{' or '[' */
	uint64_t values;     /* top-level values completed */
	struct strbuf scratch;
	struct strbuf err;
};

/* cap 0 picks the default buffer size (256 KiB). */
void json_reader_init(struct json_reader *r, struct source *src, unsigned flags, size_t cap);
void json_reader_release(struct json_reader *r);

/*
 * Read the next token into *tok and return its type.  After JSON_ERROR
 * every further call returns JSON_ERROR; after JSON_EOF, JSON_EOF.
 */
enum json_type json_reader_next(struct json_reader *r, struct json_token *tok);

/*
 * Skip the rest of a container whose BEGIN token was just returned.
 * Returns 0, or -1 on error (message in json_reader_error()).
 */
int json_reader_skip(struct json_reader *r);

/* Nesting depth after the last token (0 at top level). */
static inline size_t json_reader_depth(const struct json_reader *r)
{
	return r->depth;
}

const char *json_reader_error(const struct json_reader *r);
const char *json_reader_name(const struct json_reader *r);

/*
 * Record an error found by the caller at a token's position, in the same
 * "NAME:LINE:COL: what" form, so that callers and the tokenizer report
 * alike.  Returns -1.
 */
int json_reader_fail_at(struct json_reader *r, const struct json_token *tok,
			const char *fmt, ...) PRINTF_LIKE(3, 4);

/* Human name of a token type ("string", "'{'", ...), for messages. */
const char *json_type_name(enum json_type t);

/*
 * The \uXXXX escape at p (its backslash; end bounds the text), the one
 * decoder of JSON's unicode escapes (the tokenizer here, the record
 * scanner of recscan.h): *cp the code point and *used the bytes taken, 6,
 * or 12 for a high surrogate joined with the low one after it.  A lone
 * surrogate gives its own value in *cp and JSON_U_LONE_SURROGATE (the
 * tokenizer refuses it; the scanner reads U+FFFD); JSON_U_MALFORMED when
 * four hex digits do not follow.
 */
/* The character a one-letter escape \e stands for (" \\ / b f n r t), or -1 for any other e (u included). */
int json_escape_char(char e);
enum json_u { JSON_U_PAIRED_OR_PLAIN, JSON_U_LONE_SURROGATE, JSON_U_MALFORMED };
enum json_u json_unicode_escape(const char *p, const char *end, uint32_t *cp, size_t *used);

#endif
