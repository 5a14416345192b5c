/* tplace.c: tensors at places a container found (tplace.h). */
#include "tplace.h"
#include "tensorio.h"
#include "../core/source.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int tio_map_file(const char *path, int *fd_out, void **map_out, size_t *len_out, struct strbuf *err)
{
	struct stat st;
	bool other = false;
	void *map;
	int fd = source_open_regular_fd(AT_FDCWD, path, 0, &st, &other);
	if (fd < 0 && other)
		return msg_fail(err, path, "not a regular file (%s)", source_kind_name(st.st_mode));
	if (fd < 0)
		return msg_fail(err, path, "%s", strerror(errno));
	if (st.st_size == 0 || (uint64_t)st.st_size > SIZE_MAX) {
		close(fd);
		return msg_fail(err, path, st.st_size ? "too large to map" : "empty file");
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		int e = errno;
		close(fd);
		return msg_fail(err, path, "cannot map: %s", strerror(e));
	}
	*fd_out = fd;
	*map_out = map;
	*len_out = (size_t)st.st_size;
	return 0;
}

/* The raw deflate stream src[0, csize) inflated into exactly `bytes` bytes of new memory. */
static int inflate_storage(const char *path, const unsigned char *src, uint64_t csize, uint64_t bytes,
			   unsigned char **out, struct strbuf *err)
{
	z_stream zs;
	unsigned char *buf;
	int ret = Z_OK;
	if (bytes / DEFLATE_MAX_RATIO > csize)
		return msg_fail(err, path, "%llu deflated bytes cannot inflate to %llu", (unsigned long long)csize,
				(unsigned long long)bytes);
	if (bytes > SIZE_MAX - 1 || !(buf = malloc(bytes ? (size_t)bytes : 1)))
		return msg_fail(err, path, "cannot allocate %llu bytes to inflate a storage", (unsigned long long)bytes);
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) {
		free(buf);
		return msg_fail(err, path, "cannot start zlib");
	}
	zs.next_in = (unsigned char *)src;
	zs.next_out = buf;
	while ((uint64_t)(zs.next_out - buf) < bytes && ret == Z_OK) {
		uint64_t in_left = csize - (uint64_t)(zs.next_in - src), out_left = bytes - (uint64_t)(zs.next_out - buf);
		zs.avail_in = in_left > UINT_MAX ? UINT_MAX : (unsigned)in_left;
		zs.avail_out = out_left > UINT_MAX ? UINT_MAX : (unsigned)out_left;
		ret = inflate(&zs, Z_NO_FLUSH);
		if (ret == Z_BUF_ERROR && !zs.avail_in)
			break;
	}
	inflateEnd(&zs);
	if ((uint64_t)(zs.next_out - buf) < bytes) {
		free(buf);
		return msg_fail(err, path, "a deflated storage ends after %llu of its %llu bytes",
				(unsigned long long)(zs.next_out - buf), (unsigned long long)bytes);
	}
	*out = buf;
	return 0;
}

/* Shape and strides set, the view checked against the storage; *end: one past the last element touched. */
static int place_view(struct tensor *t, const char *path, const struct tplace *p, int64_t *end, struct strbuf *err)
{
	unsigned size = dtype_info(p->dtype)->size;
	if (p->ndim < 0 || p->ndim > TENSOR_MAX_DIMS)
		return msg_fail(err, path, "%d dimensions; at most %d are supported", p->ndim, TENSOR_MAX_DIMS);
	t->dtype = p->dtype;
	t->ndim = p->ndim;
	for (int d = 0; d < p->ndim; d++) {
		if (p->shape[d] < 0 || (p->stride && p->stride[d] < 0))
			return msg_fail(err, path, "a negative size or stride");
		t->shape[d] = p->shape[d];
		if (p->stride)
			t->stride[d] = p->stride[d];
	}
	if (!p->stride && tio_dense_strides(t, false))
		return msg_fail(err, path, "the shape holds more than 2^63 elements");
	if (p->bytes > INT64_MAX)
		return msg_fail(err, path, "a storage of %llu bytes", (unsigned long long)p->bytes);
	return tio_check_view(t, path, err, p->offset, (int64_t)(p->bytes / size), end);
}

