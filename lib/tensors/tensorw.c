/*
 * tensorw.c: torch.save and numpy.save, for one tensor.
 *
 * .pt: the zip archive torch's PyTorchStreamWriter (miniz) writes, byte
 * for byte where we know torch's bytes: every entry stored with a data
 * descriptor (flags 0x0808, no time stamp), its data aligned to 64 bytes
 * by a "FB" extra field of 'Z's, zip64 extra fields only where a size or
 * an offset reaches 0xFFFFFFFF, and always the zip64 end records.  The
 * pickle is the protocol-2 program torch's pickler emits (see
 * tests/unit/test_tensorw.c for torch 1.13's bytes).
 *
 * .npy: numpy's format 1.0/2.0/3.0 header, padded as numpy 1.24 pads it.
 *
 * Both write to a temporary name beside the target and rename it at the
 * end, so that a failure leaves no half-written file under the name.
 */
#include "tensorw.h"
#include "tensor.h"
#include "../core/msg.h"
#include "../core/partial.h"
#include "../core/xalloc.h"

#include <fcntl.h>
#include <inttypes.h>
#include <unistd.h>
#include <zlib.h>

#define MAX_DIMS 64               /* tensor.h's TENSOR_MAX_DIMS: what the reader accepts */
#define CHUNK (1u << 20)          /* bytes per write, crc32 and deflate call */
#define ZIP_ALIGN 64              /* torch's kFieldAlignment */
#define ZIP32_LIMIT 0xFFFFFFFFu   /* miniz turns to zip64 at this value, not above it */

/* ------------------------------------------------------------------ */
/* The view: checked once, shared by both formats */

struct view {
	const struct tensor_src *t;
	const struct dtype_info *info;
	int64_t stride[MAX_DIMS];
	int64_t numel;
	uint64_t storage_bytes;
};

static bool mul_overflows(int64_t a, int64_t b, int64_t *out)
{
	if (a && b > INT64_MAX / a)
		return true;
	*out = a * b;
	return false;
}

/* torch's contiguous strides: a dimension of size 0 counts as 1, so that (0, 4) gets (4, 1). */
static void contiguous_strides(const struct tensor_src *t, int64_t *stride)
{
	int64_t s = 1;
	for (int i = t->ndim - 1; i >= 0; i--) {
		stride[i] = s;
		s *= t->shape[i] > 1 ? t->shape[i] : 1;
	}
}

/*
 * msg_fail(), with its -1 in sight: msg_fail() is defined in another file, so the
 * static analyzer would follow paths where it returned 0 and view_check() let an
 * unchecked view (no info, too many dimensions) through to the writers.
 */
#define VIEW_FAIL(...) (msg_fail(__VA_ARGS__), -1)

static int view_check(struct view *v, const char *path, const struct tensor_src *t, struct strbuf *err)
{
	int64_t last = t->offset, bytes;

	*v = (struct view){ .t = t, .numel = 1 };
	if ((unsigned)t->dtype >= DT_COUNT)
		return VIEW_FAIL(err, path, "unknown element type %d", (int)t->dtype);
	v->info = dtype_info(t->dtype);
	if (t->ndim < 0 || t->ndim > MAX_DIMS)
		return VIEW_FAIL(err, path, "%d dimensions (at most %d)", t->ndim, MAX_DIMS);
	if (t->ndim && !t->shape)
		return VIEW_FAIL(err, path, "no shape for %d dimensions", t->ndim);
	if (t->storage_numel < 0 || t->offset < 0)
		return VIEW_FAIL(err, path, "negative storage size or offset");
	if (t->storage_numel && !t->storage)
		return VIEW_FAIL(err, path, "no storage");
	for (int i = 0; i < t->ndim; i++)
		if (t->shape[i] < 0 || (t->stride && t->stride[i] < 0))
			return VIEW_FAIL(err, path, "negative size or stride in dimension %d", i);
	if (t->stride)
		memcpy(v->stride, t->stride, (size_t)t->ndim * sizeof(*v->stride));
	else
		contiguous_strides(t, v->stride);
	for (int i = 0; i < t->ndim; i++)
		if (mul_overflows(v->numel, t->shape[i], &v->numel))
			return VIEW_FAIL(err, path, "the shape's element count overflows");
	for (int i = 0; v->numel && i < t->ndim; i++) {
		int64_t reach;
		if (mul_overflows(t->shape[i] - 1, v->stride[i], &reach) || last > INT64_MAX - reach)
			return VIEW_FAIL(err, path, "the view's extent overflows");
		last += reach;
	}
	if (v->numel && last >= t->storage_numel)
		return VIEW_FAIL(err, path, "the view reaches element %" PRId64 " of a storage of %" PRId64, last,
			     t->storage_numel);
	if (mul_overflows(t->storage_numel, v->info->size, &bytes))
		return VIEW_FAIL(err, path, "the storage's size overflows");
	v->storage_bytes = (uint64_t)bytes;
	return 0;
}

static bool host_is_big_endian(void)
{
	const uint16_t one = 1;
	unsigned char first;
	memcpy(&first, &one, 1);
	return first == 0;
}

/* ------------------------------------------------------------------ */
/* The output file: a temporary name, renamed at the end */

struct out {
	const char *path;
	struct strbuf tmp;
	struct partial *part;   /* removed on failure, exit or a signal until renamed */
	int fd;
	uint64_t pos;
	struct strbuf *err;
};

/*
 * A temporary name beside path that nobody can predict, created with O_EXCL
 * and O_NOFOLLOW (partial.h), rather than mkstemp, so that the file gets the
 * mode torch.save's would (0666 minus umask).
 */
static int out_open(struct out *o, const char *path, struct strbuf *err)
{
	*o = (struct out){ .path = path, .tmp = STRBUF_INIT, .fd = -1, .err = err };
	o->fd = partial_create(path, &o->part, err);
	if (o->fd < 0) {
		strbuf_release(&o->tmp);
		return -1;
	}
	strbuf_addstr(&o->tmp, partial_tmp_name(o->part));
	return 0;
}

static int out_write(struct out *o, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		ssize_t n = write(o->fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return msg_fail(o->err, o->path, "cannot write: %s", n < 0 ? strerror(errno) : "no progress");
		p += n;
		len -= (size_t)n;
		o->pos += (uint64_t)n;
	}
	return 0;
}

