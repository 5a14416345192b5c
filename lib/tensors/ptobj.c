/* ptobj.c: the objects of a .pt file, read once (ptobj.h). */
#include "ptobj.h"
#include "tensorio.h"
#include "../core/strmap.h"

#include <sys/mman.h>
#include <unistd.h>

/* Where a view's storage lies in the file, worked out once when the file is opened. */
struct storage_place {
	uint64_t at, bytes, deflated;
	const struct zip_entry *entry;
	char *label;       /* "entry <name>", for messages */
};

struct ptobj {
	char *path;
	int fd;
	void *map;
	size_t size;
	struct pt_reader z;
	struct pickle pk;
	unsigned char *pkl_owned;  /* data.pkl inflated, when it was deflated */
	bool big;                  /* the storages are big-endian */
	struct strmap storages;    /* storage key -> zip entry index + 1 */
	struct storage_place *places; /* one per view of pk */
};

const char *ptobj_path(const struct ptobj *o)
{
	return o->path;
}

void ptobj_close(struct ptobj *o)
{
	if (!o)
		return;
	tio_pk_release(&o->pk);
	tio_pt_reader_release(&o->z);
	free(o->pkl_owned);
	strmap_release(&o->storages);
	for (size_t i = 0; o->places && i < o->pk.nviews; i++)
		free(o->places[i].label);
	free(o->places);
	if (o->map) {
		munmap(o->map, o->size);
		close(o->fd);
	}
	free(o->path);
	free(o);
}

/* data.pkl: found, no larger than a checkpoint's may be, in place or inflated, its CRC checked. */
static int read_pickle_bytes(struct ptobj *o, const unsigned char **data, size_t *len)
{
	const struct zip_entry *pkl;
	struct pt_reader *z = &o->z;
	if (tio_zip_read_directory(z) || tio_pt_find_pickle(z, &pkl))
		return -1;
	if (pkl->usize > PKL_CKPT_MAX)
		return msg_fail(z->err, o->path, ENTRY_FMT " holds %llu bytes: more than the %llu probe reads",
				ENTRY_ARG(pkl), (unsigned long long)pkl->usize, (unsigned long long)PKL_CKPT_MAX);
	if (tio_zip_entry_bytes(z, pkl, pkl->usize, data, &o->pkl_owned))
		return -1;
	if (crc32(0, *data, (uInt)pkl->usize) != pkl->crc)
		return msg_fail(z->err, o->path, ENTRY_FMT " fails its CRC check", ENTRY_ARG(pkl));
	*len = (size_t)pkl->usize;
	return 0;
}

/* The entries <stem>/data/<key>, by key. */
static void index_storages(struct ptobj *o)
{
	const struct pt_reader *z = &o->z;
	for (size_t i = 0; i < z->nentries; i++) {
		const struct zip_entry *e = &z->entries[i];
		size_t pre = z->stem_len + 6; /* "<stem>/data/" */
		if (e->name_len <= pre || memcmp(e->name, z->stem, z->stem_len) ||
		    memcmp(e->name + z->stem_len, "/data/", 6))
			continue;
		strmap_put(&o->storages, e->name + pre, e->name_len - pre, NULL)->value.u = i + 1;
	}
}

