/* export.c: tensors taken out of a dump as .pt or .npy files (export.h). */
#include "export.h"
#include "atb.h"
#include "../core/msg.h"
#include "../core/partial.h"
#include "../core/strmap.h"
#include "../core/textesc.h"
#include "../core/xalloc.h"
#include "../json/jsonw.h"
#include "../records/leafrec.h"
#include "../records/pair.h"
#include "../tensors/tensor.h"

#include <dirent.h>
#include <inttypes.h>
#include <sys/stat.h>

/* One tensor to write. */
struct export_item {
	char *from;       /* the tensor file read (an alias's target) */
	char *alias;      /* the ATB alias file that named it, or NULL */
	char *data_name;  /* a record's "data_name": the file's name inside its tensor folder, or NULL */
	char *rel;        /* the output's path under OUT, without its extension */
	char *name;       /* a record's leaf name, or NULL */
	const char *side; /* "target", "golden" or NULL */
	int64_t rank, step;
	int exec_mode;
	bool from_record;
};

struct export_job {
	struct export_options o;
	struct export_item *items;
	size_t nitems, alloc;
	size_t aliases;
	/* the exec_mode, step and rank of the first leaf record, and which of them others differ in */
	bool seen_group, several_modes, several_steps, several_ranks;
	int64_t group_rank, group_step;
	int group_mode;
};

struct export_job *export_new(const struct export_options *o)
{
	struct export_job *j = xcalloc(1, sizeof(*j));
	j->o = *o;
	return j;
}

void export_free(struct export_job *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->nitems; i++) {
		struct export_item *it = &j->items[i];
		free(it->from);
		free(it->alias);
		free(it->data_name);
		free(it->rel);
		free(it->name);
	}
	free(j->items);
	free(j);
}

static struct export_item *new_item(struct export_job *j)
{
	ALLOC_GROW(j->items, j->nitems + 1, j->alloc);
	struct export_item *it = &j->items[j->nitems++];
	*it = (struct export_item){ .rank = -1, .step = -1 };
	return it;
}

/* ---- files and folders ------------------------------------------------------- */

static const char *const tensor_suffixes[] = { ".bin", ".pt", ".pth", ".npy" };

static bool has_tensor_suffix(const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < ARRAY_SIZE(tensor_suffixes); i++) {
		size_t k = strlen(tensor_suffixes[i]);
		if (n > k && !strcmp(name + n - k, tensor_suffixes[i]))
			return true;
	}
	return false;
}

/* The file name without its folder and its last suffix ("a/intensor0.bin" -> "intensor0"), as Python's Path.stem. */
static char *file_stem(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *dot = strrchr(base, '.');
	return xmemdupz(base, dot && dot != base ? (size_t)(dot - base) : strlen(base));
}

/* A tensor file queued as OUT/<prefix><stem>; an ATB alias followed to its target. */
static int add_file(struct export_job *j, const char *path, const char *prefix, struct strbuf *err)
{
	struct strbuf target = STRBUF_INIT, rel = STRBUF_INIT;
	int a = atb_alias_target(path, &target, err);
	char *stem;
	if (a < 0) {
		strbuf_release(&target);
		return -1;
	}
	stem = file_stem(path);
	strbuf_addf(&rel, "%s%s", prefix, stem);
	free(stem);
	struct export_item *it = new_item(j);
	it->from = xstrdup(a ? target.buf : path);
	it->alias = a ? xstrdup(path) : NULL;
	it->rel = strbuf_detach(&rel, NULL);
	strbuf_release(&target);
	return 0;
}

struct dir_names {
	char **v;
	size_t n, alloc;
};

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void dir_names_free(struct dir_names *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i]);
	free(d->v);
}

/* The entries of a folder (without . and ..), sorted by name. */
static int read_dir(const char *dir, struct dir_names *d, struct strbuf *err)
{
	DIR *dh = opendir(dir);
	struct dirent *e;
	*d = (struct dir_names){ 0 };
	if (!dh)
		return msg_fail(err, dir, "cannot read the folder: %s", strerror(errno));
	while ((e = readdir(dh))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		ALLOC_GROW(d->v, d->n + 1, d->alloc);
		d->v[d->n++] = xstrdup(e->d_name);
	}
	closedir(dh);
	if (d->n)
		qsort(d->v, d->n, sizeof(*d->v), cmp_names);
	return 0;
}

