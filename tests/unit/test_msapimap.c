/*
 * test_msapimap: msprobe -am's names (msapimap.h), worked out from
 * process_internal_api_mapping's rules: Mint -> Torch and MintFunctional ->
 * Functional everywhere in the name, else the built-in table's PyTorch API
 * for the first two fields (every occurrence), else the name itself.
 */
#include "tap.h"
#include "../../lib/msprobe/msapimap.h"

int main(void)
{
	static const char *const cases[][2] = {
		{ "Mint.cos.0.forward.input.0", "Torch.cos.0.forward.input.0" },
		{ "MintFunctional.relu.1.backward.output.0", "Functional.relu.1.backward.output.0" },
		{ "Functional.abs.0.forward.input.0", "Torch.abs.0.forward.input.0" },
		{ "Functional.bidense.2.forward.output.0", "Functional.bilinear.2.forward.output.0" },
		{ "Functional.abs.0.forward.input.Functional.abs", "Torch.abs.0.forward.input.Torch.abs" },
		{ "Functional.no_such_api.0.forward.input.0", "Functional.no_such_api.0.forward.input.0" },
		{ "Functional.ab.0.forward.input.0", "Functional.ab.0.forward.input.0" },
		{ "Cell.net.Net.forward.0.input.0", "Cell.net.Net.forward.0.input.0" },
		{ "Mint", "Mint" },
	};
	struct strbuf out = STRBUF_INIT;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		msapi_mapped_name(&out, cases[i][0]);
		is_str(out.buf, cases[i][1], cases[i][0]);
	}
	is_int((long long)msapi_table_len, 399, "the built-in table holds msprobe's 399 pairs");
	{
		size_t unsorted = 0;
		for (size_t i = 1; i < msapi_table_len; i++)
			if (strcmp(msapi_table[i - 1].ms, msapi_table[i].ms) >= 0 && !unsorted)
				unsorted = i;
		is_int((long long)unsorted, 0, "the table is sorted, names unique (the first out of order)");
	}
	is_str(msapi_torch_api("Functional.abs", 14), "Torch.abs", "a lookup");
	ok(msapi_torch_api("Functional.abs", 13) == NULL, "a prefix of a name is not found");
	strbuf_release(&out);
	return done_testing();
}
