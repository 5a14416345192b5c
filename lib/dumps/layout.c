#include "layout.h"
#include "atb.h"
#include "../ckpt/ckpt.h"
#include "../records/leafrec.h"
#include "../core/msg.h"
#include "../core/source.h"
#include "../core/textesc.h"
#include "../core/xalloc.h"

#include <dirent.h>
#include <inttypes.h>
#include <sys/stat.h>

static const char *const dump_names[] = { "dump.json", "dump.json.gz", "debug.json", "debug.json.gz" };

int64_t layout_parse_numbered(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *d;
	int64_t v = 0;
	if (strncmp(name, prefix, n))
		return -1;
	d = name + n;
	if (!*d || (d[0] == '0' && d[1]))
		return -1;
	for (; *d; d++) {
		if (*d < '0' || *d > '9' || v > (INT64_MAX - (*d - '0')) / 10)
			return -1;
		v = v * 10 + (*d - '0');
	}
	return v;
}

/* A name of msprobe's pattern prefix<N> whose N is too large for layout_parse_numbered(). */
static bool number_overflows(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *d = name + n;
	if (strncmp(name, prefix, n) || *d < '1' || *d > '9')
		return false;
	for (; *d; d++)
		if (*d < '0' || *d > '9')
			return false;
	return layout_parse_numbered(name, prefix) < 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static char *join(const char *dir, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, dir);
	if (sb.len && sb.buf[sb.len - 1] != '/')
		strbuf_addch(&sb, '/');
	strbuf_addstr(&sb, name);
	return strbuf_detach(&sb, NULL);
}

static bool is_dir(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* A name that is there (lstat) but cannot be followed: a dangling link, a link loop, no permission. */
static bool is_broken(const char *path, struct strbuf *err)
{
	struct stat st;
	if (lstat(path, &st) || !stat(path, &st))
		return false;
	strbuf_addf(err, "%s: %s", path, strerror(errno));
	return true;
}

static bool is_debug_name(const char *path)
{
	return !strncmp(base_name(path), "debug.json", 10);
}

/* The last component of the directory holding path ("." when none). */
static char *parent_name(const char *path, int up)
{
	struct strbuf sb = STRBUF_INIT;
	char *res, *real = realpath(path, NULL);
	const char *end;
	/* names are read off the resolved path, so "." and ".." say where they are */
	strbuf_addstr(&sb, real ? real : path);
	free(real);
	while (up-- >= 0) {
		/* drop trailing slashes, then the last component */
		while (sb.len > 1 && sb.buf[sb.len - 1] == '/')
			strbuf_setlen(&sb, sb.len - 1);
		end = strrchr(sb.buf, '/');
		if (!end) {
			strbuf_release(&sb);
			return xstrdup("");
		}
		strbuf_setlen(&sb, (size_t)(end - sb.buf));
	}
	while (sb.len > 1 && sb.buf[sb.len - 1] == '/')
		strbuf_setlen(&sb, sb.len - 1);
	res = xstrdup(base_name(sb.buf));
	strbuf_release(&sb);
	return res;
}

static void add_file(struct dump_list *list, const char *path, int64_t rank, int64_t step, int exec_mode)
{
	ALLOC_GROW(list->v, list->nr + 1, list->alloc);
	list->v[list->nr++] = (struct dump_file){ xstrdup(path), rank, step, is_debug_name(path), false, exec_mode, false, false };
}

/* The dump file of a rank dir, or NULL (with a message in err when one is there but broken). */
static char *rank_dir_dump(const char *dir, struct strbuf *err)
{
	size_t had = err->len;
	for (size_t i = 0; i < ARRAY_SIZE(dump_names); i++) {
		char *p = join(dir, dump_names[i]);
		struct stat st;
		if (is_file(p))
			return p;
		if (!stat(p, &st))
			strbuf_addf(err, "%s: not a regular file", p);
		else if (errno != ENOENT)
			strbuf_addf(err, "%s: %s", p, strerror(errno)); /* a rank directory we may not search */
		bool broken = err->len != had || is_broken(p, err);
		free(p);
		if (broken)
			return NULL;
	}
	return NULL;
}

static bool has_numbered_subdir(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct strbuf ignored = STRBUF_INIT; /* list_numbered() reports it */
	bool found = false;
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		char *p;
		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		p = join(dir, de->d_name);
		/* one whose number overflows counts: list_numbered() refuses it */
		found = (is_dir(p) || is_broken(p, &ignored)) && (layout_parse_numbered(de->d_name, prefix) >= 0 ||
				      number_overflows(de->d_name, prefix) ||
				      (!strcmp(prefix, "rank") && !strcmp(de->d_name, "rank")));
		free(p);
	}
	closedir(d);
	strbuf_release(&ignored);
	return found;
}

