/*
 * msprobe's construct.json (lib/dumps/construct.c): construct_load() on a file
 * holding the input; for the nodes of a map it loads (the first 64), the
 * chain of modules, which must be a valid JSON array.
 */
#include "fuzz.h"
#include "../../lib/dumps/construct.h"
#include "../../lib/json/json.h"

static void check_chain(const char *text, size_t len, int depth)
{
	struct source *src = source_from_memory("chain", text, len);
	struct json_reader r;
	struct json_token tok;
	enum json_type t;
	int strings = 0;
	json_reader_init(&r, src, 0, 0);
	while ((t = json_reader_next(&r, &tok)) != JSON_EOF && t != JSON_ERROR)
		strings += t == JSON_STRING;
	FUZZ_CHECK(t == JSON_EOF, "the chain is not JSON (%s): %.*s", json_reader_error(&r), (int)len, text);
	FUZZ_CHECK(strings == depth, "a chain of %d says %d", strings, depth);
	json_reader_release(&r);
	source_close(src);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_file file;
	struct strbuf err = STRBUF_INIT, chain = STRBUF_INIT;
	struct construct_map *m;

	fuzz_file_open(&file, data, size);
	m = construct_load(file.path, &err);
	if (m) {
		int done = 0;
		FUZZ_CHECK(!err.len, "success with a message: %s", err.buf);
		for (size_t i = 0; i < m->nodes.cap && done < 64; i++) {
			const struct strmap_slot *slot = &m->nodes.slots[i];
			char *name;
			int depth;
			if (!slot->hash)
				continue;
			done++;
			FUZZ_CHECK(construct_get(m, slot->key, slot->key_len) == slot->value.p,
				   "a node is not found under its own name");
			/* the callers pass NUL-terminated names */
			name = malloc(slot->key_len + 1);
			if (!name)
				abort();
			memcpy(name, slot->key, slot->key_len);
			name[slot->key_len] = '\0';
			strbuf_reset(&chain);
			depth = construct_chain_json(m, name, slot->key_len, &chain);
			FUZZ_CHECK(depth >= 0, "a node in the map without a chain");
			check_chain(chain.buf, chain.len, depth);
			free(name);
		}
		if (!construct_get(m, "\x01no such node", 13))
			FUZZ_CHECK(construct_chain_json(m, "\x01no such node", 13, &chain) == -1, "a chain for no node");
		construct_free(m);
	} else {
		FUZZ_CHECK(err.len && !strncmp(err.buf, file.path, strlen(file.path)),
			   "a failure whose message does not name the file: %s", err.buf);
	}
	fuzz_file_close(&file);
	strbuf_release(&err);
	strbuf_release(&chain);
	return 0;
}
