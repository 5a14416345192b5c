/*
 * The like-for-like check (alike.h): the task table, the frameworks, the
 * match-rate guard at its boundary, and the classes of unmatched leaves.
 * The expected values are the rules of probe(7), "Like for like", worked
 * out by hand for each case.
 */
#include "tap.h"
#include "../../lib/compare/alike.h"

/* A leaf record of rank 0, step 0 with the given name and extra members. */
static void leaf(struct strbuf *sb, struct leafrec *r, const char *name, const char *extra)
{
	const char *why;
	const char *entry_end = strstr(name, ".input") ? strstr(name, ".input") : strstr(name, ".output");
	strbuf_reset(sb);
	strbuf_addf(sb, "{\"rank\":0,\"step\":0,\"seq\":0,\"entry\":\"%.*s\",\"name\":\"%s\",\"key\":\"%s\"%s%s}",
		    (int)(entry_end ? entry_end - name : (ptrdiff_t)strlen(name)), name, name, name, *extra ? "," : "",
		    extra);
	if (leafrec_parse(r, sb->buf, sb->len, &why) < 0)
		diag("bad test record %s: %s", sb->buf, why);
}

static const char *const tensor = "\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\",\"shape\":[2],\"max\":1.0";

static void task_table(void)
{
	static const struct {
		const char *task, *md5;
		enum alike_kind kind;
	} kinds[] = {
		{ "statistics", NULL, ALIKE_STATISTICS },
		{ "statistics", "\"aaaaaaaa\"", ALIKE_MD5 },
		{ "statistics", "null", ALIKE_MD5 },
		{ "tensor", NULL, ALIKE_TENSOR },
	};
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, extra = STRBUF_INIT;
	struct leafrec t, g;
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		strbuf_reset(&extra);
		strbuf_addf(&extra, "%s,\"task\":\"%s\"", tensor, kinds[i].task);
		if (kinds[i].md5)
			strbuf_addf(&extra, ",\"md5\":%s", kinds[i].md5);
		leaf(&a, &t, "Functional.relu.0.forward.input.0", extra.buf);
		ok(alike_kind_of(&t) == kinds[i].kind, "a %s leaf%s%s is of kind %s", kinds[i].task,
		   kinds[i].md5 ? " with md5 " : "", kinds[i].md5 ? kinds[i].md5 : "", alike_kind_name(kinds[i].kind));
	}
	leaf(&a, &t, "Functional.relu.0.forward.input.0", "\"type\":\"int\",\"value\":3,\"task\":\"tensor\"");
	ok(alike_kind_of(&t) == ALIKE_NONE, "a scalar of a tensor dump is no tensor");

	/* the table: md5 only where both carry it, the elements only where both are tensor dumps */
	leaf(&a, &t, "Functional.relu.0.forward.input.0", "\"md5\":\"aaaaaaaa\",\"task\":\"statistics\"");
	leaf(&b, &g, "Functional.relu.0.forward.input.0", "\"task\":\"tensor\"");
	ok(!alike_compares_md5(&t, &g) && !alike_compares_elements(&t, &g), "md5 against tensor: neither CRC nor elements");
	ok(!alike_compares_md5(&g, &t) && !alike_compares_elements(&g, &t), "tensor against md5: the same, either way round");
	leaf(&b, &g, "Functional.relu.0.forward.input.0", "\"md5\":\"bbbbbbbb\",\"task\":\"statistics\"");
	ok(alike_compares_md5(&t, &g) && !alike_compares_elements(&t, &g), "md5 against md5: the CRC");
	leaf(&a, &t, "Functional.relu.0.forward.input.0", "\"task\":\"tensor\"");
	leaf(&b, &g, "Functional.relu.0.forward.input.0", "\"task\":\"tensor\"");
	ok(!alike_compares_md5(&t, &g) && alike_compares_elements(&t, &g), "tensor against tensor: the elements");
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&extra);
}

