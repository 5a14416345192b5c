/*
 * layout.h: finding the dump files behind an operand.
 *
 * msprobe writes <root>/step<N>/<rank-dir>/dump.json, where the rank dir is
 * rank<ID> once torch.distributed knows the rank and proc<pid> before that
 * (single-point saves write debug.json instead of dump.json).  An operand
 * may name any level of that tree:
 *
 *   a file        dump.json, debug.json, or a gzip of either ("-": stdin)
 *   a rank dir    a directory holding dump.json or debug.json (or .gz)
 *   a step dir    a directory of rank<N> / proc<pid> directories
 *   a dump root   a directory of step<N> directories
 *   a graph/pynative root
 *                 MindSpore's run mode pynative_graph (2.7 and later, with
 *                 jit) writes <root>/pynative/step<N>/... and
 *                 <root>/graph/step<N>/... side by side: a directory with a
 *                 graph or a pynative directory of step<N> directories is
 *                 read as those folders, each a dump root, graph first;
 *                 its dump files carry the folder (exec_mode, leafrec.h).
 *                 A folder of no step directories is passed over with a
 *                 warning, and so are step<N> directories beside the
 *                 folders (msprobe's compare, given such roots, compares
 *                 only the folders).  A folder named on its own (root/graph,
 *                 root/graph/step0) is an ordinary dump root or step dir.
 *
 *   an ATB dump  MindIE's atb_dump_data root (or its parent, or its data
 *                folder), a <device>_<pid> folder, an exec-count folder
 *                holding statistic.csv, or that statistic.csv itself: one
 *                dump file per exec folder (atb.h), rank the device, step
 *                the exec count; two processes of one device in a root
 *                are an error (name one of their folders).
 *
 *   a checkpoint a model checkpoint in one of probe-ckpt's layouts (ckpt.h:
 *                Megatron's folders, a .pt of many tensors, a safetensors
 *                file, a Hugging Face folder): one dump file, its
 *                parameters the leaves (ckrecord.h); rank and step unknown.
 *
 * Rank and step come from the directory names (rank<N> -> N, step<N> -> N)
 * and are -1 when the layout does not say (a proc<pid> dir, a bare "rank",
 * a file outside the layout).  Nothing is guessed: a step dir with several
 * proc dirs and no rank dir, or with the same rank twice, is an error; a
 * step dir mixing rank and proc dirs keeps the rank dirs and warns (the
 * proc dirs are helper processes, as msprobe's documentation says); a rank
 * dir without a dump file is an error, and so is a rank<N>, proc<N> or
 * step<N> directory whose N is past INT64_MAX (msprobe would read it: left
 * out, its rank would go uncompared without a word).
 *
 * Steps come out in numeric order, ranks in numeric order within a step.
 */
#ifndef PROBE_LAYOUT_H
#define PROBE_LAYOUT_H

#include "../core/strbuf.h"

struct dump_file {
	char *path;     /* usable as is from the current directory */
	int64_t rank;   /* -1: unknown */
	int64_t step;   /* -1: unknown */
	bool debug;     /* a debug.json (single-point save) */
	bool csv;       /* an msprobe compare_result CSV (probe-flatten reads those too) */
	int exec_mode;  /* the folder of a graph/pynative root it is in (LEAF_EXEC_*, leafrec.h); 0: none */
	bool atb;       /* an ATB exec folder (atb.h): path is the folder, rank its device, step its exec count */
	bool ckpt;      /* a model checkpoint (ckpt.h): a file or folder, its parameters the leaves (ckrecord.h) */
};

struct dump_list {
	struct dump_file *v;
	size_t nr, alloc;
};

#define DUMP_LIST_INIT { NULL, 0, 0 }

/*
 * Append the dump files of `operand` to `list`.  Returns 0, or -1 with the
 * reason in `err` ("OPERAND: what is wrong").
 */
int layout_discover(const char *operand, struct dump_list *list, struct strbuf *err);

/*
 * An operand of probe-flatten: msprobe's compare_result CSV (a regular
 * file whose first line is msprobe's header; its rank from a
 * compare_result_rank<N>_... name, else -1) becomes one dump file of kind
 * csv, read in its place among the others; anything else goes to
 * layout_discover().
 */
int layout_add_operand(const char *operand, struct dump_list *list, struct strbuf *err);
/* Whether path starts with the header of msprobe's compare_result CSV. */
bool layout_is_compare_csv(const char *path);
/* The rank in a compare_result_rank<N>_... file name, or -1. */
int64_t layout_compare_csv_rank(const char *path);
void layout_release(struct dump_list *list);

/* The rank folder of a dump path ("rank3", "proc2016") into out, for msprobe's file names; empty when none. */
void layout_rank_dir(const char *dump, struct strbuf *out);
/*
 * The graph/pynative root of a dump path of one of its folders
 * (ROOT/graph/step0/rank0/dump.json -> ROOT; "." when the path starts at
 * the folder) into out; empty when the path is not that deep.
 */
void layout_mode_root(const char *dump, struct strbuf *out);

/* Parse "<prefix><digits>" (no sign, no leading zeros unless "0"); -1 if it is not. */
int64_t layout_parse_numbered(const char *name, const char *prefix);

/* A rank list as --only-ranks takes it: numbers and ranges, "0,4-7". */
bool layout_rank_list_valid(const char *spec);
/* Whether rank is in the list: 1 or 0; -1 when spec is not such a list. */
int layout_rank_in(const char *spec, int64_t rank);
/* Keep the dump files of the listed ranks (dumps without a rank go); -1 with the reason when none is left. */
int layout_keep_ranks(struct dump_list *list, const char *spec, struct strbuf *err);

/*
 * The ranks of the list in at most n batches for --only-ranks, one LIST a
 * line into out ("0-31\n32-63\n"): each batch a run of consecutive ranks
 * in rank order, a run cut when it holds its share of the bytes not yet
 * in a run (those bytes over the batches left; a rank's bytes summed over
 * its steps and files), each batch keeping at least one rank, so that the
 * jobs of the batches take about as long; fewer lines when there are fewer
 * ranks.  sizes: each file's bytes (list->nr of them), or NULL to
 * stat them (a folder counts its files' bytes).  -1 with the reason when a
 * dump has no rank (nothing to split by).
 */
int layout_rank_batches(const struct dump_list *list, const uint64_t *sizes, size_t n, struct strbuf *out,
			struct strbuf *err);

/* Whether the list is the ranks of one step: every file of the same step (and folder), no rank twice. */
bool layout_one_step_of_ranks(const struct dump_list *list);

#endif
