/*
 * The tensor reader against tests/data/tensor: every good file's type,
 * shape, strides and values as torch and numpy computed them (from
 * expected.txt, written by make_corpus.py), every bad file's message,
 * reads at every split checked against a naive reader, and damaged
 * copies (truncated at every length, a byte flipped at every place)
 * that must fail cleanly or read within the file.
 */
#include "tap.h"
#include "../../lib/tensors/tensor.h"
#include "../../lib/tensors/tensorw.h"
#include "../../lib/compare/tmetric.h"
#include "../../lib/core/xalloc.h"

#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

static char corpus[4096];
static char tmpdir[64] = "/tmp/probe-test-tensor-XXXXXX";

static bool host_big(void)
{
	const uint16_t one = 1;
	unsigned char b;
	memcpy(&b, &one, 1);
	return b == 0;
}

static bool slurp(const char *path, struct strbuf *sb)
{
	FILE *f = fopen(path, "rb");
	char buf[65536];
	size_t n;
	if (!f)
		return false;
	strbuf_reset(sb);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(sb, buf, n);
	fclose(f);
	return true;
}

static void spit(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f)) {
		diag("cannot write %s", path);
		exit(2);
	}
}

/* ---------------------------------------------------------------- a naive reader to compare with */

/* Element i in row-major order by division, swapped into this machine's order. */
static void naive_element(const struct tensor *t, int64_t i, unsigned char *out)
{
	unsigned size = dtype_info(t->dtype)->size;
	unsigned part = dtype_info(t->dtype)->cls == DTC_COMPLEX ? size / 2 : size;
	int64_t off = 0;
	for (int d = t->ndim - 1; d >= 0; d--) {
		off += (i % t->shape[d]) * t->stride[d];
		i /= t->shape[d];
	}
	memcpy(out, t->data + off * size, size);
	if (t->swapped)
		for (unsigned p = 0; p < size; p += part)
			for (unsigned a = p, b = p + part - 1; a < b; a++, b--) {
				unsigned char c = out[a];
				out[a] = out[b];
				out[b] = c;
			}
}

static bool same_double(double got, double want)
{
	if (isnan(want))
		return isnan(got);
	return !memcmp(&got, &want, sizeof(got));
}

static bool same_float(float got, float want)
{
	if (isnan(want))
		return isnan(got);
	return !memcmp(&got, &want, sizeof(got));
}

/* Reads of [start, start + n) for the given piece sizes agree with the naive reader, raw and converted. */
static bool reads_agree(const struct tensor *t, const int64_t *pieces, size_t npieces, const char *name)
{
	unsigned size = dtype_info(t->dtype)->size;
	size_t total = (size_t)t->numel;
	unsigned char *want = xmalloc(total * size + 1), *got = xmalloc(total * size + 1);
	double *f64 = xmalloc((total + 1) * sizeof(double));
	float *f32 = xmalloc((total + 1) * sizeof(float));
	bool same = true;

	for (int64_t i = 0; i < t->numel; i++)
		naive_element(t, i, want + i * size);
	for (size_t k = 0; k < npieces && same; k++) {
		int64_t piece = pieces[k];
		memset(got, 0xA5, total * size);
		for (int64_t s = 0; s < t->numel; s += piece) {
			int64_t n = t->numel - s < piece ? t->numel - s : piece;
			tensor_read_raw(t, s, n, got + s * size);
			tensor_read_f64(t, s, n, f64 + s);
			tensor_read_f32(t, s, n, f32 + s);
		}
		if (memcmp(got, want, total * size)) {
			diag("%s: raw reads in pieces of %lld differ from the naive reader", name, (long long)piece);
			same = false;
		}
		for (int64_t i = 0; i < t->numel && same; i++) {
			double d = dtype_to_double(t->dtype, want + i * size);
			if (!same_double(f64[i], d)) {
				diag("%s: f64 element %lld in pieces of %lld: %a, want %a", name, (long long)i,
				     (long long)piece, f64[i], d);
				same = false;
			}
			/* floats of 32 bits or fewer are exact in float; the rest round as a cast does */
			if (!same_float(f32[i], (float)d) && t->dtype != DT_INT64 && t->dtype != DT_UINT64) {
				diag("%s: f32 element %lld in pieces of %lld: %a, want %a", name, (long long)i,
				     (long long)piece, f32[i], (float)d);
				same = false;
			}
		}
	}
	free(want);
	free(got);
	free(f64);
	free(f32);
	return same;
}

/* Every start and length for small tensors; a few piece sizes around the reader's chunk for large ones. */
static void check_splits(const struct tensor *t, const char *name)
{
	int64_t pieces[64];
	size_t n = 0;
	if (!t->numel)
		return;
	if (t->numel <= 40) {
		for (int64_t p = 1; p <= t->numel; p++)
			pieces[n++] = p;
	} else {
		static const int64_t sizes[] = { 1, 3, 7, 64, 1000, 2047, 2048, 2049, 4097 };
		for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
			pieces[n++] = sizes[i];
		pieces[n++] = t->numel;
	}
	ok(reads_agree(t, pieces, n, name), "%s: reads in pieces agree with a naive reader", name);
	if (t->numel <= 40) {
		/* and every (start, n) window of raw bytes */
		unsigned size = dtype_info(t->dtype)->size;
		unsigned char whole[40 * 16], part[40 * 16];
		bool same = true;
		tensor_read_raw(t, 0, t->numel, whole);
		for (int64_t s = 0; s < t->numel && same; s++)
			for (int64_t k = 1; s + k <= t->numel && same; k++) {
				tensor_read_raw(t, s, k, part);
				same = !memcmp(part, whole + s * size, (size_t)k * size);
			}
		ok(same, "%s: every window reads the same bytes", name);
	}
}

