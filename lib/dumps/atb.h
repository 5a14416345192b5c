/*
 * atb.h: ATB (MindIE inference) dumps as leaf records.
 *
 * Reference: msprobe-atb.md.  ATB's dumper writes
 * <out>/atb_dump_data/data/<device>_<pid>/<exec count>/ folders, each with
 * one statistic.csv (15 columns: Device and PID, Execution Count, Op Name,
 * Op Type, Op Id, Input/Output, Index, Dtype, Format, Shape, Max, Min,
 * Mean, Norm, Tensor Path) and the .bin tensors under
 * <id>_<Layer>/[<id>_<Operation>/[<id>_<Kernel>/]]{before,after}/.
 *
 * A row becomes a leaf record (probe-records(5)):
 *   rank   the device (the number before '_' in Device and PID)
 *   step   the execution count
 *   seq    the row's position among the kept rows of its file
 *   entry  msprobe's data name without the tensor: "<id>_<name>/" per level
 *          ("1_Prefill_layer/3_ElewiseOperation/0_AddBF16Kernel")
 *   name, key  the entry and "/<input|output>.<Index>" (msprobe's data name)
 *   state  "input" or "output"; type "atb.Tensor"
 *   dtype  ATB's text ("bf16", "float16", "float", "int64", "bool", ...)
 *   shape  Shape "4x16" as [4,16]
 *   max min mean norm  the row's number text (N/A: left out)
 *   attrs  {"op_type", "format"} (compared)
 *   process  Device and PID ("0_39943"), which differs between runs
 *   data   the .bin file: the Tensor Path after its last "atb_dump_data",
 *          its parts from the fifth on, under this exec folder (msprobe's
 *          rule), when the path is not N/A; an alias file (filter_level 1,
 *          "data=<first file>") is followed to the file it names, which
 *          must exist (msprobe gives N/A there; a warning says so once)
 *   alias  then the alias file itself, the one msprobe reads
 *   task   "statistics" (Tensor Path N/A) or "tensor", from the first row
 *   dump   the statistic.csv path
 *
 * Rows msprobe skips silently are skipped and reported (a warning each,
 * naming the file and line): a row of other than 15 fields, a row whose
 * Op Name has another number of '/' parts than its Op Id has '_' parts.
 * A later row of the same data name gives its values to the earlier one,
 * which keeps its place (msprobe's dict), with a warning.
 *
 * Errors (-1, "FILE:LINE: what" in err): a missing or unreadable
 * statistic.csv, a wrong header, an exec folder whose rows mix the two
 * tasks, a Shape or an Execution Count that is no number, an alias whose
 * target is missing (both files named).
 */
#ifndef PROBE_ATB_H
#define PROBE_ATB_H

#include "../core/strbuf.h"

#include <stdbool.h>

/*
 * Whether path is an ATB exec folder (one holding statistic.csv, or a
 * <device>_<pid>/<digits> folder, whose missing statistic.csv
 * atb_exec_dirs() then reports), a <device>_<pid> folder of them, or an
 * atb_dump_data (or its parent) root.
 */
bool atb_is_dump(const char *path);

/*
 * The exec folders under path (one of the above), in order: device folders
 * by name, exec counts by number; appended to dirs (each malloc'ed, the
 * caller frees them).  Returns the count, or -1 with the reason in err.
 */
int atb_exec_dirs(const char *path, char ***dirs, size_t *n, struct strbuf *err);

struct atb_read_stats {
	size_t rows, kept, skipped, duplicates, aliases;
};

/*
 * The leaf records of one exec folder appended to out, each ending in a
 * newline; rank and step >= 0 label them instead of the rows' device and
 * Execution Count.  0, or -1 with the reason in err.
 */
int atb_flatten_exec(const char *exec_dir, int64_t rank, int64_t step, struct strbuf *out, struct atb_read_stats *st,
		     struct strbuf *err);

/*
 * The device and exec count an exec folder's path names
 * (".../<device>_<pid>/<exec count>"), each -1 when its folder is not so
 * named.
 */
void atb_exec_labels(const char *exec_dir, int64_t *device, int64_t *exec);

/*
 * Whether the .bin file bin is an alias (filter_level 1, "data=<first
 * file>", no payload), and the file it names: 1 with that file's path in
 * target (the alias text resolved as a Tensor Path under bin's exec folder,
 * the nearest folder above it holding statistic.csv or named by digits
 * inside a <device>_<pid> folder; else the text as it is), 0 when bin is
 * no alias, -1 with the reason in err when bin cannot be read or the file
 * named is not there (both files named).
 */
int atb_alias_target(const char *bin, struct strbuf *target, struct strbuf *err);

/*
 * What to dump next, for people (probe-first's report), after the first
 * divergence at entry ("1_Prefill_layer", "1_Prefill_layer/3_Elewise...",
 * ...) of an ATB dump taken at exec count exec (-1: not known), seed 004's
 * "layer first, then operation": a layer or an operation without kernels ->
 * the dump config (config.json) that dumps its operations and kernels
 * ("ids" its id path "1" or "1_3", "save_child": true, "filter_level": 0 so
 * that every tensor is its own file, "exec_range" that exec count); a
 * kernel -> the probe-export commands that write its tensors (the kernel's
 * folder under each run's exec folder, target_exec and golden_exec; NULL:
 * a placeholder) as .pt files, for a single-operator reproduction.
 * One or more lines into out, each ending in a newline, the first starting
 * "next     " and the others indented alike.
 */
void atb_next_step(const char *entry, int64_t exec, const char *target_exec, const char *golden_exec,
		   struct strbuf *out);

#endif
