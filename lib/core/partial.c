#include "partial.h"
#include "xalloc.h"
#include "msg.h"

#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0) /* <linux/fs.h> */
#endif

struct partial {
	char *tmp;
	char *final;
	atomic_bool pending;       /* tmp exists and is still to be renamed or removed */
	atomic_bool claimed;       /* final is an empty file of ours, about to be renamed over */
	struct partial *next;      /* set before the node is published */
	/* partial_create_private(): the private folder tmp is in, and what a library may leave beside tmp */
	char *dir;
	char *extra[3];
	atomic_bool dir_pending;   /* dir exists and is still to be removed */
};

static const char *const extra_suffix[3] = { "-journal", "-wal", "-shm" }; /* sqlite's files beside a database */

static _Atomic(struct partial *) head; /* newest first; read by the signal handler */
static void (*signal_hook)(int sig);
static bool initialised;

/* The private folder of a file and what a library left in it (async-signal-safe: known names only). */
static void remove_private_dir_known(struct partial *p)
{
	if (!atomic_exchange(&p->dir_pending, false))
		return;
	for (size_t i = 0; i < sizeof(p->extra) / sizeof(p->extra[0]); i++)
		unlink(p->extra[i]);
	rmdir(p->dir);
}

static void remove_pending(void)
{
	for (struct partial *p = atomic_load(&head); p; p = p->next) {
		if (atomic_exchange(&p->pending, false))
			unlink(p->tmp);
		if (atomic_exchange(&p->claimed, false))
			unlink(p->final);
		if (p->dir)
			remove_private_dir_known(p);
	}
}

/* Outside a signal handler: anything else a library left there goes too. */
static void remove_private_dir(struct partial *p)
{
	DIR *d;
	struct dirent *e;
	if (!p->dir || !atomic_load(&p->dir_pending))
		return;
	if (rmdir(p->dir) == 0 || errno != ENOTEMPTY) {
		atomic_store(&p->dir_pending, false);
		return;
	}
	if ((d = opendir(p->dir))) {
		int fd = dirfd(d);
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(fd, e->d_name, 0);
		closedir(d);
	}
	remove_private_dir_known(p);
}

static void on_exit_remove(void)
{
	remove_pending();
}

static void on_signal(int sig)
{
	int saved = errno;
	remove_pending();
	if (signal_hook)
		signal_hook(sig);
	/* end as the signal would have ended us: the parent sees how */
	signal(sig, SIG_DFL);
	raise(sig);
	errno = saved;
}

void partial_init(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	if (initialised)
		return;
	initialised = true;
	atexit(on_exit_remove);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction sa, old;
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue; /* nohup and the like: stay immune */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		for (size_t j = 0; j < sizeof(sigs) / sizeof(sigs[0]); j++)
			sigaddset(&sa.sa_mask, sigs[j]);
		sigaddset(&sa.sa_mask, SIGPIPE); /* the hook's write into a closed pipe must not end us first */
		sigaction(sigs[i], &sa, NULL);
	}
	/* a file size limit (ulimit -f) is a write error with a message, like a full disk */
	signal(SIGXFSZ, SIG_IGN);
}

void partial_on_signal(void (*hook)(int sig))
{
	signal_hook = hook;
}

static struct partial *partial_add(const char *tmp, const char *final)
{
	struct partial *p = xcalloc(1, sizeof(*p));
	partial_init();
	p->tmp = xstrdup(tmp);
	p->final = xstrdup(final);
	atomic_init(&p->pending, true);
	atomic_init(&p->claimed, false);
	p->next = atomic_load(&head);
	atomic_store(&head, p);
	return p;
}

/* 12 characters nobody can predict (the kernel's random bytes; the clock and the pid where it has none). */
static void random_name(char out[13])
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	static _Atomic uint64_t serial;
	unsigned char b[12];
	if (getrandom(b, sizeof(b), GRND_NONBLOCK) != (ssize_t)sizeof(b)) {
		struct timespec ts;
		uint64_t x;
		clock_gettime(CLOCK_REALTIME, &ts);
		x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 48) ^ serial++;
		for (size_t i = 0; i < sizeof(b); i++) {
			/* splitmix64 */
			uint64_t z = (x += 0x9e3779b97f4a7c15u);
			z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
			z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
			b[i] = (unsigned char)(z ^ (z >> 31));
		}
	}
	for (size_t i = 0; i < sizeof(b); i++)
		out[i] = set[b[i] % (sizeof(set) - 1)];
	out[12] = '\0';
}

