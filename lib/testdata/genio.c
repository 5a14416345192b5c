/*
 * genio.c: what the dump generators share (see genio.h): random numbers,
 * msprobe's statistics of a tensor, the JSON writer, directories.
 */
#include "genio.h"
#include "../json/jsonw.h"
#include "../core/msg.h"
#include "../core/partial.h"
#include "../msprobe/pyfmt.h"
#include "../core/xalloc.h"

#include <errno.h>
#include <math.h>
#include <sys/stat.h>
#include <zlib.h>

/* ------------------------------------------------------------------ */
/* Deterministic random numbers (splitmix64) */

uint64_t genio_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* An independent stream for (seed, what, a, b, c). */
uint64_t genio_rng_stream(uint64_t seed, uint64_t what, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t state = seed;
	const uint64_t words[] = { what, a, b, c };
	for (size_t i = 0; i < ARRAY_SIZE(words); i++) {
		state ^= words[i];
		state = genio_splitmix64(&state);
	}
	return state;
}

/* Uniform in [-1, 1), exactly representable in float32. */
float genio_rng_symmetric(uint64_t *state)
{
	float u = (float)(genio_splitmix64(state) >> 40) * 0x1p-24f;
	return 2.0f * u - 1.0f;
}

/* Roughly standard normal (sum of 12 uniforms), pure arithmetic so that it is the same everywhere. */
float genio_rng_normal(uint64_t *state)
{
	float sum = 0.0f;
	for (int i = 0; i < 12; i++)
		sum += (float)(genio_splitmix64(state) >> 40) * 0x1p-24f;
	return sum - 6.0f;
}

/* ------------------------------------------------------------------ */
/* Statistics and CRC-32 of saved elements, by msprobe's rules for each type */

/* A statistic as Python's json writes float(x): repr, or NaN/Infinity/-Infinity. */
static void format_stat(char out[32], double x)
{
	struct strbuf sb = STRBUF_INIT;
	if (isnan(x))
		strbuf_addstr(&sb, "NaN");
	else if (isinf(x))
		strbuf_addstr(&sb, x > 0 ? "Infinity" : "-Infinity");
	else
		pyfmt_double(&sb, x);
	snprintf(out, 32, "%s", sb.buf);
	strbuf_release(&sb);
}

/* x rounded to float16 or bfloat16 (other types: x itself). */
double genio_round_to(enum dtype d, float x)
{
	if (d == DT_FLOAT16)
		return dtype_half_to_float(dtype_float_to_half(x));
	if (d == DT_BFLOAT16)
		return dtype_bf16_to_float(dtype_float_to_bf16(x));
	return x;
}

static bool is_float8(enum dtype d)
{
	return d == DT_FLOAT8_E4M3FN || d == DT_FLOAT8_E5M2;
}

double genio_element(enum dtype d, const void *elems, size_t i)
{
	return dtype_to_double(d, (const unsigned char *)elems + i * dtype_info(d)->size);
}

/*
 * torch.mean of a 16-bit float tensor, as torch 1.13 computes it on the
 * CPU: the sum rounded to the type, then divided by n in the type.
 * float32: the sum accumulated in double, divided, rounded to float32.
 */
static double torch_mean(enum dtype d, double sum, size_t n)
{
	if (d == DT_FLOAT32)
		return (float)(sum / (double)n);
	return genio_round_to(d, (float)genio_round_to(d, (float)sum) / (float)n);
}

/*
 * torch.norm: float32 and bfloat16 as the rounded double result; float16
 * as torch 1.13's CPU kernel does it on the tensors of the default model:
 * each square and each partial sum rounded to half, in element order.
 */
static double torch_norm(enum dtype d, const void *elems, size_t n, double sumsq)
{
	float acc = 0.0f;
	if (d != DT_FLOAT16)
		return genio_round_to(d, (float)sqrt(sumsq));
	for (size_t i = 0; i < n; i++) {
		float x = (float)genio_element(d, elems, i);
		acc = (float)genio_round_to(d, acc + (float)genio_round_to(d, x * x));
	}
	return genio_round_to(d, sqrtf(acc));
}

/*
 * Floating types: Max and Min (NaN if any element is NaN, as torch.max
 * does), Mean and Norm as torch computes them in the type; float64 gets no
 * Mean and Norm (msprobe's low-precision default computes them only below
 * 64 bits).
 */