/* Keep the file (ok) or remove the temporary; either way release o. */
static int out_finish(struct out *o, bool ok)
{
	if (o->fd >= 0 && close(o->fd) < 0 && ok) {
		msg_fail(o->err, o->path, "cannot write: %s", strerror(errno));
		ok = false;
	}
	if (ok && partial_commit(o->part, o->err) < 0)
		ok = false;
	if (!ok)
		partial_drop(o->part);
	strbuf_release(&o->tmp);
	return ok ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* Little-endian fields */

static void put16(struct strbuf *sb, unsigned v)
{
	strbuf_addch(sb, (char)(v & 0xFF));
	strbuf_addch(sb, (char)((v >> 8) & 0xFF));
}

static void put32(struct strbuf *sb, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		strbuf_addch(sb, (char)((v >> (8 * i)) & 0xFF));
}

static void put64(struct strbuf *sb, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		strbuf_addch(sb, (char)((v >> (8 * i)) & 0xFF));
}

static uint32_t clamp32(uint64_t v)
{
	return v >= ZIP32_LIMIT ? ZIP32_LIMIT : (uint32_t)v;
}

/* ------------------------------------------------------------------ */
/* The pickle: torch's protocol-2 program for one tensor */

struct pickle {
	struct strbuf *out;
	unsigned memo;   /* the pickler memoizes every global, string and non-empty tuple, numbering from 0 */
};

static void pkl_memoize(struct pickle *p)
{
	if (p->memo < 256) {
		strbuf_addch(p->out, 'q'); /* BINPUT */
		strbuf_addch(p->out, (char)p->memo);
	} else {
		strbuf_addch(p->out, 'r'); /* LONG_BINPUT */
		put32(p->out, p->memo);
	}
	p->memo++;
}

static void pkl_global(struct pickle *p, const char *module, const char *name)
{
	strbuf_addf(p->out, "c%s\n%s\n", module, name);
	pkl_memoize(p);
}

static void pkl_string(struct pickle *p, const char *s)
{
	strbuf_addch(p->out, 'X'); /* BINUNICODE */
	put32(p->out, (uint32_t)strlen(s));
	strbuf_addstr(p->out, s);
	pkl_memoize(p);
}

/* The smallest of BININT1, BININT2, BININT, LONG1 that holds v, as Python's save_long picks. */
static void pkl_int(struct pickle *p, int64_t v)
{
	if (v >= 0 && v <= 0xFF) {
		strbuf_addch(p->out, 'K');
		strbuf_addch(p->out, (char)v);
	} else if (v >= 0 && v <= 0xFFFF) {
		strbuf_addch(p->out, 'M');
		put16(p->out, (unsigned)v);
	} else if (v >= INT32_MIN && v <= INT32_MAX) {
		strbuf_addch(p->out, 'J');
		put32(p->out, (uint32_t)v);
	} else {
		/* two's complement, (bit length / 8) + 1 bytes: a positive value keeps a clear sign bit */
		uint64_t u = (uint64_t)v;
		int bits = 64, n;
		if (v >= 0)
			while (bits > 1 && !(u >> (bits - 1)))
				bits--;
		n = v >= 0 ? bits / 8 + 1 : 8;
		strbuf_addch(p->out, (char)0x8A);
		strbuf_addch(p->out, (char)n);
		for (int i = 0; i < n; i++)
			strbuf_addch(p->out, (char)(i < 8 ? (u >> (8 * i)) & 0xFF : 0));
	}
}

static void pkl_bool(struct pickle *p, bool b)
{
	strbuf_addch(p->out, b ? (char)0x88 : (char)0x89); /* NEWTRUE, NEWFALSE */
}

/* A tuple of ints: TUPLE1..3 up to three items, MARK ... TUPLE beyond; () is not memoized. */
static void pkl_int_tuple(struct pickle *p, const int64_t *v, int n)
{
	if (!n) {
		strbuf_addch(p->out, ')'); /* EMPTY_TUPLE */
		return;
	}
	if (n > 3)
		strbuf_addch(p->out, '(');
	for (int i = 0; i < n; i++)
		pkl_int(p, v[i]);
	strbuf_addch(p->out, n > 3 ? 't' : (char)(0x84 + n));
	pkl_memoize(p);
}

/* Float8 (and the unsigned types torch added in 2.3) have no legacy typed storage: torch 2.x
 * pickles them as an untyped storage of bytes and passes the dtype to _rebuild_tensor_v3. */
static bool pickled_untyped(enum dtype d)
{
	return d == DT_FLOAT8_E4M3FN || d == DT_FLOAT8_E5M2 || !dtype_info(d)->storage;
}

/*
 * torch._utils._rebuild_tensor_v2(persistent_load(('storage', torch.<X>Storage, '0', 'cpu', numel)),
 * offset, size, stride, requires_grad, OrderedDict()), optionally inside
 * torch._utils._rebuild_parameter(tensor, requires_grad, OrderedDict()).
 */
static void pickle_tensor(struct strbuf *out, const struct view *v, bool parameter)
{
	struct pickle p = { .out = out };
	const struct tensor_src *t = v->t;
	bool untyped = pickled_untyped(t->dtype);
	unsigned ordered_dict;

	strbuf_add(out, "\x80\x02", 2); /* PROTO 2 */
	if (parameter)
		pkl_global(&p, "torch._utils", "_rebuild_parameter");
	pkl_global(&p, "torch._utils", untyped ? "_rebuild_tensor_v3" : "_rebuild_tensor_v2");
	strbuf_addch(out, '(');
	strbuf_addch(out, '(');
	pkl_string(&p, "storage");
	pkl_global(&p, "torch", untyped ? "UntypedStorage" : v->info->storage);
	pkl_string(&p, "0");
	pkl_string(&p, "cpu");
	pkl_int(&p, untyped ? (int64_t)v->storage_bytes : t->storage_numel);
	strbuf_addch(out, 't');
	pkl_memoize(&p);
	strbuf_addch(out, 'Q'); /* BINPERSID */
	pkl_int(&p, t->offset);
	pkl_int_tuple(&p, t->shape, t->ndim);
	pkl_int_tuple(&p, v->stride, t->ndim);
	pkl_bool(&p, parameter ? false : t->requires_grad); /* a Parameter pickles its detached data */
	ordered_dict = p.memo;
	pkl_global(&p, "collections", "OrderedDict");
	strbuf_add(out, ")R", 2);
	pkl_memoize(&p);
	if (untyped)
		pkl_global(&p, "torch", v->info->name);
	strbuf_addch(out, 't');
	pkl_memoize(&p);
	strbuf_addch(out, 'R');
	pkl_memoize(&p);
	if (parameter) {
		pkl_bool(&p, t->requires_grad);
		strbuf_addch(out, 'h'); /* BINGET: the OrderedDict class again */
		strbuf_addch(out, (char)ordered_dict);
		strbuf_add(out, ")R", 2);
		pkl_memoize(&p);
		strbuf_addch(out, (char)0x87); /* TUPLE3 */
		pkl_memoize(&p);
		strbuf_addch(out, 'R');
		pkl_memoize(&p);
	}
	strbuf_addch(out, '.');
}

/* ------------------------------------------------------------------ */
/* The zip archive */

struct zip_entry {
	char *name;
	uint64_t offset, comp, uncomp;
	uint32_t crc;
	bool deflated;
	bool descriptor; /* miniz writes none for an empty entry, and then clears flag bit 3 */
};

struct zip {
	struct out *o;
	struct zip_entry *entry;
	int n;
	size_t alloc;
	uint64_t crc_hash;    /* torch's combined_uncomp_crc32_ */
	uint64_t name_hash;
	unsigned char *scratch;
	struct strbuf hdr;
};

/* c10::hash_combine, with which torch folds the entries' CRCs into the serialization id. */
static uint64_t hash_combine(uint64_t seed, uint64_t value)
{
	return seed ^ (value + 0x9e3779b9u + (seed << 6) + (seed >> 2));
}

static uint64_t fnv1a(const char *s)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
	return h;
}

/*
 * A source of entry bytes: memory, or a fill function that makes them a
 * piece at a time (fill, ctx: data unused), optionally swapped element by
 * element into little-endian on a big-endian machine.
 */
struct bytes {
	const unsigned char *data;
	uint64_t len;
	enum dtype swap_as;   /* DT_COUNT: copy as they are */
	tensorw_fill_fn *fill;
	void *ctx;
};

/* The next piece of b at pos, in little-endian order (scratch holds it when swapped or filled). */
static const unsigned char *bytes_piece(const struct bytes *b, uint64_t pos, size_t *len, unsigned char *scratch)
{
	uint64_t left = b->len - pos;
	*len = left < CHUNK ? (size_t)left : CHUNK;
	if (b->fill)
		b->fill(b->ctx, pos, scratch, *len);
	if (b->swap_as == DT_COUNT)
		return b->fill ? scratch : b->data + pos;
	if (!b->fill)
		memcpy(scratch, b->data + pos, *len);
	dtype_swap(scratch, *len / dtype_info(b->swap_as)->size, b->swap_as);
	return scratch;
}

/* Whether the entry's local header gets a zip64 extra field, as miniz decides. */
static bool zip64_size(uint64_t size)
{
	return size >= ZIP32_LIMIT;
}

