/* mscli.c: msprobe compare's command line and the pipeline that does its job (mscli.h). */
#include "mscli.h"
#include "../core/msg.h"
#include "../core/partial.h"
#include "../core/pipeline.h"
#include "../core/xalloc.h"

#include <errno.h>
#include <time.h>
#include <unistd.h>

const struct mscli_spec mscli_options[MS_NR] = {
	[MS_TARGET] = { "-tp", "--target_path", MS_ARG, "tp" },
	[MS_GOLDEN] = { "-gp", "--golden_path", MS_ARG, "gp" },
	[MS_OUTPUT] = { "-o", "--output_path", MS_ARG, "output-dir" },
	[MS_FUZZY] = { "-fm", "--fuzzy_match", MS_NO_ARG, "fm" },
	[MS_DATA_MAPPING] = { "-dm", "--data_mapping", MS_ARG, "dm" },
	[MS_CELL_MAPPING] = { "-cm", "--cell_mapping", MS_OPTIONAL_ARG, "cm" },
	[MS_API_MAPPING] = { "-am", "--api_mapping", MS_OPTIONAL_ARG, "am" },
	[MS_LAYER_MAPPING] = { "-lm", "--layer_mapping", MS_OPTIONAL_ARG, "lm" },
	[MS_DIFF_ANALYZE] = { "-da", "--diff_analyze", MS_NO_ARG, "da" },
	[MS_XLSX] = { "--xlsx", "--xlsx", MS_NO_ARG, "xlsx" },
};

enum mscli_option mscli_option_of(const char *arg, size_t *name_len, const char **value)
{
	const char *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
	*name_len = n;
	*value = eq ? eq + 1 : NULL;
	for (int i = 0; i < MS_NR; i++) {
		const char *s = mscli_options[i].short_name, *l = mscli_options[i].long_name;
		if ((strlen(s) == n && !strncmp(arg, s, n)) || (strlen(l) == n && !strncmp(arg, l, n)))
			return (enum mscli_option)i;
	}
	return MS_NR;
}

char **mscli_argv(int argc, char **argv, int *argc_out)
{
	char **out = xcalloc((size_t)argc + 1, sizeof(*out));
	int k = 0;
	bool options = true;
	for (int i = 0; i < argc; i++) {
		size_t n;
		const char *value;
		enum mscli_option w = i && options ? mscli_option_of(argv[i], &n, &value) : MS_NR;
		struct strbuf sb = STRBUF_INIT;
		if (i && !strcmp(argv[i], "--"))
			options = false;
		if (w == MS_NR || (w == MS_OUTPUT && !strcmp(argv[i], "-o"))) {
			out[k++] = xstrdup(argv[i]); /* probe-compare's own spelling, an operand, or "-o" as getopt takes it */
			continue;
		}
		strbuf_addf(&sb, "--%s", mscli_options[w].probe_name);
		/* a required value is the next word, whatever it looks like (-tp -x is a path "-x") */
		if (!value && mscli_options[w].arg == MS_ARG && i + 1 < argc)
			value = argv[++i];
		/* argparse's optional value: the next word unless it starts with '-' */
		if (!value && mscli_options[w].arg == MS_OPTIONAL_ARG && i + 1 < argc && argv[i + 1][0] != '-')
			value = argv[++i];
		if (value)
			strbuf_addf(&sb, "=%s", value);
		out[k++] = strbuf_detach(&sb, NULL);
	}
	*argc_out = k;
	return out;
}

void mscli_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

struct words {
	char **v;
	size_t n, alloc;
};

static void add_word(struct words *w, const char *s)
{
	ALLOC_GROW(w->v, w->n + 2, w->alloc);
	w->v[w->n++] = xstrdup(s);
	w->v[w->n] = NULL;
}

/* "--NAME" or "--NAME=FILE" for an option whose file may be left out */
static void add_optional(struct words *w, const char *name, const char *file)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "--%s%s%s", name, file ? "=" : "", file ? file : "");
	add_word(w, sb.buf);
	strbuf_release(&sb);
}

