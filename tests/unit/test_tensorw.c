/*
 * The tensor writers: .pt files byte for byte as torch 1.13 writes them,
 * the zip structure of both layouts (alignment, CRCs, descriptors, central
 * directory), deflated storages, float8, .npy headers and element order
 * byte for byte as numpy 1.24 writes them, the errors, and every variant
 * read back through tensor_open() and tensor_read_raw().
 *
 * The expected bytes below were produced by Debian's torch 1.13 and numpy
 * 1.24; each block names the command.  Tensors whose storage bytes are
 * "the pattern" hold byte k = (k * 7 + 1) & 0xff (bool: k % 2), made in
 * torch as torch.frombuffer(bytearray(...), dtype=D).clone().
 */
#include "tap.h"
#include "../../lib/tensors/tensor.h"
#include "../../lib/tensors/tensorw.h"
#include "../../lib/core/xalloc.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static char tmpdir[64];

static const char *tmp_path(const char *name)
{
	static struct strbuf sb = STRBUF_INIT;
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s/%s", tmpdir, name);
	return sb.buf;
}

static bool read_whole(const char *path, struct strbuf *out)
{
	FILE *f = fopen(path, "rb");
	char buf[65536];
	size_t n;
	strbuf_reset(out);
	if (!f)
		return false;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(out, buf, n);
	fclose(f);
	return true;
}

static void unhex(const char *hex, struct strbuf *out)
{
	strbuf_reset(out);
	for (; hex[0] && hex[1]; hex += 2) {
		unsigned v;
		sscanf(hex, "%2x", &v);
		strbuf_addch(out, (char)v);
	}
}

static bool same_bytes(const struct strbuf *got, const struct strbuf *want, const char *what)
{
	size_t i = 0;
	while (i < got->len && i < want->len && got->buf[i] == want->buf[i])
		i++;
	bool same = got->len == want->len && i == got->len;
	if (!ok(same, "%s", what))
		diag("got %zu bytes, want %zu; first difference at byte %zu", got->len, want->len, i);
	return same;
}

/* A pickle holds NULs: strstr would stop at the first. */
static bool contains(const struct strbuf *sb, const char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0; i + n <= sb->len; i++)
		if (!memcmp(sb->buf + i, s, n))
			return true;
	return false;
}

/* Storage bytes: the pattern (see the top). */
static unsigned char *pattern(size_t n, bool boolean)
{
	unsigned char *p = xmalloc(n ? n : 1);
	for (size_t k = 0; k < n; k++)
		p[k] = boolean ? (unsigned char)(k % 2) : (unsigned char)(k * 7 + 1);
	return p;
}

/* ------------------------------------------------------------------ */
/* A small zip reader for the checks: central directory, local headers */

struct zent {
	char name[128];
	unsigned flags, method;
	uint32_t crc;
	uint64_t comp, uncomp, local, data;
};

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The entries of the zip in f, or -1 when its structure is not what torch writes. */
static int zip_entries(const struct strbuf *f, struct zent *e, int max)
{
	const unsigned char *b = (const unsigned char *)f->buf;
	size_t eocd = f->len - 22, loc = eocd - 20, z64;
	uint64_t cd, n;

	if (f->len < 22 + 20 + 56 || le(b + eocd, 4) != 0x06054b50 || le(b + loc, 4) != 0x07064b50)
		return -1;
	z64 = (size_t)le(b + loc + 8, 8);
	if (z64 + 56 != loc || le(b + z64, 4) != 0x06064b50)
		return -1;
	n = le(b + z64 + 32, 8);
	cd = le(b + z64 + 48, 8);
	if (n > (uint64_t)max || le(b + z64 + 40, 8) + cd != z64)
		return -1;
	for (uint64_t i = 0; i < n; i++) {
		const unsigned char *c = b + cd, *l;
		size_t name_len = (size_t)le(c + 28, 2), extra = (size_t)le(c + 30, 2);
		if (le(c, 4) != 0x02014b50 || name_len >= sizeof(e[i].name) || extra)
			return -1;
		memcpy(e[i].name, c + 46, name_len);
		e[i].name[name_len] = '\0';
		e[i].flags = (unsigned)le(c + 8, 2);
		e[i].method = (unsigned)le(c + 10, 2);
		e[i].crc = (uint32_t)le(c + 16, 4);
		e[i].comp = le(c + 20, 4);
		e[i].uncomp = le(c + 24, 4);
		e[i].local = le(c + 42, 4);
		l = b + e[i].local;
		if (le(l, 4) != 0x04034b50 || le(l + 26, 2) != name_len || memcmp(l + 30, e[i].name, name_len))
			return -1;
		e[i].data = e[i].local + 30 + name_len + le(l + 28, 2);
		cd += 46 + name_len;
	}
	return (int)n;
}

