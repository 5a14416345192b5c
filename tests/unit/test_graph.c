/*
 * msprobe's node hierarchy (lib/graph/hier.c), on small construct.json
 * cases whose expected trees are worked out by hand from
 * ../shared/reference/msprobe-graph.md and msprobe 26.0.0's GraphBuilder
 * rules (hier.h lists them).  The MLP case is mlp-tensor-mix's construct:
 * its tree is also what msprobe's own vis.db holds (fixtures/graph/c1).
 *
 * With --print CONSTRUCT DUMP it prints the hierarchy of those files, one
 * node a line in node_order ("ORDER TAB NAME TAB TYPE TAB PARENT TAB
 * CHILDREN", children comma-separated); with --print-pair TARGET-CONSTRUCT
 * TARGET-DUMP GOLDEN-CONSTRUCT GOLDEN-DUMP both, matched, each line with
 * " TAB MICRO-STEP TAB LINK" after it (LINK: the matched chain,
 * comma-separated), target first: for tests/parity/graph-hier.sh.
 */
#include "tap.h"
#include "../../lib/graph/hier.h"

#include <stdio.h>

static void describe(const struct hier *h, uint32_t i, struct strbuf *out)
{
	const struct hier_node *n = &h->nodes[i];
	strbuf_addf(out, "%lld\t%s\t%d\t%s\t", (long long)n->order, n->name, (int)n->op,
		    n->parent >= 0 ? h->nodes[n->parent].name : "");
	for (size_t k = 0; k < n->nsub; k++)
		strbuf_addf(out, "%s%s", k ? "," : "", h->nodes[n->sub[k]].name);
	strbuf_addch(out, '\n');
}

static void describe_all(const struct hier *h, struct strbuf *out)
{
	for (size_t i = 0; i < h->nsorted; i++)
		describe(h, h->sorted[i], out);
}

/*
 * Each node with its micro step, msprobe's matched_node_link (its ancestors and its name,
 * when matched) and, with stacks, its stack's number and text.
 */
static void describe_matched(const struct hier *h, struct strbuf *out, bool stacks)
{
	struct strmap ids = STRMAP_INIT;
	struct strbuf text = STRBUF_INIT;
	for (size_t i = 0; i < h->nsorted; i++) {
		const struct hier_node *n = &h->nodes[h->sorted[i]];
		const char *chain[256];
		size_t depth = 0;
		describe(h, h->sorted[i], out);
		strbuf_setlen(out, out->len - 1);
		strbuf_addf(out, "\t%lld\t", (long long)(n->micro_step < 0 ? 0 : n->micro_step));
		if (n->match >= 0) {
			for (int64_t a = h->sorted[i]; a >= 0 && depth < ARRAY_SIZE(chain); a = h->nodes[a].parent)
				chain[depth++] = h->nodes[a].name;
			for (size_t k = depth; k > 0; k--)
				strbuf_addf(out, "%s%s", k < depth ? "," : "", chain[k - 1]);
		}
		if (stacks) {
			bool created;
			struct strmap_slot *slot;
			strbuf_reset(&text);
			hier_stack_json(h, h->sorted[i], &text);
			slot = strmap_put(&ids, text.buf, text.len, &created);
			if (created)
				slot->value.u = ids.size - 1;
			strbuf_addf(out, "\t%llu\t%s", (unsigned long long)slot->value.u, text.buf);
		}
		strbuf_addch(out, '\n');
	}
	strmap_release(&ids);
	strbuf_release(&text);
}

/* "name:parent" pairs ("" for null) into construct entries. */
static size_t entries_of(const char *const *pairs, size_t n, struct hier_entry *e)
{
	for (size_t i = 0; i < n; i++) {
		const char *colon = strchr(pairs[i], ':');
		e[i].name = pairs[i];
		e[i].name_len = (size_t)(colon - pairs[i]);
		e[i].parent = colon[1] ? colon + 1 : NULL;
		e[i].parent_len = colon[1] ? strlen(colon + 1) : 0;
		e[i].micro_step = 0;
	}
	return n;
}

static void build(struct hier *h, const char *const *pairs, size_t n);