/* ---------------------------------------------------------------- expected.txt */

static const char *field(const char *line, const char *key, size_t *len)
{
	size_t kl = strlen(key);
	for (const char *p = line; (p = strstr(p, key)); p++) {
		if ((p == line || p[-1] == ' ') && p[kl] == '=') {
			const char *v = p + kl + 1, *e = strchr(v, ' ');
			*len = e ? (size_t)(e - v) : strlen(v);
			return v;
		}
	}
	*len = 0;
	return NULL;
}

static int64_t field_int(const char *line, const char *key)
{
	size_t len;
	const char *v = field(line, key, &len);
	return v ? strtoll(v, NULL, 10) : -1;
}

/* Comma-separated numbers (decimal or hex) of a field into out; returns the count. */
static int field_list(const char *line, const char *key, int base, uint64_t *out, int max)
{
	size_t len;
	const char *v = field(line, key, &len), *end;
	int n = 0;
	if (!v || !len)
		return 0;
	end = v + len;
	while (v < end && n < max) {
		char *stop;
		uint64_t x = strtoull(v, &stop, base);
		if (stop == v)
			break;
		out[n++] = x;
		v = stop;
		if (v >= end || *v != ',')
			break;
		v++;
	}
	return n;
}

static void check_good(const char *name, const char *line)
{
	struct tensor t;
	struct strbuf err = STRBUF_INIT;
	char path[8192], what[256];
	size_t len;
	const char *v;
	uint64_t nums[TENSOR_MAX_DIMS];
	int n;
	bool big;

	snprintf(path, sizeof(path), "%s/%s", corpus, name);
	if (!ok(tensor_open(&t, path, &err) == 0, "%s opens", name)) {
		diag("%s", err.buf);
		strbuf_release(&err);
		return;
	}
	v = field(line, "format", &len);
	ok(t.format == (len == 2 ? TENSOR_PT : TENSOR_NPY) && v, "%s: format", name);
	v = field(line, "dtype", &len);
	snprintf(what, sizeof(what), "%s: dtype", name);
	{
		char *want = v ? xmemdupz(v, len) : NULL;
		is_str(dtype_info(t.dtype)->name, want, what);
		free(want);
	}
	n = field_list(line, "shape", 10, nums, TENSOR_MAX_DIMS);
	{
		bool same = n == t.ndim;
		for (int d = 0; same && d < n; d++)
			same = t.shape[d] == (int64_t)nums[d];
		ok(same, "%s: shape (%d dims)", name, n);
	}
	v = field(line, "stride", &len);
	if (v && !(len == 1 && *v == '*')) {
		bool same;
		n = field_list(line, "stride", 10, nums, TENSOR_MAX_DIMS);
		same = n == t.ndim;
		for (int d = 0; same && d < n; d++)
			same = t.stride[d] == (int64_t)nums[d];
		ok(same, "%s: strides", name);
	}
	snprintf(what, sizeof(what), "%s: numel", name);
	is_int(t.numel, field_int(line, "numel"), what);
	snprintf(what, sizeof(what), "%s: contiguous", name);
	is_int(t.contiguous, field_int(line, "contiguous"), what);
	big = field_int(line, "big") == 1;
	snprintf(what, sizeof(what), "%s: swapped", name);
	is_int(t.swapped, big != host_big() && dtype_info(t.dtype)->size > 1, what);
	snprintf(what, sizeof(what), "%s: requires_grad", name);
	is_int(t.requires_grad, field_int(line, "requires_grad"), what);
	ok((t.data == NULL) == (t.numel == 0), "%s: data is NULL exactly when there are no elements", name);

	if (t.numel) {
		unsigned size = dtype_info(t.dtype)->size;
		unsigned char *raw = xmalloc((size_t)t.numel * size);
		double *f64 = xmalloc((size_t)t.numel * sizeof(double));
		float *f32 = xmalloc((size_t)t.numel * sizeof(float));
		uint64_t *bits = xmalloc((size_t)t.numel * sizeof(uint64_t));
		uint64_t crc = 0;
		tensor_read_raw(&t, 0, t.numel, raw);
		if (host_big()) /* the manifest's bytes are little-endian */
			dtype_swap(raw, (size_t)t.numel, t.dtype);
		field_list(line, "crc", 16, &crc, 1);
		ok(crc32(0, raw, (uInt)((size_t)t.numel * size)) == crc, "%s: element bytes (CRC %08llx)", name,
		   (unsigned long long)crc);
		tensor_read_f64(&t, 0, t.numel, f64);
		tensor_read_f32(&t, 0, t.numel, f32);
		v = field(line, "f64", &len);
		if (v && !(len == 1 && *v == '*')) {
			bool same = field_list(line, "f64", 16, bits, (int)t.numel) == t.numel;
			for (int64_t i = 0; same && i < t.numel; i++) {
				double d;
				memcpy(&d, &bits[i], 8);
				if (!(same = same_double(f64[i], d)))
					diag("element %lld: %a, want %a", (long long)i, f64[i], d);
			}
			ok(same, "%s: values as double", name);
			same = field_list(line, "f32", 16, bits, (int)t.numel) == t.numel;
			for (int64_t i = 0; same && i < t.numel; i++) {
				uint32_t b = (uint32_t)bits[i];
				float f;
				memcpy(&f, &b, 4);
				if (!(same = same_float(f32[i], f)))
					diag("element %lld: %a, want %a", (long long)i, f32[i], f);
			}
			ok(same, "%s: values as float", name);
		}
		free(raw);
		free(f64);
		free(f32);
		free(bits);
	}
	check_splits(&t, name);
	tensor_close(&t);
	strbuf_release(&err);
}