/* The local header, its zip64 field, and the "FB" padding that puts the data on a 64-byte boundary. */
static void local_header(struct strbuf *h, const struct zip_entry *e, bool big)
{
	const char *name = e->name;
	uint64_t offset = e->offset, size = e->uncomp;
	bool deflated = e->deflated;
	size_t name_len = strlen(name), start, pad;
	bool far = offset >= ZIP32_LIMIT;
	size_t z64 = big || far ? 4 + (big ? 16 : 0) + (far ? 8 : 0) : 0;

	start = (size_t)(offset % ZIP_ALIGN) + 30 + name_len + z64 + 4;
	pad = (ZIP_ALIGN - start % ZIP_ALIGN) % ZIP_ALIGN;
	put32(h, 0x04034b50);
	put16(h, deflated ? 20 : 0);   /* version needed: miniz writes 0 for stored entries */
	put16(h, e->descriptor ? 0x0808 : 0x0800); /* UTF-8 names; sizes in a data descriptor */
	put16(h, deflated ? 8 : 0);
	put16(h, 0);                   /* time */
	put16(h, 0);                   /* date */
	put32(h, 0);                   /* crc, sizes: in the descriptor */
	put32(h, 0);
	put32(h, 0);
	put16(h, (unsigned)name_len);
	put16(h, (unsigned)(z64 + 4 + pad));
	strbuf_addstr(h, name);
	if (z64) {
		put16(h, 0x0001);
		put16(h, (unsigned)(z64 - 4));
		if (big) {
			put64(h, size); /* the uncompressed size, and 0 for the compressed one: not known yet */
			put64(h, 0);
		}
		if (far)
			put64(h, offset);
	}
	strbuf_add(h, "FB", 2);
	put16(h, (unsigned)pad);
	for (size_t i = 0; i < pad; i++)
		strbuf_addch(h, 'Z');
}

static void data_descriptor(struct strbuf *h, const struct zip_entry *e, bool wide)
{
	put32(h, 0x08074b50);
	put32(h, e->crc);
	if (wide) {
		put64(h, e->comp);
		put64(h, e->uncomp);
	} else {
		put32(h, (uint32_t)e->comp);
		put32(h, (uint32_t)e->uncomp);
	}
}

static int zip_write_stored(struct zip *z, const struct bytes *b, struct zip_entry *e)
{
	uLong crc = crc32(0L, Z_NULL, 0);
	for (uint64_t pos = 0; pos < b->len;) {
		size_t len;
		const unsigned char *piece = bytes_piece(b, pos, &len, z->scratch);
		crc = crc32(crc, piece, (uInt)len);
		if (out_write(z->o, piece, len) < 0)
			return -1;
		pos += len;
	}
	e->crc = (uint32_t)crc;
	e->comp = b->len;
	return 0;
}

static int zip_deflate_piece(struct zip *z, z_stream *zs, const unsigned char *in, size_t len, int flush,
			     unsigned char *outbuf, uint64_t *comp)
{
	zs->next_in = (Bytef *)(uintptr_t)in;
	zs->avail_in = (uInt)len;
	do {
		zs->next_out = outbuf;
		zs->avail_out = CHUNK;
		if (deflate(zs, flush) == Z_STREAM_ERROR)
			return msg_fail(z->o->err, z->o->path, "cannot deflate");
		size_t have = CHUNK - zs->avail_out;
		if (out_write(z->o, outbuf, have) < 0)
			return -1;
		*comp += have;
	} while (zs->avail_out == 0);
	return 0;
}

/* Raw deflate (no zlib header), as zip method 8 wants it. */
static int zip_write_deflated(struct zip *z, const struct bytes *b, struct zip_entry *e)
{
	z_stream zs = { 0 };
	unsigned char *outbuf = xmalloc(CHUNK);
	uLong crc = crc32(0L, Z_NULL, 0);
	int ret = 0;
	uint64_t pos = 0;

	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(outbuf);
		return msg_fail(z->o->err, z->o->path, "cannot start deflating");
	}
	e->comp = 0;
	do {
		size_t len = 0;
		const unsigned char *piece = b->len ? bytes_piece(b, pos, &len, z->scratch) : NULL;
		pos += len;
		crc = crc32(crc, piece, (uInt)len);
		ret = zip_deflate_piece(z, &zs, piece, len, pos == b->len ? Z_FINISH : Z_NO_FLUSH, outbuf, &e->comp);
	} while (!ret && pos < b->len);
	deflateEnd(&zs);
	free(outbuf);
	e->crc = (uint32_t)crc;
	return ret;
}

/* One entry: header, data, descriptor; remembered for the central directory. */
static int zip_add(struct zip *z, const char *stem, const char *name, const struct bytes *b, bool deflated)
{
	struct zip_entry *e;
	struct strbuf full = STRBUF_INIT;
	bool big, wide;

	ALLOC_GROW(z->entry, (size_t)z->n + 1, z->alloc);
	e = &z->entry[z->n++];
	strbuf_addf(&full, "%s/%s", stem, name);
	deflated = deflated && b->len;
	/* a deflated entry may come out a little larger than it went in */
	big = zip64_size(deflated ? b->len + b->len / 1000 + 1024 : b->len);
	*e = (struct zip_entry){ .name = strbuf_detach(&full, NULL), .offset = z->o->pos, .uncomp = b->len,
				 .deflated = deflated, .descriptor = b->len > 0 };
	wide = big || e->offset >= ZIP32_LIMIT; /* miniz: 8-byte descriptor sizes whenever there is a zip64 field */
	z->name_hash = hash_combine(z->name_hash, fnv1a(name));
	strbuf_reset(&z->hdr);
	local_header(&z->hdr, e, big);
	if (out_write(z->o, z->hdr.buf, z->hdr.len) < 0)
		return -1;
	if ((deflated ? zip_write_deflated : zip_write_stored)(z, b, e) < 0)
		return -1;
	if (!wide && e->comp >= ZIP32_LIMIT)
		return msg_fail(z->o->err, z->o->path, "deflated entry %s grew beyond 4 GiB", e->name);
	if (!e->descriptor)
		return 0;
	strbuf_reset(&z->hdr);
	data_descriptor(&z->hdr, e, wide);
	/* torch folds in the CRC of every descriptor it writes (the id's second half) */
	z->crc_hash = hash_combine(z->crc_hash, e->crc);
	return out_write(z->o, z->hdr.buf, z->hdr.len);
}

static int zip_add_text(struct zip *z, const char *stem, const char *name, const char *text)
{
	struct bytes b = { (const unsigned char *)text, strlen(text), DT_COUNT, NULL, NULL };
	return zip_add(z, stem, name, &b, false);
}

static void central_header(struct strbuf *h, const struct zip_entry *e)
{
	bool big = e->uncomp >= ZIP32_LIMIT || e->comp >= ZIP32_LIMIT, far = e->offset >= ZIP32_LIMIT;
	unsigned z64 = big || far ? 4 + (big ? 16 : 0) + (far ? 8 : 0) : 0;

	put32(h, 0x02014b50);
	put16(h, 0);                            /* made by */
	put16(h, e->deflated ? 20 : 0);
	put16(h, e->descriptor ? 0x0808 : 0x0800);
	put16(h, e->deflated ? 8 : 0);
	put16(h, 0);
	put16(h, 0);
	put32(h, e->crc);
	put32(h, big ? ZIP32_LIMIT : (uint32_t)e->comp);
	put32(h, big ? ZIP32_LIMIT : (uint32_t)e->uncomp);
	put16(h, (unsigned)strlen(e->name));
	put16(h, z64);
	put16(h, 0);                            /* comment */
	put16(h, 0);                            /* disk */
	put16(h, 0);                            /* internal attributes */
	put32(h, 0);                            /* external attributes */
	put32(h, clamp32(e->offset));
	strbuf_addstr(h, e->name);
	if (z64) {
		put16(h, 0x0001);
		put16(h, z64 - 4);
		if (big) {
			put64(h, e->uncomp);
			put64(h, e->comp);
		}
		if (far)
			put64(h, e->offset);
	}
}