static void check_tree(const char *what, const char *const *pairs, size_t n, const char *const *dump, size_t ndump,
		       const char *want)
{
	struct hier_entry e[64];
	size_t lens[64];
	struct hier h;
	struct strbuf got = STRBUF_INIT;
	for (size_t i = 0; i < ndump; i++)
		lens[i] = strlen(dump[i]);
	hier_build(&h, e, entries_of(pairs, n, e), -1, dump, lens, ndump, NULL);
	describe_all(&h, &got);
	is_str(got.buf, want, what);
	strbuf_release(&got);
	hier_release(&h);
}

static void mlp(void)
{
	/* mlp-tensor-mix/target/step0/rank0/construct.json, and its dump's parameters_grad entries */
	static const char *const c[] = {
		"Functional.linear.0.forward:Module.fc1.Linear.forward.0", "Module.fc1.Linear.forward.0:",
		"Functional.relu.0.forward:Module.relu.ReLU.forward.0", "Module.relu.ReLU.forward.0:",
		"Functional.linear.1.forward:Module.fc2.Linear.forward.0", "Module.fc2.Linear.forward.0:",
		"Functional.relu.1.forward:Module.relu.ReLU.forward.1", "Module.relu.ReLU.forward.1:",
		"Functional.linear.2.forward:Module.fc3.Linear.forward.0", "Module.fc3.Linear.forward.0:",
		"Functional.mse_loss.0.forward:", "Functional.mse_loss.0.backward:", "Functional.linear.2.backward:",
		"Functional.relu.1.backward:", "Functional.linear.1.backward:", "Functional.relu.0.backward:",
		"Functional.linear.0.backward:",
	};
	static const char *const dump[] = { "Functional.linear.0.forward", "Module.fc3.Linear.parameters_grad.0",
					    "Module.fc1.Linear.parameters_grad.0" };
	/*
	 * Every module is a child of the root with its API inside; the seven APIs after them
	 * are a run of APIs under the root: Apis_Between_Modules.0.  The backward APIs' forward
	 * twins have module parents, but no Module...backward.0 exists, so they stay at the
	 * root; the parameters_grad entries have no backward module to hang on: dropped.
	 */
	check_tree("mlp-tensor-mix: msprobe's 19 nodes, in post-order", c, ARRAY_SIZE(c), dump, ARRAY_SIZE(dump),
		   "0\tFunctional.linear.0.forward\t1\tModule.fc1.Linear.forward.0\t\n"
		   "1\tModule.fc1.Linear.forward.0\t0\tDefaultModel\tFunctional.linear.0.forward\n"
		   "2\tFunctional.relu.0.forward\t1\tModule.relu.ReLU.forward.0\t\n"
		   "3\tModule.relu.ReLU.forward.0\t0\tDefaultModel\tFunctional.relu.0.forward\n"
		   "4\tFunctional.linear.1.forward\t1\tModule.fc2.Linear.forward.0\t\n"
		   "5\tModule.fc2.Linear.forward.0\t0\tDefaultModel\tFunctional.linear.1.forward\n"
		   "6\tFunctional.relu.1.forward\t1\tModule.relu.ReLU.forward.1\t\n"
		   "7\tModule.relu.ReLU.forward.1\t0\tDefaultModel\tFunctional.relu.1.forward\n"
		   "8\tFunctional.linear.2.forward\t1\tModule.fc3.Linear.forward.0\t\n"
		   "9\tModule.fc3.Linear.forward.0\t0\tDefaultModel\tFunctional.linear.2.forward\n"
		   "10\tFunctional.mse_loss.0.forward\t1\tApis_Between_Modules.0\t\n"
		   "11\tFunctional.mse_loss.0.backward\t1\tApis_Between_Modules.0\t\n"
		   "12\tFunctional.linear.2.backward\t1\tApis_Between_Modules.0\t\n"
		   "13\tFunctional.relu.1.backward\t1\tApis_Between_Modules.0\t\n"
		   "14\tFunctional.linear.1.backward\t1\tApis_Between_Modules.0\t\n"
		   "15\tFunctional.relu.0.backward\t1\tApis_Between_Modules.0\t\n"
		   "16\tFunctional.linear.0.backward\t1\tApis_Between_Modules.0\t\n"
		   "17\tApis_Between_Modules.0\t9\tDefaultModel\tFunctional.mse_loss.0.forward,Functional.mse_loss.0.backward,"
		   "Functional.linear.2.backward,Functional.relu.1.backward,Functional.linear.1.backward,"
		   "Functional.relu.0.backward,Functional.linear.0.backward\n"
		   "18\tDefaultModel\t0\t\tModule.fc1.Linear.forward.0,Module.relu.ReLU.forward.0,Module.fc2.Linear.forward.0,"
		   "Module.relu.ReLU.forward.1,Module.fc3.Linear.forward.0,Apis_Between_Modules.0\n");
}

