/*
 * naming.h: msprobe's dump entry names and compare keys.
 *
 * An entry name ends in a call index and a direction: APIs put the index
 * first ("Functional.linear.3.backward"), modules last
 * ("Module.fc1.Linear.backward.0"), parameter gradients are
 * "Module.fc1.Linear.parameters_grad.0" (older dumps: no trailing number),
 * single-point saves end in ".debug".
 *
 * msprobe matches rows of two dumps by a compare key: the row name, except
 * that backward entries are renumbered by how many backward entries of the
 * same base came before them in the same dump, since the call index of a
 * backward entry depends on recomputation and is not stable between runs
 * (reference: msprobe-compare.md sections 1.6 and 3.1).
 */
#ifndef PROBE_NAMING_H
#define PROBE_NAMING_H

#include "../core/strbuf.h"
#include "../core/strmap.h"

enum entry_dir {
	DIR_NONE,        /* no forward/backward/parameters_grad in the last two parts */
	DIR_FORWARD,
	DIR_BACKWARD,
	DIR_PARAMS_GRAD,
};

/* How the rows of an entry are read (msprobe's read_op). */
enum entry_layout {
	LAYOUT_IO,          /* input_args, input_kwargs, input, output, parameters */
	LAYOUT_PARAMS_GRAD, /* {param: [leaf]}: the whole entry is one container */
	LAYOUT_DEBUG,       /* single-point save: the whole entry is one container */
};

struct entry_name {
	enum entry_dir dir;
	enum entry_layout layout;
	size_t base_len;    /* length of the base (name without index and direction); 0: none */
	size_t cd_start;    /* where the call_direction ("3.backward", "backward.0") starts */
	bool head_digits;   /* call_direction's first part is a number (API style) */
	bool tail_digits;   /* its second part is a number (module style) */
};

void naming_parse_entry(const char *name, size_t len, struct entry_name *out);

/*
 * Per-dump counters of backward entries by base.  One per dump file; each
 * entry must be passed to naming_backward_next() once, in dump order.
 */
struct backward_counter {
	struct strmap seen;
};
#define BACKWARD_COUNTER_INIT { STRMAP_INIT }
/* The number of earlier backward entries with this entry's base (0-based). */
uint64_t naming_backward_next(struct backward_counter *bc, const char *entry,
			       const struct entry_name *en);
void naming_backward_release(struct backward_counter *bc);

/*
 * The compare key of a row.  `order` is the value naming_backward_next()
 * returned for the row's entry; `renumber` is false for debug.json dumps
 * (msprobe never renumbers those).  The key is the row name unless the
 * entry is a backward one with a numeric call index, in which case the
 * index is replaced by `order`.
 */
void naming_compare_key(struct strbuf *out, const char *entry, const struct entry_name *en,
		 const char *row_name, uint64_t order, bool renumber);

/*
 * The forward entry a backward or parameters_grad entry belongs to, by the
 * same call index ("Functional.linear.1.backward" -> "...linear.1.forward",
 * "Module.fc1.Linear.backward.0" and "Module.fc1.Linear.parameters_grad.0"
 * -> "Module.fc1.Linear.forward.0"), into out; false for any other entry.
 */
bool naming_forward_entry(const char *entry, struct strbuf *out);

/* msprobe -fm's renaming, done as intended: the row name without its call index. */
void naming_fuzzy_name(struct strbuf *out, const char *name);

/* Whether s[0..n) is one or more ASCII digits (a call count, a rank). */
bool naming_all_digits(const char *s, size_t n);

/*
 * The timestamp in the names of msprobe's output files (compare_result_<ts>.csv,
 * compare_<ts>.vis.db, ...): the local time now as YYYYMMDDHHMMSS.
 */
#define NAMING_STAMP_SIZE 16
void naming_stamp_now(char out[NAMING_STAMP_SIZE]);

/*
 * An output folder as msprobe's -o takes one: dir is made (mkdir -p) and must
 * be writable; base is set to "dir/<prefix>_<ts>", the name without its suffix:
 * the file is given it, or base_2, base_3, ... when a file has it (a run in the
 * same second), by partial_commit_numbered() (partial.h).  0, or -1 with the
 * reason in err (naming dir).
 */
int naming_output_base(const char *dir, const char *prefix, struct strbuf *base, struct strbuf *err);

#endif