static void check_bad(const char *name, const char *text)
{
	struct tensor t;
	struct strbuf err = STRBUF_INIT;
	char path[8192];
	int rc;
	snprintf(path, sizeof(path), "%s/%s", corpus, name);
	memset(&t, 0x5A, sizeof(t));
	rc = tensor_open(&t, path, &err);
	ok(rc == -1, "%s is refused", name);
	if (!ok(!strncmp(err.buf, path, strlen(path)) && !strncmp(err.buf + strlen(path), ": ", 2) &&
		strstr(err.buf, text), "%s: the message names the file and says: %s", name, text))
		diag("got: %s", err.buf);
	ok(!strchr(err.buf, '\n') && err.len && err.buf[err.len - 1] != '.', "%s: one line, no final period", name);
	ok(t.map == NULL && t.owned == NULL && t.data == NULL, "%s: the tensor is left empty", name);
	strbuf_release(&err);
}

static void check_corpus(void)
{
	struct strbuf manifest = STRBUF_INIT;
	char path[8192];
	int good = 0, bad = 0;
	snprintf(path, sizeof(path), "%s/expected.txt", corpus);
	if (!ok(slurp(path, &manifest), "read %s", path))
		return;
	for (char *line = manifest.buf, *next; *line; line = next) {
		char *sp, *nl = strchr(line, '\n');
		next = nl ? nl + 1 : line + strlen(line);
		if (nl)
			*nl = '\0';
		if (*line == '#' || !*line || !(sp = strchr(line, ' ')))
			continue;
		*sp = '\0';
		if (!strncmp(sp + 1, "error=", 6)) {
			check_bad(line, sp + 7);
			bad++;
		} else {
			check_good(line, sp + 1);
			good++;
		}
	}
	diag("corpus: %d good files, %d bad files", good, bad);
	ok(good >= 50 && bad >= 50, "the corpus has its files (%d good, %d bad)", good, bad);
	strbuf_release(&manifest);
}

/* ---------------------------------------------------------------- damaged copies */

/* Open a copy; when it opens, read every element every way (ASan watches the reads). */
static int open_and_read(const char *path, const void *data, size_t len, struct strbuf *err)
{
	struct tensor t;
	int rc;
	spit(path, data, len);
	strbuf_reset(err);
	rc = tensor_open(&t, path, err);
	if (rc == 0) {
		int64_t n = t.numel < 100000 ? t.numel : 100000;
		unsigned size = dtype_info(t.dtype)->size;
		unsigned char *raw = xmalloc((size_t)n * size + 1);
		double *f64 = xmalloc((size_t)n * sizeof(double) + 1);
		float *f32 = xmalloc((size_t)n * sizeof(float) + 1);
		tensor_read_raw(&t, 0, n, raw);
		tensor_read_f64(&t, 0, n, f64);
		tensor_read_f32(&t, 0, n, f32);
		free(raw);
		free(f64);
		free(f32);
		tensor_close(&t);
	}
	return rc;
}

static void check_truncations_of(const char *src, const char *name)
{
	struct strbuf file = STRBUF_INIT, err = STRBUF_INIT;
	char dst[128];
	size_t refused = 0, worded = 0;
	snprintf(dst, sizeof(dst), "%s/cut", tmpdir);
	if (!slurp(src, &file)) {
		ok(false, "read %s", src);
		return;
	}
	for (size_t len = 0; len < file.len; len++) {
		if (open_and_read(dst, file.buf, len, &err) == -1)
			refused++;
		if (!strncmp(err.buf, dst, strlen(dst)) && !strchr(err.buf, '\n'))
			worded++;
	}
	ok(refused == file.len, "%s: refused when cut at each of its %zu lengths (%zu refused)", name, file.len,
	   refused);
	ok(worded == file.len, "%s: each cut gives one line naming the file", name);
	strbuf_release(&file);
	strbuf_release(&err);
}