int partial_create(const char *final, struct partial **out, struct strbuf *err)
{
	struct strbuf tmp = STRBUF_INIT;
	int fd = -1, saved = 0;
	*out = NULL;
	for (int tries = 0; tries < 16 && fd < 0; tries++) {
		char r[13];
		sigset_t stop, old;
		struct partial *p;
		random_name(r);
		strbuf_reset(&tmp);
		strbuf_addf(&tmp, "%s.%s.partial", final, r);
		/*
		 * Registered before it exists, and no signal to this thread in between:
		 * an interruption must not leave it behind.
		 */
		sigemptyset(&stop);
		sigaddset(&stop, SIGINT);
		sigaddset(&stop, SIGTERM);
		sigaddset(&stop, SIGHUP);
		pthread_sigmask(SIG_BLOCK, &stop, &old);
		p = partial_add(tmp.buf, final);
		do {
			fd = open(tmp.buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		} while (fd < 0 && errno == EINTR);
		saved = errno;
		if (fd < 0)
			atomic_store(&p->pending, false); /* not ours: nothing to remove */
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (fd >= 0)
			*out = p;
		else if (saved != EEXIST)
			break;
	}
	if (fd < 0)
		strbuf_addf(err, "%s: cannot create: %s", final, strerror(saved));
	strbuf_release(&tmp);
	return fd;
}

int partial_create_private(const char *final, struct partial **out, struct strbuf *err)
{
	struct strbuf tmpl = STRBUF_INIT, tmp = STRBUF_INIT;
	char *copy = xstrdup(final);
	const char *base;
	sigset_t stop, old;
	struct partial *p;
	int fd = -1, saved = 0;
	*out = NULL;
	partial_init();
	/* beside final, so that the last rename stays on one file system; mkdtemp gives 0700 */
	strbuf_addf(&tmpl, "%s.partial-XXXXXX", final);
	base = basename(copy);
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	/* registered before it exists, no signal in between (as partial_create) */
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	if (!mkdtemp(tmpl.buf)) {
		saved = errno;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		strbuf_addf(err, "%s: cannot create a private folder for it: %s", final, strerror(saved));
		goto out;
	}
	strbuf_addf(&tmp, "%s/%s", tmpl.buf, base);
	p = partial_add(tmp.buf, final);
	p->dir = xstrdup(tmpl.buf);
	for (size_t i = 0; i < sizeof(p->extra) / sizeof(p->extra[0]); i++) {
		struct strbuf x = STRBUF_INIT;
		strbuf_addf(&x, "%s%s", tmp.buf, extra_suffix[i]);
		p->extra[i] = strbuf_detach(&x, NULL);
	}
	atomic_store(&p->dir_pending, true);
	do {
		fd = open(tmp.buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	} while (fd < 0 && errno == EINTR);
	saved = errno;
	if (fd < 0) {
		atomic_store(&p->pending, false);
		remove_private_dir(p);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (fd < 0)
		strbuf_addf(err, "%s: cannot create: %s", final, strerror(saved));
	else
		*out = p;
out:
	free(copy);
	strbuf_release(&tmpl);
	strbuf_release(&tmp);
	return fd;
}

FILE *partial_fopen(const char *final, struct partial **out, struct strbuf *err)
{
	int fd = partial_create(final, out, err);
	FILE *f;
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f) {
		strbuf_addf(err, "%s: cannot create: %s", final, strerror(errno));
		close(fd);
		partial_drop(*out);
		*out = NULL;
	}
	return f;
}

const char *partial_tmp_name(const struct partial *p)
{
	return p->tmp;
}

/* A new final name for a file not yet committed. */
static void partial_set_final(struct partial *p, const char *final)
{
	free(p->final);
	p->final = xstrdup(final);
}

int partial_commit(struct partial *p, struct strbuf *err)
{
	if (!atomic_load(&p->pending))
		return 0;
	if (rename(p->tmp, p->final) < 0) {
		strbuf_addf(err, "%s: cannot give the finished file this name: %s", p->final, strerror(errno));
		partial_drop(p);
		return -1;
	}
	atomic_store(&p->pending, false);
	remove_private_dir(p);
	return 0;
}

static bool unsupported(int e)
{
	return e == EINVAL || e == ENOSYS || e == ENOTSUP || e == EOPNOTSUPP || e == EPERM;
}

/* Rename tmp to final unless final exists: 0, or -1 with errno (EEXIST: it is taken). */
static int place_new(struct partial *p)
{
	int fd, e;
#ifdef SYS_renameat2
	if (syscall(SYS_renameat2, AT_FDCWD, p->tmp, AT_FDCWD, p->final, RENAME_NOREPLACE) == 0)
		return 0;
	if (!unsupported(errno))
		return -1;
#endif
	/* no renameat2 in this kernel or this file system: a hard link does not replace either */
	if (link(p->tmp, p->final) == 0) {
		unlink(p->tmp);
		return 0;
	}
	if (!unsupported(errno))
		return -1;
	/* no hard links (FAT, some network file systems): claim the name with an empty file, then rename over it */
	do {
		fd = open(p->final, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return -1;
	atomic_store(&p->claimed, true);
	close(fd);
	if (rename(p->tmp, p->final) < 0) {
		e = errno;
		if (atomic_exchange(&p->claimed, false))
			unlink(p->final);
		errno = e;
		return -1;
	}
	atomic_store(&p->claimed, false);
	return 0;
}

int partial_commit_unique(struct partial *const *v, size_t n, partial_name_fn *name, void *ctx, struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT;
	int ret = -1;
	bool stuck = false;
	for (unsigned k = 1; k <= 10000 && !stuck; k++) {
		size_t i;
		int e = 0;
		for (i = 0; i < n; i++) {
			if (!atomic_load(&v[i]->pending))
				break; /* removed, or already given a name */
			strbuf_reset(&path);
			name(ctx, k, i, &path);
			partial_set_final(v[i], path.buf);
			if (place_new(v[i]) < 0) {
				e = errno;
				break;
			}
			atomic_store(&v[i]->pending, false);
		}
		if (i == n) {
			for (i = 0; i < n; i++)
				remove_private_dir(v[i]);
			ret = 0;
			break;
		}
		if (e != EEXIST) {
			if (e)
				strbuf_addf(err, "%s: cannot give the finished file this name: %s", v[i]->final, strerror(e));
			else
				strbuf_addf(err, "%s: gone before it was complete", v[i]->final);
			break;
		}
		/* taken (by an earlier run, or one running now): take back what this attempt placed */
		while (i-- && !stuck) {
			atomic_store(&v[i]->pending, true);
			if (rename(v[i]->final, v[i]->tmp) < 0) {
				strbuf_addf(err, "%s: cannot take it back to try another name: %s", v[i]->final,
					    strerror(errno));
				atomic_store(&v[i]->pending, false);
				stuck = true;
			}
		}
	}
	if (ret < 0 && !err->len)
		strbuf_addf(err, "%s: every name tried is taken", n ? v[0]->final : "?");
	if (ret < 0)
		for (size_t i = 0; i < n; i++)
			partial_drop(v[i]);
	strbuf_release(&path);
	return ret;
}

void partial_numbered_name(void *ctx, unsigned k, size_t i, struct strbuf *out)
{
	const struct partial_numbered *pn = ctx;
	strbuf_addstr(out, pn->base);
	if (k > 1)
		strbuf_addf(out, "_%u", k);
	if (pn->nparts > 1)
		strbuf_addf(out, "_part_%zu", i + 1);
	strbuf_addstr(out, pn->ext);
}

int partial_commit_numbered(struct partial *p, const char *base, const char *ext, struct strbuf *path,
			    struct strbuf *err)
{
	struct partial_numbered pn = { .base = base, .ext = ext, .nparts = 1 };
	if (partial_commit_unique(&p, 1, partial_numbered_name, &pn, err) < 0)
		return -1;
	if (path) {
		strbuf_reset(path);
		strbuf_addstr(path, p->final);
	}
	return 0;
}

const char *partial_final_name(const struct partial *p)
{
	return p->final;
}

void partial_drop(struct partial *p)
{
	if (atomic_exchange(&p->pending, false))
		unlink(p->tmp);
	remove_private_dir(p);
}

/* data into a temporary file for path: 0 and *part, or -1 (nothing left). */
static int write_tmp(const char *path, const void *data, size_t len, struct partial **part, struct strbuf *err)
{
	bool written;
	FILE *f;
	partial_init();
	if (!(f = partial_fopen(path, part, err)))
		return -1;
	errno = 0;
	written = fwrite(data, 1, len, f) == len && !fflush(f) && !ferror(f);
	if (fclose(f))
		written = false;
	if (!written) {
		strbuf_addf(err, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
		partial_drop(*part);
		return -1;
	}
	return 0;
}

int partial_write_numbered(const char *base, const char *ext, const void *data, size_t len, struct strbuf *path,
			   struct strbuf *err)
{
	struct strbuf first = STRBUF_INIT;
	struct partial *part;
	int ret;
	strbuf_addf(&first, "%s%s", base, ext);
	ret = write_tmp(first.buf, data, len, &part, err);
	strbuf_release(&first);
	return ret < 0 ? -1 : partial_commit_numbered(part, base, ext, path, err);
}

int partial_write_file(const char *path, const void *data, size_t len, struct strbuf *err)
{
	struct partial *part;
	if (write_tmp(path, data, len, &part, err) < 0)
		return -1;
	return partial_commit(part, err);
}

int partial_make_dirs(const char *path, struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;
	strbuf_addstr(&sb, path);
	for (size_t i = 1; !ret && i <= sb.len; i++) {
		if (i < sb.len && sb.buf[i] != '/')
			continue;
		char c = sb.buf[i];
		sb.buf[i] = '\0';
		if (mkdir(sb.buf, 0777) < 0 && errno != EEXIST)
			ret = msg_fail(err, sb.buf, "cannot make the directory: %s", strerror(errno));
		sb.buf[i] = c;
	}
	strbuf_release(&sb);
	return ret;
}
