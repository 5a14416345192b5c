/*
 * attach.h: the Python stack and the module chain of each record's entry
 * (probe-stack).
 *
 * For any record that holds a leaf (a leaf record, or the "t" or "g" leaf
 * of a pair, metric or first-divergence record) the leaf gets:
 *   "stack"      its entry's frames from stack.json (innermost first, as
 *                msprobe lists them), possibly only the user's own and
 *                only the innermost few;
 *   "stack_from" for backward and parameters_grad entries, which have no
 *                stack of their own: the forward entry whose stack it is;
 *   "modules"    the modules its entry ran inside, from the root down
 *                (construct.json), and "modules_from" likewise;
 *   "micro_step" Megatron's micro step, when construct.json has it;
 *   "where"      the innermost frame of the user's own code:
 *                {"file", "line", "function", "code"}: the line of the
 *                training script that called it.
 * Other records pass through as they are, and so does a leaf that already
 * has a stack.
 *
 * stack.json and construct.json are found beside each leaf's dump (its
 * "dump" field), or given.  A missing one is a warning, once per file,
 * and the records pass through without what it would have given; a
 * malformed one is an error naming file and position.
 *
 * Memory: the stack and construct maps of the dumps seen; nothing per
 * record.
 */
#ifndef PROBE_ATTACH_H
#define PROBE_ATTACH_H

#include "../core/strbuf.h"
#include "../records/lines.h"

struct attach_options {
	bool golden;                /* the "g" leaf of pairs instead of "t" */
	const char *stack_file;     /* NULL: stack.json beside each dump */
	const char *construct_file; /* NULL: construct.json beside each dump */
	bool user_frames;           /* keep only the user's own frames in "stack" */
	size_t innermost;           /* keep only this many frames (0: all) */
	const char *const *framework; /* more path patterns of framework code */
	size_t nframework;
};

struct attacher;

struct attacher *attach_new(const struct attach_options *opts);
void attach_free(struct attacher *a);

/*
 * One record (a line without its newline) to out, with its newline.  0;
 * PROBE_ERR_LINE (msg.h) when the record itself is not a JSON object;
 * PROBE_ERR when a stack or construct file is unreadable (err names it).
 */
int attach_record(struct attacher *a, const char *line, size_t len, struct strbuf *out, struct strbuf *err);

/*
 * attach_record() as the sink of line_reader_feed() (lines.h); with text,
 * for people instead: one line per record with a leaf, "entry: file:line
 * in function: code".
 */
struct line_sink attach_sink(struct attacher *a, bool text);

#endif
