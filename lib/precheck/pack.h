/*
 * pack.h: one side of probe-config's comparison, as msprobe's config_check
 * packs it: the environment, the pip list, the hyperparameters, and per
 * step and rank the dataset's and the weights' statistics and the random
 * calls.
 *
 * THE PACK.  msprobe's ConfigChecker writes a zip (every member deflated,
 * dated 1980-01-01, appended in the order of the events that made it):
 *
 *   env                                        JSON object: os.environ
 *   pip                                        text: Name=version per line
 *   hyperparameters/hyperparameters_static.json   JSON object: the launch
 *                                              script's arguments and the
 *                                              YAML configs, flattened
 *   hyperparameters/hyperparameters_dynamic.json  JSON object: Megatron's args
 *   dataset/step<S>/rank<R>/dataset.json       {"args": ..., "kwargs": ...}
 *                                              of each forward's inputs
 *   weights/step<S>/rank<R>/weight.json        {name: {max, min, mean, norm}}
 *   random/rank<R>.json                        {op: [{count, stack}, ...]}
 *
 * pack_read_zip() reads such a zip, pack_read_dir() the same layout as a
 * folder (a pack msprobe extracted, or one made by hand).  A member of
 * another name is ignored with a warning; a name twice in a zip counts
 * once, the later (as extracting it leaves it).  Every JSON member is read
 * whole, checked for the shape its check needs (so that comparing cannot
 * fail), and kept both as a tree (positions, for messages) and as the
 * values Python's json.load makes of it (pyval.h), on which the checks
 * compare as msprobe does.
 *
 * Other sources fill the same structure: plain.h reads a pip list, an
 * environment dump, a YAML or JSON config and a launch script into it,
 * each providing one check.
 *
 * Errors: the message names the file and, in a zip, the member:
 * "bench.zip(dataset/step0/rank0/dataset.json):3:5: what"; in a folder the
 * member's path.  A damaged zip (cut short, a bad CRC, a method other than
 * stored or deflated, encryption), a member or file that is not what its
 * name says, one larger than PACK_MAX_FILE: -1 and nothing kept.  In a
 * zip, only the members of the layout are inflated, each checked against
 * the bound of zip_inflate_limit() (xlsxr.h: 64 times the zip's size, at
 * least 64 MiB, PROBE_MAX_INFLATE) before a byte of it is inflated, all
 * of them together too; and the JSON trees they make may take at most
 * PACK_TREE_RATIO times that bound, estimated before a tree is built.
 *
 * Memory: a pack owns everything it points to (pack_free()); the members'
 * bytes are not kept once parsed.
 */
#ifndef PROBE_PACK_H
#define PROBE_PACK_H

#include "../core/arena.h"
#include "../core/strmap.h"
#include "../core/strbuf.h"
#include "../json/jtree.h"
#include "../msprobe/pyval.h"
#include "piplist.h"

#define PACK_MAX_FILE ((size_t)1 << 30) /* msprobe's MAX_FILE_IN_ZIP_SIZE */
#define PACK_MAX_MEMBERS 1000000
#define PACK_TREE_RATIO 4u /* the trees' memory: at most this many times the inflation bound */

/* The checks, in msprobe's order (ConfigChecker's registration). */
enum pack_check { PACK_ENV, PACK_PIP, PACK_DATASET, PACK_WEIGHTS, PACK_HYPER, PACK_RANDOM, PACK_NCHECKS };

/* The check's name: its sheet in msprobe's result.xlsx, its "check" in the records. */
const char *pack_check_name(enum pack_check c);

/* What an operand was read as. */
enum pack_kind { PACK_ZIP, PACK_DIR, PACK_PIP_TEXT, PACK_ENV_TEXT, PACK_CONFIG, PACK_SCRIPT };

/* One JSON file of a pack, or the values of a plain file. */
struct pack_json {
	char *member;              /* its place in the layout: "weights/step0/rank0/weight.json" */
	char *where;               /* its name in messages: "bench.zip(weights/...)", "run/weights/..." */
	int64_t step, rank;        /* stepS, rankR of its folder (dataset, weights), rankR.json (random); else -1 */
	const struct jnode *tree;  /* as read (NULL for values a plain file made) */
	const struct pyval *value; /* what Python's json.load makes of it */
	/*
	 * The hyperparameters msprobe's packer would have written for a plain
	 * file (its YAML parser drops nulls and dates, which value keeps); the
	 * same as value for a pack's members.
	 */
	const struct pyval *ms_value;
};

struct pack {
	char *path;               /* the operand */
	enum pack_kind kind;
	unsigned has;             /* 1 << check: the input holds it (msprobe: its member or folder exists) */

	struct pack_json env;     /* a dict of names to values */

	struct piplist pip;       /* our reading of the pip list (piplist.h) */
	struct piplist ms_pip;    /* msprobe's load_pip_txt() of the pack's: split on '='; a plain list's: ours */
	char *pip_where;

	struct pack_json hyper[2]; /* hyperparameters_static.json, _dynamic.json (value NULL: absent) */

	struct pack_json *dataset, *weights, *random; /* sorted by step, rank, member */
	size_t ndataset, nweights, nrandom;

	struct arena arena;       /* the trees, values and texts */
	struct strmap members;    /* member name -> its place in dataset, weights or random (while reading) */
	uint64_t max_inflate;     /* a zip: zip_inflate_limit() of its size (xlsxr.h); 0: no bound */
	uint64_t inflated;        /* a zip: bytes inflated so far */
};

/* The file names of the two hyperparameters files, as msprobe names them. */
extern const char *const pack_hyper_files[2];

struct pack *pack_new(const char *path, enum pack_kind kind);
void pack_free(struct pack *p);

/* A pack zip (path names it in messages). 0, or -1 with err set. */
int pack_read_zip(struct pack *p, struct strbuf *err);
/* A folder in the layout above; one that holds none of its members is an error. */
int pack_read_dir(struct pack *p, struct strbuf *err);

/*
 * The JSON text of a file of the layout, parsed as member (its place in
 * the layout) into p, where names it in messages.  Used by the readers
 * above and by plain.h for an "env" JSON file.  0, 1 when member is not
 * one of the layout (nothing kept), or -1 with err set.
 */
int pack_add_member(struct pack *p, const char *member, const char *where, const char *data, size_t len,
		    struct strbuf *err);

/*
 * JSON text parsed as one value (where names it in messages:
 * "WHERE:LINE:COL: what"); the tree is p's.  NULL with err set.
 */
const struct jnode *pack_parse_json(struct pack *p, const char *where, const char *data, size_t len,
				    struct strbuf *err);
/* The values json.load makes of a tree, in p's arena (NaN and the infinities as floats). */
struct pyval *pack_pyval(struct pack *p, const struct jnode *n);

/* Sort dataset, weights and random by step, rank and member (the readers call it at the end). */
void pack_sort(struct pack *p);
/* The file of list v (sorted by pack_sort()) with the step, rank and member of f, or NULL. */
const struct pack_json *pack_find(const struct pack_json *v, size_t n, const struct pack_json *f);

#endif
