/*
 * export.h: tensors taken out of a dump as .pt or .npy files, for a
 * single-operator reproduction (probe-export; msprobe's `parse`).
 *
 * What is exported, in the order it is given:
 *   - a tensor file named as it is: an ATB .bin, a .pt, a .npy (the kind is
 *     told by its bytes); written as OUT/<stem>.<pt|npy>;
 *   - a folder: its .bin, .pt and .npy files by name, as OUT/<stem>.<ext>;
 *     recursive: also those of the folders below, as OUT/<sub/dirs>/<stem>.<ext>;
 *     a folder without one (there, or below it when recursive) is an error;
 *   - records (probe-records(5)): a leaf record's tensor ("data", kept
 *     inside its dump's tensor folder by "data_name"), written as
 *     OUT/<name>.<ext>, the name's '/' making folders (ATB's
 *     "1_Prefill_layer/3_ElewiseOperation/0_AddBF16Kernel/input.0"); a pair or
 *     metric record's two leaves as OUT/target/<name> and OUT/golden/<name>.
 *     When the records hold more than one graph/pynative folder, step or
 *     rank, every name goes under [<exec_mode>/][step<S>/][rank<R>/], a
 *     folder for each of the three that differs among them (a leaf without
 *     a rank or step then goes without that folder, and may meet another).  A leaf
 *     without a tensor file (a statistics dump) is an error.
 * An ATB alias file (filter_level 1: "data=<first file>", no payload) is
 * written from the file it names (msprobe's parse skips it; a warning says
 * so once); a missing target is an error naming both files.
 *
 * Everything is queued first and checked (two sources for one output file,
 * a name that would leave OUT, a source that is no tensor or is cut short:
 * each is opened once) before the first file is written, so an error in the
 * input writes nothing.  Each file is written whole under a
 * temporary name and renamed (tensorw.h); an existing file of the same name
 * is replaced.  OUT and the folders under it are made as needed.
 *
 * Ownership: the job copies what it is given; export_free() releases it.
 */
#ifndef PROBE_EXPORT_H
#define PROBE_EXPORT_H

#include "../core/strbuf.h"
#include "../records/lines.h"
#include "../tensors/tensorw.h"

struct export_options {
	enum tensorw_format format; /* TENSORW_PT (torch.save) or TENSORW_NPY (numpy.save; bfloat16 as float32) */
	const char *out_dir;        /* made when missing */
	bool recursive;             /* folders: also the folders below */
	bool text;                  /* export_run() writes a line per file for people instead of records (textesc.h) */
};

struct export_job;

struct export_job *export_new(const struct export_options *o);
void export_free(struct export_job *j);

/* A tensor file or a folder of them, queued.  0, or -1 with "PATH: what" in err. */
int export_add_path(struct export_job *j, const char *path, struct strbuf *err);

/* Records (leaf, pair or metric) queued, one line at a time (records/lines.h); the sink writes nothing. */
struct line_sink export_sink(struct export_job *j);

/*
 * Write every queued tensor; a record (or, with text, a line) per file
 * written into out: {"file", "from", "alias"?, "side"?, "name"?, "rank"?,
 * "step"?, "dtype", "from_dtype"? (when the file's type differs), "shape"}.
 * Returns the number of files written, or -1 with the reason in err (the
 * files written before it stay; their records are in out).  Nothing queued
 * is an error.
 */
long export_run(struct export_job *j, struct strbuf *out, struct strbuf *err);

#endif
