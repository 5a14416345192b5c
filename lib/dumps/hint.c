#include "hint.h"
#include "mscli.h"
#include "../records/leafrec.h"
#include "../core/msg.h"
#include "../core/source.h"
#include "../core/textesc.h"
#include "../core/xalloc.h"

#include <sys/stat.h>

struct ms_seen {
	bool given;
	const char *spelled; /* as first typed: its first spelled_len bytes, without "=value" */
	int spelled_len;
	const char *value;   /* NULL: none */
};

/* "probe-match [-f] [--api-mapping] [--data-mapping F] [--cell-mapping[=F]] GOLDEN" */
static void add_match(struct strbuf *sb, const struct ms_seen *seen)
{
	strbuf_addstr(sb, "probe-match");
	if (seen[MS_FUZZY].given)
		strbuf_addstr(sb, " -f");
	/* -am FILE (a user's table of APIs and argument indexes) has no word yet: its built-in table only */
	if (seen[MS_API_MAPPING].given && !seen[MS_API_MAPPING].value)
		strbuf_addstr(sb, " --api-mapping");
	if (seen[MS_DATA_MAPPING].given) {
		strbuf_addstr(sb, " --data-mapping ");
		if (seen[MS_DATA_MAPPING].value)
			text_sh_path(sb, seen[MS_DATA_MAPPING].value);
		else
			strbuf_addstr(sb, "FILE");
	}
	if (seen[MS_CELL_MAPPING].given) {
		strbuf_addstr(sb, " --cell-mapping");
		if (seen[MS_CELL_MAPPING].value) {
			strbuf_addch(sb, '=');
			text_sh_word(sb, seen[MS_CELL_MAPPING].value);
		}
	}
	strbuf_addch(sb, ' ');
	if (seen[MS_GOLDEN].value)
		text_sh_path(sb, seen[MS_GOLDEN].value);
	else
		strbuf_addstr(sb, "GOLDEN");
}

/* "\n  for WHAT:\n    CMD" */
static void add_use(struct strbuf *msg, const char *what, const struct strbuf *cmd)
{
	strbuf_addf(msg, "\n  for %s:\n    %s", what, cmd->buf);
}

bool hint_msprobe_compare(int argc, char **argv, struct strbuf *msg)
{
	struct ms_seen seen[MS_NR] = { { 0 } };
	struct strbuf head = STRBUF_INIT, first = STRBUF_INIT, table = STRBUF_INIT;
	const struct ms_seen *t = &seen[MS_TARGET], *g = &seen[MS_GOLDEN];
	const char *out_dir;

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		size_t n;
		const char *value;
		enum mscli_option w = mscli_option_of(argv[i], &n, &value);
		if (w == MS_NR)
			continue;
		if (!seen[w].given) {
			seen[w].spelled = argv[i];
			seen[w].spelled_len = (int)n;
		}
		seen[w].given = true;
		seen[w].value = NULL;
		if (mscli_options[w].arg == MS_NO_ARG)
			continue;
		/* as argparse takes them: the next word, unless it looks like an option */
		if (!value && i + 1 < argc && argv[i + 1][0] != '-')
			value = argv[++i];
		seen[w].value = value && *value ? value : NULL;
	}
	if (!t->given && !g->given)
		return false;
	out_dir = seen[MS_OUTPUT].value;

	if (t->given && g->given)
		strbuf_addf(msg, "%.*s and %.*s are msprobe compare's options", t->spelled_len, t->spelled,
			    g->spelled_len, g->spelled);
	else
		strbuf_addf(msg, "%.*s is msprobe compare's option", t->given ? t->spelled_len : g->spelled_len,
			    t->given ? t->spelled : g->spelled);
	strbuf_addstr(msg, "; probe compares as a pipeline:");

	strbuf_addstr(&head, "probe-flatten ");
	if (t->value)
		text_sh_path(&head, t->value);
	else
		strbuf_addstr(&head, "TARGET");
	strbuf_addstr(&head, " | ");
	add_match(&head, seen);
	strbuf_addf(&first, "%s | probe-first --format text", head.buf);
	if (out_dir) {
		strbuf_addf(&table, "%s | probe-metric -o ", head.buf);
		text_sh_path(&table, out_dir);
	} else {
		strbuf_addf(&table, "%s | probe-metric --csv > compare_result.csv", head.buf);
	}
	add_use(msg, "the first divergence, as a report", &first);
	add_use(msg, out_dir ? "msprobe's compare_result CSV files, one per rank" : "msprobe's compare_result table",
		&table);
	strbuf_release(&head);
	strbuf_release(&first);
	strbuf_release(&table);
	return true;
}

