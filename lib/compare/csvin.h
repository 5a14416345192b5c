/*
 * csvin.h: msprobe compare_result CSV files read back as metric records.
 *
 * Results people already have (msprobe's compare_result_*.csv, in any of
 * its three modes) become the records probe-metric writes (see
 * metric.h): each row a pair whose "t" and "g" are leaf records rebuilt
 * from the NPU and Bench columns, with "msprobe" holding the row's Result,
 * Err_message and metric cells, and our verdict worked out from the
 * rebuilt leaves.  The CSV is read with libcsv.
 *
 * What a CSV cannot give back: the dump path, the step, msprobe's compare
 * key (the NPU name stands in for it), the backward renumbering, leaves
 * msprobe left out.  The rank comes from the file name
 * (compare_result_rank<N>_...).  Records carry "source": the CSV path.
 * A row's stack (NPU_Stack_Info) becomes the leaf's "stack".
 */
#ifndef PROBE_CSVIN_H
#define PROBE_CSVIN_H

#include "../core/strbuf.h"

/* Called with each record (newline included); nonzero stops the reading. */
typedef int (*csvin_fn)(const char *record, size_t len, void *ctx);

/*
 * Returns 0, the callback's stop value, or -1 with "FILE:LINE: what" in err:
 * LINE is the line the row starts on (a quoted cell may hold newlines), and
 * for malformed CSV "FILE:LINE:COL:" names the byte libcsv refused.  A row
 * longer than line_reader_limit() (lines.h: PROBE_MAX_LINE) is an error
 * before libcsv holds it.
 */
int csvin_read(const char *path, csvin_fn fn, void *ctx, struct strbuf *err);

#endif
