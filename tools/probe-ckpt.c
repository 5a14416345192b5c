/*
 * probe-ckpt: two model checkpoints compared parameter by parameter.
 */
#include "../lib/ckpt/ckpt.h"
#include "../lib/compare/ckcmp.h"
#include "../lib/core/msg.h"
#include "../lib/core/opt.h"
#include "../lib/core/partial.h"
#include "../lib/core/progress.h"
#include "../lib/records/output.h"

#include <unistd.h>

enum { OPT_FORMAT = 256, OPT_MSPROBE_JSON };

static const struct opt_spec options[] = {
	{ OPT_FORMAT, 0, "format", "FORMAT", "records (default) or text, a report for people", "records|text", 0 },
	{ OPT_MSPROBE_JSON, 0, "msprobe-json", "FILE",
	  "also write msprobe's ckpt_similarity.json to FILE (- for standard output, instead of the records)", NULL,
	  OPT_FILE },
	{ 'j', 'j', "jobs", "N", "threads at work on the parameters, this one included (default: the number of processors)",
	  NULL, 0 },
	{ 'q', 'q', "quiet", NULL, "print no warnings", NULL, 0 },
};

static const struct tool_spec spec = {
	.name = "probe-ckpt",
	.synopsis = "[-q] [-j N] [--format FORMAT] [--msprobe-json FILE] A B",
	.summary = "Compare two model checkpoints (Megatron, PyTorch .pt, safetensors or Hugging Face folders) parameter "
		   "by parameter: l2 distance, cosine, shape and bitwise equality (exit 1 when they differ).",
	.opts = options,
	.nopts = ARRAY_SIZE(options),
	.operand_flags = OPT_FILE,
};

static int processors(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 && n < 1024 ? (int)n : 1;
}

static struct ckpt *open_or_die(const char *path)
{
	struct strbuf err = STRBUF_INIT;
	struct ckpt *ck;
	if (ckpt_open(&ck, path, &err))
		die("%s", err.buf);
	strbuf_release(&err);
	return ck;
}

static uint64_t bytes_of(const struct ckpt *ck)
{
	uint64_t n = 0;
	for (size_t i = 0; i < ckpt_count(ck); i++)
		n += (uint64_t)ckpt_param(ck, i)->numel * dtype_info(ckpt_param(ck, i)->dtype)->size;
	return n;
}

int main(int argc, char **argv)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct ckcmp_result *r = NULL;
	struct ckcmp_summary s;
	struct ckpt *a, *b;
	const char *arg, *msprobe_json = NULL;
	bool text = false;
	int c, first, jobs = processors();
	size_t n = 0;

	msg_set_progname(argv[0]);
	while ((c = opt_next(&spec, argc, argv, &arg, &first)) != -1) {
		switch (c) {
		case OPT_FORMAT:
			text = opt_choice(&spec, c, arg) == 1; /* records|text */
			break;
		case OPT_MSPROBE_JSON:
			msprobe_json = arg;
			break;
		case 'j':
			jobs = (int)opt_number(&spec, "--jobs", arg, 1, 256);
			break;
		case 'q':
			msg_set_quiet(true);
			break;
		}
	}
	argc -= first;
	argv += first;
	if (argc != 2)
		opt_usage_error(&spec, argc < 2 ? "two checkpoints needed: A and B" : "too many operands");
	if (msprobe_json && !strcmp(msprobe_json, "-") && text)
		opt_usage_error(&spec, "--msprobe-json - takes standard output: no --format text beside it");

	a = open_or_die(argv[0]);
	b = open_or_die(argv[1]);
	progress_start(bytes_of(a) + bytes_of(b));
	if (ckcmp_all(a, b, msprobe_json ? CKCMP_MSPROBE : 0, jobs, &r, &n, &err) < 0)
		die("%s", err.buf);
	progress_end();
	ckcmp_summarize(r, n, &s);

	/* everything is decided before the first byte goes out: no partial answer */
	output_init();
	if (msprobe_json) {
		ckcmp_msprobe_json(&out, r, n, a, b);
		if (!strcmp(msprobe_json, "-")) {
			output_flush_strbuf(&out, 0);
		} else {
			if (partial_write_file(msprobe_json, out.buf, out.len, &err) < 0)
				die("%s", err.buf);
			strbuf_reset(&out);
		}
	}
	if (!msprobe_json || strcmp(msprobe_json, "-")) {
		if (text) {
			ckcmp_text(&out, r, n, a, b);
		} else {
			for (size_t i = 0; i < n; i++) {
				ckcmp_record(&out, &r[i]);
				output_flush_strbuf(&out, 1 << 16);
			}
			ckcmp_summary_record(&out, &s, a, b);
		}
		output_flush_strbuf(&out, 0);
	}
	output_close();
	free(r);
	ckpt_close(a);
	ckpt_close(b);
	strbuf_release(&out);
	strbuf_release(&err);
	return s.diff || s.only_a || s.only_b ? PROBE_DIFFERENT : PROBE_OK;
}
