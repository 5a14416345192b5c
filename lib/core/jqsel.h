/*
 * jqsel.h: a jq filter that chooses records (probe-first --where,
 * probe-plot --where), run with libjq.
 *
 * The filter is compiled once; jqsel_match() runs it on one record (JSON
 * text) and takes its first output: the record is chosen when that output
 * is neither false nor null, as jq's select() would keep it.  A filter that
 * gives no output does not choose the record.
 *
 * libjq's rule holds inside jqsel.c: every jv_* call consumes its
 * arguments; jv_copy what is kept.  A jqsel belongs to one thread.
 */
#ifndef PROBE_JQSEL_H
#define PROBE_JQSEL_H

#include "strbuf.h"

struct jqsel;

/* The compiled filter, or NULL with jq's message in err. */
struct jqsel *jqsel_new(const char *filter, struct strbuf *err);
void jqsel_free(struct jqsel *s); /* accepts NULL */

/* 1: chosen, 0: not, -1: the record is not JSON or the filter failed on it (the reason in err). */
int jqsel_match(struct jqsel *s, const char *json, size_t len, struct strbuf *err);

#endif
