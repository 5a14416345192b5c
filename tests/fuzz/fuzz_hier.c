/*
 * msprobe's node hierarchy (lib/graph/hier.c): hier_load() on the input as
 * construct.json, beside a dump.json naming a few parameters_grad entries.
 * What it loads must be a tree walked in post-order: every node in the
 * walk once, the root last, each child before its parent, and each
 * child's parent the node that lists it; matched with itself, every node
 * in the walk matches itself, and each has a micro step.
 */
#include "fuzz.h"
#include "../../lib/graph/hier.h"

static char dump_path[4096];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char dump[] = "{\"task\": \"statistics\", \"data\": {\"Module.a.A.parameters_grad\": {}, "
				   "\"Module.a.A.parameters_grad.1\": {}, \"Module.b.parameters_grad.0\": {}}}";
	const char *dir = getenv("TMPDIR");
	FILE *f;
	fuzz_quiet();
	snprintf(dump_path, sizeof(dump_path), "%s/probe-fuzz-hier-%ld.json", dir && *dir ? dir : "/tmp", (long)getpid());
	f = fopen(dump_path, "w");
	if (!f || fwrite(dump, 1, sizeof(dump) - 1, f) != sizeof(dump) - 1 || fclose(f))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_file file;
	struct strbuf err = STRBUF_INIT;
	struct hier h;

	fuzz_file_open(&file, data, size);
	if (hier_load(&h, file.path, dump_path, NULL, &err) == 0) {
		FUZZ_CHECK(!err.len, "success with a message: %s", err.buf);
		FUZZ_CHECK(h.nsorted >= 1 && h.nsorted <= h.n && h.sorted[h.nsorted - 1] == 0,
			   "%zu of %zu nodes sorted, the root not last", h.nsorted, h.n);
		for (size_t i = 0; i < h.nsorted; i++) {
			const struct hier_node *nd = &h.nodes[h.sorted[i]];
			FUZZ_CHECK(nd->order == (int64_t)i, "node %s has order %lld at %zu", nd->name, (long long)nd->order, i);
			for (size_t k = 0; k < nd->nsub; k++) {
				const struct hier_node *c = &h.nodes[nd->sub[k]];
				FUZZ_CHECK(c->order >= 0 && c->order < nd->order, "child %s after its parent %s", c->name, nd->name);
				FUZZ_CHECK(c->parent == (int64_t)h.sorted[i], "child %s of %s names another parent", c->name,
					   nd->name);
			}
		}
		{
			struct hier g;
			FUZZ_CHECK(hier_load(&g, file.path, dump_path, NULL, &err) == 0, "a second load fails: %s", err.buf);
			FUZZ_CHECK(hier_match(&h, &g) == h.nsorted, "a hierarchy does not match itself");
			(void)hier_micro_steps(&h, &g);
			for (size_t i = 0; i < h.nsorted; i++) {
				uint32_t k = h.sorted[i];
				FUZZ_CHECK(h.nodes[k].match == (int64_t)k && g.nodes[k].match == (int64_t)k, "%s matches another node",
					   h.nodes[k].name);
				FUZZ_CHECK(k == 0 || h.micro_step_num >= 0 || h.nodes[k].micro_step >= 0, "%s has no micro step",
					   h.nodes[k].name);
			}
			hier_release(&g);
		}
		hier_release(&h);
	} else {
		FUZZ_CHECK(err.len, "failure without a message");
	}
	strbuf_release(&err);
	fuzz_file_close(&file);
	return 0;
}