static void summarize_floats(enum dtype d, const void *elems, size_t n, char stat[4][32])
{
	double max = -INFINITY, min = INFINITY, sum = 0, sumsq = 0;
	bool nan = false;

	for (size_t i = 0; i < n; i++) {
		/* float32 read directly: the multi-GB dumps are made of it */
		double x = d == DT_FLOAT32 ? ((const float *)elems)[i] : genio_element(d, elems, i);
		if (isnan(x))
			nan = true;
		if (x > max)
			max = x;
		if (x < min)
			min = x;
		sum += x;
		sumsq += x * x;
	}
	if (nan)
		max = min = NAN;
	format_stat(stat[0], max);
	format_stat(stat[1], min);
	if (d == DT_FLOAT64)
		return;
	format_stat(stat[2], torch_mean(d, sum, n));
	format_stat(stat[3], torch_norm(d, elems, n, sumsq));
}

/* Complex: Max, Min and Mean of the magnitudes, in the type of a part (numpy's abs); no Norm. */
static void summarize_complex(enum dtype d, const unsigned char *elems, size_t n, char stat[4][32])
{
	double max = -INFINITY, min = INFINITY, sum = 0;
	unsigned part = dtype_info(d)->size / 2;
	enum dtype real = d == DT_COMPLEX64 ? DT_FLOAT32 : DT_FLOAT64;

	for (size_t i = 0; i < n; i++) {
		double re = dtype_to_double(real, elems + i * 2 * part);
		double im = dtype_to_double(real, elems + i * 2 * part + part);
		double a = real == DT_FLOAT32 ? (double)hypotf((float)re, (float)im) : hypot(re, im);
		max = a > max ? a : max;
		min = a < min ? a : min;
		sum += a;
	}
	format_stat(stat[0], max);
	format_stat(stat[1], min);
	format_stat(stat[2], real == DT_FLOAT32 ? (double)(float)(sum / (double)n) : sum / (double)n);
}

static void format_int(char out[32], double v)
{
	snprintf(out, 32, "%lld", (long long)v);
}

/* The JSON tokens of Max, Min, Mean, Norm ("null" where msprobe writes none). */
void genio_summarize(enum dtype d, const void *elems, size_t n, int ndim, char stat[4][32])
{
	enum dtype_class cls = dtype_info(d)->cls;

	for (int i = 0; i < 4; i++)
		snprintf(stat[i], 32, "null");
	if (!n || is_float8(d)) /* msprobe skips float8 statistics */
		return;
	if (cls == DTC_COMPLEX) {
		summarize_complex(d, elems, n, stat);
	} else if (cls == DTC_BOOL) {
		bool any = false, all = true;
		for (size_t i = 0; i < n; i++) {
			any = any || genio_element(d, elems, i) != 0;
			all = all && genio_element(d, elems, i) != 0;
		}
		snprintf(stat[0], 32, "%s", any ? "true" : "false");
		snprintf(stat[1], 32, "%s", all ? "true" : "false");
	} else if (ndim == 0) {
		/* a 0-d tensor: its value four times */
		for (int i = 0; i < 4; i++)
			(cls == DTC_FLOAT ? format_stat : format_int)(stat[i], genio_element(d, elems, 0));
	} else if (cls == DTC_FLOAT) {
		summarize_floats(d, elems, n, stat);
	} else {
		double max = genio_element(d, elems, 0), min = max;
		for (size_t i = 1; i < n; i++) {
			double x = genio_element(d, elems, i);
			max = x > max ? x : max;
			min = x < min ? x : min;
		}
		format_int(stat[0], max);
		format_int(stat[1], min);
	}
}

/* zlib CRC-32 of the elements' bytes, as msprobe's md5 mode writes it. */
void genio_crc(const void *elems, size_t bytes, char out[9])
{
	const unsigned char *p = elems;
	uLong crc = crc32(0L, Z_NULL, 0);
	while (bytes) {
		uInt piece = bytes > (1u << 30) ? 1u << 30 : (uInt)bytes;
		crc = crc32(crc, p, piece);
		p += piece;
		bytes -= piece;
	}
	snprintf(out, 9, "%08lx", (unsigned long)(crc & 0xffffffffUL));
}


/* ------------------------------------------------------------------ */
/* JSON text as Python's json.dump(obj, f, indent=1) writes it, streamed to a file */

void genio_json_create(struct genio_json *w, const char *path)
{
	struct strbuf err = STRBUF_INIT;
	*w = (struct genio_json){ .out = STRBUF_INIT, .path = xstrdup(path) };
	/* a temporary name of its own (partial.h): never a file or link planted there */
	w->f = partial_fopen(path, &w->part, &err);
	if (!w->f)
		die("%s", err.buf);
	strbuf_release(&err);
}

