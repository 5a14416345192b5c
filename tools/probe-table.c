/*
 * probe-table: JSON objects, one per line, into a CSV table written as probe writes msprobe's.
 */
#include "../lib/records/lines.h"
#include "../lib/core/msg.h"
#include "../lib/core/opt.h"
#include "../lib/records/output.h"
#include "../lib/msprobe/table.h"

#include <unistd.h>

static const struct opt_spec options[] = {
	{ 'c', 'c', "columns", "LIST", "the columns, comma-separated, in order (default: the first object's keys)",
	  NULL, 0 },
};

static const struct tool_spec spec = {
	.name = "probe-table",
	.synopsis = "[-c LIST] [objects]",
	.summary = "Write JSON objects (one per line, as jq -c prints them) as a CSV table, quoted and formatted as "
		   "probe writes msprobe's CSV.",
	.opts = options,
	.nopts = ARRAY_SIZE(options),
	.operand_flags = OPT_FILE,
};

int main(int argc, char **argv)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct line_reader *lr;
	struct line_sink sink;
	struct table_writer *t;
	const char *arg, *input, *columns = NULL;
	int c, first;

	msg_set_progname(argv[0]);
	while ((c = opt_next(&spec, argc, argv, &arg, &first)) != -1)
		if (c == 'c')
			columns = arg;
	argc -= first;
	argv += first;
	input = opt_input_operand(&spec, argc, argv, "objects");
	if (!(lr = line_reader_open(input, &err)))
		die("%s", err.buf);
	t = table_new(columns);
	sink = table_sink(t);
	output_init();
	output_discard_on_failure();
	if (line_reader_feed(lr, &sink, &out, &err) < 0) {
		table_free(t);
		line_reader_close(lr);
		die("%s", err.buf); /* it names the input and the line */
	}
	output_flush_strbuf(&out, 0);
	output_close();
	line_reader_close(lr);
	table_free(t);
	strbuf_release(&out);
	strbuf_release(&err);
	return PROBE_OK;
}
