/*
 * match.h: pairing target leaves with golden leaves (probe-match).
 *
 * The golden side is loaded whole into an index (XXH3 over the match key,
 * per golden rank and step); the target side streams through it one
 * record at a time.  For every target leaf the matcher writes one pair
 * record per golden leaf with the same key (several only when the golden
 * dump repeats a key, as msprobe's join then does), or one pair with
 * "g": null when none has it; after each target rank it writes the golden
 * leaves no target leaf took, with "t": null.  Nothing is dropped.
 *
 * Pair record: {"key": K, "t": <target record>, "g": <golden record>}
 * plus "partial": true on the unmatched and golden-only pairs when the
 * comparison is accepted as partial (opts.partial: the tools after it then
 * accept it too, alike.h),
 * plus "msprobe_unmatched": "dtype" when msprobe's dtype gate would treat
 * the pair as unmatched (mscell_dtype_gate(): dtypes differ and are not
 * both in a float16/float32/bfloat16 group, nor of one kind across
 * frameworks; the gate is off with a data mapping),
 * and, for golden-only leaves, "t_after": the target seq of the pair that
 * precedes the leaf in golden order (null when it comes first).
 *
 * Keys (msprobe-compare.md section 3):
 *   default       the records' compare keys (backward calls renumbered)
 *   data mapping  target: the mapped name of the row, else its raw name;
 *                 golden: the compare key (msprobe's -dm)
 *   layer mapping as data mapping, with the mapping derived for each
 *                 target dump from both dumps' scopes (layermap.h); an
 *                 empty derived mapping means none, as in msprobe
 *   cell mapping  target: the raw name with Cell->Module and module names
 *                 mapped (msprobe's -cm); golden: the compare key
 *   fuzzy         both: the name without its call index, and the k-th
 *                 occurrence of such a name pairs with the k-th (the intent
 *                 of msprobe's -fm; see probe-match(1))
 *
 * Ranks pair by id (a golden side with a single rank or step pairs with
 * whatever the target has); a rank on one side only is an error naming
 * it.  With ranks_by_position the k-th target rank pairs with the k-th
 * golden rank, as msprobe does.
 *
 * Folders: the leaves of a MindSpore graph/pynative root (exec_mode,
 * leafrec.h) pair only within their folder, graph with graph, pynative
 * with pynative, and ranks and steps pair within the folder as above.  A
 * folder of one side only is passed over with a warning naming it
 * (msprobe's mix compare passes over it without a word; stats.passed_over
 * counts its target leaves); no folder in common is an error naming both
 * roots, and so is a root of such folders against a dump of none.
 *
 * The golden side loads in a thread beside the target's stream when that
 * cannot change the result (see match.c); PROBE_NO_THREADS in the
 * environment turns that off.
 *
 * Memory: the golden records' text, kept as shapes and values (recstore.h:
 * about 125 bytes a statistics leaf), about 100 bytes of index per golden
 * leaf (the leaf and its table slots), and nothing per target leaf.
 */
#ifndef PROBE_MATCH_H
#define PROBE_MATCH_H

#include "../core/strbuf.h"
#include "../msprobe/msapiuser.h"
#include "../records/lines.h"
#include "../core/yamlmap.h"

struct match_options {
	bool fuzzy;
	const struct yamlmap *data_mapping; /* -dm, or NULL */
	bool api_mapping;                   /* -am: msapimap.h (it goes before -cm and -dm) */
	const struct msapi_user *api_user;  /* -am FILE: msapiuser.h, before the built-in table; or NULL */
	bool cell_mapping;                  /* -cm given */
	const struct yamlmap *cell_map;     /* its file, or NULL (Cell->Module only) */
	bool ranks_by_position;
	bool partial;                       /* accept a partial comparison; mark unpaired leaves "partial": true */
	const struct layer_rules *layer_rules; /* -lm (layermap.h): a data mapping derived per rank, or NULL */
	const char *save_mapping;           /* -lm: write each derived mapping into this directory, or NULL */
	const char *only_ranks;             /* golden: read only these ranks ("0,4-7"), or NULL */
	/*
	 * Called with the out buffer of matcher_add_target()/matcher_finish()
	 * whenever the golden-only records of a group have made it large, to
	 * write and empty it; NULL: out holds them all until the call returns.
	 */
	void (*drain)(struct strbuf *out);
};

struct match_stats {
	uint64_t golden_leaves, targets, pairs, unmatched, golden_only, gated;
	uint64_t passed_over;  /* target leaves of a folder the golden side does not have */
};

struct matcher;

struct matcher *matcher_new(const struct match_options *opts);
void matcher_free(struct matcher *m);

/*
 * Load the golden side: anything probe-flatten reads, or a file of leaf
 * records.  Returns 0, or -1 with the reason in err.
 */
int matcher_load_golden(struct matcher *m, const char *operand, struct strbuf *err);

/*
 * One target record (a line, without its newline): the pair records go
 * to out.  Returns 0; PROBE_ERR_LINE (msg.h) when the line is at fault;
 * or PROBE_ERR when the golden side, still loading, turned out broken (err
 * then names the golden file and position).
 */
int matcher_add_target(struct matcher *m, const char *line, size_t len, struct strbuf *out, struct strbuf *err);

/*
 * matcher_add_target() for each line as the sink of line_reader_feed()
 * (lines.h); after the last target record, the last golden-only leaves, the
 * rank checks, and the like-for-like check (alike.h: the match-rate guard).
 */
struct line_sink matcher_sink(struct matcher *ctx);

/*
 * After matcher_finish(), for -v: the counts in one line, then the
 * unmatched and golden-only leaves explained by class, per target rank and
 * step (alike.h), without a last newline.
 */
void matcher_summary(const struct matcher *m, struct strbuf *out);

/* msprobe -cm's target key for a row name ("N/A" when it has no forward/backward/parameters_grad). */
void matcher_mapped_name(struct strbuf *out, const char *name, const struct yamlmap *map);

/*
 * Whether a golden operand is a file of leaf records rather than a dump (a
 * regular file whose first object has "name" and "key" before any dump key).
 */
bool matcher_operand_is_records(const char *path);

#endif
