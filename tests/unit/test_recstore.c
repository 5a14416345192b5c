/* The golden index's record store: every record given back byte for byte, shapes shared, keys found in place. */
#include "tap.h"
#include "../../lib/records/recstore.h"
#include "../../lib/core/xalloc.h"

static const char *const records[] = {
	/* a tensor leaf as probe-flatten writes it: entry starts the name, key repeats it */
	"{\"rank\":0,\"step\":0,\"seq\":0,\"entry\":\"Functional.conv2d.0.forward\","
	"\"name\":\"Functional.conv2d.0.forward.input.0\",\"key\":\"Functional.conv2d.0.forward.input.0\","
	"\"state\":\"input\",\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\",\"shape\":[32,3,224,224],"
	"\"max\":1.0,\"min\":0.0,\"mean\":0.4993983507156372,\"norm\":1267.74462890625,\"requires_grad\":false,"
	"\"task\":\"statistics\",\"dump\":\"big/target/step0/rank0/dump.json\"}",
	/* the same shape, other values */
	"{\"rank\":0,\"step\":0,\"seq\":1,\"entry\":\"Functional.conv2d.0.forward\","
	"\"name\":\"Functional.conv2d.0.forward.input.1\",\"key\":\"Functional.conv2d.0.forward.input.1\","
	"\"state\":\"input\",\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\",\"shape\":[64,3,7,7],"
	"\"max\":0.09685493260622025,\"min\":-0.10161025077104568,\"mean\":7.441285561071709e-05,"
	"\"norm\":2.481113910675049,\"requires_grad\":false,"
	"\"task\":\"statistics\",\"dump\":\"big/target/step0/rank0/dump.json\"}",
	/* a key that is not the name (a mapped key), an entry the name does not start with */
	"{\"rank\":1,\"step\":2,\"seq\":7,\"entry\":\"Tensor.add.3.forward\",\"name\":\"Torch.add.3.forward.output.0\","
	"\"key\":\"Tensor.add.3.forward.output.0\",\"state\":\"output\",\"type\":\"torch.Tensor\","
	"\"dtype\":\"torch.bfloat16\",\"shape\":[],\"max\":\"NaN\",\"min\":\"-Infinity\",\"mean\":null,\"norm\":\"inf\"}",
	/* escapes in the name and the key, members probe does not know, no rank or step */
	"{\"rank\":null,\"step\":null,\"seq\":3,\"entry\":\"Module.a\\\"b.0.forward\","
	"\"name\":\"Module.a\\\"b.0.forward.input.0\",\"key\":\"Module.a\\\"b.0.forward.input.0\","
	"\"extra\":{\"x\":[1,2,{\"y\":\"\\u00e9\"}]},\"type\":\"int\",\"value\":3,\"also\":true}",
	/* members in another order: key first, entry after the name */
	"{\"key\":\"Distributed.all_reduce.0.forward.input.src\",\"rank\":3,\"step\":0,\"seq\":12,"
	"\"name\":\"Distributed.all_reduce.0.forward.input.src\",\"entry\":\"Distributed.all_reduce.0.forward\","
	"\"type\":\"int\",\"value\":1,\"stack\":[\"File a.py, line 3\",\"x = f()\"]}",
	/* a scalar leaf without an entry the name starts with, and whitespace between members */
	"{ \"rank\" : 0 , \"step\" : 0 , \"seq\" : 2 , \"entry\" : \"x\" , \"name\" : \"y.output.0\" ,"
	" \"key\" : \"y.output.0\" , \"type\" : \"float\" , \"value\" : 1e-3 }",
};

struct kept {
	const char *text;
	struct recref ref;
};

static bool keep_one(struct recstore *s, const char *text, struct recref *ref)
{
	struct leafrec r;
	const char *why;
	if (leafrec_parse(&r, text, strlen(text), &why) < 0) {
		diag("not a record (%s): %s", why, text);
		return false;
	}
	recstore_keep(s, text, strlen(text), &r, ref);
	return true;
}

/* The record's text back, and its key where the record has it. */
static bool gives_back(const struct recref *ref, const char *text)
{
	struct strbuf got = STRBUF_INIT;
	struct leafrec r;
	const char *why;
	bool same;
	recstore_text(ref, &got);
	same = got.len == strlen(text) && !memcmp(got.buf, text, got.len);
	if (!same)
		diag("got:  %s\nwant: %s", got.buf, text);
	if (same && leafrec_parse(&r, text, strlen(text), &why) == 0) {
		same = ref->key && ref->key_len == r.f[LF_KEY].n && !memcmp(ref->key, r.f[LF_KEY].p, ref->key_len);
		if (!same)
			diag("key: %.*s, want %.*s", (int)ref->key_len, ref->key ? ref->key : "", (int)r.f[LF_KEY].n,
			     r.f[LF_KEY].p);
	}
	strbuf_release(&got);
	return same;
}

