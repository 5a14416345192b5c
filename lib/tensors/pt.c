/* pt.c: a torch .pt file, a zip archive around a pickle (tensorio.h). */
#include "tensorio.h"

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
	pk->lim = &pk_limits_tensor;
	pk->data = data;
	pk->len = len;
	if (tio_pk_run_tensor(pk, &tv))
		goto out;
	view = &pk->views[tv->u.tensor.view];
	sv = tio_pk_val(pk, view->storage);
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
	if (view->ndim) {
		memcpy(t->shape, tio_pk_shape(pk, view), sizeof(t->shape[0]) * (size_t)view->ndim);
		memcpy(t->stride, tio_pk_stride(pk, view), sizeof(t->stride[0]) * (size_t)view->ndim);
	}
	rc = 0;
out:
	tio_pk_release(pk);
	free(pk);
	z->pk = NULL;
	return rc;
}

/* The byteorder entry of torch 2.x: true when the storages are big-endian. */
int tio_pt_byteorder(struct pt_reader *z, bool *big)
{
	const struct zip_entry *e;
	const unsigned char *s;
	int rc = 0;
	*big = false;
	if (tio_pt_find(z, "byteorder", 9, &e))
		return -1;
	if (!e)
		return 0; /* torch 1.x: little-endian */
	if (e->usize > 16)
		return msg_fail(z->err, z->path, "the byteorder entry holds %llu bytes, not \"little\" or \"big\"",
			    (unsigned long long)e->usize);
	if (tio_zip_entry_bytes(z, e, e->usize, &s, &z->bo_owned))
		return -1;
	if (tio_is(s, (size_t)e->usize, "big"))
		*big = true;
	else if (!tio_is(s, (size_t)e->usize, "little"))
		rc = msg_fail(z->err, z->path, "the byteorder entry says \"%.*s\", not \"little\" or \"big\"",
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

	if (tio_zip_read_directory(z) || tio_pt_find_pickle(z, &pkl))
		return -1;
	if (pkl->usize > PKL_MAX)
		return msg_fail(z->err, z->path, "data.pkl holds %llu bytes: too large for one tensor",
			    (unsigned long long)pkl->usize);
	if (tio_zip_entry_bytes(z, pkl, pkl->usize, &pkl_data, &z->pkl_owned))
		return -1;
	if (crc32(0, pkl_data, (uInt)pkl->usize) != pkl->crc)
		rc = msg_fail(z->err, z->path, "data.pkl fails its CRC check");
	else
		rc = pt_run_pickle(z, t, pkl_data, (size_t)pkl->usize, &desc);
	free(z->pkl_owned);
	z->pkl_owned = NULL;
	if (rc || tio_pt_byteorder(z, &big))
		return -1;

	size = dtype_info(t->dtype)->size;
	if (desc.untyped) {
		storage_bytes = desc.storage_numel;
		storage_elems = storage_bytes / size;
	} else {
		storage_elems = desc.storage_numel;
		if (!mul_ok(storage_elems, size, &storage_bytes))
			return msg_fail(z->err, z->path, "a storage of %lld elements overflows 64 bits",
				    (long long)storage_elems);
	}
	if (tio_check_view(t, z->path, z->err, desc.offset, storage_elems, &end))
		return -1;

	memcpy(rest, "data/", 5);
	memcpy(rest + 5, desc.key, desc.key_len);
	if (tio_pt_find(z, rest, desc.key_len + 5, &st))
		return -1;
	if (!st)
		return msg_fail(z->err, z->path, "no entry %.*s/data/%s for the tensor's storage", (int)z->stem_len,
			    (const char *)z->stem, desc.key);
	if (st->usize < (uint64_t)storage_bytes)
		return msg_fail(z->err, z->path,
			    ENTRY_FMT " holds %llu bytes but its storage is %lld %s elements (%lld bytes)", ENTRY_ARG(st),
			    (unsigned long long)st->usize, (long long)storage_elems,
			    dtype_info(t->dtype)->name, (long long)storage_bytes);
	need = end * (int64_t)size; /* end <= storage_elems: no overflow */
	if (tio_zip_entry_bytes(z, st, (uint64_t)need, &data, &t->owned) ||
	    tio_align_storage(t, &data, need, z->path, z->err))
		return -1;
	t->data = t->numel ? data + desc.offset * (int64_t)size : NULL;
	t->requires_grad = desc.requires_grad;
	t->format = TENSOR_PT;
	t->swapped = big != host_is_big_endian() && dtype_info(t->dtype)->size > 1;
	return 0;
}

/* z: zeroed, released by the caller (also after a fault) */
int tio_pt_open(struct tensor *t, const char *path, struct strbuf *err, struct pt_reader *z)
{
	z->path = path;
	z->err = err;
	z->file = t->map;
	z->size = t->map_len;
	return pt_load(z, t);
}

