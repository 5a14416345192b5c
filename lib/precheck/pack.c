#include "pack.h"
#include "../core/msg.h"
#include "../core/source.h"
#include "../core/xlsxr.h"
#include "../core/xalloc.h"
#include "../json/json.h"
#include "../msprobe/pyfmt.h"

#include <dirent.h>
#include <math.h>
#include <minizip/unzip.h>
#include <sys/stat.h>
#include <zlib.h>

const char *const pack_hyper_files[2] = { "hyperparameters_static.json", "hyperparameters_dynamic.json" };

const char *pack_check_name(enum pack_check c)
{
	static const char *const names[PACK_NCHECKS] = { "env", "pip", "dataset", "weights", "hyperparameters", "random" };
	return (unsigned)c < PACK_NCHECKS ? names[c] : "?";
}

struct pack *pack_new(const char *path, enum pack_kind kind)
{
	struct pack *p = xcalloc(1, sizeof(*p));
	p->path = xstrdup(path);
	p->kind = kind;
	p->arena = (struct arena)ARENA_INIT;
	p->members = (struct strmap)STRMAP_INIT;
	p->pip = (struct piplist)PIPLIST_INIT;
	p->ms_pip = (struct piplist)PIPLIST_INIT;
	return p;
}

void pack_free(struct pack *p)
{
	if (!p)
		return;
	free(p->path);
	piplist_release(&p->pip);
	piplist_release(&p->ms_pip);
	free(p->dataset);
	free(p->weights);
	free(p->random);
	strmap_release(&p->members);
	arena_release(&p->arena);
	free(p);
}

/* ---- JSON values */

const struct jnode *pack_parse_json(struct pack *p, const char *where, const char *data, size_t len,
				    struct strbuf *err)
{
	struct source *src = source_from_memory(where, data, len);
	struct json_reader r;
	struct json_token tok;
	struct jnode *root = NULL;
	json_reader_init(&r, src, 0, 0);
	if (json_reader_next(&r, &tok) == JSON_EOF)
		json_reader_fail_at(&r, &tok, "no JSON value (an empty file)");
	else if ((root = jtree_build(&r, &tok, &p->arena)) && json_reader_next(&r, &tok) != JSON_EOF) {
		if (tok.type != JSON_ERROR)
			json_reader_fail_at(&r, &tok, "more after the JSON value");
		root = NULL;
	}
	if (!root)
		strbuf_addstr(err, json_reader_error(&r));
	json_reader_release(&r);
	source_close(src);
	return root;
}

static struct pyval *new_pyval(struct pack *p, enum pykind kind)
{
	struct pyval *v = arena_alloc(&p->arena, sizeof(*v));
	memset(v, 0, sizeof(*v));
	v->kind = kind;
	return v;
}

static struct pyval *number_pyval(struct pack *p, const struct jnode *n)
{
	struct pyval *v;
	if (n->nonfinite) {
		v = new_pyval(p, PY_FLOAT);
		pyval_set_float(v, n->text[0] == 'N' ? NAN : n->text[0] == '-' ? -INFINITY : INFINITY);
		return v;
	}
	if (jtree_is_int(n)) {
		v = new_pyval(p, PY_INT);
		if (n->len == 2 && !memcmp(n->text, "-0", 2)) /* Python's int("-0") prints 0 */
			v->text = "0", v->len = 1;
		else
			v->text = n->text, v->len = n->len;
		return v;
	}
	v = new_pyval(p, PY_FLOAT);
	v->text = n->text;
	v->len = n->len;
	v->canonical = pyfmt_is_canonical(n->text, n->len);
	return v;
}

