/* npy.c: a numpy .npy file, its header read as the Python literal it is (tensorio.h). */
#include "tensorio.h"

/* The header: a Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } */
struct npy_lit {
	const char *path;
	struct strbuf *err;
	const unsigned char *start, *p, *end;
};

static int npy_fail(struct npy_lit *l, const char *what)
{
	return msg_fail(l->err, l->path, "bad .npy header at byte %zu: %s", (size_t)(l->p - l->start), what);
}

static void npy_space(struct npy_lit *l)
{
	while (l->p < l->end && (*l->p == ' ' || *l->p == '\t' || *l->p == '\n' || *l->p == '\r'))
		l->p++;
}

static bool npy_eat(struct npy_lit *l, char c)
{
	npy_space(l);
	if (l->p < l->end && *l->p == (unsigned char)c) {
		l->p++;
		return true;
	}
	return false;
}

static int npy_string(struct npy_lit *l, const unsigned char **s, size_t *n)
{
	unsigned char q;
	const unsigned char *close;
	npy_space(l);
	if (l->p >= l->end || (*l->p != '\'' && *l->p != '"'))
		return npy_fail(l, "expected a string");
	q = *l->p++;
	close = memchr(l->p, q, (size_t)(l->end - l->p));
	if (!close)
		return npy_fail(l, "unterminated string");
	if (memchr(l->p, '\\', (size_t)(close - l->p)))
		return npy_fail(l, "escapes in strings are not supported");
	*s = l->p;
	*n = (size_t)(close - l->p);
	l->p = close + 1;
	return 0;
}

static int npy_bool(struct npy_lit *l, bool *b)
{
	npy_space(l);
	if ((size_t)(l->end - l->p) >= 4 && !memcmp(l->p, "True", 4)) {
		*b = true;
		l->p += 4;
	} else if ((size_t)(l->end - l->p) >= 5 && !memcmp(l->p, "False", 5)) {
		*b = false;
		l->p += 5;
	} else {
		return npy_fail(l, "fortran_order is not True or False");
	}
	return 0;
}

static int npy_shape(struct npy_lit *l, struct tensor *t)
{
	if (!npy_eat(l, '('))
		return npy_fail(l, "the shape is not a tuple");
	t->ndim = 0;
	while (!npy_eat(l, ')')) {
		int64_t v = 0;
		if (l->p >= l->end || *l->p < '0' || *l->p > '9')
			return npy_fail(l, "the shape holds something other than non-negative integers");
		while (l->p < l->end && *l->p >= '0' && *l->p <= '9') {
			if (!mul_ok(v, 10, &v) || !add_ok(v, *l->p - '0', &v))
				return npy_fail(l, "a dimension overflows 64 bits");
			l->p++;
		}
		if (l->p < l->end && *l->p == 'L') /* Python 2 long */
			l->p++;
		if (t->ndim >= TENSOR_MAX_DIMS)
			return npy_fail(l, "more than 64 dimensions");
		t->shape[t->ndim++] = v;
		if (!npy_eat(l, ',')) {
			if (!npy_eat(l, ')'))
				return npy_fail(l, "expected ',' or ')' in the shape");
			break;
		}
	}
	return 0;
}

/* Explain a descr dtype_from_npy does not know. */
static int npy_refuse_descr(struct npy_lit *l, const unsigned char *d, size_t n)
{
	size_t k = n && d[0] && strchr("<>|=", d[0]) ? 1 : 0;
	const char *kind = "unsupported dtype";
	if (k < n) {
		if (d[k] == 'O')
			kind = "object arrays are not supported";
		else if (d[k] == 'U' || d[k] == 'S' || d[k] == 'a')
			kind = "string arrays are not supported";
		else if (d[k] == 'V')
			kind = "void arrays are not supported";
		else if (d[k] == 'M' || d[k] == 'm')
			kind = "datetime arrays are not supported";
	}
	return msg_fail(l->err, l->path, "%s (descr '%.*s')", kind, (int)n, (const char *)d);
}

