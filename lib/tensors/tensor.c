/*
 * tensor.c: the .pt and .npy readers of tensor.h.
 *
 * Everything that comes from the file is distrusted: each offset and
 * length is checked against the mapping before use, each product and sum
 * of sizes against 64-bit overflow, and the pickle machine has fixed
 * bounds on its stack, memo and object count, so a hostile file costs at
 * most a bounded amount of memory and a clean error.
 */
#include "../core/source.h"
#include "tensor.h"
#include "../core/xalloc.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static int fail(struct strbuf *err, const char *path, const char *fmt, ...) PRINTF_LIKE(3, 4);
static int fail(struct strbuf *err, const char *path, const char *fmt, ...)
{
	va_list ap;
	strbuf_addf(err, "%s: ", path);
	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return -1;
}

/* Little-endian loads from the file, whatever this machine's order. */
static uint16_t get16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static bool host_is_big_endian(void)
{
	const uint16_t one = 1;
	unsigned char first;
	memcpy(&first, &one, 1);
	return first == 0;
}

/* Sums and products of non-negative int64s; false when they overflow. */
static bool add_ok(int64_t a, int64_t b, int64_t *r)
{
	if (a > INT64_MAX - b)
		return false;
	*r = a + b;
	return true;
}

static bool mul_ok(int64_t a, int64_t b, int64_t *r)
{
	if (a && b > INT64_MAX / a)
		return false;
	*r = a * b;
	return true;
}

/* ------------------------------------------------------------------ */
/* The view: shape and strides against a storage                       */

/*
 * Elements are loaded through typed pointers (const float *), so a storage must be
 * aligned to its element size.  torch aligns its entries to 64 bytes and numpy pads
 * its header to 64, but an archive written another way, or a hostile one, need not:
 * such a storage is copied into memory of its own (malloc aligns for every type).
 */
static int align_storage(struct tensor *t, const unsigned char **base, int64_t bytes, const char *path,
			 struct strbuf *err)
{
	unsigned size = dtype_info(t->dtype)->size;
	unsigned char *copy, *old = t->owned;
	if (bytes <= 0 || !size || (uintptr_t)*base % size == 0)
		return 0;
	if ((uint64_t)bytes > SIZE_MAX || !(copy = malloc((size_t)bytes)))
		return fail(err, path, "cannot allocate %lld bytes to align the storage", (long long)bytes);
	/* the tensor holds the copy before the copying faults, if it does (*base in the mapping: old is NULL) */
	t->owned = copy;
	memcpy(copy, *base, (size_t)bytes);
	free(old);
	*base = copy;
	return 0;
}

/*
 * Set numel and contiguous from shape and stride, and check that every
 * element lies in a storage of storage_elems elements starting at offset.
 * *end is one past the last storage element the view touches (0 when it
 * has no elements).
 */
static int check_view(struct tensor *t, const char *path, struct strbuf *err, int64_t offset,
		      int64_t storage_elems, int64_t *end)
{
	int64_t numel = 1, last = offset, expect = 1;
	bool empty = false;

	for (int d = 0; d < t->ndim; d++)
		if (t->shape[d] == 0)
			empty = true;
	*end = 0;
	if (empty) {
		/* no elements, no data: strides and offset are never used */
		t->numel = 0;
		t->contiguous = true;
		return 0;
	}
	for (int d = 0; d < t->ndim; d++) {
		int64_t reach;
		if (!mul_ok(numel, t->shape[d], &numel))
			return fail(err, path, "the shape holds more than 2^63 elements");
		if (!mul_ok(t->shape[d] - 1, t->stride[d], &reach) || !add_ok(last, reach, &last))
			return fail(err, path, "the view's extent (offset, size and stride) overflows 64 bits");
	}
	if (last >= storage_elems)
		return fail(err, path, "the view reaches element %lld of a storage of %lld elements",
			    (long long)last, (long long)storage_elems);
	/*
	 * More elements than the storage holds: the view repeats them (a zero
	 * stride).  Its work would not be bounded by the file; torch.load keeps
	 * the repeats, msprobe's numpy arithmetic makes copies of them.
	 */
	if (numel > storage_elems && numel > TENSOR_MAX_REPEATED)
		return fail(err, path,
			    "the view claims %lld elements of a storage of %lld (its strides repeat them); "
			    "a view that repeats elements may claim at most %lld",
			    (long long)numel, (long long)storage_elems, (long long)TENSOR_MAX_REPEATED);
	t->numel = numel;
	/* torch's rule: dimensions of size 1 may have any stride */
	t->contiguous = true;
	for (int d = t->ndim - 1; d >= 0; d--) {
		if (t->shape[d] == 1)
			continue;
		if (t->stride[d] != expect)
			t->contiguous = false;
		expect *= t->shape[d]; /* cannot overflow: bounded by numel */
	}
	*end = last + 1;
	return 0;
}