struct pyval *pack_pyval(struct pack *p, const struct jnode *n)
{
	struct pyval *v;
	const struct jnode *c;
	size_t i = 0;
	switch (n->kind) {
	case J_NULL: return new_pyval(p, PY_NONE);
	case J_TRUE:
	case J_FALSE:
		v = new_pyval(p, PY_BOOL);
		v->b = n->kind == J_TRUE;
		return v;
	case J_NUMBER: return number_pyval(p, n);
	case J_STRING:
		v = new_pyval(p, PY_STR);
		v->text = n->text;
		v->len = n->len;
		return v;
	case J_ARRAY:
		v = new_pyval(p, PY_LIST);
		v->n = n->count;
		v->items = arena_alloc(&p->arena, st_mult(n->count ? n->count : 1, sizeof(*v->items)));
		for (c = n->child; c; c = c->next)
			v->items[i++] = pack_pyval(p, c);
		return v;
	case J_OBJECT:
		v = new_pyval(p, PY_DICT);
		v->n = n->count;
		v->items = arena_alloc(&p->arena, st_mult(2 * (size_t)n->count + 1, sizeof(*v->items)));
		for (c = n->child; c; c = c->next) {
			struct pyval *k = new_pyval(p, PY_STR);
			k->text = c->key;
			k->len = c->key_len;
			v->items[i++] = k;
			v->items[i++] = pack_pyval(p, c);
		}
		return v;
	}
	return new_pyval(p, PY_NONE);
}

/* ---- the shapes the checks need */

/* "WHERE:LINE:COL: what", at a value of the tree. */
static int fail_at(struct strbuf *err, const char *where, const struct jnode *n, const char *fmt, ...) PRINTF_LIKE(4, 5);
static int fail_at(struct strbuf *err, const char *where, const struct jnode *n, const char *fmt, ...)
{
	va_list ap;
	strbuf_addf(err, "%s:%llu:%llu: ", where, (unsigned long long)n->line, (unsigned long long)n->col);
	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return PROBE_ERR;
}

static bool is_number(const struct jnode *n)
{
	return n && n->kind == J_NUMBER;
}

static const char *const stat_names[4] = { "max", "min", "mean", "norm" };

/* An object whose keys are exactly max, min, mean and norm (msprobe's test of a tensor's statistics). */
static bool is_stats(const struct jnode *n)
{
	if (n->kind != J_OBJECT || n->count != 4)
		return false;
	for (int k = 0; k < 4; k++)
		if (!jtree_get(n, stat_names[k]))
			return false;
	return true;
}

static int check_stats(const struct jnode *n, const char *where, const char *whose, struct strbuf *err)
{
	for (int k = 0; k < 4; k++) {
		const struct jnode *s = jtree_get(n, stat_names[k]);
		if (!s)
			return fail_at(err, where, n, "%s has no \"%s\"", whose, stat_names[k]);
		if (!is_number(s))
			return fail_at(err, where, s, "\"%s\" of %s is not a number", stat_names[k], whose);
	}
	return 0;
}

/* dataset.json: an object; every statistics object in it holds numbers. */
static int check_dataset(const struct jnode *n, const char *where, int depth, struct strbuf *err)
{
	if (depth > 100)
		return fail_at(err, where, n, "nested deeper than 100 levels");
	if (is_stats(n))
		return check_stats(n, where, "a tensor's statistics", err);
	if (n->kind == J_OBJECT)
		for (const struct jnode *c = n->child; c; c = c->next)
			if (check_dataset(c, where, depth + 1, err) < 0)
				return -1;
	return 0;
}

static int check_weights(const struct jnode *n, const char *where, struct strbuf *err)
{
	for (const struct jnode *c = n->child; c; c = c->next) {
		if (c->kind != J_OBJECT)
			return fail_at(err, where, c, "a weight's statistics are not a JSON object");
		if (check_stats(c, where, "a weight", err) < 0)
			return -1;
	}
	return 0;
}