struct numbered {
	int64_t n;
	char *name;
};

static int cmp_numbered(const void *a, const void *b)
{
	const struct numbered *x = a, *y = b;
	return x->n < y->n ? -1 : x->n > y->n;
}

static void free_numbered(struct numbered *v, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(v[i].name);
	free(v);
}

/*
 * The numbered subdirectories of dir (prefix<N>), sorted; bare "rank" gets -1.
 * -1 with a message in err when dir cannot be read or a numbered name in it
 * cannot be followed or has a number past INT64_MAX: a rank that silently
 * went missing would compare as absent (msprobe, reading N as a Python int,
 * would compare it).
 */
static int list_numbered(const char *dir, const char *prefix, struct numbered **out, size_t *nr_out,
			 struct strbuf *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct numbered *v = NULL;
	size_t nr = 0, alloc = 0;
	int ret = 0;
	*out = NULL;
	*nr_out = 0;
	if (!d) {
		strbuf_addf(err, "%s: cannot read the directory: %s", dir, strerror(errno));
		return -1;
	}
	while (!ret && (de = readdir(d))) {
		int64_t n = layout_parse_numbered(de->d_name, prefix);
		bool bare = !strcmp(prefix, "rank") && !strcmp(de->d_name, "rank");
		bool overflows = n < 0 && number_overflows(de->d_name, prefix);
		char *p;
		if (n < 0 && !bare && !overflows)
			continue;
		p = join(dir, de->d_name);
		if (overflows) {
			size_t had = err->len;
			if (is_dir(p) || is_broken(p, err)) {
				strbuf_setlen(err, had);
				strbuf_addf(err, "%s: a %s number larger than %" PRId64 ", the largest probe reads: "
					    "leaving the directory out would compare the dump without it", p, prefix, INT64_MAX);
				ret = -1;
			}
		} else if (is_dir(p)) {
			ALLOC_GROW(v, nr + 1, alloc);
			v[nr++] = (struct numbered){ bare ? -1 : n, xstrdup(de->d_name) };
		} else if (is_broken(p, err)) {
			ret = -1;
		}
		free(p);
	}
	closedir(d);
	if (ret) {
		free_numbered(v, nr);
		return ret;
	}
	if (nr)
		qsort(v, nr, sizeof(*v), cmp_numbered);
	*out = v;
	*nr_out = nr;
	return ret;
}


