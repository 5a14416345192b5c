/*
 * atbbin.c: the .bin tensor files of ATB's dumper (MindIE inference), for
 * tensor_open() (tensor.h; reference: msprobe-atb.md, ".bin files").
 *
 * A file is ASCII header lines "name=value\n" from "$Version=1.0" to
 * "$End=1", then the payload: little-endian elements, row-major.  The
 * lines read: dtype (ATB's code), dims ("a,b,..."), "$Object.data"
 * ("offset,length" of the tensor in the payload) and "$Object.Length"
 * (the payload's length); "data=<file>" makes the file an alias of a
 * tensor saved once under another name (filter_level 1), with no payload.
 */
#include "tensorio.h"
#include "../core/source.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#define ATB_MAX_HEADER 4096 /* the writer's header is about a hundred bytes */

struct atb_header {
	int dtype_code;           /* -1: no dtype line */
	int ndim;                 /* -1: no dims line */
	int64_t shape[TENSOR_MAX_DIMS];
	int64_t data_offset, data_len; /* -1: no $Object.data line */
	int64_t object_len;       /* -1: no $Object.Length line */
	const unsigned char *alias;
	size_t alias_len;         /* 0: not an alias */
	size_t payload;           /* where the payload starts in the file */
};

static bool starts_with_version(const unsigned char *f, size_t n)
{
	return n >= 9 && !memcmp(f, "$Version=", 9);
}

bool tio_atb_looks_like(const unsigned char *f, size_t n)
{
	return starts_with_version(f, n);
}

