#include "errorrec.h"

#include <string.h>
#include "../json/jsonw.h"
#include "../json/recscan.h"

void errorrec_add(struct strbuf *out, const char *message)
{
	strbuf_add(out, "{\"error\":", 9);
	jsonw_str(out, message);
	strbuf_add(out, "}\n", 2);
}

bool errorrec_read(const char *line, size_t len, struct strbuf *msg)
{
	struct rs_iter it;
	struct span k, v;
	static const char prefix[] = "{\"error\":";
	if (len < sizeof(prefix) - 1 || memcmp(line, prefix, sizeof(prefix) - 1))
		return false;
	if (rs_begin(&it, line, len) < 0 || rs_next(&it, &k, &v) != 1 || !span_key_is(&k, "error", 5) ||
	    v.kind != SPAN_STRING)
		return false;
	strbuf_reset(msg);
	if (span_string(&v, msg) < 0)
		strbuf_addstr(msg, "(unreadable message)");
	return true;
}
