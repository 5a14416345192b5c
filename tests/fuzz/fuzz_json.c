/*
 * The streaming JSON tokenizer (lib/json/json.c) and the tree builder
 * (lib/json/jtree.c).
 *
 * The first byte of the input picks the flags (JSON_MULTI or not) and how
 * the rest is fed: whole, in reads of a size chosen from that byte, and
 * with the reader's smallest buffer (8 bytes, grown as tokens need).
 * Every event is consumed, and every way of feeding must give the same
 * events, positions and error message.  Then the same input is read
 * again skipping containers (json_reader_skip), which must end the same
 * way, and built into a tree.
 */
#include "fuzz.h"
#include "../../lib/core/arena.h"
#include "../../lib/json/json.h"
#include "../../lib/json/jtree.h"

/* All events as text, one line each, the error message last; returns the last type. */
static enum json_type events(const uint8_t *in, size_t len, unsigned flags, size_t chunk, size_t cap,
			     struct strbuf *out)
{
	struct source *src = source_from_memory("fuzz.json", in, len);
	struct json_reader r;
	struct json_token tok;
	enum json_type t;
	source_set_max_chunk(src, chunk);
	json_reader_init(&r, src, flags, cap);
	do {
		t = json_reader_next(&r, &tok);
		strbuf_addstr(out, json_type_name(t));
		if (t == JSON_KEY || t == JSON_STRING || t == JSON_NUMBER) {
			FUZZ_CHECK(tok.text != NULL || tok.len == 0, "token without text");
			strbuf_addch(out, ' ');
			strbuf_add(out, tok.text, tok.len);
			strbuf_addf(out, "/%zu", tok.len);
		}
		if (tok.nonfinite)
			strbuf_addstr(out, " nonfinite");
		FUZZ_CHECK(tok.offset <= len, "token offset %llu beyond the input (%zu bytes)",
			   (unsigned long long)tok.offset, len);
		strbuf_addf(out, " @%llu %llu:%llu d%zu\n", (unsigned long long)tok.offset,
			    (unsigned long long)tok.line, (unsigned long long)tok.col, json_reader_depth(&r));
	} while (t != JSON_EOF && t != JSON_ERROR);
	if (t == JSON_ERROR)
		strbuf_addf(out, "error: %s\n", json_reader_error(&r));
	/* after the end, the same answer again */
	FUZZ_CHECK(json_reader_next(&r, &tok) == t, "a second call after the end differs");
	json_reader_release(&r);
	source_close(src);
	return t;
}

/* Read skipping every container at depth >= skip_at; the final type and error. */
static enum json_type skipping(const uint8_t *in, size_t len, unsigned flags, size_t chunk, size_t skip_at,
			       struct strbuf *err)
{
	struct source *src = source_from_memory("fuzz.json", in, len);
	struct json_reader r;
	struct json_token tok;
	enum json_type t;
	source_set_max_chunk(src, chunk);
	json_reader_init(&r, src, flags, 8);
	for (;;) {
		t = json_reader_next(&r, &tok);
		if (t == JSON_EOF || t == JSON_ERROR)
			break;
		if ((t == JSON_OBJECT_BEGIN || t == JSON_ARRAY_BEGIN) && json_reader_depth(&r) > skip_at) {
			size_t depth = json_reader_depth(&r);
			if (json_reader_skip(&r) < 0) {
				t = JSON_ERROR;
				break;
			}
			FUZZ_CHECK(json_reader_depth(&r) == depth - 1, "skip left depth %zu, want %zu",
				   json_reader_depth(&r), depth - 1);
		}
	}
	if (t == JSON_ERROR)
		strbuf_addstr(err, json_reader_error(&r));
	json_reader_release(&r);
	source_close(src);
	return t;
}

/* The first value as a tree. */
static void tree(const uint8_t *in, size_t len, unsigned flags, size_t chunk)
{
	struct source *src = source_from_memory("fuzz.json", in, len);
	struct json_reader r;
	struct json_token tok;
	struct arena a = ARENA_INIT;
	const struct jnode *root;
	source_set_max_chunk(src, chunk);
	json_reader_init(&r, src, flags, 16);
	json_reader_next(&r, &tok);
	root = jtree_build(&r, &tok, &a);
	if (root && root->kind == J_OBJECT) {
		for (const struct jnode *m = root->child; m; m = m->next)
			FUZZ_CHECK(m->key != NULL, "object member without a key");
		(void)jtree_get(root, "data");
	}
	arena_release(&a);
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
	struct strbuf want = STRBUF_INIT, got = STRBUF_INIT, err = STRBUF_INIT;
	const uint8_t *in;
	size_t len, chunk, chunk2;
	unsigned flags;
	enum json_type last, t;
	const char *want_err;

	if (size < 1)
		return 0;
	flags = data[0] & 1 ? JSON_MULTI : 0;
	chunk = 1 + (data[0] >> 1) % 13;            /* 1..13 */
	chunk2 = 1 + (size_t)((data[0] >> 1) * 37) % 61; /* 1..61 */
	in = data + 1;
	len = size - 1;

	last = events(in, len, flags, 0, 0, &want);

	t = events(in, len, flags, chunk, 0, &got);
	FUZZ_CHECK(t == last && got.len == want.len && !memcmp(got.buf, want.buf, want.len),
		   "reads of %zu bytes differ from the whole input:\n%s\n--- whole:\n%s", chunk, got.buf, want.buf);

	strbuf_reset(&got);
	t = events(in, len, flags, chunk2, 8, &got);
	FUZZ_CHECK(t == last && got.len == want.len && !memcmp(got.buf, want.buf, want.len),
		   "reads of %zu bytes into an 8-byte buffer differ:\n%s\n--- whole:\n%s", chunk2, got.buf,
		   want.buf);

	/* skipping containers ends as reading them does */
	t = skipping(in, len, flags, chunk2, (data[0] >> 4) & 3, &err);
	FUZZ_CHECK(t == last, "skipping ends with %s, reading with %s", json_type_name(t), json_type_name(last));
	if (t == JSON_ERROR) {
		/* the message is the last line (the events before may hold decoded NULs) */
		want_err = want.buf + want.len;
		FUZZ_CHECK(want.len > err.len + 8 && !memcmp(want_err - err.len - 1, err.buf, err.len) &&
				   !memcmp(want_err - err.len - 9, "\nerror: ", 8) && want_err[-1] == '\n',
			   "skipping fails with \"%s\", reading with \"%s\"", err.buf,
			   want.len > err.len + 8 ? want_err - err.len - 1 : "");
	}

	tree(in, len, flags, chunk);

	strbuf_release(&want);
	strbuf_release(&got);
	strbuf_release(&err);
	return 0;
}
