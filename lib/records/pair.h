/*
 * pair.h: a pair record (probe-match(1)) or a metric record
 * (probe-metric(1)) read back: its two leaves as leaf records (spans into
 * the line, see leafrec.h) and the few other members the tools use.
 *
 * Nothing is copied: every span points into the line, which the caller
 * keeps alive as long as it uses them.
 */
#ifndef PROBE_PAIR_H
#define PROBE_PAIR_H

#include "leafrec.h"

struct pair {
	const char *line;
	size_t len;
	struct leafrec t, g;
	bool has_t, has_g;
	bool gated;               /* "msprobe_unmatched": msprobe's dtype gate unmatches it */
	bool partial;             /* "partial": true: probe-match --partial accepted it unmatched (alike.h) */
	struct span verdict;      /* a metric record's "verdict" (SPAN_NONE in a pair record) */
	struct span reason;       /* its "reason" */
	struct span metrics;      /* its "metrics" object */
	struct span msprobe;      /* its "msprobe" object (msprobe's columns, Result and Err_message) */
};

/*
 * 0, or -1 with "not a pair record ..." in err.  "t" and "g" must both be
 * there, leaf records or null, not both null.  On success a leaf that is
 * null is all zero (every field SPAN_NONE); after a failure *p holds
 * nothing to rely on.
 */
int pair_parse(struct pair *p, const char *line, size_t len, struct strbuf *err);

/* Whether a line is a plain leaf record (probe-flatten(1)), for telling a user which tool it needs. */
bool pair_line_is_leaf(const char *line, size_t len);

#endif