static void test_round_trip(void)
{
	struct recstore s;
	struct kept k[ARRAY_SIZE(records)];
	recstore_init(&s);
	for (size_t i = 0; i < ARRAY_SIZE(records); i++) {
		k[i].text = records[i];
		ok(keep_one(&s, records[i], &k[i].ref), "record %zu kept", i);
	}
	/* read back after all are kept: nothing kept later moved what came before */
	for (size_t i = 0; i < ARRAY_SIZE(records); i++)
		ok(gives_back(&k[i].ref, records[i]), "record %zu given back byte for byte, with its key", i);
	/* the first two differ in their values only */
	ok(k[0].ref.shape == k[1].ref.shape, "two leaves of one kind share their shape");
	ok(k[0].ref.shape != k[2].ref.shape, "a leaf of another dtype and state has its own");
	is_int((long long)s.nshapes, (long long)ARRAY_SIZE(records) - 1, "one shape a kind of record");
	is_int((long long)s.nwhole, 0, "no record kept whole");
	recstore_release(&s);
}

/* What a typical record keeps: its values and a few bytes of lengths, not its member names. */
static void test_size(void)
{
	struct recstore s;
	struct recref ref;
	size_t len = strlen(records[1]), before;
	/* seq, name, shape and the four numbers, as the text has them */
	size_t values = strlen("1") + strlen("\"Functional.conv2d.0.forward.input.1\"") + strlen("[64,3,7,7]") +
			strlen("0.09685493260622025") + strlen("-0.10161025077104568") +
			strlen("7.441285561071709e-05") + strlen("2.481113910675049");
	recstore_init(&s);
	keep_one(&s, records[0], &ref);
	before = s.value_bytes;
	keep_one(&s, records[1], &ref);
	/*
	 * a length for each of those seven (a byte, two for the name: its 37 bytes
	 * times 4 are over 127), the entry's reference and its length, the key's
	 */
	is_int((long long)(s.value_bytes - before), (long long)(values + 8 + 2 + 1),
	       "the second leaf keeps its seven values, their lengths and two references");
	ok(s.value_bytes - before < len / 2, "less than half of its %zu bytes", len);
	recstore_release(&s);
}

/* Values of 128 bytes and more (two-byte lengths), an entry prefix as long. */
static void test_long_values(void)
{
	struct recstore s;
	struct recref ref;
	struct strbuf rec = STRBUF_INIT, entry = STRBUF_INIT;
	for (int i = 0; i < 40; i++)
		strbuf_addstr(&entry, "Module.layer");
	strbuf_addf(&rec, "{\"rank\":0,\"step\":0,\"seq\":99999999999,\"entry\":\"%s\",\"name\":\"%s.input.0\","
		    "\"key\":\"%s.input.0\",\"type\":\"torch.Tensor\",\"dtype\":\"torch.float16\",\"shape\":[",
		    entry.buf, entry.buf, entry.buf);
	for (int i = 0; i < 100; i++)
		strbuf_addf(&rec, "%s%d", i ? "," : "", i * 1000);
	strbuf_addstr(&rec, "],\"max\":1}");
	recstore_init(&s);
	ok(keep_one(&s, rec.buf, &ref) && gives_back(&ref, rec.buf), "values over 127 bytes given back");
	recstore_release(&s);
	strbuf_release(&rec);
	strbuf_release(&entry);
}

/*
 * Records that share no shape (each has a member of its own): shapes are
 * made for the first 1024, then only while one serves 8 records; the rest
 * are kept whole, and still given back.
 */
static void test_unshared_shapes(void)
{
	enum { N = 3000 };
	struct recstore s;
	struct recref *refs = xcalloc(N, sizeof(*refs));
	char **texts = xcalloc(N, sizeof(*texts));
	bool all = true;
	recstore_init(&s);
	for (int i = 0; i < N; i++) {
		struct strbuf t = STRBUF_INIT;
		strbuf_addf(&t, "{\"rank\":0,\"step\":0,\"seq\":%d,\"entry\":\"a\",\"name\":\"a.input.%d\",\"key\":"
			    "\"a.input.%d\",\"member_%d\":1,\"type\":\"int\",\"value\":%d}", i, i, i, i, i);
		texts[i] = strbuf_detach(&t, NULL);
		all &= keep_one(&s, texts[i], &refs[i]);
	}
	for (int i = 0; i < N && all; i++)
		all = gives_back(&refs[i], texts[i]);
	ok(all, "%d records of as many shapes given back", N);
	/* 1024 shapes for 1024 records; then one more each time nshapes * 8 < nkept: never below 8192 records */
	is_int((long long)s.nshapes, 1024, "no shape made once shapes are not shared");
	is_int((long long)s.nwhole, N - 1024, "the others kept whole");
	for (int i = 0; i < N; i++)
		free(texts[i]);
	free(texts);
	free(refs);
	recstore_release(&s);
}

int main(void)
{
	test_round_trip();
	test_size();
	test_long_values();
	test_unshared_shapes();
	return done_testing();
}