/*
 * The tensor files of dir as OUT/<prefix><stem>, and with recursive those
 * of the folders below (not through symbolic links to folders, which could
 * loop).  *found counts them; *subdirs: whether dir has folders.
 */
static int add_dir(struct export_job *j, const char *dir, const char *prefix, size_t *found, bool *subdirs,
		   struct strbuf *err)
{
	struct dir_names d;
	struct strbuf path = STRBUF_INIT, sub = STRBUF_INIT;
	int ret = 0;
	if (read_dir(dir, &d, err) < 0)
		return -1;
	for (size_t i = 0; i < d.n && !ret; i++) {
		struct stat st;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", d.v[i]);
		if (lstat(path.buf, &st) < 0)
			continue; /* gone since the folder was read */
		if (S_ISDIR(st.st_mode)) {
			*subdirs = true;
			if (!j->o.recursive)
				continue;
			strbuf_reset(&sub);
			strbuf_addf(&sub, "%s%s/", prefix, d.v[i]);
			ret = add_dir(j, path.buf, sub.buf, found, subdirs, err);
		} else if (has_tensor_suffix(d.v[i])) {
			ret = add_file(j, path.buf, prefix, err);
			++*found;
		}
	}
	dir_names_free(&d);
	strbuf_release(&path);
	strbuf_release(&sub);
	return ret;
}

