/*
 * Checkpoints: the pickle machine on the objects a checkpoint pickles
 * (ptobj.h), the tree of many tensors written by tensorw and read back
 * (ckpt.h: names, shared storages, views, deflated entries), safetensors
 * files, and CPython's str hash and set order (pyhash.h).
 *
 * The pickles below are Python's own (Debian's python3 3.11, pickle.dumps
 * with the protocol said), put into zip archives by a small writer of this
 * file's, not by probe's; the hashes and the set order are CPython's, with
 * PYTHONHASHSEED=0; the names and values of the written trees are worked
 * out by hand from what was written.
 */
#include "tap.h"
#include "ckzip.h"
#include "../../lib/ckpt/ckptio.h"
#include "../../lib/msprobe/pyhash.h"
#include "../../lib/tensors/ptobj.h"
#include "../../lib/tensors/tensorw.h"
#include "../../lib/core/xalloc.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static char tmpdir[64] = "/tmp/probe-test-ckpt-XXXXXX";

static const char *tmp_path(const char *name)
{
	static struct strbuf sb = STRBUF_INIT;
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s/%s", tmpdir, name);
	return sb.buf;
}

/* A .pt holding only data.pkl: the pickle's objects without tensors. */
static const char *pickle_file(const char *name, const void *pkl, size_t len)
{
	struct ckzip_member m = { "archive/data.pkl", pkl, len };
	const char *path = tmp_path(name);
	struct strbuf z = STRBUF_INIT;
	FILE *f = fopen(path, "wb");
	ckzip_stored(&z, &m, 1);
	fwrite(z.buf, 1, z.len, f);
	fclose(f);
	strbuf_release(&z);
	return path;
}

/* pickle.dumps({'a': [1, (2, 'x')], 'b': {3: None}, 'c': 1.5, 'd': True}, protocol=2) */
static const char PKL_NESTED[] =
	"\x80\x02\x7d\x71\x00\x28\x58\x01\x00\x00\x00\x61\x71\x01\x5d\x71\x02\x28\x4b\x01\x4b\x02\x58\x01\x00\x00\x00"
	"\x78\x71\x03\x86\x71\x04\x65\x58\x01\x00\x00\x00\x62\x71\x05\x7d\x71\x06\x4b\x03\x4e\x73\x58\x01\x00\x00\x00"
	"\x63\x71\x07\x47\x3f\xf8\x00\x00\x00\x00\x00\x00\x58\x01\x00\x00\x00\x64\x71\x08\x88\x75\x2e";
/* pickle.dumps(argparse.Namespace(tp=2, name='x'), protocol=2) */
static const char PKL_NAMESPACE[] =
	"\x80\x02\x63\x61\x72\x67\x70\x61\x72\x73\x65\x0a\x4e\x61\x6d\x65\x73\x70\x61\x63\x65\x0a\x71\x00\x29\x81\x71"
	"\x01\x7d\x71\x02\x28\x58\x02\x00\x00\x00\x74\x70\x71\x03\x4b\x02\x58\x04\x00\x00\x00\x6e\x61\x6d\x65\x71\x04"
	"\x58\x01\x00\x00\x00\x78\x71\x05\x75\x62\x2e";
/* d = {}; d['a'] = d; pickle.dumps(d, protocol=2) */
static const char PKL_CYCLE[] = "\x80\x02\x7d\x71\x00\x58\x01\x00\x00\x00\x61\x71\x01\x68\x00\x73\x2e";
/* pickle.dumps({'s': {1, 2}, 'f': frozenset([3]), 'b': b'xy', 'o': collections.OrderedDict(k=1)}, protocol=4) */
static const char PKL_PROTO4[] =
	"\x80\x04\x95\x4f\x00\x00\x00\x00\x00\x00\x00\x7d\x94\x28\x8c\x01\x73\x94\x8f\x94\x28\x4b\x01\x4b\x02\x90\x8c"
	"\x01\x66\x94\x28\x4b\x03\x91\x94\x8c\x01\x62\x94\x43\x02\x78\x79\x94\x8c\x01\x6f\x94\x8c\x0b\x63\x6f\x6c\x6c"
	"\x65\x63\x74\x69\x6f\x6e\x73\x94\x8c\x0b\x4f\x72\x64\x65\x72\x65\x64\x44\x69\x63\x74\x94\x93\x94\x29\x52\x94"
	"\x8c\x01\x6b\x94\x4b\x01\x73\x75\x2e";

