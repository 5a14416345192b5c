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
	static const struct { const char *t, *g; bool pass; const char *why; } cases[] = {
		{ "torch.float32", "torch.float32", true, "equal" },
		{ "torch.float16", "torch.bfloat16", true, "torch's float group" },
		{ "torch.float64", "torch.float32", false, "float64 is not in the group (same framework: no table)" },
		{ "torch.int32", "torch.int64", false, "two torch ints: no table within a framework" },
		{ "Float16", "BFloat16", true, "MindSpore's float group" },
		{ "Int32", "Int64", false, "two MindSpore ints: no table within a framework" },
		{ "Int32", "torch.int64", true, "across frameworks: int widths are one kind" },
		{ "UInt8", "torch.int16", true, "across frameworks: uint and int are one kind" },
		{ "Float32", "torch.bfloat16", true, "across frameworks: floats are one kind" },
		{ "Float64", "torch.float16", true, "across frameworks: float64 is a float too" },
		{ "Bool", "torch.bool", true, "across frameworks: bool" },
		{ "Complex64", "torch.complex128", true, "across frameworks: complex" },
		{ "Bool", "torch.int64", false, "across frameworks: bool is not int" },
		{ "Int64", "torch.float32", false, "across frameworks: int is not float" },
		{ "<class 'str'>", "None", false, "a name not in the table maps to itself" },
		{ "<class 'int'>", "torch.int64", false, "a Python int is not a tensor kind" },
		{ "torch.int64", "Int64", false, "a PyTorch target against a MindSpore golden: no table" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		ok(mscell_dtype_gate(cases[i].t, cases[i].g) == cases[i].pass, "%s against %s %s: %s", cases[i].t,
		   cases[i].g, cases[i].pass ? "passes" : "is gated", cases[i].why);
	return done_testing();
}
