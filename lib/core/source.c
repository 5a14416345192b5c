#include "source.h"
#include "progress.h"
#include "xalloc.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

enum source_kind { SRC_FD, SRC_GZIP, SRC_MEMORY };

#define GZ_IN_SIZE (256 * 1024)

struct source {
	enum source_kind kind;
	char *name;
	int fd;
	bool owns_fd;
	size_t max_chunk;
	uint64_t raw_offset;
	struct strbuf err;

	/* bytes read ahead while sniffing the format, handed out first */
	unsigned char peek[2];
	size_t peek_len, peek_pos;

	/* memory */
	const unsigned char *mem;
	size_t mem_len, mem_pos;

	/* gzip */
	z_stream zs;
	unsigned char *zin;
	bool z_end; /* underlying file exhausted */
	bool z_member_done;
	bool z_failed; /* err holds a gzip error for the next read */
};

static ssize_t read_fd(struct source *src, void *buf, size_t len)
{
	ssize_t n;
	if (src->peek_pos < src->peek_len) {
		size_t k = src->peek_len - src->peek_pos;
		if (k > len)
			k = len;
		memcpy(buf, src->peek + src->peek_pos, k);
		src->peek_pos += k;
		return (ssize_t)k;
	}
	do {
		n = read(src->fd, buf, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		strbuf_reset(&src->err);
		strbuf_addf(&src->err, "read error: %s", strerror(errno));
		return -1;
	}
	src->raw_offset += (uint64_t)n;
	progress_add((uint64_t)n);
	return n;
}

static ssize_t read_gzip(struct source *src, void *buf, size_t len)
{
	if (src->z_failed)
		return -1;
	if (len > UINT_MAX)
		len = UINT_MAX;
	src->zs.next_out = buf;
	src->zs.avail_out = (unsigned)len;
	while (src->zs.avail_out == len) {
		int ret;
		if (src->zs.avail_in == 0 && !src->z_end) {
			ssize_t n = read_fd(src, src->zin, GZ_IN_SIZE);
			if (n < 0)
				return -1;
			if (n == 0)
				src->z_end = true;
			src->zs.next_in = src->zin;
			src->zs.avail_in = (unsigned)n;
		}
		if (src->z_member_done) {
			/* concatenated gzip members form one stream (gzip(1) semantics) */
			if (src->zs.avail_in == 0 && src->z_end)
				break;
			if (inflateReset(&src->zs) != Z_OK)
				goto corrupt;
			src->z_member_done = false;
		}
		ret = inflate(&src->zs, Z_NO_FLUSH);
		if (ret == Z_STREAM_END) {
			src->z_member_done = true;
			continue;
		}
		if (ret == Z_BUF_ERROR && src->zs.avail_in == 0 && src->z_end) {
			strbuf_reset(&src->err);
			strbuf_addstr(&src->err, "truncated gzip stream");
			return -1;
		}
		if (ret != Z_OK && ret != Z_BUF_ERROR)
			goto corrupt;
	}
	return (ssize_t)(len - src->zs.avail_out);
corrupt:
	strbuf_reset(&src->err);
	strbuf_addf(&src->err, "corrupt gzip stream: %s", src->zs.msg ? src->zs.msg : "inflate failed");
	/* what inflated before the bad spot first, so that the error's position does not depend on len */
	src->z_failed = true;
	return len - src->zs.avail_out ? (ssize_t)(len - src->zs.avail_out) : -1;
}

static bool sniff_gzip(struct source *src)
{
	while (src->peek_len < 2) {
		ssize_t n;
		do {
			n = read(src->fd, src->peek + src->peek_len, 2 - src->peek_len);
		} while (n < 0 && errno == EINTR);
		if (n <= 0)
			break;
		src->peek_len += (size_t)n;
		src->raw_offset += (uint64_t)n;
	}
	return src->peek_len == 2 && src->peek[0] == 0x1f && src->peek[1] == 0x8b;
}

const char *source_kind_name(mode_t mode)
{
	if (S_ISREG(mode))
		return "a regular file";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISLNK(mode))
		return "a symbolic link";
	return "a special file";
}

static struct source *source_from_fd(const char *path, int fd, bool is_stdin, struct strbuf *err);

struct source *source_open(const char *path, struct strbuf *err)
{
	int fd;
	bool is_stdin = !strcmp(path, "-");

	if (is_stdin) {
		fd = 0;
		source_grow_pipe(fd);
	} else {
		do {
			fd = open(path, O_RDONLY | O_CLOEXEC);
		} while (fd < 0 && errno == EINTR);
		if (fd < 0) {
			strbuf_addf(err, "%s: cannot open: %s", path, strerror(errno));
			return NULL;
		}
	}
	return source_from_fd(path, fd, is_stdin, err);
}