/* Row-major (or column-major) strides of a dense array, as torch and numpy lay them out. */
static int dense_strides(struct tensor *t, bool column_major)
{
	int64_t step = 1;
	for (int k = 0; k < t->ndim; k++) {
		int d = column_major ? k : t->ndim - 1 - k;
		t->stride[d] = step;
		/* a zero-size dimension counts as 1, as torch does */
		if (!mul_ok(step, t->shape[d] ? t->shape[d] : 1, &step))
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The zip container                                                   */

#define ZIP_LOCAL_SIG 0x04034b50u
#define ZIP_CENTRAL_SIG 0x02014b50u
#define ZIP_END_SIG 0x06054b50u
#define ZIP64_END_SIG 0x06064b50u
#define ZIP64_LOCATOR_SIG 0x07064b50u
#define ZIP_END_LEN 22
#define ZIP64_END_LEN 56
#define ZIP64_LOCATOR_LEN 20
#define ZIP_CENTRAL_LEN 46
#define ZIP_LOCAL_LEN 30

/* zlib cannot expand data more than about 1032 times: a larger claim is a bomb or a lie */
#define DEFLATE_MAX_RATIO 1032u

/* data.pkl of one tensor is a few hundred bytes; anything this big is not one tensor */
#define PKL_MAX (1u << 20)

struct zip_entry {
	const unsigned char *name;
	size_t name_len;
	unsigned method, flags;
	uint32_t crc;
	uint64_t csize, usize, local;
};

struct pickle;

/*
 * Reading one archive.  Whatever it allocates hangs from here, so that
 * pt_reader_release() frees it also after a fault of the mapping has
 * jumped out of the middle of the reading (tensor_open()).
 */
struct pt_reader {
	const char *path;
	struct strbuf *err;
	const unsigned char *file;
	size_t size;
	struct zip_entry *entries;
	size_t nentries;
	const unsigned char *stem; /* the archive's top directory, without the slash */
	size_t stem_len;
	struct pickle *pk;         /* data.pkl's machine, while it runs */
	z_stream zs;               /* an inflation under way (zs_live) and its output */
	bool zs_live;
	unsigned char *inflating;
	unsigned char *pkl_owned, *bo_owned; /* inflated data.pkl and byteorder entries */
};

static void pk_release(struct pickle *pk);

static void pt_reader_release(struct pt_reader *z)
{
	free(z->entries);
	if (z->pk) {
		pk_release(z->pk);
		free(z->pk);
	}
	if (z->zs_live)
		inflateEnd(&z->zs);
	free(z->inflating);
	free(z->pkl_owned);
	free(z->bo_owned);
	memset(z, 0, sizeof(*z));
}

#define ENTRY_FMT "entry %.*s"
#define ENTRY_ARG(e) (int)(e)->name_len, (const char *)(e)->name

/* The end of central directory record: the last one whose comment fits in the file. */
static int zip_find_end(struct pt_reader *z, size_t *pos)
{
	size_t lowest;
	if (z->size < ZIP_END_LEN)
		return fail(z->err, z->path, "truncated zip archive: %zu bytes", z->size);
	lowest = z->size - ZIP_END_LEN > 65535 ? z->size - ZIP_END_LEN - 65535 : 0;
	for (size_t p = z->size - ZIP_END_LEN + 1; p-- > lowest;) {
		const unsigned char *e = z->file + p;
		if (get32(e) == ZIP_END_SIG && p + ZIP_END_LEN + get16(e + 20) <= z->size) {
			*pos = p;
			return 0;
		}
	}
	return fail(z->err, z->path, "truncated zip archive: no end of central directory record");
}

/* The ZIP64 end record the locator at loc points to: the real entry count and directory place. */
static int zip_read_end64(struct pt_reader *z, size_t loc, uint64_t *count, uint64_t *cd_size, uint64_t *cd_off)
{
	const unsigned char *l = z->file + loc, *e;
	uint64_t off = get64(l + 8);
	if (get32(l + 4) != 0 || get32(l + 16) > 1)
		return fail(z->err, z->path, "multi-disk zip archives are not supported");
	if (off > loc || loc - off < ZIP64_END_LEN)
		return fail(z->err, z->path, "bad zip64 end of central directory offset %llu", (unsigned long long)off);
	e = z->file + off;
	if (get32(e) != ZIP64_END_SIG)
		return fail(z->err, z->path, "no zip64 end of central directory record at offset %llu",
			    (unsigned long long)off);
	if (get32(e + 16) != 0 || get32(e + 20) != 0 || get64(e + 24) != get64(e + 32))
		return fail(z->err, z->path, "multi-disk zip archives are not supported");
	*count = get64(e + 32);
	*cd_size = get64(e + 40);
	*cd_off = get64(e + 48);
	return 0;
}

/* Replace the 32-bit fields that say "see the zip64 extra field" by the values found there. */
static int zip_apply_zip64(struct pt_reader *z, struct zip_entry *ent, const unsigned char *x, size_t xlen)
{
	bool need_u = ent->usize == 0xFFFFFFFFu, need_c = ent->csize == 0xFFFFFFFFu;
	bool need_l = ent->local == 0xFFFFFFFFu;
	while (xlen >= 4) {
		unsigned id = get16(x), len = get16(x + 2);
		const unsigned char *v = x + 4;
		size_t have;
		if (len > xlen - 4)
			return fail(z->err, z->path, ENTRY_FMT ": damaged extra field", ENTRY_ARG(ent));
		if (id == 1) {
			/* only the fields that overflowed are present, in this order */
			have = len;
			if (need_u) {
				if (have < 8)
					goto short_field;
				ent->usize = get64(v), v += 8, have -= 8;
			}
			if (need_c) {
				if (have < 8)
					goto short_field;
				ent->csize = get64(v), v += 8, have -= 8;
			}
			if (need_l) {
				if (have < 8)
					goto short_field;
				ent->local = get64(v);
			}
			return 0;
		}
		x += 4 + len;
		xlen -= 4 + len;
	}
	return 0;
short_field:
	return fail(z->err, z->path, ENTRY_FMT ": zip64 extra field too short", ENTRY_ARG(ent));
}

static int zip_read_directory(struct pt_reader *z)
{
	size_t end = 0;
	const unsigned char *e, *p, *cd_end;
	uint64_t count, cd_size, cd_off;

	if (zip_find_end(z, &end))
		return -1;
	e = z->file + end;
	count = get16(e + 10);
	cd_size = get32(e + 12);
	cd_off = get32(e + 16);
	if (end >= ZIP64_LOCATOR_LEN && get32(e - ZIP64_LOCATOR_LEN) == ZIP64_LOCATOR_SIG) {
		if (zip_read_end64(z, end - ZIP64_LOCATOR_LEN, &count, &cd_size, &cd_off))
			return -1;
	} else if (get16(e + 4) != 0 || get16(e + 6) != 0 || get16(e + 8) != count) {
		return fail(z->err, z->path, "multi-disk zip archives are not supported");
	}
	if (cd_off > z->size || cd_size > z->size - cd_off)
		return fail(z->err, z->path,
			    "the zip central directory (%llu bytes at offset %llu) lies outside the file",
			    (unsigned long long)cd_size, (unsigned long long)cd_off);
	if (count > cd_size / ZIP_CENTRAL_LEN)
		return fail(z->err, z->path, "the zip central directory is too small for its %llu entries",
			    (unsigned long long)count);

	z->entries = xcalloc(count ? (size_t)count : 1, sizeof(*z->entries));
	p = z->file + cd_off;
	cd_end = p + cd_size;
	for (uint64_t i = 0; i < count; i++) {
		struct zip_entry *ent = &z->entries[i];
		size_t n, x, c;
		if ((size_t)(cd_end - p) < ZIP_CENTRAL_LEN || get32(p) != ZIP_CENTRAL_SIG ||
		    ZIP_CENTRAL_LEN + (size_t)get16(p + 28) + get16(p + 30) + get16(p + 32) > (size_t)(cd_end - p))
			return fail(z->err, z->path, "zip central directory entry %llu is damaged",
				    (unsigned long long)i);
		n = get16(p + 28), x = get16(p + 30), c = get16(p + 32);
		ent->name = p + ZIP_CENTRAL_LEN;
		ent->name_len = n;
		ent->flags = get16(p + 8);
		ent->method = get16(p + 10);
		ent->crc = get32(p + 16);
		ent->csize = get32(p + 20);
		ent->usize = get32(p + 24);
		ent->local = get32(p + 42);
		if (zip_apply_zip64(z, ent, p + ZIP_CENTRAL_LEN + n, x))
			return -1;
		p += ZIP_CENTRAL_LEN + n + x + c;
		z->nentries++;
	}
	return 0;
}

/*
 * Where the entry's bytes start.  The local header's own name and extra
 * lengths count, not the central directory's: torch pads the local extra
 * field so that storages start on a 64-byte boundary.
 */
static int zip_entry_start(struct pt_reader *z, const struct zip_entry *e, size_t *start)
{
	const unsigned char *h;
	size_t n, x, data;
	if (e->local > z->size || z->size - e->local < ZIP_LOCAL_LEN)
		return fail(z->err, z->path, ENTRY_FMT ": local header at offset %llu lies outside the file",
			    ENTRY_ARG(e), (unsigned long long)e->local);
	h = z->file + e->local;
	if (get32(h) != ZIP_LOCAL_SIG)
		return fail(z->err, z->path, ENTRY_FMT ": no local header at offset %llu", ENTRY_ARG(e),
			    (unsigned long long)e->local);
	n = get16(h + 26), x = get16(h + 28);
	data = (size_t)e->local + ZIP_LOCAL_LEN + n + x;
	if (data > z->size)
		return fail(z->err, z->path, ENTRY_FMT ": local header runs past the end of the file", ENTRY_ARG(e));
	if (n != e->name_len || memcmp(h + ZIP_LOCAL_LEN, e->name, n))
		return fail(z->err, z->path, ENTRY_FMT ": the local header names another entry", ENTRY_ARG(e));
	if (e->csize > z->size - data)
		return fail(z->err, z->path, ENTRY_FMT ": its %llu bytes at offset %zu run past the end of the file",
			    ENTRY_ARG(e), (unsigned long long)e->csize, data);
	*start = data;
	return 0;
}

/* Inflate the first `want` bytes of a deflated entry into a new buffer (z->zs and z->inflating while it runs). */
static int zip_inflate(struct pt_reader *z, const struct zip_entry *e, const unsigned char *src, uint64_t want,
		       unsigned char **out)
{
	z_stream *zs = &z->zs;
	unsigned char *buf, probe;
	const unsigned char *src_end = src + e->csize;
	bool ended = false;
	int ret = Z_OK, rc = 0;

	if (want / DEFLATE_MAX_RATIO > e->csize)
		return fail(z->err, z->path, ENTRY_FMT ": %llu compressed bytes cannot inflate to %llu bytes",
			    ENTRY_ARG(e), (unsigned long long)e->csize, (unsigned long long)want);
	if (want > SIZE_MAX - 1 || !(buf = malloc(want ? (size_t)want : 1)))
		return fail(z->err, z->path, ENTRY_FMT ": cannot allocate %llu bytes to inflate it", ENTRY_ARG(e),
			    (unsigned long long)want);
	z->inflating = buf;
	memset(zs, 0, sizeof(*zs));
	if (inflateInit2(zs, -MAX_WBITS) != Z_OK) {
		free(buf);
		z->inflating = NULL;
		return fail(z->err, z->path, ENTRY_FMT ": cannot start zlib", ENTRY_ARG(e));
	}
	z->zs_live = true;
	zs->next_in = (unsigned char *)src;
	zs->next_out = buf;
	while ((uint64_t)(zs->next_out - buf) < want && !ended) {
		/* zlib counts in unsigned int: feed at most UINT_MAX bytes a call */
		size_t in_left = (size_t)(src_end - zs->next_in);
		uint64_t out_left = want - (uint64_t)(zs->next_out - buf);
		zs->avail_in = in_left > UINT_MAX ? UINT_MAX : (unsigned)in_left;
		zs->avail_out = out_left > UINT_MAX ? UINT_MAX : (unsigned)out_left;
		ret = inflate(zs, Z_NO_FLUSH);
		if (ret == Z_STREAM_END)
			ended = true;
		else if (ret != Z_OK)
			break;
	}
	if (ret == Z_OK && !ended && want == e->usize) {
		/* the whole entry was asked for: it must end where its directory entry says */
		zs->avail_in = (size_t)(src_end - zs->next_in) > UINT_MAX ? UINT_MAX : (unsigned)(src_end - zs->next_in);
		zs->next_out = &probe;
		zs->avail_out = 1;
		ret = inflate(zs, Z_NO_FLUSH);
		if (zs->avail_out == 0) {
			rc = fail(z->err, z->path,
				  ENTRY_FMT ": inflates to more than the %llu bytes its directory entry declares",
				  ENTRY_ARG(e), (unsigned long long)e->usize);
			goto out;
		}
		zs->next_out = buf + want;
		if (ret == Z_STREAM_END)
			ended = true;
	}
	if (ret != Z_OK && ret != Z_STREAM_END && ret != Z_BUF_ERROR)
		rc = fail(z->err, z->path, ENTRY_FMT ": bad deflate data: %s", ENTRY_ARG(e),
			  zs->msg ? zs->msg : "zlib error");
	else if ((uint64_t)(zs->next_out - buf) < want && ended)
		rc = fail(z->err, z->path, ENTRY_FMT ": the deflate stream ends after %llu of %llu bytes",
			  ENTRY_ARG(e), (unsigned long long)(zs->next_out - buf), (unsigned long long)want);
	else if ((uint64_t)(zs->next_out - buf) < want || (want == e->usize && !ended))
		rc = fail(z->err, z->path, ENTRY_FMT ": truncated deflate stream", ENTRY_ARG(e));
out:
	inflateEnd(zs);
	z->zs_live = false;
	z->inflating = NULL;
	if (rc) {
		free(buf);
		return rc;
	}
	*out = buf;
	return 0;
}

/*
 * The first `want` bytes of an entry: in place in the mapping when it is
 * stored, else inflated into *owned (which the caller frees).
 */
static int zip_entry_bytes(struct pt_reader *z, const struct zip_entry *e, uint64_t want, const unsigned char **out,
			   unsigned char **owned)
{
	size_t start = 0;
	*owned = NULL;
	if (e->flags & 1)
		return fail(z->err, z->path, ENTRY_FMT " is encrypted", ENTRY_ARG(e));
	if (want > e->usize)
		return fail(z->err, z->path, ENTRY_FMT " holds %llu bytes; %llu are needed", ENTRY_ARG(e),
			    (unsigned long long)e->usize, (unsigned long long)want);
	if (zip_entry_start(z, e, &start))
		return -1;
	if (e->method == 0) {
		if (e->csize != e->usize)
			return fail(z->err, z->path, ENTRY_FMT ": a stored entry of %llu bytes that takes %llu",
				    ENTRY_ARG(e), (unsigned long long)e->usize, (unsigned long long)e->csize);
		*out = z->file + start;
		return 0;
	}
	if (e->method != 8)
		return fail(z->err, z->path, ENTRY_FMT ": compression method %u is not supported", ENTRY_ARG(e),
			    e->method);
	if (zip_inflate(z, e, z->file + start, want, owned))
		return -1;
	*out = *owned;
	return 0;
}

/* The archive's data.pkl, "<stem>/data.pkl" with a stem of one path component; it names the stem. */
static int pt_find_pickle(struct pt_reader *z, const struct zip_entry **pkl)
{
	static const char suffix[] = "/data.pkl";
	const size_t slen = sizeof(suffix) - 1;
	*pkl = NULL;
	for (size_t i = 0; i < z->nentries; i++) {
		const struct zip_entry *e = &z->entries[i];
		if (e->name_len <= slen || memcmp(e->name + e->name_len - slen, suffix, slen) ||
		    memchr(e->name, '/', e->name_len - slen))
			continue;
		if (*pkl)
			return fail(z->err, z->path, "two data.pkl entries in the archive: %.*s and %.*s",
				    ENTRY_ARG(*pkl), ENTRY_ARG(e));
		*pkl = e;
	}
	if (!*pkl)
		return fail(z->err, z->path, "no data.pkl in the zip archive: not a file written by torch.save");
	z->stem = (*pkl)->name;
	z->stem_len = (*pkl)->name_len - slen;
	return 0;
}

/* The entry "<stem>/<rest>", or NULL; two entries of that name are an error. */
static int pt_find(struct pt_reader *z, const char *rest, size_t rest_len, const struct zip_entry **found)
{
	*found = NULL;
	for (size_t i = 0; i < z->nentries; i++) {
		const struct zip_entry *e = &z->entries[i];
		if (e->name_len != z->stem_len + 1 + rest_len || memcmp(e->name, z->stem, z->stem_len) ||
		    e->name[z->stem_len] != '/' || memcmp(e->name + z->stem_len + 1, rest, rest_len))
			continue;
		if (*found)
			return fail(z->err, z->path, "two zip entries named %.*s", ENTRY_ARG(e));
		*found = e;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The pickle machine                                                  */

/*
 * Objects live in one array and are named by their index there; a tuple
 * lists its items' indices in `items`.  Lists and dicts keep only a
 * count: nothing of a saved tensor lives in them (the backward hooks are
 * empty, the metadata and state dicts are not needed).  Every array has a
 * fixed ceiling, so data.pkl cannot make the machine grow without bound,
 * and nothing recurses on the input's nesting.
 */

#define PK_MAX_VALUES 65536
#define PK_MAX_ITEMS 65536
#define PK_MAX_DEPTH 1024
#define PK_MAX_MARKS 256
#define PK_MAX_MEMO 65536
#define PK_MAX_VIEWS 8
#define PK_MAX_LINE 256 /* GLOBAL's module and name lines */
#define PK_MAX_KEY 255  /* storage keys are small decimal numbers */

enum pk_kind {
	PK_NONE, PK_BOOL, PK_INT, PK_FLOAT, PK_STR, PK_TUPLE, PK_LIST, PK_DICT, PK_GLOBAL, PK_STORAGE, PK_TENSOR
};

enum pk_global {
	G_REBUILD_V2,
	G_REBUILD_V3,
	G_REBUILD_PARAMETER,
	G_REBUILD_PARAMETER_STATE,
	G_REBUILD_FROM_TYPE,
	G_ORDERED_DICT,
	G_TENSOR_CLASS,
	G_PARAMETER_CLASS,
	G_TYPED_STORAGE,
	G_UNTYPED_STORAGE,
	G_DTYPE,
};

struct pk_value {
	enum pk_kind kind;
	union {
		int64_t i; /* PK_INT, PK_BOOL */
		double f;
		struct { const unsigned char *s; size_t len; } str;
		struct { uint32_t first, n; } tuple; /* items[first .. first + n) */
		uint64_t count;                      /* PK_LIST, PK_DICT: contents are dropped */
		struct { enum pk_global g; int dtype; } global;
		/* dtype -1: an untyped storage, whose numel counts bytes */
		struct { const unsigned char *key; size_t key_len; int dtype; int64_t numel; } storage;
		struct { uint32_t view; bool requires_grad; } tensor;
	} u;
};

struct pk_view {
	uint32_t storage; /* a PK_STORAGE value */
	int dtype;
	int64_t offset;
	int ndim;
	int64_t shape[TENSOR_MAX_DIMS], stride[TENSOR_MAX_DIMS];
};

struct pickle {
	const char *path;
	struct strbuf *err;
	const unsigned char *data;
	size_t len, pos, op; /* op: where the current opcode is, for messages */
	struct pk_value *values;
	size_t nvalues, values_alloc;
	uint32_t *items;
	size_t nitems, items_alloc;
	uint32_t stack[PK_MAX_DEPTH];
	size_t depth;
	size_t marks[PK_MAX_MARKS];
	size_t nmarks;
	uint32_t *memo; /* value index + 1; 0: unset */
	size_t memo_alloc, memo_count; /* memo_count: indices set, where MEMOIZE stores next */
	struct pk_view views[PK_MAX_VIEWS];
	unsigned nviews;
};

static int pk_fail(struct pickle *pk, const char *fmt, ...) PRINTF_LIKE(2, 3);
static int pk_fail(struct pickle *pk, const char *fmt, ...)
{
	va_list ap;
	strbuf_addf(pk->err, "%s: data.pkl byte %zu: ", pk->path, pk->op);
	va_start(ap, fmt);
	strbuf_vaddf(pk->err, fmt, ap);
	va_end(ap);
	return -1;
}

static const char *pk_kind_name(enum pk_kind k)
{
	static const char *const names[] = { "None", "a bool", "an int", "a float", "a str", "a tuple",
					     "a list", "a dict", "a global", "a storage", "a tensor" };
	return names[k];
}

static struct pk_value *pk_val(struct pickle *pk, uint32_t i)
{
	return &pk->values[i];
}

static int pk_take(struct pickle *pk, size_t n, const unsigned char **p)
{
	if (n > pk->len - pk->pos)
		return pk_fail(pk, "truncated: opcode 0x%02x needs %zu more bytes", pk->data[pk->op], n);
	*p = pk->data + pk->pos;
	pk->pos += n;
	return 0;
}

static int pk_new(struct pickle *pk, const struct pk_value *v, uint32_t *idx)
{
	if (pk->nvalues >= PK_MAX_VALUES)
		return pk_fail(pk, "more than %d objects: not one tensor", PK_MAX_VALUES);
	ALLOC_GROW(pk->values, pk->nvalues + 1, pk->values_alloc);
	pk->values[pk->nvalues] = *v;
	*idx = (uint32_t)pk->nvalues++;
	return 0;
}

static int pk_push(struct pickle *pk, uint32_t idx)
{
	if (pk->depth >= PK_MAX_DEPTH)
		return pk_fail(pk, "the stack grows beyond %d objects", PK_MAX_DEPTH);
	pk->stack[pk->depth++] = idx;
	return 0;
}

static int pk_push_new(struct pickle *pk, const struct pk_value *v)
{
	uint32_t idx;
	return pk_new(pk, v, &idx) ? -1 : pk_push(pk, idx);
}

/* The stack above the innermost mark is all an opcode may pop. */
static size_t pk_floor(const struct pickle *pk)
{
	return pk->nmarks ? pk->marks[pk->nmarks - 1] : 0;
}

static int pk_pop(struct pickle *pk, uint32_t *idx)
{
	if (pk->depth <= pk_floor(pk))
		return pk_fail(pk, "stack underflow");
	*idx = pk->stack[--pk->depth];
	return 0;
}

static int pk_top(struct pickle *pk, uint32_t *idx)
{
	if (pk->depth <= pk_floor(pk))
		return pk_fail(pk, "stack underflow");
	*idx = pk->stack[pk->depth - 1];
	return 0;
}

/* The stack above the innermost mark; the mark is removed. */
static int pk_pop_mark(struct pickle *pk, size_t *from)
{
	if (!pk->nmarks)
		return pk_fail(pk, "no MARK to pop to");
	*from = pk->marks[--pk->nmarks];
	return 0;
}

/* A tuple of the n values at stack[from ...], which leave the stack. */
static int pk_make_tuple(struct pickle *pk, size_t from)
{
	size_t n = pk->depth - from;
	struct pk_value v = { .kind = PK_TUPLE };
	if (n > PK_MAX_ITEMS - pk->nitems)
		return pk_fail(pk, "more than %d tuple items: not one tensor", PK_MAX_ITEMS);
	ALLOC_GROW(pk->items, pk->nitems + n, pk->items_alloc);
	if (n) /* items is still NULL before the first item */
		memcpy(pk->items + pk->nitems, pk->stack + from, n * sizeof(*pk->items));
	v.u.tuple.first = (uint32_t)pk->nitems;
	v.u.tuple.n = (uint32_t)n;
	pk->nitems += n;
	pk->depth = from;
	return pk_push_new(pk, &v);
}

static int pk_tuple_n(struct pickle *pk, size_t n)
{
	if (pk->depth - pk_floor(pk) < n)
		return pk_fail(pk, "stack underflow");
	return pk_make_tuple(pk, pk->depth - n);
}

static const struct pk_value *pk_item(struct pickle *pk, const struct pk_value *tuple, size_t i)
{
	return &pk->values[pk->items[tuple->u.tuple.first + i]];
}

static int pk_memo_put(struct pickle *pk, uint64_t i)
{
	uint32_t top = 0;
	if (i >= PK_MAX_MEMO)
		return pk_fail(pk, "memo index %llu out of range", (unsigned long long)i);
	if (pk_top(pk, &top))
		return -1;
	if (i >= pk->memo_alloc) {
		size_t old = pk->memo_alloc;
		ALLOC_GROW(pk->memo, i + 1, pk->memo_alloc);
		memset(pk->memo + old, 0, (pk->memo_alloc - old) * sizeof(*pk->memo));
	}
	if (!pk->memo[i])
		pk->memo_count++;
	pk->memo[i] = top + 1;
	return 0;
}

static int pk_memo_get(struct pickle *pk, uint64_t i)
{
	if (i >= pk->memo_alloc || !pk->memo[i])
		return pk_fail(pk, "memo index %llu was never set", (unsigned long long)i);
	return pk_push(pk, pk->memo[i] - 1);
}

/* One "text\n" line of a GLOBAL opcode. */
static int pk_line(struct pickle *pk, const unsigned char **s, size_t *n)
{
	size_t avail = pk->len - pk->pos;
	const unsigned char *start = pk->data + pk->pos;
	const unsigned char *nl = memchr(start, '\n', avail < PK_MAX_LINE ? avail : PK_MAX_LINE);
	if (!nl)
		return pk_fail(pk, "GLOBAL without a newline in its first %d bytes", PK_MAX_LINE);
	*s = start;
	*n = (size_t)(nl - start);
	pk->pos += *n + 1;
	return 0;
}

static bool is(const unsigned char *s, size_t n, const char *word)
{
	return strlen(word) == n && !memcmp(s, word, n);
}

/* The closed set of globals a saved tensor uses; anything else is refused. */
static int pk_global(struct pickle *pk, const unsigned char *mod, size_t ml, const unsigned char *name, size_t nl)
{
	static const struct { const char *mod, *name; enum pk_global g; } known[] = {
		{ "torch._utils", "_rebuild_tensor_v2", G_REBUILD_V2 },
		{ "torch._utils", "_rebuild_tensor_v3", G_REBUILD_V3 },
		{ "torch._utils", "_rebuild_parameter", G_REBUILD_PARAMETER },
		{ "torch._utils", "_rebuild_parameter_with_state", G_REBUILD_PARAMETER_STATE },
		{ "torch._tensor", "_rebuild_from_type_v2", G_REBUILD_FROM_TYPE },
		{ "collections", "OrderedDict", G_ORDERED_DICT },
		{ "torch._tensor", "Tensor", G_TENSOR_CLASS },
		{ "torch", "Tensor", G_TENSOR_CLASS },
		{ "torch.nn.parameter", "Parameter", G_PARAMETER_CLASS },
		{ "torch.storage", "UntypedStorage", G_UNTYPED_STORAGE },
		{ "torch", "UntypedStorage", G_UNTYPED_STORAGE },
	};
	struct pk_value v = { .kind = PK_GLOBAL };
	int d;
	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (is(mod, ml, known[i].mod) && is(name, nl, known[i].name)) {
			v.u.global.g = known[i].g;
			v.u.global.dtype = -1;
			return pk_push_new(pk, &v);
		}
	if (is(mod, ml, "torch")) {
		if ((d = dtype_from_storage((const char *)name, nl)) >= 0) {
			v.u.global.g = G_TYPED_STORAGE;
			v.u.global.dtype = d;
			return pk_push_new(pk, &v);
		}
		/* torch.float32 and the like pickle as GLOBAL 'torch float32' */
		if ((d = dtype_from_torch((const char *)name, nl)) >= 0) {
			v.u.global.g = G_DTYPE;
			v.u.global.dtype = d;
			return pk_push_new(pk, &v);
		}
	}
	return pk_fail(pk, "unknown global %.*s.%.*s", (int)ml, (const char *)mod, (int)nl, (const char *)name);
}

/* ('storage', storage class, key, location, numel) -> a storage reference */
static int pk_persistent(struct pickle *pk, uint32_t pid_idx)
{
	const struct pk_value *pid = pk_val(pk, pid_idx), *tag, *cls, *key, *loc, *numel;
	struct pk_value v = { .kind = PK_STORAGE };
	if (pid->kind != PK_TUPLE || pid->u.tuple.n != 5)
		return pk_fail(pk, "persistent id is not a 5-tuple ('storage', class, key, location, numel)");
	tag = pk_item(pk, pid, 0), cls = pk_item(pk, pid, 1), key = pk_item(pk, pid, 2);
	loc = pk_item(pk, pid, 3), numel = pk_item(pk, pid, 4);
	if (tag->kind != PK_STR || !is(tag->u.str.s, tag->u.str.len, "storage"))
		return pk_fail(pk, "persistent id is not a storage");
	if (cls->kind != PK_GLOBAL || (cls->u.global.g != G_TYPED_STORAGE && cls->u.global.g != G_UNTYPED_STORAGE))
		return pk_fail(pk, "persistent id names no storage class");
	if (key->kind != PK_STR || !key->u.str.len || key->u.str.len > PK_MAX_KEY)
		return pk_fail(pk, "storage key is not a short string");
	if (loc->kind != PK_STR)
		return pk_fail(pk, "storage location is not a string");
	if (numel->kind != PK_INT || numel->u.i < 0)
		return pk_fail(pk, "storage size is not a non-negative integer");
	v.u.storage.key = key->u.str.s;
	v.u.storage.key_len = key->u.str.len;
	v.u.storage.dtype = cls->u.global.g == G_TYPED_STORAGE ? cls->u.global.dtype : -1;
	v.u.storage.numel = numel->u.i;
	return pk_push_new(pk, &v);
}

static int pk_int_tuple(struct pickle *pk, const struct pk_value *t, const char *what, int64_t *out, int *n)
{
	if (t->kind != PK_TUPLE)
		return pk_fail(pk, "tensor %s is %s, not a tuple", what, pk_kind_name(t->kind));
	if (t->u.tuple.n > TENSOR_MAX_DIMS)
		return pk_fail(pk, "tensor %s has %u dimensions; at most %d are supported", what, t->u.tuple.n,
			       TENSOR_MAX_DIMS);
	for (uint32_t i = 0; i < t->u.tuple.n; i++) {
		const struct pk_value *v = pk_item(pk, t, i);
		if (v->kind != PK_INT)
			return pk_fail(pk, "tensor %s holds %s", what, pk_kind_name(v->kind));
		if (v->u.i < 0)
			return pk_fail(pk, "tensor %s holds a negative number: %lld", what, (long long)v->u.i);
		out[i] = v->u.i;
	}
	*n = (int)t->u.tuple.n;
	return 0;
}

/*
 * _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks[, metadata])
 * _rebuild_tensor_v3(storage, offset, size, stride, requires_grad, hooks, dtype[, metadata])
 */
static int pk_rebuild_tensor(struct pickle *pk, bool v3, const struct pk_value *args, uint32_t *result)
{
	const char *fn = v3 ? "_rebuild_tensor_v3" : "_rebuild_tensor_v2";
	uint32_t argc = args->u.tuple.n, fixed = v3 ? 7 : 6;
	const struct pk_value *storage, *offset, *grad, *hooks;
	struct pk_view *view;
	struct pk_value t = { .kind = PK_TENSOR };
	int n_stride;

	if (argc != fixed && argc != fixed + 1)
		return pk_fail(pk, "%s takes %u or %u arguments, not %u", fn, fixed, fixed + 1, argc);
	if (pk->nviews >= PK_MAX_VIEWS)
		return pk_fail(pk, "more than %d tensors: not one tensor", PK_MAX_VIEWS);
	view = &pk->views[pk->nviews];
	storage = pk_item(pk, args, 0), offset = pk_item(pk, args, 1);
	grad = pk_item(pk, args, 4), hooks = pk_item(pk, args, 5);
	if (storage->kind != PK_STORAGE)
		return pk_fail(pk, "%s of %s, not a storage", fn, pk_kind_name(storage->kind));
	view->storage = pk->items[args->u.tuple.first];
	view->dtype = storage->u.storage.dtype;
	if (v3) {
		const struct pk_value *dt = pk_item(pk, args, 6);
		if (dt->kind != PK_GLOBAL || dt->u.global.g != G_DTYPE)
			return pk_fail(pk, "%s: argument 7 is not a torch dtype", fn);
		if (view->dtype >= 0 && view->dtype != dt->u.global.dtype)
			return pk_fail(pk, "%s: a %s storage read as %s", fn, dtype_info(view->dtype)->name,
				       dtype_info(dt->u.global.dtype)->name);
		view->dtype = dt->u.global.dtype;
	} else if (view->dtype < 0) {
		return pk_fail(pk, "%s of an untyped storage: the element type is unknown", fn);
	}
	if (offset->kind != PK_INT || offset->u.i < 0)
		return pk_fail(pk, "%s: the storage offset is not a non-negative integer", fn);
	view->offset = offset->u.i;
	if (pk_int_tuple(pk, pk_item(pk, args, 2), "size", view->shape, &view->ndim) ||
	    pk_int_tuple(pk, pk_item(pk, args, 3), "stride", view->stride, &n_stride))
		return -1;
	if (n_stride != view->ndim)
		return pk_fail(pk, "%s: %d sizes but %d strides", fn, view->ndim, n_stride);
	if (grad->kind != PK_BOOL)
		return pk_fail(pk, "%s: requires_grad is %s, not a bool", fn, pk_kind_name(grad->kind));
	if (hooks->kind != PK_DICT)
		return pk_fail(pk, "%s: backward hooks are %s, not a dict", fn, pk_kind_name(hooks->kind));
	if (argc == fixed + 1 && pk_item(pk, args, fixed)->kind != PK_DICT)
		return pk_fail(pk, "%s: the metadata is not a dict", fn);
	t.u.tensor.view = pk->nviews++;
	t.u.tensor.requires_grad = grad->u.i != 0;
	return pk_new(pk, &t, result);
}

/* _rebuild_parameter(tensor, requires_grad, hooks) and _rebuild_parameter_with_state(..., state) */
static int pk_rebuild_parameter(struct pickle *pk, bool with_state, const struct pk_value *args, uint32_t *result)
{
	const struct pk_value *data, *grad;
	struct pk_value t;
	uint32_t want = with_state ? 4 : 3;
	if (args->u.tuple.n != want)
		return pk_fail(pk, "%s takes %u arguments, not %u",
			       with_state ? "_rebuild_parameter_with_state" : "_rebuild_parameter", want,
			       args->u.tuple.n);
	data = pk_item(pk, args, 0), grad = pk_item(pk, args, 1);
	if (data->kind != PK_TENSOR)
		return pk_fail(pk, "a Parameter of %s, not a tensor", pk_kind_name(data->kind));
	if (grad->kind != PK_BOOL)
		return pk_fail(pk, "a Parameter's requires_grad is %s, not a bool", pk_kind_name(grad->kind));
	if (pk_item(pk, args, 2)->kind != PK_DICT)
		return pk_fail(pk, "a Parameter's backward hooks are not a dict");
	t = *data;
	t.u.tensor.requires_grad = grad->u.i != 0;
	return pk_new(pk, &t, result);
}

static int pk_call(struct pickle *pk, const struct pk_value *fn, const struct pk_value *args, uint32_t *result,
		   bool nested);

/* _rebuild_from_type_v2(func, Tensor or Parameter, args, state): torch 2.x, for tensors with Python attributes */
static int pk_rebuild_from_type(struct pickle *pk, const struct pk_value *args, uint32_t *result, bool nested)
{
	const struct pk_value *fn, *cls, *inner;
	if (nested)
		return pk_fail(pk, "_rebuild_from_type_v2 inside _rebuild_from_type_v2");
	if (args->u.tuple.n != 4)
		return pk_fail(pk, "_rebuild_from_type_v2 takes 4 arguments, not %u", args->u.tuple.n);
	fn = pk_item(pk, args, 0), cls = pk_item(pk, args, 1), inner = pk_item(pk, args, 2);
	if (cls->kind != PK_GLOBAL || (cls->u.global.g != G_TENSOR_CLASS && cls->u.global.g != G_PARAMETER_CLASS))
		return pk_fail(pk, "_rebuild_from_type_v2 of a type other than Tensor or Parameter");
	if (inner->kind != PK_TUPLE)
		return pk_fail(pk, "_rebuild_from_type_v2: the arguments are %s, not a tuple",
			       pk_kind_name(inner->kind));
	return pk_call(pk, fn, inner, result, true);
}

/* REDUCE: fn(*args), for the callables of the closed set. */
static int pk_call(struct pickle *pk, const struct pk_value *fn, const struct pk_value *args, uint32_t *result,
		   bool nested)
{
	if (args->kind != PK_TUPLE)
		return pk_fail(pk, "call arguments are %s, not a tuple", pk_kind_name(args->kind));
	if (fn->kind != PK_GLOBAL)
		return pk_fail(pk, "call of %s", pk_kind_name(fn->kind));
	switch (fn->u.global.g) {
	case G_REBUILD_V2:
	case G_REBUILD_V3:
		return pk_rebuild_tensor(pk, fn->u.global.g == G_REBUILD_V3, args, result);
	case G_REBUILD_PARAMETER:
	case G_REBUILD_PARAMETER_STATE:
		return pk_rebuild_parameter(pk, fn->u.global.g == G_REBUILD_PARAMETER_STATE, args, result);
	case G_REBUILD_FROM_TYPE:
		return pk_rebuild_from_type(pk, args, result, nested);
	case G_ORDERED_DICT: {
		struct pk_value d = { .kind = PK_DICT };
		if (args->u.tuple.n)
			return pk_fail(pk, "OrderedDict called with %u arguments", args->u.tuple.n);
		return pk_new(pk, &d, result);
	}
	default:
		return pk_fail(pk, "a call of something that is not a tensor rebuild function");
	}
}

static int pk_reduce(struct pickle *pk, bool newobj)
{
	uint32_t fn = 0, args = 0, result = 0;
	if (pk_pop(pk, &args) || pk_pop(pk, &fn))
		return -1;
	if (newobj) {
		/* cls.__new__(cls, *args): only OrderedDict() makes sense here */
		const struct pk_value *c = pk_val(pk, fn);
		if (c->kind != PK_GLOBAL || c->u.global.g != G_ORDERED_DICT)
			return pk_fail(pk, "NEWOBJ of something other than OrderedDict");
	}
	if (pk_call(pk, pk_val(pk, fn), pk_val(pk, args), &result, false))
		return -1;
	return pk_push(pk, result);
}

/* APPEND(S) and SETITEM(S): the target keeps a count; its contents are never needed. */
static int pk_add_items(struct pickle *pk, enum pk_kind kind, size_t from, size_t per_item)
{
	size_t n = pk->depth - from;
	struct pk_value *target;
	if (from == 0 || from <= pk_floor(pk))
		return pk_fail(pk, "stack underflow");
	target = pk_val(pk, pk->stack[from - 1]);
	if (target->kind != kind)
		return pk_fail(pk, "adding items to %s, not %s", pk_kind_name(target->kind), pk_kind_name(kind));
	if (n % per_item)
		return pk_fail(pk, "odd number of stack items for SETITEMS");
	target->u.count += n / per_item;
	pk->depth = from;
	return 0;
}

static int pk_int_operand(struct pickle *pk, size_t n, bool is_signed_long)
{
	const unsigned char *p = NULL;
	struct pk_value v = { .kind = PK_INT };
	uint64_t u = 0;
	if (pk_take(pk, n, &p))
		return -1;
	for (size_t i = 0; i < n; i++)
		u |= (uint64_t)p[i] << (8 * i);
	if (is_signed_long && n && n < 8 && (p[n - 1] & 0x80))
		u |= ~(uint64_t)0 << (8 * n); /* sign-extend two's complement */
	else if (n == 4 && !is_signed_long)
		u = (uint64_t)(int64_t)(int32_t)(uint32_t)u; /* BININT is signed 32-bit */
	memcpy(&v.u.i, &u, sizeof(u));
	return pk_push_new(pk, &v);
}

static int pk_long(struct pickle *pk, size_t len_bytes)
{
	const unsigned char *p = NULL;
	uint64_t n;
	if (pk_take(pk, len_bytes, &p))
		return -1;
	n = len_bytes == 1 ? p[0] : get32(p);
	if (n > 8)
		return pk_fail(pk, "an integer of %llu bytes is too large", (unsigned long long)n);
	return pk_int_operand(pk, (size_t)n, true);
}

static int pk_string(struct pickle *pk, size_t len_bytes)
{
	const unsigned char *p = NULL;
	uint64_t n;
	struct pk_value v = { .kind = PK_STR };
	if (pk_take(pk, len_bytes, &p))
		return -1;
	n = len_bytes == 1 ? p[0] : len_bytes == 4 ? get32(p) : get64(p);
	if (n > pk->len - pk->pos)
		return pk_fail(pk, "a string of %llu bytes runs past the end of data.pkl", (unsigned long long)n);
	v.u.str.s = pk->data + pk->pos;
	v.u.str.len = (size_t)n;
	pk->pos += (size_t)n;
	return pk_push_new(pk, &v);
}

static int pk_float(struct pickle *pk)
{
	const unsigned char *p = NULL;
	struct pk_value v = { .kind = PK_FLOAT };
	uint64_t u = 0;
	if (pk_take(pk, 8, &p))
		return -1;
	for (int i = 0; i < 8; i++)
		u = u << 8 | p[i]; /* BINFLOAT is big-endian */
	memcpy(&v.u.f, &u, 8);
	return pk_push_new(pk, &v);
}

static int pk_stack_global(struct pickle *pk)
{
	uint32_t mod = 0, name = 0;
	const struct pk_value *m, *n;
	if (pk_pop(pk, &name) || pk_pop(pk, &mod))
		return -1;
	m = pk_val(pk, mod), n = pk_val(pk, name);
	if (m->kind != PK_STR || n->kind != PK_STR)
		return pk_fail(pk, "STACK_GLOBAL of %s and %s, not two strings", pk_kind_name(m->kind),
			       pk_kind_name(n->kind));
	return pk_global(pk, m->u.str.s, m->u.str.len, n->u.str.s, n->u.str.len);
}

static int pk_build(struct pickle *pk)
{
	uint32_t state = 0, target = 0;
	if (pk_pop(pk, &state) || pk_top(pk, &target))
		return -1;
	/* an OrderedDict with instance attributes; nothing else of ours takes a state */
	if (pk_val(pk, target)->kind != PK_DICT)
		return pk_fail(pk, "BUILD of %s", pk_kind_name(pk_val(pk, target)->kind));
	return 0;
}

/* One opcode; 1 at STOP. */
static int pk_step(struct pickle *pk)
{
	const unsigned char *p = NULL;
	struct pk_value v = { .kind = PK_NONE };
	uint32_t a = 0;
	size_t from = 0;
	unsigned op;

	pk->op = pk->pos;
	if (pk->pos >= pk->len)
		return pk_fail(pk, "the pickle ends without STOP");
	op = pk->data[pk->pos++];
	switch (op) {
	case 0x80: /* PROTO */
		if (pk_take(pk, 1, &p))
			return -1;
		if (*p < 2 || *p > 5)
			return pk_fail(pk, "pickle protocol %u is not supported", *p);
		return 0;
	case 0x95: /* FRAME: a length to skip over; the frame's contents are ordinary opcodes */
		if (pk_take(pk, 8, &p))
			return -1;
		if (get64(p) > pk->len - pk->pos)
			return pk_fail(pk, "a frame of %llu bytes runs past the end of data.pkl",
				       (unsigned long long)get64(p));
		return 0;
	case '.': /* STOP */
		return 1;
	case '(': /* MARK */
		if (pk->nmarks >= PK_MAX_MARKS)
			return pk_fail(pk, "more than %d nested MARKs", PK_MAX_MARKS);
		pk->marks[pk->nmarks++] = pk->depth;
		return 0;
	case 't': /* TUPLE */
		return pk_pop_mark(pk, &from) ? -1 : pk_make_tuple(pk, from);
	case ')': /* EMPTY_TUPLE */
		return pk_tuple_n(pk, 0);
	case 0x85: /* TUPLE1 */
		return pk_tuple_n(pk, 1);
	case 0x86: /* TUPLE2 */
		return pk_tuple_n(pk, 2);
	case 0x87: /* TUPLE3 */
		return pk_tuple_n(pk, 3);
	case ']': /* EMPTY_LIST */
		v.kind = PK_LIST;
		return pk_push_new(pk, &v);
	case '}': /* EMPTY_DICT */
		v.kind = PK_DICT;
		return pk_push_new(pk, &v);
	case 'a': /* APPEND */
		if (pk->depth <= pk_floor(pk))
			return pk_fail(pk, "stack underflow");
		return pk_add_items(pk, PK_LIST, pk->depth - 1, 1);
	case 'e': /* APPENDS */
		return pk_pop_mark(pk, &from) ? -1 : pk_add_items(pk, PK_LIST, from, 1);
	case 's': /* SETITEM */
		if (pk->depth < pk_floor(pk) + 2)
			return pk_fail(pk, "stack underflow");
		return pk_add_items(pk, PK_DICT, pk->depth - 2, 2);
	case 'u': /* SETITEMS */
		return pk_pop_mark(pk, &from) ? -1 : pk_add_items(pk, PK_DICT, from, 2);
	case 'X': /* BINUNICODE */
		return pk_string(pk, 4);
	case 0x8c: /* SHORT_BINUNICODE */
		return pk_string(pk, 1);
	case 0x8d: /* BINUNICODE8 */
		return pk_string(pk, 8);
	case 'J': /* BININT */
		return pk_int_operand(pk, 4, false);
	case 'K': /* BININT1 */
		return pk_int_operand(pk, 1, false);
	case 'M': /* BININT2 */
		return pk_int_operand(pk, 2, false);
	case 0x8a: /* LONG1 */
		return pk_long(pk, 1);
	case 0x8b: /* LONG4 */
		return pk_long(pk, 4);
	case 0x88: /* NEWTRUE */
	case 0x89: /* NEWFALSE */
		v.kind = PK_BOOL;
		v.u.i = op == 0x88;
		return pk_push_new(pk, &v);
	case 'N': /* NONE */
		return pk_push_new(pk, &v);
	case 'G': /* BINFLOAT */
		return pk_float(pk);
	case 'c': { /* GLOBAL */
		const unsigned char *mod, *name;
		size_t ml, nl;
		if (pk_line(pk, &mod, &ml) || pk_line(pk, &name, &nl))
			return -1;
		return pk_global(pk, mod, ml, name, nl);
	}
	case 0x93: /* STACK_GLOBAL */
		return pk_stack_global(pk);
	case 'Q': /* BINPERSID */
		return pk_pop(pk, &a) ? -1 : pk_persistent(pk, a);
	case 'R': /* REDUCE */
		return pk_reduce(pk, false);
	case 0x81: /* NEWOBJ */
		return pk_reduce(pk, true);
	case 'b': /* BUILD */
		return pk_build(pk);
	case 'q': /* BINPUT */
		return pk_take(pk, 1, &p) ? -1 : pk_memo_put(pk, p[0]);
	case 'r': /* LONG_BINPUT */
		return pk_take(pk, 4, &p) ? -1 : pk_memo_put(pk, get32(p));
	case 0x94: /* MEMOIZE */
		return pk_memo_put(pk, pk->memo_count);
	case 'h': /* BINGET */
		return pk_take(pk, 1, &p) ? -1 : pk_memo_get(pk, p[0]);
	case 'j': /* LONG_BINGET */
		return pk_take(pk, 4, &p) ? -1 : pk_memo_get(pk, get32(p));
	default:
		return pk_fail(pk, "unknown pickle opcode 0x%02x", op);
	}
}

/* Run data.pkl to its STOP; the result must be one tensor. */
static int pk_run(struct pickle *pk, const struct pk_value **tensor)
{
	int r;
	uint32_t top;
	const struct pk_value *v;
	while (!(r = pk_step(pk)))
		;
	if (r < 0)
		return -1;
	if (pk->nmarks)
		return pk_fail(pk, "STOP with a MARK still open");
	if (pk->depth != 1)
		return pk_fail(pk, "STOP with %zu objects on the stack, not one tensor", pk->depth);
	top = pk->stack[0];
	v = pk_val(pk, top);
	if (v->kind != PK_TENSOR)
		return pk_fail(pk, "the pickle holds %s, not a tensor", pk_kind_name(v->kind));
	*tensor = v;
	return 0;
}

static void pk_release(struct pickle *pk)
{
	free(pk->values);
	free(pk->items);
	free(pk->memo);
}

/* ------------------------------------------------------------------ */
/* .pt                                                                 */

/* What the pickle said about the tensor, copied out of the pickle's memory. */
struct pt_desc {
	int dtype;
	bool untyped;
	int64_t storage_numel; /* elements, or bytes when untyped */
	char key[PK_MAX_KEY + 1];
	size_t key_len;
	int64_t offset;
	bool requires_grad;
};

static int pt_run_pickle(struct pt_reader *z, struct tensor *t, const unsigned char *data, size_t len,
			 struct pt_desc *desc)
{
	struct pickle *pk = z->pk = xcalloc(1, sizeof(*pk)); /* z holds it: see pt_reader */
	const struct pk_value *tv = NULL, *sv;
	const struct pk_view *view;
	int rc = -1;

	pk->path = z->path;
	pk->err = z->err;
	pk->data = data;
	pk->len = len;
	if (pk_run(pk, &tv))
		goto out;
	view = &pk->views[tv->u.tensor.view];
	sv = pk_val(pk, view->storage);
	desc->dtype = view->dtype;
	desc->untyped = sv->u.storage.dtype < 0;
	desc->storage_numel = sv->u.storage.numel;
	memcpy(desc->key, sv->u.storage.key, sv->u.storage.key_len);
	desc->key_len = sv->u.storage.key_len;
	desc->key[desc->key_len] = '\0';
	desc->offset = view->offset;
	desc->requires_grad = tv->u.tensor.requires_grad;
	t->dtype = (enum dtype)view->dtype;
	t->ndim = view->ndim;
	memcpy(t->shape, view->shape, sizeof(view->shape[0]) * (size_t)view->ndim);
	memcpy(t->stride, view->stride, sizeof(view->stride[0]) * (size_t)view->ndim);
	rc = 0;
out:
	pk_release(pk);
	free(pk);
	z->pk = NULL;
	return rc;
}

/* The byteorder entry of torch 2.x: true when the storages are big-endian. */
static int pt_byteorder(struct pt_reader *z, bool *big)
{
	const struct zip_entry *e;
	const unsigned char *s;
	int rc = 0;
	*big = false;
	if (pt_find(z, "byteorder", 9, &e))
		return -1;
	if (!e)
		return 0; /* torch 1.x: little-endian */
	if (e->usize > 16)
		return fail(z->err, z->path, "the byteorder entry holds %llu bytes, not \"little\" or \"big\"",
			    (unsigned long long)e->usize);
	if (zip_entry_bytes(z, e, e->usize, &s, &z->bo_owned))
		return -1;
	if (is(s, (size_t)e->usize, "big"))
		*big = true;
	else if (!is(s, (size_t)e->usize, "little"))
		rc = fail(z->err, z->path, "the byteorder entry says \"%.*s\", not \"little\" or \"big\"",
			  (int)e->usize, (const char *)s);
	free(z->bo_owned);
	z->bo_owned = NULL;
	return rc;
}

static int pt_load(struct pt_reader *z, struct tensor *t)
{
	const struct zip_entry *pkl, *st;
	const unsigned char *pkl_data, *data;
	struct pt_desc desc;
	char rest[PK_MAX_KEY + 8];
	int64_t storage_bytes, storage_elems, end, need;
	unsigned size;
	bool big;
	int rc;

	if (zip_read_directory(z) || pt_find_pickle(z, &pkl))
		return -1;
	if (pkl->usize > PKL_MAX)
		return fail(z->err, z->path, "data.pkl holds %llu bytes: too large for one tensor",
			    (unsigned long long)pkl->usize);
	if (zip_entry_bytes(z, pkl, pkl->usize, &pkl_data, &z->pkl_owned))
		return -1;
	if (crc32(0, pkl_data, (uInt)pkl->usize) != pkl->crc)
		rc = fail(z->err, z->path, "data.pkl fails its CRC check");
	else
		rc = pt_run_pickle(z, t, pkl_data, (size_t)pkl->usize, &desc);
	free(z->pkl_owned);
	z->pkl_owned = NULL;
	if (rc || pt_byteorder(z, &big))
		return -1;

	size = dtype_info(t->dtype)->size;
	if (desc.untyped) {
		storage_bytes = desc.storage_numel;
		storage_elems = storage_bytes / size;
	} else {
		storage_elems = desc.storage_numel;
		if (!mul_ok(storage_elems, size, &storage_bytes))
			return fail(z->err, z->path, "a storage of %lld elements overflows 64 bits",
				    (long long)storage_elems);
	}
	if (check_view(t, z->path, z->err, desc.offset, storage_elems, &end))
		return -1;

	memcpy(rest, "data/", 5);
	memcpy(rest + 5, desc.key, desc.key_len);
	if (pt_find(z, rest, desc.key_len + 5, &st))
		return -1;
	if (!st)
		return fail(z->err, z->path, "no entry %.*s/data/%s for the tensor's storage", (int)z->stem_len,
			    (const char *)z->stem, desc.key);
	if (st->usize < (uint64_t)storage_bytes)
		return fail(z->err, z->path,
			    ENTRY_FMT " holds %llu bytes but its storage is %lld %s elements (%lld bytes)", ENTRY_ARG(st),
			    (unsigned long long)st->usize, (long long)storage_elems,
			    dtype_info(t->dtype)->name, (long long)storage_bytes);
	need = end * (int64_t)size; /* end <= storage_elems: no overflow */
	if (zip_entry_bytes(z, st, (uint64_t)need, &data, &t->owned) ||
	    align_storage(t, &data, need, z->path, z->err))
		return -1;
	t->data = t->numel ? data + desc.offset * (int64_t)size : NULL;
	t->requires_grad = desc.requires_grad;
	t->format = TENSOR_PT;
	t->swapped = big != host_is_big_endian() && dtype_info(t->dtype)->size > 1;
	return 0;
}

/* z: zeroed, released by the caller (also after a fault) */
static int pt_open(struct tensor *t, const char *path, struct strbuf *err, struct pt_reader *z)
{
	z->path = path;
	z->err = err;
	z->file = t->map;
	z->size = t->map_len;
	return pt_load(z, t);
}

/* ------------------------------------------------------------------ */
/* .npy                                                                */

/* The header: a Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } */
struct npy_lit {
	const char *path;
	struct strbuf *err;
	const unsigned char *start, *p, *end;
};

static int npy_fail(struct npy_lit *l, const char *what)
{
	return fail(l->err, l->path, "bad .npy header at byte %zu: %s", (size_t)(l->p - l->start), what);
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
	return fail(l->err, l->path, "%s (descr '%.*s')", kind, (int)n, (const char *)d);
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
		if (is(key, klen, "descr") && !seen_descr) {
			const unsigned char *d;
			size_t dlen;
			int dt;
			seen_descr = true;
			npy_space(l);
			if (l->p < l->end && *l->p == '[')
				return fail(l->err, l->path, "structured arrays are not supported");
			if (npy_string(l, &d, &dlen))
				return -1;
			if ((dt = dtype_from_npy((const char *)d, dlen, big)) < 0)
				return npy_refuse_descr(l, d, dlen);
			t->dtype = (enum dtype)dt;
		} else if (is(key, klen, "fortran_order") && !seen_fortran) {
			seen_fortran = true;
			if (npy_bool(l, fortran))
				return -1;
		} else if (is(key, klen, "shape") && !seen_shape) {
			seen_shape = true;
			if (npy_shape(l, t))
				return -1;
		} else {
			return fail(l->err, l->path, "bad .npy header: unexpected or repeated key '%.*s'", (int)klen,
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
		return fail(l->err, l->path, "bad .npy header: it lacks '%s'",
			    !seen_descr ? "descr" : !seen_fortran ? "fortran_order" : "shape");
	return 0;
}

static int npy_open(struct tensor *t, const char *path, struct strbuf *err)
{
	const unsigned char *f = t->map;
	size_t size = t->map_len, hstart;
	uint64_t hlen;
	struct npy_lit l;
	bool fortran = false, big = false;
	int64_t end, need;

	if (size < 10)
		return fail(err, path, "truncated .npy file: %zu bytes", size);
	if (f[6] == 1 && f[7] == 0) {
		hlen = get16(f + 8);
		hstart = 10;
	} else if ((f[6] == 2 || f[6] == 3) && f[7] == 0) {
		if (size < 12)
			return fail(err, path, "truncated .npy file: %zu bytes", size);
		hlen = get32(f + 8);
		hstart = 12;
	} else {
		return fail(err, path, ".npy format version %u.%u is not supported", f[6], f[7]);
	}
	if (hlen > size - hstart)
		return fail(err, path, "the .npy header claims %llu bytes but the file holds %zu after the preamble",
			    (unsigned long long)hlen, size - hstart);
	l.path = path;
	l.err = err;
	l.start = l.p = f + hstart;
	l.end = l.p + hlen;
	if (npy_header(&l, t, &fortran, &big))
		return -1;
	if (dense_strides(t, fortran))
		return fail(err, path, "the shape holds more than 2^63 elements");
	if (check_view(t, path, err, 0, INT64_MAX, &end))
		return -1;
	if (!mul_ok(t->numel, dtype_info(t->dtype)->size, &need))
		return fail(err, path, "the array's size in bytes overflows 64 bits");
	if ((uint64_t)need > size - hstart - hlen)
		return fail(err, path, "the header says %lld elements but the file holds %zu bytes of data",
			    (long long)t->numel, size - hstart - (size_t)hlen);
	f += hstart + hlen;
	if (align_storage(t, &f, need, path, err))
		return -1;
	t->data = t->numel ? f : NULL;
	t->format = TENSOR_NPY;
	t->swapped = big != host_is_big_endian() && dtype_info(t->dtype)->size > 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Opening and closing                                                 */

static int not_regular(struct strbuf *err, const char *path, mode_t mode)
{
	return fail(err, path, "not a regular file (%s): only regular files are read as tensors", source_kind_name(mode));
}

/*
 * A descriptor of the regular file rel (in the folder dirfd, or AT_FDCWD):
 * its type looked at before it is opened (in st already when looked_at),
 * so that nothing else is opened at all, then opened without blocking (a
 * FIFO put in its place meanwhile must not hang the open) and looked at
 * again on the descriptor, then made blocking again.  nofollow: a symbolic
 * link is not followed (and refused).  -1 with the message about path.
 */
static int open_regular(int dirfd, const char *rel, bool nofollow, bool looked_at, const char *path,
			struct stat *st, struct strbuf *err)
{
	int fd;
	bool other;
	if (!looked_at && fstatat(dirfd, rel, st, nofollow ? AT_SYMLINK_NOFOLLOW : 0))
		return fail(err, path, "%s", strerror(errno));
	if (!S_ISREG(st->st_mode))
		return not_regular(err, path, st->st_mode);
	if (st->st_size == 0) /* not opened either: /proc/self/mem and its kind say 0 */
		return fail(err, path, "empty file: not a tensor");
	fd = source_open_regular_fd(dirfd, rel, nofollow ? O_NOFOLLOW : 0, st, &other);
	if (fd < 0 && other)
		return not_regular(err, path, st->st_mode);
	if (fd < 0)
		return fail(err, path, "%s", errno == ELOOP ? "a symbolic link put in the file's place" : strerror(errno));
	return fd;
}

/* Map the regular file fd (its stat in st); fd is the tensor's from here on, or closed. */
static int map_fd(struct tensor *t, int fd, const struct stat *st, const char *path, struct strbuf *err)
{
	void *map;
	if (st->st_size == 0) {
		close(fd);
		return fail(err, path, "empty file: not a tensor");
	}
	if ((uint64_t)st->st_size > SIZE_MAX) {
		close(fd);
		return fail(err, path, "too large to map");
	}
	map = mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		int e = errno;
		close(fd);
		return fail(err, path, "cannot map: %s", strerror(e));
	}
	t->map = map;
	t->map_len = (size_t)st->st_size;
	t->fd = fd;
	return 0;
}

/* ---- faults of the mapping (tensor_guard) ---- */

static _Thread_local struct tensor_guard *guard_top;
static struct sigaction guard_previous;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;

static void guard_on_sigbus(int sig, siginfo_t *si, void *context)
{
	struct tensor_guard *g = guard_top;
	(void)context;
	if (g && si->si_code > 0) {
		/* a fault (not a kill) under a guard: back to its sigsetjmp */
		g->addr = si->si_addr;
		guard_top = g->outer;
		siglongjmp(g->jump, 1);
	}
	/* not ours: whatever handled it before, the faulting read done again (or the signal raised again) */
	sigaction(SIGBUS, &guard_previous, NULL);
	if (si->si_code <= 0)
		raise(sig);
}

static void guard_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = guard_on_sigbus;
	/* SA_NODEFER: the jump out of the handler leaves SIGBUS unblocked, so sigsetjmp need not save the mask */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &guard_previous);
}

void tensor_guard_begin(struct tensor_guard *g)
{
	pthread_once(&guard_once, guard_install);
	g->addr = NULL;
	g->outer = guard_top;
	guard_top = g;
}

void tensor_guard_end(struct tensor_guard *g)
{
	if (guard_top == g)
		guard_top = g->outer;
}

bool tensor_fault_message(const struct tensor *t, const void *addr, struct strbuf *err)
{
	const unsigned char *p = addr, *map = t->map;
	if (!map || p < map || p >= map + t->map_len)
		return false;
	strbuf_addf(err, "%s: the file shrank while it was read (a fault at byte %zu of the %zu it had when it was opened)",
		    t->path ? t->path : "a tensor file", (size_t)(p - map), t->map_len);
	return true;
}

/* The format by the first bytes, and its reader; z is pt_open's, released by the caller. */
static int read_format(struct tensor *t, const char *path, struct strbuf *err, struct pt_reader *z)
{
	const unsigned char *f = t->map;
	if (t->map_len >= 6 && !memcmp(f, "\x93NUMPY", 6))
		return npy_open(t, path, err);
	if (t->map_len >= 4 && f[0] == 'P' && f[1] == 'K' && ((f[2] == 3 && f[3] == 4) || (f[2] == 5 && f[3] == 6)))
		return pt_open(t, path, err, z);
	if (t->map_len >= 2 && f[0] == 0x80 && f[1] >= 2 && f[1] <= 5)
		return fail(err, path, "a pickle, not a zip archive: torch.save's legacy format is not supported");
	return fail(err, path, "neither a torch .pt (zip) nor a .npy file");
}

/* The tensor of the regular file fd: mapped and read, a fault of the mapping caught. */
static int open_fd(struct tensor *t, int fd, const struct stat *st, const char *path, struct strbuf *err)
{
	struct pt_reader *z;
	struct tensor_guard g;
	const size_t err_len = err->len;
	volatile int rc = -1;

	if (map_fd(t, fd, st, path, err))
		return -1;
	t->path = xstrdup(path);
	z = xcalloc(1, sizeof(*z));
	tensor_guard_begin(&g);
	if (!sigsetjmp(g.jump, 0)) {
		rc = read_format(t, path, err, z);
	} else {
		strbuf_setlen(err, err_len); /* whatever a message being written had got to */
		if (!tensor_fault_message(t, g.addr, err))
			fail(err, path, "a read faulted (SIGBUS) while the file was opened");
		rc = -1;
	}
	tensor_guard_end(&g);
	pt_reader_release(z);
	free(z);
	if (rc) {
		tensor_close(t);
		return -1;
	}
	return 0;
}

int tensor_open(struct tensor *t, const char *path, struct strbuf *err)
{
	struct stat st;
	int fd;
	memset(t, 0, sizeof(*t));
	if ((fd = open_regular(AT_FDCWD, path, false, false, path, &st, err)) < 0)
		return -1;
	return open_fd(t, fd, &st, path, err);
}

/* Whether a relative name has a ".." component. */
static bool has_dotdot(const char *name)
{
	for (const char *p = name; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return true;
		p += n;
		p += strspn(p, "/");
	}
	return false;
}

/*
 * The file path names, through links, inside the folder dir (also reached
 * through links): both resolved, the file's below the folder's.  Its fd, or
 * -1 with the message.
 */
static int open_resolved_inside(const char *dir, const char *path, struct stat *st, struct strbuf *err)
{
	char *real_dir = realpath(dir, NULL), *real = NULL;
	size_t n;
	int fd = -1;
	if (!real_dir)
		return fail(err, path, "its folder %s: %s", dir, strerror(errno));
	if (!(real = realpath(path, NULL))) {
		fail(err, path, "%s", strerror(errno));
		goto out;
	}
	n = strlen(real_dir);
	if (n == 1) /* the folder is "/" */
		n = 0;
	if (strncmp(real, real_dir, n) || real[n] != '/') {
		fail(err, path, "resolves to %s, outside the tensor folder %s: only files inside the tensor folder are read",
		     real, real_dir);
		goto out;
	}
	/* real has no links left: one put in its place since is not followed */
	fd = open_regular(AT_FDCWD, real, true, false, path, st, err);
out:
	free(real_dir);
	free(real);
	return fd;
}

int tensor_open_leaf(struct tensor *t, const char *path, const char *name, struct strbuf *err)
{
	struct strbuf dir = STRBUF_INIT;
	const char *rel, *slash;
	size_t plen = strlen(path), nlen = name ? strlen(name) : 0;
	struct stat st;
	int fd = -1;

	memset(t, 0, sizeof(*t));
	if (nlen && name[0] == '/')
		return fail(err, path, "data_name \"%s\" is an absolute path: only files inside the tensor folder are read",
			    name);
	if (nlen && has_dotdot(name))
		return fail(err, path, "data_name \"%s\" has a \"..\" component: only files inside the tensor folder are read",
			    name);
	if (nlen && plen >= nlen && !strcmp(path + plen - nlen, name) && (plen == nlen || path[plen - nlen - 1] == '/')) {
		/* the folder is what comes before the name */
		strbuf_add(&dir, path, plen - nlen);
		rel = name;
	} else {
		/* no name, or another one than path's end: the file path's directory holds */
		slash = strrchr(path, '/');
		if (slash)
			strbuf_add(&dir, path, (size_t)(slash - path) + 1);
		rel = slash ? slash + 1 : path;
		if (!*rel || !strcmp(rel, ".") || !strcmp(rel, "..")) {
			strbuf_release(&dir);
			return fail(err, path, "names a folder, not a file");
		}
	}
	if (!dir.len)
		strbuf_addstr(&dir, ".");

	/*
	 * rel is path's last component: the folder's own links are followed, rel's not.
	 * A name in a folder of the tensor folder (whose components may be links), or a
	 * link: both resolved, followed only to a file inside the folder.
	 */
	if (!strchr(rel, '/') && fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW))
		fail(err, path, "%s", strerror(errno));
	else if (strchr(rel, '/') || S_ISLNK(st.st_mode))
		fd = open_resolved_inside(dir.buf, path, &st, err);
	else
		fd = open_regular(AT_FDCWD, path, true, true, path, &st, err);
	strbuf_release(&dir);
	if (fd < 0)
		return -1;
	return open_fd(t, fd, &st, path, err);
}

void tensor_close(struct tensor *t)
{
	if (!t)
		return;
	if (t->map) {
		munmap(t->map, t->map_len);
		close(t->fd);
	}
	free(t->owned);
	free(t->path);
	memset(t, 0, sizeof(*t));
}

/* ------------------------------------------------------------------ */
/* Reading                                                             */

bool tensor_copy_plain(const struct tensor *t, int64_t start, int64_t n, void *out)
{
	const unsigned char *map = t->map;
	size_t size = dtype_info(t->dtype)->size, want = (size_t)n * size;
	if (!map || t->data < map || t->data >= map + t->map_len)
		return false;
	off_t at = (off_t)(t->data - map) + (off_t)((size_t)start * size);
	for (size_t got = 0; got < want;) {
		ssize_t r = pread(t->fd, (unsigned char *)out + got, want - got, at + (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}

/* n elements of `size` bytes, `step` bytes apart, packed into out. */
static void copy_strided(unsigned char *out, const unsigned char *src, ptrdiff_t step, int64_t n, unsigned size)
{
	switch (size) {
	case 1:
		for (int64_t i = 0; i < n; i++, src += step)
			out[i] = *src;
		break;
	case 2:
		for (int64_t i = 0; i < n; i++, src += step)
			memcpy(out + 2 * i, src, 2);
		break;
	case 4:
		for (int64_t i = 0; i < n; i++, src += step)
			memcpy(out + 4 * i, src, 4);
		break;
	case 8:
		for (int64_t i = 0; i < n; i++, src += step)
			memcpy(out + 8 * i, src, 8);
		break;
	default:
		for (int64_t i = 0; i < n; i++, src += step)
			memcpy(out + (size_t)i * size, src, size);
		break;
	}
}

/*
 * The view with size-1 dimensions dropped and dimensions that follow each
 * other in memory merged, so that the odometer turns as rarely as it can.
 * Returns the number of dimensions (at least 1).
 */
static int merge_dims(const struct tensor *t, int64_t *shape, int64_t *stride)
{
	int nd = 0;
	for (int d = 0; d < t->ndim; d++) {
		if (t->shape[d] == 1)
			continue;
		if (nd && stride[nd - 1] == t->stride[d] * t->shape[d]) {
			shape[nd - 1] *= t->shape[d];
			stride[nd - 1] = t->stride[d];
			continue;
		}
		shape[nd] = t->shape[d];
		stride[nd] = t->stride[d];
		nd++;
	}
	if (!nd) {
		shape[0] = 1;
		stride[0] = 1;
		nd = 1;
	}
	return nd;
}

/* Elements [start, start + n) of a non-contiguous view, in row-major order, packed into out. */
static void gather_strided(const struct tensor *t, int64_t start, int64_t n, unsigned char *out)
{
	int64_t shape[TENSOR_MAX_DIMS], stride[TENSOR_MAX_DIMS], idx[TENSOR_MAX_DIMS];
	unsigned size = dtype_info(t->dtype)->size;
	int nd = merge_dims(t, shape, stride), last = nd - 1;
	int64_t rem = start, off = 0;

	/* the odometer's starting position: the only divisions, once per call */
	for (int d = last; d >= 0; d--) {
		idx[d] = rem % shape[d];
		rem /= shape[d];
		off += idx[d] * stride[d];
	}
	while (n > 0) {
		int64_t run = shape[last] - idx[last];
		if (run > n)
			run = n;
		copy_strided(out, t->data + off * (int64_t)size, (ptrdiff_t)(stride[last] * (int64_t)size), run, size);
		out += run * (int64_t)size;
		n -= run;
		if (!n)
			break;
		/* the innermost dimension is used up: carry into the outer ones */
		off -= idx[last] * stride[last];
		idx[last] = 0;
		for (int d = last - 1; d >= 0; d--) {
			off += stride[d];
			if (++idx[d] < shape[d])
				break;
			off -= idx[d] * stride[d];
			idx[d] = 0;
		}
	}
}

void tensor_read_raw(const struct tensor *t, int64_t start, int64_t n, void *out)
{
	unsigned size = dtype_info(t->dtype)->size;
	if (n <= 0)
		return;
	if (t->contiguous)
		memcpy(out, t->data + start * (int64_t)size, (size_t)n * size);
	else
		gather_strided(t, start, n, out);
	if (t->swapped)
		dtype_swap(out, (size_t)n, t->dtype);
}

/*
 * The conversion loops work in blocks of a fixed count so that the
 * compiler vectorises them even at -O2, whose cost model only vectorises
 * loops that need no scalar remainder.
 */
#define BLOCK 16

/*
 * float16 -> float32 without branches, so that it vectorises; exact, like
 * dtype_half_to_float.  Subnormals are made by float arithmetic on a
 * normal number; every other value only by moving bits, so that NaN
 * payloads (signalling ones too) pass unchanged.
 */
static inline float half_bits_to_float(uint16_t h)
{
	uint32_t o = (uint32_t)(h & 0x7FFF) << 13;
	uint32_t exp = o & 0x0F800000u;
	/* rebias the exponent 15 -> 127; infinity and NaN keep an exponent of all ones */
	uint32_t normal = o + 0x38000000u + (exp == 0x0F800000u ? 0x38000000u : 0);
	uint32_t sub_bits = o + 0x38800000u, magic_bits = 113u << 23, sub_result, bits;
	float sub, magic, f;
	memcpy(&sub, &sub_bits, 4);  /* 2^-14 * (1 + mantissa / 1024) ... */
	memcpy(&magic, &magic_bits, 4);
	sub -= magic;                /* ... minus 2^-14: mantissa * 2^-24, exactly */
	memcpy(&sub_result, &sub, 4);
	bits = (exp == 0 ? sub_result : normal) | (uint32_t)(h & 0x8000) << 16;
	memcpy(&f, &bits, 4);
	return f;
}

#define DEFINE_CONVERT(NAME, OUT, LOAD)                                                  \
	static void NAME(const unsigned char *restrict src, size_t n, OUT *restrict out)                 \
	{                                                                                \
		size_t i = 0;                                                            \
		for (; i + BLOCK <= n; i += BLOCK)                                       \
			for (size_t j = i; j < i + BLOCK; j++)                           \
				out[j] = (OUT)LOAD(src, j);                              \
		for (; i < n; i++)                                                       \
			out[i] = (OUT)LOAD(src, i);                                      \
	}

static inline double load_f64(const unsigned char *s, size_t i) { double v; memcpy(&v, s + 8 * i, 8); return v; }
static inline float load_f32(const unsigned char *s, size_t i) { float v; memcpy(&v, s + 4 * i, 4); return v; }
static inline float load_f16(const unsigned char *s, size_t i)
{
	uint16_t v;
	memcpy(&v, s + 2 * i, 2);
	return half_bits_to_float(v);
}
static inline float load_bf16(const unsigned char *s, size_t i)
{
	uint16_t v;
	uint32_t u;
	float f;
	memcpy(&v, s + 2 * i, 2);
	u = (uint32_t)v << 16;
	memcpy(&f, &u, 4);
	return f;
}
static inline int64_t load_i64(const unsigned char *s, size_t i) { int64_t v; memcpy(&v, s + 8 * i, 8); return v; }
static inline int32_t load_i32(const unsigned char *s, size_t i) { int32_t v; memcpy(&v, s + 4 * i, 4); return v; }
static inline int16_t load_i16(const unsigned char *s, size_t i) { int16_t v; memcpy(&v, s + 2 * i, 2); return v; }
static inline int8_t load_i8(const unsigned char *s, size_t i) { return (int8_t)s[i]; }
static inline uint64_t load_u64(const unsigned char *s, size_t i) { uint64_t v; memcpy(&v, s + 8 * i, 8); return v; }
static inline uint32_t load_u32(const unsigned char *s, size_t i) { uint32_t v; memcpy(&v, s + 4 * i, 4); return v; }
static inline uint16_t load_u16(const unsigned char *s, size_t i) { uint16_t v; memcpy(&v, s + 2 * i, 2); return v; }
static inline uint8_t load_u8(const unsigned char *s, size_t i) { return s[i]; }
static inline uint8_t load_bool(const unsigned char *s, size_t i) { return s[i] != 0; }
static inline float load_c64_real(const unsigned char *s, size_t i) { float v; memcpy(&v, s + 8 * i, 4); return v; }
static inline double load_c128_real(const unsigned char *s, size_t i) { double v; memcpy(&v, s + 16 * i, 8); return v; }

DEFINE_CONVERT(f64_to_f32, float, load_f64)
DEFINE_CONVERT(f16_to_f32, float, load_f16)
DEFINE_CONVERT(bf16_to_f32, float, load_bf16)
DEFINE_CONVERT(i64_to_f32, float, load_i64)
DEFINE_CONVERT(i32_to_f32, float, load_i32)
DEFINE_CONVERT(i16_to_f32, float, load_i16)
DEFINE_CONVERT(i8_to_f32, float, load_i8)
DEFINE_CONVERT(u64_to_f32, float, load_u64)
DEFINE_CONVERT(u32_to_f32, float, load_u32)
DEFINE_CONVERT(u16_to_f32, float, load_u16)
DEFINE_CONVERT(u8_to_f32, float, load_u8)
DEFINE_CONVERT(bool_to_f32, float, load_bool)
DEFINE_CONVERT(c64_to_f32, float, load_c64_real)
DEFINE_CONVERT(c128_to_f32, float, load_c128_real)

DEFINE_CONVERT(f32_to_f64, double, load_f32)
DEFINE_CONVERT(f16_to_f64, double, load_f16)
DEFINE_CONVERT(bf16_to_f64, double, load_bf16)
DEFINE_CONVERT(i64_to_f64, double, load_i64)
DEFINE_CONVERT(i32_to_f64, double, load_i32)
DEFINE_CONVERT(i16_to_f64, double, load_i16)
DEFINE_CONVERT(i8_to_f64, double, load_i8)
DEFINE_CONVERT(u64_to_f64, double, load_u64)
DEFINE_CONVERT(u32_to_f64, double, load_u32)
DEFINE_CONVERT(u16_to_f64, double, load_u16)
DEFINE_CONVERT(u8_to_f64, double, load_u8)
DEFINE_CONVERT(bool_to_f64, double, load_bool)
DEFINE_CONVERT(c64_to_f64, double, load_c64_real)
DEFINE_CONVERT(c128_to_f64, double, load_c128_real)

/* float8 types: a table of all 256 values makes the loop a lookup */
static void f8_to_f32(enum dtype d, const unsigned char *src, size_t n, float *out)
{
	float table[256];
	for (unsigned v = 0; v < 256; v++)
		table[v] = d == DT_FLOAT8_E4M3FN ? dtype_f8e4m3fn_to_float((uint8_t)v)
						 : dtype_f8e5m2_to_float((uint8_t)v);
	for (size_t i = 0; i < n; i++)
		out[i] = table[src[i]];
}

/* n elements of type d, contiguous and in this machine's byte order, as float. */
static void convert_f32(enum dtype d, const unsigned char *src, size_t n, float *out)
{
	switch (d) {
	case DT_FLOAT64: f64_to_f32(src, n, out); break;
	case DT_FLOAT32: memcpy(out, src, n * 4); break;
	case DT_FLOAT16: f16_to_f32(src, n, out); break;
	case DT_BFLOAT16: bf16_to_f32(src, n, out); break;
	case DT_FLOAT8_E4M3FN:
	case DT_FLOAT8_E5M2: f8_to_f32(d, src, n, out); break;
	case DT_INT64: i64_to_f32(src, n, out); break;
	case DT_INT32: i32_to_f32(src, n, out); break;
	case DT_INT16: i16_to_f32(src, n, out); break;
	case DT_INT8: i8_to_f32(src, n, out); break;
	case DT_UINT64: u64_to_f32(src, n, out); break;
	case DT_UINT32: u32_to_f32(src, n, out); break;
	case DT_UINT16: u16_to_f32(src, n, out); break;
	case DT_UINT8: u8_to_f32(src, n, out); break;
	case DT_BOOL: bool_to_f32(src, n, out); break;
	case DT_COMPLEX64: c64_to_f32(src, n, out); break;
	case DT_COMPLEX128: c128_to_f32(src, n, out); break;
	case DT_COUNT: break;
	}
}

static void convert_f64(enum dtype d, const unsigned char *src, size_t n, double *out)
{
	switch (d) {
	case DT_FLOAT64: memcpy(out, src, n * 8); break;
	case DT_FLOAT32: f32_to_f64(src, n, out); break;
	case DT_FLOAT16: f16_to_f64(src, n, out); break;
	case DT_BFLOAT16: bf16_to_f64(src, n, out); break;
	case DT_FLOAT8_E4M3FN:
	case DT_FLOAT8_E5M2:
		/* every float8 value is a float: through float is exact */
		for (size_t i = 0; i < n; i++)
			out[i] = dtype_to_double(d, src + i);
		break;
	case DT_INT64: i64_to_f64(src, n, out); break;
	case DT_INT32: i32_to_f64(src, n, out); break;
	case DT_INT16: i16_to_f64(src, n, out); break;
	case DT_INT8: i8_to_f64(src, n, out); break;
	case DT_UINT64: u64_to_f64(src, n, out); break;
	case DT_UINT32: u32_to_f64(src, n, out); break;
	case DT_UINT16: u16_to_f64(src, n, out); break;
	case DT_UINT8: u8_to_f64(src, n, out); break;
	case DT_BOOL: bool_to_f64(src, n, out); break;
	case DT_COMPLEX64: c64_to_f64(src, n, out); break;
	case DT_COMPLEX128: c128_to_f64(src, n, out); break;
	case DT_COUNT: break;
	}
}

/* Elements that need gathering or swapping go through a buffer this many at a time (fits in L1). */
#define CHUNK 2048

void tensor_read_f32(const struct tensor *t, int64_t start, int64_t n, float *out)
{
	union { unsigned char bytes[CHUNK * 16]; double align; } buf;
	unsigned size = dtype_info(t->dtype)->size;
	if (n <= 0)
		return;
	if (t->contiguous && !t->swapped) {
		convert_f32(t->dtype, t->data + start * (int64_t)size, (size_t)n, out);
		return;
	}
	while (n > 0) {
		int64_t k = n < CHUNK ? n : CHUNK;
		tensor_read_raw(t, start, k, buf.bytes);
		convert_f32(t->dtype, buf.bytes, (size_t)k, out);
		start += k, out += k, n -= k;
	}
}

void tensor_read_f64(const struct tensor *t, int64_t start, int64_t n, double *out)
{
	union { unsigned char bytes[CHUNK * 16]; double align; } buf;
	unsigned size = dtype_info(t->dtype)->size;
	if (n <= 0)
		return;
	if (t->contiguous && !t->swapped) {
		convert_f64(t->dtype, t->data + start * (int64_t)size, (size_t)n, out);
		return;
	}
	while (n > 0) {
		int64_t k = n < CHUNK ? n : CHUNK;
		tensor_read_raw(t, start, k, buf.bytes);
		convert_f64(t->dtype, buf.bytes, (size_t)k, out);
		start += k, out += k, n -= k;
	}
}