static int npy_header(struct npy_lit *l, struct tensor *t, bool *fortran, bool *big)
{
	bool seen_descr = false, seen_fortran = false, seen_shape = false;
	if (!npy_eat(l, '{'))
		return npy_fail(l, "not a dict");
	while (!npy_eat(l, '}')) {
		const unsigned char *key;
		size_t klen;
		if (npy_string(l, &key, &klen))
			return -1;
		if (!npy_eat(l, ':'))
			return npy_fail(l, "expected ':'");
		if (tio_is(key, klen, "descr") && !seen_descr) {
			const unsigned char *d;
			size_t dlen;
			int dt;
			seen_descr = true;
			npy_space(l);
			if (l->p < l->end && *l->p == '[')
				return msg_fail(l->err, l->path, "structured arrays are not supported");
			if (npy_string(l, &d, &dlen))
				return -1;
			if ((dt = dtype_from_npy((const char *)d, dlen, big)) < 0)
				return npy_refuse_descr(l, d, dlen);
			t->dtype = (enum dtype)dt;
		} else if (tio_is(key, klen, "fortran_order") && !seen_fortran) {
			seen_fortran = true;
			if (npy_bool(l, fortran))
				return -1;
		} else if (tio_is(key, klen, "shape") && !seen_shape) {
			seen_shape = true;
			if (npy_shape(l, t))
				return -1;
		} else {
			return msg_fail(l->err, l->path, "bad .npy header: unexpected or repeated key '%.*s'", (int)klen,
				    (const char *)key);
		}
		if (!npy_eat(l, ',')) {
			if (!npy_eat(l, '}'))
				return npy_fail(l, "expected ',' or '}'");
			break;
		}
	}
	npy_space(l);
	if (l->p != l->end)
		return npy_fail(l, "text after the dict");
	if (!seen_descr || !seen_fortran || !seen_shape)
		return msg_fail(l->err, l->path, "bad .npy header: it lacks '%s'",
			    !seen_descr ? "descr" : !seen_fortran ? "fortran_order" : "shape");
	return 0;
}

int tio_npy_open(struct tensor *t, const char *path, struct strbuf *err)
{
	const unsigned char *f = t->map;
	size_t size = t->map_len, hstart;
	uint64_t hlen;
	struct npy_lit l;
	bool fortran = false, big = false;
	int64_t end, need;

	if (size < 10)
		return msg_fail(err, path, "truncated .npy file: %zu bytes", size);
	if (f[6] == 1 && f[7] == 0) {
		hlen = get16(f + 8);
		hstart = 10;
	} else if ((f[6] == 2 || f[6] == 3) && f[7] == 0) {
		if (size < 12)
			return msg_fail(err, path, "truncated .npy file: %zu bytes", size);
		hlen = get32(f + 8);
		hstart = 12;
	} else {
		return msg_fail(err, path, ".npy format version %u.%u is not supported", f[6], f[7]);
	}
	if (hlen > size - hstart)
		return msg_fail(err, path, "the .npy header claims %llu bytes but the file holds %zu after the preamble",
			    (unsigned long long)hlen, size - hstart);
	l.path = path;
	l.err = err;
	l.start = l.p = f + hstart;
	l.end = l.p + hlen;
	if (npy_header(&l, t, &fortran, &big))
		return -1;
	if (tio_dense_strides(t, fortran))
		return msg_fail(err, path, "the shape holds more than 2^63 elements");
	if (tio_check_view(t, path, err, 0, INT64_MAX, &end))
		return -1;
	if (!mul_ok(t->numel, dtype_info(t->dtype)->size, &need))
		return msg_fail(err, path, "the array's size in bytes overflows 64 bits");
	if ((uint64_t)need > size - hstart - hlen)
		return msg_fail(err, path, "the header says %lld elements but the file holds %zu bytes of data",
			    (long long)t->numel, size - hstart - (size_t)hlen);
	f += hstart + hlen;
	if (tio_align_storage(t, &f, need, path, err))
		return -1;
	t->data = t->numel ? f : NULL;
	t->format = TENSOR_NPY;
	t->swapped = big != host_is_big_endian() && dtype_info(t->dtype)->size > 1;
	return 0;
}

