/*
 * table.h: JSON objects, one per line, into a CSV table (probe-table).
 *
 * The columns are given, or are the keys of the first object in their
 * order (keys first seen later are an error naming them, so that no value
 * is dropped silently).  Cells are written as probe's other CSVs are, the
 * way pandas writes msprobe's: strings as they are, numbers as their JSON
 * text, true/false as True/False, null and missing members as empty
 * cells, arrays and objects as their JSON text; quoted only when they hold
 * a comma, a quote or a newline.  A cell a spreadsheet would run as a
 * formula (= + - @ % ... at its start, not a number) gets a single quote
 * before it (mscsv.h: mscsv_neutralise), header cells too.
 *
 * Memory: the column names; nothing per row.
 */
#ifndef PROBE_TABLE_H
#define PROBE_TABLE_H

#include "../core/strbuf.h"
#include "../records/lines.h"

struct table_writer;

/* columns: comma-separated names, or NULL for the first object's keys. */
struct table_writer *table_new(const char *columns);
void table_free(struct table_writer *t);

/*
 * The writer as the sink of line_reader_feed() (lines.h): one row per
 * object (a line), the header before the first; PROBE_ERR_LINE (msg.h) for
 * a line that is not an object of the columns, PROBE_ERR_INPUT at the end
 * when there were no rows.
 */
struct line_sink table_sink(struct table_writer *ctx);

#endif