static void check_flips_of(const char *src, const char *name)
{
	struct strbuf file = STRBUF_INIT, err = STRBUF_INIT;
	char dst[128];
	size_t opened = 0, worded = 0;
	snprintf(dst, sizeof(dst), "%s/flip", tmpdir);
	if (!slurp(src, &file)) {
		ok(false, "read %s", src);
		return;
	}
	for (size_t i = 0; i < file.len; i++) {
		file.buf[i] ^= 0xFF;
		if (open_and_read(dst, file.buf, file.len, &err) == 0)
			opened++;
		else if (!strncmp(err.buf, dst, strlen(dst)))
			worded++;
		file.buf[i] ^= 0xFF;
	}
	ok(opened + worded == file.len, "%s: each of %zu byte flips opens (%zu) or fails with a message", name,
	   file.len, opened);
	strbuf_release(&file);
	strbuf_release(&err);
}

static void check_truncations(const char *name)
{
	char src[8192];
	snprintf(src, sizeof(src), "%s/%s", corpus, name);
	check_truncations_of(src, name);
}

static void check_flips(const char *name)
{
	char src[8192];
	snprintf(src, sizeof(src), "%s/%s", corpus, name);
	check_flips_of(src, name);
}

/* ---------------------------------------------------------------- ATB .bin */

/* A .bin as ATB's dumper writes it (msprobe-atb.md): header lines, then the payload. */
static void write_bin(const char *path, int dtype, const char *dims, const void *payload, size_t len,
		      const char *alias)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "$Version=1.0\n$Object.Count=1\n$Object.Length=%zu\nformat=2\ndtype=%d\ndims=%s\n", len,
		    dtype, dims);
	if (alias)
		strbuf_addf(&sb, "data=%s\n", alias);
	strbuf_addf(&sb, "$Object.data=0,%zu\n$End=1\n", len);
	strbuf_add(&sb, payload, len);
	spit(path, sb.buf, sb.len);
	strbuf_release(&sb);
}

/* Values written by hand in each of ATB's dtypes read back as those values. */
static void check_atb_bin(void)
{
	static const struct {
		int code;
		enum dtype dt;
		const char *dims;
		unsigned char bytes[16];
		size_t len;
		double want[4];
		int n;
	} cases[] = {
		{ 0, DT_FLOAT32, "2", { 0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0 }, 8, { 1.0, -2.0 }, 2 },
		{ 1, DT_FLOAT16, "1,2", { 0x00, 0x3c, 0x00, 0xb8 }, 4, { 1.0, -0.5 }, 2 },
		{ 27, DT_BFLOAT16, "2,1", { 0x80, 0x3f, 0x40, 0x40 }, 4, { 1.0, 3.0 }, 2 },
		{ 2, DT_INT8, "3", { 0x01, 0xff, 0x7f }, 3, { 1, -1, 127 }, 3 },
		{ 3, DT_INT32, "1", { 0xfe, 0xff, 0xff, 0xff }, 4, { -2 }, 1 },
		{ 9, DT_INT64, "1", { 0x03, 0, 0, 0, 0, 0, 0, 0 }, 8, { 3 }, 1 },
		{ 12, DT_BOOL, "2", { 1, 0 }, 2, { 1, 0 }, 2 },
	};
	char path[128], target[160];
	struct strbuf err = STRBUF_INIT, alias = STRBUF_INIT;
	struct tensor t;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		double got[4];
		snprintf(path, sizeof(path), "%s/intensor%zu.bin", tmpdir, i);
		write_bin(path, cases[i].code, cases[i].dims, cases[i].bytes, cases[i].len, NULL);
		strbuf_reset(&err);
		if (!ok(tensor_open(&t, path, &err) == 0, "ATB dtype %d opens", cases[i].code)) {
			diag("%s", err.buf);
			continue;
		}
		tensor_read_f64(&t, 0, cases[i].n, got);
		bool same = t.numel == cases[i].n && t.dtype == cases[i].dt && t.format == TENSOR_ATB;
		for (int k = 0; k < cases[i].n && same; k++)
			same = got[k] == cases[i].want[k];
		ok(same, "ATB dtype %d: dtype, shape %s and values as written", cases[i].code, cases[i].dims);
		tensor_close(&t);
	}
	snprintf(path, sizeof(path), "%s/intensor0.bin", tmpdir);
	check_truncations_of(path, "ATB float32 .bin");
	check_flips_of(path, "ATB float32 .bin");
	/* an alias: told by tensor_atb_alias(), refused by tensor_open() naming its target */
	snprintf(target, sizeof(target), "%s/outtensor0.bin", tmpdir);
	snprintf(path, sizeof(path), "%s/alias.bin", tmpdir);
	write_bin(path, 0, "2", "", 0, target);
	ok(tensor_atb_alias(path, &alias, &err) == 1 && !strcmp(alias.buf, target), "an alias names its file");
	strbuf_reset(&err);
	int rc = tensor_open(&t, path, &err);
	ok(rc == -1 && strstr(err.buf, target) && strstr(err.buf, "alias"), "an alias is not opened as a tensor");
	diag("%s", err.buf);
	strbuf_reset(&alias);
	snprintf(path, sizeof(path), "%s/intensor1.bin", tmpdir);
	ok(tensor_atb_alias(path, &alias, &err) == 0 && !alias.len, "a tensor file is no alias");
	/* dtype codes ATB has and probe does not read, a length that disagrees with the dims */
	static const struct { int code; const char *dims; size_t len; const char *why; } bad[] = {
		{ 4, "2", 8, "dtype 4" }, { 0, "3", 8, "says 8 bytes" }, { 0, "2,", 8, "comma" }, { 0, "x", 8, "sizes" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(path, sizeof(path), "%s/bad%zu.bin", tmpdir, i);
		write_bin(path, bad[i].code, bad[i].dims, "\0\0\0\0\0\0\0\0", bad[i].len, NULL);
		strbuf_reset(&err);
		rc = tensor_open(&t, path, &err);
		ok(rc == -1 && !strncmp(err.buf, path, strlen(path)) && strstr(err.buf, bad[i].why),
		   "a .bin with %s is refused, saying so", bad[i].why);
		diag("%s", err.buf);
	}
	strbuf_release(&err);
	strbuf_release(&alias);
}