/* What a probe-match operand holds, as far as its first bytes tell. */
enum holds { HOLDS_OTHER, HOLDS_DUMP, HOLDS_RECORDS };

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

/* Whether a first member named key[0..n) whose value starts with v is one msprobe's dumper writes first. */
static bool dump_member(const char *key, size_t n, char v)
{
	static const char *const strings[] = { "task", "level", "framework", "dump_data_dir" };
	if (n == 4 && !memcmp(key, "data", 4))
		return v == '{';
	for (size_t i = 0; i < ARRAY_SIZE(strings); i++)
		if (strlen(strings[i]) == n && !memcmp(key, strings[i], n))
			return v == '"' || v == 'n';
	return false;
}

/* The first n bytes of a file (all of it when complete): a dump, leaf records, or something else. */
static enum holds holds_text(const char *buf, size_t n, bool complete)
{
	const char *end = buf + n, *p = skip_blanks(buf, end), *line = p, *nl, *key;
	struct leafrec r;
	const char *why;

	if (p >= end || *p != '{')
		return HOLDS_OTHER;
	nl = memchr(line, '\n', (size_t)(end - line));
	/* a whole first line that is a leaf record: records, whatever else */
	if (nl || complete) {
		size_t len = (size_t)((nl ? nl : end) - line);
		if (len && line[len - 1] == '\r')
			len--;
		if (!leafrec_parse(&r, line, len, &why))
			return HOLDS_RECORDS;
	}
	p = skip_blanks(p + 1, end);
	if (p >= end || *p != '"')
		return HOLDS_OTHER;
	key = ++p;
	while (p < end && *p != '"' && *p != '\\')
		p++;
	if (p >= end || *p != '"')
		return HOLDS_OTHER;
	size_t klen = (size_t)(p - key);
	p = skip_blanks(p + 1, end);
	if (p >= end || *p != ':')
		return HOLDS_OTHER;
	p = skip_blanks(p + 1, end);
	return p < end && dump_member(key, klen, *p) ? HOLDS_DUMP : HOLDS_OTHER;
}

static enum holds holds_of(const char *path)
{
	struct stat st;
	enum holds h = HOLDS_OTHER;

	if (!strcmp(path, "-") || stat(path, &st))
		return HOLDS_OTHER;
	if (S_ISDIR(st.st_mode)) {
		struct dump_list list = DUMP_LIST_INIT;
		struct strbuf err = STRBUF_INIT;
		bool quiet = msg_is_quiet();
		msg_set_quiet(true); /* its warnings are for when it is read */
		if (!layout_discover(path, &list, &err) && list.nr)
			h = HOLDS_DUMP;
		msg_set_quiet(quiet);
		layout_release(&list);
		strbuf_release(&err);
		return h;
	}
	if (S_ISREG(st.st_mode)) {
		/* a regular file only: the bytes of a pipe, once read, are gone for the reader */
		struct strbuf err = STRBUF_INIT;
		struct source *src = source_open(path, &err);
		char *buf = xmalloc(HINT_PEEK);
		size_t n = 0;
		ssize_t got = 1;
		while (src && n < HINT_PEEK && (got = source_read(src, buf + n, HINT_PEEK - n)) > 0)
			n += (size_t)got;
		if (src && got >= 0)
			h = holds_text(buf, n, got == 0);
		source_close(src);
		free(buf);
		strbuf_release(&err);
	}
	return h;
}

