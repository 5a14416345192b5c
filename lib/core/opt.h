/*
 * opt.h: one option table per tool.
 *
 * The table drives option parsing (getopt_long), --help, and the machine
 * listing printed by the hidden --list-options flag, from which the shell
 * completions are generated and against which the man pages are tested.
 * The usage line printed by --help is the man page's SYNOPSIS, word for
 * word.
 *
 * Every tool gets -h/--help and --version without listing them.
 */
#ifndef PROBE_OPT_H
#define PROBE_OPT_H

#include "compat.h"

enum opt_flags {
	OPT_FILE = 1 << 0,   /* the argument is a file path (completion) */
	OPT_DIR = 1 << 1,    /* the argument is a directory */
	OPT_DUMP = 1 << 2,   /* the argument is a dump path (dir or dump.json) */
	OPT_OPTIONAL = 1 << 3, /* the argument may be left out (--opt or --opt=ARG) */
};

struct opt_spec {
	int id;                /* returned by opt_next(): the short letter, or >= 256 */
	char short_name;       /* 0: long option only */
	const char *long_name;
	const char *arg;       /* NULL: no argument; else its name in --help ("N", "FILE") */
	const char *help;      /* one line, lower case, no final period */
	const char *choices;   /* fixed values separated by '|', or NULL */
	unsigned flags;
};

struct tool_spec {
	const char *name;      /* "probe-flatten" */
	const char *synopsis;  /* usage line(s) after the name, '\n' between forms */
	const char *summary;   /* one sentence for --help */
	const struct opt_spec *opts;
	size_t nopts;
	unsigned operand_flags; /* OPT_DUMP etc.: what operands complete to */
};

/*
 * Parse argv.  Returns the id of the next option (its argument in
 * *optarg_out) or -1 when options end (then *optind_out is the first
 * operand).  Handles --help and --version itself (printing, then exit 0);
 * an unknown option or a missing argument prints the usage on stderr and
 * exits 2.
 */
int opt_next(const struct tool_spec *spec, int argc, char **argv, const char **optarg_out, int *optind_out);

void NORETURN opt_usage_error(const struct tool_spec *spec, const char *fmt, ...) PRINTF_LIKE(2, 3);

/*
 * The value of an option with fixed choices (opt_spec.choices): the index
 * of arg among them (0 for the first), or the usage error "unknown
 * --NAME: ARG" and exit 2.  The option table is the one list of the values.
 */
int opt_choice(const struct tool_spec *spec, int id, const char *arg);

/*
 * Numeric option values: the whole text must be a number within
 * [min, max]; otherwise the tool dies naming the option and the value
 * ("--rank value is not a number: x").
 */
long long opt_number(const struct tool_spec *spec, const char *option, const char *text, long long min,
		     long long max);

/*
 * The input of a filter that takes at most one operand (what is left of
 * argv after the options): the operand, or "-" for standard input.  Dies
 * with the usage when there are more, or when standard input would be read
 * from a terminal ("no WHAT given and standard input is a terminal").
 */
const char *opt_input_operand(const struct tool_spec *spec, int argc, char **argv, const char *what);

/* A finite real >= 0 (a tolerance); otherwise the tool dies naming the option and the value. */
double opt_tolerance(const struct tool_spec *spec, const char *option, const char *text);

/*
 * A range of whole numbers >= 0, "A:B", "A:" or ":B": *from (0 when left
 * out) and *to (-1 when left out, at least *from otherwise); otherwise the
 * tool dies with its usage, naming the option and the value.
 */
void opt_range(const struct tool_spec *spec, const char *option, const char *text, int64_t *from, int64_t *to);

/*
 * The checks of -o DIR (a folder, as msprobe's -o) beside --output-file FILE
 * (either may be NULL: not given).  Dies with the usage when both are given,
 * or when dir reads as one file: a name ending in one of the suffixes
 * (NULL-terminated, ".html") and no directory of that name (the message says
 * -o takes a folder and --output-file writes one file); returns otherwise.
 */
void opt_output_dir(const struct tool_spec *spec, const char *dir, const char *output_file,
		    const char *const *file_suffixes);

#define PROBE_VERSION "0.1.0"

#endif
