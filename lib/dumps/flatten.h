/*
 * flatten.h: a dump file turned into leaf records (probe-records(5)).
 *
 * flatten_dump() reads one dump file (see layout.h for finding them) and
 * calls back with the NDJSON text of each leaf record, newline included,
 * in msprobe's row order.  probe-flatten writes them out; probe-match
 * keeps the golden ones in its index.
 *
 * The text passed to the callback lives until the callback returns.
 */
#ifndef PROBE_FLATTEN_H
#define PROBE_FLATTEN_H

#include "layout.h"
#include "../core/strbuf.h"

/*
 * Called per record; a nonzero return stops the reading (flatten_dump()
 * returns it).  rec holds the spans of the record's fields (leafrec.h).
 */
struct leafrec;
typedef int (*flatten_fn)(const char *record, size_t len, const struct leafrec *rec, void *ctx);

/*
 * rank and step >= 0 override the layout's.  Returns 0, the callback's
 * stop value, or -1 with "FILE:LINE:COL: what" in err.
 */
int flatten_dump(const struct dump_file *df, int64_t rank, int64_t step, flatten_fn fn, void *ctx,
		 struct strbuf *err);

#endif