/* The central directory, then the zip64 end record and locator (miniz writes them always), then the end record. */
static int zip_finish(struct zip *z)
{
	uint64_t cd_offset = z->o->pos, cd_size, z64_end;

	strbuf_reset(&z->hdr);
	for (int i = 0; i < z->n; i++)
		central_header(&z->hdr, &z->entry[i]);
	cd_size = z->hdr.len;
	z64_end = cd_offset + cd_size;
	put32(&z->hdr, 0x06064b50);
	put64(&z->hdr, 44);
	put16(&z->hdr, 0x031e);                 /* made by: unix, spec 3.0 */
	put16(&z->hdr, 45);                     /* needed: zip64 */
	put32(&z->hdr, 0);
	put32(&z->hdr, 0);
	put64(&z->hdr, (uint64_t)z->n);
	put64(&z->hdr, (uint64_t)z->n);
	put64(&z->hdr, cd_size);
	put64(&z->hdr, cd_offset);
	put32(&z->hdr, 0x07064b50);
	put32(&z->hdr, 0);
	put64(&z->hdr, z64_end);
	put32(&z->hdr, 1);
	put32(&z->hdr, 0x06054b50);
	put16(&z->hdr, 0);
	put16(&z->hdr, 0);
	put16(&z->hdr, z->n < 0xFFFF ? (unsigned)z->n : 0xFFFF); /* more: the zip64 record holds the count */
	put16(&z->hdr, z->n < 0xFFFF ? (unsigned)z->n : 0xFFFF);
	put32(&z->hdr, clamp32(cd_size));
	put32(&z->hdr, clamp32(cd_offset));
	put16(&z->hdr, 0);
	return out_write(z->o, z->hdr.buf, z->hdr.len);
}

static void zip_release(struct zip *z)
{
	for (int i = 0; i < z->n; i++)
		free(z->entry[i].name);
	free(z->entry);
	free(z->scratch);
	strbuf_release(&z->hdr);
}

/* torch names the archive's folder after the file: its base name up to the last dot. */
static char *archive_stem(const char *path)
{
	const char *base = strrchr(path, '/'), *dot;
	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	return xmemdupz(base, dot ? (size_t)(dot - base) : strlen(base));
}

/* torch 2.x's id: 20 digits of a hash of the entry names (ours, not torch's), 20 of its hash of their CRCs. */
static void serialization_id(const struct zip *z, char out[41])
{
	snprintf(out, 41, "%020" PRIu64 "%020" PRIu64, z->name_hash, z->crc_hash);
}

static int write_pt_entries(struct zip *z, const char *stem, const struct view *v, const struct pt_options *opt)
{
	struct strbuf pkl = STRBUF_INIT;
	struct bytes storage = { v->t->storage, v->storage_bytes, host_is_big_endian() ? v->t->dtype : DT_COUNT, NULL, NULL };
	struct bytes pickle;
	char id[41];
	int ret;

	pickle_tensor(&pkl, v, opt->parameter);
	pickle = (struct bytes){ (const unsigned char *)pkl.buf, pkl.len, DT_COUNT, NULL, NULL };
	ret = zip_add(z, stem, "data.pkl", &pickle, false);
	strbuf_release(&pkl);
	if (!ret && opt->layout == PT_TORCH2)
		ret = zip_add_text(z, stem, "byteorder", "little"); /* the storage is little-endian whatever the host */
	if (!ret)
		ret = zip_add(z, stem, "data/0", &storage, opt->deflate);
	if (!ret)
		ret = zip_add_text(z, stem, "version", "3\n");
	if (!ret && opt->layout == PT_TORCH2) {
		serialization_id(z, id);
		ret = zip_add_text(z, stem, ".data/serialization_id", id);
	}
	return ret ? ret : zip_finish(z);
}

int tensorw_pt(const char *path, const struct tensor_src *t, const struct pt_options *opt, struct strbuf *err)
{
	struct view v;
	struct out o;
	struct zip z = { .o = &o, .hdr = STRBUF_INIT };
	char *stem;
	int ret;

	if (view_check(&v, path, t, err) < 0)
		return -1;
	stem = archive_stem(path);
	if (!*stem) {
		free(stem);
		return msg_fail(err, path, "no file name to name the archive after");
	}
	if (out_open(&o, path, err) < 0) {
		free(stem);
		return -1;
	}
	z.scratch = xmalloc(CHUNK);
	ret = write_pt_entries(&z, stem, &v, opt);
	zip_release(&z);
	free(stem);
	return out_finish(&o, ret == 0);
}

/* ------------------------------------------------------------------ */
/* .npy */

/* numpy's descr: '|' for one-byte types, else the byte order. */
static void npy_descr(struct strbuf *sb, const struct dtype_info *info, bool big_endian)
{
	strbuf_addch(sb, info->size == 1 ? '|' : big_endian ? '>' : '<');
	strbuf_addstr(sb, info->npy);
}

/* Python's repr of the shape tuple: "()", "(3,)", "(2, 3)". */
static void npy_shape(struct strbuf *sb, const struct tensor_src *t)
{
	strbuf_addch(sb, '(');
	for (int i = 0; i < t->ndim; i++) {
		if (i)
			strbuf_addstr(sb, ", ");
		strbuf_addi(sb, t->shape[i]);
	}
	strbuf_addstr(sb, t->ndim == 1 ? ",)" : ")");
}

/*
 * The header as numpy 1.24 writes it: the dict, spaces so that the
 * growing axis can take 21 digits, then spaces and '\n' up to a multiple
 * of 64 bytes counted from the magic (always at least one space).
 */
static int npy_header(struct strbuf *h, const char *path, const struct view *v, const struct npy_options *opt,
		      struct strbuf *err)
{
	struct strbuf dict = STRBUF_INIT, dim = STRBUF_INIT;
	const struct tensor_src *t = v->t;
	size_t len_size = opt->version == 1 ? 2 : 4, hlen, pad;

	strbuf_addstr(&dict, "{'descr': '");
	npy_descr(&dict, v->info, opt->big_endian);
	strbuf_addf(&dict, "', 'fortran_order': %s, 'shape': ", opt->fortran_order ? "True" : "False");
	npy_shape(&dict, t);
	strbuf_addstr(&dict, ", }");
	if (t->ndim) {
		strbuf_addi(&dim, t->shape[opt->fortran_order ? t->ndim - 1 : 0]);
		for (size_t i = dim.len; i < 21; i++)
			strbuf_addch(&dict, ' ');
	}
	hlen = dict.len + 1;
	pad = ZIP_ALIGN - (8 + len_size + hlen) % ZIP_ALIGN;
	if (opt->version == 1 && hlen + pad > 0xFFFF) {
		strbuf_release(&dict);
		strbuf_release(&dim);
		return msg_fail(err, path, "header too long for .npy version 1.0");
	}
	strbuf_add(h, "\x93NUMPY", 6);
	strbuf_addch(h, (char)opt->version);
	strbuf_addch(h, 0);
	if (len_size == 2)
		put16(h, (unsigned)(hlen + pad));
	else
		put32(h, (uint32_t)(hlen + pad));
	strbuf_addbuf(h, &dict);
	for (size_t i = 0; i < pad; i++)
		strbuf_addch(h, ' ');
	strbuf_addch(h, '\n');
	strbuf_release(&dict);
	strbuf_release(&dim);
	return 0;
}

