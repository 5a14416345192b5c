/*
 * Mapping files (lib/core/yamlmap.c): yamlmap_load() on a file holding the
 * input, as probe-match loads its -dm (data mapping) and -cm (cell
 * mapping) files.  A map it loads must hold each key once, in file order,
 * and give back each value under its key; a failure must name the file
 * and leave nothing behind.  The cell mapping is then applied
 * (matcher_mapped_name(), lib/compare/match.c) to row names built from the keys, as
 * probe-match -cm applies it to the target's rows.
 */
#include "fuzz.h"
#include "../../lib/compare/match.h"
#include "../../lib/core/yamlmap.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

/* The cell mapping on "<kind>.<cell>.<dir>.0.input.0" rows of a few of the keys. */
static void apply_cells(const struct yamlmap *m)
{
	static const char *const rows[][2] = {
		{ "Cell.", ".forward.0.input.0" },
		{ "Module.", ".backward.1.output.0" },
		{ "Cell.", ".parameters_grad.weight" },
		{ "Functional.", "" },
	};
	struct strbuf row = STRBUF_INIT, out = STRBUF_INIT;
	for (size_t i = 0; i < m->nr && i < 16; i++) {
		for (size_t r = 0; r < ARRAY_SIZE(rows); r++) {
			strbuf_reset(&row);
			strbuf_addstr(&row, rows[r][0]);
			strbuf_addstr(&row, m->keys[i]);
			strbuf_addstr(&row, rows[r][1]);
			matcher_mapped_name(&out, row.buf, m);
			FUZZ_CHECK(out.len == strlen(out.buf) && out.len > 0, "an empty or broken mapped name for %s",
				   row.buf);
			matcher_mapped_name(&out, row.buf, NULL);
		}
	}
	strbuf_release(&row);
	strbuf_release(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_file file;
	struct yamlmap m = YAMLMAP_INIT;
	struct strbuf err = STRBUF_INIT;

	fuzz_file_open(&file, data, size);
	if (yamlmap_load(&m, file.path, &err) == 0) {
		FUZZ_CHECK(!err.len, "success with a message: %s", err.buf);
		for (size_t i = 0; i < m.nr; i++) {
			const char *v = yamlmap_get(&m, m.keys[i], strlen(m.keys[i]));
			FUZZ_CHECK(m.keys[i] && m.values[i], "pair %zu without a key or a value", i);
			FUZZ_CHECK(v == m.values[i], "key %zu \"%s\" gives \"%s\", its value is \"%s\"", i, m.keys[i],
				   v ? v : "(none)", m.values[i]);
		}
		apply_cells(&m);
	} else {
		FUZZ_CHECK(err.len && !strncmp(err.buf, file.path, strlen(file.path)),
			   "a failure whose message does not name the file: %s", err.buf);
	}
	yamlmap_release(&m);
	fuzz_file_close(&file);
	strbuf_release(&err);
	return 0;
}