bool hint_dump_operand(const char *golden, const char *records, struct strbuf *msg)
{
	struct stat st;
	/* a golden operand that is not there: its own error comes first */
	if (stat(golden, &st) || holds_of(records) != HOLDS_DUMP)
		return false;
	strbuf_addf(msg, "%s: a dump, not target records; the target run comes through probe-flatten:\n  ", records);
	if (holds_of(golden) == HOLDS_RECORDS) {
		/* the golden side is records already: the dump is the target */
		strbuf_addstr(msg, "probe-flatten ");
		text_sh_path(msg, records);
		strbuf_addstr(msg, " | probe-match ");
		text_sh_path(msg, golden);
		return true;
	}
	/* two dumps: most likely in msprobe's order, -tp's before -gp's */
	strbuf_addstr(msg, "probe-flatten ");
	text_sh_path(msg, golden);
	strbuf_addstr(msg, " | probe-match ");
	text_sh_path(msg, records);
	if (strcmp(golden, records))
		strbuf_addf(msg, "\ntaking %s as the target run and %s as the golden one (msprobe's order); "
			    "if not, swap them", golden, records);
	return true;
}

/* Drop k trailing components of the path in sb; false when it has fewer to drop. */
static bool strip_components(struct strbuf *sb, int k)
{
	while (k-- > 0) {
		const char *slash;
		while (sb->len > 1 && sb->buf[sb->len - 1] == '/')
			strbuf_setlen(sb, sb->len - 1);
		slash = strrchr(sb->buf, '/');
		if (!slash)
			return false;
		strbuf_setlen(sb, slash == sb->buf ? 1 : (size_t)(slash - sb->buf));
	}
	return true;
}

/*
 * The directory `up` levels above the dump file at path (0: the one holding
 * it), named <prefix><n>: as path spells it when its name says so, else
 * resolved (a path without that many directories, one ending in "." or
 * "..", a link).
 */
static char *named_dir(const char *path, int up, const char *prefix, int64_t n)
{
	struct strbuf sb = STRBUF_INIT;
	const char *base;
	strbuf_addstr(&sb, path);
	if (strip_components(&sb, up + 1)) {
		base = strrchr(sb.buf, '/');
		if (layout_parse_numbered(base ? base + 1 : sb.buf, prefix) == n)
			return strbuf_detach(&sb, NULL);
	}
	char *real = realpath(path, NULL);
	strbuf_reset(&sb);
	strbuf_addstr(&sb, real ? real : path);
	free(real);
	strip_components(&sb, up + 1);
	return strbuf_detach(&sb, NULL);
}

void hint_relabel(const struct dump_file *df, int64_t rank, int64_t step)
{
	if (df->csv)
		return; /* a CSV keeps the ranks of its file name */
	if (rank >= 0 && df->rank >= 0 && rank != df->rank) {
		char *dir = named_dir(df->path, 0, "rank", df->rank);
		warning("%s is rank %lld's directory; --rank %lld relabels its records as rank %lld", dir,
			(long long)df->rank, (long long)rank, (long long)rank);
		free(dir);
	}
	if (step >= 0 && df->step >= 0 && step != df->step) {
		char *dir = named_dir(df->path, 1, "step", df->step);
		warning("%s is step %lld's directory; --step %lld relabels its records as step %lld", dir,
			(long long)df->step, (long long)step, (long long)step);
		free(dir);
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* The number of distinct values in v[0..n) (sorts it). */
static size_t distinct(int64_t *v, size_t n)
{
	size_t d = 0;
	qsort(v, n, sizeof(*v), cmp_i64);
	for (size_t i = 0; i < n; i++)
		d += !i || v[i] != v[i - 1];
	return d;
}

void hint_one_dump(const struct dump_list *list, struct strbuf *msg)
{
	size_t n = list->nr, ranks, steps;
	int64_t *r, *s;
	bool known = true;

	if (n < 2)
		return;
	r = xcalloc(n, sizeof(*r));
	s = xcalloc(n, sizeof(*s));
	for (size_t i = 0; i < n; i++) {
		r[i] = list->v[i].rank;
		s[i] = list->v[i].step;
		known &= !list->v[i].csv && r[i] >= 0 && s[i] >= 0;
	}
	ranks = known ? distinct(r, n) : 0;
	steps = known ? distinct(s, n) : 0;
	free(r);
	free(s);
	if (!known)
		return;
	if (ranks == n)
		strbuf_addstr(msg, "; --only-ranks R reads one rank of them");
	else if (ranks > 1 && ranks * steps == n)
		strbuf_addstr(msg, "; --only-ranks R on one step<N> directory reads one of them");
	else if (steps == n)
		strbuf_addstr(msg, "; one step<N> directory holds one of them");
}
