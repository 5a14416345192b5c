/*
 * test_dtypegate: msprobe's dtype gate on a name match (mscell_dtype_gate),
 * its cases worked out from msprobe-crossfw.md's "Matching": equal dtypes,
 * the float groups of each framework, and across frameworks (a MindSpore
 * target against a PyTorch golden) the table of kinds.
 */
#include "tap.h"
#include "../../lib/msprobe/mscell.h"

int main(void)
{
	static const struct { const char *t, *g; bool cross, pass; const char *why; } cases[] = {
		{ "torch.float32", "torch.float32", false, true, "equal" },
		{ "torch.float16", "torch.bfloat16", false, true, "torch's float group" },
		{ "torch.float64", "torch.float32", false, false, "float64 is not in the group (same framework: no table)" },
		{ "torch.int32", "torch.int64", false, false, "two torch ints: no table within a framework" },
		{ "Float16", "BFloat16", false, true, "MindSpore's float group" },
		{ "Int32", "Int64", false, false, "two MindSpore ints: no table within a framework" },
		{ "Int32", "torch.int64", true, true, "across frameworks: int widths are one kind" },
		{ "UInt8", "torch.int16", true, true, "across frameworks: uint and int are one kind" },
		{ "Float32", "torch.bfloat16", true, true, "across frameworks: floats are one kind" },
		{ "Float64", "torch.float16", true, true, "across frameworks: float64 is a float too" },
		{ "Bool", "torch.bool", true, true, "across frameworks: bool" },
		{ "Complex64", "torch.complex128", true, true, "across frameworks: complex" },
		{ "Bool", "torch.int64", true, false, "across frameworks: bool is not int" },
		{ "Int64", "torch.float32", true, false, "across frameworks: int is not float" },
		{ "<class 'str'>", "None", true, false, "a name not in the table maps to itself" },
		{ "<class 'int'>", "torch.int64", true, false, "a Python int is not a tensor kind" },
		{ "torch.int64", "Int64", false, false, "a PyTorch target against a MindSpore golden: no table" },
		{ "Float16", "torch.float16", false, false, "a PyTorch dump's odd dtype name: not across frameworks, no table" },
		{ "<class 'int'>", "<class 'float'>", true, false, "Python scalars are not in the table" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		ok(mscell_dtype_gate(cases[i].t, cases[i].g, cases[i].cross) == cases[i].pass, "%s against %s%s %s: %s",
		   cases[i].t, cases[i].g, cases[i].cross ? " (across frameworks)" : "", cases[i].pass ? "passes" : "is gated",
		   cases[i].why);
	{
		static const struct { const char *a, *b; bool same; } names[] = {
			{ "Float32", "torch.float32", true }, { "torch.bfloat16", "BFloat16", true },
			{ "UInt8", "torch.uint8", true }, { "Bool", "torch.bool", true },
			{ "Float32", "torch.bfloat16", false }, { "Int32", "torch.int64", false },
			{ "torch.float32", "torch.float32", false }, { "", "torch.", false },
		};
		for (size_t i = 0; i < ARRAY_SIZE(names); i++)
			ok(mscell_dtype_same_across(names[i].a, names[i].b) == names[i].same,
			   "%s and %s are %s element type across frameworks", names[i].a, names[i].b,
			   names[i].same ? "the same" : "not the same");
	}
	return done_testing();
}