/* Random damage: a few bytes at a time set to values that parsers find interesting. */
static void check_random_damage(const char *name, unsigned rounds)
{
	static const unsigned char nasty[] = { 0x00, 0xFF, 0x7F, 0x80, 0x01, 0x28, 0x74, 0x52, 0x2E };
	struct strbuf file = STRBUF_INIT, copy = STRBUF_INIT, err = STRBUF_INIT;
	char src[8192], dst[128];
	uint64_t seed = 0x9E3779B97F4A7C15u;
	size_t handled = 0;
	snprintf(src, sizeof(src), "%s/%s", corpus, name);
	snprintf(dst, sizeof(dst), "%s/damage", tmpdir);
	if (!slurp(src, &file)) {
		ok(false, "read %s", src);
		return;
	}
	for (unsigned r = 0; r < rounds; r++) {
		strbuf_reset(&copy);
		strbuf_addbuf(&copy, &file);
		for (int k = 0; k < 4; k++) {
			seed = seed * 6364136223846793005u + 1442695040888963407u;
			copy.buf[(seed >> 33) % copy.len] = (char)nasty[(seed >> 20) % sizeof(nasty)];
		}
		if (open_and_read(dst, copy.buf, copy.len, &err) == 0 || !strncmp(err.buf, dst, strlen(dst)))
			handled++;
	}
	ok(handled == rounds, "%s: %u randomly damaged copies open or fail with a message", name, rounds);
	strbuf_release(&file);
	strbuf_release(&copy);
	strbuf_release(&err);
}

/* ---------------------------------------------------------------- files made here */

static void write_npy(const char *path, const char *descr, bool fortran, const char *shape, const void *data,
		      size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	char header[256];
	int hl = snprintf(header, sizeof(header), "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr,
			  fortran ? "True" : "False", shape);
	size_t total = 10 + (size_t)hl + 1, pad = (64 - total % 64) % 64;
	uint16_t hlen = (uint16_t)(hl + pad + 1);
	strbuf_add(&sb, "\x93NUMPY\x01\x00", 8);
	strbuf_addch(&sb, (char)(hlen & 0xFF));
	strbuf_addch(&sb, (char)(hlen >> 8));
	strbuf_add(&sb, header, (size_t)hl);
	for (size_t i = 0; i < pad; i++)
		strbuf_addch(&sb, ' ');
	strbuf_addch(&sb, '\n');
	strbuf_add(&sb, data, len);
	spit(path, sb.buf, sb.len);
	strbuf_release(&sb);
}

/* Every float16 bit pattern, both byte orders, through the vectorised conversions. */
static void check_all_halves(void)
{
	static uint16_t le[65536], be[65536];
	static float f32[65536];
	static double f64[65536];
	char path[128];
	struct tensor t;
	struct strbuf err = STRBUF_INIT;
	bool same32 = true, same64 = true;

	for (unsigned i = 0; i < 65536; i++) {
		uint16_t v = (uint16_t)i;
		unsigned char b[2] = { (unsigned char)(v >> 8), (unsigned char)v };
		le[i] = v;
		memcpy(&be[i], b, 2);
	}
	for (int order = 0; order < 2; order++) {
		snprintf(path, sizeof(path), "%s/halves.npy", tmpdir);
		/* host order file: '<f2' on little-endian machines */
		bool big_file = order == 1 ? !host_big() : host_big();
		write_npy(path, big_file ? ">f2" : "<f2", false, "(256, 256)", order ? (void *)be : (void *)le,
			  sizeof(le));
		if (!ok(tensor_open(&t, path, &err) == 0, "all float16 values (%s order) open",
			order ? "other" : "this")) {
			diag("%s", err.buf);
			continue;
		}
		tensor_read_f32(&t, 0, t.numel, f32);
		tensor_read_f64(&t, 0, t.numel, f64);
		for (unsigned i = 0; i < 65536; i++) {
			float want = dtype_half_to_float((uint16_t)i);
			if (memcmp(&f32[i], &want, 4) && same32) {
				diag("0x%04x: %a, want %a", i, f32[i], want);
				same32 = false;
			}
			if (!same_double(f64[i], want) && same64) {
				diag("0x%04x as double: %a, want %a", i, f64[i], (double)want);
				same64 = false;
			}
		}
		ok(same32, "every float16 bit pattern converts to float as dtype_half_to_float does (%s order)",
		   order ? "other" : "this");
		ok(same64, "every float16 bit pattern converts to double exactly (%s order)", order ? "other" : "this");
		tensor_close(&t);
	}
	strbuf_release(&err);
}

