/*
 * mscsv.h: msprobe's CSV cells: how pandas quotes them, and the formula
 * guards msprobe applies before it writes one.
 *
 * Every CSV probe writes goes through mscsv_add_cell(): probe-metric --csv
 * (msprobe's compare_result), the stack column, probe-table.  Pure
 * functions of their arguments; safe in any thread.
 */
#ifndef PROBE_MSCSV_H
#define PROBE_MSCSV_H

#include "../core/strbuf.h"

/* Append a cell to a CSV line, quoted as pandas does (only when it has , " or LF: not a lone CR). */
void mscsv_add_cell(struct strbuf *out, const char *cell, bool first);

/*
 * msprobe's guards against formula injection (reference: msprobe-compare.md
 * 4.2; file_utils.py check_df_malicious, utils.py check_op_str_pattern_valid).
 *
 * mscsv_special(): a string msprobe refuses while it parses a dump (an API
 * name, a string value in input_args, input_kwargs or output, a stack
 * line): one that starts with + - = % @ (or their full-width forms
 * U+FF0B U+FF0D U+FF1D U+FF05 U+FF20), or holds ';' followed by one.
 *
 * mscsv_refused(): a string cell msprobe refuses to write into its CSV
 * ("Malicious value [...] not allowed to be written into the csv"): an
 * mscsv_special() one, unless each of its ';'-separated parts is a number
 * to Python's float() ("-1.5", "+3", " -inf", "1e5;-2"; pyfmt_float_accepts()).
 */
bool mscsv_special(const char *s, size_t len);
bool mscsv_refused(const char *cell);

/*
 * The rule of probe's own CSV writers (probe-table, and any writer of a
 * table a spreadsheet may open that msprobe does not write): a cell that
 * mscsv_refused() would refuse, or that starts with a TAB or a CR (the
 * rest of OWASP's list), is written with a single quote before it, so
 * that a spreadsheet shows it as text instead of running it as a formula;
 * for the ';' case, the quote goes before each ';'-separated part that
 * would start one.  Numbers ("-1.5", "-inf") are never changed.  Returns
 * whether the cell was changed (the result in out, the cell otherwise).
 */
bool mscsv_neutralise(const char *cell, struct strbuf *out);

#endif