/* The storage of view v: its entry found and measured, the view inside it. */
static int place_view(struct ptobj *o, size_t v, struct strbuf *subject)
{
	const struct pk_view *view = &o->pk.views[v];
	const struct pk_value *sv = &o->pk.values[view->storage];
	struct storage_place *p = &o->places[v];
	struct strbuf *err = o->z.err;
	const struct strmap_slot *slot = strmap_find(&o->storages, sv->u.storage.key, sv->u.storage.key_len);
	const struct zip_entry *e;
	unsigned size = dtype_info(view->dtype)->size;
	int64_t bytes, elems, end;
	size_t start = 0;
	struct tensor probe;

	if (!slot)
		return msg_fail(err, o->path, "no entry %.*s/data/%.*s for a tensor's storage", (int)o->z.stem_len,
				(const char *)o->z.stem, (int)sv->u.storage.key_len, (const char *)sv->u.storage.key);
	e = &o->z.entries[slot->value.u - 1];
	if (sv->u.storage.dtype < 0) {
		bytes = sv->u.storage.numel;
		elems = bytes / size;
	} else if (!mul_ok(sv->u.storage.numel, size, &bytes)) {
		return msg_fail(err, o->path, ENTRY_FMT ": a storage of %lld elements overflows 64 bits", ENTRY_ARG(e),
				(long long)sv->u.storage.numel);
	} else {
		elems = sv->u.storage.numel;
	}
	if (e->usize < (uint64_t)bytes)
		return msg_fail(err, o->path, ENTRY_FMT " holds %llu bytes but its storage is %lld %s elements (%lld bytes)",
				ENTRY_ARG(e), (unsigned long long)e->usize, (long long)elems, dtype_info(view->dtype)->name,
				(long long)bytes);
	if (e->flags & 1)
		return msg_fail(err, o->path, ENTRY_FMT " is encrypted", ENTRY_ARG(e));
	if (e->method != 0 && e->method != 8)
		return msg_fail(err, o->path, ENTRY_FMT ": compression method %u is not supported", ENTRY_ARG(e), e->method);
	if (e->method == 0 && e->csize != e->usize)
		return msg_fail(err, o->path, ENTRY_FMT ": a stored entry of %llu bytes that takes %llu", ENTRY_ARG(e),
				(unsigned long long)e->usize, (unsigned long long)e->csize);
	if (tio_zip_entry_start(&o->z, e, &start))
		return -1;
	/* the view against its storage, said of the entry */
	memset(&probe, 0, sizeof(probe));
	probe.dtype = (enum dtype)view->dtype;
	probe.ndim = view->ndim;
	if (view->ndim) {
		memcpy(probe.shape, tio_pk_shape(&o->pk, view), sizeof(int64_t) * (size_t)view->ndim);
		memcpy(probe.stride, tio_pk_stride(&o->pk, view), sizeof(int64_t) * (size_t)view->ndim);
	}
	strbuf_reset(subject);
	strbuf_addf(subject, "%s: " ENTRY_FMT, o->path, ENTRY_ARG(e));
	if (tio_check_view(&probe, subject->buf, err, view->offset, elems, &end))
		return -1;
	*p = (struct storage_place){ .at = start, .bytes = (uint64_t)bytes, .entry = e,
				     .deflated = e->method == 8 ? (e->csize ? e->csize : 1) : 0 };
	strbuf_reset(subject);
	strbuf_addf(subject, ENTRY_FMT, ENTRY_ARG(e));
	p->label = xstrdup(subject->buf);
	return 0;
}

size_t ptobj_expand(struct strbuf *err)
{
	const char *env = getenv("PROBE_PT_EXPAND"), *p;
	size_t v = 0;
	if (!env || !*env)
		return PTOBJ_EXPAND_DEFAULT;
	for (p = env; *p >= '0' && *p <= '9'; p++) {
		if (v > 1000000)
			break;
		v = v * 10 + (size_t)(*p - '0');
	}
	if (p == env || *p || !v || v > 1000000) {
		strbuf_addf(err, "PROBE_PT_EXPAND=%s: not a factor (a whole number from 1 to 1000000)", env);
		return 0;
	}
	return v;
}

size_t ptobj_objects(const struct ptobj *o)
{
	return o->pk.nvalues;
}

/* The views of deflated storages inflate each its whole storage: in all, a bounded multiple of the file's size. */
static int check_inflation(struct ptobj *o)
{
	size_t f = ptobj_expand(o->z.err);
	uint64_t total = 0, budget;
	if (!f)
		return -1;
	budget = (uint64_t)o->size * f;
	if (budget < ((uint64_t)64 << 20))
		budget = (uint64_t)64 << 20;
	for (size_t v = 0; v < o->pk.nviews; v++) {
		const struct storage_place *p = &o->places[v];
		if (!p->deflated)
			continue;
		if (p->bytes > budget - total)
			return msg_fail(o->z.err, o->path, ENTRY_FMT ": the views of deflated storages inflate more than %llu "
					"bytes in all, %zu times the file's size (PROBE_PT_EXPAND raises the limit)",
					ENTRY_ARG(p->entry), (unsigned long long)budget, f);
		total += p->bytes;
	}
	return 0;
}