/* A Fortran-order big-endian array larger than the reader's chunk: gathering and swapping together. */
static void check_fortran_swapped(void)
{
	enum { R = 37, C = 101 };
	static int32_t data[R * C];
	char path[128];
	struct tensor t;
	struct strbuf err = STRBUF_INIT;
	for (int i = 0; i < R * C; i++) {
		uint32_t v = (uint32_t)(i * 2654435761u);
		unsigned char b[4] = { (unsigned char)(v >> 24), (unsigned char)(v >> 16), (unsigned char)(v >> 8),
				       (unsigned char)v };
		memcpy(&data[i], b, 4);
	}
	snprintf(path, sizeof(path), "%s/fortran.npy", tmpdir);
	write_npy(path, ">i4", true, "(37, 101)", data, sizeof(data));
	if (!ok(tensor_open(&t, path, &err) == 0, "a large Fortran-order big-endian array opens")) {
		diag("%s", err.buf);
		return;
	}
	ok(!t.contiguous && t.stride[0] == 1 && t.stride[1] == R, "it is column-major");
	check_splits(&t, "fortran.npy");
	tensor_close(&t);
	strbuf_release(&err);
}

static void check_system_errors(void)
{
	struct tensor t;
	struct strbuf err = STRBUF_INIT;
	char path[128];
	int rc;
	/* each call before the ok() that prints its message: err.buf moves as the message grows */
	snprintf(path, sizeof(path), "%s/no-such-file.pt", tmpdir);
	rc = tensor_open(&t, path, &err);
	ok(rc == -1 && strstr(err.buf, "no-such-file.pt: No such file"), "a missing file is an error: %s", err.buf);
	strbuf_reset(&err);
	rc = tensor_open(&t, tmpdir, &err);
	ok(rc == -1 && strstr(err.buf, ": not a regular file (a directory)"), "a directory is an error: %s", err.buf);
	strbuf_reset(&err);
	snprintf(path, sizeof(path), "%s/empty", tmpdir);
	spit(path, "", 0);
	rc = tensor_open(&t, path, &err);
	ok(rc == -1 && strstr(err.buf, "empty: empty file"), "an empty file is an error: %s", err.buf);
	strbuf_reset(&err);
	snprintf(path, sizeof(path), "%s/fifo", tmpdir);
	if (mkfifo(path, 0600) == 0) {
		/* no writer: an open for reading would wait for ever */
		rc = tensor_open(&t, path, &err);
		ok(rc == -1 && strstr(err.buf, "fifo: not a regular file (a FIFO)"), "a FIFO is refused, not waited on: %s",
		   err.buf);
		unlink(path);
	}
	tensor_close(NULL);
	strbuf_release(&err);
}

/*
 * Files that shrink while they are mapped (another process truncates them):
 * the comparison's reads of the pages they no longer have fault (SIGBUS),
 * which tmetric_compare_files() turns into an error naming the file, in
 * each thread on its own, with nothing leaked (the ASan build checks).
 */
#define FAULT_N 1000000

struct fault_case {
	const char *what;
	enum dtype dtype;
	bool strided;          /* a transposed view: the gathering loops */
	bool golden_shrinks;   /* the golden file, not the target */
	char t_path[128], g_path[128];
	int rc;
	struct strbuf err;
	struct tmetric m;
};

static void write_fault_file(const char *path, enum dtype d, bool strided, unsigned seed)
{
	size_t size = dtype_info(d)->size;
	unsigned char *data = xmalloc(FAULT_N * size);
	int64_t shape[2] = { 1000, 1000 }, stride[2] = { 1, 1000 };
	struct tensor_src src = { .dtype = d, .storage = data, .storage_numel = FAULT_N, .ndim = 2, .shape = shape,
				  .stride = strided ? stride : NULL };
	struct pt_options opt = { PT_TORCH1, false, false };
	struct strbuf err = STRBUF_INIT;
	for (size_t i = 0; i < FAULT_N * size; i++)
		data[i] = (unsigned char)((i * 131 + seed) >> 3);
	if (tensorw_pt(path, &src, &opt, &err))
		diag("%s", err.buf);
	free(data);
	strbuf_release(&err);
}

static void *compare_shrinking(void *arg)
{
	struct fault_case *c = arg;
	struct tensor t, g;
	struct strbuf err = STRBUF_INIT;
	c->rc = 1;
	if (tensor_open(&t, c->t_path, &err) || tensor_open(&g, c->g_path, &err)) {
		strbuf_addbuf(&c->err, &err);
		strbuf_release(&err);
		return NULL;
	}
	/* the structure is read, the elements not yet: the file loses all but its first page */
	if (truncate(c->golden_shrinks ? c->g_path : c->t_path, 4096) == 0)
		c->rc = tmetric_compare_files(&t, &g, NULL, &c->m, &c->err);
	tensor_close(&t);
	tensor_close(&g);
	strbuf_release(&err);
	return NULL;
}