static void check_objects(void)
{
	struct strbuf err = STRBUF_INIT, cls = STRBUF_INIT;
	struct ptobj *o;
	ptobj_ref root, a, t, b, k, v;
	struct ptobj_iter it;
	int64_t x = 0;
	size_t len;
	const char *s;

	ok(ptobj_open(&o, pickle_file("nested.pt", PKL_NESTED, sizeof(PKL_NESTED) - 1), &err) == 0,
	   "a dict of a list, a tuple, a dict with an int key, a float, a bool: read (%s)", err.buf);
	root = ptobj_root(o);
	ok(ptobj_kind(o, root) == PTOBJ_DICT, "the root is a dict");
	a = ptobj_get(o, root, "a");
	ok(ptobj_kind(o, a) == PTOBJ_LIST, "'a' is a list");
	ptobj_iter_begin(o, a, &it);
	ok(ptobj_iter_next(o, &it, &k, &v) && k == PTOBJ_NOREF && ptobj_int(o, v, &x) && x == 1, "a[0] is 1");
	ok(ptobj_iter_next(o, &it, &k, &t) && ptobj_kind(o, t) == PTOBJ_TUPLE, "a[1] is a tuple");
	ok(!ptobj_iter_next(o, &it, &k, &v), "a has two items");
	ptobj_iter_begin(o, t, &it);
	ok(ptobj_iter_next(o, &it, &k, &v) && ptobj_int(o, v, &x) && x == 2, "a[1][0] is 2");
	ok(ptobj_iter_next(o, &it, &k, &v) && (s = ptobj_str(o, v, &len)) && len == 1 && *s == 'x', "a[1][1] is 'x'");
	b = ptobj_get(o, root, "b");
	ptobj_iter_begin(o, b, &it);
	ok(ptobj_iter_next(o, &it, &k, &v) && ptobj_kind(o, k) == PTOBJ_INT && ptobj_int(o, k, &x) && x == 3 &&
	   ptobj_kind(o, v) == PTOBJ_NONE, "'b' is {3: None}");
	ok(ptobj_kind(o, ptobj_get(o, root, "c")) == PTOBJ_FLOAT, "'c' is a float");
	ok(ptobj_int(o, ptobj_get(o, root, "d"), &x) && x == 1, "'d' is True");
	ok(ptobj_get(o, root, "e") == PTOBJ_NOREF, "'e' is not there");
	ptobj_close(o);

	strbuf_reset(&err);
	ok(ptobj_open(&o, pickle_file("ns.pt", PKL_NAMESPACE, sizeof(PKL_NAMESPACE) - 1), &err) == 0,
	   "argparse.Namespace: read as an object (%s)", err.buf);
	root = ptobj_root(o);
	ok(ptobj_kind(o, root) == PTOBJ_OBJECT && ptobj_class(o, root, &cls) && !strcmp(cls.buf, "argparse.Namespace"),
	   "its class is argparse.Namespace (%s)", cls.buf);
	ok(ptobj_int(o, ptobj_get(o, root, "tp"), &x) && x == 2, "its attribute tp is 2");
	ok((s = ptobj_str(o, ptobj_get(o, root, "name"), &len)) && len == 1 && *s == 'x', "its attribute name is 'x'");
	ptobj_close(o);

	strbuf_reset(&err);
	ok(ptobj_open(&o, pickle_file("p4.pt", PKL_PROTO4, sizeof(PKL_PROTO4) - 1), &err) == 0,
	   "protocol 4: FRAME, MEMOIZE, STACK_GLOBAL, a set, a frozenset, bytes (%s)", err.buf);
	if (!err.len) {
		root = ptobj_root(o);
		ok(ptobj_kind(o, ptobj_get(o, root, "b")) == PTOBJ_BYTES, "'b' is bytes");
		ok(ptobj_is_mapping(o, ptobj_get(o, root, "o")) && ptobj_int(o, ptobj_get(o, ptobj_get(o, root, "o"), "k"), &x) &&
		   x == 1, "'o' is an OrderedDict with k = 1");
		ptobj_close(o);
	}
	strbuf_release(&err);
	strbuf_release(&cls);
}

