/*
 * msapiuser.h: msprobe's -am FILE, a user's table of MindSpore APIs and the
 * PyTorch APIs they pair with, argument by argument (reference:
 * msprobe-crossfw.md, "Matching"; modify_compare_data_with_user_mapping of
 * msprobe 26.0.0).
 *
 * The file is a YAML list of mappings:
 *   - ms_api: Functional.flash_attention_score
 *     pt_api: NPU.npu_fusion_attention
 *     ms_args: [0, 1, 2]          pt_args: [0, 1, 2]
 *     ms_outputs: [0]             pt_outputs: [0]
 *     ms_parameters / pt_parameters, ms_parameters_grad / pt_parameters_grad
 * An entry whose ms_ and pt_ lists differ in length is dropped with a
 * warning, as msprobe drops it.  Outputs are read from ms_outputs and
 * pt_outputs, as the documentation writes them (msprobe itself reads
 * ms_output / pt_output and fails on a file written as documented).
 *
 * A row of a listed API (its first two name fields), when the golden has
 * the pt_api, gets the key: the name with the first ms_api made pt_api and,
 * when what follows the call's ".input." (".output.", ".parameters.",
 * ".parameters_grad.") is a listed index, that index made its partner;
 * otherwise the name with "abandoned" appended, which pairs with nothing
 * (keyword arguments and unlisted indexes never pair).  When several
 * entries list the API, the last one decides, as in msprobe.  Rows of
 * other APIs keep the built-in mapping (msapimap.h).
 *
 * Memory: the table, until msapi_user_release().  Lookups are pure.
 */
#ifndef PROBE_MSAPIUSER_H
#define PROBE_MSAPIUSER_H

#include "../core/strbuf.h"

enum { MSAPI_ARGS, MSAPI_OUTPUTS, MSAPI_PARAMETERS, MSAPI_PARAMETERS_GRAD, MSAPI_TERMS };

struct msapi_user_entry {
	char *ms_api, *pt_api;
	char **ms[MSAPI_TERMS], **pt[MSAPI_TERMS]; /* index texts, as written */
	size_t n[MSAPI_TERMS];
};

struct msapi_user {
	struct msapi_user_entry *v;
	size_t nr, alloc;
};

#define MSAPI_USER_INIT { NULL, 0, 0 }

/* Returns 0 (dropped entries described in warn, one line each), or -1 with "FILE:LINE:COL: what". */
int msapi_user_load(struct msapi_user *u, const char *path, struct strbuf *warn, struct strbuf *err);
void msapi_user_release(struct msapi_user *u);

/*
 * The key of a row (name, its entry, its state: "input", "output",
 * "parameters", "parameters_grad") into out; golden_has(ctx, api, len)
 * says whether the golden dumped that API.  Returns false (out untouched)
 * when no entry applies.
 */
bool msapi_user_key(const struct msapi_user *u, const char *name, const char *entry, const char *state,
		    bool (*golden_has)(void *ctx, const char *api, size_t len), void *ctx, struct strbuf *out);

#endif
