#include "opt.h"
#include "strbuf.h"
#include "msg.h"
#include "xalloc.h"

#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

enum { OPT_HELP = 1000, OPT_VERSION, OPT_LIST_OPTIONS };

static struct option *long_options;
static char *short_options;
static const struct tool_spec *built_for;

static void build(const struct tool_spec *spec)
{
	size_t n = 0, k = 0;
	if (built_for == spec)
		return;
	long_options = xcalloc(spec->nopts + 4, sizeof(*long_options));
	short_options = xcalloc(spec->nopts * 3 + 4, 1);
	short_options[k++] = '+'; /* stop at the first operand, as POSIX tools do */
	short_options[k++] = ':'; /* tell a missing argument from an unknown option */
	short_options[k++] = 'h';
	for (size_t i = 0; i < spec->nopts; i++) {
		const struct opt_spec *o = &spec->opts[i];
		long_options[n++] = (struct option){ o->long_name,
						     !o->arg ? no_argument
						     : (o->flags & OPT_OPTIONAL) ? optional_argument : required_argument,
						     NULL, o->id };
		if (o->short_name) {
			short_options[k++] = o->short_name;
			if (o->arg)
				short_options[k++] = ':';
			if (o->arg && (o->flags & OPT_OPTIONAL))
				short_options[k++] = ':';
		}
	}
	long_options[n++] = (struct option){ "help", no_argument, NULL, OPT_HELP };
	long_options[n++] = (struct option){ "version", no_argument, NULL, OPT_VERSION };
	long_options[n++] = (struct option){ "list-options", no_argument, NULL, OPT_LIST_OPTIONS };
	built_for = spec;
}

static void opt_usage(const struct tool_spec *spec, FILE *f)
{
	const char *s = spec->synopsis;
	bool first = true;
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		fprintf(f, "%s %s %.*s\n", first ? "usage:" : "      ", spec->name, (int)n, s);
		first = false;
		s += n + (nl ? 1 : 0);
	}
}

/* "a, b or c": the fixed values of an option, from its table entry. */
static void add_choices(struct strbuf *out, const char *choices)
{
	for (const char *p = choices; *p;) {
		size_t len = strcspn(p, "|");
		bool last = !p[len];
		if (p != choices)
			strbuf_addstr(out, last ? " or " : ", ");
		strbuf_add(out, p, len);
		p += len + !last;
	}
}

/* The values an option takes, on a line of their own under its help ("ARG: a, b or c"). */
static void print_choices(const struct opt_spec *o)
{
	struct strbuf sb = STRBUF_INIT;
	add_choices(&sb, o->choices);
	printf("  %-24s %s: %s\n", "", o->arg ? o->arg : "the value", sb.buf);
	strbuf_release(&sb);
}

static void opt_help(const struct tool_spec *spec)
{
	opt_usage(spec, stdout);
	printf("\n%s\n\noptions:\n", spec->summary);
	for (size_t i = 0; i < spec->nopts; i++) {
		const struct opt_spec *o = &spec->opts[i];
		char left[64];
		const char *sep = !o->arg ? "" : (o->flags & OPT_OPTIONAL) ? "[=" : " ";
		const char *close = o->arg && (o->flags & OPT_OPTIONAL) ? "]" : "";
		if (o->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s%s", o->short_name, o->long_name, sep,
				 o->arg ? o->arg : "", close);
		else
			snprintf(left, sizeof(left), "    --%s%s%s%s", o->long_name, sep, o->arg ? o->arg : "", close);
		printf("  %-24s %s\n", left, o->help);
		if (o->choices)
			print_choices(o);
	}
	printf("  %-24s %s\n", "-h, --help", "print this help and exit");
	printf("  %-24s %s\n", "    --version", "print the version and exit");
	printf("\nSee %s(1).\n", spec->name);
}

/* One line per option: short, long, argument, choices, flags, help (tab-separated). */
static void list_options(const struct tool_spec *spec)
{
	for (size_t i = 0; i < spec->nopts; i++) {
		const struct opt_spec *o = &spec->opts[i];
		printf("%c\t%s\t%s\t%s\t%s%s%s%s\t%s\n", o->short_name ? o->short_name : '-', o->long_name,
		       o->arg ? o->arg : "-", o->choices ? o->choices : "-",
		       o->flags & OPT_FILE ? "f" : "", o->flags & OPT_DIR ? "d" : "",
		       o->flags & OPT_DUMP ? "D" : "", o->flags & OPT_OPTIONAL ? "o" : "", o->help);
	}
	printf("h\thelp\t-\t-\t\tprint this help and exit\n");
	printf("-\tversion\t-\t-\t\tprint the version and exit\n");
	printf("operands\t%s%s%s\n", spec->operand_flags & OPT_FILE ? "f" : "",
	       spec->operand_flags & OPT_DIR ? "d" : "", spec->operand_flags & OPT_DUMP ? "D" : "");
}

void opt_usage_error(const struct tool_spec *spec, const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT;
	va_list ap;
	strbuf_addf(&msg, "%s: ", spec->name);
	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", msg.buf);
	opt_usage(spec, stderr);
	/* a tool that writes records ends its stream with the error too, so that the tools after it stop quietly */
	msg_run_die_hook(msg.buf);
	exit(PROBE_TROUBLE);
}

