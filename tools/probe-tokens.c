/*
 * probe-tokens: the first token where two inference runs differ, per prompt, and the step that produced it.
 */
#include "../lib/compare/tokens.h"
#include "../lib/core/msg.h"
#include "../lib/core/opt.h"
#include "../lib/records/output.h"

#include <unistd.h>

enum { OPT_TIE = 256, OPT_PREFILL_STEP, OPT_FORMAT };

static const struct opt_spec options[] = {
	{ OPT_TIE, 0, "tie", "X",
	  "a difference where a run's margin between the two tokens is under X nats is a near tie (default 0.1)", NULL,
	  0 },
	{ OPT_PREFILL_STEP, 0, "prefill-step", "N", "the dump step of the prefill, which produced token 0 (default 0)",
	  NULL, 0 },
	{ OPT_FORMAT, 0, "format", "FORMAT", "records (default) or text, a report for people", "records|text", 0 },
};

static const struct tool_spec spec = {
	.name = "probe-tokens",
	.synopsis = "[--tie X] [--prefill-step N] [--format FORMAT] target golden",
	.summary = "Find the first token where two inference runs differ, for each prompt, and the step that produced it; "
		   "with log-probabilities, tell a near tie from a real divergence (exit 1 when they differ).",
	.opts = options,
	.nopts = ARRAY_SIZE(options),
	.operand_flags = OPT_FILE,
};

int main(int argc, char **argv)
{
	struct tokens_options to = { .tie = 0.1, .prefill_step = 0 };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct tokens_compare *c;
	const char *arg;
	bool text = false;
	int ch, first, r;

	msg_set_progname(argv[0]);
	while ((ch = opt_next(&spec, argc, argv, &arg, &first)) != -1) {
		switch (ch) {
		case OPT_TIE:
			to.tie = opt_tolerance(&spec, "--tie", arg);
			break;
		case OPT_PREFILL_STEP:
			to.prefill_step = opt_number(&spec, "--prefill-step", arg, 0, INT32_MAX);
			break;
		case OPT_FORMAT:
			text = opt_choice(&spec, ch, arg) == 1; /* records|text */
			break;
		}
	}
	argc -= first;
	argv += first;
	if (argc != 2)
		opt_usage_error(&spec, argc < 2 ? "two operands needed: target and golden" : "too many operands");
	if (!strcmp(argv[0], "-") && !strcmp(argv[1], "-"))
		opt_usage_error(&spec, "target and golden cannot both be standard input");
	if ((!strcmp(argv[0], "-") || !strcmp(argv[1], "-")) && isatty(0))
		opt_usage_error(&spec, "standard input is a terminal");

	c = tokens_new(&to);
	if (tokens_compare_files(c, argv[0], argv[1], &err) < 0) {
		tokens_free(c);
		die("%s", err.buf);
	}

	/* everything is decided before the first byte goes out: no partial answer */
	output_init();
	r = tokens_status(c);
	if (text)
		tokens_write_text(c, &out);
	else
		tokens_write_records(c, &out);
	output_flush_strbuf(&out, 0);
	output_close();
	tokens_free(c);
	strbuf_release(&out);
	strbuf_release(&err);
	return r;
}