/* random/rankR.json: {op: [{"count": N, "stack": ["frame", ...]}, ...]}. */
static int check_random(const struct jnode *n, const char *where, struct strbuf *err)
{
	for (const struct jnode *op = n->child; op; op = op->next) {
		if (op->kind != J_ARRAY)
			return fail_at(err, where, op, "an operation's calls are not a JSON array");
		for (const struct jnode *e = op->child; e; e = e->next) {
			const struct jnode *count = jtree_get(e, "count"), *stack = jtree_get(e, "stack");
			if (e->kind != J_OBJECT)
				return fail_at(err, where, e, "a call is not a JSON object");
			if (!count || !jtree_is_int(count) || count->text[0] == '-' || count->len > 18)
				return fail_at(err, where, count ? count : e, "a call without its \"count\" (a whole number)");
			if (!stack || stack->kind != J_ARRAY)
				return fail_at(err, where, stack ? stack : e, "a call without its \"stack\" (an array)");
			for (const struct jnode *f = stack->child; f; f = f->next)
				if (f->kind != J_STRING)
					return fail_at(err, where, f, "a stack frame that is not a string");
		}
	}
	return 0;
}

/* ---- members */

enum member { M_NONE, M_ENV, M_PIP, M_HYPER, M_DATASET, M_WEIGHTS, M_RANDOM };

