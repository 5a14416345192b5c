#include "msapimap.h"

#include <string.h>

const char *msapi_torch_api(const char *ms_api, size_t len)
{
	size_t lo = 0, hi = msapi_table_len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *k = msapi_table[mid].ms;
		int c = strncmp(k, ms_api, len);
		if (!c && k[len])
			c = 1; /* k is longer: it sorts after */
		if (!c)
			return msapi_table[mid].pt;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* s with every occurrence of old made new, into out (reset first). */
static void replace_all(struct strbuf *out, const char *s, const char *old, size_t oldn, const char *new)
{
	const char *p;
	strbuf_reset(out);
	while (oldn && (p = strstr(s, old))) {
		strbuf_add(out, s, (size_t)(p - s));
		strbuf_addstr(out, new);
		s = p + oldn;
	}
	strbuf_addstr(out, s);
}

void msapi_mapped_name(struct strbuf *out, const char *name)
{
	const char *dot = strchr(name, '.'), *end;
	size_t api_len, class_len;
	const char *pt;
	strbuf_reset(out);
	if (!dot) {
		strbuf_addstr(out, name); /* msprobe fails on a name of one field; no dump holds one */
		return;
	}
	class_len = (size_t)(dot - name);
	end = strchr(dot + 1, '.');
	api_len = end ? (size_t)(end - name) : strlen(name);
	if (class_len == 4 && !strncmp(name, "Mint", 4))
		replace_all(out, name, "Mint", 4, "Torch");
	else if (class_len == 14 && !strncmp(name, "MintFunctional", 14))
		replace_all(out, name, "MintFunctional", 14, "Functional");
	else if ((pt = msapi_torch_api(name, api_len))) {
		char api[256];
		if (api_len >= sizeof(api)) {
			strbuf_addstr(out, name);
			return;
		}
		memcpy(api, name, api_len);
		api[api_len] = '\0';
		replace_all(out, name, api, api_len, pt);
	} else
		strbuf_addstr(out, name);
}