static char **match_stage(const struct mscli_compare *c)
{
	struct words w = { 0 };
	add_word(&w, "probe-match");
	if (c->fuzzy)
		add_word(&w, "--fuzzy");
	if (c->data_mapping) {
		add_word(&w, "--data-mapping");
		add_word(&w, c->data_mapping);
	}
	if (c->cell_mapping)
		add_optional(&w, "cell-mapping", c->cell_mapping_file);
	if (c->api_mapping)
		add_optional(&w, "api-mapping", c->api_mapping_file);
	if (c->layer_mapping)
		add_optional(&w, "layer-mapping", c->layer_mapping_file);
	add_word(&w, c->golden);
	return w.v;
}

void mscli_stages(const struct mscli_compare *c, char ***stages, size_t *n)
{
	struct words w = { 0 };
	*n = 0;
	add_word(&w, "probe-flatten");
	add_word(&w, c->target);
	stages[(*n)++] = w.v;
	if (c->diff_analyze) { /* msprobe's -da ignores the other compare options */
		w = (struct words){ 0 };
		add_word(&w, "probe-match");
		add_word(&w, c->golden);
		stages[(*n)++] = w.v;
	} else {
		stages[(*n)++] = match_stage(c);
	}
	w = (struct words){ 0 };
	add_word(&w, "probe-metric");
	if (!c->diff_analyze) {
		add_word(&w, "-o");
		add_word(&w, c->output ? c->output : "./output");
		if (c->xlsx)
			add_word(&w, "--xlsx");
	}
	stages[(*n)++] = w.v;
	if (c->diff_analyze) {
		w = (struct words){ 0 };
		add_word(&w, "probe-first");
		add_word(&w, "--msprobe");
		stages[(*n)++] = w.v;
	}
}

void mscli_stages_free(char ***stages, size_t n)
{
	for (size_t i = 0; i < n; i++)
		mscli_argv_free(stages[i]);
}

int mscli_status(const int *status, size_t n, bool diff_analyze)
{
	for (size_t i = 0; i < n; i++)
		if (status[i] == PROBE_TROUBLE || status[i] >= 126)
			return PROBE_TROUBLE;
	if (diff_analyze && n)
		return status[n - 1];
	return PROBE_OK;
}

void mscli_diff_analyze_path(const char *out, struct strbuf *path)
{
	struct timespec ts;
	size_t len = strlen(out);
	clock_gettime(CLOCK_REALTIME, &ts);
	strbuf_addstr(path, out);
	if (len && out[len - 1] != '/')
		strbuf_addch(path, '/');
	strbuf_addf(path, "diff_analyze_%lld%09ld.json", (long long)ts.tv_sec, (long)ts.tv_nsec);
}

int mscli_run(const struct mscli_compare *c, char *const *const *stages, size_t n, struct strbuf *err)
{
	const char *out = c->output ? c->output : "./output";
	struct strbuf path = STRBUF_INIT;
	struct partial *p = NULL;
	int status[MSCLI_MAX_STAGES], fd = -1, ret;

	if (n > MSCLI_MAX_STAGES) {
		strbuf_addf(err, "a pipeline of %zu stages (at most %d)", n, MSCLI_MAX_STAGES);
		return -1;
	}
	if (c->diff_analyze) {
		if (partial_make_dirs(out, err) < 0)
			return -1;
		mscli_diff_analyze_path(out, &path);
		partial_init();
		fd = partial_create(path.buf, &p, err);
		strbuf_release(&path);
		if (fd < 0)
			return -1;
	}
	if (pipeline_run(stages, n, fd, status, err) < 0) {
		if (p)
			close(fd), partial_drop(p);
		return -1;
	}
	ret = mscli_status(status, n, c->diff_analyze);
	if (!p)
		return ret;
	if (close(fd) < 0) {
		ret = msg_fail(err, partial_tmp_name(p), "cannot write: %s", strerror(errno));
		partial_drop(p);
		return ret;
	}
	if (ret != PROBE_DIFFERENT) {
		partial_drop(p);
		return ret;
	}
	/* never over another run's file: _2, _3, ... before .json when the name is taken (partial.h) */
	strbuf_addstr(&path, partial_final_name(p));
	strbuf_setlen(&path, path.len - strlen(".json"));
	if (partial_commit_numbered(p, path.buf, ".json", NULL, err) < 0)
		ret = -1;
	strbuf_release(&path);
	return ret;
}
