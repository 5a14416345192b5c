/*
 * genio.h: what the dump generators share (gendump.c, genverl.c, genatb.c,
 * genckpt.c, genpack.c, gendecoder.c), for them only: deterministic random
 * numbers, the statistics msprobe writes for a tensor, the JSON text of
 * Python's json.dump(obj, f, indent=1) streamed to a file, and directories
 * made on the way to a file.
 *
 * Errors: like the generators, these end the process with status 2 and the
 * reason on stderr when a file cannot be written (msg.h's die()).
 */
#ifndef PROBE_GENIO_H
#define PROBE_GENIO_H

#include "../core/compat.h"
#include "../core/strbuf.h"
#include "../tensors/dtype.h"

#include <stdio.h>

/* ---- Deterministic random numbers (splitmix64), the same on every machine */

uint64_t genio_splitmix64(uint64_t *state);
/* The state of an independent stream for (seed, what, a, b, c). */
uint64_t genio_rng_stream(uint64_t seed, uint64_t what, uint64_t a, uint64_t b, uint64_t c);
/* Uniform in [-1, 1), exactly representable in float32. */
float genio_rng_symmetric(uint64_t *state);
/* Roughly standard normal: the sum of 12 uniforms, minus 6. */
float genio_rng_normal(uint64_t *state);

/* ---- Statistics of saved elements, by msprobe's rules for each type */

/* x rounded to float16 or bfloat16 (other types: x itself). */
double genio_round_to(enum dtype d, float x);
/* Element i of elems, of type d, as a double. */
double genio_element(enum dtype d, const void *elems, size_t i);
/*
 * The JSON tokens of Max, Min, Mean, Norm of n elements of type d saved as
 * an ndim-dimensional tensor ("null" where msprobe writes none): floats
 * Max/Min exact and Mean/Norm as torch computes them in the type; integers
 * Max/Min only; bool any/all; complex the magnitudes' Max/Min/Mean; float8
 * and empty tensors all null; a 0-d tensor its value four times.
 */
void genio_summarize(enum dtype d, const void *elems, size_t n, int ndim, char stat[4][32]);
/* zlib's CRC-32 of the bytes, as msprobe's md5 mode writes it (8 hex digits). */
void genio_crc(const void *elems, size_t bytes, char out[9]);

/* ---- Files */

/* mkdir -p path. */
void genio_mkdirs(const char *path);

/*
 * JSON text as Python's json.dump(obj, f, indent=1) writes it (", " after
 * nothing, ",\n" and one space per depth between members, no newline at
 * the end), streamed to a file written under a temporary name and renamed
 * when committed (partial.h).  Values are written in order: after a key,
 * or as members of the innermost open array.
 */
#define GENIO_JSON_MAX_DEPTH 16

struct genio_json {
	struct strbuf out;
	FILE *f;
	char *path;
	struct partial *part;      /* written under a temporary name, renamed when committed */
	int depth;
	bool nonempty[GENIO_JSON_MAX_DEPTH];
	bool after_key;
};

void genio_json_create(struct genio_json *w, const char *path);
/* Write the rest and give the file its name; every container must be closed. */
void genio_json_commit(struct genio_json *w);
/* Hand the text so far to the file when it has grown large. */
void genio_json_flush_if_big(struct genio_json *w);
/* bracket: '{' or '[' (open), '}' or ']' (close). */
void genio_json_open(struct genio_json *w, char bracket);
void genio_json_close(struct genio_json *w, char bracket);
void genio_json_key(struct genio_json *w, const char *key);
/* A scalar token written as it is: a number, true, false, null. */
void genio_json_token(struct genio_json *w, const char *token);
void genio_json_string(struct genio_json *w, const char *s);
void genio_json_int(struct genio_json *w, long long v);
/*
 * dir/dump.json begun as msprobe's dumper begins it (dir made first): task
 * ("tensor" or "statistics"), level, framework, dump_data_dir (with tensors
 * dir/dump_tensor_data, made; else null), and "data" opened: the caller
 * writes the entries, closes "data" and the object, and commits.
 */
void genio_dump_begin(struct genio_json *w, const char *dir, const char *level, const char *framework, bool tensors);
/* A frame of stack.json: "File PATH, line LINE, in FUNC, \n SOURCE". */
void genio_json_frame(struct genio_json *w, const char *path, int line, const char *func, const char *source);

#endif