/* The view's elements in C order, or in Fortran order (the first index fastest): a walk over an index counter. */
struct walk {
	int ndim;
	int64_t shape[MAX_DIMS], stride[MAX_DIMS], index[MAX_DIMS];
	int64_t at; /* storage element of the current index */
};

static void walk_init(struct walk *w, const struct view *v, bool fortran)
{
	const struct tensor_src *t = v->t;
	if (t->ndim < 0 || t->ndim > MAX_DIMS) /* view_check() refused it: the analyzer does not always follow */
		die("tensorw: a view of %d dimensions", t->ndim);
	w->ndim = t->ndim;
	w->at = t->offset;
	for (int i = 0; i < t->ndim; i++) {
		int from = fortran ? t->ndim - 1 - i : i; /* Fortran order is C order over the reversed dims */
		w->shape[i] = t->shape[from];
		w->stride[i] = v->stride[from];
		w->index[i] = 0;
	}
}

static void walk_next(struct walk *w)
{
	for (int i = w->ndim - 1; i >= 0; i--) {
		w->at += w->stride[i];
		if (++w->index[i] < w->shape[i])
			return;
		w->at -= w->stride[i] * w->shape[i];
		w->index[i] = 0;
	}
}

/* Whether the walk visits consecutive storage elements: then the data is one slice of the storage. */
static bool walk_is_slice(const struct walk *w)
{
	int64_t expect = 1;
	for (int i = w->ndim - 1; i >= 0; i--) {
		if (w->shape[i] != 1 && w->stride[i] != expect)
			return false;
		expect *= w->shape[i];
	}
	return true;
}

static int npy_write_elements(struct out *o, const struct view *v, const struct npy_options *opt)
{
	unsigned size = v->info->size;
	size_t per_chunk = CHUNK / size, n = 0;
	unsigned char *buf = xmalloc(CHUNK);
	const unsigned char *storage = v->t->storage;
	bool swap = opt->big_endian != host_is_big_endian();
	struct walk w;
	int ret = 0;

	if (!v->numel) {
		free(buf);
		return 0;
	}
	walk_init(&w, v, opt->fortran_order);
	if (walk_is_slice(&w) && !swap) {
		ret = out_write(o, storage + (size_t)w.at * size, (size_t)v->numel * size);
		free(buf);
		return ret;
	}
	for (int64_t i = 0; i < v->numel && !ret; i++) {
		memcpy(buf + n * size, storage + (size_t)w.at * size, size);
		walk_next(&w);
		if (++n == per_chunk || i + 1 == v->numel) {
			if (swap)
				dtype_swap(buf, n, v->t->dtype);
			ret = out_write(o, buf, n * size);
			n = 0;
		}
	}
	free(buf);
	return ret;
}

int tensorw_npy(const char *path, const struct tensor_src *t, const struct npy_options *opt, struct strbuf *err)
{
	struct view v;
	struct out o;
	struct strbuf header = STRBUF_INIT;
	int ret;

	if (view_check(&v, path, t, err) < 0)
		return -1;
	if (!v.info->npy)
		return msg_fail(err, path, "numpy has no %s type", v.info->name);
	if (opt->version < 1 || opt->version > 3)
		return msg_fail(err, path, "no .npy format version %d (1, 2 or 3)", opt->version);
	if (npy_header(&header, path, &v, opt, err) < 0)
		return -1;
	if (out_open(&o, path, err) < 0) {
		strbuf_release(&header);
		return -1;
	}
	ret = out_write(&o, header.buf, header.len);
	strbuf_release(&header);
	if (!ret)
		ret = npy_write_elements(&o, &v, opt);
	return out_finish(&o, ret == 0);
}

/* ------------------------------------------------------------------ */
/* An opened tensor written out (probe-export) */

/* The type the file gets: numpy has no bfloat16 or float8, float32 holds them exactly. */
static enum dtype export_dtype(enum dtype d, enum tensorw_format fmt)
{
	return fmt == TENSORW_NPY && !dtype_info(d)->npy ? DT_FLOAT32 : d;
}

/* The elements in row-major order and this machine's byte order, as type to (t's own, or float32). */
static void export_copy(const struct tensor *t, enum dtype to, void *out)
{
	if (to == t->dtype)
		tensor_read_raw(t, 0, t->numel, out);
	else
		tensor_read_f32(t, 0, t->numel, out);
}

static int export_write(const char *path, enum tensorw_format fmt, const struct tensor_src *src, struct strbuf *err)
{
	static const struct pt_options pt = { .layout = PT_TORCH2 };
	static const struct npy_options npy = { .version = 1 };
	return fmt == TENSORW_PT ? tensorw_pt(path, src, &pt, err) : tensorw_npy(path, src, &npy, err);
}

int tensorw_export(const struct tensor *t, const char *path, enum tensorw_format fmt, enum dtype *written,
		   struct strbuf *err)
{
	enum dtype to = export_dtype(t->dtype, fmt);
	bool in_place = to == t->dtype && t->contiguous && !t->swapped;
	struct tensor_src src = { .dtype = to, .storage_numel = t->numel, .ndim = t->ndim, .shape = t->shape,
				  .requires_grad = fmt == TENSORW_PT && t->requires_grad };
	void *copy = NULL;
	struct tensor_guard g;
	int ret;

	*written = to;
	if (!in_place && t->numel) /* tensor_open() has bounded numel by the file's size */
		copy = xmalloc(st_mult((size_t)t->numel, dtype_info(to)->size));
	src.storage = in_place ? (const void *)t->data : copy;
	tensor_guard_begin(&g);
	if (!sigsetjmp(g.jump, 0)) {
		if (copy)
			export_copy(t, to, copy);
		ret = export_write(path, fmt, &src, err);
	} else {
		/* what tensorw allocated is lost and its temporary file removed at exit: the tool stops here */
		if (!tensor_fault_message(t, g.addr, err))
			msg_fail(err, path, "a fault while the tensor was read");
		ret = -1;
	}
	tensor_guard_end(&g);
	free(copy);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Many tensors: a tree of Python values, pickled as torch.save does */

enum tw_kind {
	TW_NONE, TW_BOOL, TW_INT, TW_FLOAT, TW_STR, TW_DTYPE, TW_DICT, TW_ODICT, TW_NAMESPACE, TW_LIST, TW_TUPLE,
	TW_OBJECT, TW_STORAGE, TW_TENSOR
};

struct tw_node {
	enum tw_kind kind;
	union {
		bool b;
		int64_t i;
		double f;
		char *s;
		enum dtype d;
		struct { uint32_t first, last, n; } items; /* containers: a chain of tw_item */
		struct { char *module, *name; uint32_t args, state; bool has_state; } obj;
		struct { enum dtype d; int64_t numel; const void *data; tensorw_fill_fn *fill; void *ctx; } st;
		struct { uint32_t storage; int64_t offset; int ndim; size_t dims; bool has_stride, rg; } ten;
	} u;
};

struct tw_item {
	uint32_t key, value, next; /* key UINT32_MAX in lists and tuples */
};

struct tensorw_tree {
	struct tw_node *nodes;
	size_t n, alloc;
	struct tw_item *items;
	size_t nitems, items_alloc;
	int64_t *dims;
	size_t ndims, dims_alloc;
};

#define TW_NOREF UINT32_MAX

struct tensorw_tree *tensorw_tree_new(void)
{
	return xcalloc(1, sizeof(struct tensorw_tree));
}

void tensorw_tree_free(struct tensorw_tree *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		if (t->nodes[i].kind == TW_STR)
			free(t->nodes[i].u.s);
		else if (t->nodes[i].kind == TW_OBJECT) {
			free(t->nodes[i].u.obj.module);
			free(t->nodes[i].u.obj.name);
		}
	}
	free(t->nodes);
	free(t->items);
	free(t->dims);
	free(t);
}