/* Truncate the file to a page as soon as it is mapped (it shows in /proc/self/maps): the open is reading it. */
static void *truncate_when_mapped(void *path)
{
	struct strbuf maps = STRBUF_INIT;
	for (int i = 0; i < 1000000; i++) {
		strbuf_reset(&maps);
		if (slurp("/proc/self/maps", &maps) && strstr(maps.buf, (const char *)path)) {
			if (truncate(path, 4096))
				diag("truncate %s: %s", (const char *)path, strerror(errno));
			break;
		}
	}
	strbuf_release(&maps);
	return NULL;
}

static void check_shrinking_files(void)
{
	struct fault_case cases[] = {
		{ .what = "float32 (the one pass, its blocks copied with pread, then in place)", .dtype = DT_FLOAT32 },
		{ .what = "float16 (the bytes in place)", .dtype = DT_FLOAT16 },
		{ .what = "a transposed float32 view (gathered)", .dtype = DT_FLOAT32, .strided = true },
		{ .what = "float64, the golden file shrinks", .dtype = DT_FLOAT64, .golden_shrinks = true },
	};
	pthread_t threads[ARRAY_SIZE(cases)];
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct fault_case *c = &cases[i];
		snprintf(c->t_path, sizeof(c->t_path), "%s/shrink-t%zu.pt", tmpdir, i);
		snprintf(c->g_path, sizeof(c->g_path), "%s/shrink-g%zu.pt", tmpdir, i);
		write_fault_file(c->t_path, c->dtype, c->strided, 1);
		write_fault_file(c->g_path, c->dtype, c->strided, 2);
		strbuf_init(&c->err, 0);
	}
	/* all at once, each in its thread: each catches its own fault */
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		if (pthread_create(&threads[i], NULL, compare_shrinking, &cases[i]))
			compare_shrinking(&cases[i]), threads[i] = 0;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		if (threads[i])
			pthread_join(threads[i], NULL);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct fault_case *c = &cases[i];
		const char *shrunk = c->golden_shrinks ? c->g_path : c->t_path;
		ok(c->rc == -1 && !strncmp(c->err.buf, shrunk, strlen(shrunk)) &&
			   strstr(c->err.buf, ": the file shrank while it was read (a fault at byte "),
		   "%s, truncated while mapped: an error naming the file: %s", c->what, c->err.buf);
		ok(!strcmp(c->m.cell[TM_COSINE], "unsupported") && strstr(c->m.notes, "the file shrank"),
		   "... msprobe's cells unsupported, with the note: %s", c->m.notes);
		strbuf_release(&c->err);
		unlink(c->t_path);
		unlink(c->g_path);
	}

	/*
	 * While it is opened: a deflated storage of 64 MiB takes tens of milliseconds to
	 * inflate, and the file loses all but its first page as soon as it is mapped.
	 */
	{
		char path[128];
		int64_t n = (int64_t)1 << 24, shape[1] = { n };
		float *zeros = xcalloc((size_t)n, sizeof(float));
		struct tensor_src src = { .dtype = DT_FLOAT32, .storage = zeros, .storage_numel = n, .ndim = 1,
					  .shape = shape };
		struct pt_options opt = { PT_TORCH1, true, false };
		struct strbuf err = STRBUF_INIT;
		struct tensor t;
		pthread_t cutter;
		int rc = 0;
		snprintf(path, sizeof(path), "%s/shrink-open.pt", tmpdir);
		if (tensorw_pt(path, &src, &opt, &err) == 0 && pthread_create(&cutter, NULL, truncate_when_mapped, path) == 0) {
			rc = tensor_open(&t, path, &err);
			pthread_join(cutter, NULL);
			ok(rc == -1 && strstr(err.buf, ": the file shrank while it was read"),
			   "a deflated storage, the file truncated while it is inflated: the open fails: %s", err.buf);
			if (!rc)
				tensor_close(&t);
		}
		unlink(path);
		free(zeros);
		strbuf_release(&err);
	}

	/* the same read without a guard is not caught: it ends the process as it always did */
	{
		struct fault_case c = { .dtype = DT_FLOAT32 };
		struct tensor t;
		struct strbuf err = STRBUF_INIT;
		int status = 0;
		pid_t pid;
		snprintf(c.t_path, sizeof(c.t_path), "%s/shrink-alone.pt", tmpdir);
		write_fault_file(c.t_path, DT_FLOAT32, false, 1);
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			float buf[1024];
			if (tensor_open(&t, c.t_path, &err) || truncate(c.t_path, 4096))
				_exit(3);
			for (int64_t at = 0; at < t.numel; at += 1024)
				tensor_read_f32(&t, at, 1024, buf);
			_exit(0); /* survived: wrong */
		}
		waitpid(pid, &status, 0);
		ok(pid > 0 && !(WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 3)),
		   "outside a guard the fault is not caught (%s %d)", WIFSIGNALED(status) ? "signal" : "exit status",
		   WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		unlink(c.t_path);
		strbuf_release(&err);
	}

	/* a guard of one's own, around a read of a mapping that shrank */
	{
		char path[128];
		struct tensor_guard g;
		volatile int faulted = 0;
		unsigned char *map;
		snprintf(path, sizeof(path), "%s/shrink-map", tmpdir);
		spit(path, "0123456789", 10);
		{
			int fd = open(path, O_RDWR);
			if (fd < 0 || ftruncate(fd, 3 * 4096)) {
				ok(0, "a file of three pages");
				return;
			}
			map = mmap(NULL, 3 * 4096, PROT_READ, MAP_SHARED, fd, 0);
			if (ftruncate(fd, 4096))
				map = MAP_FAILED;
			close(fd);
		}
		if (map == MAP_FAILED) {
			ok(0, "a mapping that shrinks");
			return;
		}
		tensor_guard_begin(&g);
		if (!sigsetjmp(g.jump, 0)) {
			volatile unsigned char x = map[2 * 4096 + 5];
			(void)x;
		} else {
			faulted = 1;
		}
		tensor_guard_end(&g);
		ok(faulted && g.addr == map + 2 * 4096 + 5, "tensor_guard: the read jumps back, g.addr the byte it read");
		tensor_guard_begin(&g);
		if (!sigsetjmp(g.jump, 0))
			faulted = map[0] == '0' ? 2 : 3;
		tensor_guard_end(&g);
		ok(faulted == 2, "... and a read of what is still there reads it");
		munmap(map, 3 * 4096);
		unlink(path);
	}
}

