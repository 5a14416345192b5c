#include "jqsel.h"
#include "xalloc.h"

#include <jq.h>
#include <jv.h>

struct jqsel {
	jq_state *jq;
	struct strbuf messages; /* what jq reported while compiling or running */
};

/* jq's messages (compile errors, runtime errors) are collected, not printed. */
static void collect(void *data, jv msg)
{
	struct jqsel *s = data;
	jv text = jv_get_kind(msg) == JV_KIND_STRING ? msg : jv_dump_string(msg, 0);
	if (s->messages.len)
		strbuf_addstr(&s->messages, "; ");
	strbuf_addstr(&s->messages, jv_string_value(text));
	jv_free(text);
}

struct jqsel *jqsel_new(const char *filter, struct strbuf *err)
{
	struct jqsel *s = xcalloc(1, sizeof(*s));
	strbuf_init(&s->messages, 0);
	s->jq = jq_init();
	if (!s->jq) {
		strbuf_addstr(err, "libjq could not start");
		jqsel_free(s);
		return NULL;
	}
	jq_set_error_cb(s->jq, collect, s);
	if (!jq_compile(s->jq, filter)) {
		strbuf_addf(err, "not a jq filter: %s", s->messages.len ? s->messages.buf : filter);
		jqsel_free(s);
		return NULL;
	}
	return s;
}

void jqsel_free(struct jqsel *s)
{
	if (!s)
		return;
	if (s->jq)
		jq_teardown(&s->jq);
	strbuf_release(&s->messages);
	free(s);
}

int jqsel_match(struct jqsel *s, const char *json, size_t len, struct strbuf *err)
{
	jv in, out;
	int ret;
	if (len > INT_MAX) {
		strbuf_addstr(err, "--where: the record is too long for jq");
		return -1;
	}
	in = jv_parse_sized(json, (int)len);
	if (!jv_is_valid(in)) {
		jv msg = jv_invalid_get_msg(in);
		strbuf_addf(err, "--where: jq cannot read the record: %s",
			    jv_get_kind(msg) == JV_KIND_STRING ? jv_string_value(msg) : "invalid JSON");
		jv_free(msg);
		return -1;
	}
	strbuf_reset(&s->messages);
	jq_start(s->jq, in, 0);
	out = jq_next(s->jq);
	if (jv_is_valid(out)) {
		jv_kind k = jv_get_kind(out);
		ret = k != JV_KIND_FALSE && k != JV_KIND_NULL;
	} else if (jv_invalid_has_msg(jv_copy(out))) {
		jv msg = jv_invalid_get_msg(jv_copy(out));
		jv text = jv_get_kind(msg) == JV_KIND_STRING ? msg : jv_dump_string(msg, 0);
		strbuf_addf(err, "--where: jq: %s", jv_string_value(text));
		jv_free(text);
		ret = -1;
	} else {
		ret = 0; /* no output: not chosen */
	}
	jv_free(out);
	return ret;
}