static int count_tensor(void *ctx, const char *name, size_t len, const struct ptobj_tensor *t)
{
	(void)name, (void)len, (void)t;
	++*(int *)ctx;
	return 0;
}

/* A pickle that runs on (or not) to the message said. */
static void check_refused(const char *label, const void *pkl, size_t len, const char *want)
{
	struct strbuf err = STRBUF_INIT;
	struct ptobj *o;
	int r = ptobj_open(&o, pickle_file("bad.pt", pkl, len), &err);
	if (!r)
		ptobj_close(o);
	ok(r < 0 && strstr(err.buf, want), "%s: refused, \"%s\" (%s)", label, want, err.buf);
	strbuf_release(&err);
}

static void check_hostile_objects(void)
{
	struct strbuf err = STRBUF_INIT;
	struct ptobj *o;
	int n = 0;
	ok(ptobj_open(&o, pickle_file("cycle.pt", PKL_CYCLE, sizeof(PKL_CYCLE) - 1), &err) == 0,
	   "a dict that holds itself: the pickle runs (%s)", err.buf);
	ok(ck_walk(o, ptobj_root(o), "", false, count_tensor, &n, &err) < 0 && strstr(err.buf, "nested more than 100"),
	   "walking it stops at the depth limit (%s)", err.buf);
	ptobj_close(o);
#define REFUSED(label, pkl, want) check_refused(label, pkl, sizeof(pkl) - 1, want)
	REFUSED("text opcodes of protocol 0", "\x80\x02I1\n.", "data.pkl byte 2: unknown pickle opcode 0x49");
	REFUSED("a memo index past the pickle's length", "\x80\x02Nr\xff\xff\x00\x00.", "out of range");
	REFUSED("a truncated pickle", "\x80\x02X\x05\x00\x00\x00ab", "runs past the end of data.pkl");
	REFUSED("two objects at STOP", "\x80\x02NN.", "STOP with 2 objects on the stack, not one object");
	REFUSED("a call of an int", "\x80\x02K\x01)R.", "call of an int");
	REFUSED("a persistent id that is not a storage", "\x80\x02K\x01Q.", "persistent id is not a 5-tuple");
	REFUSED("a pickle of protocol 6", "\x80\x06N.", "pickle protocol 6 is not supported");
#undef REFUSED
	strbuf_release(&err);
}

/* ---- many tensors written by tensorw, read by ckpt ---- */

static float storage_a[24];
static int32_t storage_b[6];

static void fill_b(void *ctx, uint64_t at, void *buf, size_t len)
{
	(void)ctx;
	memcpy(buf, (const unsigned char *)storage_b + at, len);
}

static void write_nested(const char *path, bool deflate)
{
	struct tensorw_tree *t = tensorw_tree_new();
	tensorw_node root = tensorw_dict(t, false), model = tensorw_dict(t, true), opt = tensorw_dict(t, false);
	tensorw_node state = tensorw_dict(t, false), zero = tensorw_dict(t, false), list = tensorw_list(t);
	tensorw_node args = tensorw_namespace(t), sa = tensorw_storage(t, DT_FLOAT32, 24, storage_a, NULL, NULL);
	tensorw_node sb = tensorw_storage(t, DT_INT32, 6, NULL, fill_b, NULL);
	int64_t s23[2] = { 2, 3 }, s4[1] = { 4 }, st[2] = { 1, 4 }, s32[2] = { 3, 2 }, s6[1] = { 6 };
	struct pt_options opt_pt = { .layout = PT_TORCH2, .deflate = deflate };
	struct strbuf err = STRBUF_INIT;

	for (int i = 0; i < 24; i++)
		storage_a[i] = (float)i + 0.5f;
	for (int i = 0; i < 6; i++)
		storage_b[i] = 100 + i;
	/* model.w: storage_a[0..6) as [2, 3]; model.v: storage_a[10..14); model.t: [3, 2] of stride (1, 4) at 12 */
	tensorw_put(t, model, "w", tensorw_tensor(t, sa, 0, 2, s23, NULL, true));
	tensorw_put(t, model, "v", tensorw_tensor(t, sa, 10, 1, s4, NULL, false));
	tensorw_put(t, model, "t", tensorw_tensor(t, sa, 12, 2, s32, st, false));
	tensorw_put(t, model, "_extra_state", tensorw_tensor(t, sb, 0, 1, s6, NULL, false));
	tensorw_set(t, state, tensorw_int(t, 0), zero);
	tensorw_put(t, zero, "exp_avg", tensorw_tensor(t, sb, 0, 1, s6, NULL, false));
	tensorw_put(t, opt, "state", state);
	tensorw_append(t, list, tensorw_int(t, 7));
	tensorw_append(t, list, tensorw_tensor(t, sb, 2, 1, s4, NULL, false));
	tensorw_put(t, args, "tensor_model_parallel_size", tensorw_int(t, 1));
	tensorw_put(t, root, "args", args);
	tensorw_put(t, root, "model", model);
	tensorw_put(t, root, "optimizer", opt);
	tensorw_put(t, root, "list", list);
	tensorw_put(t, root, "lr", tensorw_float(t, 0.01));
	ok(tensorw_pt_tree(path, t, root, &opt_pt, &err) == 0, "a tree of many tensors written%s (%s)",
	   deflate ? ", its storages deflated" : "", err.buf);
	tensorw_tree_free(t);
	strbuf_release(&err);
}

