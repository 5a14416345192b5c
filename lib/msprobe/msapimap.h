/*
 * msapimap.h: msprobe's -am without a file: the target's row names mapped to
 * PyTorch's (reference: msprobe-crossfw.md, "Matching";
 * process_internal_api_mapping of msprobe 26.0.0).
 *
 * The API of a row name is its first two dot fields ("Mint.cos" of
 * "Mint.cos.0.forward.input.0").  An API of class Mint has every "Mint"
 * in the name made "Torch"; of class MintFunctional, every
 * "MintFunctional" made "Functional"; any other API found in msprobe's
 * built-in table (msapimap_table.c) has every occurrence of it in the
 * name made its PyTorch name; other names stay as they are.  (msprobe
 * replaces every occurrence, as Python's str.replace does: so do these.)
 * Pure functions; safe in any thread.
 */
#ifndef PROBE_MSAPIMAP_H
#define PROBE_MSAPIMAP_H

#include "../core/strbuf.h"

struct msapi_pair {
	const char *ms, *pt;
};

extern const struct msapi_pair msapi_table[];
extern const size_t msapi_table_len;

/* The PyTorch API of a MindSpore API ("Functional.abs" -> "Torch.abs"), or NULL. */
const char *msapi_torch_api(const char *ms_api, size_t len);

/* The row name as -am maps it, into out (reset first). */
void msapi_mapped_name(struct strbuf *out, const char *name);

#endif
