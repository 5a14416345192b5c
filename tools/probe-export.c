/*
 * probe-export: a dump's tensors as .pt or .npy files, for a single-operator reproduction (msprobe's parse).
 */
#include "../lib/dumps/export.h"
#include "../lib/core/msg.h"
#include "../lib/core/opt.h"
#include "../lib/records/output.h"

#include <unistd.h>

enum { OPT_FORMAT = 256 };

static const struct opt_spec options[] = {
	{ 't', 't', "type", "TYPE", "pt (default), torch.save's file, or npy, numpy.save's (bfloat16 as float32)",
	  "pt|npy", 0 },
	{ 'o', 'o', "output-dir", "DIR", "write the files into DIR, made when missing (default ./output, as msprobe's)",
	  NULL, OPT_DIR },
	{ 'r', 'r', "recursive", NULL, "a folder's tensor files and those of the folders below it, keeping the folders",
	  NULL, 0 },
	{ OPT_FORMAT, 0, "format", "FORMAT", "records (default), one per file written, or text, a line each for people",
	  "records|text", 0 },
};

static const struct tool_spec spec = {
	.name = "probe-export",
	.synopsis = "[-r] [-t TYPE] [-o DIR] [--format FORMAT] [tensor ... | records]",
	.summary = "Write tensors of a dump (ATB .bin, .pt, .npy files, folders of them, or the leaves of records) as "
		   ".pt or .npy files, for a single-operator reproduction.",
	.opts = options,
	.nopts = ARRAY_SIZE(options),
	.operand_flags = OPT_FILE,
};

/* Records on stdin (or the one operand "-") when no tensor is named. */
static void queue_records(struct export_job *j, struct strbuf *err)
{
	struct line_sink sink = export_sink(j);
	struct strbuf none = STRBUF_INIT;
	struct line_reader *lr;
	if (isatty(0))
		opt_usage_error(&spec, "no tensor file or folder given and standard input is a terminal");
	if (!(lr = line_reader_open("-", err)))
		die("%s", err->buf);
	if (line_reader_feed(lr, &sink, &none, err) < 0) {
		line_reader_close(lr);
		die("%s", err->buf);
	}
	line_reader_close(lr);
	strbuf_release(&none);
}

int main(int argc, char **argv)
{
	struct export_options eo = { .format = TENSORW_PT, .out_dir = "output" };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct export_job *j;
	const char *arg;
	int ch, first;
	long n;

	msg_set_progname(argv[0]);
	output_mark_incomplete_on_die(); /* from the first error on, even a usage error: the tools after it stop quietly */
	while ((ch = opt_next(&spec, argc, argv, &arg, &first)) != -1) {
		switch (ch) {
		case 't':
			eo.format = opt_choice(&spec, ch, arg) == 0 ? TENSORW_PT : TENSORW_NPY; /* pt|npy */
			break;
		case 'o':
			eo.out_dir = arg;
			break;
		case 'r':
			eo.recursive = true;
			break;
		case OPT_FORMAT:
			eo.text = opt_choice(&spec, ch, arg) == 1; /* records|text */
			break;
		}
	}
	argc -= first;
	argv += first;
	if (!*eo.out_dir)
		opt_usage_error(&spec, "-o needs a folder name");

	j = export_new(&eo);
	if (!argc || (argc == 1 && !strcmp(argv[0], "-"))) {
		queue_records(j, &err);
	} else {
		for (int i = 0; i < argc; i++) {
			if (!strcmp(argv[i], "-"))
				opt_usage_error(&spec, "records on standard input (-) go alone, without tensor operands");
			if (export_add_path(j, argv[i], &err) < 0)
				die("%s", err.buf);
		}
	}

	output_init();
	output_mark_incomplete_on_die();
	n = export_run(j, &out, &err);
	output_flush_strbuf(&out, 0);
	if (n < 0)
		die("%s", err.buf);
	output_close();
	export_free(j);
	strbuf_release(&out);
	strbuf_release(&err);
	return PROBE_OK;
}