/* "<prefix><digits>" at s (up to '/' or end): its number, or -1. */
static int64_t numbered(const char *s, size_t n, const char *prefix)
{
	size_t pl = strlen(prefix);
	int64_t v = 0;
	if (n <= pl || memcmp(s, prefix, pl))
		return -1;
	for (size_t i = pl; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (INT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* Which member of the layout name is, with its step and rank. */
static enum member classify(const char *name, int64_t *step, int64_t *rank, int *hyper)
{
	const char *a, *b, *c;
	*step = *rank = -1;
	if (!strcmp(name, "env"))
		return M_ENV;
	if (!strcmp(name, "pip"))
		return M_PIP;
	for (int i = 0; i < 2; i++)
		if (!strncmp(name, "hyperparameters/", 16) && !strcmp(name + 16, pack_hyper_files[i])) {
			*hyper = i;
			return M_HYPER;
		}
	if (!strncmp(name, "random/", 7)) {
		size_t n = strlen(name + 7);
		if (n > 5 && !strcmp(name + 7 + n - 5, ".json") && (*rank = numbered(name + 7, n - 5, "rank")) >= 0)
			return M_RANDOM;
		return M_NONE;
	}
	if (strncmp(name, "dataset/", 8) && strncmp(name, "weights/", 8))
		return M_NONE;
	a = name + 8;
	if (!(b = strchr(a, '/')) || !(c = strchr(b + 1, '/')) || strchr(c + 1, '/'))
		return M_NONE;
	*step = numbered(a, (size_t)(b - a), "step");
	*rank = numbered(b + 1, (size_t)(c - b - 1), "rank");
	if (*step < 0 || *rank < 0)
		return M_NONE;
	if (name[0] == 'd')
		return !strcmp(c + 1, "dataset.json") ? M_DATASET : M_NONE;
	return strlen(c + 1) > 5 && !strcmp(c + 1 + strlen(c + 1) - 5, ".json") ? M_WEIGHTS : M_NONE;
}

/* The folder of the layout a member lies in (its check), or -1. */
static int check_of_folder(const char *name)
{
	static const struct {
		const char *prefix;
		enum pack_check c;
	} folders[] = { { "hyperparameters/", PACK_HYPER }, { "dataset/", PACK_DATASET }, { "weights/", PACK_WEIGHTS },
			{ "random/", PACK_RANDOM } };
	for (size_t i = 0; i < ARRAY_SIZE(folders); i++)
		if (!strncmp(name, folders[i].prefix, strlen(folders[i].prefix)))
			return (int)folders[i].c;
	return -1;
}

/* The entry of a list for member: the one of that name (a member twice: the later replaces it), or a new one. */
static struct pack_json *list_slot(struct pack *p, struct pack_json **v, size_t *n, const char *member)
{
	bool created;
	struct strmap_slot *s = strmap_put(&p->members, member, strlen(member), &created);
	if (!created)
		return &(*v)[s->value.u];
	s->value.u = *n;
	if (!(*n & (*n + 1)) || !*n) /* grown at 1, 3, 7, ...: powers of two minus one */
		*v = xrealloc(*v, st_mult(2 * *n + 2, sizeof(**v)));
	memset(&(*v)[*n], 0, sizeof(**v));
	return &(*v)[(*n)++];
}

int pack_add_member(struct pack *p, const char *member, const char *where, const char *data, size_t len,
		    struct strbuf *err)
{
	int64_t step, rank;
	int hyper = 0, folder = check_of_folder(member);
	enum member m = classify(member, &step, &rank, &hyper);
	const struct jnode *tree;
	struct pack_json *slot;
	int rc = 0;

	if (folder >= 0)
		p->has |= 1u << folder;
	if (m == M_NONE)
		return 1;
	if (m == M_PIP) {
		piplist_release(&p->pip);
		piplist_release(&p->ms_pip);
		if (piplist_parse(&p->pip, where, data, len, err) < 0)
			return -1;
		piplist_parse_msprobe(&p->ms_pip, data, len);
		p->pip_where = arena_memdupz(&p->arena, where, strlen(where));
		p->has |= 1u << PACK_PIP;
		return 0;
	}
	if (p->max_inflate) {
		/* every value but the first follows a '[', ',' or ':': an upper bound on the nodes */
		uint64_t nodes = 1, need, max = p->max_inflate > UINT64_MAX / PACK_TREE_RATIO
						       ? UINT64_MAX : p->max_inflate * PACK_TREE_RATIO;
		for (size_t i = 0; i < len; i++)
			nodes += data[i] == '[' || data[i] == ',' || data[i] == ':';
		need = nodes * 2 * (sizeof(struct jnode) + sizeof(struct pyval)) + len + p->arena.total;
		if (need > max) {
			strbuf_addf(err, "%s: its JSON would take about %llu MiB of memory as a tree, more than the %llu MiB "
				    "allowed (%u times PROBE_MAX_INFLATE's bound; it raises the limit)", where,
				    (unsigned long long)(need >> 20), (unsigned long long)(max >> 20), PACK_TREE_RATIO);
			return -1;
		}
	}
	if (!(tree = pack_parse_json(p, where, data, len, err)))
		return -1;
	if (tree->kind != J_OBJECT)
		return fail_at(err, where, tree, "not a JSON object, as %s is in a pack", member);
	switch (m) {
	case M_ENV: slot = &p->env; p->has |= 1u << PACK_ENV; break;
	case M_HYPER: slot = &p->hyper[hyper]; break;
	case M_DATASET: rc = check_dataset(tree, where, 0, err); slot = list_slot(p, &p->dataset, &p->ndataset, member); break;
	case M_WEIGHTS: rc = check_weights(tree, where, err); slot = list_slot(p, &p->weights, &p->nweights, member); break;
	case M_RANDOM: rc = check_random(tree, where, err); slot = list_slot(p, &p->random, &p->nrandom, member); break;
	default: return 1;
	}
	if (rc < 0)
		return -1;
	slot->member = arena_memdupz(&p->arena, member, strlen(member));
	slot->where = arena_memdupz(&p->arena, where, strlen(where));
	slot->step = step;
	slot->rank = rank;
	slot->tree = tree;
	slot->value = slot->ms_value = pack_pyval(p, tree);
	return 0;
}

static int cmp_json(const void *x, const void *y)
{
	const struct pack_json *a = x, *b = y;
	if (a->step != b->step)
		return a->step < b->step ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return strcmp(a->member, b->member);
}

const struct pack_json *pack_find(const struct pack_json *v, size_t n, const struct pack_json *f)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_json(&v[mid], f);
		if (!c)
			return &v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void pack_sort(struct pack *p)
{
	if (p->ndataset)
		qsort(p->dataset, p->ndataset, sizeof(*p->dataset), cmp_json);
	if (p->nweights)
		qsort(p->weights, p->nweights, sizeof(*p->weights), cmp_json);
	if (p->nrandom)
		qsort(p->random, p->nrandom, sizeof(*p->random), cmp_json);
}

static void ignored(const char *where)
{
	warning("%s: not a member of msprobe's config_check pack: ignored", where);
}

/* ---- a zip */

static int zip_fail(struct strbuf *err, const char *path, const char *member, const char *what)
{
	strbuf_addf(err, "%s(%s): %s", path, member, what);
	return -1;
}

/* The current member's bytes, checked (size, CRC). */
static int zip_read_member(struct pack *p, unzFile z, const char *path, const char *name,
			   const unz_file_info64 *info, struct strbuf *data, struct strbuf *err)
{
	uLong crc = crc32(0, Z_NULL, 0);
	int rc;
	if (info->flag & 1)
		return zip_fail(err, path, name, "encrypted, which a pack's members are not");
	if (info->compression_method != 0 && info->compression_method != Z_DEFLATED)
		return zip_fail(err, path, name, "compressed with a method other than stored or deflated");
	if (info->uncompressed_size > PACK_MAX_FILE)
		return zip_fail(err, path, name, "larger than 1 GiB, which msprobe refuses too");
	if (info->uncompressed_size > p->max_inflate || p->inflated > p->max_inflate - info->uncompressed_size) {
		strbuf_addf(err, "%s(%s): inflates to %llu bytes, which with the %llu already read is more than the %llu "
			    "bytes allowed for this zip (64 times its size, at least 64 MiB; PROBE_MAX_INFLATE raises the "
			    "limit)", path, name, (unsigned long long)info->uncompressed_size,
			    (unsigned long long)p->inflated, (unsigned long long)p->max_inflate);
		return -1;
	}
	p->inflated += info->uncompressed_size;
	if (unzOpenCurrentFile(z) != UNZ_OK)
		return zip_fail(err, path, name, "cannot be read (a damaged zip)");
	strbuf_reset(data);
	strbuf_grow(data, (size_t)info->uncompressed_size);
	for (;;) {
		char buf[65536];
		int n = unzReadCurrentFile(z, buf, sizeof(buf));
		if (n < 0) {
			unzCloseCurrentFile(z);
			return zip_fail(err, path, name, "cannot be inflated (a damaged or truncated zip)");
		}
		if (!n)
			break;
		if (data->len + (size_t)n > info->uncompressed_size) {
			unzCloseCurrentFile(z);
			return zip_fail(err, path, name, "inflates to more bytes than its zip entry declares");
		}
		crc = crc32(crc, (const Bytef *)buf, (uInt)n);
		strbuf_add(data, buf, (size_t)n);
	}
	rc = unzCloseCurrentFile(z);
	if (data->len != info->uncompressed_size)
		return zip_fail(err, path, name, "ends before the size its zip entry declares (a truncated zip)");
	if (rc == UNZ_CRCERROR || (uint32_t)crc != (uint32_t)info->crc)
		return zip_fail(err, path, name, "its CRC does not match (a damaged zip)");
	if (rc != UNZ_OK)
		return zip_fail(err, path, name, "cannot be read to its end (a damaged zip)");
	return 0;
}

int pack_read_zip(struct pack *p, struct strbuf *err)
{
	struct strbuf data = STRBUF_INIT, where = STRBUF_INIT;
	unz_global_info64 gi;
	unzFile z;
	int rc = 0, step;
	size_t members = 0;
	struct stat st;

	if (stat(p->path, &st) < 0)
		return msg_fail(err, p->path, "cannot open: %s", strerror(errno));
	if (zip_inflate_limit((uint64_t)st.st_size, &p->max_inflate, &data) < 0) {
		rc = msg_fail(err, p->path, "%s", data.buf);
		strbuf_release(&data);
		return rc;
	}
	if (!(z = unzOpen64(p->path)))
		return msg_fail(err, p->path, "not a zip file, or a damaged one (cut short: its directory at the end is "
					      "missing)");
	if (unzGetGlobalInfo64(z, &gi) != UNZ_OK) {
		unzClose(z);
		return msg_fail(err, p->path, "its zip directory cannot be read (a damaged zip)");
	}
	for (step = unzGoToFirstFile(z); step == UNZ_OK && !rc; step = unzGoToNextFile(z)) {
		char name[1024];
		unz_file_info64 info;
		int64_t s, r;
		int h;
		if (++members > PACK_MAX_MEMBERS) {
			rc = msg_fail(err, p->path, "more than %d members: not a config_check pack", PACK_MAX_MEMBERS);
			break;
		}
		if (unzGetCurrentFileInfo64(z, &info, name, sizeof(name), NULL, 0, NULL, 0) != UNZ_OK ||
		    info.size_filename >= sizeof(name)) {
			rc = msg_fail(err, p->path, "member %zu: its zip directory entry cannot be read", members);
			break;
		}
		strbuf_reset(&where);
		strbuf_addf(&where, "%s(%s)", p->path, name);
		if (check_of_folder(name) >= 0)
			p->has |= 1u << check_of_folder(name);
		if (classify(name, &s, &r, &h) == M_NONE) {
			if (name[0] && name[strlen(name) - 1] != '/' && strcmp(name, "dataset") && strcmp(name, "weights") &&
			    strcmp(name, "random") && strcmp(name, "hyperparameters"))
				ignored(where.buf);
			continue;
		}
		if (zip_read_member(p, z, p->path, name, &info, &data, err) < 0 ||
		    pack_add_member(p, name, where.buf, data.buf, data.len, err) < 0)
			rc = -1;
	}
	if (!rc && step != UNZ_END_OF_LIST_OF_FILE)
		rc = msg_fail(err, p->path, "its zip directory cannot be read to its end (a damaged zip)");
	unzClose(z);
	strbuf_release(&data);
	strbuf_release(&where);
	if (!rc && !p->has)
		rc = msg_fail(err, p->path, "a zip without any member of msprobe's config_check pack (env, pip, "
					    "hyperparameters/, dataset/, weights/, random/)");
	pack_sort(p);
	return rc;
}

/* ---- a folder */

/* The whole of a regular file (at most PACK_MAX_FILE bytes). 0, 1 when it is not there, -1 with err set. */
static int read_file(const char *path, struct strbuf *out, struct strbuf *err)
{
	struct source *src;
	char buf[65536];
	ssize_t n;
	struct stat st;
	if (stat(path, &st) < 0 && errno == ENOENT)
		return 1;
	if (!(src = source_open_regular(path, err)))
		return -1;
	strbuf_reset(out);
	while ((n = source_read(src, buf, sizeof(buf))) > 0) {
		if (out->len + (size_t)n > PACK_MAX_FILE) {
			source_close(src);
			return msg_fail(err, path, "larger than 1 GiB: not a file of a config_check pack");
		}
		strbuf_add(out, buf, (size_t)n);
	}
	if (n < 0) {
		msg_fail(err, path, "cannot read: %s", source_error(src));
		source_close(src);
		return -1;
	}
	source_close(src);
	return 0;
}

struct walk {
	struct pack *p;
	struct strbuf path, data;
	struct strbuf *err;
};

/* Read the file at member (relative to the pack's folder) into the pack. */
static int dir_member(struct walk *w, const char *member)
{
	size_t base = w->path.len;
	struct stat st;
	int rc;
	strbuf_addf(&w->path, "/%s", member);
	if (stat(w->path.buf, &st) == 0 && S_ISDIR(st.st_mode)) {
		ignored(w->path.buf);
		strbuf_setlen(&w->path, base);
		return 0;
	}
	rc = read_file(w->path.buf, &w->data, w->err);
	if (!rc && (rc = pack_add_member(w->p, member, w->path.buf, w->data.buf, w->data.len, w->err)) == 1)
		ignored(w->path.buf);
	strbuf_setlen(&w->path, base);
	return rc < 0 ? -1 : 0;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The names in the folder rel (sorted; . and .. left out), NULL when it is not a folder. */
static char **list_dir(struct walk *w, const char *rel, size_t *n)
{
	struct strbuf dir = STRBUF_INIT;
	DIR *d;
	struct dirent *e;
	char **v = NULL;
	size_t alloc = 0;
	*n = 0;
	strbuf_addf(&dir, "%s/%s", w->path.buf, rel);
	d = opendir(dir.buf);
	strbuf_release(&dir);
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (*n == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			v = xrealloc(v, st_mult(alloc, sizeof(*v)));
		}
		v[(*n)++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_str);
	return v ? v : xcalloc(1, sizeof(*v));
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Every file below rel, up to depth more folders, read as members. */
static int dir_walk(struct walk *w, const char *rel, int depth)
{
	size_t n;
	char **v = list_dir(w, rel, &n);
	int rc = 0;
	if (!v) {
		struct strbuf m = STRBUF_INIT;
		strbuf_addstr(&m, rel);
		rc = dir_member(w, m.buf);
		strbuf_release(&m);
		return rc;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		struct strbuf m = STRBUF_INIT;
		strbuf_addf(&m, "%s/%s", rel, v[i]);
		if (depth > 0)
			rc = dir_walk(w, m.buf, depth - 1);
		else
			rc = dir_member(w, m.buf);
		strbuf_release(&m);
	}
	free_list(v, n);
	return rc;
}

int pack_read_dir(struct pack *p, struct strbuf *err)
{
	static const struct {
		const char *name;
		int depth;
	} top[] = { { "env", -1 }, { "pip", -1 }, { "hyperparameters", 0 }, { "dataset", 2 }, { "weights", 2 },
		    { "random", 0 } };
	struct walk w = { .p = p, .path = STRBUF_INIT, .data = STRBUF_INIT, .err = err };
	struct stat st;
	int rc = 0;
	strbuf_addstr(&w.path, p->path);
	while (w.path.len > 1 && w.path.buf[w.path.len - 1] == '/')
		strbuf_setlen(&w.path, w.path.len - 1);
	for (size_t i = 0; i < ARRAY_SIZE(top) && !rc; i++) {
		size_t base = w.path.len;
		strbuf_addf(&w.path, "/%s", top[i].name);
		if (stat(w.path.buf, &st) < 0) {
			strbuf_setlen(&w.path, base);
			continue;
		}
		strbuf_setlen(&w.path, base);
		if (top[i].depth < 0) {
			rc = dir_member(&w, top[i].name);
		} else if (!S_ISDIR(st.st_mode)) {
			rc = msg_fail(err, p->path, "%s is not a folder, as a config_check pack has it", top[i].name);
		} else {
			struct strbuf folder = STRBUF_INIT;
			strbuf_addf(&folder, "%s/", top[i].name);
			p->has |= 1u << check_of_folder(folder.buf);
			strbuf_release(&folder);
			rc = dir_walk(&w, top[i].name, top[i].depth);
		}
	}
	strbuf_release(&w.path);
	strbuf_release(&w.data);
	if (!rc && !p->has) {
		struct stat b;
		struct strbuf sub = STRBUF_INIT;
		strbuf_addf(&sub, "%s/bench", p->path);
		rc = msg_fail(err, p->path, stat(sub.buf, &b) == 0 && S_ISDIR(b.st_mode)
						    ? "not a config_check pack, but it holds bench/: msprobe's output "
						      "folder? give its bench/ and cmp/ folders"
						    : "not a config_check pack: none of env, pip, hyperparameters/, "
						      "dataset/, weights/, random/ is there");
		strbuf_release(&sub);
	}
	pack_sort(p);
	return rc;
}