/* A non-negative decimal number filling [s, e): false when it is not one or overflows. */
static bool decimal(const unsigned char *s, const unsigned char *e, int64_t *out)
{
	int64_t v = 0;
	if (s == e)
		return false;
	for (; s < e; s++) {
		if (!isdigit(*s) || v > (INT64_MAX - (*s - '0')) / 10)
			return false;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	return true;
}

static int parse_dims(struct atb_header *h, const unsigned char *v, const unsigned char *e, const char *path,
		      struct strbuf *err)
{
	h->ndim = 0;
	while (v < e) {
		const unsigned char *c = memchr(v, ',', (size_t)(e - v));
		const unsigned char *end = c ? c : e;
		if (h->ndim == TENSOR_MAX_DIMS)
			return msg_fail(err, path, "dims has more than %d dimensions", TENSOR_MAX_DIMS);
		if (!decimal(v, end, &h->shape[h->ndim]))
			return msg_fail(err, path, "dims \"%.*s\" is not a list of sizes", (int)(e - v), (const char *)v);
		h->ndim++;
		v = c ? c + 1 : e;
		if (c && v == e)
			return msg_fail(err, path, "dims ends with a comma");
	}
	return 0;
}

static int parse_pair(const unsigned char *v, const unsigned char *e, int64_t *a, int64_t *b)
{
	const unsigned char *c = memchr(v, ',', (size_t)(e - v));
	return c && decimal(v, c, a) && decimal(c + 1, e, b) ? 0 : -1;
}

/* One "name=value" line of the header; *end set by "$End". */
static int header_line(struct atb_header *h, const unsigned char *s, const unsigned char *e, bool *end,
		       const char *path, struct strbuf *err)
{
	const unsigned char *eq = memchr(s, '=', (size_t)(e - s)), *v;
	int64_t x;
	if (!eq)
		return msg_fail(err, path, "header line \"%.*s\" has no '='", (int)(e - s), (const char *)s);
	v = eq + 1;
	if (tio_is(s, (size_t)(eq - s), "$End")) {
		*end = true;
	} else if (tio_is(s, (size_t)(eq - s), "dtype")) {
		if (!decimal(v, e, &x) || x > 1000)
			return msg_fail(err, path, "dtype \"%.*s\" is not a number", (int)(e - v), (const char *)v);
		h->dtype_code = (int)x;
	} else if (tio_is(s, (size_t)(eq - s), "dims")) {
		return parse_dims(h, v, e, path, err);
	} else if (tio_is(s, (size_t)(eq - s), "$Object.data")) {
		if (parse_pair(v, e, &h->data_offset, &h->data_len) < 0)
			return msg_fail(err, path, "$Object.data \"%.*s\" is not \"offset,length\"", (int)(e - v),
					(const char *)v);
	} else if (tio_is(s, (size_t)(eq - s), "$Object.Length")) {
		if (!decimal(v, e, &h->object_len))
			return msg_fail(err, path, "$Object.Length \"%.*s\" is not a number", (int)(e - v), (const char *)v);
	} else if (tio_is(s, (size_t)(eq - s), "data")) {
		h->alias = v;
		h->alias_len = (size_t)(e - v);
	}
	return 0;
}

static int read_header(struct atb_header *h, const unsigned char *f, size_t size, const char *path,
		       struct strbuf *err)
{
	size_t limit = size < ATB_MAX_HEADER ? size : ATB_MAX_HEADER, pos = 0;
	bool end = false;
	memset(h, 0, sizeof(*h));
	h->dtype_code = h->ndim = -1;
	h->data_offset = h->data_len = h->object_len = -1;
	while (!end) {
		const unsigned char *s = f + pos, *nl = memchr(s, '\n', limit - pos);
		if (!nl)
			return msg_fail(err, path, "the ATB header has no \"$End=1\" line in its first %zu bytes", limit);
		if (header_line(h, s, nl, &end, path, err) < 0)
			return -1;
		pos = (size_t)(nl - f) + 1;
	}
	h->payload = pos;
	return 0;
}

int tio_atb_dtype(int code, enum dtype *out)
{
	switch (code) {
	case 0: *out = DT_FLOAT32; return 0;
	case 1: *out = DT_FLOAT16; return 0;
	case 2: *out = DT_INT8; return 0;
	case 3: *out = DT_INT32; return 0;
	case 9: *out = DT_INT64; return 0;
	case 12: *out = DT_BOOL; return 0;
	case 27: *out = DT_BFLOAT16; return 0;
	default: return -1;
	}
}

int tio_atb_alias(const unsigned char *f, size_t size, const char *path, struct strbuf *alias, struct strbuf *err)
{
	struct atb_header h;
	if (read_header(&h, f, size, path, err) < 0)
		return -1;
	if (!h.alias_len)
		return 0;
	strbuf_add(alias, h.alias, h.alias_len);
	return 1;
}

int tio_atb_open(struct tensor *t, const char *path, struct strbuf *err)
{
	const unsigned char *f = t->map;
	struct atb_header h;
	int64_t need, end;

	if (read_header(&h, f, t->map_len, path, err) < 0)
		return -1;
	if (h.alias_len)
		return msg_fail(err, path, "an alias of %.*s (data=, filter_level 1): it holds no tensor of its own",
				(int)h.alias_len, (const char *)h.alias);
	if (h.dtype_code < 0 || h.ndim < 0 || h.data_offset < 0)
		return msg_fail(err, path, "the ATB header has no %s line",
				h.dtype_code < 0 ? "dtype" : h.ndim < 0 ? "dims" : "$Object.data");
	if (tio_atb_dtype(h.dtype_code, &t->dtype) < 0)
		return msg_fail(err, path, "ATB dtype %d is not one probe reads (0, 1, 2, 3, 9, 12, 27)", h.dtype_code);
	t->ndim = h.ndim;
	memcpy(t->shape, h.shape, sizeof(int64_t) * (size_t)h.ndim);
	if (tio_dense_strides(t, false))
		return msg_fail(err, path, "the dims hold more than 2^63 elements");
	if (tio_check_view(t, path, err, 0, INT64_MAX, &end))
		return -1;
	if (!mul_ok(t->numel, dtype_info(t->dtype)->size, &need))
		return msg_fail(err, path, "the tensor's size in bytes overflows 64 bits");
	if (h.data_len != need)
		return msg_fail(err, path, "$Object.data says %lld bytes, dims and dtype make %lld", (long long)h.data_len,
				(long long)need);
	/* every sum checked: the header's numbers are anything up to 2^63 - 1 */
	if (h.data_len > INT64_MAX - h.data_offset)
		return msg_fail(err, path, "$Object.data=%lld,%lld: offset + length overflows 64 bits",
				(long long)h.data_offset, (long long)h.data_len);
	if (h.object_len >= 0 && h.data_offset + h.data_len > h.object_len)
		return msg_fail(err, path, "$Object.data reaches beyond $Object.Length (%lld)", (long long)h.object_len);
	if ((uint64_t)h.data_offset > t->map_len - h.payload || (uint64_t)need > t->map_len - h.payload - (size_t)h.data_offset)
		return msg_fail(err, path, "the header says %lld bytes of data at %lld, the file holds %zu after its header",
				(long long)need, (long long)h.data_offset, t->map_len - h.payload);
	f += h.payload + (size_t)h.data_offset;
	/* in place, aligned or not (tensor.h): the header's length is anything, and a copy costs a pass */
	t->data = t->numel ? f : NULL;
	t->format = TENSOR_ATB;
	t->swapped = host_is_big_endian() && dtype_info(t->dtype)->size > 1;
	return 0;
}

int tensor_atb_alias(const char *path, struct strbuf *alias, struct strbuf *err)
{
	unsigned char buf[ATB_MAX_HEADER];
	size_t got;
	FILE *f = source_fopen_regular(path, err);
	if (!f)
		return -1;
	got = fread(buf, 1, sizeof(buf), f);
	if (ferror(f)) {
		fclose(f);
		return msg_fail(err, path, "cannot read: %s", strerror(errno));
	}
	fclose(f);
	if (!tio_atb_looks_like(buf, got))
		return 0;
	return tio_atb_alias(buf, got, path, alias, err);
}
