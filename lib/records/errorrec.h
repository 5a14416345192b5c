/*
 * errorrec.h: the error record, {"error": "message"}, the last line of a
 * stream that is not complete (probe-records(5)).
 *
 * A tool that fails after it has written records ends its output with one
 * (output_mark_incomplete_on_die()); a tool that reads one stops there and
 * fails with its message (line_reader_next()), so that no stage downstream
 * takes what came before it for a whole result.
 */
#ifndef PROBE_ERRORREC_H
#define PROBE_ERRORREC_H

#include "../core/strbuf.h"

/* Append {"error": message} with its newline. */
void errorrec_add(struct strbuf *out, const char *message);

/* The message of an {"error": "..."} line, decoded into msg; false (msg untouched) for any other line. */
bool errorrec_read(const char *line, size_t len, struct strbuf *msg);

#endif
