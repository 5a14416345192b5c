/*
 * jqsel.h: a jq filter that chooses records (probe-first --where,
 * probe-plot --where), run with libjq.
 *
 * The filter is compiled once; jqsel_match() runs it on one record (JSON
 * text) and takes its first output: the record is chosen when that output
 * is neither false nor null, as jq's select() would keep it.  A filter that
 * gives no output does not choose the record.
 *
 * A filter is the user's text, and libjq trusts it: a module directive
 * aborts the process, `input` would read what is not there, and a filter
 * may loop or grow for ever.  So: jqsel_new() refuses, before compiling,
 * the words include, import, modulemeta and get_search_list (no modules),
 * input, inputs, input_filename, debug and stderr (a filter sees its record
 * and writes nothing), found as jq's lexer finds them (outside strings and
 * comments, not after "." or "$"); the input and debug callbacks are set so
 * that nothing is read or written should one be reached anyway.  The filter
 * then runs in a child process (forked once by jqsel_new(), spoken to over
 * a socket), so that what it does cannot take the tool down: a record takes
 * at most PROBE_WHERE_SECONDS seconds (default 10) and the process at most
 * PROBE_WHERE_MB MiB more than it held when it started (default 1024,
 * looked at every 20 ms); past either, or should jq crash, the child is
 * killed and jqsel_match() fails with a message that quotes the filter (cut
 * to 60 bytes).  The filter is then stopped for good.  A bound that is not
 * a whole number from 1 up is an error of jqsel_new().
 *
 * libjq's rule holds inside jqsel.c: every jv_* call consumes its
 * arguments; jv_copy what is kept.  A jqsel belongs to one thread.
 */
#ifndef PROBE_JQSEL_H
#define PROBE_JQSEL_H

#include "strbuf.h"

struct jqsel;

/* The compiled filter and its process, or NULL with the reason (jq's message, a refused word, a bad bound) in err. */
struct jqsel *jqsel_new(const char *filter, struct strbuf *err);
void jqsel_free(struct jqsel *s); /* accepts NULL */

/* 1: chosen, 0: not, -1: the record is not JSON or the filter failed on it (the reason in err). */
int jqsel_match(struct jqsel *s, const char *json, size_t len, struct strbuf *err);

#endif