/* Map, inflate or copy: what may fault once the file is mapped (under the caller's guard); messages about `path`. */
static int place_data(struct tensor *t, const char *path, const struct tplace *p, int64_t end, struct strbuf *err)
{
	unsigned size = dtype_info(p->dtype)->size;
	const unsigned char *base;
	if (p->deflated) {
		if (p->deflated > t->map_len || p->at > t->map_len - p->deflated)
			return msg_fail(err, path, "a deflated storage of %llu bytes at byte %llu runs past the end of the file (%zu bytes)",
					(unsigned long long)p->deflated, (unsigned long long)p->at, t->map_len);
		if (inflate_storage(path, (const unsigned char *)t->map + p->at, p->deflated, p->bytes, &t->owned, err))
			return -1;
		base = t->owned;
	} else {
		if (p->bytes > t->map_len || p->at > t->map_len - p->bytes)
			return msg_fail(err, path, "a storage of %llu bytes at byte %llu runs past the end of the file (%zu bytes)",
					(unsigned long long)p->bytes, (unsigned long long)p->at, t->map_len);
		base = (const unsigned char *)t->map + p->at;
		if (tio_align_storage(t, &base, end * (int64_t)size, path, err))
			return -1;
	}
	t->data = t->numel ? base + p->offset * (int64_t)size : NULL;
	return 0;
}

int tplace_open(struct tensor *t, const char *path, const struct tplace *p, struct strbuf *err)
{
	struct tensor_guard g;
	struct strbuf subject = STRBUF_INIT;
	const size_t err_len = err->len;
	int64_t end = 0;
	void *map = NULL;
	volatile int rc = -1;

	memset(t, 0, sizeof(*t));
	if ((unsigned)p->dtype >= DT_COUNT)
		return msg_fail(err, path, "unknown element type %d", (int)p->dtype);
	if (place_view(t, path, p, &end, err))
		return -1;
	if (tio_map_file(path, &t->fd, &map, &t->map_len, err))
		return -1;
	t->map = map;
	t->path = xstrdup(path);
	t->format = TENSOR_PT;
	t->requires_grad = p->requires_grad;
	t->swapped = p->big_endian != host_is_big_endian() && dtype_info(p->dtype)->size > 1;
	/* made before the guard: nothing a jump leaves behind */
	strbuf_addstr(&subject, path);
	if (p->member)
		strbuf_addf(&subject, ": %s", p->member);
	tensor_guard_begin(&g);
	if (!sigsetjmp(g.jump, 0)) {
		rc = place_data(t, subject.buf, p, end, err);
	} else {
		strbuf_setlen(err, err_len);
		if (!tensor_fault_message(t, g.addr, err))
			msg_fail(err, path, "a read faulted (SIGBUS) while the tensor was opened");
		rc = -1;
	}
	tensor_guard_end(&g);
	strbuf_release(&subject);
	if (rc) {
		tensor_close(t);
		return -1;
	}
	return 0;
}

void tplace_adopt(struct tensor *t, const char *name, enum dtype dtype, int ndim, const int64_t *shape, void *data)
{
	int64_t end = 0, numel = 1;
	struct strbuf ignored = STRBUF_INIT;
	memset(t, 0, sizeof(*t));
	t->dtype = dtype;
	t->ndim = ndim;
	for (int d = 0; d < ndim; d++) {
		t->shape[d] = shape[d];
		numel *= shape[d];
	}
	tio_dense_strides(t, false);
	/* the caller's memory holds numel elements: the view fits by construction */
	tio_check_view(t, name, &ignored, 0, numel ? numel : 1, &end);
	strbuf_release(&ignored);
	t->owned = data;
	t->data = t->numel ? data : NULL;
	t->path = xstrdup(name);
	t->format = TENSOR_PT;
	t->fd = -1;
}