static void backward_parents(void)
{
	/*
	 * Module.a.b.B.backward.0 has no parent: its twin Module.a.b.B.forward.0's parent,
	 * Module.a.A.forward.0, made backward is Module.a.A.backward.0, which construct.json
	 * has.  Tensor.add.0.backward the same way through X.backward -> X.forward (its
	 * twin's parent made backward: Module.a.b.B.backward.0).  Module.a.A.backward.0's
	 * twin has a null parent, and Module.a.A.backward.1 has no twin: both stay at the
	 * root.  A lone API at the root stays there (a run of one).  parameters_grad
	 * entries go under the highest backward call of their module, in dump order:
	 * Module.a.A's two under Module.a.A.backward.1, Module.a.b.B's under
	 * Module.a.b.B.backward.0 after its API.
	 */
	static const char *const c[] = {
		"Module.a.A.forward.0:", "Module.a.b.B.forward.0:Module.a.A.forward.0", "Tensor.add.0.forward:Module.a.b.B.forward.0",
		"Torch.cat.0.forward:", "Module.a.A.backward.0:", "Module.a.A.backward.1:", "Module.a.b.B.backward.0:",
		"Tensor.add.0.backward:",
	};
	static const char *const dump[] = { "Module.a.b.B.parameters_grad", "Module.a.A.parameters_grad",
					    "Module.a.A.parameters_grad.1" };
	check_tree("backward nodes take their forward twins' parents; parameters_grad under the last backward", c,
		   ARRAY_SIZE(c), dump, ARRAY_SIZE(dump),
		   "0\tTensor.add.0.forward\t1\tModule.a.b.B.forward.0\t\n"
		   "1\tModule.a.b.B.forward.0\t0\tModule.a.A.forward.0\tTensor.add.0.forward\n"
		   "2\tModule.a.A.forward.0\t0\tDefaultModel\tModule.a.b.B.forward.0\n"
		   "3\tTorch.cat.0.forward\t1\tDefaultModel\t\n"
		   "4\tTensor.add.0.backward\t1\tModule.a.b.B.backward.0\t\n"
		   "5\tModule.a.b.B.parameters_grad\t0\tModule.a.b.B.backward.0\t\n"
		   "6\tModule.a.b.B.backward.0\t0\tModule.a.A.backward.0\tTensor.add.0.backward,Module.a.b.B.parameters_grad\n"
		   "7\tModule.a.A.backward.0\t0\tDefaultModel\tModule.a.b.B.backward.0\n"
		   "8\tModule.a.A.parameters_grad\t0\tModule.a.A.backward.1\t\n"
		   "9\tModule.a.A.parameters_grad.1\t0\tModule.a.A.backward.1\t\n"
		   "10\tModule.a.A.backward.1\t0\tDefaultModel\tModule.a.A.parameters_grad,Module.a.A.parameters_grad.1\n"
		   "11\tDefaultModel\t0\t\tModule.a.A.forward.0,Torch.cat.0.forward,Module.a.A.backward.0,Module.a.A.backward.1\n");
}