/* Parameter `name` of ck: its shape and its elements, as doubles, equal to want. */
static void check_param(struct ckpt *ck, const char *name, int ndim, const int64_t *shape, const double *want,
			const char *label)
{
	long i = ckpt_find(ck, name, strlen(name));
	struct tensor t;
	struct strbuf err = STRBUF_INIT;
	double got[64];
	bool same;
	if (!ok(i >= 0, "%s: %s is listed", label, name))
		return;
	const struct ckpt_param *p = ckpt_param(ck, (size_t)i);
	ok(p->ndim == ndim && !memcmp(p->shape, shape, sizeof(*shape) * (size_t)ndim), "%s: %s has its shape", label,
	   name);
	if (!ok(ckpt_tensor(ck, (size_t)i, &t, &err) == 0, "%s: %s opens (%s)", label, name, err.buf))
		return;
	tensor_read_f64(&t, 0, t.numel, got);
	same = t.numel == p->numel;
	for (int64_t k = 0; same && k < t.numel; k++)
		same = got[k] == want[k];
	ok(same, "%s: %s holds its elements", label, name);
	tensor_close(&t);
	strbuf_release(&err);
}

static void check_tree(bool deflate)
{
	const char *path = tmp_path(deflate ? "tree-deflated.pt" : "tree.pt");
	const char *label = deflate ? "deflated" : "stored";
	static const char *const order[] = { "model.w", "model.v", "model.t", "optimizer.state.0.exp_avg", "list.1" };
	static const double w[] = { 0.5, 1.5, 2.5, 3.5, 4.5, 5.5 }, v[] = { 10.5, 11.5, 12.5, 13.5 };
	static const double tt[] = { 12.5, 16.5, 13.5, 17.5, 14.5, 18.5 }, ea[] = { 100, 101, 102, 103, 104, 105 };
	static const double l1[] = { 102, 103, 104, 105 };
	int64_t s23[2] = { 2, 3 }, s4[1] = { 4 }, s32[2] = { 3, 2 }, s6[1] = { 6 };
	struct strbuf err = STRBUF_INIT;
	struct ckpt *ck;
	bool in_order = true;

	write_nested(path, deflate);
	if (!ok(ckpt_open(&ck, path, &err) == 0, "%s: the tree opens as a checkpoint (%s)", label, err.buf))
		return;
	ok(ckpt_kind(ck) == CKPT_PT && ckpt_count(ck) == ARRAY_SIZE(order), "%s: %zu parameters (the _extra_state left out)",
	   label, ckpt_count(ck));
	for (size_t i = 0; i < ARRAY_SIZE(order) && i < ckpt_count(ck); i++)
		in_order &= !strcmp(ckpt_param(ck, i)->name, order[i]);
	ok(in_order, "%s: named by their keys and list positions, in the pickle's order", label);
	check_param(ck, "model.w", 2, s23, w, label);
	check_param(ck, "model.v", 1, s4, v, label);
	check_param(ck, "model.t", 2, s32, tt, label);
	check_param(ck, "optimizer.state.0.exp_avg", 1, s6, ea, label);
	check_param(ck, "list.1", 1, s4, l1, label);
	ckpt_close(ck);
	strbuf_release(&err);
}

