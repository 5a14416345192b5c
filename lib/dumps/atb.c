/*
 * atb.c: ATB dumps (statistic.csv and .bin files) as leaf records (atb.h).
 */
#include "atb.h"
#include "../core/compat.h"
#include "../core/msg.h"
#include "../core/source.h"
#include "../core/strmap.h"
#include "../core/textesc.h"
#include "../core/xalloc.h"
#include "../json/jsonw.h"
#include "../tensors/tensor.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define ATB_NCOLS 15
enum {
	A_DEVICE, A_EXEC, A_OP_NAME, A_OP_TYPE, A_OP_ID, A_IO, A_INDEX, A_DTYPE, A_FORMAT, A_SHAPE, A_MAX, A_MIN,
	A_MEAN, A_NORM, A_PATH
};
static const char atb_header[] = "Device and PID,Execution Count,Op Name,Op Type,Op Id,Input/Output,Index,Dtype,"
				 "Format,Shape,Max,Min,Mean,Norm,Tensor Path";

/* ---- the layout ------------------------------------------------------------------- */

static char *join(const char *dir, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, dir);
	if (sb.len && sb.buf[sb.len - 1] != '/')
		strbuf_addch(&sb, '/');
	strbuf_addstr(&sb, name);
	return strbuf_detach(&sb, NULL);
}