static void inplace(void)
{
	/*
	 * msprobe's own example of an inplace layer: Module.layer4.1.conv2.Conv2d.backward.0
	 * names Module.layer4.1.relu.ReLU.backward.1 as its parent, whose prefix
	 * (Module.layer4.1.relu) is not its own (Module.layer4.1): it takes its forward
	 * twin's parent made backward, Module.layer4.1.BasicBlock.backward.0.
	 */
	static const char *const c[] = {
		"Module.layer4.1.BasicBlock.forward.0:", "Module.layer4.1.conv2.Conv2d.forward.0:Module.layer4.1.BasicBlock.forward.0",
		"Module.layer4.1.relu.ReLU.forward.1:Module.layer4.1.BasicBlock.forward.0",
		"Module.layer4.1.BasicBlock.backward.0:", "Module.layer4.1.relu.ReLU.backward.1:Module.layer4.1.BasicBlock.backward.0",
		"Module.layer4.1.conv2.Conv2d.backward.0:Module.layer4.1.relu.ReLU.backward.1",
	};
	check_tree("an inplace layer's wrong backward parent is set right", c, ARRAY_SIZE(c), NULL, 0,
		   "0\tModule.layer4.1.conv2.Conv2d.forward.0\t0\tModule.layer4.1.BasicBlock.forward.0\t\n"
		   "1\tModule.layer4.1.relu.ReLU.forward.1\t0\tModule.layer4.1.BasicBlock.forward.0\t\n"
		   "2\tModule.layer4.1.BasicBlock.forward.0\t0\tDefaultModel\tModule.layer4.1.conv2.Conv2d.forward.0,"
		   "Module.layer4.1.relu.ReLU.forward.1\n"
		   "3\tModule.layer4.1.relu.ReLU.backward.1\t0\tModule.layer4.1.BasicBlock.backward.0\t\n"
		   "4\tModule.layer4.1.conv2.Conv2d.backward.0\t0\tModule.layer4.1.BasicBlock.backward.0\t\n"
		   "5\tModule.layer4.1.BasicBlock.backward.0\t0\tDefaultModel\tModule.layer4.1.relu.ReLU.backward.1,"
		   "Module.layer4.1.conv2.Conv2d.backward.0\n"
		   "6\tDefaultModel\t0\t\tModule.layer4.1.BasicBlock.forward.0,Module.layer4.1.BasicBlock.backward.0\n");
}

static void edges(void)
{
	/*
	 * A key given twice keeps its first place and its last parent: Module.m.M.forward.0's
	 * last parent is itself, which BaseNode.add_upnode refuses, so it has none and is not
	 * reached from the root, nor is Tensor.mul.0.forward inside it; a node named only as
	 * a parent (Module.x.X.forward.0) is not reached either.  What is left is the root.
	 */
	static const char *const c[] = { "Module.m.M.forward.0:", "Tensor.mul.0.forward:Module.x.X.forward.0",
					 "Tensor.mul.0.forward:Module.m.M.forward.0", "Module.m.M.forward.0:Module.m.M.forward.0" };
	static const char *const c2[] = { "Tensor.mul.0.forward:Module.x.X.forward.0", "Torch.add.0.forward:" };
	check_tree("duplicate keys as Python's dict reads them; what the root does not reach is not in the graph", c,
		   ARRAY_SIZE(c), NULL, 0, "0\tDefaultModel\t0\t\t\n");
	check_tree("a parent never given a place of its own is not reached", c2, ARRAY_SIZE(c2), NULL, 0,
		   "0\tTorch.add.0.forward\t1\tDefaultModel\t\n1\tDefaultModel\t0\t\tTorch.add.0.forward\n");
	{
		/* without stack.json: a backward node whose forward twin exists takes its (empty) stack; one without gets msprobe's note */
		static const char *const c3[] = { "Module.m.M.forward.0:", "Module.m.M.backward.2:", "Tensor.t.0.backward:" };
		struct hier h;
		struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, m = STRBUF_INIT;
		build(&h, c3, ARRAY_SIZE(c3));
		hier_stack_json(&h, (uint32_t)hier_find(&h, "Module.m.M.forward.0", 20), &m);
		hier_stack_json(&h, (uint32_t)hier_find(&h, "Module.m.M.backward.2", 21), &a);
		hier_stack_json(&h, (uint32_t)hier_find(&h, "Tensor.t.0.backward", 19), &b);
		is_str(m.buf, "[]", "a node without a stack: []");
		is_str(a.buf, "[]", "Module.m.M.backward.2 takes Module.m.M.forward.0's (none)");
		is_str(b.buf, "[\"This backward node cannot find the forward node and cannot retrieve stack information.\"]",
		       "Tensor.t.0.backward has no Tensor.t.0.forward: msprobe's note");
		strbuf_release(&a);
		strbuf_release(&b);
		strbuf_release(&m);
		hier_release(&h);
	}
	ok(hier_op_of("Moduleish", 9) == HIER_MODULE && hier_op_of("Torch_x", 7) == HIER_API &&
	   hier_op_of("Torch", 5) == HIER_MODULE && hier_op_of("clip_grad_norm", 14) == HIER_MODULE &&
	   hier_op_of("MindSpeed.x", 11) == HIER_API && hier_op_of("something.else", 14) == HIER_MODULE,
	   "node types by msprobe's patterns ('.' any character; anything else a module)");
}

