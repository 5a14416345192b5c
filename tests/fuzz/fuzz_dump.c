/*
 * A whole dump.json flattened into leaf records (lib/dumps/dump.c, lib/dumps/flatten.c,
 * lib/dumps/record.c).
 *
 * The input is the dump (or a gzip of it).  It is flattened once with
 * flatten_dump() as probe-flatten does, and once more through dump_read()
 * fed in reads of a size drawn from the input's hash, into a small JSON
 * buffer: both must give the same records, the same return value and the
 * same message.  Every record must be valid JSON (the tokenizer reads it)
 * and a leaf record whose spans leafrec_parse() finds where
 * record_add_leaf() says it wrote them.
 */
#include "fuzz.h"
#include "../../lib/dumps/dump.h"
#include "../../lib/dumps/flatten.h"
#include "../../lib/json/json.h"
#include "../../lib/records/leafrec.h"
#include "../../lib/dumps/record.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

static void check_record(const char *text, size_t len, const struct leafrec *rec)
{
	struct leafrec back;
	const char *why = NULL;
	struct source *src;
	struct json_reader r;
	struct json_token tok;
	enum json_type t;

	FUZZ_CHECK(len >= 2 && text[len - 1] == '\n', "a record without its newline");
	FUZZ_CHECK(!memchr(text, '\n', len - 1), "a newline inside a record: %.*s", (int)len, text);

	src = source_from_memory("record", text, len);
	json_reader_init(&r, src, 0, 0);
	while ((t = json_reader_next(&r, &tok)) != JSON_EOF && t != JSON_ERROR)
		;
	FUZZ_CHECK(t == JSON_EOF, "a record that is not JSON (%s): %.*s", json_reader_error(&r), (int)len, text);
	json_reader_release(&r);
	source_close(src);

	FUZZ_CHECK(!leafrec_parse(&back, text, len - 1, &why), "a record that is not a leaf record (%s): %.*s",
		   why, (int)len, text);
	for (int f = 0; f < LF_NFIELDS; f++) {
		const struct span *a = &rec->f[f], *b = &back.f[f];
		if (a->kind == SPAN_NONE)
			continue;
		FUZZ_CHECK(a->p - rec->text == b->p - back.text && a->n == b->n && a->kind == b->kind,
			   "field %s: written at %td+%zu, read back at %td+%zu: %.*s", leaf_field_names[f],
			   a->p - rec->text, a->n, b->p - back.text, b->n, (int)len, text);
	}
}

static int collect(const char *record, size_t len, const struct leafrec *rec, void *ctx)
{
	check_record(record, len, rec);
	strbuf_add(ctx, record, len);
	return 0;
}

/* What flatten_dump() does, through dump_read() with a chunk and buffer size. */
struct split {
	struct record_source src;
	bool prepared;
	struct strbuf text, *out;
};

static int split_leaf(const struct dump_reader *d, const struct leaf *leaf, void *ctx)
{
	struct split *s = ctx;
	if (!s->prepared) {
		s->src.task = d->meta.task;
		s->src.tensor_dir = record_tensor_dir(d->path, d->meta.dump_data_dir);
		record_source_prepare(&s->src);
		s->prepared = true;
	}
	strbuf_reset(&s->text);
	record_add_leaf(&s->text, &s->src, leaf, NULL);
	strbuf_addbuf(s->out, &s->text);
	return 0;
}

static int flatten_split(const char *path, bool debug, size_t chunk, size_t cap, struct strbuf *out,
			 struct strbuf *err)
{
	struct dump_reader d;
	struct split s = { .text = STRBUF_INIT, .out = out };
	int ret;
	dump_reader_init(&d, path);
	d.debug_file = debug;
	d.max_chunk = chunk;
	d.buffer_size = cap;
	s.src.rank = -1;
	s.src.step = -1;
	s.src.dump = path;
	ret = dump_read(&d, split_leaf, &s);
	if (ret < 0)
		strbuf_addbuf(err, &d.err);
	free((char *)s.src.tensor_dir);
	record_source_release(&s.src);
	strbuf_release(&s.text);
	dump_reader_release(&d);
	return ret;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_file file;
	struct dump_file df = { 0 };
	struct strbuf want = STRBUF_INIT, want_err = STRBUF_INIT, got = STRBUF_INIT, got_err = STRBUF_INIT;
	uint64_t h = XXH3_64bits(data, size);
	size_t chunk = 1 + h % 97;
	size_t cap = (size_t)8 << ((h >> 8) % 7); /* 8 .. 512 */
	bool debug = (h >> 16) & 1;
	int ret, ret2;

	fuzz_file_open(&file, data, size);
	df.path = file.path;
	df.rank = -1;
	df.step = -1;
	df.debug = debug;
	ret = flatten_dump(&df, -1, -1, collect, &want, &want_err);
	FUZZ_CHECK(ret == 0 || ret == -1, "flatten_dump returned %d", ret);
	FUZZ_CHECK(ret == 0 || want_err.len, "a failure without a message");
	FUZZ_CHECK(ret < 0 || want.len, "success without a record");

	ret2 = flatten_split(file.path, debug, chunk, cap, &got, &got_err);
	FUZZ_CHECK(ret2 == ret && got.len == want.len && !memcmp(got.buf, want.buf, want.len) &&
		   got_err.len == want_err.len && !memcmp(got_err.buf, want_err.buf, want_err.len),
		   "reads of %zu bytes into a %zu-byte buffer differ: %d %s\n%s--- whole: %d %s\n%s", chunk, cap,
		   ret2, got_err.buf, got.buf, ret, want_err.buf, want.buf);

	fuzz_file_close(&file);
	strbuf_release(&want);
	strbuf_release(&want_err);
	strbuf_release(&got);
	strbuf_release(&got_err);
	return 0;
}
