/* Entry-name decomposition and compare keys (msprobe-compare.md sections 1.6 and 3.1). */
#include "tap.h"
#include "../../lib/msprobe/naming.h"

static void check_parse(const char *name, enum entry_dir dir, enum entry_layout layout, const char *base)
{
	struct entry_name en;
	naming_parse_entry(name, strlen(name), &en);
	ok(en.dir == dir && en.layout == layout && en.base_len == strlen(base) &&
	   !strncmp(name, base, en.base_len),
	   "%s: direction %d, layout %d, base \"%s\"", name, dir, layout, base);
}

/* Keys of a sequence of entries of one dump, each with one row named entry+suffix. */
static void check_keys(const char *const *entries, const char *suffix, const char *const *want, bool renumber,
		       const char *what)
{
	struct backward_counter bc = BACKWARD_COUNTER_INIT;
	struct strbuf key = STRBUF_INIT, row = STRBUF_INIT;
	bool all = true;
	for (size_t i = 0; entries[i]; i++) {
		struct entry_name en;
		uint64_t order;
		naming_parse_entry(entries[i], strlen(entries[i]), &en);
		order = naming_backward_next(&bc, entries[i], &en);
		strbuf_reset(&row);
		strbuf_addstr(&row, entries[i]);
		strbuf_addstr(&row, suffix);
		naming_compare_key(&key, entries[i], &en, row.buf, order, renumber);
		if (strcmp(key.buf, want[i])) {
			diag("%s: key of %s is %s, want %s", what, row.buf, key.buf, want[i]);
			all = false;
		}
	}
	ok(all, "%s", what);
	naming_backward_release(&bc);
	strbuf_release(&key);
	strbuf_release(&row);
}

int main(void)
{
	check_parse("Functional.conv2d.0.forward", DIR_FORWARD, LAYOUT_IO, "Functional.conv2d");
	check_parse("Functional.linear.3.backward", DIR_BACKWARD, LAYOUT_IO, "Functional.linear");
	check_parse("Tensor.__getitem__.3.forward", DIR_FORWARD, LAYOUT_IO, "Tensor.__getitem__");
	check_parse("Aten.add.Tensor.0.forward", DIR_FORWARD, LAYOUT_IO, "Aten.add.Tensor");
	check_parse("Module.layer1.0.conv1.Conv2d.forward.0", DIR_FORWARD, LAYOUT_IO, "Module.layer1.0.conv1.Conv2d");
	check_parse("Module.fc1.Linear.backward.4", DIR_BACKWARD, LAYOUT_IO, "Module.fc1.Linear");
	/* msprobe drops only the last part for parameter grads */
	check_parse("Module.fc1.Linear.parameters_grad.0", DIR_PARAMS_GRAD, LAYOUT_PARAMS_GRAD,
		    "Module.fc1.Linear.parameters_grad");
	check_parse("Module.fc1.Linear.parameters_grad", DIR_PARAMS_GRAD, LAYOUT_PARAMS_GRAD, "Module.fc1.Linear");
	check_parse("x_grad.0.debug", DIR_NONE, LAYOUT_DEBUG, "");
	check_parse("Functional.linear.0", DIR_NONE, LAYOUT_IO, "");
	check_parse("a.backward", DIR_BACKWARD, LAYOUT_IO, "");
	check_parse("backward", DIR_BACKWARD, LAYOUT_IO, "");
	check_parse("", DIR_NONE, LAYOUT_IO, "");

	static const char *const seq[] = {
		"Functional.linear.0.forward",  "Functional.linear.1.forward", "Functional.linear.3.backward",
		"Functional.linear.1.backward", "Module.fc1.Linear.backward.4", "Module.fc1.Linear.backward.7",
		"Module.fc1.Linear.parameters_grad.1", "Functional.relu.5.backward", NULL,
	};
	static const char *const keys[] = {
		"Functional.linear.0.forward.input.0", "Functional.linear.1.forward.input.0",
		"Functional.linear.0.backward.input.0", "Functional.linear.1.backward.input.0",
		"Module.fc1.Linear.backward.0.input.0", "Module.fc1.Linear.backward.1.input.0",
		"Module.fc1.Linear.parameters_grad.1.input.0", "Functional.relu.0.backward.input.0",
	};
	check_keys(seq, ".input.0", keys, true,
		   "backward entries renumbered by occurrence per base; forward and parameters_grad kept");
	static const char *const raw[] = {
		"Functional.linear.0.forward.input.0", "Functional.linear.1.forward.input.0",
		"Functional.linear.3.backward.input.0", "Functional.linear.1.backward.input.0",
		"Module.fc1.Linear.backward.4.input.0", "Module.fc1.Linear.backward.7.input.0",
		"Module.fc1.Linear.parameters_grad.1.input.0", "Functional.relu.5.backward.input.0",
	};
	check_keys(seq, ".input.0", raw, false, "no renumbering in debug.json dumps");

	static const char *const odd[] = { "Tensor.x.backward.foo", "a.backward", "Tensor.x.2.backward", NULL };
	static const char *const oddk[] = { "Tensor.x.backward.foo.output.1", "a.backward.output.1",
					    "Tensor.x.1.backward.output.1" };
	check_keys(odd, ".output.1", oddk, true,
		   "backward names without a numeric index keep their name, and still count for their base");

	/* the row name need not start with the entry (data_name rows): every occurrence is removed */
	struct entry_name en;
	struct strbuf key = STRBUF_INIT;
	naming_parse_entry("Functional.linear.3.backward", 28, &en);
	naming_compare_key(&key, "Functional.linear.3.backward", &en, "Functional.linear.3.backward.output.0", 0, true);
	is_str(key.buf, "Functional.linear.0.backward.output.0", "suffix = row name without the entry name");
	strbuf_release(&key);
	return done_testing();
}