/* Every entry: data on a 64-byte boundary, the right CRC, and a data descriptor that agrees. */
static void check_zip(const struct strbuf *f, const char *const *names, int nnames, const char *what)
{
	struct zent e[8];
	int n = zip_entries(f, e, 8);
	bool good = n == nnames;
	for (int i = 0; good && i < n; i++) {
		const unsigned char *d = (const unsigned char *)f->buf + e[i].data;
		good = !strcmp(e[i].name, names[i]) && e[i].data % 64 == 0;
		if (good && e[i].method == 0)
			good = e[i].comp == e[i].uncomp && crc32(0, d, (uInt)e[i].uncomp) == e[i].crc;
		if (good && e[i].uncomp) /* descriptor: flag bit 3, then crc and sizes after the data */
			good = e[i].flags == 0x0808 && le(d + e[i].comp, 4) == 0x08074b50 &&
			       le(d + e[i].comp + 4, 4) == e[i].crc && le(d + e[i].comp + 8, 4) == e[i].comp;
		else if (good)
			good = e[i].flags == 0x0800;
		if (!good)
			diag("entry %d: %s", i, i < n ? e[i].name : "(missing)");
	}
	ok(good, "zip structure: %s", what);
}

static bool zip_entry_bytes(const struct strbuf *f, const char *name, struct strbuf *out)
{
	struct zent e[8];
	int n = zip_entries(f, e, 8);
	strbuf_reset(out);
	for (int i = 0; i < n; i++) {
		if (strcmp(e[i].name, name))
			continue;
		if (e[i].method == 0) {
			strbuf_add(out, f->buf + e[i].data, (size_t)e[i].uncomp);
			return true;
		}
		z_stream zs = { 0 };
		strbuf_grow(out, (size_t)e[i].uncomp);
		inflateInit2(&zs, -15);
		zs.next_in = (Bytef *)f->buf + e[i].data;
		zs.avail_in = (uInt)e[i].comp;
		zs.next_out = (Bytef *)out->buf;
		zs.avail_out = (uInt)e[i].uncomp + 1;
		int rc = inflate(&zs, Z_FINISH);
		strbuf_setlen(out, zs.total_out);
		inflateEnd(&zs);
		return rc == Z_STREAM_END && crc32(0, (const Bytef *)out->buf, (uInt)out->len) == e[i].crc;
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* Reading back through tensor.h */

/* The view's elements in C order, as tensor_read_raw() should give them. */
static void expected_elements(const struct tensor_src *t, struct strbuf *out)
{
	unsigned size = dtype_info(t->dtype)->size;
	int64_t idx[64] = { 0 }, numel = 1, stride[64];
	int64_t s = 1;
	for (int i = t->ndim - 1; i >= 0; i--) {
		stride[i] = t->stride ? t->stride[i] : s;
		s *= t->shape[i] > 1 ? t->shape[i] : 1;
		numel *= t->shape[i];
	}
	strbuf_reset(out);
	for (int64_t k = 0; k < numel; k++) {
		int64_t at = t->offset;
		for (int i = 0; i < t->ndim; i++)
			at += idx[i] * stride[i];
		strbuf_add(out, (const char *)t->storage + at * size, size);
		for (int i = t->ndim - 1; i >= 0; i--) {
			if (++idx[i] < t->shape[i])
				break;
			idx[i] = 0;
		}
	}
}

/* Open path and compare type, shape and elements with t (elements as `as` would hold them). */
static void check_read_back(const char *path, const struct tensor_src *t, enum dtype as, const char *what)
{
	struct tensor r;
	struct strbuf err = STRBUF_INIT, want = STRBUF_INIT;
	bool good;

	if (tensor_open(&r, path, &err) < 0) {
		ok(false, "read back %s", what);
		diag("%s", err.buf);
		strbuf_release(&err);
		return;
	}
	expected_elements(t, &want);
	good = r.dtype == as && r.ndim == t->ndim;
	for (int i = 0; good && i < t->ndim; i++)
		good = r.shape[i] == t->shape[i];
	if (good && as == t->dtype) {
		unsigned char *got = xmalloc(want.len + 1);
		tensor_read_raw(&r, 0, r.numel, got);
		good = r.numel * (int64_t)dtype_info(as)->size == (int64_t)want.len && !memcmp(got, want.buf, want.len);
		free(got);
	}
	ok(good, "read back %s", what);
	tensor_close(&r);
	strbuf_release(&err);
	strbuf_release(&want);
}

/* ------------------------------------------------------------------ */

static int write_pt(const char *name, const struct tensor_src *t, enum pt_layout layout, bool deflate,
		    bool parameter)
{
	struct strbuf err = STRBUF_INIT;
	struct pt_options opt = { .layout = layout, .deflate = deflate, .parameter = parameter };
	int ret = tensorw_pt(tmp_path(name), t, &opt, &err);
	if (ret)
		diag("%s", err.buf);
	strbuf_release(&err);
	return ret;
}

/*
 * /usr/bin/python3 -c "import torch; torch.save(torch.tensor([1.0, 2.0, 3.0]), 'a.pt')"
 * and then open('a.pt', 'rb').read().hex(): the whole file.
 */
static const char torch_a_pt[] =
	"504b0304000008080000000000000000000000000000000000000a001800612f646174612e706b6c464214005a5a5a5a"
	"5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a800263746f7263682e5f7574696c730a5f72656275696c645f74656e736f725f"
	"76320a71002828580700000073746f72616765710163746f7263680a466c6f617453746f726167650a71025801000000"
	"307103580300000063707571044b03747105514b004b038571064b018571078963636f6c6c656374696f6e730a4f7264"
	"65726564446963740a71082952710974710a52710b2e504b07080beb64949600000096000000504b0304000008080000"
	"0000000000000000000000000000000008003400612f646174612f30464230005a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"
	"5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a0000803f0000004000004040504b0708"
	"b1960eb20c0000000c000000504b03040000080800000000000000000000000000000000000009003d00612f76657273"
	"696f6e464239005a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"
	"5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a330a504b0708d19e67550200000002000000504b010200000000080800000000"
	"00000beb649496000000960000000a0000000000000000000000000000000000612f646174612e706b6c504b01020000"
	"00000808000000000000b1960eb20c0000000c0000000800000000000000000000000000e6000000612f646174612f30"
	"504b0102000000000808000000000000d19e6755020000000200000009000000000000000000000000005c010000612f"
	"76657273696f6e504b06062c000000000000001e032d00000000000000000003000000000000000300000000000000a5"
	"00000000000000d201000000000000504b060700000000770200000000000001000000504b05060000000003000300a5"
	"000000d20100000000";

static void test_whole_file(void)
{
	float v[3] = { 1, 2, 3 };
	struct tensor_src t = { .dtype = DT_FLOAT32, .storage = v, .storage_numel = 3, .ndim = 1,
				.shape = (int64_t[]){ 3 } };
	struct strbuf got = STRBUF_INIT, want = STRBUF_INIT;

	write_pt("a.pt", &t, PT_TORCH1, false, false);
	read_whole(tmp_path("a.pt"), &got);
	unhex(torch_a_pt, &want);
	same_bytes(&got, &want, "torch 1.13's a.pt, byte for byte");
	check_read_back(tmp_path("a.pt"), &t, DT_FLOAT32, "a.pt");
	strbuf_release(&got);
	strbuf_release(&want);
}

/*
 * The data.pkl of each case, from torch 1.13: torch.save(T, '<name>.pt') and
 * zipfile.ZipFile('<name>.pt').read('<name>/data.pkl').hex(), where T is
 * made from the pattern storage P of the dtype and numel shown:
 */
struct pickle_case {
	const char *name;
	enum dtype dtype;
	int64_t numel, offset;
	int ndim;
	int64_t shape[4], stride[4];
	bool has_stride, requires_grad, parameter;
	const char *hex;
};

static const struct pickle_case pickle_cases[] = {
	/* torch.nn.Parameter(P.as_strided((2, 3), (3, 1))), float32, 6 */
	{ "param", DT_FLOAT32, 6, 0, 2, { 2, 3 }, { 0 }, false, true, true,
	  "800263746f7263682e5f7574696c730a5f72656275696c645f706172616d657465720a710063746f7263682e5f7574696c730a"
	  "5f72656275696c645f74656e736f725f76320a71012828580700000073746f72616765710263746f7263680a466c6f61745374"
	  "6f726167650a71035801000000307104580300000063707571054b06747106514b004b024b038671074b034b01867108896363"
	  "6f6c6c656374696f6e730a4f726465726564446963740a71092952710a74710b52710c8868092952710d87710e52710f2e" },
	/* P.as_strided((2, 3), (3, 1)).requires_grad_(True), float32, 6 */
	{ "rg", DT_FLOAT32, 6, 0, 2, { 2, 3 }, { 0 }, false, true, false,
	  "800263746f7263682e5f7574696c730a5f72656275696c645f74656e736f725f76320a71002828580700000073746f72616765"
	  "710163746f7263680a466c6f617453746f726167650a71025801000000307103580300000063707571044b06747105514b004b"
	  "024b038671064b034b018671078863636f6c6c656374696f6e730a4f726465726564446963740a71082952710974710a52710b2e" },
	/* P.as_strided((3, 4), (1, 3), 5), float32, 40: a transposed view with an offset */
	{ "view", DT_FLOAT32, 40, 5, 2, { 3, 4 }, { 1, 3 }, true, false, false,
	  "800263746f7263682e5f7574696c730a5f72656275696c645f74656e736f725f76320a71002828580700000073746f72616765"
	  "710163746f7263680a466c6f617453746f726167650a71025801000000307103580300000063707571044b28747105514b054b"
	  "034b048671064b014b038671078963636f6c6c656374696f6e730a4f726465726564446963740a71082952710974710a52710b2e" },
	/* P.as_strided((), (), 7), float16, 10: a 0-d view */
	{ "scalar_off", DT_FLOAT16, 10, 7, 0, { 0 }, { 0 }, false, false, false,
	  "800263746f7263682e5f7574696c730a5f72656275696c645f74656e736f725f76320a71002828580700000073746f72616765"
	  "710163746f7263680a48616c6653746f726167650a71025801000000307103580300000063707571044b0a747105514b072929"
	  "8963636f6c6c656374696f6e730a4f726465726564446963740a7106295271077471085271092e" },
	/* P.reshape(2, 1, 3, 2), float32, 12: tuples of four (MARK ... TUPLE) */
	{ "dims4", DT_FLOAT32, 12, 0, 4, { 2, 1, 3, 2 }, { 0 }, false, false, false,
	  "800263746f7263682e5f7574696c730a5f72656275696c645f74656e736f725f76320a71002828580700000073746f72616765"
	  "710163746f7263680a466c6f617453746f726167650a71025801000000307103580300000063707571044b0c747105514b0028"
	  "4b024b014b034b02747106284b064b064b024b017471078963636f6c6c656374696f6e730a4f726465726564446963740a7108"
	  "2952710974710a52710b2e" },
	/* P.reshape(2, 35000), int8, 70000: BININT and BININT2 */
	{ "n70000", DT_INT8, 70000, 0, 2, { 2, 35000 }, { 0 }, false, false, false,
	  "800263746f7263682e5f7574696c730a5f72656275696c645f74656e736f725f76320a71002828580700000073746f72616765"
	  "710163746f7263680a4368617253746f726167650a71025801000000307103580300000063707571044a70110100747105514b"
	  "004b024db8888671064db8884b018671078963636f6c6c656374696f6e730a4f726465726564446963740a7108295271097471"
	  "0a52710b2e" },
	/* P, bool, 5 */
	{ "bool", DT_BOOL, 5, 0, 1, { 5 }, { 0 }, false, false, false,
	  "800263746f7263682e5f7574696c730a5f72656275696c645f74656e736f725f76320a71002828580700000073746f72616765"
	  "710163746f7263680a426f6f6c53746f726167650a71025801000000307103580300000063707571044b05747105514b004b05"
	  "8571064b018571078963636f6c6c656374696f6e730a4f726465726564446963740a71082952710974710a52710b2e" },
	/* P, bfloat16, 5 */
	{ "bfloat16", DT_BFLOAT16, 5, 0, 1, { 5 }, { 0 }, false, false, false,
	  "800263746f7263682e5f7574696c730a5f72656275696c645f74656e736f725f76320a71002828580700000073746f72616765"
	  "710163746f7263680a42466c6f6174313653746f726167650a71025801000000307103580300000063707571044b0574710551"
	  "4b004b058571064b018571078963636f6c6c656374696f6e730a4f726465726564446963740a71082952710974710a52710b2e" },
	/* P, complex64, 5 */
	{ "complex64", DT_COMPLEX64, 5, 0, 1, { 5 }, { 0 }, false, false, false,
	  "800263746f7263682e5f7574696c730a5f72656275696c645f74656e736f725f76320a71002828580700000073746f72616765"
	  "710163746f7263680a436f6d706c6578466c6f617453746f726167650a71025801000000307103580300000063707571044b05"
	  "747105514b004b058571064b018571078963636f6c6c656374696f6e730a4f726465726564446963740a71082952710974710a"
	  "52710b2e" },
	/* torch.empty(0, 4): float32, 0 elements */
	{ "empty", DT_FLOAT32, 0, 0, 2, { 0, 4 }, { 0 }, false, false, false,
	  "800263746f7263682e5f7574696c730a5f72656275696c645f74656e736f725f76320a71002828580700000073746f72616765"
	  "710163746f7263680a466c6f617453746f726167650a71025801000000307103580300000063707571044b00747105514b004b"
	  "004b048671064b044b018671078963636f6c6c656374696f6e730a4f726465726564446963740a71082952710974710a52710b2e" },
};

static void source_of(const struct pickle_case *c, unsigned char *storage, struct tensor_src *t)
{
	*t = (struct tensor_src){ .dtype = c->dtype, .storage = storage, .storage_numel = c->numel,
				  .offset = c->offset, .ndim = c->ndim, .shape = c->ndim ? c->shape : NULL,
				  .stride = c->has_stride ? c->stride : NULL, .requires_grad = c->requires_grad };
}

static void test_pickles(void)
{
	struct strbuf file = STRBUF_INIT, got = STRBUF_INIT, want = STRBUF_INIT, name = STRBUF_INIT;

	for (size_t i = 0; i < ARRAY_SIZE(pickle_cases); i++) {
		const struct pickle_case *c = &pickle_cases[i];
		unsigned char *storage = pattern((size_t)c->numel * dtype_info(c->dtype)->size, c->dtype == DT_BOOL);
		struct tensor_src t;
		char names[3][64];
		const char *const entries[3] = { names[0], names[1], names[2] };

		source_of(c, storage, &t);
		strbuf_reset(&name);
		strbuf_addf(&name, "%s.pt", c->name);
		write_pt(name.buf, &t, PT_TORCH1, false, c->parameter);
		read_whole(tmp_path(name.buf), &file);
		strbuf_reset(&name);
		strbuf_addf(&name, "%s/data.pkl", c->name);
		zip_entry_bytes(&file, name.buf, &got);
		unhex(c->hex, &want);
		same_bytes(&got, &want, c->name);

		snprintf(names[0], sizeof(names[0]), "%s/data.pkl", c->name);
		snprintf(names[1], sizeof(names[1]), "%s/data/0", c->name);
		snprintf(names[2], sizeof(names[2]), "%s/version", c->name);
		check_zip(&file, entries, 3, c->name);
		zip_entry_bytes(&file, names[1], &got);
		ok(got.len == (size_t)c->numel * dtype_info(c->dtype)->size && !memcmp(got.buf, storage, got.len),
		   "%s: the whole storage in data/0", c->name);
		strbuf_reset(&name);
		strbuf_addf(&name, "%s.pt", c->name);
		check_read_back(tmp_path(name.buf), &t, c->dtype, c->name);
		free(storage);
	}
	strbuf_release(&file);
	strbuf_release(&got);
	strbuf_release(&want);
	strbuf_release(&name);
}

/* torch 2.x's layout, a deflated storage, and every dtype in both layouts. */
static void test_layouts(void)
{
	static const char *const t2[] = { "x2/data.pkl", "x2/byteorder", "x2/data/0", "x2/version",
					  "x2/.data/serialization_id" };
	static const char *const t1[] = { "xd/data.pkl", "xd/data/0", "xd/version" };
	unsigned char *storage = pattern(4000, false);
	struct tensor_src t = { .dtype = DT_INT32, .storage = storage, .storage_numel = 1000, .offset = 10, .ndim = 2,
				.shape = (int64_t[]){ 30, 20 }, .stride = (int64_t[]){ 1, 30 } };
	struct strbuf file = STRBUF_INIT, got = STRBUF_INIT, pkl1 = STRBUF_INIT;
	struct zent e[8];

	write_pt("x2.pt", &t, PT_TORCH2, false, false);
	read_whole(tmp_path("x2.pt"), &file);
	check_zip(&file, t2, 5, "torch 2 layout");
	zip_entry_bytes(&file, "x2/byteorder", &got);
	is_str(got.buf, "little", "torch 2: byteorder");
	zip_entry_bytes(&file, "x2/version", &got);
	is_str(got.buf, "3\n", "torch 2: version");
	zip_entry_bytes(&file, "x2/.data/serialization_id", &got);
	ok(got.len == 40 && strspn(got.buf, "0123456789") == 40, "torch 2: serialization_id is 40 digits");
	check_read_back(tmp_path("x2.pt"), &t, DT_INT32, "torch 2 layout, transposed view with offset");

	write_pt("xd.pt", &t, PT_TORCH1, true, false);
	read_whole(tmp_path("xd.pt"), &file);
	check_zip(&file, t1, 3, "deflated");
	zip_entries(&file, e, 8);
	ok(e[1].method == 8 && e[1].comp < e[1].uncomp, "deflated: data/0 is method 8 and smaller");
	ok(zip_entry_bytes(&file, "xd/data/0", &got) && got.len == 4000 && !memcmp(got.buf, storage, 4000),
	   "deflated: inflates to the storage, CRC right");
	zip_entry_bytes(&file, "xd/data.pkl", &pkl1);
	read_whole(tmp_path("x2.pt"), &file);
	zip_entry_bytes(&file, "x2/data.pkl", &got);
	same_bytes(&got, &pkl1, "the same pickle in both layouts (the archive name aside)");
	check_read_back(tmp_path("xd.pt"), &t, DT_INT32, "deflated");

	for (int d = 0; d < DT_COUNT; d++) {
		struct tensor_src one = { .dtype = (enum dtype)d, .storage = storage, .storage_numel = 6, .ndim = 2,
					  .shape = (int64_t[]){ 2, 3 } };
		unsigned char *b = pattern(6 * dtype_info(d)->size, d == DT_BOOL);
		struct strbuf n = STRBUF_INIT;
		one.storage = b;
		for (int layout = PT_TORCH1; layout <= PT_TORCH2; layout++) {
			strbuf_reset(&n);
			strbuf_addf(&n, "%s-%d.pt", dtype_info(d)->name, layout);
			ok(!write_pt(n.buf, &one, (enum pt_layout)layout, false, false), "write %s", n.buf);
			check_read_back(tmp_path(n.buf), &one, (enum dtype)d, n.buf);
		}
		strbuf_release(&n);
		free(b);
	}
	strbuf_release(&file);
	strbuf_release(&got);
	strbuf_release(&pkl1);
	free(storage);
}

/*
 * Float8: torch 2.x has no typed storage for it and pickles an untyped
 * one (numel in bytes) with the dtype as _rebuild_tensor_v3's last argument.
 */
static void test_float8(void)
{
	unsigned char v[4] = { 0x38, 0x40, 0xb8, 0x7f };
	struct tensor_src t = { .dtype = DT_FLOAT8_E5M2, .storage = v, .storage_numel = 4, .ndim = 1,
				.shape = (int64_t[]){ 4 } };
	struct strbuf file = STRBUF_INIT, pkl = STRBUF_INIT;

	write_pt("f8.pt", &t, PT_TORCH2, false, false);
	read_whole(tmp_path("f8.pt"), &file);
	zip_entry_bytes(&file, "f8/data.pkl", &pkl);
	ok(contains(&pkl, "ctorch._utils\n_rebuild_tensor_v3\n") && contains(&pkl, "ctorch\nUntypedStorage\n") &&
	   contains(&pkl, "ctorch\nfloat8_e5m2\n") && pkl.buf[pkl.len - 1] == '.',
	   "float8: _rebuild_tensor_v3 of an UntypedStorage, with the dtype");
	check_read_back(tmp_path("f8.pt"), &t, DT_FLOAT8_E5M2, "float8_e5m2");
	strbuf_release(&file);
	strbuf_release(&pkl);
}

/* ------------------------------------------------------------------ */
/* .npy */

static int write_npy(const char *name, const struct tensor_src *t, int version, bool fortran, bool big,
		     struct strbuf *err)
{
	struct npy_options opt = { .version = version, .fortran_order = fortran, .big_endian = big };
	return tensorw_npy(tmp_path(name), t, &opt, err);
}

/*
 * From numpy 1.24, numpy.lib.format.write_array(f, A, version=V) and the
 * bytes written as hex, for A =
 *   F:  np.arange(6, dtype='<i2').reshape(2, 3).T (F-contiguous: numpy writes fortran_order True)
 *   C:  np.ascontiguousarray(that)
 *   BE: np.array([1.5, -2.0, 0.25], dtype='>f4'), version (2, 0)
 *   B0: np.array(True), version (3, 0)
 */
static const char npy_f[] =
	"934e554d5059010076007b276465736372273a20273c6932272c2027666f727472616e5f6f72646572273a20547275652c20"
	"277368617065273a2028332c2032292c207d2020202020202020202020202020202020202020202020202020202020202020"
	"2020202020202020202020202020202020202020202020202020200a000001000200030004000500";
static const char npy_c[] =
	"934e554d5059010076007b276465736372273a20273c6932272c2027666f727472616e5f6f72646572273a2046616c73652c"
	"20277368617065273a2028332c2032292c207d20202020202020202020202020202020202020202020202020202020202020"
	"2020202020202020202020202020202020202020202020202020200a000003000100040002000500";
static const char npy_be[] =
	"934e554d50590200740000007b276465736372273a20273e6634272c2027666f727472616e5f6f72646572273a2046616c73"
	"652c20277368617065273a2028332c292c207d20202020202020202020202020202020202020202020202020202020202020"
	"2020202020202020202020202020202020202020202020202020200a3fc00000c00000003e800000";
static const char npy_b0[] =
	"934e554d50590300740000007b276465736372273a20277c6231272c2027666f727472616e5f6f72646572273a2046616c73"
	"652c20277368617065273a2028292c207d202020202020202020202020202020202020202020202020202020202020202020"
	"2020202020202020202020202020202020202020202020202020200a01";

static void expect_npy(const char *name, const struct tensor_src *t, int version, bool fortran, bool big,
		       const char *hex, const char *what)
{
	struct strbuf err = STRBUF_INIT, got = STRBUF_INIT, want = STRBUF_INIT;
	if (write_npy(name, t, version, fortran, big, &err))
		diag("%s", err.buf);
	read_whole(tmp_path(name), &got);
	unhex(hex, &want);
	same_bytes(&got, &want, what);
	check_read_back(tmp_path(name), t, t->dtype, what);
	strbuf_release(&err);
	strbuf_release(&got);
	strbuf_release(&want);
}

static void test_npy(void)
{
	/* the storage of np.arange(6).reshape(2, 3); its .T is the view shape (3, 2), strides (1, 3) */
	int16_t a[6] = { 0, 1, 2, 3, 4, 5 };
	struct tensor_src tr = { .dtype = DT_INT16, .storage = a, .storage_numel = 6, .ndim = 2,
				 .shape = (int64_t[]){ 3, 2 }, .stride = (int64_t[]){ 1, 3 } };
	float f[3] = { 1.5f, -2.0f, 0.25f };
	struct tensor_src be = { .dtype = DT_FLOAT32, .storage = f, .storage_numel = 3, .ndim = 1,
				 .shape = (int64_t[]){ 3 } };
	unsigned char yes[2] = { 0, 1 };
	struct tensor_src b0 = { .dtype = DT_BOOL, .storage = yes, .storage_numel = 2, .offset = 1 };
	struct strbuf err = STRBUF_INIT;

	expect_npy("f.npy", &tr, 1, true, false, npy_f, "npy: a transposed view in Fortran order");
	expect_npy("c.npy", &tr, 1, false, false, npy_c, "npy: a transposed view copied out in C order");
	expect_npy("be.npy", &be, 2, false, true, npy_be, "npy: big-endian, version 2.0");
	expect_npy("b0.npy", &b0, 3, false, false, npy_b0, "npy: 0-d bool with an offset, version 3.0");

	for (int d = 0; d < DT_COUNT; d++) {
		unsigned char *s = pattern(24 * dtype_info(d)->size, d == DT_BOOL);
		struct tensor_src t = { .dtype = (enum dtype)d, .storage = s, .storage_numel = 24, .offset = 2, .ndim = 3,
					.shape = (int64_t[]){ 2, 3, 2 }, .stride = (int64_t[]){ 1, 8, 2 } };
		struct strbuf n = STRBUF_INIT;
		strbuf_addf(&n, "%s.npy", dtype_info(d)->name);
		strbuf_reset(&err);
		if (!dtype_info(d)->npy) {
			ok(write_npy(n.buf, &t, 1, false, false, &err) < 0 && strstr(err.buf, "numpy has no") &&
			   access(tmp_path(n.buf), F_OK) < 0, "npy refuses %s", dtype_info(d)->name);
		} else {
			for (int v = 1; v <= 3; v++) {
				strbuf_reset(&n);
				strbuf_addf(&n, "%s-v%d%s%s.npy", dtype_info(d)->name, v, v == 2 ? "-F" : "", v == 3 ? "-BE" : "");
				ok(!write_npy(n.buf, &t, v, v == 2, v == 3, &err), "write %s", n.buf);
				check_read_back(tmp_path(n.buf), &t, (enum dtype)d, n.buf);
			}
		}
		strbuf_release(&n);
		free(s);
	}
	strbuf_release(&err);
}

/* ------------------------------------------------------------------ */

static void test_errors(void)
{
	float v[4] = { 0 };
	struct strbuf err = STRBUF_INIT;
	struct pt_options pt = { PT_TORCH1, false, false };
	struct tensor_src beyond = { .dtype = DT_FLOAT32, .storage = v, .storage_numel = 4, .offset = 1, .ndim = 1,
				     .shape = (int64_t[]){ 4 } };
	struct tensor_src fine = { .dtype = DT_FLOAT32, .storage = v, .storage_numel = 4, .ndim = 1,
				   .shape = (int64_t[]){ 4 } };
	struct strbuf want = STRBUF_INIT;

	strbuf_addf(&want, "%s: the view reaches element 4 of a storage of 4", tmp_path("beyond.pt"));
	ok(tensorw_pt(tmp_path("beyond.pt"), &beyond, &pt, &err) < 0, "a view beyond its storage is refused");
	is_str(err.buf, want.buf, "... with the path and the reason");
	ok(access(tmp_path("beyond.pt"), F_OK) < 0, "... and no file");

	strbuf_reset(&err);
	strbuf_reset(&want);
	strbuf_addf(&want, "%s: cannot create", tmp_path("no/such/dir.pt"));
	int failed = tensorw_pt(tmp_path("no/such/dir.pt"), &fine, &pt, &err) < 0;
	ok(failed && !strncmp(err.buf, want.buf, want.len), "a missing directory: %s", err.buf);

	strbuf_reset(&err);
	ok(tensorw_pt(tmp_path(".pt"), &fine, &pt, &err) < 0 && strstr(err.buf, "no file name"),
	   "a file name without a stem is refused (torch names the archive after it)");

	/* the temporary is renamed over an existing file: an old file is replaced whole */
	FILE *old = fopen(tmp_path("old.pt"), "w");
	fputs("old", old);
	fclose(old);
	ok(!tensorw_pt(tmp_path("old.pt"), &fine, &pt, &err), "an existing file is replaced");
	strbuf_release(&err);
	strbuf_release(&want);
}

/* No temporary file is left behind by any of the above. */
static void test_no_leftovers(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	int leftovers = 0;
	while (d && (de = readdir(d)))
		if (strstr(de->d_name, ".tmp"))
			leftovers++;
	if (d)
		closedir(d);
	is_int(leftovers, 0, "no temporary files left");
}

static void remove_tmpdir(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlink(tmp_path(de->d_name));
	if (d)
		closedir(d);
	rmdir(tmpdir);
}

int main(void)
{
	const char *base = getenv("TMPDIR");
	snprintf(tmpdir, sizeof(tmpdir), "%s/tensorw.XXXXXX", base && strlen(base) < 40 ? base : "/tmp");
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! cannot create %s\n", tmpdir);
		return 1;
	}
	test_whole_file();
	test_pickles();
	test_layouts();
	test_float8();
	test_npy();
	test_errors();
	test_no_leftovers();
	remove_tmpdir();
	return done_testing();
}
