/*
 * source.h: a stream of bytes read from a file, stdin or a gzip stream.
 *
 * source_open() opens a path ("-" is stdin) and looks at its first two
 * bytes: a gzip stream (1f 8b) is inflated with zlib, whatever the file
 * is called; anything else is read as is.  Reads go straight into the
 * caller's buffer, so the reader decides the chunk size.
 *
 * source_read() returns the number of bytes stored (0 at the end of the
 * stream) or -1 after printing nothing: the message is in src->err, of the
 * form "what went wrong" (without the file name, which is src->name).
 *
 * A source may be limited to `max_chunk` bytes per read (tests use this to
 * feed a parser one byte at a time); 0 means no limit.
 *
 * Ownership: the source owns its descriptor and zlib state; source_close()
 * releases them (accepts NULL).  `name` is copied.
 */
#ifndef PROBE_SOURCE_H
#define PROBE_SOURCE_H

#include "compat.h"
#include "strbuf.h"

#include <stdio.h>
#include <sys/stat.h>

struct source;

struct source *source_open(const char *path, struct strbuf *err);
/*
 * The same for a file that must be a regular one (stack.json,
 * construct.json): opened with O_NONBLOCK and looked at before anything
 * is read, so that a FIFO or a device there is refused with a message
 * ("PATH: a FIFO, not a regular file: refused ...") rather than waited on for
 * ever; then read as source_open()'s (O_NONBLOCK cleared).
 */
struct source *source_open_regular(const char *path, struct strbuf *err);
/*
 * The same check for a file read through stdio (a YAML mapping or config
 * file, a workbook, an ATB .bin, a checkpoint's tracker file): every file
 * inside a dump or named by an option is read only when it is a regular one,
 * with the same message; NULL then (err may be NULL: nothing said, errno set
 * when the open itself failed).  The FILE owns the descriptor; no gzip.
 */
FILE *source_fopen_regular(const char *path, struct strbuf *err);
/*
 * The descriptor of the file rel (in the folder dirfd, or AT_FDCWD), read
 * only, when it is a regular file: looked at by name first (a FIFO is not
 * opened at all: that would release a writer waiting on it, to a reader that
 * goes away), opened without blocking (what became a FIFO or a device since
 * must not wait), looked at again (*st), then made blocking.  oflags adds
 * open flags (O_NOFOLLOW).  -1 with errno, and *not_regular true when the
 * file is there but not a regular one (*st says what it is).
 */
int source_open_regular_fd(int dirfd, const char *rel, int oflags, struct stat *st, bool *not_regular);
/* What kind of file the mode is, for messages: "a FIFO", "a directory", "a character device", ... */
const char *source_kind_name(mode_t mode);
/* Whether the source reads a regular file, which a second source_open() can read again from its start. */
bool source_is_regular(const struct source *src);
/* Whether the source reads a pipe, a FIFO or a socket: a writer runs beside the reader. */
bool source_is_pipe(const struct source *src);
/* A source over a memory block (not copied: it must outlive the source). */
struct source *source_from_memory(const char *name, const void *data, size_t len);
/*
 * When fd is a pipe, ask the kernel to make it 1 MiB (Linux), so that a
 * writer and a reader that move data in large pieces can work at the same
 * time; left as it is where that is refused or unsupported.
 */
void source_grow_pipe(int fd);
ssize_t source_read(struct source *src, void *buf, size_t len);
void source_close(struct source *src);

const char *source_name(const struct source *src);
bool source_is_gzip(const struct source *src);
/* Why the last source_read() failed. */
const char *source_error(const struct source *src);
/* Limit each read to at most n bytes (0: no limit). */
void source_set_max_chunk(struct source *src, size_t n);

#endif
