/*
 * The dump walker: msprobe's row names, order, states and compare keys for
 * every leaf kind, the errors of non-dumps, and the same leaves at every
 * buffer split.
 */
#include "tap.h"
#include "../../lib/dumps/dump.h"
#include "../../lib/core/msg.h"
#include "../../lib/dumps/record.h"

#include <unistd.h>

static char path[64];

static void write_file(const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static int describe(const struct dump_reader *d, const struct leaf *leaf, void *ctx)
{
	struct strbuf *out = ctx;
	const struct jnode *type = leaf->obj ? jtree_get(leaf->obj, "type") : NULL;
	strbuf_addf(out, "%llu %s %s %s %s%s%s%s\n", (unsigned long long)leaf->seq, leaf->name, leaf->key,
		    dump_leaf_state_name(leaf->state), type ? type->text : "-", leaf->p2p ? " p2p" : "",
		    leaf->data_name ? " file=" : "", leaf->data_name ? leaf->data_name : "");
	(void)d;
	return 0;
}

/* Leaves as text (or "error: ..."), read `chunk` bytes at a time. */
static void leaves(const char *json, size_t chunk, size_t cap, struct strbuf *out)
{
	struct dump_reader d;
	write_file(json);
	dump_reader_init(&d, path);
	d.max_chunk = chunk;
	d.buffer_size = cap;
	strbuf_reset(out);
	if (dump_read(&d, describe, out) < 0)
		strbuf_addf(out, "error: %s\n", d.err.buf + strlen(path) + 1);
	dump_reader_release(&d);
}

static void expect(const char *json, const char *want, const char *what)
{
	struct strbuf got = STRBUF_INIT, split = STRBUF_INIT;
	bool same = true;
	leaves(json, 0, 0, &got);
	is_str(got.buf, want, what);
	for (size_t k = 1; k <= strlen(json) && same; k += (k < 64 ? 1 : 37)) {
		leaves(json, k, 16, &split);
		if (strcmp(split.buf, got.buf)) {
			same = false;
			diag("read %zu bytes at a time:\n%s", k, split.buf);
		}
	}
	ok(same, "every split: %s", what);
	strbuf_release(&got);
	strbuf_release(&split);
}

#define T(max) "{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\",\"shape\":[2],\"Max\":" max \
	       ",\"Min\":0,\"Mean\":0,\"Norm\":0,\"requires_grad\":false}"
#define HEAD "{\"task\":\"statistics\",\"level\":\"mix\",\"framework\":\"pytorch\",\"dump_data_dir\":null,\"data\":"

static void test_naming(void)
{
	expect(HEAD "{\"Torch.add.0.forward\":{\"output\":[" T("3") "],\"input_args\":[" T("1")
	       ",{\"type\":\"int\",\"value\":1}],\"input_kwargs\":{\"alpha\":{\"type\":\"float\",\"value\":0.5}},"
	       "\"is_recompute\":false}}}",
	       "0 Torch.add.0.forward.input.0 Torch.add.0.forward.input.0 input torch.Tensor\n"
	       "1 Torch.add.0.forward.input.1 Torch.add.0.forward.input.1 input int\n"
	       "2 Torch.add.0.forward.input.alpha Torch.add.0.forward.input.alpha input float\n"
	       "3 Torch.add.0.forward.output.0 Torch.add.0.forward.output.0 output torch.Tensor\n",
	       "inputs first whatever the key order; kwargs named .input.<key>; other keys ignored");

	expect(HEAD "{\"Module.fc1.Linear.forward.0\":{\"input_args\":[" T("1") "],\"input_kwargs\":{},"
	       "\"output\":[" T("2") "],\"parameters\":{\"weight\":" T("3") ",\"bias\":" T("4") "}}}}",
	       "0 Module.fc1.Linear.forward.0.input.0 Module.fc1.Linear.forward.0.input.0 input torch.Tensor\n"
	       "1 Module.fc1.Linear.forward.0.parameters.weight Module.fc1.Linear.forward.0.parameters.weight parameters torch.Tensor\n"
	       "2 Module.fc1.Linear.forward.0.parameters.bias Module.fc1.Linear.forward.0.parameters.bias parameters torch.Tensor\n"
	       "3 Module.fc1.Linear.forward.0.output.0 Module.fc1.Linear.forward.0.output.0 output torch.Tensor\n",
	       "parameters before outputs");

	expect(HEAD "{\"Torch.sum.0.forward\":{\"input_args\":[[" T("1") ",[" T("2") "]],null,[],{}],"
	       "\"input_kwargs\":{\"nest\":{\"a\":[" T("3") "],\"b\":{}}},\"output\":[{\"x\":[null]}]}}}",
	       "0 Torch.sum.0.forward.input.0.0 Torch.sum.0.forward.input.0.0 input torch.Tensor\n"
	       "1 Torch.sum.0.forward.input.0.1.0 Torch.sum.0.forward.input.0.1.0 input torch.Tensor\n"
	       "2 Torch.sum.0.forward.input.1 Torch.sum.0.forward.input.1 input -\n"
	       "3 Torch.sum.0.forward.input.nest.a.0 Torch.sum.0.forward.input.nest.a.0 input torch.Tensor\n"
	       "4 Torch.sum.0.forward.output.0.x.0 Torch.sum.0.forward.output.0.x.0 output -\n",
	       "nested lists and dicts; null slots are rows; empty containers are not");

	expect(HEAD "{\"Functional.linear.0.forward\":{\"input_args\":[" T("1") "],\"output\":[" T("1") "]},"
	       "\"Functional.linear.5.forward\":{\"input_args\":[" T("1") "],\"output\":[" T("1") "]},"
	       "\"Functional.linear.5.backward\":{\"input\":[" T("1") "],\"output\":[" T("1") ",null]},"
	       "\"Module.fc1.Linear.parameters_grad.0\":{\"bias\":[" T("1") "],\"weight\":[" T("2") "]},"
	       "\"Functional.linear.0.backward\":{\"input\":[" T("1") "],\"output\":[" T("1") "]}}}",
	       "0 Functional.linear.0.forward.input.0 Functional.linear.0.forward.input.0 input torch.Tensor\n"
	       "1 Functional.linear.0.forward.output.0 Functional.linear.0.forward.output.0 output torch.Tensor\n"
	       "2 Functional.linear.5.forward.input.0 Functional.linear.5.forward.input.0 input torch.Tensor\n"
	       "3 Functional.linear.5.forward.output.0 Functional.linear.5.forward.output.0 output torch.Tensor\n"
	       "4 Functional.linear.5.backward.input.0 Functional.linear.0.backward.input.0 input torch.Tensor\n"
	       "5 Functional.linear.5.backward.output.0 Functional.linear.0.backward.output.0 output torch.Tensor\n"
	       "6 Functional.linear.5.backward.output.1 Functional.linear.0.backward.output.1 output -\n"
	       "7 Module.fc1.Linear.parameters_grad.0.bias Module.fc1.Linear.parameters_grad.0.bias parameters_grad torch.Tensor\n"
	       "8 Module.fc1.Linear.parameters_grad.0.weight Module.fc1.Linear.parameters_grad.0.weight parameters_grad torch.Tensor\n"
	       "9 Functional.linear.0.backward.input.0 Functional.linear.1.backward.input.0 input torch.Tensor\n"
	       "10 Functional.linear.0.backward.output.0 Functional.linear.1.backward.output.0 output torch.Tensor\n",
	       "backward keys renumbered by occurrence; parameters_grad rows named without list indices");

	expect(HEAD "{\"Functional.linear.0.forward\":{\"input_args\":[{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\","
	       "\"shape\":[],\"data_name\":\"Functional.linear.0.forward.input.0.pt\"}],\"input_kwargs\":{\"bias\":"
	       "{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\",\"shape\":[],\"data_name\":"
	       "\"Functional.linear.0.forward.kwargs.bias.pt\"},\"w\":{\"type\":\"torch.Tensor\",\"data_name\":\"\"}}}}}",
	       "0 Functional.linear.0.forward.input.0 Functional.linear.0.forward.input.0 input torch.Tensor file=Functional.linear.0.forward.input.0.pt\n"
	       "1 Functional.linear.0.forward.kwargs.bias Functional.linear.0.forward.kwargs.bias input torch.Tensor file=Functional.linear.0.forward.kwargs.bias.pt\n"
	       "2 Functional.linear.0.forward.input.w Functional.linear.0.forward.input.w input torch.Tensor\n",
	       "saved tensors are named after their file (data_name minus its extension)");

	expect(HEAD "{\"Distributed.batch_isend_irecv.0.forward\":{\"input_args\":[[{\"class_type\":"
	       "\"torch.distributed.P2POp\",\"op\":\"isend\",\"tensor\":" T("1") ",\"peer\":1,\"tag\":0},"
	       "{\"class_type\":\"torch.distributed.P2POp\",\"op\":\"irecv\",\"peer\":1}]],"
	       "\"input_kwargs\":{\"group\":{\"type\":\"torch.ProcessGroup\",\"group_ranks\":[0,1],\"group_id\":\"x\"},"
	       "\"s\":{\"type\":\"slice\",\"value\":[0,2,null]},\"e\":{\"type\":\"ellipsis\",\"value\":\"...\"},"
	       "\"sz\":{\"type\":\"torch.Size\",\"value\":[2,3]},\"d\":{\"type\":\"torch.dtype\",\"value\":\"torch.float32\"},"
	       "\"dst\":{\"type\":\"int\",\"value\":1}},\"output\":[]}}}",
	       "0 Distributed.batch_isend_irecv.0.forward.input.0.0 Distributed.batch_isend_irecv.0.forward.input.0.0 input torch.Tensor p2p\n"
	       "1 Distributed.batch_isend_irecv.0.forward.input.0.1 Distributed.batch_isend_irecv.0.forward.input.0.1 input - p2p\n"
	       "2 Distributed.batch_isend_irecv.0.forward.input.group Distributed.batch_isend_irecv.0.forward.input.group input torch.ProcessGroup\n"
	       "3 Distributed.batch_isend_irecv.0.forward.input.s Distributed.batch_isend_irecv.0.forward.input.s input slice\n"
	       "4 Distributed.batch_isend_irecv.0.forward.input.e Distributed.batch_isend_irecv.0.forward.input.e input ellipsis\n"
	       "5 Distributed.batch_isend_irecv.0.forward.input.sz Distributed.batch_isend_irecv.0.forward.input.sz input torch.Size\n"
	       "6 Distributed.batch_isend_irecv.0.forward.input.d Distributed.batch_isend_irecv.0.forward.input.d input torch.dtype\n"
	       "7 Distributed.batch_isend_irecv.0.forward.input.dst Distributed.batch_isend_irecv.0.forward.input.dst input int\n",
	       "P2POp (with and without a tensor), ProcessGroup, slice, ellipsis, Size, dtype, dst");

	expect(HEAD "{\"x_grad.0.debug\":{\"a\":" T("1") ",\"b\":[" T("2") "]},\"y.1.debug\":" T("3") "}}",
	       "0 x_grad.0.debug.a x_grad.0.debug.a debug torch.Tensor\n"
	       "1 x_grad.0.debug.b.0 x_grad.0.debug.b.0 debug torch.Tensor\n"
	       "2 y.1.debug y.1.debug debug torch.Tensor\n",
	       "single-point save entries (.debug) are one container each");
}

static void test_errors(void)
{
	expect("[1,2]", "error: 1:1: not a dump: the top-level value is an array, expected an object\n",
	       "an array is not a dump");
	expect("{\"task\":\"statistics\"}", "error: 1:1: not a dump: no \"data\" object\n", "no data");
	expect(HEAD "[]}", "error: 1:79: not a dump: \"data\" is an array, expected an object\n", "data is a list");
	expect(HEAD "{}}", "error: 1:79: \"data\" has no entries: nothing to compare\n", "empty data");
	expect(HEAD "{\"a.0.forward\":{\"input_args\":[],\"output\":[]}}}",
	       "error: 1:79: \"data\" has 1 entry but no leaves: nothing to compare\n", "entries without leaves");
	expect(HEAD "{\"\":{\"output\":[" T("1") "]}}}",
	       "error: 1:87: an entry name is empty: its rows cannot be named\n", "an empty entry name");
	expect(HEAD "{\"a\\u0000b.0.forward\":{\"output\":[" T("1") "]}}}",
	       "error: 1:87: an entry name contains a NUL character: its rows cannot be named\n",
	       "an entry name with a NUL");
	expect(HEAD "{\"a.0.forward\":[1]}}",
	       "error: 1:87: entry \"a.0.forward\" is an array, expected an object\n", "entry is not an object");
	expect(HEAD "{\"Torch.a.0.forward\":{\"output\":[" T("1") "]}",
	       "0 Torch.a.0.forward.output.0 Torch.a.0.forward.output.0 output torch.Tensor\n"
	       "error: 1:235: unexpected end of input inside an object\n",
	       "truncated after the last entry: the leaves before it, then the error");
	expect(HEAD "{\"Torch.a.0.forward\":{\"output\":[" T("1") ",{\"type\":\"int\",\"value\":1,\"value\":2}]}}}",
	       "error: 1:258: duplicate key \"value\" in object\n", "duplicate key inside a leaf");
	expect("{\"data\":{\"Torch.a.0.forward\":{\"output\":[" T("1") "]}}}",
	       "error: 1:1: not a dump: no \"task\" (statistics, tensor, ...)\n", "no task");
	expect("{\"task\":1,\"data\":{}}", "error: 1:2: not a dump: \"task\" is a number, expected a string\n",
	       "task is not a string");
	expect(HEAD "{\"Torch.a.0.forward\":{\"output\":[{\"type\":\"torch.Tensor\",\"data_name\":5}]}}}",
	       "error: 1:141: \"data_name\" of Torch.a.0.forward.output.0 is a number, expected a string\n",
	       "data_name that is not a string");
	expect("{\"task\":\"statistics\",\"task\":\"tensor\",\"data\":{}}",
	       "error: 1:22: duplicate key \"task\" in the dump header\n", "duplicate task");
}

static void test_header_after_data(void)
{
	expect("{\"data\":{\"Torch.a.0.forward\":{\"output\":[" T("1") "]}},\"task\":\"tensor\",\"level\":\"L1\"}",
	       "0 Torch.a.0.forward.output.0 Torch.a.0.forward.output.0 output torch.Tensor\n",
	       "a dump whose header follows its data (a second pass reads the header)");
}

static int count_leaves(const struct dump_reader *d, const struct leaf *leaf, void *ctx)
{
	(void)d;
	(void)leaf;
	++*(int *)ctx;
	return 0;
}

static void test_oddities(void)
{
	struct dump_reader d;
	int n = 0;
	write_file(HEAD "{\"Torch.a.0.forward\":{\"output\":[1, \"x\", " T("1") "]},\"weird_entry\":{\"output\":[" T("2")
		   "]}}}");
	dump_reader_init(&d, path);
	msg_set_quiet(true);
	ok(dump_read(&d, count_leaves, &n) == 0 && n == 2, "bare values are not leaves; entries msprobe drops are read");
	is_int((long long)d.bare_values, 2, "bare values counted for the warning");
	is_int((long long)d.skipped_entries, 1, "entries without a direction counted for the warning");
	is_str(d.meta.task, "statistics", "task read");
	is_str(d.meta.level, "mix", "level read");
	ok(d.meta.dump_data_dir == NULL, "null dump_data_dir");
	msg_set_quiet(false);
	dump_reader_release(&d);
}

/* Leaves of a dump read with an entry limit of `limit` bytes, or "error: ..." after them. */
static int limited(const char *json, size_t limit, struct strbuf *err)
{
	struct dump_reader d;
	int n = 0;
	write_file(json);
	dump_reader_init(&d, path);
	d.max_entry_bytes = limit;
	strbuf_reset(err);
	if (dump_read(&d, count_leaves, &n) < 0)
		strbuf_addstr(err, d.err.buf + strlen(path) + 1);
	dump_reader_release(&d);
	return n;
}

/* An entry "NAME" of n scalar leaves in its output list. */
static void scalar_entry(struct strbuf *sb, const char *name, int n)
{
	strbuf_addf(sb, "\"%s\":{\"output\":[", name);
	for (int i = 0; i < n; i++)
		strbuf_addf(sb, "%s{\"type\":\"int\",\"value\":%d}", i ? "," : "", i % 10);
	strbuf_addstr(sb, "]}");
}

static void test_entry_limit(void)
{
	struct strbuf json = STRBUF_INIT, err = STRBUF_INIT;
	int n;

	/* 1000 scalar leaves take about 360 KB: under 1 MiB, and over 64 KiB */
	strbuf_addstr(&json, HEAD "{");
	scalar_entry(&json, "Torch.a.0.forward", 1000);
	strbuf_addstr(&json, ",");
	scalar_entry(&json, "Torch.b.0.forward", 1000);
	strbuf_addstr(&json, "}}");
	n = limited(json.buf, (size_t)1 << 20, &err);
	ok(n == 2000 && !err.len, "two entries each under the limit, together over it: read (memory is per entry): %d %s",
	   n, err.buf);
	n = limited(json.buf, (size_t)64 << 10, &err);
	ok(n == 0 && strstr(err.buf, "1:87: entry \"Torch.a.0.forward\" is too large: it takes more than 64 KiB") &&
		   strstr(err.buf, "one entry may take at most 64 KiB"),
	   "an entry over the limit: an error at its name, with the limit: %s", err.buf);

	/* the tree fits, its rows do not: the rows count too (3002 values: the entry, its output, the leaves) */
	n = limited(json.buf, (size_t)300 << 10, &err);
	ok(n == 0 && strstr(err.buf, "is too large") && strstr(err.buf, "(3002 values read)"),
	   "the whole tree read, its rows over the limit: %s", err.buf);

	/* the leaves of the entries before a too large one come out first */
	strbuf_reset(&json);
	strbuf_addstr(&json, HEAD "{");
	scalar_entry(&json, "Torch.a.0.forward", 10);
	strbuf_addstr(&json, ",");
	scalar_entry(&json, "Torch.b.0.forward", 100000);
	strbuf_addstr(&json, "}}");
	n = limited(json.buf, (size_t)1 << 20, &err);
	ok(n == 10 && strstr(err.buf, "entry \"Torch.b.0.forward\" is too large: it takes more than 1 MiB"),
	   "an entry of 100000 leaves under a limit of 1 MiB: the 10 leaves before it, then the error: %d %s", n,
	   err.buf);
	ok(strstr(err.buf, "values read)") && !strstr(err.buf, "(300001 values read)"),
	   "... which stops the reading before the entry's end: %s", err.buf);

	/* the default */
	n = limited(json.buf, 0, &err);
	ok(n == 100010 && !err.len, "the default limit (%zu MiB) holds it", DUMP_MAX_ENTRY_BYTES >> 20);
	strbuf_release(&json);
	strbuf_release(&err);
}

int main(void)
{
	snprintf(path, sizeof(path), "/tmp/probe-test-dump-%d.json", (int)getpid());
	msg_set_quiet(true); /* warnings are counted, and checked in test_oddities() */
	test_naming();
	test_errors();
	test_header_after_data();
	test_oddities();
	test_entry_limit();
	unlink(path);
	return done_testing();
}