static int load_dir(struct hier *h, const char *dir, struct strbuf *err)
{
	struct strbuf c = STRBUF_INIT, d = STRBUF_INIT, s = STRBUF_INIT;
	int ret;
	strbuf_addf(&c, "%s/construct.json", dir);
	strbuf_addf(&d, "%s/dump.json", dir);
	strbuf_addf(&s, "%s/stack.json", dir);
	ret = hier_load(h, c.buf, d.buf, s.buf, err);
	strbuf_release(&c);
	strbuf_release(&d);
	strbuf_release(&s);
	return ret;
}

/* Name of the node of other that the node named `name` of h matches, or "-". */
static const char *match_of(const struct hier *h, const struct hier *other, const char *name)
{
	int64_t i = hier_find(h, name, strlen(name));
	return i < 0 || h->nodes[i].match < 0 ? "-" : other->nodes[h->nodes[i].match].name;
}

static void fuzzy(void)
{
	/*
	 * msprobe's -fm, worked out by hand from its rules: Module.a.A.forward.0 sits under
	 * the root in the target and under Module.p.P.forward.0 in the golden, so the
	 * default matching leaves it (and its APIs) unmatched; fuzzy matching takes it by
	 * name, and its API children by name without call numbers in their order:
	 * Torch.add.3 with Torch.add.0, Torch.add.4 with Torch.add.1; Torch.mul has no
	 * partner; Torch.sub.2.forward, outside any matched module, stays unmatched.
	 */
	static const char *const t[] = { "Module.a.A.forward.0:", "Torch.add.3.forward:Module.a.A.forward.0",
					 "Torch.add.4.forward:Module.a.A.forward.0", "Torch.mul.0.forward:Module.a.A.forward.0",
					 "Module.q.Q.forward.0:", "Torch.sub.2.forward:Module.q.Q.forward.0" };
	static const char *const g[] = { "Module.p.P.forward.0:", "Module.a.A.forward.0:Module.p.P.forward.0",
					 "Torch.add.0.forward:Module.a.A.forward.0", "Torch.add.1.forward:Module.a.A.forward.0",
					 "Torch.sub.0.forward:Module.p.P.forward.0" };
	struct hier ht, hg;
	build(&ht, t, ARRAY_SIZE(t));
	build(&hg, g, ARRAY_SIZE(g));
	is_int((long long)hier_match(&ht, &hg), 1, "default: only the root matches");
	hier_release(&ht);
	hier_release(&hg);
	build(&ht, t, ARRAY_SIZE(t));
	build(&hg, g, ARRAY_SIZE(g));
	is_int((long long)hier_match_fuzzy(&ht, &hg), 4, "fuzzy: the root, A and two of its APIs");
	is_str(match_of(&ht, &hg, "Module.a.A.forward.0"), "Module.a.A.forward.0", "a module matches by name, elsewhere");
	is_str(match_of(&ht, &hg, "Torch.add.3.forward"), "Torch.add.0.forward", "the first add with the first add");
	is_str(match_of(&ht, &hg, "Torch.add.4.forward"), "Torch.add.1.forward", "the second add with the second");
	is_str(match_of(&ht, &hg, "Torch.mul.0.forward"), "-", "an API without a partner of its name");
	is_str(match_of(&ht, &hg, "Torch.sub.2.forward"), "-", "an API outside a matched module");
	is_str(match_of(&hg, &ht, "Torch.add.1.forward"), "Torch.add.4.forward", "both sides know their match");
	hier_release(&ht);
	hier_release(&hg);
}

static int print_pair(char **argv)
{
	struct hier t, g;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	if (load_dir(&t, argv[0], &err) < 0 || load_dir(&g, argv[1], &err) < 0) {
		fprintf(stderr, "test_graph: %s\n", err.buf);
		return 2;
	}
	hier_match(&t, &g);
	hier_micro_steps(&t, &g);
	describe_matched(&t, &out, true);
	describe_matched(&g, &out, true);
	fwrite(out.buf, 1, out.len, stdout);
	hier_release(&t);
	hier_release(&g);
	strbuf_release(&out);
	strbuf_release(&err);
	return 0;
}

