/*
 * construct.h: msprobe's construct.json, node -> the module it ran inside.
 *
 * {"<node>": "<parent module node>" | null, ...} (msprobe-firstdiff.md
 * section 3).  Megatron dumps give [parent, micro_step] instead of the
 * parent (and a key "megatron_micro_step_number", which is not a node);
 * APIs called in the optimizer have the pseudo-node "optimizer" (or
 * "clip_grad") as their parent.
 *
 * Memory: the names once, one slot per node.  Lives until construct_free().
 */
#ifndef PROBE_CONSTRUCT_H
#define PROBE_CONSTRUCT_H

#include "../core/arena.h"
#include "../core/strbuf.h"
#include "../core/strmap.h"

struct construct_node {
	const char *parent;  /* NULL: a root */
	int64_t micro_step;  /* Megatron's micro step, -1 when none */
};

struct construct_map {
	struct arena arena;
	struct strmap nodes; /* name -> struct construct_node * */
};

/* Returns NULL with "FILE:LINE:COL: what" in err (a value that is not a string, null or [parent, step]). */
struct construct_map *construct_load(const char *path, struct strbuf *err);
void construct_free(struct construct_map *m);
const struct construct_node *construct_get(const struct construct_map *m, const char *node, size_t len);

/*
 * The modules the node ran inside, from the root to its parent, into out
 * (a JSON array of strings); stops at a cycle.  Returns the number of
 * ancestors, or -1 when the node is not in the map.
 */
int construct_chain_json(const struct construct_map *m, const char *node, size_t len, struct strbuf *out);

#endif
