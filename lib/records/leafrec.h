/*
 * leafrec.h: the fields of one leaf record (probe-records(5)) read back.
 *
 * leafrec_parse() locates the fields of a record held in memory as spans
 * of its JSON text (see recscan.h); nothing is copied or decoded until
 * asked for.  A record must have "entry", "name" and "key" strings and
 * "rank"/"step" integers or null; anything else is "not a leaf record".
 * "exec_mode", when there (not null), must be "graph" or "pynative": the
 * folder of a MindSpore dump root with graph/ and pynative/ side by side
 * (layout.h) the leaf's step came from; every tool that groups leaves by
 * rank and step groups them by (exec_mode, step, rank).
 * "process", when there: the "<device>_<pid>" of an ATB row (atb.h), kept
 * as text for msprobe's Device and PID columns and not compared; "alias":
 * the ATB alias file (filter_level 1) that named "data", which msprobe
 * reads as invalid (its cells N/A).  "data_member", when there: the
 * parameter inside the checkpoint "data" names (a file of many tensors or a
 * folder of shards, ckpt.h), by the name ckpt_find() knows it under.
 */
#ifndef PROBE_LEAFREC_H
#define PROBE_LEAFREC_H

#include "../json/recscan.h"

enum leaf_field {
	LF_RANK, LF_STEP, LF_SEQ, LF_ENTRY, LF_NAME, LF_KEY, LF_STATE, LF_TYPE, LF_DTYPE, LF_SHAPE,
	LF_MAX, LF_MIN, LF_MEAN, LF_NORM, LF_REQUIRES_GRAD, LF_MD5, LF_VALUE, LF_ATTRS, LF_P2P,
	LF_DATA_NAME, LF_DATA, LF_TASK, LF_DUMP, LF_MSPROBE_SKIPS, LF_STACK, LF_MODULES, LF_STACK_FROM,
	LF_WHERE, LF_EXEC_MODE, LF_PROCESS, LF_ALIAS, LF_DATA_MEMBER, LF_NFIELDS
};

extern const char *const leaf_field_names[LF_NFIELDS];

/* The folders of a MindSpore graph/pynative dump root (msprobe's MIX_DUMP_NAMES), in the order probe reads them. */
enum leaf_exec_mode { LEAF_EXEC_NONE, LEAF_EXEC_GRAPH, LEAF_EXEC_PYNATIVE, LEAF_EXEC_NMODES };
/* "graph", "pynative"; NULL for LEAF_EXEC_NONE. */
extern const char *const leaf_exec_mode_names[LEAF_EXEC_NMODES];
/* The mode a folder name (n bytes) names, or LEAF_EXEC_NONE. */
int leafrec_exec_mode_of(const char *name, size_t n);
/*
 * For a tool that shows one folder at a time (probe-graph, probe-plot): 0
 * when mode is the folder of the records before (*seen: -1 before the
 * first record), else -1 with the reason, for the tool `tool`, in err.
 */
int leafrec_exec_mode_same(int *seen, int mode, const char *tool, struct strbuf *err);

struct leafrec {
	const char *text;  /* the whole record */
	size_t len;
	struct span f[LF_NFIELDS];
	int64_t rank, step, seq;  /* -1 when null or absent */
	int exec_mode;            /* enum leaf_exec_mode; LEAF_EXEC_NONE when null or absent */
	size_t error_at;          /* after a JSON syntax error: its byte in the record, from 1; else 0 */
};

/* 0, or -1 with the reason in *why (a static string) and r->error_at. */
int leafrec_parse(struct leafrec *r, const char *text, size_t len, const char **why);
/* The same for a record that starts at p inside a larger text; *after: just past it. */
int leafrec_parse_at(struct leafrec *r, const char *p, const char *bound, const char **after, const char **why);

/* Field i as a decoded string into out ("" when absent or not a string). */
void leafrec_str(const struct leafrec *r, enum leaf_field i, struct strbuf *out);

/*
 * A run's name for people, the one label of every tool's text: "rank R";
 * a dump without a rank is named by the proc<pid> folder msprobe dumped it
 * under ("proc2016", from leafrec_proc_folder(): the last such component of
 * the leaf's "dump", malloc'ed, or NULL), else "no rank".
 */
char *leafrec_proc_folder(const struct leafrec *r);
void leafrec_rank_label(struct strbuf *out, int64_t rank, const char *proc);

#endif