static bool is_dir(const char *p)
{
	struct stat st;
	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

static bool has_file(const char *dir, const char *name)
{
	char *p = join(dir, name);
	struct stat st;
	bool yes = !stat(p, &st) && S_ISREG(st.st_mode);
	free(p);
	return yes;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* "<device>_<pid>": digits, '_', digits. */
static bool device_pid_name(const char *s)
{
	const char *u = strchr(s, '_');
	if (!u || u == s || !u[1])
		return false;
	for (const char *p = s; *p; p++)
		if (p != u && !isdigit((unsigned char)*p))
			return false;
	return true;
}

struct names {
	char **v;
	size_t n, alloc;
};

static void names_free(struct names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

static int cmp_number(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t lx = strlen(x), ly = strlen(y);
	return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The subdirectories of dir whose name passes keep, sorted by cmp. */
static int subdirs(const char *dir, bool (*keep)(const char *), int (*cmp)(const void *, const void *),
		   struct names *out, struct strbuf *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	if (!d)
		return msg_fail(err, dir, "cannot read the directory: %s", strerror(errno));
	while ((de = readdir(d))) {
		char *p;
		if (!keep(de->d_name))
			continue;
		p = join(dir, de->d_name);
		if (is_dir(p)) {
			ALLOC_GROW(out->v, out->n + 1, out->alloc);
			out->v[out->n++] = xstrdup(de->d_name);
		}
		free(p);
	}
	closedir(d);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp);
	return 0;
}

static bool device_has_execs(const char *dir);

/* Whether dir holds <device>_<pid> folders, the first of them of exec folders (a data folder by another name). */
static bool holds_device_dirs(const char *dir)
{
	struct names dev = { 0 };
	struct strbuf ignored = STRBUF_INIT;
	bool yes = !subdirs(dir, device_pid_name, cmp_name, &dev, &ignored) && dev.n;
	if (yes) {
		char *p = join(dir, dev.v[0]);
		yes = device_has_execs(p);
		free(p);
	}
	names_free(&dev);
	strbuf_release(&ignored);
	return yes;
}

/* The data folder of an ATB root: path/atb_dump_data/data, path/data, path itself when it holds device folders, or NULL. */
static char *data_dir_of(const char *path)
{
	static const char *const tails[] = { "atb_dump_data/data", "data" };
	for (size_t i = 0; i < ARRAY_SIZE(tails); i++) {
		char *p = join(path, tails[i]);
		struct names dev = { 0 };
		struct strbuf ignored = STRBUF_INIT;
		bool yes = is_dir(p) && !subdirs(p, device_pid_name, cmp_name, &dev, &ignored) && dev.n;
		names_free(&dev);
		strbuf_release(&ignored);
		if (yes && (i == 0 || strstr(path, "atb_dump_data")))
			return p;
		free(p);
	}
	return holds_device_dirs(path) ? xstrdup(path) : NULL;
}

static bool device_has_execs(const char *dir)
{
	struct names ex = { 0 };
	struct strbuf ignored = STRBUF_INIT;
	bool yes = !subdirs(dir, all_digits, cmp_number, &ex, &ignored) && ex.n;
	for (size_t i = 0; yes && i < ex.n; i++) {
		char *p = join(dir, ex.v[i]);
		yes = has_file(p, "statistic.csv");
		free(p);
	}
	names_free(&ex);
	strbuf_release(&ignored);
	return yes;
}

/* The last component of path ("a/b/" -> "b") into out. */
static void last_name(const char *path, size_t up, struct strbuf *out)
{
	size_t n = strlen(path);
	strbuf_reset(out);
	for (size_t i = 0;; i++) {
		while (n > 1 && path[n - 1] == '/')
			n--;
		size_t end = n;
		while (n && path[n - 1] != '/')
			n--;
		if (i == up) {
			strbuf_add(out, path + n, end - n);
			return;
		}
		if (!n)
			return;
	}
}

void atb_exec_labels(const char *exec_dir, int64_t *device, int64_t *exec)
{
	struct strbuf name = STRBUF_INIT;
	char *real = realpath(exec_dir, NULL); /* so that "." and ".." say where they are */
	if (real)
		exec_dir = real;
	last_name(exec_dir, 0, &name);
	*exec = all_digits(name.buf) && name.len < 19 ? strtoll(name.buf, NULL, 10) : -1;
	last_name(exec_dir, 1, &name);
	*device = device_pid_name(name.buf) && strcspn(name.buf, "_") < 19 ? strtoll(name.buf, NULL, 10) : -1;
	strbuf_release(&name);
	free(real);
}

bool atb_is_dump(const char *path)
{
	char *data;
	int64_t device, exec;
	if (!is_dir(path))
		return false;
	if (has_file(path, "statistic.csv"))
		return true;
	atb_exec_labels(path, &device, &exec);
	if (device >= 0 && exec >= 0)
		return true; /* .../<device>_<pid>/<exec count>/ without its statistic.csv: atb_exec_dirs() says so */
	if ((data = data_dir_of(path))) {
		free(data);
		return true;
	}
	return device_has_execs(path);
}

static int add_execs(const char *device_dir, char ***dirs, size_t *n, size_t *alloc, struct strbuf *err)
{
	struct names ex = { 0 };
	if (subdirs(device_dir, all_digits, cmp_number, &ex, err) < 0)
		return -1;
	for (size_t i = 0; i < ex.n; i++) {
		ALLOC_GROW(*dirs, *n + 1, *alloc);
		(*dirs)[(*n)++] = join(device_dir, ex.v[i]);
	}
	names_free(&ex);
	return 0;
}

int atb_exec_dirs(const char *path, char ***dirs, size_t *n, struct strbuf *err)
{
	size_t alloc = 0, start = *n;
	int64_t device, exec;
	char *data;
	if (has_file(path, "statistic.csv")) {
		ALLOC_GROW(*dirs, *n + 1, alloc);
		(*dirs)[(*n)++] = xstrdup(path);
		return 1;
	}
	alloc = *n;
	atb_exec_labels(path, &device, &exec);
	if (device >= 0 && exec >= 0)
		return msg_fail(err, path, "an ATB exec folder without its statistic.csv");
	if ((data = data_dir_of(path))) {
		struct names dev = { 0 };
		int ret = subdirs(data, device_pid_name, cmp_name, &dev, err);
		for (size_t i = 0; !ret && i < dev.n; i++) {
			char *p = join(data, dev.v[i]);
			ret = add_execs(p, dirs, n, &alloc, err);
			free(p);
		}
		names_free(&dev);
		free(data);
		if (ret < 0)
			return -1;
	} else if (add_execs(path, dirs, n, &alloc, err) < 0) {
		return -1;
	}
	for (size_t i = start; i < *n; i++)
		if (!has_file((*dirs)[i], "statistic.csv"))
			return msg_fail(err, (*dirs)[i], "an ATB exec folder without its statistic.csv");
	if (*n == start)
		return msg_fail(err, path, "no ATB exec folder (one holding statistic.csv) here");
	return (int)(*n - start);
}

/* ---- statistic.csv ------------------------------------------------------------------ */

struct atb_row {
	size_t line;
	char *f[ATB_NCOLS];   /* the fields, NUL-terminated, into the file's copy */
	char *name;           /* msprobe's data name */
	size_t entry_len;     /* the entry: name[0, entry_len) */
	size_t last_dup;      /* a later row of the same name, whose values this one shows: its index + 1 (0: none) */
	bool dup;             /* a later row of an earlier name: shown there, not here */
};

struct atb_file {
	const char *path, *exec_dir;
	char *text;
	struct atb_row *rows;
	size_t nr, alloc;
	struct atb_read_stats *st;
	int64_t rank, step;   /* the caller's labels, or -1: the row's */
	bool tensor;
};

/* "FILE:LINE: what" in err; -1. */
static int fail_at(struct strbuf *err, const struct atb_file *af, size_t line, const char *fmt, ...) PRINTF_LIKE(4, 5);
static int fail_at(struct strbuf *err, const struct atb_file *af, size_t line, const char *fmt, ...)
{
	va_list ap;
	strbuf_addf(err, "%s:%zu: ", af->path, line);
	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return -1;
}

static int read_whole(const char *path, char **out, struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[1 << 16];
	size_t got;
	FILE *f = source_fopen_regular(path, err);
	if (!f)
		return -1;
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&sb, buf, got);
	if (ferror(f)) {
		fclose(f);
		strbuf_release(&sb);
		return msg_fail(err, path, "cannot read: %s", strerror(errno));
	}
	fclose(f);
	strbuf_grow(&sb, 1);
	*out = strbuf_detach(&sb, NULL);
	return 0;
}

/* Split a line at its commas into at most max fields (the rest stays in the last); the number of fields. */
static int split_fields(char *line, char **f, int max)
{
	int n = 0;
	char *p = line;
	for (;;) {
		char *c = strchr(p, ',');
		if (n < max)
			f[n] = p;
		n++;
		if (!c)
			return n;
		*c = '\0';
		p = c + 1;
	}
}

static size_t count_char(const char *s, char c)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == c;
	return n;
}

/* msprobe's data name: "<id>_<name>/" per level of Op Id and Op Name, then "<io>.<index>". */
static char *data_name(const struct atb_row *r, size_t *entry_len)
{
	struct strbuf sb = STRBUF_INIT;
	const char *id = r->f[A_OP_ID], *nm = r->f[A_OP_NAME];
	while (*id || *nm) {
		size_t il = strcspn(id, "_"), nl = strcspn(nm, "/");
		strbuf_add(&sb, id, il);
		strbuf_addch(&sb, '_');
		strbuf_add(&sb, nm, nl);
		strbuf_addch(&sb, '/');
		id += il + (id[il] == '_');
		nm += nl + (nm[nl] == '/');
	}
	*entry_len = sb.len ? sb.len - 1 : 0;
	strbuf_addf(&sb, "%s.%s", r->f[A_IO], r->f[A_INDEX]);
	return strbuf_detach(&sb, NULL);
}

static void chop_cr(char *line)
{
	size_t n = strlen(line);
	if (n && line[n - 1] == '\r')
		line[n - 1] = '\0';
}

static int parse_rows(struct atb_file *af, struct strbuf *err)
{
	struct strmap seen = STRMAP_INIT;
	char *p = af->text ? af->text : "", *nl;
	size_t line = 0;
	bool created;
	int ret = 0;
	for (; !ret && *p; p = nl ? nl + 1 : p + strlen(p)) {
		struct atb_row r = { 0 };
		int nf;
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		chop_cr(p);
		if (++line == 1) {
			if (strcmp(p, atb_header))
				ret = fail_at(err, af, 1, "not ATB's statistic.csv header (%s)", atb_header);
			continue;
		}
		if (!*p)
			continue;
		af->st->rows++;
		nf = split_fields(p, r.f, ATB_NCOLS);
		if (nf != ATB_NCOLS) {
			warning("%s:%zu: %d fields, not 15: row skipped (msprobe skips it without a word)", af->path, line, nf);
			af->st->skipped++;
			continue;
		}
		if (count_char(r.f[A_OP_NAME], '/') != count_char(r.f[A_OP_ID], '_')) {
			warning("%s:%zu: Op Name %s has %zu levels and Op Id %s %zu: row skipped (msprobe skips it without a "
				"word)", af->path, line, r.f[A_OP_NAME], count_char(r.f[A_OP_NAME], '/') + 1, r.f[A_OP_ID],
				count_char(r.f[A_OP_ID], '_') + 1);
			af->st->skipped++;
			continue;
		}
		r.line = line;
		r.name = data_name(&r, &r.entry_len);
		struct strmap_slot *s = strmap_put(&seen, r.name, strlen(r.name), &created);
		if (!created && af->rows) {
			struct atb_row *first = &af->rows[s->value.u];
			warning("%s:%zu: %s again (first on line %zu): its values replace the first's, which keeps its place, "
				"as msprobe does", af->path, line, r.name, first->line);
			af->st->duplicates++;
			r.dup = true;
			ALLOC_GROW(af->rows, af->nr + 1, af->alloc);
			af->rows[af->nr] = r;
			af->rows[s->value.u].last_dup = ++af->nr;
			continue;
		}
		s->value.u = af->nr;
		ALLOC_GROW(af->rows, af->nr + 1, af->alloc);
		af->rows[af->nr++] = r;
	}
	strmap_release(&seen);
	if (!ret && !line)
		ret = msg_fail(err, af->path, "an empty file: no statistic.csv header");
	return ret;
}

/* ---- records -------------------------------------------------------------------------- */

/* Whether s is a number as JSON writes one (what %f prints, and integers). */
static bool json_number_text(const char *s)
{
	s += *s == '-';
	if (!isdigit((unsigned char)*s))
		return false;
	s += *s == '0' ? 1 : strspn(s, "0123456789");
	if (*s == '.') {
		if (!isdigit((unsigned char)*++s))
			return false;
		s += strspn(s, "0123456789");
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		s += *s == '+' || *s == '-';
		if (!isdigit((unsigned char)*s))
			return false;
		s += strspn(s, "0123456789");
	}
	return !*s;
}

static void add_number_or_skip(struct strbuf *out, const char *key, const char *v)
{
	if (!strcmp(v, "N/A") || !*v)
		return;
	strbuf_addf(out, ",\"%s\":", key);
	if (json_number_text(v))
		strbuf_addstr(out, v);
	else
		jsonw_str(out, v); /* "nan", "inf", "-nan" as %f prints them, or no number: kept as text */
}

static int add_shape(struct strbuf *out, const char *shape, const struct atb_file *af, size_t line, struct strbuf *err)
{
	strbuf_addstr(out, ",\"shape\":[");
	for (const char *p = shape; *p;) {
		size_t n = strspn(p, "0123456789");
		if (!n || (p[n] && p[n] != 'x'))
			return fail_at(err, af, line, "Shape \"%s\" is not sizes joined by 'x'", shape);
		if (p != shape)
			strbuf_addch(out, ',');
		strbuf_add(out, p, n);
		p += n + (p[n] == 'x');
	}
	strbuf_addch(out, ']');
	return 0;
}

/* The Tensor Path as msprobe resolves it: after the last "atb_dump_data", parts [4:] under the exec folder. */
static int resolve_path(const char *exec_dir, const char *tensor_path, struct strbuf *out)
{
	const char *p = NULL, *q = tensor_path;
	while ((q = strstr(q, "atb_dump_data"))) {
		p = q;
		q++;
	}
	if (!p)
		return -1;
	p += strlen("atb_dump_data");
	for (int part = 0; part < 4; part++) {
		const char *s = strchr(p, '/');
		if (!s)
			return -1;
		p = s + 1;
	}
	strbuf_reset(out);
	strbuf_addstr(out, exec_dir);
	if (out->len && out->buf[out->len - 1] != '/')
		strbuf_addch(out, '/');
	strbuf_addstr(out, p);
	return 0;
}

static bool exists(const char *path)
{
	struct stat st;
	return !stat(path, &st);
}

/*
 * Whether file resolves (links followed) to a file inside the dump's folder
 * dir (also resolved), as tensor_open_leaf() holds a data_name to its
 * tensor folder: 0, or -1 with a message naming the file (and the alias
 * data= it came from, when alias is not NULL).
 */
static int inside_dump(const char *dir, const char *file, const char *bin, const char *alias, struct strbuf *err)
{
	char *real_dir = realpath(dir, NULL), *real = realpath(file, NULL);
	size_t n;
	int ret = 0;
	if (!real_dir || !real) {
		ret = alias ? msg_fail(err, bin, "its alias data=%s names %s: %s", alias, file, strerror(errno))
			    : msg_fail(err, bin, "%s", strerror(errno));
		goto out;
	}
	n = strlen(real_dir);
	if (n == 1) /* the folder is "/" */
		n = 0;
	if (strncmp(real, real_dir, n) || real[n] != '/') {
		if (alias)
			ret = msg_fail(err, bin, "its alias data=%s resolves to %s, outside the dump folder %s: only files "
					     "inside the dump folder are read", alias, real, real_dir);
		else
			ret = msg_fail(err, bin, "resolves to %s, outside the dump folder %s: only files inside the dump "
					     "folder are read", real, real_dir);
	}
out:
	free(real_dir);
	free(real);
	return ret;
}

/* The .bin file of a row; an alias followed to its target, the alias file then in alias_of. */
static int row_file(struct atb_file *af, const struct atb_row *r, struct strbuf *out, struct strbuf *alias_of,
		    struct strbuf *err)
{
	struct strbuf alias = STRBUF_INIT, target = STRBUF_INIT;
	int a;
	if (resolve_path(af->exec_dir, r->f[A_PATH], out) < 0)
		return fail_at(err, af, r->line, "Tensor Path %s has no atb_dump_data/data/<device>/<exec>/ part", r->f[A_PATH]);
	if (!exists(out->buf))
		return 0; /* a missing file: the tensor compare says so, as for any dump */
	if (inside_dump(af->exec_dir, out->buf, out->buf, NULL, err) < 0)
		return -1;
	a = tensor_atb_alias(out->buf, &alias, err);
	if (a <= 0) {
		strbuf_release(&alias);
		return a;
	}
	if (resolve_path(af->exec_dir, alias.buf, &target) < 0) {
		strbuf_reset(&target);
		strbuf_addbuf(&target, &alias);
	}
	if (!exists(target.buf)) {
		a = msg_fail(err, out->buf, "an alias (filter_level 1) of %s, which is not there", target.buf);
	} else if (inside_dump(af->exec_dir, target.buf, out->buf, alias.buf, err) < 0) {
		a = -1;
	} else {
		if (!af->st->aliases++)
			warning("%s: alias files (filter_level 1) followed to the file they name, e.g. %s -> %s (msprobe "
				"gives N/A there)", af->path, out->buf, target.buf);
		strbuf_addbuf(alias_of, out);
		strbuf_reset(out);
		strbuf_addbuf(out, &target);
		a = 0;
	}
	strbuf_release(&alias);
	strbuf_release(&target);
	return a;
}

/*
 * Whether dir is a bin's exec folder: it holds statistic.csv, or (*named)
 * it is named by digits inside a <device>_<pid> folder.
 */
static bool exec_dir_is(const char *dir, bool *named)
{
	struct strbuf name = STRBUF_INIT, parent = STRBUF_INIT;
	last_name(dir, 0, &name);
	last_name(dir, 1, &parent);
	*named = all_digits(name.buf) && device_pid_name(parent.buf);
	strbuf_release(&name);
	strbuf_release(&parent);
	return has_file(dir, "statistic.csv");
}

/*
 * The exec folder above path, spelt as path spells it: the nearest folder
 * holding statistic.csv, else the nearest one named as an exec folder.
 * NULL when path's folders name none.
 */
static char *exec_dir_above(const char *path)
{
	char *dir = xstrdup(path), *fallback = NULL, *slash;
	while ((slash = strrchr(dir, '/')) && slash != dir) {
		bool named;
		*slash = '\0';
		if (exec_dir_is(dir, &named)) {
			free(fallback);
			return dir;
		}
		if (named && !fallback)
			fallback = xstrdup(dir);
	}
	free(dir);
	return fallback;
}

/* The exec folder a .bin file lies in, as its path names it, else found from its real path; NULL: none. */
static char *exec_dir_of(const char *bin)
{
	char *dir = exec_dir_above(bin), *real;
	if (dir)
		return dir;
	if (!(real = realpath(bin, NULL)))
		return NULL;
	dir = exec_dir_above(real);
	free(real);
	return dir;
}

int atb_alias_target(const char *bin, struct strbuf *target, struct strbuf *err)
{
	struct strbuf alias = STRBUF_INIT;
	char *exec_dir;
	int a = tensor_atb_alias(bin, &alias, err);
	if (a <= 0) {
		strbuf_release(&alias);
		return a;
	}
	exec_dir = exec_dir_of(bin);
	strbuf_reset(target);
	if (!exec_dir || resolve_path(exec_dir, alias.buf, target) < 0)
		strbuf_addbuf(target, &alias);
	if (!exists(target->buf))
		a = msg_fail(err, bin, "an alias (filter_level 1) of %s, which is not there", target->buf);
	else if (!exec_dir)
		a = msg_fail(err, bin, "its alias data=%s: the .bin lies in no ATB dump folder, so the alias is not followed",
			     alias.buf);
	else if (inside_dump(exec_dir, target->buf, bin, alias.buf, err) < 0)
		a = -1;
	free(exec_dir);
	strbuf_release(&alias);
	return a;
}

static int64_t device_of(const char *device_pid)
{
	return strtoll(device_pid, NULL, 10);
}

static int emit_row(struct atb_file *af, const struct atb_row *pos, const struct atb_row *v, size_t seq,
		    struct strbuf *out, struct strbuf *err)
{
	struct strbuf file = STRBUF_INIT, alias_of = STRBUF_INIT;
	char *end;
	long long exec = strtoll(v->f[A_EXEC], &end, 10);
	if (*end || !*v->f[A_EXEC] || exec < 0)
		return fail_at(err, af, v->line, "Execution Count \"%s\" is not a number", v->f[A_EXEC]);
	if (strcmp(v->f[A_IO], "input") && strcmp(v->f[A_IO], "output"))
		return fail_at(err, af, v->line, "Input/Output \"%s\" is neither input nor output",
				v->f[A_IO]);
	strbuf_addf(out, "{\"rank\":%lld,\"step\":%lld,\"seq\":%zu,\"entry\":",
		    (long long)(af->rank >= 0 ? af->rank : device_of(v->f[A_DEVICE])), af->step >= 0 ? (long long)af->step : exec,
		    seq);
	jsonw_string(out, pos->name, pos->entry_len);
	strbuf_addstr(out, ",\"name\":");
	jsonw_str(out, pos->name);
	strbuf_addstr(out, ",\"key\":");
	jsonw_str(out, pos->name);
	strbuf_addf(out, ",\"state\":\"%s\",\"type\":\"atb.Tensor\",\"dtype\":", v->f[A_IO]);
	jsonw_str(out, v->f[A_DTYPE]);
	if (add_shape(out, v->f[A_SHAPE], af, v->line, err) < 0)
		return -1;
	add_number_or_skip(out, "max", v->f[A_MAX]);
	add_number_or_skip(out, "min", v->f[A_MIN]);
	add_number_or_skip(out, "mean", v->f[A_MEAN]);
	add_number_or_skip(out, "norm", v->f[A_NORM]);
	strbuf_addstr(out, ",\"attrs\":{\"op_type\":");
	jsonw_str(out, v->f[A_OP_TYPE]);
	strbuf_addstr(out, ",\"format\":");
	jsonw_str(out, v->f[A_FORMAT]);
	strbuf_addch(out, '}');
	if (strcmp(v->f[A_PATH], "N/A")) {
		if (row_file(af, v, &file, &alias_of, err) < 0) {
			strbuf_release(&file);
			strbuf_release(&alias_of);
			return -1;
		}
		strbuf_addstr(out, ",\"data\":");
		jsonw_string(out, file.buf, file.len);
		if (alias_of.len) {
			strbuf_addstr(out, ",\"alias\":");
			jsonw_string(out, alias_of.buf, alias_of.len);
		}
	}
	strbuf_addf(out, ",\"task\":\"%s\",\"dump\":", af->tensor ? "tensor" : "statistics");
	jsonw_str(out, af->path);
	strbuf_addstr(out, ",\"process\":");
	jsonw_str(out, v->f[A_DEVICE]);
	strbuf_addstr(out, "}\n");
	strbuf_release(&file);
	strbuf_release(&alias_of);
	return 0;
}

static void atb_file_release(struct atb_file *af)
{
	for (size_t i = 0; i < af->nr; i++)
		free(af->rows[i].name);
	free(af->rows);
	free(af->text);
}

/* Every kept row of one task: msprobe tells the mode by the first row and reads the others alike. */
static int check_task(struct atb_file *af, struct strbuf *err)
{
	af->tensor = af->nr && strcmp(af->rows[0].f[A_PATH], "N/A");
	for (size_t i = 1; i < af->nr; i++)
		if (!strcmp(af->rows[i].f[A_PATH], "N/A") == af->tensor)
			return fail_at(err, af, af->rows[i].line, "Tensor Path %s where line %zu's is %s: a statistics and "
				       "a tensor task in one file (msprobe reads the file as line %zu's task)", af->rows[i].f[A_PATH],
				       af->rows[0].line, af->rows[0].f[A_PATH], af->rows[0].line);
	return 0;
}

int atb_flatten_exec(const char *exec_dir, int64_t rank, int64_t step, struct strbuf *out, struct atb_read_stats *st,
		     struct strbuf *err)
{
	struct atb_file af = { 0 };
	char *path = join(exec_dir, "statistic.csv");
	size_t seq = 0;
	int ret;
	af.path = path;
	af.exec_dir = exec_dir;
	af.st = st;
	af.rank = rank;
	af.step = step;
	ret = read_whole(path, &af.text, err);
	if (!ret)
		ret = parse_rows(&af, err);
	if (!ret)
		ret = check_task(&af, err);
	for (size_t i = 0; !ret && i < af.nr; i++) {
		const struct atb_row *r = &af.rows[i];
		if (r->dup)
			continue;
		ret = emit_row(&af, r, r->last_dup ? &af.rows[r->last_dup - 1] : r, seq++, out, err);
		st->kept++;
	}
	atb_file_release(&af);
	free(path);
	return ret;
}

/* ---- what to dump next -------------------------------------------------------------- */

/* The ids of an entry's levels joined by '_' ("1_Prefill_layer/3_Elewise" -> "1_3"); the levels counted. */
static size_t id_path(const char *entry, struct strbuf *out)
{
	size_t levels = 0;
	for (const char *p = entry; *p; levels++) {
		size_t n = strcspn(p, "_/");
		if (levels)
			strbuf_addch(out, '_');
		strbuf_add(out, p, n);
		p += strcspn(p, "/");
		p += *p == '/';
	}
	return levels;
}

/* "         probe-export -r -o repro/SIDE EXEC/ENTRY\n", EXEC a placeholder when not known */
static void add_export_command(struct strbuf *out, const char *side, const char *exec_dir, const char *entry)
{
	struct strbuf path = STRBUF_INIT;
	strbuf_addf(out, "         probe-export -r -o repro/%s ", side);
	if (exec_dir) {
		strbuf_addstr(&path, exec_dir);
		if (path.len && path.buf[path.len - 1] != '/')
			strbuf_addch(&path, '/');
		strbuf_addstr(&path, entry);
		text_sh_path(out, path.buf);
	} else {
		strbuf_addf(out, "%s_EXEC_FOLDER/%s", !strcmp(side, "target") ? "TARGET" : "GOLDEN", entry);
	}
	strbuf_addch(out, '\n');
	strbuf_release(&path);
}

void atb_next_step(const char *entry, int64_t exec, const char *target_exec, const char *golden_exec,
		   struct strbuf *out)
{
	struct strbuf ids = STRBUF_INIT, range = STRBUF_INIT;
	size_t levels = id_path(entry, &ids);
	const char *slash = strrchr(entry, '/');
	if (exec >= 0)
		strbuf_addf(&range, "\"%lld,%lld\"", (long long)exec, (long long)exec);
	else
		strbuf_addstr(&range, "\"all\"");
	if (levels < 3) {
		strbuf_addf(out, "next     dump the %s's %s, layer first then operation (seed 004): in ATB's "
			    "config.json\n", levels == 1 ? "layer" : "operation", levels == 1 ? "operations and kernels" : "kernels");
		strbuf_addf(out, "         \"task\": \"tensor\", \"ids\": \"%s\", \"save_child\": true, \"filter_level\": 0, "
			    "\"exec_range\": %s\n", ids.buf, range.buf);
		strbuf_addstr(out, "         then compare the two new dumps the same way\n");
	} else {
		strbuf_addf(out, "next     %s is the kernel: its tensors as .pt files, for a single-operator reproduction "
			    "(probe-export(1)):\n", slash ? slash + 1 : entry);
		add_export_command(out, "target", target_exec, entry);
		add_export_command(out, "golden", golden_exec, entry);
	}
	strbuf_release(&ids);
	strbuf_release(&range);
}