/* Everything that reads the mapping: under the caller's guard, all memory hanging from o. */
static int read_file(struct ptobj *o)
{
	const unsigned char *data = NULL;
	size_t len = 0;
	struct strbuf subject = STRBUF_INIT;
	int rc = 0;
	if (read_pickle_bytes(o, &data, &len))
		return -1;
	o->pk.path = o->path;
	o->pk.err = o->z.err;
	o->pk.lim = &pk_limits_ckpt;
	o->pk.data = data;
	o->pk.len = len;
	if (tio_pk_run(&o->pk) || tio_pt_byteorder(&o->z, &o->big))
		return -1;
	index_storages(o);
	o->places = xcalloc(o->pk.nviews ? o->pk.nviews : 1, sizeof(*o->places));
	for (size_t v = 0; v < o->pk.nviews && !rc; v++)
		rc = place_view(o, v, &subject);
	if (!rc)
		rc = check_inflation(o);
	strbuf_release(&subject);
	return rc;
}

int ptobj_open(struct ptobj **out, const char *path, struct strbuf *err)
{
	struct ptobj *o = xcalloc(1, sizeof(*o));
	struct tensor_guard g;
	const size_t err_len = err->len;
	volatile int rc = -1;

	*out = NULL;
	o->path = xstrdup(path);
	o->fd = -1;
	if (tio_map_file(path, &o->fd, &o->map, &o->size, err)) {
		o->map = NULL;
		ptobj_close(o);
		return -1;
	}
	o->z.path = o->path;
	o->z.err = err;
	o->z.file = o->map;
	o->z.size = o->size;
	if (o->size < 4 || memcmp(o->map, "PK", 2)) {
		rc = msg_fail(err, path, "not a zip archive: not a .pt file written by torch.save");
		goto out;
	}
	tensor_guard_begin(&g);
	if (!sigsetjmp(g.jump, 0)) {
		rc = read_file(o);
	} else {
		strbuf_setlen(err, err_len);
		msg_fail(err, path, "the file shrank while it was read");
		rc = -1;
	}
	tensor_guard_end(&g);
out:
	if (rc) {
		ptobj_close(o);
		return -1;
	}
	*out = o;
	return 0;
}

/* ---- the tree ---- */

ptobj_ref ptobj_root(const struct ptobj *o)
{
	return o->pk.root;
}

static const struct pk_value *val(const struct ptobj *o, ptobj_ref r)
{
	return r < o->pk.nvalues ? &o->pk.values[r] : NULL;
}

enum ptobj_kind ptobj_kind(const struct ptobj *o, ptobj_ref r)
{
	const struct pk_value *v = val(o, r);
	if (!v)
		return PTOBJ_OTHER;
	switch (v->kind) {
	case PK_NONE: return PTOBJ_NONE;
	case PK_BOOL: return PTOBJ_BOOL;
	case PK_INT: return PTOBJ_INT;
	case PK_FLOAT: return PTOBJ_FLOAT;
	case PK_STR: return PTOBJ_STR;
	case PK_BYTES: return PTOBJ_BYTES;
	case PK_TUPLE: return PTOBJ_TUPLE;
	case PK_LIST: return PTOBJ_LIST;
	case PK_DICT: return PTOBJ_DICT;
	case PK_TENSOR: return PTOBJ_TENSOR;
	case PK_OBJECT: return PTOBJ_OBJECT;
	default: return PTOBJ_OTHER;
	}
}

const char *ptobj_kind_name(const struct ptobj *o, ptobj_ref r)
{
	const struct pk_value *v = val(o, r);
	return v ? tio_pk_kind_name(v->kind) : "nothing";
}

/* The collection holding r's entries (r itself, or an object's items), or NULL. */
static const struct pk_value *entries_of(const struct ptobj *o, ptobj_ref r)
{
	const struct pk_value *v = val(o, r);
	if (v && v->kind == PK_OBJECT)
		v = v->u.object.items == PK_NOREF ? NULL : val(o, v->u.object.items);
	return v && (v->kind == PK_LIST || v->kind == PK_DICT || v->kind == PK_SET) ? v : NULL;
}

