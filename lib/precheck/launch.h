/*
 * launch.h: the arguments of a training launch script, as msprobe's
 * config_check reads them (hyperparameter_parser.ShellParser), and as
 * probe reads them.
 *
 * MSPROBE'S RULES (LAUNCH_MSPROBE), kept exactly, faults included:
 *   1. lines whose first non-blank character is '#' are dropped, and
 *      every other line is cut at its first '#' (even inside quotes or a
 *      word); blank lines are dropped;
 *   2. the command is the text from the first "msrun", "torchrun" (each
 *      followed by a space) or "python[D] -m torch.distributed.launch" to
 *      the first '|' or the end of the script (later lines included);
 *   3. each NAME_ARGS="..." of the script (NAME of 1 to 20 letters, digits
 *      and '_'; a longer one loses its head) replaces "$NAME_ARGS" in the
 *      command ("${NAME_ARGS}" is not replaced), its newlines as spaces;
 *   4. every "--KEY" in it ([\w-]+, anywhere, even inside a word) takes as
 *      its value the run of characters other than blanks and '\' after
 *      the blanks that follow it, if any: "--a --b" gives a the value
 *      "--b" (and no b), "--a=1" gives a no value;
 *   5. a value "$VAR" or "${VAR}" becomes the text after the last
 *      "VAR=" of the script (blanks after '=' skipped; "MY_VAR=" counts;
 *      quotes kept);
 *   6. a key without a value is true; a key twice keeps its first place
 *      and its last value.
 *
 * PROBE'S RULES (LAUNCH_PROBE) read the same scripts as a shell would,
 * where msprobe's reading is wrong: a '#' starts a comment only at the
 * start of a word; the command may also be "python[D] -m
 * torch.distributed.run", "deepspeed", or, when none of the launchers is
 * there, the first "python[D] SCRIPT.py"; the command's words are split as
 * the shell splits them (quotes group, a '\' before a line end joins
 * lines); "--KEY=VALUE" and "--KEY VALUE" give VALUE, and a key followed
 * by another "--" word, a lone '\' or nothing is true; "${NAME_ARGS}" is
 * replaced as "$NAME_ARGS" is, and a NAME_ARGS='...' block too, whatever
 * the length of NAME; "$VAR" takes the value of the last assignment to
 * VAR itself (not to MY_VAR), without its quotes.
 *
 * Pure functions over the text; the result owns its strings
 * (launch_release()).
 */
#ifndef PROBE_LAUNCH_H
#define PROBE_LAUNCH_H

#include "../core/strbuf.h"

enum launch_rules { LAUNCH_MSPROBE, LAUNCH_PROBE };

struct launch_arg {
	char *key;
	char *value; /* NULL: a flag without a value (true) */
};

struct launch_args {
	struct launch_arg *v;
	size_t n, alloc;
	bool found; /* a launch command was found (else v is empty) */
};

#define LAUNCH_ARGS_INIT { NULL, 0, 0, false }

void launch_parse(struct launch_args *out, const char *data, size_t len, enum launch_rules rules);
/* Whether the text holds one of msprobe's launch commands (rule 2 above). */
bool launch_sniff(const char *data, size_t len);
void launch_release(struct launch_args *a);

#endif