static void build(struct hier *h, const char *const *pairs, size_t n)
{
	struct hier_entry e[64];
	hier_build(h, e, entries_of(pairs, n, e), -1, NULL, NULL, 0, NULL);
}

static void matching(void)
{
	/*
	 * The root, Module.a.A.forward.0 and Tensor.add.0.forward (under A on both sides)
	 * match; Torch.cat.0.forward is at the root of the target and inside A in the
	 * golden: the same name with other ancestors, unmatched.  Root children: A (a
	 * module forward, micro step 0), Module.a.A.backward.0 (0), Module.a.A.forward.1
	 * (a forward after a backward: 1), the lone Torch.cat (1).  Golden: A takes 0 from
	 * its match; Module.z.Z.forward.3, unmatched, the 3 its name ends with; children
	 * inherit.
	 */
	static const char *const t[] = { "Tensor.add.0.forward:Module.a.A.forward.0", "Module.a.A.forward.0:",
					 "Module.a.A.backward.0:", "Module.a.A.forward.1:", "Torch.cat.0.forward:" };
	static const char *const g[] = { "Tensor.add.0.forward:Module.a.A.forward.0", "Module.a.A.forward.0:",
					 "Torch.cat.0.forward:Module.a.A.forward.0", "Module.z.Z.forward.3:",
					 "Tensor.mul.0.forward:Module.z.Z.forward.3" };
	struct hier ht, hg;
	struct strbuf got = STRBUF_INIT;
	size_t steps;
	build(&ht, t, ARRAY_SIZE(t));
	build(&hg, g, ARRAY_SIZE(g));
	is_int((long long)hier_match(&ht, &hg), 3, "three nodes match");
	steps = hier_micro_steps(&ht, &hg);
	is_int((long long)steps, 2, "two micro steps");
	describe_matched(&ht, &got, false);
	describe_matched(&hg, &got, false);
	is_str(got.buf,
	       "0\tTensor.add.0.forward\t1\tModule.a.A.forward.0\t\t0\tDefaultModel,Module.a.A.forward.0,Tensor.add.0.forward\n"
	       "1\tModule.a.A.forward.0\t0\tDefaultModel\tTensor.add.0.forward\t0\tDefaultModel,Module.a.A.forward.0\n"
	       "2\tModule.a.A.backward.0\t0\tDefaultModel\t\t0\t\n"
	       "3\tModule.a.A.forward.1\t0\tDefaultModel\t\t1\t\n"
	       "4\tTorch.cat.0.forward\t1\tDefaultModel\t\t1\t\n"
	       "5\tDefaultModel\t0\t\tModule.a.A.forward.0,Module.a.A.backward.0,Module.a.A.forward.1,Torch.cat.0.forward\t0\tDefaultModel\n"
	       "0\tTensor.add.0.forward\t1\tModule.a.A.forward.0\t\t0\tDefaultModel,Module.a.A.forward.0,Tensor.add.0.forward\n"
	       "1\tTorch.cat.0.forward\t1\tModule.a.A.forward.0\t\t0\t\n"
	       "2\tModule.a.A.forward.0\t0\tDefaultModel\tTensor.add.0.forward,Torch.cat.0.forward\t0\tDefaultModel,Module.a.A.forward.0\n"
	       "3\tTensor.mul.0.forward\t1\tModule.z.Z.forward.3\t\t3\t\n"
	       "4\tModule.z.Z.forward.3\t0\tDefaultModel\tTensor.mul.0.forward\t3\t\n"
	       "5\tDefaultModel\t0\t\tModule.a.A.forward.0,Module.z.Z.forward.3\t0\tDefaultModel\n",
	       "the matched chains and micro steps of both sides");
	strbuf_release(&got);
	hier_release(&ht);
	hier_release(&hg);
}

static int print_files(const char *construct, const char *dump)
{
	struct hier h;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	if (hier_load(&h, construct, dump, NULL, &err) < 0) {
		fprintf(stderr, "test_graph: %s\n", err.buf);
		return 2;
	}
	describe_all(&h, &out);
	fwrite(out.buf, 1, out.len, stdout);
	hier_release(&h);
	strbuf_release(&out);
	strbuf_release(&err);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--print"))
		return print_files(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "--print-pair"))
		return print_pair(argv + 2);
	mlp();
	backward_parents();
	inplace();
	edges();
	matching();
	fuzzy();
	return done_testing();
}
