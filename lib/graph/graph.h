/*
 * graph.h: probe-graph's model: the records of a comparison (or the leaf
 * records of one run) made into msprobe's graphs, one pair of target and
 * golden hierarchies per rank and step, with each node's data, msprobe's
 * precision index and our verdict (../shared/reference/msprobe-graph.md).
 *
 * Records come in through graph_sink(): metric records (probe-metric's,
 * through probe-stack for the user's lines), or plain leaf records of one
 * run (a build graph: no golden, no precision).  Each record names its
 * dump.json; construct.json and stack.json are read beside it.  After the
 * input, graph_finish() reads the dumps, builds, matches and judges; the
 * writers then turn the model into msprobe's vis.db (visdb.h), NDJSON
 * (one record per node) or the HTML view.
 *
 * Our verdict of a node: "same" or "diff" from its own leaves' verdicts;
 * the node holding a rank's first divergence (probe-first's analysis,
 * first.h) "first", or "received" when its rank received the difference
 * through a communication operator; a node that differs after its rank's
 * first divergence "propagated"; "unmatched" without a golden partner;
 * "" without data.
 *
 * Not yet: Megatron's recomputation, -lm layer mapping, overflow levels (-oc) and matched_distributed links.
 *
 * Memory: per rank and step, both hierarchies and their node data
 * (gdata.h), and per target row of the records its Result and verdict.
 */
#ifndef PROBE_GRAPH_H
#define PROBE_GRAPH_H

#include "../core/strbuf.h"
#include "../core/yamlmap.h"
#include "../records/lines.h"

struct graph_set;

struct graph_options {
	bool fuzzy;    /* match as msprobe's -fm (hier.h: hier_match_fuzzy) */
	bool overflow; /* msprobe's -oc: each node's overflow level (overflow.h) */
	const struct yamlmap *mapping; /* target node -> golden node (msprobe's -lm mapping_dict), or NULL; the caller's */
};

struct graph_set *graph_new(const struct graph_options *o);
void graph_free(struct graph_set *g);

/* The records, one line at a time (lines.h's sink). */
struct line_sink graph_sink(struct graph_set *g);

/* After the input: whether the records compared two runs (msprobe's compare_<ts>.vis.db) or held one (build_<ts>). */
bool graph_is_compare(const struct graph_set *g);

/*
 * Writers, after the input ended (the sink's finish built the graphs).
 * graph_write_json: one record per node; graph_write_html: the page; both
 * hand their bytes to o->emit a megabyte or so at a time (the document is
 * never held whole);
 * graph_write_visdb: msprobe's vis.db at path, written whole or not at
 * all (0, or PROBE_ERR with the message); ext NULL: path is the file, and
 * replaced; else path is a base named by the time (-o DIR) and the file
 * gets path ext, or path_2 ext, ... (partial_numbered_name(), partial.h).
 */
struct graph_out {
	int (*emit)(void *ctx, const char *p, size_t n); /* 0, or -1 to stop (the writer then returns -1) */
	void *ctx;
};
int graph_write_json(const struct graph_set *g, const struct graph_out *o);
int graph_write_html(const struct graph_set *g, const struct graph_out *o);
int graph_write_visdb(const struct graph_set *g, const char *path, const char *ext, struct strbuf *err);

#endif
