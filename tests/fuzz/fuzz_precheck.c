/*
 * probe-config's readers (lib/precheck): the input read as each plain kind
 * (a pip list, an environment dump, a YAML or JSON config, a launch script),
 * as each JSON member of a config_check pack (env, dataset, weights, random,
 * hyperparameters) and as a pack zip, and its kind told.  A read either
 * succeeds without a message or fails with one that names the file (and,
 * for a member, the member); a side that was read is then compared with
 * itself: every check alike (a run is set up as itself), its records valid
 * JSON lines ending with the summary, its report and msprobe's sheets built.
 * The input's two halves also go through difflib's ratio: within [0, 1],
 * 1 for a text against itself, the matches never more than the shorter.
 */
#include "fuzz.h"
#include "../../lib/json/json.h"
#include "../../lib/precheck/difflib.h"
#include "../../lib/precheck/plain.h"
#include "../../lib/precheck/precheck.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

static void check_json_lines(const struct strbuf *out)
{
	struct source *src = source_from_memory("records", out->buf, out->len);
	struct json_reader r;
	struct json_token tok;
	enum json_type t;
	json_reader_init(&r, src, JSON_MULTI, 0);
	while ((t = json_reader_next(&r, &tok)) != JSON_EOF && t != JSON_ERROR)
		;
	FUZZ_CHECK(t == JSON_EOF, "the records are not JSON (%s): %s", json_reader_error(&r), out->buf);
	json_reader_release(&r);
	source_close(src);
	FUZZ_CHECK(out->len && strstr(out->buf, "{\"summary\":"), "records without their summary: %s", out->buf);
}

/* A side read: compared with itself, alike, and every writer run. */
static void against_itself(const struct pack *p)
{
	struct precheck_options o = { .all = true };
	struct precheck *c = precheck_new(&o);
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	if (precheck_compare(c, p, p, &err) == 0) {
		FUZZ_CHECK(precheck_status(c) == PROBE_OK, "a side differs from itself");
		for (size_t i = 0; i < c->n; i++)
			FUZZ_CHECK(c->v[i].level == PC_PASS || c->v[i].level == PC_INFO,
				   "a finding against itself: %s %s", pack_check_name(c->v[i].check), c->v[i].item);
		precheck_write_records(c, &out);
		check_json_lines(&out);
		strbuf_reset(&out);
		precheck_write_text(c, &out);
		FUZZ_CHECK(out.len && out.buf[out.len - 1] == '\n', "a report that does not end a line");
		FUZZ_CHECK(precheck_write_xlsx(c, NULL, NULL, &err) == 0, "msprobe's sheets not built: %s", err.buf);
	} else {
		FUZZ_CHECK(!p->has, "a side with checks has none in common with itself");
	}
	precheck_free(c);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void as_plain(const uint8_t *data, size_t size, enum plain_kind k)
{
	struct pack *p = pack_new("in", PACK_CONFIG);
	struct strbuf err = STRBUF_INIT;
	if (plain_read(p, k, (const char *)data, size, &err) == 0) {
		FUZZ_CHECK(!err.len, "success with a message: %s", err.buf);
		against_itself(p);
	} else {
		FUZZ_CHECK(!strncmp(err.buf, "in:", 3) || !strncmp(err.buf, "in ", 3), "a failure without its file: %s",
			   err.buf);
	}
	pack_free(p);
	strbuf_release(&err);
}

static void as_member(const uint8_t *data, size_t size, const char *member)
{
	struct pack *p = pack_new("in.zip", PACK_ZIP);
	struct strbuf err = STRBUF_INIT, where = STRBUF_INIT;
	int rc;
	strbuf_addf(&where, "in.zip(%s)", member);
	rc = pack_add_member(p, member, where.buf, (const char *)data, size, &err);
	if (rc == 0) {
		pack_sort(p);
		against_itself(p);
	} else {
		FUZZ_CHECK(rc < 0 && !strncmp(err.buf, where.buf, where.len), "a failure without its member: %s", err.buf);
	}
	pack_free(p);
	strbuf_release(&err);
	strbuf_release(&where);
}

static void as_zip(const uint8_t *data, size_t size)
{
	struct fuzz_file f;
	struct pack *p;
	struct strbuf err = STRBUF_INIT;
	fuzz_file_open(&f, data, size);
	p = pack_new(f.path, PACK_ZIP);
	if (pack_read_zip(p, &err) == 0)
		against_itself(p);
	else
		FUZZ_CHECK(!strncmp(err.buf, f.path, strlen(f.path)), "a zip's failure without its file: %s", err.buf);
	pack_free(p);
	fuzz_file_close(&f);
	strbuf_release(&err);
}

static void ratio(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	size_t h = size / 2;
	double r = difflib_ratio_utf8(s, h, s + h, size - h), self = difflib_ratio_utf8(s, h, s, h);
	FUZZ_CHECK(r >= 0 && r <= 1, "a ratio out of [0, 1]: %g", r);
	FUZZ_CHECK(self == 1.0, "a text against itself: %g", self);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const members[] = { "env", "hyperparameters/hyperparameters_static.json",
					       "dataset/step0/rank0/dataset.json", "weights/step0/rank0/weight.json",
					       "random/rank0.json", "pip" };
	enum plain_kind k = plain_detect("in", (const char *)data, size);
	FUZZ_CHECK(k <= PLAIN_UNKNOWN, "an unknown kind");
	for (enum plain_kind p = PLAIN_PIP; p <= PLAIN_SCRIPT; p++)
		as_plain(data, size, p);
	for (size_t i = 0; i < ARRAY_SIZE(members); i++)
		as_member(data, size, members[i]);
	if (size >= 4 && data[0] == 'P' && data[1] == 'K')
		as_zip(data, size);
	ratio(data, size);
	return 0;
}