static int discover_step(const char *dir, int64_t step, int exec_mode, struct dump_list *list, struct strbuf *err)
{
	struct numbered *ranks, *procs;
	size_t nranks, nprocs;
	int ret = 0;

	if (list_numbered(dir, "rank", &ranks, &nranks, err) < 0 ||
	    list_numbered(dir, "proc", &procs, &nprocs, err) < 0) {
		free_numbered(ranks, nranks);
		return -1;
	}

	if (nranks && nprocs)
		warning("%s: ignoring %zu proc<pid> director%s beside the rank directories",
			dir, nprocs, nprocs == 1 ? "y" : "ies");
	if (!nranks && nprocs > 1) {
		strbuf_addf(err, "%s: %zu proc<pid> directories and no rank directory: their ranks are unknown; "
			    "name the one to read", dir, nprocs);
		ret = -1;
		goto out;
	}
	if (nranks) {
		for (size_t i = 0; i < nranks; i++) {
			if (i && ranks[i].n == ranks[i - 1].n) {
				strbuf_addf(err, "%s: two directories for the same rank: %s and %s", dir,
					    ranks[i - 1].name, ranks[i].name);
				ret = -1;
				goto out;
			}
		}
		if (nranks > 1 && ranks[0].n < 0) {
			strbuf_addf(err, "%s: a directory named \"rank\" (no rank number) beside %s: cannot tell their ranks",
				    dir, ranks[1].name);
			ret = -1;
			goto out;
		}
	}
	for (size_t i = 0; i < (nranks ? nranks : nprocs); i++) {
		struct numbered *r = nranks ? &ranks[i] : &procs[i];
		char *rdir = join(dir, r->name);
		size_t had = err->len;
		char *file = rank_dir_dump(rdir, err);
		if (!file) {
			if (err->len == had)
				strbuf_addf(err, "%s: no dump.json or debug.json in this rank directory", rdir);
			free(rdir);
			ret = -1;
			goto out;
		}
		add_file(list, file, nranks ? r->n : -1, step, exec_mode);
		free(file);
		free(rdir);
	}
out:
	free_numbered(ranks, nranks);
	free_numbered(procs, nprocs);
	return ret;
}

/* A dump root: its step<N> directories, each a step directory. */
static int discover_root(const char *dir, int exec_mode, struct dump_list *list, struct strbuf *err)
{
	struct numbered *steps;
	size_t nsteps;
	int ret = list_numbered(dir, "step", &steps, &nsteps, err);
	for (size_t i = 0; i < nsteps && !ret; i++) {
		char *sdir = join(dir, steps[i].name);
		ret = discover_step(sdir, steps[i].n, exec_mode, list, err);
		if (!ret && !has_numbered_subdir(sdir, "rank") && !has_numbered_subdir(sdir, "proc")) {
			strbuf_addf(err, "%s: no rank<N> or proc<pid> directories in this step", sdir);
			ret = -1;
		}
		free(sdir);
	}
	free_numbered(steps, nsteps);
	return ret;
}

/*
 * Whether dir holds a graph or a pynative directory of step<N> directories
 * (or a name of the two that cannot be followed).  An empty one alone does
 * not make a root of two folders: a directory of another use may have the
 * name.
 */
static bool has_mode_folder(const char *dir)
{
	bool found = false;
	for (int m = 1; m < LEAF_EXEC_NMODES && !found; m++) {
		char *p = join(dir, leaf_exec_mode_names[m]);
		struct stat st;
		found = (is_dir(p) && has_numbered_subdir(p, "step")) || (!lstat(p, &st) && stat(p, &st));
		free(p);
	}
	return found;
}

/*
 * A MindSpore root of run mode pynative_graph: graph/ and pynative/ side by
 * side, each a dump root of its own; graph first.  A folder without step
 * directories is said and passed over (nothing of it to read); one that
 * cannot be read, or a root with neither, is an error.  Step directories
 * beside the folders are left out with a warning: msprobe's compare reads
 * only the folders of such a root.
 */
static int discover_modes(const char *dir, struct dump_list *list, struct strbuf *err)
{
	size_t before = list->nr;
	if (has_numbered_subdir(dir, "step"))
		warning("%s: ignoring the step<N> directories beside graph/ and pynative/ (msprobe's compare reads only "
			"those folders of such a root)", dir);
	for (int m = 1; m < LEAF_EXEC_NMODES; m++) {
		char *p = join(dir, leaf_exec_mode_names[m]);
		int ret = 0;
		if (is_broken(p, err))
			ret = -1;
		else if (is_dir(p) && !has_numbered_subdir(p, "step"))
			warning("%s: no step<N> directories in this folder: nothing of it to read", p);
		else if (is_dir(p))
			ret = discover_root(p, m, list, err);
		free(p);
		if (ret < 0)
			return -1;
	}
	if (list->nr == before) {
		strbuf_addf(err, "%s: no step<N> directories in its graph or pynative folder", dir);
		return -1;
	}
	return 0;
}

