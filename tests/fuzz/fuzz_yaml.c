/*
 * Mapping files (lib/core/yamlmap.c): yamlmap_load() on a file holding the
 * input, as probe-match loads its -dm (data mapping) and -cm (cell
 * mapping) files.  A map it loads must hold each key once, in file order,
 * and give back each value under its key; a failure must name the file
 * and leave nothing behind.  The cell mapping is then applied
 * (matcher_mapped_name(), lib/compare/match.c) to row names built from the keys, as
 * probe-match -cm applies it to the target's rows.
 *
 * The same file is also read as the two other YAML files probe-match
 * takes: a layer mapping's rules (layer_rules_load(), -lm FILE) and a
 * user's API table (msapi_user_load(), --api-mapping=FILE), whose keys are
 * then asked for a few row names.  Each either loads without a message or
 * fails with one that names the file.
 */
#include "fuzz.h"
#include "../../lib/compare/layermap.h"
#include "../../lib/compare/match.h"
#include "../../lib/msprobe/msapiuser.h"
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

static bool golden_has_all(void *ctx, const char *api, size_t len)
{
	(void)ctx;
	return len > 0 && api;
}

/* The rules and the API table from the same file: loaded cleanly, or a failure naming it. */
static void load_other_tables(const char *path)
{
	static const char *const rows[][3] = {
		{ "Mint.add.0.forward.input.0", "Mint.add.0.forward", "input" },
		{ "MintFunctional.linear.1.forward.output.0", "MintFunctional.linear.1.forward", "output" },
		{ "Functional.conv2d.0.backward.parameters_grad.weight", "Functional.conv2d.0.backward", "parameters_grad" },
		{ "Tensor.x.0.forward.input.bias", "Tensor.x.0.forward", "input" },
	};
	struct strbuf err = STRBUF_INIT, warn = STRBUF_INIT, key = STRBUF_INIT;
	struct layer_rules *r = layer_rules_load(path, &err);
	struct msapi_user u = MSAPI_USER_INIT;

	if (r)
		FUZZ_CHECK(!err.len, "layer rules loaded with a message: %s", err.buf);
	else
		FUZZ_CHECK(err.len && !strncmp(err.buf, path, strlen(path)),
			   "a layer rules failure whose message does not name the file: %s", err.buf);
	layer_rules_free(r);
	strbuf_reset(&err);
	if (msapi_user_load(&u, path, &warn, &err) == 0) {
		FUZZ_CHECK(!err.len, "an API table loaded with a message: %s", err.buf);
		for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
			strbuf_reset(&key);
			if (msapi_user_key(&u, rows[i][0], rows[i][1], rows[i][2], golden_has_all, NULL, &key))
				FUZZ_CHECK(key.len == strlen(key.buf) && key.len > 0, "an empty key for %s", rows[i][0]);
			else
				FUZZ_CHECK(!key.len, "no key for %s, but out was written", rows[i][0]);
		}
	} else {
		FUZZ_CHECK(err.len && !strncmp(err.buf, path, strlen(path)),
			   "an API table failure whose message does not name the file: %s", err.buf);
	}
	msapi_user_release(&u);
	strbuf_release(&err);
	strbuf_release(&warn);
	strbuf_release(&key);
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
	load_other_tables(file.path);
	yamlmap_release(&m);
	fuzz_file_close(&file);
	strbuf_release(&err);
	return 0;
}
