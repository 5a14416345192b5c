/* zip.c: the zip container of a torch .pt file (tensorio.h). */
#include "tensorio.h"

void tio_pt_reader_release(struct pt_reader *z)
{
	free(z->entries);
	if (z->pk) {
		tio_pk_release(z->pk);
		free(z->pk);
	}
	if (z->zs_live)
		inflateEnd(&z->zs);
	free(z->inflating);
	free(z->pkl_owned);
	free(z->bo_owned);
	memset(z, 0, sizeof(*z));
}

/* The end of central directory record: the last one whose comment fits in the file. */
static int zip_find_end(struct pt_reader *z, size_t *pos)
{
	size_t lowest;
	if (z->size < ZIP_END_LEN)
		return msg_fail(z->err, z->path, "truncated zip archive: %zu bytes", z->size);
	lowest = z->size - ZIP_END_LEN > 65535 ? z->size - ZIP_END_LEN - 65535 : 0;
	for (size_t p = z->size - ZIP_END_LEN + 1; p-- > lowest;) {
		const unsigned char *e = z->file + p;
		if (get32(e) == ZIP_END_SIG && p + ZIP_END_LEN + get16(e + 20) <= z->size) {
			*pos = p;
			return 0;
		}
	}
	return msg_fail(z->err, z->path, "truncated zip archive: no end of central directory record");
}

/* The ZIP64 end record the locator at loc points to: the real entry count and directory place. */
static int zip_read_end64(struct pt_reader *z, size_t loc, uint64_t *count, uint64_t *cd_size, uint64_t *cd_off)
{
	const unsigned char *l = z->file + loc, *e;
	uint64_t off = get64(l + 8);
	if (get32(l + 4) != 0 || get32(l + 16) > 1)
		return msg_fail(z->err, z->path, "multi-disk zip archives are not supported");
	if (off > loc || loc - off < ZIP64_END_LEN)
		return msg_fail(z->err, z->path, "bad zip64 end of central directory offset %llu", (unsigned long long)off);
	e = z->file + off;
	if (get32(e) != ZIP64_END_SIG)
		return msg_fail(z->err, z->path, "no zip64 end of central directory record at offset %llu",
			    (unsigned long long)off);
	if (get32(e + 16) != 0 || get32(e + 20) != 0 || get64(e + 24) != get64(e + 32))
		return msg_fail(z->err, z->path, "multi-disk zip archives are not supported");
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
			return msg_fail(z->err, z->path, ENTRY_FMT ": damaged extra field", ENTRY_ARG(ent));
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
	return msg_fail(z->err, z->path, ENTRY_FMT ": zip64 extra field too short", ENTRY_ARG(ent));
}

