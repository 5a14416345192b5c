/*
 * msprobe compare_result CSV files (lib/compare/csvin.c): csvin_read() on a file
 * holding the input.  Every record it makes must be one line of valid
 * JSON and a metric record pair_parse() reads back (two leaf records).
 * Rows are bounded at 4 KiB (PROBE_MAX_LINE), so that the bound is
 * reached; a malformed CSV, and a row past the bound, are errors that
 * name the line ("FILE:LINE: ..." or "FILE:LINE:COL: ...").
 */
#include "fuzz.h"
#include "../../lib/compare/csvin.h"
#include "../../lib/dumps/layout.h"
#include "../../lib/json/json.h"
#include "../../lib/records/pair.h"

struct seen {
	uint64_t records;
};

static int one_record(const char *record, size_t len, void *ctx)
{
	struct seen *s = ctx;
	struct source *src;
	struct json_reader r;
	struct json_token tok;
	enum json_type t;
	struct pair p;
	struct strbuf err = STRBUF_INIT;

	FUZZ_CHECK(len >= 2 && record[len - 1] == '\n' && !memchr(record, '\n', len - 1),
		   "a record that is not one line: %.*s", (int)len, record);
	src = source_from_memory("record", record, len);
	json_reader_init(&r, src, 0, 0);
	while ((t = json_reader_next(&r, &tok)) != JSON_EOF && t != JSON_ERROR)
		;
	FUZZ_CHECK(t == JSON_EOF, "a record that is not JSON (%s): %.*s", json_reader_error(&r), (int)len, record);
	json_reader_release(&r);
	source_close(src);
	FUZZ_CHECK(pair_parse(&p, record, len - 1, &err) == 0, "a record pair_parse refuses (%s): %.*s", err.buf,
		   (int)len, record);
	strbuf_release(&err);
	s->records++;
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	setenv("PROBE_MAX_LINE", "4K", 1);
	return 0;
}

/* err is "path:LINE: what" (or "path:LINE:COL: what"), LINE a number from 1. */
static bool names_line(const char *err, const char *path)
{
	const char *p = err + strlen(path);
	if (*p++ != ':' || *p < '1' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	return *p == ':';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_file file;
	struct strbuf err = STRBUF_INIT;
	struct seen s = { 0 };
	int ret;

	fuzz_file_open(&file, data, size);
	(void)layout_is_compare_csv(file.path);
	ret = csvin_read(file.path, one_record, &s, &err);
	FUZZ_CHECK(ret == 0 || ret == -1, "csvin_read returned %d", ret);
	if (ret == 0)
		FUZZ_CHECK(s.records > 0 && !err.len, "success without records, or with a message: %s", err.buf);
	else {
		FUZZ_CHECK(err.len && !strncmp(err.buf, file.path, strlen(file.path)),
			   "a failure whose message does not name the file: %s", err.buf);
		if (strstr(err.buf, "malformed CSV") || strstr(err.buf, "a row longer than"))
			FUZZ_CHECK(names_line(err.buf, file.path), "a malformed CSV without its line: %s", err.buf);
	}
	fuzz_file_close(&file);
	strbuf_release(&err);
	return 0;
}
