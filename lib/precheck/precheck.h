/*
 * precheck.h: two runs' setups compared check by check (probe-config):
 * env, pip, dataset, weights, hyperparameters, random, as msprobe's
 * config_check compares its packs, and as probe compares them.
 *
 * Each side is a pack (pack.h) read from a zip, a folder or a plain file
 * (plain.h); the checks compared are those both sides hold.
 *
 * OUR COMPARISON gives findings: one per item that differs or is on one
 * side only (with `all`, one per item compared, the equal ones at level
 * PC_PASS), each with its check, item, both values, and its level:
 *
 *   PC_ERROR    a difference that changes the numbers: msprobe's
 *               environment variables (HCCL/NCCL_DETERMINISTIC, _ALGO,
 *               ASCEND/CUDA_LAUNCH_BLOCKING, _VISIBLE_DEVICES,
 *               HCCL_INTRA_ROCE_ENABLE, HCCL_INTRA_PCIE_ENABLE), the
 *               versions of the frameworks and numerical libraries
 *               (precheck_key_package()), a statistic of the data or of a
 *               weight, a weight or an input on one side only, a
 *               hyperparameter's value, a random call's count or a call on
 *               one side only;
 *   PC_WARNING  a hyperparameter, or one of those packages, on one side
 *               only; another environment variable known to matter
 *               (precheck_env_matters());
 *   PC_INFO     what is reported but not counted: other variables and
 *               packages, steps, ranks and files on one side only (runs of
 *               different lengths), a variable of one device type only.
 *
 * precheck_status() is PROBE_DIFFERENT when any finding is an error or a
 * warning, PROBE_OK otherwise.  Where msprobe is wrong, ours is right:
 * the values of a variable are in their own side's column; keys are not
 * merged when the part after their last '.' is the same (hidden-size and
 * model.hidden_size are two keys); relative differences are |b - c| / |b|;
 * random calls are paired one to one; the order is that of the files,
 * never of a hash set.
 *
 * MSPROBE'S COMPARISON (precheck_write_xlsx(), pcsheets.c) is its
 * result.xlsx, cell for cell: sheet summary (filename, pass_check), then a
 * sheet per check both sides hold, in the order above, faults included
 * (reference: msprobe-precheck.md), and rows in the order of Python 3.11
 * with PYTHONHASHSEED=0 where msprobe's is a set's (pyset.h).
 *
 * Memory: a comparison borrows its two packs (they must outlive it) and
 * owns its findings (precheck_free()).  Not thread-safe.
 */
#ifndef PROBE_PRECHECK_H
#define PROBE_PRECHECK_H

#include "pack.h"
#include "plain.h"

enum pc_level { PC_PASS, PC_INFO, PC_WARNING, PC_ERROR };
enum pc_what { PC_SAME, PC_DIFFERS, PC_BENCH_ONLY, PC_CMP_ONLY };

/* How a hyperparameter of one side was paired with one of the other. */
enum pc_match { PC_MATCH_NONE, PC_MATCH_NAME, PC_MATCH_REFINED, PC_MATCH_ALIAS, PC_MATCH_SIMILAR };

struct pc_stats {
	double v[4];  /* max, min, mean, norm */
};

struct pc_finding {
	enum pack_check check;
	enum pc_level level;
	enum pc_what what;
	char *item;                /* the variable, package, input tag, weight, hyperparameter, operation */
	int64_t step, rank;        /* -1 where the check has none */
	char *file;                /* hyperparameters: the file; weights: the file when not weight.json */
	char *bench_name, *cmp_name; /* env: each side's variable; hyperparameters: each side's key; pip: as written */
	const struct pyval *bench, *cmp; /* values; NULL: absent (dataset, weights: the statistics objects) */
	const char *fallback;      /* env: the value msprobe takes for an unset variable */
	bool has_rel[4];           /* dataset, weights: the statistics' differences */
	double rel[4], abs_diff[4];
	enum pc_match match;       /* hyperparameters */
	double similarity;
	int64_t bench_count, cmp_count;          /* random */
	const struct pyval *bench_stack, *cmp_stack;
	bool stack_same;           /* random: the two stacks are equal (else: similar, by msprobe's rule) */
	char *note;                /* said in the text report */
};

