/*
 * graphmodel.h: the inside of graph.h's model, for its writers (graph.c's
 * NDJSON, visdb.c, gview.c) only.
 */
#ifndef PROBE_GRAPHMODEL_H
#define PROBE_GRAPHMODEL_H

#include "graph.h"
#include "gdata.h"
#include "hier.h"
#include "overflow.h"
#include "../core/arena.h"
#include "../core/strmap.h"
#include "../compare/first.h"

/* What the records say of one target row. */
struct grow {
	const char *result, *err_message, *metrics; /* as gdata.h's grow_result */
	bool diff;                                   /* our verdict: not the same */
};

/* What the records say of one target entry (a node with data). */
struct gentryinfo {
	bool seen, diff;
	uint64_t seq;            /* its first row's place in execution order */
	const char *where;       /* the user's line, as "file:line in function: code", or NULL */
	const char *reason;      /* the first differing row's reason, or NULL */
	const char *role;        /* probe-first's role when it holds its rank's first divergence */
};

/* Each node's judgement, both sides. */
struct gjudge {
	double precision;        /* msprobe's precision index; -1: NULL */
	const char *verdict;     /* ours (graph.h) */
	const char *reason;
	const char *where;
	int64_t stack;           /* index into its side's stack texts */
	const char *overflow;    /* msprobe's overflow level (-oc), or NULL */
	char *distributed;       /* matched_distributed (distlink.c), or NULL for {} */
};

struct grun {
	char *tdump, *gdump;      /* gdump NULL: one run */
	int64_t rank, step;       /* as the records give them (-1: null) */
	int64_t db_rank, db_step; /* as a vis.db numbers them */
	struct strmap rows;       /* target row name -> struct grow * */
	struct strmap entries;    /* target entry name -> struct gentryinfo * */
	struct arena arena;
	bool built;
	struct hier th, gh;
	struct gdata td, gd;      /* the leaves, rendered by graph_node_data() */
	struct gjudge *tj, *gj;   /* per node of th, gh */
	size_t micro_steps;
	int64_t first;            /* the target node of the first divergence, -1 */
	char **stacks[2];         /* per side (target, golden): distinct stack texts in node_order */
	size_t nstacks[2], salloc[2];
};

struct graph_set {
	struct grun *runs;
	size_t n, alloc;
	struct strmap by_key;     /* tdump NUL gdump -> run index + 1 */
	struct first_stream *first;
	bool two_runs, one_run;   /* which kinds of record came */
	int exec_mode;            /* the folder of a graph/pynative root the records are of (one only); -1 before any */
	enum gdata_mode mode;
	bool mode_known;
	int64_t started_rank;     /* -1: none known */
	bool several_steps, several_ranks;
	size_t lines;
	bool flat;                /* a dump without construct.json was drawn flat (warned once) */
	bool fuzzy;               /* match as msprobe's -fm */
	bool overflow;            /* msprobe's -oc: overflow levels */
	const struct yamlmap *mapping; /* borrowed, or NULL */
};

/* A writer's buffer, handed to a graph_out as it fills. */
struct gsink {
	struct strbuf buf;
	struct strbuf scratch;    /* for the writer's own use */
	const struct graph_out *o;
	int err;
};
/* Emit what buf holds once it is over threshold bytes (0: always); false once emitting failed. */
bool gsink_flush(struct gsink *s, size_t threshold);

/* A node's input_data and output_data (JSON objects) appended to in and out. */
void graph_node_data(const struct grun *r, bool golden, uint32_t node, struct strbuf *in, struct strbuf *out);

/* "NPU" or "Bench" graph id: {source}_{step}_{rank}. */
void graph_id(const struct grun *r, bool golden, struct strbuf *out);
/* matched_distributed of every communication node, per data source and step (distlink.c). */
void graph_link_ranks(struct graph_set *g);
/* A precision index as JSON: null, 0, 0.5 or 1. */
void graph_add_precision(struct strbuf *out, double p);
/* msprobe's task name of the mode: summary, all, md5 ("" for one run). */
const char *graph_task(const struct graph_set *g);

#endif
