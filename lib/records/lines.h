/*
 * lines.h: newline-delimited records from a file, stdin or a gzip stream.
 *
 * line_reader_next() hands out one line at a time without its newline
 * (and without a trailing CR).  Blank lines are skipped.  A last line
 * without a newline is an error: an NDJSON producer that was cut short
 * leaves exactly that.  A line whose record is {"error": ...} (what a
 * probe tool writes when it fails, see probe-records(5)) is an error too,
 * carrying the upstream message, so that a failure propagates along a
 * pipeline instead of being taken for the end of the data.
 *
 * Length: a line may hold at most the limit of line_reader_limit() bytes
 * (64 MiB unless PROBE_MAX_LINE says otherwise; its newline and a CR
 * before it not counted).  A longer one is the error "NAME:LINE: a record
 * longer than N bytes (PROBE_MAX_LINE raises the limit)", found once the
 * limit is passed: the buffer never grows past the limit and two bytes,
 * whatever the input (/dev/zero, a stream without a newline).
 *
 * Lifetimes: the line stays valid until the next call.  The reader owns
 * its source.
 */
#ifndef PROBE_LINES_H
#define PROBE_LINES_H

#include "../core/source.h"
#include "../core/strbuf.h"

struct line_reader; /* private: lines.c */

/*
 * The longest record line the tools accept: LINE_MAX_DEFAULT, or the
 * environment's PROBE_MAX_LINE (bytes, a whole number > 0 with an optional
 * K, M or G suffix: KiB, MiB, GiB; empty is unset).  Returns 0, or -1 with
 * "PROBE_MAX_LINE=VALUE: what is wrong" in err.
 */
#define LINE_MAX_DEFAULT ((size_t)64 << 20)
int line_reader_limit(size_t *max, struct strbuf *err);

/* path "-" is stdin.  NULL with the reason in err (also a PROBE_MAX_LINE that is not a size). */
struct line_reader *line_reader_open(const char *path, struct strbuf *err);
/* 1: a line in *line and *len; 0: the end; -1: error (line_reader_error()).  Otherwise than 1, *line is NULL and *len 0. */
int line_reader_next(struct line_reader *lr, const char **line, size_t *len);
/* "NAME:LINE: what" after line_reader_next() returned -1. */
const char *line_reader_error(const struct line_reader *lr);
void line_reader_close(struct line_reader *lr);

const char *line_reader_name(const struct line_reader *lr);
/* Whether the lines come from a pipe, a FIFO or a socket (source_is_pipe()). */
bool line_reader_is_pipe(const struct line_reader *lr);

/*
 * The loop of every tool that reads records: each line of lr to
 * sink->add(), then sink->finish() (when not NULL) at the end of the input.
 * What they append to out (NULL when they write nothing as they go) is
 * written to stdout (output.h) whenever it holds more than 64 KiB; the
 * rest stays in out, for the caller to write or drop.  Returns 0, or -1
 * with err holding the message to die with: the reader's own, or the
 * sink's with the position msg.h's protocol says (PROBE_ERR_LINE,
 * PROBE_ERR_INPUT) put before it.
 */
struct line_sink {
	void *ctx;
	int (*add)(void *ctx, const char *line, size_t len, struct strbuf *out, struct strbuf *err);
	int (*finish)(void *ctx, struct strbuf *out, struct strbuf *err);
};
int line_reader_feed(struct line_reader *lr, const struct line_sink *sink, struct strbuf *out, struct strbuf *err);

#endif