static tensorw_node tw_new(struct tensorw_tree *t, enum tw_kind kind)
{
	ALLOC_GROW(t->nodes, t->n + 1, t->alloc);
	memset(&t->nodes[t->n], 0, sizeof(t->nodes[t->n]));
	t->nodes[t->n].kind = kind;
	if (kind == TW_DICT || kind == TW_ODICT || kind == TW_NAMESPACE || kind == TW_LIST || kind == TW_TUPLE)
		t->nodes[t->n].u.items.first = t->nodes[t->n].u.items.last = TW_NOREF;
	return (tensorw_node)t->n++;
}

tensorw_node tensorw_none(struct tensorw_tree *t)
{
	return tw_new(t, TW_NONE);
}

tensorw_node tensorw_bool(struct tensorw_tree *t, bool v)
{
	tensorw_node n = tw_new(t, TW_BOOL);
	t->nodes[n].u.b = v;
	return n;
}

tensorw_node tensorw_int(struct tensorw_tree *t, int64_t v)
{
	tensorw_node n = tw_new(t, TW_INT);
	t->nodes[n].u.i = v;
	return n;
}

tensorw_node tensorw_float(struct tensorw_tree *t, double v)
{
	tensorw_node n = tw_new(t, TW_FLOAT);
	t->nodes[n].u.f = v;
	return n;
}

tensorw_node tensorw_str(struct tensorw_tree *t, const char *s)
{
	tensorw_node n = tw_new(t, TW_STR);
	t->nodes[n].u.s = xstrdup(s);
	return n;
}

tensorw_node tensorw_dtype(struct tensorw_tree *t, enum dtype d)
{
	tensorw_node n = tw_new(t, TW_DTYPE);
	t->nodes[n].u.d = d;
	return n;
}

tensorw_node tensorw_dict(struct tensorw_tree *t, bool ordered)
{
	return tw_new(t, ordered ? TW_ODICT : TW_DICT);
}

tensorw_node tensorw_namespace(struct tensorw_tree *t)
{
	return tw_new(t, TW_NAMESPACE);
}

tensorw_node tensorw_list(struct tensorw_tree *t)
{
	return tw_new(t, TW_LIST);
}

tensorw_node tensorw_tuple(struct tensorw_tree *t)
{
	return tw_new(t, TW_TUPLE);
}

static void tw_link(struct tensorw_tree *t, tensorw_node c, uint32_t key, uint32_t value)
{
	struct tw_node *n;
	ALLOC_GROW(t->items, t->nitems + 1, t->items_alloc);
	t->items[t->nitems] = (struct tw_item){ key, value, TW_NOREF };
	n = &t->nodes[c];
	if (n->u.items.last == TW_NOREF)
		n->u.items.first = (uint32_t)t->nitems;
	else
		t->items[n->u.items.last].next = (uint32_t)t->nitems;
	n->u.items.last = (uint32_t)t->nitems++;
	n->u.items.n++;
}

void tensorw_set(struct tensorw_tree *t, tensorw_node dict, tensorw_node key, tensorw_node value)
{
	tw_link(t, dict, key, value);
}

void tensorw_put(struct tensorw_tree *t, tensorw_node dict, const char *key, tensorw_node value)
{
	tw_link(t, dict, tensorw_str(t, key), value);
}

void tensorw_append(struct tensorw_tree *t, tensorw_node seq, tensorw_node value)
{
	tw_link(t, seq, TW_NOREF, value);
}

tensorw_node tensorw_object(struct tensorw_tree *t, const char *module, const char *name, tensorw_node args,
			    bool has_state, tensorw_node state)
{
	tensorw_node n = tw_new(t, TW_OBJECT);
	t->nodes[n].u.obj.module = xstrdup(module);
	t->nodes[n].u.obj.name = xstrdup(name);
	t->nodes[n].u.obj.args = args;
	t->nodes[n].u.obj.has_state = has_state;
	t->nodes[n].u.obj.state = state;
	return n;
}

tensorw_node tensorw_storage(struct tensorw_tree *t, enum dtype d, int64_t numel, const void *data,
			     tensorw_fill_fn *fill, void *ctx)
{
	tensorw_node n = tw_new(t, TW_STORAGE);
	t->nodes[n].u.st.d = d;
	t->nodes[n].u.st.numel = numel;
	t->nodes[n].u.st.data = data;
	t->nodes[n].u.st.fill = fill;
	t->nodes[n].u.st.ctx = ctx;
	return n;
}

tensorw_node tensorw_tensor(struct tensorw_tree *t, tensorw_node storage, int64_t offset, int ndim,
			    const int64_t *shape, const int64_t *stride, bool requires_grad)
{
	tensorw_node n = tw_new(t, TW_TENSOR);
	struct tw_node *x;
	ALLOC_GROW(t->dims, t->ndims + 2 * (size_t)ndim + 1, t->dims_alloc);
	x = &t->nodes[n];
	x->u.ten.storage = storage;
	x->u.ten.offset = offset;
	x->u.ten.ndim = ndim;
	x->u.ten.dims = t->ndims;
	x->u.ten.has_stride = stride != NULL;
	x->u.ten.rg = requires_grad;
	for (int i = 0; i < ndim; i++) {
		t->dims[t->ndims + (size_t)i] = shape[i];
		t->dims[t->ndims + (size_t)ndim + (size_t)i] = stride ? stride[i] : 0;
	}
	if (!stride) {
		struct tensor_src src = { .ndim = ndim, .shape = t->dims + t->ndims };
		contiguous_strides(&src, t->dims + t->ndims + ndim);
	}
	t->ndims += 2 * (size_t)ndim;
	return n;
}

/* ---- the pickler ---- */

struct tw_pickler {
	const struct tensorw_tree *t;
	struct pickle p;
	struct strbuf scratch;
	uint32_t *memo_of;        /* node -> memo index + 1 */
	char **memo_keys;         /* strings and globals already memoized: "s:<text>", "g:<module> <name>" */
	uint32_t *memo_vals;
	size_t nkeys, keys_alloc, vals_alloc;
	uint32_t *key_of;         /* storage node -> its key + 1 */
	uint32_t *storages;       /* storage nodes in key order */
	size_t nstorages, storages_alloc;
	int depth;
};

static void tw_get(struct tw_pickler *w, uint32_t idx)
{
	if (idx < 256) {
		strbuf_addch(w->p.out, 'h'); /* BINGET */
		strbuf_addch(w->p.out, (char)idx);
	} else {
		strbuf_addch(w->p.out, 'j'); /* LONG_BINGET */
		put32(w->p.out, idx);
	}
}

/* A string or global seen before: its memo index, or -1 (a linear search: trees are small, keys few). */
static long tw_seen(struct tw_pickler *w, const char *key)
{
	for (size_t i = 0; i < w->nkeys; i++)
		if (!strcmp(w->memo_keys[i], key))
			return (long)w->memo_vals[i];
	return -1;
}

static void tw_remember(struct tw_pickler *w, const char *key)
{
	ALLOC_GROW(w->memo_keys, w->nkeys + 1, w->keys_alloc);
	ALLOC_GROW(w->memo_vals, w->nkeys + 1, w->vals_alloc);
	w->memo_keys[w->nkeys] = xstrdup(key);
	w->memo_vals[w->nkeys++] = w->p.memo - 1;
}

static void tw_string(struct tw_pickler *w, const char *s)
{
	long seen;
	strbuf_reset(&w->scratch);
	strbuf_addf(&w->scratch, "s:%s", s);
	if ((seen = tw_seen(w, w->scratch.buf)) >= 0) {
		tw_get(w, (uint32_t)seen);
		return;
	}
	pkl_string(&w->p, s);
	strbuf_reset(&w->scratch);
	strbuf_addf(&w->scratch, "s:%s", s);
	tw_remember(w, w->scratch.buf);
}

