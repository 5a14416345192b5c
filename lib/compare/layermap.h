/*
 * layermap.h: msprobe's layer mapping (-lm), turned into a data mapping.
 *
 * Each side's entries get a scope (reference: msprobe-crossfw.md, -lm):
 *   module entries  their module path without the attribute name of the
 *                   call itself ("Cell.a.b.word_embeddings.Emb.forward.0":
 *                   scope Cell.a.b, name word_embeddings)
 *   API entries     the module they ran inside (construct.json), then the
 *                   last framework function the call came through (its
 *                   stack, between the hook's "Template" frame and the
 *                   module's construct / forward), then the API name;
 *                   TopLayer when no module holds them
 *   backward        the scope of their forward entry
 *   layers          under a ParallelTransformer, renumbered from 0 (its
 *                   pipeline stage may start anywhere)
 * The scopes make a tree per side.  A target entry's scope is walked down
 * the tree with the rules of the rule file (per module class: a child name
 * or a dotted run of names -> the golden's name; the longest rule first;
 * "Cell" means the top layer), and the target entry that is the N-th of
 * its state (forward, backward, parameters_grad) in its node pairs with
 * the golden's N-th of that state in the node reached.  Leaves of paired
 * entries pair by what follows the entry name (".input.0"); every other
 * target leaf maps to "N/A".
 *
 * Where probe differs from msprobe: a stack.json in the newer form (an index
 * of distinct stacks) is read as well (msprobe looks entries up by name in
 * it and finds none, so its scopes then lack the framework function); an
 * entry whose name has fewer than four fields maps to N/A with a warning
 * (msprobe stops).
 *
 * Cost: linear in entries and leaves (a hash lookup per scope step), plus
 * one pass over the entries per distinct ParallelTransformer scope.
 */
#ifndef PROBE_LAYERMAP_H
#define PROBE_LAYERMAP_H

#include "../core/strbuf.h"
#include "../core/yamlmap.h"

struct layer_rules;

/*
 * The rule file: a YAML mapping of module class -> mapping of child
 * names to golden names (a value's "(...)" tail is dropped, as msprobe
 * does).  path NULL: no rules.  Returns NULL with "FILE:LINE:COL: what".
 */
struct layer_rules *layer_rules_load(const char *path, struct strbuf *err);
void layer_rules_free(struct layer_rules *r);

/*
 * The data mapping of target_dump's leaves onto golden_dump's (both
 * dump.json paths; stack.json and construct.json are read beside them),
 * into out (target leaf name -> golden leaf name or "N/A", in target
 * order).  When a side has neither stack.json nor construct.json, out
 * stays empty and the reason goes to warn (msprobe then compares without
 * a mapping).  Returns 0, or -1 with "FILE...: what" in err.
 */
int layermap_derive(const char *target_dump, const char *golden_dump, const struct layer_rules *r,
		    struct yamlmap *out, struct strbuf *warn, struct strbuf *err);

/* The mapping as msprobe writes data_mapping_<ts>.yaml (PyYAML's block style), appended to out. */
void layermap_write_yaml(const struct yamlmap *m, struct strbuf *out);

#endif
