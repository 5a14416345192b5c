/*
 * tensor.c: opening a saved tensor (tensor.h): the file mapped and its
 * faults caught, the view checked, the elements read and converted; the
 * formats are read by pt.c and npy.c (tensorio.h).
 */
#include "tensorio.h"
#include "../core/source.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* ------------------------------------------------------------------ */
/* The view: shape and strides against a storage                       */

/*
 * The element loops load with memcpy, so any storage can be read where it lies; a
 * typed pointer into one (tmetric's float32 pass) asks tensor_aligned() first.  torch
 * aligns its entries to 64 bytes and numpy pads its header to 64, but an archive
 * written another way, or a hostile one, need not: such a storage is copied into
 * memory of its own (malloc aligns for every type), which costs little where it is
 * rare.  An ATB .bin's payload follows a header of any length: it stays in place.
 */
int tio_align_storage(struct tensor *t, const unsigned char **base, int64_t bytes, const char *path,
			 struct strbuf *err)
{
	unsigned size = dtype_info(t->dtype)->size;
	unsigned char *copy, *old = t->owned;
	if (bytes <= 0 || !size || (uintptr_t)*base % size == 0)
		return 0;
	if ((uint64_t)bytes > SIZE_MAX || !(copy = malloc((size_t)bytes)))
		return msg_fail(err, path, "cannot allocate %lld bytes to align the storage", (long long)bytes);
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
int tio_check_view(struct tensor *t, const char *path, struct strbuf *err, int64_t offset,
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
			return msg_fail(err, path, "the shape holds more than 2^63 elements");
		if (!mul_ok(t->shape[d] - 1, t->stride[d], &reach) || !add_ok(last, reach, &last))
			return msg_fail(err, path, "the view's extent (offset, size and stride) overflows 64 bits");
	}
	if (last >= storage_elems)
		return msg_fail(err, path, "the view reaches element %lld of a storage of %lld elements",
			    (long long)last, (long long)storage_elems);
	/*
	 * More elements than the storage holds: the view repeats them (a zero
	 * stride).  Its work would not be bounded by the file; torch.load keeps
	 * the repeats, msprobe's numpy arithmetic makes copies of them.
	 */
	if (numel > storage_elems && numel > TENSOR_MAX_REPEATED)
		return msg_fail(err, path,
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
int tio_dense_strides(struct tensor *t, bool column_major)
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
/* Opening and closing                                                 */

static int not_regular(struct strbuf *err, const char *path, mode_t mode)
{
	return msg_fail(err, path, "not a regular file (%s): only regular files are read as tensors", source_kind_name(mode));
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
		return msg_fail(err, path, "%s", strerror(errno));
	if (!S_ISREG(st->st_mode))
		return not_regular(err, path, st->st_mode);
	if (st->st_size == 0) /* not opened either: /proc/self/mem and its kind say 0 */
		return msg_fail(err, path, "empty file: not a tensor");
	fd = source_open_regular_fd(dirfd, rel, nofollow ? O_NOFOLLOW : 0, st, &other);
	if (fd < 0 && other)
		return not_regular(err, path, st->st_mode);
	if (fd < 0)
		return msg_fail(err, path, "%s", errno == ELOOP ? "a symbolic link put in the file's place" : strerror(errno));
	return fd;
}

/* Map the regular file fd (its stat in st); fd is the tensor's from here on, or closed. */
static int map_fd(struct tensor *t, int fd, const struct stat *st, const char *path, struct strbuf *err)
{
	void *map;
	if (st->st_size == 0) {
		close(fd);
		return msg_fail(err, path, "empty file: not a tensor");
	}
	if ((uint64_t)st->st_size > SIZE_MAX) {
		close(fd);
		return msg_fail(err, path, "too large to map");
	}
	map = mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		int e = errno;
		close(fd);
		return msg_fail(err, path, "cannot map: %s", strerror(e));
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
		return tio_npy_open(t, path, err);
	if (t->map_len >= 4 && f[0] == 'P' && f[1] == 'K' && ((f[2] == 3 && f[3] == 4) || (f[2] == 5 && f[3] == 6)))
		return tio_pt_open(t, path, err, z);
	if (tio_atb_looks_like(f, t->map_len))
		return tio_atb_open(t, path, err);
	if (t->map_len >= 2 && f[0] == 0x80 && f[1] >= 2 && f[1] <= 5)
		return msg_fail(err, path, "a pickle, not a zip archive: torch.save's legacy format is not supported");
	return msg_fail(err, path, "neither a torch .pt (zip), a .npy nor an ATB .bin file");
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
			msg_fail(err, path, "a read faulted (SIGBUS) while the file was opened");
		rc = -1;
	}
	tensor_guard_end(&g);
	tio_pt_reader_release(z);
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
		return msg_fail(err, path, "its folder %s: %s", dir, strerror(errno));
	if (!(real = realpath(path, NULL))) {
		msg_fail(err, path, "%s", strerror(errno));
		goto out;
	}
	n = strlen(real_dir);
	if (n == 1) /* the folder is "/" */
		n = 0;
	if (strncmp(real, real_dir, n) || real[n] != '/') {
		msg_fail(err, path, "resolves to %s, outside the tensor folder %s: only files inside the tensor folder are read",
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
		return msg_fail(err, path, "data_name \"%s\" is an absolute path: only files inside the tensor folder are read",
			    name);
	if (nlen && has_dotdot(name))
		return msg_fail(err, path, "data_name \"%s\" has a \"..\" component: only files inside the tensor folder are read",
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
			return msg_fail(err, path, "names a folder, not a file");
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
		msg_fail(err, path, "%s", strerror(errno));
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


/* t (float32) as the bfloat16 tensor it holds exactly, or false with t unchanged. */
static bool narrow_to_bfloat16(struct tensor *t)
{
	enum { NARROW_CHUNK = 4096 };
	float buf[NARROW_CHUNK];
	uint16_t *out = xmalloc(st_mult((size_t)t->numel + 1, sizeof(*out)));
	for (int64_t at = 0; at < t->numel; at += NARROW_CHUNK) {
		int64_t n = t->numel - at < NARROW_CHUNK ? t->numel - at : NARROW_CHUNK;
		tensor_read_f32(t, at, n, buf);
		for (int64_t i = 0; i < n; i++) {
			uint32_t bits;
			memcpy(&bits, &buf[i], sizeof(bits));
			if (bits & 0xffffu) {
				free(out);
				return false;
			}
			out[at + i] = (uint16_t)(bits >> 16);
		}
	}
	free(t->owned);
	t->owned = (unsigned char *)out;
	t->data = t->numel ? t->owned : NULL;
	t->dtype = DT_BFLOAT16;
	t->swapped = false;
	t->contiguous = true;
	for (int d = t->ndim - 1, step = 1; d >= 0; d--) {
		t->stride[d] = step;
		step *= (int)t->shape[d];
	}
	return true;
}

bool tensor_match_upcast(struct tensor *a, struct tensor *b)
{
	if (a->format == TENSOR_NPY && a->dtype == DT_FLOAT32 && b->dtype == DT_BFLOAT16)
		return narrow_to_bfloat16(a);
	if (b->format == TENSOR_NPY && b->dtype == DT_FLOAT32 && a->dtype == DT_BFLOAT16)
		return narrow_to_bfloat16(b);
	return false;
}