void ptobj_iter_begin(const struct ptobj *o, ptobj_ref r, struct ptobj_iter *it)
{
	const struct pk_value *v = val(o, r), *c;
	*it = (struct ptobj_iter){ .at = PK_NOREF };
	if (v && v->kind == PK_TUPLE) {
		it->tuple = true;
		it->at = v->u.tuple.first;
		it->n = v->u.tuple.n;
	} else if ((c = entries_of(o, r))) {
		it->at = c->u.coll.head;
	}
}

bool ptobj_iter_next(const struct ptobj *o, struct ptobj_iter *it, ptobj_ref *key, ptobj_ref *value)
{
	if (it->tuple) {
		if (!it->n)
			return false;
		*key = PTOBJ_NOREF;
		*value = o->pk.items[it->at++];
		it->n--;
		return true;
	}
	if (it->at == PK_NOREF)
		return false;
	*key = o->pk.links[it->at].key;
	*value = o->pk.links[it->at].value;
	it->at = o->pk.links[it->at].next;
	return true;
}

bool ptobj_is_mapping(const struct ptobj *o, ptobj_ref r)
{
	const struct pk_value *c = entries_of(o, r);
	return c && c->kind == PK_DICT;
}

ptobj_ref ptobj_get(const struct ptobj *o, ptobj_ref r, const char *key)
{
	const struct pk_value *v = val(o, r);
	struct ptobj_iter it;
	ptobj_ref k, x, found = PTOBJ_NOREF;
	size_t n = strlen(key);
	if (v && v->kind == PK_OBJECT && v->u.object.state != PK_NOREF && !ptobj_is_mapping(o, r))
		r = v->u.object.state; /* a Namespace's attributes are its state */
	if (!ptobj_is_mapping(o, r))
		return PTOBJ_NOREF;
	for (ptobj_iter_begin(o, r, &it); ptobj_iter_next(o, &it, &k, &x);) {
		size_t len;
		const char *s = ptobj_str(o, k, &len);
		if (s && len == n && !memcmp(s, key, n))
			found = x;
	}
	return found;
}

bool ptobj_int(const struct ptobj *o, ptobj_ref r, int64_t *out)
{
	const struct pk_value *v = val(o, r);
	if (!v || (v->kind != PK_INT && v->kind != PK_BOOL))
		return false;
	*out = v->u.i;
	return true;
}

const char *ptobj_str(const struct ptobj *o, ptobj_ref r, size_t *len)
{
	const struct pk_value *v = val(o, r);
	if (!v || v->kind != PK_STR)
		return NULL;
	*len = v->u.str.len;
	return (const char *)v->u.str.s;
}

bool ptobj_class(const struct ptobj *o, ptobj_ref r, struct strbuf *out)
{
	const struct pk_value *v = val(o, r);
	if (v && v->kind == PK_OBJECT)
		v = val(o, v->u.object.cls);
	if (!v || v->kind != PK_GLOBAL)
		return false;
	if (v->u.global.g == G_OTHER) {
		strbuf_add(out, o->pk.data + v->u.global.mod, v->u.global.mod_len);
		strbuf_addch(out, '.');
		strbuf_add(out, o->pk.data + v->u.global.name, v->u.global.name_len);
	} else {
		strbuf_addstr(out, "torch");
	}
	return true;
}

bool ptobj_tensor(const struct ptobj *o, ptobj_ref r, struct ptobj_tensor *out)
{
	const struct pk_value *v = val(o, r);
	const struct pk_view *view;
	const struct storage_place *p;
	if (!v || v->kind != PK_TENSOR)
		return false;
	view = &o->pk.views[v->u.tensor.view];
	p = &o->places[v->u.tensor.view];
	out->place = (struct tplace){
		.dtype = (enum dtype)view->dtype,
		.ndim = view->ndim,
		.shape = tio_pk_shape(&o->pk, view),
		.stride = tio_pk_stride(&o->pk, view),
		.offset = view->offset,
		.at = p->at,
		.bytes = p->bytes,
		.deflated = p->deflated,
		.big_endian = o->big,
		.requires_grad = v->u.tensor.requires_grad,
		.member = p->label,
	};
	out->entry = (const char *)p->entry->name;
	out->entry_len = p->entry->name_len;
	return true;
}
