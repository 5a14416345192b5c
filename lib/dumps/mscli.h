/*
 * mscli.h: msprobe compare's command line, and the probe pipeline that does
 * its job.
 *
 * One table of msprobe compare's options (msprobe-compare.md):
 *   -tp/--target_path P   -gp/--golden_path P   -o/--output_path DIR
 *   -fm/--fuzzy_match     -dm/--data_mapping F  -cm/--cell_mapping [F]
 *   -am/--api_mapping [F] -lm/--layer_mapping [F]  -da/--diff_analyze
 *   --xlsx
 * read as argparse reads them: an option's value is the next word, or the
 * text after '='; an optional value ([F]) is the next word unless it starts
 * with '-'.  hint.c tells a user who typed them to probe-match what to type
 * instead; probe-compare runs the pipeline.
 *
 * The pipeline (mscli_stages()):
 *   probe-flatten TARGET | probe-match [--fuzzy] [--data-mapping F]
 *     [--cell-mapping[=F]] [--api-mapping[=F]] [--layer-mapping[=F]] GOLDEN |
 *   probe-metric -o OUT [--xlsx]                (msprobe's CSV or workbook files)
 * or, with -da, as msprobe ignores every other compare option there
 * (msprobe-firstdiff.md 4.1):
 *   probe-flatten TARGET | probe-match GOLDEN | probe-metric |
 *   probe-first --msprobe                       (its diff_analyze JSON)
 */
#ifndef PROBE_MSCLI_H
#define PROBE_MSCLI_H

#include "../core/strbuf.h"

#define MSCLI_MAX_STAGES 4

enum mscli_option {
	MS_TARGET, MS_GOLDEN, MS_OUTPUT, MS_FUZZY, MS_DATA_MAPPING, MS_CELL_MAPPING, MS_API_MAPPING, MS_LAYER_MAPPING,
	MS_DIFF_ANALYZE, MS_XLSX, MS_NR
};
enum mscli_arg { MS_NO_ARG, MS_ARG, MS_OPTIONAL_ARG };

struct mscli_spec {
	const char *short_name, *long_name; /* "-tp", "--target_path" (--xlsx: both "--xlsx") */
	enum mscli_arg arg;
	const char *probe_name;             /* probe-compare's long option: "tp" */
};
extern const struct mscli_spec mscli_options[MS_NR];

/* Which option arg spells ("-tp", "--target_path=x"), or MS_NR; *name_len its name's length, *value the text after '=' or NULL. */
enum mscli_option mscli_option_of(const char *arg, size_t *name_len, const char **value);

/*
 * argv with msprobe's spellings turned into probe-compare's ("-tp X" ->
 * "--tp" "X", "-cm F" -> "--cm=F", "--data_mapping=F" -> "--dm=F"),
 * everything else as it was (a required value is taken as it is, whatever
 * it looks like; after "--" nothing is turned); a NULL-terminated array the caller frees
 * (mscli_argv_free()), *argc_out its length.
 */
char **mscli_argv(int argc, char **argv, int *argc_out);
void mscli_argv_free(char **argv);

struct mscli_compare {
	const char *target, *golden;
	const char *output;             /* msprobe's default ./output when NULL */
	bool fuzzy, diff_analyze, xlsx;
	const char *data_mapping;       /* NULL: none */
	bool cell_mapping, api_mapping, layer_mapping;
	const char *cell_mapping_file, *api_mapping_file, *layer_mapping_file; /* NULL: the built-in (or derived) one */
};

/*
 * The stages of the pipeline as argv lists into stages[0..*n), at most
 * MSCLI_MAX_STAGES (each NULL-terminated; mscli_stages_free() releases
 * them).  -da: the last stage writes msprobe's diff_analyze JSON on its
 * standard output.
 */
void mscli_stages(const struct mscli_compare *c, char ***stages, size_t *n);
void mscli_stages_free(char ***stages, size_t n);

/*
 * probe-compare's exit status from the stages' (status[0..n), as
 * pipeline_run() gives them): PROBE_TROUBLE when any stage failed (2), was
 * not found or could not run (126, 127) or was killed (128 + signal); else,
 * with -da, the last stage's (probe-first: 0, 1 or 3); else PROBE_OK.
 */
int mscli_status(const int *status, size_t n, bool diff_analyze);

/* The file msprobe's -da writes: OUT/diff_analyze_<ns since the epoch>.json (msprobe-firstdiff.md 4.7). */
void mscli_diff_analyze_path(const char *out, struct strbuf *path);

/*
 * Run the stages of mscli_stages(c) (the stages' messages go to stderr as
 * they print them).  With -da, OUT is made (mkdir -p) and the last stage's
 * output goes to a temporary file beside mscli_diff_analyze_path(), renamed
 * to it (or, should a file have that name, to it with _2, _3, ... before
 * .json: partial.h) only when the status is PROBE_DIFFERENT: as msprobe, which writes
 * no analyze file when it finds nothing; otherwise it is removed, and an
 * exit before the end removes it too (partial.h).  Returns mscli_status(),
 * or -1 with the reason in err when OUT, the file or the pipeline cannot be
 * made (nothing then left in OUT by this call but the folder).
 */
int mscli_run(const struct mscli_compare *c, char *const *const *stages, size_t n, struct strbuf *err);

#endif
