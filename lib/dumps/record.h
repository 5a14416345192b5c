/*
 * record.h: the leaf record, one NDJSON line per leaf (probe-records(5)).
 *
 * Field order is fixed; fields the dump does not have are left out (jq
 * reads a missing field as null), except rank and step, which are null
 * when the layout does not give them, and type, which is null for a null
 * slot; exec_mode is there only for the leaves of a MindSpore graph/pynative
 * root (layout.h):
 *
 *   rank step [exec_mode] seq entry name key state type dtype shape max min
 *   mean norm requires_grad md5 value attrs p2p data_name data task dump
 *   [msprobe_skips]
 *
 * Statistics and values keep the dump's own number text; NaN, Infinity
 * and -Infinity become the strings "nan", "inf" and "-inf".  Members of a
 * leaf object other than the ones above go, in their order, into `attrs`
 * (for instance group_ranks and group_id of a ProcessGroup), so that no
 * information of the dump is lost.
 */
#ifndef PROBE_RECORD_H
#define PROBE_RECORD_H

#include "dump.h"
#include "../core/strbuf.h"

/* What every record of one dump file shares. */
struct record_source {
	int64_t rank;          /* -1: null */
	int64_t step;          /* -1: null */
	int exec_mode;         /* LEAF_EXEC_* (leafrec.h); LEAF_EXEC_NONE: field left out */
	const char *dump;      /* the dump file as named on the command line ("-": stdin) */
	const char *task;      /* NULL: field left out */
	const char *tensor_dir; /* where data_name files are, with a trailing '/'; NULL: no `data` field */

	/* filled by record_source_prepare(): the parts every record repeats */
	struct strbuf head, tail, entry_json;
	uint64_t entry_seq;    /* the entry entry_json holds, +1 (0: none) */
};

/* Call once the fields above are set, and again whenever they change. */
void record_source_prepare(struct record_source *src);
void record_source_release(struct record_source *src);

/*
 * The directory of a dump's tensor files: <dir of dump>/dump_tensor_data/,
 * or, for stdin, the dump's own dump_data_dir when it has one.  The
 * caller frees the result; NULL when it cannot be known.
 */
char *record_tensor_dir(const char *dump_path, const char *dump_data_dir);

/*
 * Append the record of one leaf, with its newline.  When rec is given it
 * receives the spans of the fields just written (see leafrec.h), valid
 * until out changes; "task" and "dump" are not among them.
 */
struct leafrec;
void record_add_leaf(struct strbuf *out, struct record_source *src, const struct leaf *leaf, struct leafrec *rec);

/* Append the --list record of a dump file: {"dump", "rank", "step", ["exec_mode",] "kind"}, rank/step -1 as null. */
struct dump_file;
void record_add_dump_file(struct strbuf *out, const struct dump_file *df, int64_t rank, int64_t step);

#endif