static void tw_global(struct tw_pickler *w, const char *module, const char *name)
{
	long seen;
	strbuf_reset(&w->scratch);
	strbuf_addf(&w->scratch, "g:%s %s", module, name);
	if ((seen = tw_seen(w, w->scratch.buf)) >= 0) {
		tw_get(w, (uint32_t)seen);
		return;
	}
	pkl_global(&w->p, module, name);
	strbuf_reset(&w->scratch);
	strbuf_addf(&w->scratch, "g:%s %s", module, name);
	tw_remember(w, w->scratch.buf);
}

static int tw_value(struct tw_pickler *w, tensorw_node n);

/* The entries of a container in batches of 1000, as Python's _batch_setitems and _batch_appends write them. */
static int tw_batches(struct tw_pickler *w, const struct tw_node *c, bool pairs)
{
	uint32_t at = c->u.items.first;
	while (at != TW_NOREF) {
		uint32_t count = 0;
		for (uint32_t k = at; k != TW_NOREF && count < 1000; k = w->t->items[k].next)
			count++;
		if (count > 1)
			strbuf_addch(w->p.out, '(');
		for (uint32_t i = 0; i < count; i++, at = w->t->items[at].next) {
			if (pairs && tw_value(w, w->t->items[at].key))
				return -1;
			if (tw_value(w, w->t->items[at].value))
				return -1;
		}
		strbuf_addch(w->p.out, count > 1 ? (pairs ? 'u' : 'e') : (pairs ? 's' : 'a'));
	}
	return 0;
}

static void tw_memoize_node(struct tw_pickler *w, tensorw_node n)
{
	pkl_memoize(&w->p);
	w->memo_of[n] = w->p.memo;
}

static void tw_float(struct tw_pickler *w, double f)
{
	uint64_t u;
	memcpy(&u, &f, 8);
	strbuf_addch(w->p.out, 'G');
	for (int i = 7; i >= 0; i--)
		strbuf_addch(w->p.out, (char)((u >> (8 * i)) & 0xFF));
}

static void tw_int_tuple(struct tw_pickler *w, const int64_t *v, int n)
{
	pkl_int_tuple(&w->p, v, n);
}

/* The key of a storage (its rank among those met so far), as a string. */
static uint32_t tw_storage_key(struct tw_pickler *w, tensorw_node s)
{
	if (!w->key_of[s]) {
		ALLOC_GROW(w->storages, w->nstorages + 1, w->storages_alloc);
		w->storages[w->nstorages++] = s;
		w->key_of[s] = (uint32_t)w->nstorages;
	}
	return w->key_of[s] - 1;
}

static int tw_tensor(struct tw_pickler *w, tensorw_node n)
{
	const struct tw_node *x = &w->t->nodes[n], *st = &w->t->nodes[x->u.ten.storage];
	const struct dtype_info *info = dtype_info(st->u.st.d);
	bool untyped = pickled_untyped(st->u.st.d);
	char key[24];
	const int64_t *shape = w->t->dims + x->u.ten.dims, *stride = shape + x->u.ten.ndim;

	if (st->kind != TW_STORAGE)
		return -1;
	snprintf(key, sizeof(key), "%u", tw_storage_key(w, x->u.ten.storage));
	tw_global(w, "torch._utils", untyped ? "_rebuild_tensor_v3" : "_rebuild_tensor_v2");
	strbuf_addch(w->p.out, '(');
	strbuf_addch(w->p.out, '(');
	tw_string(w, "storage");
	tw_global(w, "torch", untyped ? "UntypedStorage" : info->storage);
	tw_string(w, key);
	tw_string(w, "cpu");
	pkl_int(&w->p, untyped ? st->u.st.numel * (int64_t)info->size : st->u.st.numel);
	strbuf_addch(w->p.out, 't');
	pkl_memoize(&w->p);
	strbuf_addch(w->p.out, 'Q'); /* BINPERSID */
	pkl_int(&w->p, x->u.ten.offset);
	tw_int_tuple(w, shape, x->u.ten.ndim);
	tw_int_tuple(w, stride, x->u.ten.ndim);
	pkl_bool(&w->p, x->u.ten.rg);
	tw_global(w, "collections", "OrderedDict");
	strbuf_add(w->p.out, ")R", 2);
	pkl_memoize(&w->p);
	if (untyped)
		tw_global(w, "torch", info->name);
	strbuf_addch(w->p.out, 't');
	pkl_memoize(&w->p);
	strbuf_addch(w->p.out, 'R');
	tw_memoize_node(w, n);
	return 0;
}

static int tw_container(struct tw_pickler *w, tensorw_node n)
{
	const struct tw_node *x = &w->t->nodes[n];
	switch (x->kind) {
	case TW_LIST:
		strbuf_addch(w->p.out, ']');
		tw_memoize_node(w, n);
		return tw_batches(w, x, false);
	case TW_DICT:
		strbuf_addch(w->p.out, '}');
		tw_memoize_node(w, n);
		return tw_batches(w, x, true);
	case TW_ODICT:
		tw_global(w, "collections", "OrderedDict");
		strbuf_add(w->p.out, ")R", 2);
		tw_memoize_node(w, n);
		return tw_batches(w, x, true);
	case TW_NAMESPACE:
		/* copyreg.__newobj__: NEWOBJ of the class, then its __dict__ by BUILD */
		tw_global(w, "argparse", "Namespace");
		strbuf_add(w->p.out, ")\x81", 2);
		tw_memoize_node(w, n);
		strbuf_addch(w->p.out, '}');
		pkl_memoize(&w->p);
		if (tw_batches(w, x, true))
			return -1;
		strbuf_addch(w->p.out, 'b');
		return 0;
	case TW_TUPLE: {
		uint32_t count = x->u.items.n;
		if (!count) {
			strbuf_addch(w->p.out, ')');
			return 0;
		}
		if (count > 3)
			strbuf_addch(w->p.out, '(');
		for (uint32_t at = x->u.items.first; at != TW_NOREF; at = w->t->items[at].next)
			if (tw_value(w, w->t->items[at].value))
				return -1;
		strbuf_addch(w->p.out, count > 3 ? 't' : (char)(0x84 + count));
		tw_memoize_node(w, n);
		return 0;
	}
	case TW_OBJECT:
		tw_global(w, x->u.obj.module, x->u.obj.name);
		if (tw_value(w, x->u.obj.args))
			return -1;
		strbuf_addch(w->p.out, 'R');
		tw_memoize_node(w, n);
		if (x->u.obj.has_state) {
			if (tw_value(w, x->u.obj.state))
				return -1;
			strbuf_addch(w->p.out, 'b');
		}
		return 0;
	default:
		return -1;
	}
}

static int tw_value(struct tw_pickler *w, tensorw_node n)
{
	const struct tw_node *x;
	int rc;
	if (n >= w->t->n)
		return -1;
	x = &w->t->nodes[n];
	if (w->memo_of[n]) {
		tw_get(w, w->memo_of[n] - 1);
		return 0;
	}
	switch (x->kind) {
	case TW_NONE: strbuf_addch(w->p.out, 'N'); return 0;
	case TW_BOOL: pkl_bool(&w->p, x->u.b); return 0;
	case TW_INT: pkl_int(&w->p, x->u.i); return 0;
	case TW_FLOAT: tw_float(w, x->u.f); return 0;
	case TW_STR: tw_string(w, x->u.s); return 0;
	case TW_DTYPE: tw_global(w, "torch", dtype_info(x->u.d)->name); return 0;
	case TW_TENSOR: return tw_tensor(w, n);
	case TW_STORAGE: return -1;
	default:
		if (++w->depth > 200)
			return -1;
		rc = tw_container(w, n);
		w->depth--;
		return rc;
	}
}