static void json_flush(struct genio_json *w)
{
	if (w->out.len && fwrite(w->out.buf, 1, w->out.len, w->f) != w->out.len)
		die_errno("cannot write %s", w->path);
	strbuf_reset(&w->out);
}

void genio_json_flush_if_big(struct genio_json *w)
{
	if (w->out.len >= (1u << 16))
		json_flush(w);
}

void genio_json_commit(struct genio_json *w)
{
	if (w->depth)
		die("internal error: %s closed with %d containers open", w->path, w->depth);
	json_flush(w);
	if (fclose(w->f))
		die_errno("cannot write %s", w->path);
	if (partial_commit(w->part, &w->out) < 0)
		die("%s", w->out.buf);
	strbuf_release(&w->out);
	free(w->path);
}

static void json_newline_indent(struct genio_json *w, int depth)
{
	strbuf_addch(&w->out, '\n');
	for (int i = 0; i < depth; i++)
		strbuf_addch(&w->out, ' ');
}

/* What comes before a value or key: nothing after a key, else ",\n" and the indent. */
static void json_prefix(struct genio_json *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (!w->depth)
		return;
	if (w->nonempty[w->depth])
		strbuf_addch(&w->out, ',');
	w->nonempty[w->depth] = true;
	json_newline_indent(w, w->depth);
}

void genio_json_open(struct genio_json *w, char bracket)
{
	json_prefix(w);
	strbuf_addch(&w->out, bracket);
	if (++w->depth >= GENIO_JSON_MAX_DEPTH)
		die("internal error: JSON nesting too deep in %s", w->path);
	w->nonempty[w->depth] = false;
}

void genio_json_close(struct genio_json *w, char bracket)
{
	if (w->nonempty[w->depth])
		json_newline_indent(w, w->depth - 1);
	strbuf_addch(&w->out, bracket);
	w->depth--;
}

void genio_json_key(struct genio_json *w, const char *key)
{
	json_prefix(w);
	jsonw_str(&w->out, key);
	strbuf_addstr(&w->out, ": ");
	w->after_key = true;
}

/* A scalar token written as it is: a number, true, false, null. */
void genio_json_token(struct genio_json *w, const char *token)
{
	json_prefix(w);
	strbuf_addstr(&w->out, token);
}

void genio_json_string(struct genio_json *w, const char *s)
{
	json_prefix(w);
	jsonw_str(&w->out, s);
}

void genio_json_int(struct genio_json *w, long long v)
{
	json_prefix(w);
	strbuf_addi(&w->out, v);
}


void genio_json_frame(struct genio_json *w, const char *path, int line, const char *func, const char *source)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "File %s, line %d, in %s, \n %s", path, line, func, source);
	genio_json_string(w, sb.buf);
	strbuf_release(&sb);
}


void genio_mkdirs(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	strbuf_addstr(&sb, path);
	for (size_t i = 1; i <= sb.len; i++) {
		if (i < sb.len && sb.buf[i] != '/')
			continue;
		char saved = sb.buf[i];
		sb.buf[i] = '\0';
		if (mkdir(sb.buf, 0777) < 0 && errno != EEXIST)
			die_errno("cannot create directory %s", sb.buf);
		sb.buf[i] = saved;
	}
	if (stat(path, &st) < 0)
		die_errno("cannot create directory %s", path);
	if (!S_ISDIR(st.st_mode))
		die("cannot create directory %s: a file of that name exists", path);
	strbuf_release(&sb);
}


void genio_dump_begin(struct genio_json *w, const char *dir, const char *level, const char *framework, bool tensors)
{
	struct strbuf path = STRBUF_INIT;
	genio_mkdirs(dir);
	strbuf_addf(&path, "%s/dump.json", dir);
	genio_json_create(w, path.buf);
	genio_json_open(w, '{');
	genio_json_key(w, "task");
	genio_json_string(w, tensors ? "tensor" : "statistics");
	genio_json_key(w, "level");
	genio_json_string(w, level);
	genio_json_key(w, "framework");
	genio_json_string(w, framework);
	genio_json_key(w, "dump_data_dir");
	if (tensors) {
		/* the directory as the dumper was told it (compare ignores it and looks beside dump.json) */
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/dump_tensor_data", dir);
		genio_mkdirs(path.buf);
		genio_json_string(w, path.buf);
	} else {
		genio_json_token(w, "null");
	}
	strbuf_release(&path);
	genio_json_key(w, "data");
	genio_json_open(w, '{');
}