int source_open_regular_fd(int dirfd, const char *rel, int oflags, struct stat *st, bool *not_regular)
{
	int fd, e;
	*not_regular = false;
	/*
	 * Looked at by name first, and not opened when it is not a regular file: opening a
	 * FIFO, even without blocking, completes the open of a writer waiting on it, and
	 * closing it again leaves that writer with no reader, so that its first write fails
	 * (EPIPE) and whoever opens the FIFO next to read it gets nothing.  A symbolic link
	 * under O_NOFOLLOW is left to openat() (ELOOP).
	 */
	if (!fstatat(dirfd, rel, st, (oflags & O_NOFOLLOW) ? AT_SYMLINK_NOFOLLOW : 0) && !S_ISREG(st->st_mode) &&
	    !S_ISLNK(st->st_mode)) {
		*not_regular = true;
		return -1;
	}
	/* O_NONBLOCK: what became a FIFO (or a tty, a device) since must not wait for a writer before fstat() */
	do {
		fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | oflags);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0)
		goto fail;
	if (!S_ISREG(st->st_mode)) {
		*not_regular = true;
		goto fail;
	}
	/* of the flags F_SETFL changes, only O_NONBLOCK was set */
	if (fcntl(fd, F_SETFL, 0) < 0)
		goto fail;
	return fd;
fail:
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

/* source_open_regular_fd() of a path, its failure said in err (NULL: not said). */
static int open_regular_path(const char *path, struct strbuf *err)
{
	struct stat st;
	bool not_regular;
	int fd = source_open_regular_fd(AT_FDCWD, path, 0, &st, &not_regular);
	if (fd < 0 && err && not_regular)
		strbuf_addf(err, "%s: %s, not a regular file: refused (reading it could wait for ever)", path,
			    source_kind_name(st.st_mode));
	else if (fd < 0 && err)
		strbuf_addf(err, "%s: cannot open: %s", path, strerror(errno));
	return fd;
}

struct source *source_open_regular(const char *path, struct strbuf *err)
{
	int fd = open_regular_path(path, err);
	return fd < 0 ? NULL : source_from_fd(path, fd, false, err);
}

FILE *source_fopen_regular(const char *path, struct strbuf *err)
{
	int fd = open_regular_path(path, err);
	FILE *f;
	if (fd < 0)
		return NULL;
	if (!(f = fdopen(fd, "rb"))) {
		int e = errno;
		close(fd);
		if (err)
			strbuf_addf(err, "%s: cannot open: %s", path, strerror(e));
		errno = e;
	}
	return f;
}

bool source_is_regular(const struct source *src)
{
	struct stat st;
	return src->kind != SRC_MEMORY && fstat(src->fd, &st) == 0 && S_ISREG(st.st_mode);
}

bool source_is_pipe(const struct source *src)
{
	struct stat st;
	return src->kind != SRC_MEMORY && fstat(src->fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

static struct source *source_from_fd(const char *path, int fd, bool is_stdin, struct strbuf *err)
{
	struct source *src;
	src = xcalloc(1, sizeof(*src));
	src->name = xstrdup(is_stdin ? "<stdin>" : path);
	src->fd = fd;
	src->owns_fd = !is_stdin;
	strbuf_init(&src->err, 0);
	src->kind = SRC_FD;
	if (sniff_gzip(src)) {
		src->kind = SRC_GZIP;
		src->zin = xmalloc(GZ_IN_SIZE);
		if (inflateInit2(&src->zs, 16 + MAX_WBITS) != Z_OK) {
			strbuf_addf(err, "%s: cannot start zlib", src->name);
			source_close(src);
			return NULL;
		}
	}
	return src;
}

struct source *source_from_memory(const char *name, const void *data, size_t len)
{
	struct source *src = xcalloc(1, sizeof(*src));
	src->kind = SRC_MEMORY;
	src->name = xstrdup(name);
	src->fd = -1;
	src->mem = data;
	src->mem_len = len;
	strbuf_init(&src->err, 0);
	return src;
}

#define PIPE_WANTED (1 << 20)

void source_grow_pipe(int fd)
{
#ifdef F_SETPIPE_SZ
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) {
		int size = fcntl(fd, F_GETPIPE_SZ);
		if (size >= 0 && size < PIPE_WANTED)
			(void)fcntl(fd, F_SETPIPE_SZ, PIPE_WANTED); /* a limit may refuse it: fine */
	}
#else
	(void)fd;
#endif
}

ssize_t source_read(struct source *src, void *buf, size_t len)
{
	if (src->max_chunk && len > src->max_chunk)
		len = src->max_chunk;
	if (!len)
		return 0;
	switch (src->kind) {
	case SRC_GZIP:
		return read_gzip(src, buf, len);
	case SRC_MEMORY: {
		size_t k = src->mem_len - src->mem_pos;
		if (k > len)
			k = len;
		memcpy(buf, src->mem + src->mem_pos, k);
		src->mem_pos += k;
		src->raw_offset += k;
		return (ssize_t)k;
	}
	case SRC_FD:
	default:
		return read_fd(src, buf, len);
	}
}

void source_close(struct source *src)
{
	if (!src)
		return;
	if (src->kind == SRC_GZIP)
		inflateEnd(&src->zs);
	free(src->zin);
	if (src->owns_fd && src->fd >= 0)
		close(src->fd);
	strbuf_release(&src->err);
	free(src->name);
	free(src);
}

const char *source_name(const struct source *src)
{
	return src->name;
}

bool source_is_gzip(const struct source *src)
{
	return src->kind == SRC_GZIP;
}

const char *source_error(const struct source *src)
{
	return src->err.buf;
}

void source_set_max_chunk(struct source *src, size_t n)
{
	src->max_chunk = n;
}