static void frameworks(void)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, err = STRBUF_INIT;
	struct leafrec t, g;
	struct alike *al = alike_new(&(struct alike_options){ 0 });
	leaf(&a, &t, "Tensor.add.0.forward.input.0", "\"type\":\"mindspore.Tensor\",\"dtype\":\"Float32\"");
	leaf(&b, &g, "Tensor.add.0.forward.input.0", "\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\"");
	ok(alike_frameworks_differ(&t, &g) && alike_target(al, &t, true, &g, false, &err) == 0,
	   "MindSpore against PyTorch statistics: compared (%s)", err.buf);
	leaf(&a, &t, "Tensor.add.0.forward.input.0",
	     "\"type\":\"mindspore.Tensor\",\"dtype\":\"Float32\",\"task\":\"tensor\"");
	leaf(&b, &g, "Tensor.add.0.forward.input.0",
	     "\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\",\"task\":\"tensor\"");
	ok(alike_target(al, &t, true, &g, false, &err) == 0,
	   "MindSpore against PyTorch tensor dumps: compared, element by element (%s)", err.buf);
	leaf(&a, &t, "Tensor.add.0.forward.input.0",
	     "\"type\":\"mindspore.Tensor\",\"dtype\":\"Float32\",\"md5\":\"aaaaaaaa\",\"task\":\"statistics\"");
	leaf(&b, &g, "Tensor.add.0.forward.input.0",
	     "\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\",\"md5\":\"aaaaaaaa\",\"task\":\"statistics\"");
	ok(alike_target(al, &t, true, &g, false, &err) < 0 && strstr(err.buf, "MindSpore's and its golden partner PyTorch's"),
	   "MindSpore against PyTorch md5 dumps are refused, naming both");
	alike_free(al);
	strbuf_reset(&err);
	al = alike_new(&(struct alike_options){ .any_framework = true });
	ok(alike_target(al, &t, true, &g, false, &err) == 0, "... but not where no verdict of ours is given");
	leaf(&a, &t, "Tensor.add.0.forward.input.0", "\"type\":\"mindspore.Tensor\",\"dtype\":\"Float32\"");
	leaf(&b, &g, "Tensor.add.0.forward.input.0", "\"type\":\"int\",\"value\":1");
	alike_free(al);
	al = alike_new(&(struct alike_options){ 0 });
	ok(alike_target(al, &t, true, &g, false, &err) == 0, "a leaf of no known framework is not refused");
	alike_free(al);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&err);
}

/* A group of `targets` target leaves of which `matched` match, and `npu` NPU-only ones unmatched. */
static int guard(unsigned targets, unsigned matched, unsigned npu, const struct alike_options *o, struct strbuf *err)
{
	struct strbuf a = STRBUF_INIT, name = STRBUF_INIT;
	struct leafrec t;
	struct alike *al = alike_new(o);
	int ret;
	for (unsigned i = 0; i < targets + npu; i++) {
		strbuf_reset(&name);
		strbuf_addf(&name, "%s.op%u.0.forward.input.0", i >= targets ? "NPU" : "Functional", i);
		leaf(&a, &t, name.buf, tensor);
		alike_target(al, &t, i < matched, NULL, false, err);
	}
	strbuf_reset(err);
	ret = alike_finish(al, err);
	alike_free(al);
	strbuf_release(&a);
	strbuf_release(&name);
	return ret;
}

static void match_rate(void)
{
	struct strbuf err = STRBUF_INIT;
	const struct alike_options none = { 0 }, partial = { .partial = true };
	ok(guard(10, 5, 0, &none, &err) == 0, "5 of 10 matched: half, accepted");
	ok(guard(10, 4, 0, &none, &err) < 0 && strstr(err.buf, "only 4 of 10 target leaves (40 %)"),
	   "4 of 10 matched: refused, with the numbers");
	ok(guard(10, 4, 0, &partial, &err) == 0, "4 of 10 matched, with --partial: accepted");
	ok(guard(10, 5, 90, &none, &err) == 0, "NPU-only APIs left out of the count: 5 of 10");
	ok(guard(3, 0, 0, &partial, &err) == 0, "none matched, with --partial: the guard accepts (the tools refuse)");
	ok(guard(1, 0, 0, &none, &err) < 0, "one leaf, unmatched: refused");
	strbuf_release(&err);
}

/* Unmatched and golden-only leaves that differ only by the call index are explained as such. */
static void classes(void)
{
	struct strbuf a = STRBUF_INIT, out = STRBUF_INIT, err = STRBUF_INIT;
	struct leafrec r;
	struct alike *al = alike_new(&(struct alike_options){ 0 });
	leaf(&a, &r, "Functional.linear.0.forward.input.0", tensor);
	alike_target(al, &r, true, NULL, false, &err);
	leaf(&a, &r, "Module.fc1.Linear.parameters_grad.1.weight", tensor);
	alike_target(al, &r, false, NULL, false, &err);
	leaf(&a, &r, "Module.fc1.Linear.parameters_grad.0.weight", tensor);
	alike_golden_only(al, &r, false);
	ok(alike_finish(al, &err) == 0, "1 of 2 matched: accepted");
	alike_explain(al, LEAF_EXEC_NONE, 0, "", &out);
	ok(strstr(out.buf, "1 whose name differs from one on the other side only by the call index") != NULL &&
	   strstr(out.buf, "all parameters_grad") != NULL,
	   "a parameters_grad renumbered: explained, --fuzzy named");
	if (!strstr(out.buf, "call index"))
		diag("%s", out.buf);
	alike_free(al);
	strbuf_release(&a);
	strbuf_release(&out);
	strbuf_release(&err);
}

int main(void)
{
	task_table();
	frameworks();
	match_rate();
	classes();
	return done_testing();
}