static int64_t rank_of_dir_name(const char *name)
{
	return layout_parse_numbered(name, "rank");
}

/* The directory holding a file ("." when the path has none), malloc'ed. */
static char *parent_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	return slash == path ? xstrdup("/") : xmemdupz(path, (size_t)(slash - path));
}

/* Whether path is a file named statistic.csv (ATB's, read as its exec folder). */
static bool is_atb_csv(const char *path)
{
	const char *base = strrchr(path, '/');
	return !strcmp(base ? base + 1 : path, "statistic.csv");
}

/* The exec folders of an ATB dump, one dump file each; one process per device. */
static int discover_atb(const char *operand, struct dump_list *list, struct strbuf *err)
{
	char **dirs = NULL;
	size_t n = 0, before = list->nr;
	int ret = atb_exec_dirs(operand, &dirs, &n, err);
	for (size_t i = 0; i < n; i++) {
		int64_t device, exec;
		atb_exec_labels(dirs[i], &device, &exec);
		for (size_t j = before; ret >= 0 && j < list->nr; j++)
			if (device >= 0 && list->v[j].rank == device && list->v[j].step == exec) {
				strbuf_addf(err, "%s: two processes of device %lld dumped exec count %lld: %s and %s; name "
					    "the folder of one", operand, (long long)device, (long long)exec, list->v[j].path,
					    dirs[i]);
				ret = -1;
			}
		if (ret >= 0) {
			add_file(list, dirs[i], device, exec, LEAF_EXEC_NONE);
			list->v[list->nr - 1].atb = true;
		}
		free(dirs[i]);
	}
	free(dirs);
	return ret < 0 ? -1 : 0;
}

/* Whether dir holds a dump at one of the levels layout_add_operand() reads (quietly). */
static bool looks_like_dump(const char *dir)
{
	struct strbuf quiet = STRBUF_INIT;
	char *file = rank_dir_dump(dir, &quiet);
	bool yes = file || quiet.len || atb_is_dump(dir) || has_numbered_subdir(dir, "rank") ||
		   has_numbered_subdir(dir, "proc") || has_mode_folder(dir) || has_numbered_subdir(dir, "step");
	free(file);
	strbuf_release(&quiet);
	return yes;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * A folder above the dumps (golden/ and target/ side by side): name the
 * subfolders that hold dumps, and the pipeline that compares two of them.
 */
static void suggest_subfolders(const char *operand, struct strbuf *err)
{
	DIR *d = opendir(operand);
	struct dirent *de;
	char **found = NULL;
	size_t n = 0, alloc = 0;
	struct strbuf sub = STRBUF_INIT;
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		strbuf_reset(&sub);
		strbuf_addf(&sub, "%s/%s", operand, de->d_name);
		struct stat st;
		if (stat(sub.buf, &st) || !S_ISDIR(st.st_mode) || !looks_like_dump(sub.buf))
			continue;
		ALLOC_GROW(found, n + 1, alloc);
		found[n++] = strbuf_detach(&sub, NULL);
	}
	closedir(d);
	strbuf_release(&sub);
	if (!n)
		return;
	qsort(found, n, sizeof(*found), cmp_names);
	strbuf_addstr(err, "\n  dumps are one level down, in ");
	for (size_t i = 0; i < n && i < 6; i++) {
		strbuf_addstr(err, i ? (i + 1 == n ? " and " : ", ") : "");
		text_sh_path(err, found[i]);
	}
	if (n > 6)
		strbuf_addf(err, " and %zu more", n - 6);
	if (n >= 2) {
		/* the one named like the target (target, npu) first, when there is one */
		size_t t = 0, g = 1;
		for (size_t i = 0; i < n; i++) {
			const char *base = strrchr(found[i], '/') + 1;
			if (strstr(base, "target") || strstr(base, "npu"))
				t = i, g = i ? 0 : 1;
		}
		strbuf_addstr(err, ": compare two of them with\n    probe-flatten ");
		text_sh_path(err, found[t]);
		strbuf_addstr(err, " | probe-match ");
		text_sh_path(err, found[g]);
		strbuf_addstr(err, " | probe-first --format text");
	} else {
		strbuf_addstr(err, ": give that folder");
	}
	for (size_t i = 0; i < n; i++)
		free(found[i]);
	free(found);
}