int export_add_path(struct export_job *j, const char *path, struct strbuf *err)
{
	struct stat st;
	size_t found = 0;
	bool subdirs = false;
	if (stat(path, &st) < 0)
		return msg_fail(err, path, "%s", strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return add_file(j, path, "", err);
	if (add_dir(j, path, "", &found, &subdirs, err) < 0)
		return -1;
	if (!found)
		return msg_fail(err, path, "no .bin, .pt or .npy file in the folder%s", j->o.recursive ? " or below it"
			: subdirs ? " (-r: also the folders below it)" : "");
	return 0;
}

/* ---- records ----------------------------------------------------------------- */

static char *span_dup(const struct span *s)
{
	struct strbuf sb = STRBUF_INIT;
	if (s->kind != SPAN_STRING || span_string(s, &sb) < 0 || !sb.len) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

/* A leaf name as a path under OUT: no empty, "." or ".." part, not absolute. */
static bool name_stays_inside(const char *name)
{
	const char *p = name;
	if (!*p || *p == '/')
		return false;
	while (*p) {
		size_t n = strcspn(p, "/");
		if (!n || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += n + (p[n] == '/');
		if (p[-1] == '/' && !*p)
			return false;
	}
	return true;
}

static void note_group(struct export_job *j, const struct leafrec *r)
{
	if (!j->seen_group) {
		j->seen_group = true;
		j->group_rank = r->rank;
		j->group_step = r->step;
		j->group_mode = r->exec_mode;
	} else {
		j->several_modes |= r->exec_mode != j->group_mode;
		j->several_steps |= r->step != j->group_step;
		j->several_ranks |= r->rank != j->group_rank;
	}
}

static int add_leaf(struct export_job *j, const struct leafrec *r, const char *side, struct strbuf *err)
{
	char *name = span_dup(&r->f[LF_NAME]), *data = span_dup(&r->f[LF_DATA]);
	if (!name || !name_stays_inside(name)) {
		strbuf_addf(err, "the leaf name \"%s\" is no file name under the output folder", name ? name : "");
		free(name);
		free(data);
		return PROBE_ERR_LINE;
	}
	if (!data) {
		strbuf_addf(err, "%s%s%s has no tensor file (\"data\"): a statistics dump has none; dump with task tensor",
			    side ? side : "", side ? " leaf " : "", name);
		free(name);
		free(data);
		return PROBE_ERR_LINE;
	}
	note_group(j, r);
	struct export_item *it = new_item(j);
	it->from = data;
	it->name = name;
	it->alias = span_dup(&r->f[LF_ALIAS]);
	it->data_name = span_dup(&r->f[LF_DATA_NAME]);
	it->side = side;
	it->rank = r->rank;
	it->step = r->step;
	it->exec_mode = r->exec_mode;
	it->from_record = true;
	return 0;
}

static int sink_add(void *ctx, const char *line, size_t len, struct strbuf *out, struct strbuf *err)
{
	struct export_job *j = ctx;
	const char *why;
	(void)out;
	if (pair_line_is_leaf(line, len)) {
		struct leafrec r;
		if (leafrec_parse(&r, line, len, &why) < 0) {
			strbuf_addstr(err, why);
			return PROBE_ERR_LINE;
		}
		return add_leaf(j, &r, NULL, err);
	}
	struct pair p;
	if (pair_parse(&p, line, len, err) < 0)
		return PROBE_ERR_LINE;
	if (p.has_t && add_leaf(j, &p.t, "target", err) < 0)
		return PROBE_ERR_LINE;
	if (p.has_g && add_leaf(j, &p.g, "golden", err) < 0)
		return PROBE_ERR_LINE;
	return 0;
}

struct line_sink export_sink(struct export_job *j)
{
	return (struct line_sink){ .ctx = j, .add = sink_add };
}

/* ---- writing ----------------------------------------------------------------- */

static const char *format_suffix(enum tensorw_format f)
{
	return f == TENSORW_PT ? ".pt" : ".npy";
}

/* OUT/[<exec_mode>/][step<S>/][rank<R>/][<side>/]<rel><suffix>, the folders for what differs among the records */
static void output_path(const struct export_job *j, const struct export_item *it, struct strbuf *out)
{
	strbuf_reset(out);
	strbuf_addstr(out, j->o.out_dir);
	if (out->len && out->buf[out->len - 1] != '/')
		strbuf_addch(out, '/');
	if (it->from_record) {
		if (j->several_modes && it->exec_mode != LEAF_EXEC_NONE)
			strbuf_addf(out, "%s/", leaf_exec_mode_names[it->exec_mode]);
		if (j->several_steps && it->step >= 0)
			strbuf_addf(out, "step%" PRId64 "/", it->step);
		if (j->several_ranks && it->rank >= 0)
			strbuf_addf(out, "rank%" PRId64 "/", it->rank);
	}
	if (it->side)
		strbuf_addf(out, "%s/", it->side);
	strbuf_addstr(out, it->from_record ? it->name : it->rel);
	strbuf_addstr(out, format_suffix(j->o.format));
}

static const char *item_label(const struct export_item *it)
{
	return it->alias ? it->alias : it->from;
}

/* Two items for one output file: refused before anything is written. */
static int check_outputs(const struct export_job *j, struct strbuf *err)
{
	struct strmap seen = STRMAP_INIT;
	struct strbuf path = STRBUF_INIT;
	int ret = 0;
	for (size_t i = 0; i < j->nitems && !ret; i++) {
		bool created;
		output_path(j, &j->items[i], &path);
		struct strmap_slot *slot = strmap_put(&seen, path.buf, path.len, &created);
		if (!created)
			ret = msg_fail(err, path.buf, "both %s and %s would be written here",
				       item_label(&j->items[slot->value.u]), item_label(&j->items[i]));
		else
			slot->value.u = i;
	}
	strmap_release(&seen);
	strbuf_release(&path);
	return ret;
}

static int make_parent(const char *file, struct strbuf *err)
{
	const char *slash = strrchr(file, '/');
	if (!slash || slash == file)
		return 0;
	char *dir = xmemdupz(file, (size_t)(slash - file));
	int r = partial_make_dirs(dir, err);
	free(dir);
	return r;
}

static void add_shape(struct strbuf *out, const struct tensor *t)
{
	strbuf_addch(out, '[');
	for (int d = 0; d < t->ndim; d++)
		strbuf_addf(out, "%s%" PRId64, d ? "," : "", t->shape[d]);
	strbuf_addch(out, ']');
}

static void add_json_member(struct strbuf *out, const char *key, const char *value)
{
	if (!value)
		return;
	strbuf_addf(out, ",\"%s\":", key);
	jsonw_string(out, value, strlen(value));
}

static void write_record(struct strbuf *out, const struct export_item *it, const char *file, const struct tensor *t,
			 enum dtype written)
{
	strbuf_addstr(out, "{\"file\":");
	jsonw_string(out, file, strlen(file));
	add_json_member(out, "from", it->from);
	add_json_member(out, "alias", it->alias);
	add_json_member(out, "side", it->side);
	add_json_member(out, "name", it->name);
	if (it->from_record) {
		strbuf_addstr(out, ",\"rank\":");
		it->rank >= 0 ? strbuf_addf(out, "%" PRId64, it->rank) : strbuf_addstr(out, "null");
		strbuf_addstr(out, ",\"step\":");
		it->step >= 0 ? strbuf_addf(out, "%" PRId64, it->step) : strbuf_addstr(out, "null");
	}
	add_json_member(out, "dtype", dtype_info(written)->name);
	if (written != t->dtype)
		add_json_member(out, "from_dtype", dtype_info(t->dtype)->name);
	strbuf_addstr(out, ",\"shape\":");
	add_shape(out, t);
	strbuf_addstr(out, "}\n");
}

static void write_line(struct strbuf *out, const struct export_item *it, const char *file, const struct tensor *t,
		       enum dtype written)
{
	size_t start = out->len;
	text_escape_str(out, file, 0);
	strbuf_addf(out, "  %s ", dtype_info(written)->name);
	add_shape(out, t);
	if (written != t->dtype)
		strbuf_addf(out, " (%s in the dump)", dtype_info(t->dtype)->name);
	strbuf_addstr(out, "  from ");
	text_escape_str(out, it->from, 0);
	if (it->alias) {
		strbuf_addstr(out, " (the file ");
		text_escape_str(out, it->alias, 0);
		strbuf_addstr(out, " stands for)");
	}
	strbuf_addch(out, '\n');
	text_escape_tail(out, start, TEXT_KEEP_NL); /* the whole line once more: nothing raw reaches a terminal */
}

static int open_item(const struct export_item *it, struct tensor *t, struct strbuf *err)
{
	return it->from_record ? tensor_open_leaf(t, it->from, it->data_name, err) : tensor_open(t, it->from, err);
}

/* Every source opened once before anything is written: a broken one stops the job with nothing written. */
static int check_sources(const struct export_job *j, struct strbuf *err)
{
	for (size_t i = 0; i < j->nitems; i++) {
		struct tensor t;
		if (open_item(&j->items[i], &t, err) < 0)
			return -1;
		tensor_close(&t);
	}
	return 0;
}

static int export_one(struct export_job *j, const struct export_item *it, const char *file, struct strbuf *out,
		      struct strbuf *err)
{
	struct tensor t;
	enum dtype written;
	int r = open_item(it, &t, err);
	if (r < 0)
		return -1;
	if (it->alias && !j->aliases++)
		warning("%s: an ATB alias file (filter_level 1), written from the file it names, %s (msprobe's parse "
			"skips alias files)", it->alias, it->from);
	r = make_parent(file, err);
	if (!r)
		r = tensorw_export(&t, file, j->o.format, &written, err);
	if (!r) {
		if (j->o.text)
			write_line(out, it, file, &t, written);
		else
			write_record(out, it, file, &t, written);
	}
	tensor_close(&t);
	return r;
}

long export_run(struct export_job *j, struct strbuf *out, struct strbuf *err)
{
	struct strbuf file = STRBUF_INIT;
	long written = 0;
	if (!j->nitems) {
		strbuf_addstr(err, "nothing to export: no tensor file named and no record read");
		return -1;
	}
	if (check_outputs(j, err) < 0 || check_sources(j, err) < 0 || partial_make_dirs(j->o.out_dir, err) < 0)
		return -1;
	for (size_t i = 0; i < j->nitems; i++) {
		output_path(j, &j->items[i], &file);
		if (export_one(j, &j->items[i], file.buf, out, err) < 0) {
			strbuf_release(&file);
			return -1;
		}
		written++;
	}
	strbuf_release(&file);
	return written;
}
