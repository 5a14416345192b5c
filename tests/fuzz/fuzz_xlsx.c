/*
 * Workbooks (lib/core/xlsxr.c): xlsxr_open() on a file holding the input,
 * then every sheet read, as probe-merge reads compare results.  A failure
 * must name the file; a success must deliver rows in increasing order,
 * never more columns than Excel has, and cells whose text is never NULL
 * and as long as it says.
 */
#include "fuzz.h"
#include "../../lib/core/xlsxr.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

struct seen {
	int64_t last_row;
};

static int on_row(void *ctx, uint32_t row, const struct xlsxr_cell *cells, size_t n, struct strbuf *err)
{
	struct seen *s = ctx;
	(void)err;
	FUZZ_CHECK((int64_t)row > s->last_row, "row %u after row %lld", row, (long long)s->last_row);
	FUZZ_CHECK(row < XLSXR_MAX_ROWS && n <= XLSXR_MAX_COLS, "row %u with %zu cells", row, n);
	for (size_t i = 0; i < n; i++) {
		FUZZ_CHECK(cells[i].text != NULL, "row %u cell %zu without text", row, i);
		FUZZ_CHECK(strlen(cells[i].text) == cells[i].len, "row %u cell %zu: text of %zu bytes says %zu", row, i,
			   strlen(cells[i].text), cells[i].len);
		FUZZ_CHECK(cells[i].type != XLSXR_EMPTY || !cells[i].len, "row %u cell %zu: an empty cell with text",
			   row, i);
	}
	s->last_row = row;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_file file;
	struct strbuf err = STRBUF_INIT;
	struct xlsxr *x;

	fuzz_file_open(&file, data, size);
	x = xlsxr_open(file.path, &err);
	if (!x) {
		FUZZ_CHECK(err.len && !strncmp(err.buf, file.path, strlen(file.path)),
			   "a failure whose message does not name the file: %s", err.buf);
	} else {
		for (size_t i = 0; i < xlsxr_nsheets(x) && i < 8; i++) {
			struct seen s = { -1 };
			FUZZ_CHECK(xlsxr_sheet_name(x, i) != NULL, "sheet %zu without a name", i);
			strbuf_reset(&err);
			if (xlsxr_read_sheet(x, i, on_row, &s, &err) < 0)
				FUZZ_CHECK(err.len && !strncmp(err.buf, file.path, strlen(file.path)),
					   "a failure whose message does not name the file: %s", err.buf);
		}
		xlsxr_close(x);
	}
	fuzz_file_close(&file);
	strbuf_release(&err);
	return 0;
}