int layout_discover(const char *operand, struct dump_list *list, struct strbuf *err)
{
	struct stat st;
	char *file;

	if (!strcmp(operand, "-")) {
		add_file(list, "-", -1, -1, LEAF_EXEC_NONE);
		return 0;
	}
	if (stat(operand, &st)) {
		strbuf_addf(err, "%s: %s", operand, strerror(errno));
		return -1;
	}
	if (ckpt_looks_like(operand)) {
		add_file(list, operand, -1, -1, LEAF_EXEC_NONE);
		list->v[list->nr - 1].ckpt = true;
		return 0;
	}
	if (!S_ISDIR(st.st_mode) && is_atb_csv(operand)) {
		char *dir = parent_dir(operand);
		int ret = discover_atb(dir, list, err);
		free(dir);
		return ret;
	}
	if (!S_ISDIR(st.st_mode)) {
		/* a dump file: rank and step from its directories when they follow the layout */
		char *rdir = parent_name(operand, 0);
		char *sdir = parent_name(operand, 1);
		add_file(list, operand, rank_of_dir_name(rdir), layout_parse_numbered(sdir, "step"), LEAF_EXEC_NONE);
		free(rdir);
		free(sdir);
		return 0;
	}
	size_t had = err->len;
	file = rank_dir_dump(operand, err);
	if (err->len != had)
		return -1;
	if (file) {
		char *rdir = parent_name(file, 0);
		char *sdir = parent_name(file, 1);
		add_file(list, file, rank_of_dir_name(rdir), layout_parse_numbered(sdir, "step"), LEAF_EXEC_NONE);
		free(rdir);
		free(sdir);
		free(file);
		return 0;
	}
	if (atb_is_dump(operand))
		return discover_atb(operand, list, err);
	if (has_numbered_subdir(operand, "rank") || has_numbered_subdir(operand, "proc")) {
		char *self = parent_name(operand, -1);
		int64_t step = layout_parse_numbered(self, "step");
		free(self);
		return discover_step(operand, step, LEAF_EXEC_NONE, list, err);
	}
	if (has_mode_folder(operand))
		return discover_modes(operand, list, err);
	if (has_numbered_subdir(operand, "step"))
		return discover_root(operand, LEAF_EXEC_NONE, list, err);
	strbuf_addf(err, "%s: not a dump: no dump.json or debug.json, no rank<N>, proc<pid>, step<N>, graph or "
		    "pynative directories, and no ATB statistic.csv", operand);
	suggest_subfolders(operand, err);
	return -1;
}

void layout_release(struct dump_list *list)
{
	for (size_t i = 0; i < list->nr; i++)
		free(list->v[i].path);
	free(list->v);
	list->v = NULL;
	list->nr = list->alloc = 0;
}

/* Whether rank is in spec ("0,4-7"); -1 when spec is not such a list. */
int layout_rank_in(const char *spec, int64_t rank)
{
	const char *p = spec;
	bool in = false;
	if (!*p)
		return -1;
	while (*p) {
		char *end;
		long long lo, hi;
		if (*p < '0' || *p > '9')
			return -1;
		lo = hi = strtoll(p, &end, 10);
		p = end;
		if (*p == '-') {
			if (p[1] < '0' || p[1] > '9')
				return -1;
			hi = strtoll(p + 1, &end, 10);
			if (hi < lo)
				return -1;
			p = end;
		}
		in |= rank >= lo && rank <= hi;
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			return -1;
	}
	return in;
}

