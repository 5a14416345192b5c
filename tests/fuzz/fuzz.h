/*
 * fuzz.h: what the libFuzzer harnesses of tests/fuzz/ share.
 *
 * The parsers that take a path get the input as a file: an anonymous
 * memory file (memfd_create) named by its /proc/self/fd path, or, where
 * the kernel refuses memfds, a temporary file unlinked at once (its
 * /proc/self/fd path still opens it).  Nothing is left behind either way.
 *
 * Harnesses print nothing on stdout, keep no state from one input to the
 * next, and free what they allocate; a broken invariant aborts (libFuzzer
 * reports it as a crash).
 */
#ifndef PROBE_FUZZ_H
#define PROBE_FUZZ_H

#define _GNU_SOURCE 1
#include "../../lib/core/compat.h"
#include "../../lib/core/msg.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Abort with a message: an invariant of the parser does not hold. */
#define FUZZ_CHECK(cond, ...)                                                           \
	do {                                                                            \
		if (!(cond)) {                                                          \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                   \
			fputc('\n', stderr);                                            \
			abort();                                                        \
		}                                                                       \
	} while (0)

struct fuzz_file {
	int fd;
	char path[64];
};

static inline void fuzz_file_open(struct fuzz_file *f, const void *data, size_t size)
{
	const char *p = data;
	size_t left = size;
#ifdef MFD_CLOEXEC
	f->fd = memfd_create("probe-fuzz", MFD_CLOEXEC);
#else
	f->fd = -1;
#endif
	if (f->fd < 0) {
		const char *dir = getenv("TMPDIR");
		char tmpl[4096];
		snprintf(tmpl, sizeof(tmpl), "%s/probe-fuzz-XXXXXX", dir && *dir ? dir : "/tmp");
		f->fd = mkstemp(tmpl);
		if (f->fd < 0) {
			perror("probe fuzz: mkstemp");
			abort();
		}
		unlink(tmpl);
	}
	while (left) {
		ssize_t n = write(f->fd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			perror("probe fuzz: write");
			abort();
		}
		p += n;
		left -= (size_t)n;
	}
	snprintf(f->path, sizeof(f->path), "/proc/self/fd/%d", f->fd);
}

static inline void fuzz_file_close(struct fuzz_file *f)
{
	close(f->fd);
	f->fd = -1;
}

/* Warnings are counted, not printed: a run prints nothing of its own. */
static inline void fuzz_quiet(void)
{
	msg_set_progname("probe-fuzz");
	msg_set_quiet(true);
}

#endif