static void tw_pickler_release(struct tw_pickler *w)
{
	for (size_t i = 0; i < w->nkeys; i++)
		free(w->memo_keys[i]);
	free(w->memo_keys);
	free(w->memo_vals);
	free(w->memo_of);
	free(w->key_of);
	free(w->storages);
	strbuf_release(&w->scratch);
}

static int write_tree_entries(struct zip *z, const char *stem, struct tw_pickler *w, const struct pt_options *opt)
{
	const struct tensorw_tree *t = w->t;
	struct bytes pickle = { (const unsigned char *)w->p.out->buf, w->p.out->len, DT_COUNT, NULL, NULL };
	char name[32], id[41];
	int ret = zip_add(z, stem, "data.pkl", &pickle, false);
	if (!ret && opt->layout == PT_TORCH2)
		ret = zip_add_text(z, stem, "byteorder", "little");
	for (size_t k = 0; !ret && k < w->nstorages; k++) {
		const struct tw_node *s = &t->nodes[w->storages[k]];
		uint64_t bytes = (uint64_t)s->u.st.numel * dtype_info(s->u.st.d)->size;
		struct bytes b = { s->u.st.data, bytes, host_is_big_endian() ? s->u.st.d : DT_COUNT, s->u.st.fill, s->u.st.ctx };
		snprintf(name, sizeof(name), "data/%zu", k);
		ret = zip_add(z, stem, name, &b, opt->deflate);
	}
	if (!ret)
		ret = zip_add_text(z, stem, "version", "3\n");
	if (!ret && opt->layout == PT_TORCH2) {
		serialization_id(z, id);
		ret = zip_add_text(z, stem, ".data/serialization_id", id);
	}
	return ret ? ret : zip_finish(z);
}

int tensorw_pt_tree(const char *path, const struct tensorw_tree *t, tensorw_node root, const struct pt_options *opt,
		    struct strbuf *err)
{
	struct strbuf pkl = STRBUF_INIT;
	struct tw_pickler w = { .t = t, .p = { .out = &pkl }, .scratch = STRBUF_INIT };
	struct out o;
	struct zip z = { .o = &o, .hdr = STRBUF_INIT };
	char *stem;
	int ret;

	w.memo_of = xcalloc(t->n ? t->n : 1, sizeof(*w.memo_of));
	w.key_of = xcalloc(t->n ? t->n : 1, sizeof(*w.key_of));
	strbuf_add(&pkl, "\x80\x02", 2); /* PROTO 2 */
	ret = tw_value(&w, root);
	strbuf_addch(&pkl, '.');
	if (ret) {
		tw_pickler_release(&w);
		strbuf_release(&pkl);
		return msg_fail(err, path, "the tree to pickle is malformed (a storage as a value, a cycle, a node that is not there)");
	}
	stem = archive_stem(path);
	if (!*stem || out_open(&o, path, err) < 0) {
		if (!*stem)
			msg_fail(err, path, "no file name to name the archive after");
		free(stem);
		tw_pickler_release(&w);
		strbuf_release(&pkl);
		return -1;
	}
	z.scratch = xmalloc(CHUNK);
	ret = write_tree_entries(&z, stem, &w, opt);
	zip_release(&z);
	free(stem);
	tw_pickler_release(&w);
	strbuf_release(&pkl);
	return out_finish(&o, ret == 0);
}

/* ---- safetensors ---- */

static const char *st_dtype_name(enum dtype d)
{
	switch (d) {
	case DT_FLOAT64: return "F64";
	case DT_FLOAT32: return "F32";
	case DT_FLOAT16: return "F16";
	case DT_BFLOAT16: return "BF16";
	case DT_FLOAT8_E4M3FN: return "F8_E4M3";
	case DT_FLOAT8_E5M2: return "F8_E5M2";
	case DT_INT64: return "I64";
	case DT_INT32: return "I32";
	case DT_INT16: return "I16";
	case DT_INT8: return "I8";
	case DT_UINT64: return "U64";
	case DT_UINT32: return "U32";
	case DT_UINT16: return "U16";
	case DT_UINT8: return "U8";
	case DT_BOOL: return "BOOL";
	case DT_COMPLEX64: return "C64";
	default: return NULL;
	}
}

/* A JSON string: quotes, backslashes and control characters escaped, other bytes as they are. */
static void st_json_string(struct strbuf *h, const char *s)
{
	strbuf_addch(h, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			strbuf_addch(h, '\\'), strbuf_addch(h, (char)c);
		else if (c < 0x20)
			strbuf_addf(h, "\\u%04x", c);
		else
			strbuf_addch(h, (char)c);
	}
	strbuf_addch(h, '"');
}

int tensorw_safetensors(const char *path, const struct tensorw_tree *t, const struct tensorw_named *v, size_t n,
			const char *const *metadata, size_t nmeta, struct strbuf *err)
{
	struct strbuf h = STRBUF_INIT, len8 = STRBUF_INIT;
	unsigned char *scratch = NULL;
	uint64_t at = 0;
	struct out o;
	int ret = 0;

	strbuf_addch(&h, '{');
	if (metadata) {
		strbuf_addstr(&h, "\"__metadata__\":{");
		for (size_t i = 0; i < nmeta; i++) {
			if (i)
				strbuf_addch(&h, ',');
			st_json_string(&h, metadata[2 * i]);
			strbuf_addch(&h, ':');
			st_json_string(&h, metadata[2 * i + 1]);
		}
		strbuf_addch(&h, '}');
	}
	for (size_t i = 0; i < n; i++) {
		const struct tw_node *s = v[i].storage < t->n ? &t->nodes[v[i].storage] : NULL;
		const char *dn = s && s->kind == TW_STORAGE ? st_dtype_name(s->u.st.d) : NULL;
		uint64_t bytes;
		if (!dn) {
			strbuf_release(&h);
			return msg_fail(err, path, "tensor %s: not a storage of a type safetensors has", v[i].name);
		}
		bytes = (uint64_t)s->u.st.numel * dtype_info(s->u.st.d)->size;
		if (i || metadata)
			strbuf_addch(&h, ',');
		st_json_string(&h, v[i].name);
		strbuf_addf(&h, ":{\"dtype\":\"%s\",\"shape\":[", dn);
		for (int d = 0; d < v[i].ndim; d++)
			strbuf_addf(&h, "%s%" PRId64, d ? "," : "", v[i].shape[d]);
		strbuf_addf(&h, "],\"data_offsets\":[%" PRIu64 ",%" PRIu64 "]}", at, at + bytes);
		at += bytes;
	}
	strbuf_addch(&h, '}');
	while (h.len % 8)
		strbuf_addch(&h, ' ');
	put64(&len8, h.len);
	if (out_open(&o, path, err) < 0) {
		strbuf_release(&h);
		strbuf_release(&len8);
		return -1;
	}
	ret = out_write(&o, len8.buf, 8);
	if (!ret)
		ret = out_write(&o, h.buf, h.len);
	scratch = xmalloc(CHUNK);
	for (size_t i = 0; !ret && i < n; i++) {
		const struct tw_node *s = &t->nodes[v[i].storage];
		struct bytes b = { s->u.st.data, (uint64_t)s->u.st.numel * dtype_info(s->u.st.d)->size,
				   host_is_big_endian() ? s->u.st.d : DT_COUNT, s->u.st.fill, s->u.st.ctx };
		for (uint64_t pos = 0; !ret && pos < b.len;) {
			size_t len;
			const unsigned char *piece = bytes_piece(&b, pos, &len, scratch);
			ret = out_write(&o, piece, len);
			pos += len;
		}
	}
	free(scratch);
	strbuf_release(&h);
	strbuf_release(&len8);
	return out_finish(&o, ret == 0);
}