/*
 * The end of --help, --version and --list-options: status 0 once every
 * byte reached stdout; a write error is said ("write error: No space left
 * on device") and is status 2; a closed pipe ends quietly, by SIGPIPE.
 */
static void NORETURN exit_printed(const struct tool_spec *spec)
{
	if (!fflush(stdout) && !ferror(stdout))
		exit(PROBE_OK);
	if (errno == EPIPE) {
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
	}
	fprintf(stderr, "%s: write error: %s\n", spec->name, errno ? strerror(errno) : "an input/output error");
	exit(PROBE_TROUBLE);
}

int opt_next(const struct tool_spec *spec, int argc, char **argv, const char **optarg_out, int *optind_out)
{
	int c;
	build(spec);
	opterr = 0;
	c = getopt_long(argc, argv, short_options, long_options, NULL);
	*optind_out = optind;
	*optarg_out = optarg;
	switch (c) {
	case -1:
		return -1;
	case 'h':
	case OPT_HELP:
		errno = 0;
		opt_help(spec);
		exit_printed(spec);
	case OPT_VERSION:
		errno = 0;
		printf("%s %s\n", spec->name, PROBE_VERSION);
		exit_printed(spec);
	case OPT_LIST_OPTIONS:
		errno = 0;
		list_options(spec);
		exit_printed(spec);
	case ':':
	case '?': {
		char letter[3] = { '-', (char)optopt, 0 };
		const char *what = optopt > 0 && optopt < 256 ? letter : argv[optind - 1];
		opt_usage_error(spec, "%s: %s", c == ':' ? "option needs an argument" : "unknown option", what);
	}
	default:
		return c;
	}
}

int opt_choice(const struct tool_spec *spec, int id, const char *arg)
{
	const struct opt_spec *o = NULL;
	const char *p;
	int i = 0;

	for (size_t k = 0; k < spec->nopts && !o; k++)
		if (spec->opts[k].id == id)
			o = &spec->opts[k];
	for (p = o ? o->choices : NULL; p; i++) {
		size_t len = strcspn(p, "|");
		if (strlen(arg) == len && !strncmp(p, arg, len))
			return i;
		p = p[len] ? p + len + 1 : NULL;
	}
	struct strbuf values = STRBUF_INIT;
	if (o && o->choices)
		add_choices(&values, o->choices);
	opt_usage_error(spec, "unknown --%s: %s (%s)", o ? o->long_name : "?", arg, values.len ? values.buf : "no values");
}

long long opt_number(const struct tool_spec *spec, const char *option, const char *text, long long min,
		     long long max)
{
	char *end;
	long long v;
	errno = 0;
	v = strtoll(text, &end, 10);
	if (!*text || *end || (text[0] == ' '))
		opt_usage_error(spec, "%s value is not a number: %s", option, text);
	if (errno == ERANGE || v > max)
		opt_usage_error(spec, "%s value is too large: %s", option, text);
	if (v < min)
		opt_usage_error(spec, "%s value is too small: %s", option, text);
	return v;
}

double opt_tolerance(const struct tool_spec *spec, const char *option, const char *text)
{
	char *end;
	double x = strtod(text, &end);
	if (!*text || *end || !(x >= 0) || isinf(x))
		opt_usage_error(spec, "%s value is not a number >= 0: %s", option, text);
	return x;
}

void opt_output_dir(const struct tool_spec *spec, const char *dir, const char *output_file,
		    const char *const *file_suffixes)
{
	struct stat st;
	size_t n;
	if (!dir)
		return;
	if (output_file)
		opt_usage_error(spec, "-o DIR and --output-file FILE are two places to write: give one");
	n = strlen(dir);
	if (!stat(dir, &st) && S_ISDIR(st.st_mode))
		return;
	for (const char *const *s = file_suffixes; *s; s++) {
		size_t k = strlen(*s);
		if (n > k && !strcasecmp(dir + n - k, *s))
			opt_usage_error(spec, "-o takes a folder, as msprobe's -o does (the file is named there, with "
					      "a timestamp); to write one file, give --output-file %s", dir);
	}
}

const char *opt_input_operand(const struct tool_spec *spec, int argc, char **argv, const char *what)
{
	if (argc > 1)
		opt_usage_error(spec, "too many operands");
	if ((!argc || !strcmp(argv[0], "-")) && isatty(0))
		opt_usage_error(spec, "no %s given and standard input is a terminal", what);
	return argc ? argv[0] : "-";
}

void opt_range(const struct tool_spec *spec, const char *option, const char *text, int64_t *from, int64_t *to)
{
	const char *colon = strchr(text, ':');
	char *end;
	long long a = 0, b = -1;
	if (!colon)
		opt_usage_error(spec, "%s value is not A:B: %s", option, text);
	if (colon != text) {
		a = strtoll(text, &end, 10);
		if (end != colon || a < 0 || text[0] == '-' || text[0] == ' ')
			opt_usage_error(spec, "%s value is not A:B: %s", option, text);
	}
	if (colon[1]) {
		b = strtoll(colon + 1, &end, 10);
		if (*end || b < 0 || colon[1] == '-' || colon[1] == ' ')
			opt_usage_error(spec, "%s value is not A:B: %s", option, text);
		if (b < a)
			opt_usage_error(spec, "%s value ends before it starts: %s", option, text);
	}
	*from = a;
	*to = b;
}