static void check_safetensors(void)
{
	struct tensorw_tree *t = tensorw_tree_new();
	static const uint16_t halves[4] = { 0x3c00, 0x4000, 0xc000, 0x0000 }; /* 1, 2, -2, 0 */
	static const double want_h[] = { 1, 2, -2, 0 }, want_f[] = { 0.5, 1.5, 2.5, 3.5, 4.5, 5.5 };
	static const char *const meta[] = { "format", "pt" };
	int64_t s22[2] = { 2, 2 }, s6[1] = { 6 };
	struct tensorw_named v[2];
	struct strbuf err = STRBUF_INIT;
	struct ckpt *ck;
	const char *path = tmp_path("m.safetensors");

	v[0] = (struct tensorw_named){ "h.weight", tensorw_storage(t, DT_FLOAT16, 4, halves, NULL, NULL), 2, s22 };
	v[1] = (struct tensorw_named){ "a \"quoted\" name", tensorw_storage(t, DT_FLOAT32, 6, storage_a, NULL, NULL), 1, s6 };
	ok(tensorw_safetensors(path, t, v, 2, meta, 1, &err) == 0, "a safetensors file written (%s)", err.buf);
	tensorw_tree_free(t);
	strbuf_reset(&err);
	if (!ok(ckpt_open(&ck, path, &err) == 0, "safetensors: opens (%s)", err.buf))
		return;
	ok(ckpt_kind(ck) == CKPT_SAFETENSORS && ckpt_count(ck) == 2, "safetensors: two tensors, __metadata__ left out");
	ok(!strcmp(ckpt_param(ck, 1)->name, "a \"quoted\" name"), "safetensors: a name with quotes read back");
	check_param(ck, "h.weight", 2, s22, want_h, "safetensors");
	check_param(ck, "a \"quoted\" name", 1, s6, want_f, "safetensors");
	ckpt_close(ck);
	strbuf_release(&err);
}

/* ---- CPython's str hash and set order ---- */

static void check_pyhash(void)
{
	/* PYTHONHASHSEED=0 python3 -c 'print(hash(s))' */
	static const struct { const char *s; int64_t h; } hashes[] = {
		{ "", 0 },
		{ "a", 4644417185603328019LL },
		{ "decoder.layers.0.weight", -8666701883287838238LL },
		{ "h\xc3\xa9llo", 6395329678795984700LL },
		{ "a\xe2\x82\xac" "b", -6176261434700135861LL },
		{ "x\xf0\x9f\x98\x80", -4086645887891144435LL },
		{ "12345678", 3785724242978802311LL },
		{ "0123456789abcdefg", 3684970308279301995LL },
	};
	/* set(dict.fromkeys(a)) & set(dict.fromkeys(b)) for w0..w9 and w3..w13 */
	static const char *const want[] = { "w4", "w8", "w9", "w3", "w6", "w5", "w7" };
	char an[10][16], bn[11][16];
	const char *a[10], *b[11];
	size_t out[10], n;
	bool same;
	for (size_t i = 0; i < ARRAY_SIZE(hashes); i++)
		is_int(pyhash_str(hashes[i].s, strlen(hashes[i].s)), hashes[i].h, "hash of a str (1, 2 and 4-byte code units)");
	for (int i = 0; i < 10; i++) {
		snprintf(an[i], sizeof(an[i]), "w%d", i);
		a[i] = an[i];
	}
	for (int i = 0; i < 11; i++) {
		snprintf(bn[i], sizeof(bn[i]), "w%d", i + 3);
		b[i] = bn[i];
	}
	n = pyhash_intersection_order(a, 10, b, 11, out);
	same = n == ARRAY_SIZE(want);
	for (size_t i = 0; same && i < n; i++)
		same = !strcmp(a[out[i]], want[i]);
	ok(same, "set(d1) & set(d2): CPython's order");
}

static void remove_tmpdir(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			unlink(tmp_path(de->d_name));
	closedir(d);
	rmdir(tmpdir);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	msg_set_progname("test_ckpt");
	check_objects();
	check_hostile_objects();
	check_tree(false);
	check_tree(true);
	check_safetensors();
	check_pyhash();
	remove_tmpdir();
	return done_testing();
}