int tio_zip_read_directory(struct pt_reader *z)
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
		return msg_fail(z->err, z->path, "multi-disk zip archives are not supported");
	}
	if (cd_off > z->size || cd_size > z->size - cd_off)
		return msg_fail(z->err, z->path,
			    "the zip central directory (%llu bytes at offset %llu) lies outside the file",
			    (unsigned long long)cd_size, (unsigned long long)cd_off);
	if (count > cd_size / ZIP_CENTRAL_LEN)
		return msg_fail(z->err, z->path, "the zip central directory is too small for its %llu entries",
			    (unsigned long long)count);

	z->entries = xcalloc(count ? (size_t)count : 1, sizeof(*z->entries));
	p = z->file + cd_off;
	cd_end = p + cd_size;
	for (uint64_t i = 0; i < count; i++) {
		struct zip_entry *ent = &z->entries[i];
		size_t n, x, c;
		if ((size_t)(cd_end - p) < ZIP_CENTRAL_LEN || get32(p) != ZIP_CENTRAL_SIG ||
		    ZIP_CENTRAL_LEN + (size_t)get16(p + 28) + get16(p + 30) + get16(p + 32) > (size_t)(cd_end - p))
			return msg_fail(z->err, z->path, "zip central directory entry %llu is damaged",
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
int tio_zip_entry_start(struct pt_reader *z, const struct zip_entry *e, size_t *start)
{
	const unsigned char *h;
	size_t n, x, data;
	if (e->local > z->size || z->size - e->local < ZIP_LOCAL_LEN)
		return msg_fail(z->err, z->path, ENTRY_FMT ": local header at offset %llu lies outside the file",
			    ENTRY_ARG(e), (unsigned long long)e->local);
	h = z->file + e->local;
	if (get32(h) != ZIP_LOCAL_SIG)
		return msg_fail(z->err, z->path, ENTRY_FMT ": no local header at offset %llu", ENTRY_ARG(e),
			    (unsigned long long)e->local);
	n = get16(h + 26), x = get16(h + 28);
	data = (size_t)e->local + ZIP_LOCAL_LEN + n + x;
	if (data > z->size)
		return msg_fail(z->err, z->path, ENTRY_FMT ": local header runs past the end of the file", ENTRY_ARG(e));
	if (n != e->name_len || memcmp(h + ZIP_LOCAL_LEN, e->name, n))
		return msg_fail(z->err, z->path, ENTRY_FMT ": the local header names another entry", ENTRY_ARG(e));
	if (e->csize > z->size - data)
		return msg_fail(z->err, z->path, ENTRY_FMT ": its %llu bytes at offset %zu run past the end of the file",
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
		return msg_fail(z->err, z->path, ENTRY_FMT ": %llu compressed bytes cannot inflate to %llu bytes",
			    ENTRY_ARG(e), (unsigned long long)e->csize, (unsigned long long)want);
	if (want > SIZE_MAX - 1 || !(buf = malloc(want ? (size_t)want : 1)))
		return msg_fail(z->err, z->path, ENTRY_FMT ": cannot allocate %llu bytes to inflate it", ENTRY_ARG(e),
			    (unsigned long long)want);
	z->inflating = buf;
	memset(zs, 0, sizeof(*zs));
	if (inflateInit2(zs, -MAX_WBITS) != Z_OK) {
		free(buf);
		z->inflating = NULL;
		return msg_fail(z->err, z->path, ENTRY_FMT ": cannot start zlib", ENTRY_ARG(e));
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
			rc = msg_fail(z->err, z->path,
				  ENTRY_FMT ": inflates to more than the %llu bytes its directory entry declares",
				  ENTRY_ARG(e), (unsigned long long)e->usize);
			goto out;
		}
		zs->next_out = buf + want;
		if (ret == Z_STREAM_END)
			ended = true;
	}
	if (ret != Z_OK && ret != Z_STREAM_END && ret != Z_BUF_ERROR)
		rc = msg_fail(z->err, z->path, ENTRY_FMT ": bad deflate data: %s", ENTRY_ARG(e),
			  zs->msg ? zs->msg : "zlib error");
	else if ((uint64_t)(zs->next_out - buf) < want && ended)
		rc = msg_fail(z->err, z->path, ENTRY_FMT ": the deflate stream ends after %llu of %llu bytes",
			  ENTRY_ARG(e), (unsigned long long)(zs->next_out - buf), (unsigned long long)want);
	else if ((uint64_t)(zs->next_out - buf) < want || (want == e->usize && !ended))
		rc = msg_fail(z->err, z->path, ENTRY_FMT ": truncated deflate stream", ENTRY_ARG(e));
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
int tio_zip_entry_bytes(struct pt_reader *z, const struct zip_entry *e, uint64_t want, const unsigned char **out,
			   unsigned char **owned)
{
	size_t start = 0;
	*owned = NULL;
	if (e->flags & 1)
		return msg_fail(z->err, z->path, ENTRY_FMT " is encrypted", ENTRY_ARG(e));
	if (want > e->usize)
		return msg_fail(z->err, z->path, ENTRY_FMT " holds %llu bytes; %llu are needed", ENTRY_ARG(e),
			    (unsigned long long)e->usize, (unsigned long long)want);
	if (tio_zip_entry_start(z, e, &start))
		return -1;
	if (e->method == 0) {
		if (e->csize != e->usize)
			return msg_fail(z->err, z->path, ENTRY_FMT ": a stored entry of %llu bytes that takes %llu",
				    ENTRY_ARG(e), (unsigned long long)e->usize, (unsigned long long)e->csize);
		*out = z->file + start;
		return 0;
	}
	if (e->method != 8)
		return msg_fail(z->err, z->path, ENTRY_FMT ": compression method %u is not supported", ENTRY_ARG(e),
			    e->method);
	if (zip_inflate(z, e, z->file + start, want, owned))
		return -1;
	*out = *owned;
	return 0;
}

/* The archive's data.pkl, "<stem>/data.pkl" with a stem of one path component; it names the stem. */
int tio_pt_find_pickle(struct pt_reader *z, const struct zip_entry **pkl)
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
			return msg_fail(z->err, z->path, "two data.pkl entries in the archive: %.*s and %.*s",
				    ENTRY_ARG(*pkl), ENTRY_ARG(e));
		*pkl = e;
	}
	if (!*pkl)
		return msg_fail(z->err, z->path, "no data.pkl in the zip archive: not a file written by torch.save");
	z->stem = (*pkl)->name;
	z->stem_len = (*pkl)->name_len - slen;
	return 0;
}

/* The entry "<stem>/<rest>", or NULL; two entries of that name are an error. */
int tio_pt_find(struct pt_reader *z, const char *rest, size_t rest_len, const struct zip_entry **found)
{
	*found = NULL;
	for (size_t i = 0; i < z->nentries; i++) {
		const struct zip_entry *e = &z->entries[i];
		if (e->name_len != z->stem_len + 1 + rest_len || memcmp(e->name, z->stem, z->stem_len) ||
		    e->name[z->stem_len] != '/' || memcmp(e->name + z->stem_len + 1, rest, rest_len))
			continue;
		if (*found)
			return msg_fail(z->err, z->path, "two zip entries named %.*s", ENTRY_ARG(e));
		*found = e;
	}
	return 0;
}

