/*
 * hint.h: what to type instead, when a command line reads like msprobe's.
 *
 * People come to probe from msprobe compare and type what they know: its
 * -tp/-gp options, or the target dump and the golden dump as two operands.
 * Each of these recognizes one such slip and puts in `msg` what went wrong
 * and the probe command that does the job, with the user's own paths
 * (quoted for sh where they need it), over several lines and without the
 * "probe-xxx: " that die() puts before it.  They print nothing and exit
 * nothing: the tool dies with the message (exit status 2), before reading
 * any input.
 *
 *   hint_msprobe_compare()  argv (before a "--") holds msprobe compare's
 *                           -tp/--target_path or -gp/--golden_path; its
 *                           -fm, -dm, -cm and -o are carried over into the
 *                           pipeline, its other options left out
 *   hint_dump_operand()     probe-match's second operand, `records`, is a
 *                           dump (a directory layout_discover() finds dumps
 *                           in, a dump.json or debug.json file, gzip or not)
 *                           rather than a file of leaf records; the command
 *                           takes the two operands in msprobe's order,
 *                           "probe-flatten GOLDEN | probe-match RECORDS",
 *                           unless `golden` is a file of records already
 *                           (and says nothing when `golden` is not there:
 *                           that error comes first)
 *
 * Both return true when they wrote a message, false (msg untouched) when
 * the command line is probe's.  They are cheap: hint_msprobe_compare()
 * reads argv (and looks whether -o's directory is there: probe-metric -o
 * does not make it, msprobe does); hint_dump_operand() stats the operands,
 * walks `records` as layout_discover() does when it is a directory
 * (printing none of its warnings), and reads at most the first HINT_PEEK
 * bytes of a regular file (never a pipe or standard input, whose bytes it
 * would take from the reader).  A file is a dump when its first member is
 * one of the top-level members msprobe writes first ("task", "level",
 * "framework", "dump_data_dir", or a "data" object) and its first line is
 * not a leaf record (records are one object a line; a dump is written
 * indented, or on one line that is no record).
 *
 * hint_relabel() warns, with warning() (so that -q silences it), when
 * --rank or --step (rank, step >= 0; -1 when not given) label a dump
 * other than its directory names say; hint_one_dump() appends to `msg`
 * ("; ...") how to pick one dump out of several for --rank and --step,
 * or nothing when the list gives no way to.
 */
#ifndef PROBE_HINT_H
#define PROBE_HINT_H

#include "layout.h"
#include "../core/strbuf.h"

#define HINT_PEEK (64 << 10)

bool hint_msprobe_compare(int argc, char **argv, struct strbuf *msg);
bool hint_dump_operand(const char *golden, const char *records, struct strbuf *msg);

void hint_relabel(const struct dump_file *df, int64_t rank, int64_t step);
void hint_one_dump(const struct dump_list *list, struct strbuf *msg);

#endif
