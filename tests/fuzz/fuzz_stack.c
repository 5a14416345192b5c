/*
 * msprobe's stack.json (lib/dumps/stack.c): stack_map_load() on a file holding
 * the input; every stack of a map it loads is then rendered (repr, CSV
 * cell, JSON, which must be valid JSON) and its frames taken apart.
 */
#include "fuzz.h"
#include "../../lib/json/json.h"
#include "../../lib/dumps/stack.h"

static void check_json(const char *text, size_t len)
{
	struct source *src = source_from_memory("stack", text, len);
	struct json_reader r;
	struct json_token tok;
	enum json_type t;
	json_reader_init(&r, src, 0, 0);
	while ((t = json_reader_next(&r, &tok)) != JSON_EOF && t != JSON_ERROR)
		;
	FUZZ_CHECK(t == JSON_EOF, "stack_json is not JSON (%s): %.*s", json_reader_error(&r), (int)len, text);
	json_reader_release(&r);
	source_close(src);
}

static bool in_text(const char *text, size_t len, const char *p, size_t n)
{
	if (!p)
		return n == 0; /* a part the frame does not have */
	return p >= text && n <= len && (size_t)(p - text) <= len - n;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const extra[] = { "megatron/", "" };
	struct fuzz_file file;
	struct strbuf err = STRBUF_INIT;
	struct stack_map *m;

	fuzz_file_open(&file, data, size);
	m = stack_map_load(file.path, &err);
	if (m) {
		FUZZ_CHECK(!err.len, "success with a message: %s", err.buf);
		for (size_t i = 0; i < m->by_entry.cap; i++) {
			const struct strmap_slot *slot = &m->by_entry.slots[i];
			const struct stack *s;
			const char *text;
			size_t len;
			if (!slot->hash)
				continue;
			s = stack_map_get(m, slot->key, slot->key_len);
			FUZZ_CHECK(s == slot->value.p, "an entry is not found under its own name");
			text = stack_repr(m, s, &len);
			FUZZ_CHECK(text && strlen(text) == len, "repr length");
			text = stack_csv(m, s, &len);
			FUZZ_CHECK(text && strlen(text) == len, "csv length");
			text = stack_json(m, s, &len);
			FUZZ_CHECK(text && strlen(text) == len, "json length");
			check_json(text, len);
			for (size_t f = 0; f < s->n; f++) {
				struct frame fr;
				const char *t = s->frames[f];
				size_t tlen = strlen(t);
				if (stack_frame_parse(t, &fr)) {
					/* the parts are pieces of the frame's text */
					FUZZ_CHECK(in_text(t, tlen, fr.file, fr.file_len) &&
							   in_text(t, tlen, fr.function, fr.function_len) &&
							   in_text(t, tlen, fr.code, fr.code_len),
						   "a part of frame \"%s\" outside it", t);
				}
				(void)stack_frame_is_framework(&fr, extra, ARRAY_SIZE(extra));
			}
		}
		stack_map_free(m);
	} else {
		FUZZ_CHECK(err.len && !strncmp(err.buf, file.path, strlen(file.path)),
			   "a failure whose message does not name the file: %s", err.buf);
	}
	fuzz_file_close(&file);
	strbuf_release(&err);
	return 0;
}
