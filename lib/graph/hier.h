/*
 * hier.h: the node hierarchy msprobe's graph_visualize builds for one dump
 * (one rank and step): its nodes, their types, parents, children and
 * order, as they go into the tb_nodes table of a vis.db
 * (../shared/reference/msprobe-graph.md; msprobe 26.0.0's GraphBuilder).
 *
 * The rules, in the order msprobe applies them:
 *   - The root is DefaultModel.  construct.json is read as Python reads it
 *     (a key given twice keeps its first place and its last value; the
 *     megatron_micro_step_number form's [parent, micro step] values give
 *     their parent).  Each entry, in order: a node whose parent is null
 *     and whose name ends in .backward.N takes its forward twin's parent
 *     with .forward.N made .backward.N, when construct.json has that node
 *     (for an API, X.backward: X.forward's parent with every "forward"
 *     made "backward"); a backward node whose parent lies in another
 *     module (an inplace layer that fired no backward hook) takes its
 *     forward twin's parent the same way.  The parent is created when it
 *     is first named; the node is created if new and joins its parent's
 *     children, in construct.json's order, unless it has a parent already
 *     (the first parent wins, a node is never its own parent).
 *   - Every run of two or more API children of the root moves under a new
 *     Apis_Between_Modules.K node (K from 0), in the run's place.
 *   - A dump entry <prefix>.parameters_grad[.N] that is not a node joins
 *     <prefix>.backward.<highest N> as its last child, when that node
 *     exists (otherwise it is dropped).
 *   - node_order: a post-order walk from the root (children first, in
 *     order; the root last).  A node the walk does not reach (a parent
 *     named but never given a parent of its own, a cycle) is not in the
 *     graph msprobe writes: its order is -1.
 * Types: module (Module., Cell., optimizer, clip_grad, DefaultModel, and
 * any name no rule knows), API (Tensor., Torch., Functional., NPU., VF.,
 * Distributed., Aten., Mint., Primitive., Jit., MintFunctional.,
 * MindSpeed.), API collection.
 *
 *   - Megatron's recomputation, before the collections: a module at the
 *     root whose stack (its forward twin's, for a backward) shows
 *     recomputation (torch's checkpoint recompute_fn, or a backward called
 *     from torch/autograd/function.py) and whose name is not a top-level
 *     layer's (Module.{n}.name.{n}.Class.forward.N), with its forward or
 *     backward twin also at the root, moves under the backward twin of the
 *     parent of the next layer of its name prefix that is not at the root
 *     (forwards and backwards each taking those layers in creation order),
 *     unless that makes a cycle.  MindSpore dumps: by name alone.
 * Not yet here: layer mapping (-lm).
 *
 * Errors follow msg.h.  Memory: the names once and a few words per node.
 */
#ifndef PROBE_HIER_H
#define PROBE_HIER_H

#include "../core/arena.h"
#include "../core/strbuf.h"
#include "../core/strmap.h"
#include "../dumps/stack.h"

enum hier_op { HIER_MODULE = 0, HIER_API = 1, HIER_API_COLLECTION = 9 };

struct hier_node {
	const char *name;   /* NUL-terminated, in the hierarchy's arena */
	size_t name_len;
	enum hier_op op;
	int64_t parent;     /* index of the parent node, -1 for none */
	uint32_t *sub;      /* children, in order */
	size_t nsub, sub_alloc;
	int64_t order;      /* node_order; -1: not reached from the root */
	int64_t match;      /* the matched node of the other hierarchy (hier_match()), -1 for none */
	int64_t micro_step; /* micro_step_id (hier_micro_steps()); -1: none yet (0 in a vis.db) */
	const struct stack *stack; /* its stack.json stack, its forward twin's, or NULL */
	bool no_forward;    /* a backward node without a stack whose forward twin does not exist */
};

struct hier {
	struct hier_node *nodes; /* nodes[0] is the root */
	size_t n, alloc;
	uint32_t *sorted;        /* node indices in node_order */
	size_t nsorted;
	struct arena arena;
	struct strmap by_name;   /* name -> index + 1 */
	unsigned collections;    /* Apis_Between_Modules nodes made */
	bool mindspore;          /* dump.json's framework is mindspore: recomputation is told by names alone */
	int64_t micro_step_num;  /* construct.json's megatron_micro_step_number, -1 without one */
	const struct stack_map *stacks; /* borrowed (hier_build()) or owned (hier_load()) */
	struct stack_map *owned_stacks;
};

