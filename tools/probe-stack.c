/*
 * probe-stack: attach to each record the Python stack and the module chain of its entry.
 */
#include "../lib/compare/attach.h"
#include "../lib/records/lines.h"
#include "../lib/core/msg.h"
#include "../lib/core/opt.h"
#include "../lib/records/output.h"
#include "../lib/core/xalloc.h"

#include <unistd.h>

enum { OPT_GOLDEN = 256, OPT_STACK, OPT_CONSTRUCT, OPT_USER_FRAMES, OPT_INNERMOST, OPT_FRAMEWORK, OPT_FORMAT };

static const struct opt_spec options[] = {
	{ 'g', 'g', "golden", NULL, "attach to the golden leaf of pairs instead of the target one", NULL, 0 },
	{ OPT_STACK, 0, "stack", "FILE", "this stack.json instead of the one beside each dump", NULL, OPT_FILE },
	{ OPT_CONSTRUCT, 0, "construct", "FILE", "this construct.json instead of the one beside each dump", NULL,
	  OPT_FILE },
	{ 'u', 'u', "user-frames", NULL, "keep only the frames of the user's own code", NULL, 0 },
	{ OPT_INNERMOST, 0, "innermost", "N", "keep only the innermost N frames", NULL, 0 },
	{ OPT_FRAMEWORK, 0, "framework", "PATTERN",
	  "frames whose file path holds PATTERN are framework code too (repeatable)", NULL, 0 },
	{ OPT_FORMAT, 0, "format", "FORMAT", "records (default) or text, one line per record for people",
	  "records|text", 0 },
};

static const struct tool_spec spec = {
	.name = "probe-stack",
	.synopsis = "[-gu] [--stack FILE] [--construct FILE] [--innermost N] [--framework PATTERN] [--format FORMAT] "
		    "[records]",
	.summary = "Attach to each record the Python call stack of its entry (stack.json), the line of the user's "
		   "code that called it, and the modules it ran inside (construct.json).",
	.opts = options,
	.nopts = ARRAY_SIZE(options),
	.operand_flags = OPT_FILE,
};

int main(int argc, char **argv)
{
	struct attach_options ao = { 0 };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct line_reader *lr;
	struct line_sink sink;
	struct attacher *a;
	const char **framework = NULL;
	size_t nframework = 0, alloc = 0;
	const char *arg, *input;
	bool text = false;
	int c, first, r;

	msg_set_progname(argv[0]);
	output_mark_incomplete_on_die(); /* from the first error on, even a usage error: the tools after it stop quietly */
	while ((c = opt_next(&spec, argc, argv, &arg, &first)) != -1) {
		switch (c) {
		case 'g':
			ao.golden = true;
			break;
		case OPT_STACK:
			ao.stack_file = arg;
			break;
		case OPT_CONSTRUCT:
			ao.construct_file = arg;
			break;
		case 'u':
			ao.user_frames = true;
			break;
		case OPT_INNERMOST:
			ao.innermost = (size_t)opt_number(&spec, "--innermost", arg, 1, 1000000);
			break;
		case OPT_FRAMEWORK:
			ALLOC_GROW(framework, nframework + 1, alloc);
			framework[nframework++] = arg;
			break;
		case OPT_FORMAT:
			text = opt_choice(&spec, c, arg) == 1; /* records|text */
			break;
		}
	}
	argc -= first;
	argv += first;
	input = opt_input_operand(&spec, argc, argv, "records");
	ao.framework = framework;
	ao.nframework = nframework;
	if (!(lr = line_reader_open(input, &err)))
		die("%s", err.buf);

	a = attach_new(&ao);
	sink = attach_sink(a, text);
	output_init();
	output_mark_incomplete_on_die();
	r = line_reader_feed(lr, &sink, &out, &err);
	output_flush_strbuf(&out, 0);
	if (r < 0) {
		line_reader_close(lr);
		die("%s", err.buf);
	}
	output_close();
	line_reader_close(lr);
	attach_free(a);
	free(framework);
	strbuf_release(&out);
	strbuf_release(&err);
	return PROBE_OK;
}
