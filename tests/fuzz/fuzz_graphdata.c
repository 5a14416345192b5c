/*
 * A node's data as msprobe's graph writes it (lib/graph/gdata.c) and its
 * overflow level (lib/graph/overflow.c), from the input as dump.json: when
 * the dump reads, every entry renders to two JSON objects (input_data and
 * output_data) that parse, compared with itself each leaf's Requires_grad
 * Consistent is True, and the overflow scan of a dump that reads succeeds
 * too, every level it gives one of msprobe's three.
 */
#include "fuzz.h"
#include "../../lib/graph/gdata.h"
#include "../../lib/graph/overflow.h"
#include "../../lib/msprobe/pyval.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet();
	return 0;
}

static bool no_lookup(void *ctx, const char *row, size_t len, struct grow_result *out)
{
	(void)ctx;
	(void)row;
	(void)len;
	(void)out;
	return false;
}

static void check_object(const struct strbuf *s, const char *what, size_t entry)
{
	struct arena a = ARENA_INIT;
	struct pyval *v = pyval_from_text(s->buf, s->len, 0, &a);
	FUZZ_CHECK(v && v->kind == PY_DICT, "entry %zu: %s is not a JSON object: %s", entry, what, s->buf);
	arena_release(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_file file;
	struct strbuf err = STRBUF_INIT, in = STRBUF_INIT, out = STRBUF_INIT;
	struct gdata d;
	struct strmap levels = STRMAP_INIT;

	fuzz_file_open(&file, data, size);
	for (int mode = 0; mode < 2; mode++) {
		strbuf_reset(&err);
		if (gdata_load(&d, file.path, mode ? GDATA_MD5 : GDATA_STATISTICS, &err) < 0) {
			FUZZ_CHECK(err.len, "a failure without a message");
			continue;
		}
		for (size_t e = 0; e < d.nentries; e++) {
			double worst;
			strbuf_reset(&in);
			strbuf_reset(&out);
			gdata_render(&d, &d.entries[e], &d, &d.entries[e], true, no_lookup, NULL, &in, &out, &worst);
			check_object(&in, "input_data", e);
			check_object(&out, "output_data", e);
			FUZZ_CHECK(!strstr(in.buf, "\"Requires_grad Consistent\": \"False\"") &&
					   !strstr(out.buf, "\"Requires_grad Consistent\": \"False\""),
				   "entry %zu differs from itself in requires_grad", e);
		}
		if (mode == 0) {
			strbuf_reset(&err);
			FUZZ_CHECK(overflow_scan(file.path, &levels, &err) == 0, "the dump reads but its overflow scan fails: %s",
				   err.buf);
			for (size_t k = 0; k < levels.cap; k++)
				if (levels.slots[k].hash)
					FUZZ_CHECK(overflow_level_name((enum overflow_level)levels.slots[k].value.u),
						   "%s has a level with no name", levels.slots[k].key);
		}
		gdata_release(&d);
	}
	strmap_release(&levels);
	strbuf_release(&err);
	strbuf_release(&in);
	strbuf_release(&out);
	fuzz_file_close(&file);
	return 0;
}