bool layout_rank_list_valid(const char *spec)
{
	return layout_rank_in(spec, 0) >= 0;
}

int layout_keep_ranks(struct dump_list *list, const char *spec, struct strbuf *err)
{
	size_t kept = 0;
	for (size_t i = 0; i < list->nr; i++) {
		if (list->v[i].rank >= 0 && layout_rank_in(spec, list->v[i].rank) == 1)
			list->v[kept++] = list->v[i];
		else
			free(list->v[i].path);
	}
	list->nr = kept;
	if (!kept) {
		strbuf_addf(err, "ranks %s: none of them is in the dumps given", spec);
		return -1;
	}
	return 0;
}

bool layout_is_compare_csv(const char *path)
{
	static const char want[] = "NPU Name,Bench Name,";
	char buf[sizeof(want)];
	FILE *f = source_fopen_regular(path, NULL);
	size_t n;
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(want) - 1, f);
	fclose(f);
	return n == sizeof(want) - 1 && !memcmp(buf, want, n);
}


int64_t layout_compare_csv_rank(const char *path)
{
	const char *base = strrchr(path, '/'), *p;
	base = base ? base + 1 : path;
	p = strstr(base, "compare_result_rank");
	if (!p)
		return -1;
	p += strlen("compare_result_rank");
	if (*p < '0' || *p > '9')
		return -1;
	return strtoll(p, NULL, 10);
}

int layout_add_operand(const char *operand, struct dump_list *list, struct strbuf *err)
{
	struct stat st;
	/*
	 * Only a regular file is looked at for a CSV header: the bytes read from a pipe
	 * or a FIFO (<(...), mkfifo) would be gone, and a FIFO opened twice waits for ever.
	 */
	if (strcmp(operand, "-") && !stat(operand, &st) && S_ISREG(st.st_mode) && layout_is_compare_csv(operand)) {
		ALLOC_GROW(list->v, list->nr + 1, list->alloc);
		list->v[list->nr++] = (struct dump_file){ .path = xstrdup(operand), .rank = layout_compare_csv_rank(operand),
							  .step = -1, .csv = true };
		return 0;
	}
	return layout_discover(operand, list, err);
}

void layout_rank_dir(const char *dump, struct strbuf *out)
{
	const char *end = strrchr(dump, '/'), *start;
	strbuf_reset(out);
	if (!end)
		return;
	for (start = end; start > dump && start[-1] != '/'; start--)
		;
	if ((end - start >= 4 && !strncmp(start, "rank", 4)) || (end - start > 4 && !strncmp(start, "proc", 4)))
		strbuf_add(out, start, (size_t)(end - start));
}

void layout_mode_root(const char *dump, struct strbuf *out)
{
	size_t n = strlen(dump);
	strbuf_reset(out);
	/* up four components: the file, its rank, step and mode folders */
	for (int up = 0; up < 4; up++) {
		while (n && dump[n - 1] == '/')
			n--;
		while (n && dump[n - 1] != '/')
			n--;
		if (!n && up < 3)
			return;
	}
	while (n > 1 && dump[n - 1] == '/')
		n--;
	if (n)
		strbuf_add(out, dump, n);
	else
		strbuf_addch(out, '.');
}

bool layout_one_step_of_ranks(const struct dump_list *list)
{
	for (size_t i = 0; i < list->nr; i++) {
		const struct dump_file *a = &list->v[i];
		if (a->rank < 0 || a->step != list->v[0].step || a->exec_mode != list->v[0].exec_mode)
			return false;
		for (size_t j = 0; j < i; j++)
			if (list->v[j].rank == a->rank)
				return false;
	}
	return true;
}