/* One construct.json entry: a node and its parent (NULL for null), as read. */
struct hier_entry {
	const char *name;
	size_t name_len;
	const char *parent;
	size_t parent_len;
	int64_t micro_step; /* the Megatron form's second item (0 when the value is not a list) */
};

/*
 * The hierarchy of construct entries (in file order, duplicates as the
 * file has them) and dump entry names (dump.json's "data" keys, in order;
 * only the parameters_grad ones matter).  stacks is stack.json's map (NULL
 * for none; it must outlive h): a node made from construct.json has its
 * stack, or, a backward node without one, its forward twin's (.backward.N
 * -> .forward.0, X.backward -> X.forward) when the twin was made before it,
 * else msprobe's note that there is none.  micro_step_num is construct.json's
 * megatron_micro_step_number (-1 without one: then the entries'
 * micro_step is not read).  h is initialised here; release it with
 * hier_release().
 */
void hier_build(struct hier *h, const struct hier_entry *construct, size_t n, int64_t micro_step_num,
		const char *const *entries, const size_t *entry_lens, size_t nentries, const struct stack_map *stacks);

/*
 * GraphComparator's default matching: each node of target that the root
 * reaches matches the golden node of the same name whose chain of ancestors
 * is the same; both get its index in `match`.  Returns the nodes matched.
 * (msprobe's matched_node_link of a matched pair is that chain and the
 * name; [] for the others.)
 */
size_t hier_match(struct hier *target, struct hier *golden);

/*
 * msprobe's -fm: walking target breadth-first from the root, a node that
 * is not an API matches the golden node of the same name wherever it is;
 * then the API children of the pair match by their name with every
 * ".<digits>." made "." (and "_rank<digits>" removed), and the how-manieth
 * of that name among the children.  Returns the nodes matched.  (A
 * matched pair's matched_node_link is then the other's chain.)
 */
size_t hier_match_fuzzy(struct hier *target, struct hier *golden);

/*
 * msprobe's matching with a mapping (Graph.mapping_match, what its -lm
 * applies): every target node matches the golden node its mapped name
 * (map(name), or the name itself when map gives none) names, wherever it
 * is.  Returns the nodes matched.
 */
typedef const char *hier_map_fn(void *ctx, const char *name, size_t len);
size_t hier_match_mapped(struct hier *target, struct hier *golden, hier_map_fn *map, void *ctx);

/*
 * Graph.paging_by_micro_step: with construct.json's Megatron form, each
 * node's micro step is the one it gives (parameters_grad nodes none) and
 * the count is micro_step_num + 1.  Otherwise, walking the root's
 * children, a module forward after a module backward starts a new micro
 * step; golden nodes matched to those children take their number, the
 * golden root's other children the number their name ends with (0 when it
 * ends with none); children inherit their parent's.  golden may be NULL
 * (one graph).  Returns the count of micro steps (of target).
 */
size_t hier_micro_steps(struct hier *target, struct hier *golden);

/*
 * The same from the files: construct.json, dump.json (or debug.json) and
 * stack.json (NULL for none).  0, or PROBE_ERR with "FILE:LINE:COL: what"
 * (msg.h); an empty construct.json is an error saying that the hierarchy
 * needs a dump of level L0 or mix.
 */
int hier_load(struct hier *h, const char *construct_path, const char *dump_path, const char *stack_path,
	      struct strbuf *err);

/* A node's stack as msprobe's vis.db holds it (tb_stack.stack_info): a JSON list of frames, "[]" for none. */
void hier_stack_json(const struct hier *h, uint32_t node, struct strbuf *out);

/*
 * Whether every node reaches the root.  msprobe drops a node that does not
 * (its vis.db has no row for it); we refuse it: PROBE_ERR with "what:
 * node N: ..." in err, saying whether its parents form a cycle or end at
 * a parent construct.json names but never gives a parent of its own.
 * what names the file.  0 when the hierarchy is whole.
 */
int hier_check(const struct hier *h, const char *what, struct strbuf *err);

void hier_release(struct hier *h);

/* The node named name, or -1. */
int64_t hier_find(const struct hier *h, const char *name, size_t len);

/* msprobe's type of a node name (the collection type is never guessed from a name). */
enum hier_op hier_op_of(const char *name, size_t len);

#endif