/* A check's outcome. */
struct pc_summary {
	bool compared;             /* both sides hold it */
	bool bench_has, cmp_has;
	enum pc_level level;       /* the worst finding's (PC_PASS: alike) */
	size_t items, differ;      /* items compared, findings counted (errors and warnings) */
	size_t info;               /* findings at PC_INFO */
};

struct precheck_options {
	bool all; /* findings for the equal items too */
};

struct precheck {
	struct precheck_options opts;
	const struct pack *bench, *cmp;
	struct pc_finding *v;
	size_t n, alloc;
	struct pc_summary sum[PACK_NCHECKS];
	struct arena arena;        /* values made while comparing */
};

/*
 * Read an operand: a zip or folder in the pack layout, or a plain file
 * (plain.h), of the kind given (PLAIN_UNKNOWN: plain_detect()'s).  NULL
 * with err set.
 */
struct pack *precheck_open(const char *path, enum plain_kind kind, struct strbuf *err);

struct precheck *precheck_new(const struct precheck_options *o);
/* Compare; -1 with err set when the two sides have no check in common. */
int precheck_compare(struct precheck *c, const struct pack *bench, const struct pack *cmp, struct strbuf *err);
/* PROBE_OK or PROBE_DIFFERENT. */
int precheck_status(const struct precheck *c);
void precheck_free(struct precheck *c);

/* The records (probe-config(1)): the findings, then the summary. */
void precheck_write_records(const struct precheck *c, struct strbuf *out);
/* The report for people (pctext.c): the summary, then the findings that matter most first. */
void precheck_write_text(const struct precheck *c, struct strbuf *out);

/*
 * msprobe's result.xlsx of the two packs (pcsheets.c), written at path
 * (a temporary name the caller commits, partial.h), its temporary files
 * in tmpdir.  Where msprobe would refuse to write it (a cell its
 * formula guard refuses), nothing is written: -1 with msprobe's message.
 * path NULL: the sheets are only built (the fuzz harness).
 */
int precheck_write_xlsx(const struct precheck *c, const char *path, const char *tmpdir, struct strbuf *err);

/* Our lists (probe-config(1)): the packages whose version counts as an error, the variables as a warning. */
bool precheck_key_package(const char *normalized_name);
bool precheck_env_matters(const char *name);

/* msprobe's hyperparameter.yaml: standard names and their aliases, in its order. */
struct pc_alias_group {
	const char *name;
	const char *aliases[4]; /* NULL after the last */
};
extern const struct pc_alias_group precheck_alias_groups[];
extern const size_t precheck_nalias_groups;

/*
 * msprobe's stack_match(s1, s2) of two random calls' stacks (lists of
 * "File PATH, line N, in FUNC, CODE"): the same number of frames, and each
 * pair's score, the mean of [the files' base names equal, the functions
 * equal, difflib's ratio of CODE1 to CODE2], at least 0.8.  *mean (when
 * not NULL) gets the mean of the scores of a match.
 */
bool precheck_stack_match(const struct pyval *s1, const struct pyval *s2, double *mean);

/* msprobe's get_device_type() of an environment: NPU when a variable's name holds "ASCEND", else GPU. */
bool precheck_npu_side(const struct pyval *env);

/* Python's == on JSON values (dicts by their keys, not their order; 1 == 1.0 == True). */
bool precheck_py_eq(const struct pyval *a, const struct pyval *b);
/* msprobe's to_str_if_number(): an int, float or bool as str() prints it, else NULL (the value as it is). */
bool precheck_to_str(const struct pyval *v, struct strbuf *out);

#endif
