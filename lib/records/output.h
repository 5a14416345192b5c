/*
 * output.h: the data stream of a tool (stdout).
 *
 * Data goes out through a large buffer.  A closed pipe (`| head`) ends the
 * tool quietly through SIGPIPE, whatever disposition the parent left; any
 * other write failure is an error naming stdout.  output_close() must be
 * called before a successful exit: it flushes and checks that every byte
 * reached its destination.
 */
#ifndef PROBE_OUTPUT_H
#define PROBE_OUTPUT_H

#include "../core/strbuf.h"

void output_init(void);
/* Write and reset sb once it holds more than `threshold` bytes (0: always). */
void output_flush_strbuf(struct strbuf *sb, size_t threshold);
void output_write(const void *data, size_t len);
/* Flush and close stdout; dies with a message on failure. */
void output_close(void);

/*
 * For tools that write records: on die(), write {"error": message} as the
 * last line of stdout, so that a downstream tool (or a person) cannot take
 * the records before it for a complete result.
 */
void output_mark_incomplete_on_die(void);
/*
 * Undo output_mark_incomplete_on_die() once the options say that stdout
 * carries no records (a table, a workbook, or nothing with -o DIR).
 */
void output_no_error_record(void);

/*
 * For tools that write a table (CSV) on stdout, which has no room for an
 * error record: when stdout is a regular file, a failure (die()) or an
 * interruption (SIGINT, SIGTERM, SIGHUP) cuts it back to the size it had
 * when the tool started, so that no table that looks complete is left
 * there.  Into a pipe or a terminal the exit status is the only signal.
 *
 * With output_mark_incomplete_on_die(), an interruption writes the error
 * record too (on a new line when the interrupted one was not complete).
 */
void output_discard_on_failure(void);

#endif