/* The bytes under path: a file's size, a folder's files' sizes summed (its subfolders too). */
static uint64_t path_bytes(const char *path, int depth)
{
	struct stat st;
	uint64_t sum = 0;
	if (stat(path, &st))
		return 0;
	if (!S_ISDIR(st.st_mode))
		return S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	DIR *d = depth < 8 ? opendir(path) : NULL;
	struct dirent *e;
	struct strbuf sub = STRBUF_INIT;
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		strbuf_reset(&sub);
		strbuf_addf(&sub, "%s/%s", path, e->d_name);
		sum += path_bytes(sub.buf, depth + 1);
	}
	if (d)
		closedir(d);
	strbuf_release(&sub);
	return sum;
}

struct rank_bytes {
	int64_t rank;
	uint64_t bytes;
};

static int by_rank(const void *a, const void *b)
{
	int64_t x = ((const struct rank_bytes *)a)->rank, y = ((const struct rank_bytes *)b)->rank;
	return (x > y) - (x < y);
}

/* "a" or "a-b" for the ranks v[lo..hi), consecutive runs joined by commas. */
static void add_rank_runs(struct strbuf *out, const struct rank_bytes *v, size_t lo, size_t hi)
{
	for (size_t i = lo; i < hi;) {
		size_t j = i;
		while (j + 1 < hi && v[j + 1].rank == v[j].rank + 1)
			j++;
		strbuf_addf(out, "%s%" PRId64, i > lo ? "," : "", v[i].rank);
		if (j > i)
			strbuf_addf(out, "-%" PRId64, v[j].rank);
		i = j + 1;
	}
	strbuf_addch(out, '\n');
}

int layout_rank_batches(const struct dump_list *list, const uint64_t *sizes, size_t n, struct strbuf *out,
			struct strbuf *err)
{
	struct rank_bytes *v = xcalloc(list->nr ? list->nr : 1, sizeof(*v));
	size_t nr = 0, lo = 0, batch = 0;
	uint64_t total = 0, done = 0;
	for (size_t i = 0; i < list->nr; i++) {
		const struct dump_file *df = &list->v[i];
		if (df->rank < 0) {
			strbuf_addf(err, "%s: a dump without a rank: there is nothing to split by", df->path);
			free(v);
			return -1;
		}
		v[nr].rank = df->rank;
		v[nr].bytes = sizes ? sizes[i] : path_bytes(df->path, 0);
		nr++;
	}
	qsort(v, nr, sizeof(*v), by_rank);
	/* one entry a rank, its steps' and files' bytes summed */
	size_t w = 0;
	for (size_t i = 0; i < nr; i++) {
		if (w && v[w - 1].rank == v[i].rank)
			v[w - 1].bytes += v[i].bytes;
		else
			v[w++] = v[i];
	}
	nr = w;
	for (size_t i = 0; i < nr; i++)
		total += v[i].bytes;
	if (n > nr)
		n = nr;
	/*
	 * Cut after rank i when the batch holds its share of the bytes not yet in a
	 * batch (so that a heavy rank does not unbalance the batches after it), and
	 * keep a rank for each batch left.
	 */
	uint64_t before = 0; /* the bytes in the batches already cut */
	for (size_t i = 0; i < nr; i++) {
		done += v[i].bytes;
		size_t left = n - batch; /* batches left, this one included */
		bool last_batch = left == 1;
		bool share_reached = (double)(done - before) * (double)left >= (double)(total - before);
		bool ranks_left_for_rest = nr - (i + 1) >= left - 1;
		bool must_cut = nr - (i + 1) == left - 1;
		if (!last_batch && ((share_reached && ranks_left_for_rest) || must_cut)) {
			add_rank_runs(out, v, lo, i + 1);
			lo = i + 1;
			before = done;
			batch++;
		}
	}
	if (lo < nr)
		add_rank_runs(out, v, lo, nr);
	free(v);
	return 0;
}