/* A float32 .npy of bfloat16 values (as MindSpore saves them) against a bfloat16 tensor: read as bfloat16. */
static void check_match_upcast(void)
{
	/* bfloat16 1.0, -2.5, 0.15625 and a NaN: float32 whose low 16 bits are zero */
	static const uint32_t exact[4] = { 0x3f800000u, 0xc0200000u, 0x3e200000u, 0x7fc00000u };
	static const uint16_t want[4] = { 0x3f80u, 0xc020u, 0x3e20u, 0x7fc0u };
	uint32_t inexact[4] = { 0x3f800000u, 0xc0200000u, 0x3e200001u, 0x7fc00000u };
	uint16_t other[4] = { 0 };
	struct tensor a = { .dtype = DT_FLOAT32, .ndim = 2, .shape = { 2, 2 }, .stride = { 2, 1 }, .numel = 4,
			    .contiguous = true, .format = TENSOR_NPY, .fd = -1 };
	struct tensor b = { .dtype = DT_BFLOAT16, .ndim = 2, .shape = { 2, 2 }, .stride = { 2, 1 }, .numel = 4,
			    .contiguous = true, .format = TENSOR_PT, .data = (const unsigned char *)other, .fd = -1 };
	struct tensor c = a;

	a.data = (const unsigned char *)exact;
	ok(tensor_match_upcast(&b, &a) && a.dtype == DT_BFLOAT16 && a.contiguous && a.stride[0] == 2 &&
		   !memcmp(a.data, want, sizeof(want)) && b.dtype == DT_BFLOAT16,
	   "an exact float32 .npy against bfloat16: narrowed to the bfloat16 it holds, either argument order");
	free(a.owned);
	c.data = (const unsigned char *)inexact;
	ok(!tensor_match_upcast(&c, &b) && c.dtype == DT_FLOAT32 && c.data == (const unsigned char *)inexact,
	   "one element with low bits set: left as float32 (the files then differ)");
	c.format = TENSOR_PT;
	c.data = (const unsigned char *)exact;
	ok(!tensor_match_upcast(&c, &b) && c.dtype == DT_FLOAT32, "a float32 .pt is not MindSpore's: left alone");
}

static void remove_tmpdir(void)
{
	static const char *const names[] = { "cut", "flip", "damage", "halves.npy", "fortran.npy", "empty" };
	char path[128];
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, names[i]);
		unlink(path);
	}
	rmdir(tmpdir);
}

int main(void)
{
	static const char *const damaged[] = { "pt_float32.pt", "pt2_layout.pt", "pt_zip64.pt", "pt_deflated.pt",
					       "pt_protocol4.pt", "pt2_big_f32.pt", "pt2_v3_uint32.pt",
					       "pt2_from_type.pt", "npy_f32.npy", "npy_v3.npy" };
	const char *tests = getenv("TESTS");
	snprintf(corpus, sizeof(corpus), "%s/data/tensor", tests && *tests ? tests : "tests");
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! cannot make a temporary directory\n");
		return 2;
	}
	check_corpus();
	check_system_errors();
	check_shrinking_files();
	check_all_halves();
	check_fortran_swapped();
	check_match_upcast();
	check_atb_bin();
	for (size_t i = 0; i < ARRAY_SIZE(damaged); i++) {
		check_truncations(damaged[i]);
		check_flips(damaged[i]);
		check_random_damage(damaged[i], 300);
	}
	remove_tmpdir();
	return done_testing();
}
