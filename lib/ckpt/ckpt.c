/* ckpt.c: the checkpoint index, plain .pt files, opening parameters, the cache (ckpt.h). */
#include "ckptio.h"

#include "../core/source.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- paths ---- */

char *ck_join(const char *dir, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, dir);
	if (sb.len && sb.buf[sb.len - 1] != '/')
		strbuf_addch(&sb, '/');
	strbuf_addstr(&sb, name);
	return strbuf_detach(&sb, NULL);
}

bool ck_is_dir(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

bool ck_is_file(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* ---- the index ---- */

uint32_t ck_add_file(struct ckpt *ck, const char *path)
{
	ALLOC_GROW(ck->files, ck->nfiles + 1, ck->files_alloc);
	ck->files[ck->nfiles] = arena_memdupz(&ck->arena, path, strlen(path));
	return (uint32_t)ck->nfiles++;
}

static int64_t *ck_dims(struct ckpt *ck, const int64_t *v, int n)
{
	int64_t *d = arena_alloc(&ck->arena, sizeof(*d) * (size_t)(n ? n : 1));
	if (n)
		memcpy(d, v, sizeof(*d) * (size_t)n);
	return d;
}

uint32_t ck_add_piece(struct ckpt *ck, uint32_t file, const struct tplace *p)
{
	struct ck_piece *c;
	ALLOC_GROW(ck->pieces, ck->npieces + 1, ck->pieces_alloc);
	c = &ck->pieces[ck->npieces];
	c->file = file;
	c->place = *p;
	c->place.shape = ck_dims(ck, p->shape, p->ndim);
	c->place.stride = p->stride ? ck_dims(ck, p->stride, p->ndim) : NULL;
	c->place.member = p->member ? arena_memdupz(&ck->arena, p->member, strlen(p->member)) : NULL;
	return (uint32_t)ck->npieces++;
}

void ck_add_param(struct ckpt *ck, const char *name, size_t len, enum ckpt_merge merge, int axis, int ndim,
		  const int64_t *shape, uint32_t first, uint32_t n, bool warn_twice, const char *where)
{
	bool created = false;
	struct strmap_slot *slot = strmap_put(&ck->byname, name, len, &created);
	struct ckpt_param *p;
	int64_t numel = 1;
	if (created) {
		ALLOC_GROW(ck->params, ck->nparams + 1, ck->params_alloc);
		slot->value.u = ck->nparams + 1;
		p = &ck->params[ck->nparams++];
		p->name = arena_memdupz(&ck->arena, name, len);
	} else {
		ck_shown_buf shown;
		p = &ck->params[slot->value.u - 1];
		if (warn_twice)
			warning("%s: the name %s is given twice: the second tensor is read, at the first one's place",
				where, ck_shown(shown, name, len));
	}
	/* a tensor's bytes bound the product of its dims, but not when one of them is 0: [2^40, 2^40, 0] */
	for (int d = 0; d < ndim && numel; d++)
		if (!shape[d] || __builtin_mul_overflow(numel, shape[d], &numel))
			numel = 0;
	p->dtype = ck->pieces[first].place.dtype;
	p->ndim = ndim;
	p->shape = ck_dims(ck, shape, ndim);
	p->numel = numel;
	p->merge = merge;
	p->axis = axis;
	p->file = ck->files[ck->pieces[first].file];
	p->first = first;
	p->npieces = n;
}

int ck_add_as_is(void *ctx, const char *name, size_t len, uint32_t piece, struct strbuf *err)
{
	struct ckpt *ck = ctx;
	const struct ck_piece *c = &ck->pieces[piece];
	(void)err;
	ck_add_param(ck, name, len, CKPT_AS_IS, 0, c->place.ndim, c->place.shape, piece, 1, true, ck->files[c->file]);
	return 0;
}

/* ---- walking a .pt's objects ---- */

struct walk {
	const struct ptobj *o;
	bool dicts_only;
	ck_tensor_fn *fn;
	void *ctx;
	struct strbuf *err;
	struct strbuf name;
	size_t nodes, max_nodes;
};

/* A name of the tree (its keys joined) is at most this long: a key can be as long as data.pkl. */
#define CK_MAX_NAME ((size_t)1 << 20)

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && !memcmp(s + n - k, suffix, k);
}

/* name.key, stripped of dots at both ends as msprobe's '.'.join([prefix, k]).strip('.') does */
static void join_key(struct strbuf *name, size_t at, const char *k, size_t kl)
{
	size_t start = 0, end;
	strbuf_setlen(name, at);
	strbuf_addch(name, '.');
	strbuf_add(name, k, kl);
	/* strip from the joined text (prefix + "." + key) */
	end = name->len;
	while (start < end && name->buf[start] == '.')
		start++;
	while (end > start && name->buf[end - 1] == '.')
		end--;
	if (start || end != name->len) {
		memmove(name->buf, name->buf + start, end - start);
		strbuf_setlen(name, end - start);
	}
}

static int walk_node(struct walk *w, ptobj_ref r, int depth);

/* The key of an entry as text: a str as it is, an int in decimal. */
static int key_text(struct walk *w, ptobj_ref k, size_t index, struct strbuf *out)
{
	size_t len;
	const char *s;
	int64_t i;
	strbuf_reset(out);
	if (k == PTOBJ_NOREF) {
		strbuf_addf(out, "%zu", index);
		return 0;
	}
	if ((s = ptobj_str(w->o, k, &len))) {
		if (len > CK_MAX_NAME - w->name.len) {
			ck_shown_buf shown;
			return msg_fail(w->err, ptobj_path(w->o), "data.pkl: under \"%s\": a key of %zu bytes makes a name "
					"longer than %zu bytes", ck_shown(shown, w->name.buf, w->name.len), len, CK_MAX_NAME);
		}
		strbuf_add(out, s, len);
		return 0;
	}
	if (ptobj_kind(w->o, k) == PTOBJ_INT && ptobj_int(w->o, k, &i)) {
		strbuf_addf(out, "%lld", (long long)i);
		return 0;
	}
	ck_shown_buf shown;
	return msg_fail(w->err, ptobj_path(w->o), "under \"%s\": a dict key that is %s, neither a str nor an int",
			ck_shown(shown, w->name.buf, w->name.len), ptobj_kind_name(w->o, k));
}

static int walk_entries(struct walk *w, ptobj_ref r, int depth)
{
	struct ptobj_iter it;
	struct strbuf key = STRBUF_INIT;
	size_t at = w->name.len, index = 0;
	ptobj_ref k, v;
	int rc = 0;
	for (ptobj_iter_begin(w->o, r, &it); !rc && ptobj_iter_next(w->o, &it, &k, &v); index++) {
		if (depth + 1 > CK_MAX_DEPTH) { /* before the key is copied */
			ck_shown_buf shown;
			rc = msg_fail(w->err, ptobj_path(w->o), "\"%s\": nested more than %d levels deep (a dict that "
				      "holds itself?)", ck_shown(shown, w->name.buf, w->name.len), CK_MAX_DEPTH);
			break;
		}
		if ((rc = key_text(w, k, index, &key)))
			break;
		join_key(&w->name, at, key.buf, key.len);
		rc = walk_node(w, v, depth + 1);
		strbuf_setlen(&w->name, at);
	}
	strbuf_release(&key);
	return rc;
}

static int walk_node(struct walk *w, ptobj_ref r, int depth)
{
	enum ptobj_kind kind = ptobj_kind(w->o, r);
	struct ptobj_tensor t;
	if (++w->nodes > w->max_nodes)
		return msg_fail(w->err, ptobj_path(w->o), "data.pkl: more than %zu objects visited: the pickle's objects "
				"share themselves too often to be walked (PROBE_PT_EXPAND raises the limit)", w->max_nodes);
	if (depth > CK_MAX_DEPTH) {
		ck_shown_buf shown;
		return msg_fail(w->err, ptobj_path(w->o), "\"%s\": nested more than %d levels deep (a dict that "
				"holds itself?)", ck_shown(shown, w->name.buf, w->name.len), CK_MAX_DEPTH);
	}
	if (kind == PTOBJ_TENSOR) {
		if (ends_with(w->name.buf, w->name.len, "_extra_state"))
			return 0;
		ptobj_tensor(w->o, r, &t);
		return w->fn(w->ctx, w->name.buf, w->name.len, &t);
	}
	if (ptobj_is_mapping(w->o, r) || (!w->dicts_only && (kind == PTOBJ_LIST || kind == PTOBJ_TUPLE)))
		return walk_entries(w, r, depth);
	return 0;
}

int ck_walk(const struct ptobj *o, ptobj_ref r, const char *prefix, bool dicts_only, ck_tensor_fn *fn, void *ctx,
	    struct strbuf *err)
{
	struct walk w = { .o = o, .dicts_only = dicts_only, .fn = fn, .ctx = ctx, .err = err, .name = STRBUF_INIT };
	size_t f = ptobj_expand(err), n = ptobj_objects(o);
	int rc;
	if (!f)
		return -1;
	/* visits follow what data.pkl holds: f per object (at least 1 Mi), never past CK_MAX_NODES unless asked */
	w.max_nodes = n > SIZE_MAX / f ? SIZE_MAX : n * f;
	if (w.max_nodes < ((size_t)1 << 20))
		w.max_nodes = (size_t)1 << 20;
	if (w.max_nodes > CK_MAX_NODES && !getenv("PROBE_PT_EXPAND"))
		w.max_nodes = CK_MAX_NODES;
	strbuf_addstr(&w.name, prefix);
	rc = walk_node(&w, r, 0);
	strbuf_release(&w.name);
	return rc;
}

/* ---- plain .pt files ---- */

struct scan {
	struct ckpt *ck;
	uint32_t file;
	ck_piece_fn *fn;
	void *ctx;
	struct strbuf *err;
};

static int scan_tensor(void *ctx, const char *name, size_t len, const struct ptobj_tensor *t)
{
	struct scan *s = ctx;
	return s->fn(s->ctx, name, len, ck_add_piece(s->ck, s->file, &t->place), s->err);
}

int ck_scan_pt(struct ckpt *ck, const char *file, ck_piece_fn *fn, void *ctx, struct strbuf *err)
{
	struct ptobj *o;
	struct scan s = { .ck = ck, .fn = fn, .ctx = ctx, .err = err };
	int rc;
	if (ptobj_open(&o, file, err))
		return -1;
	s.file = ck_add_file(ck, file);
	rc = ck_walk(o, ptobj_root(o), "", false, scan_tensor, &s, err);
	ptobj_close(o);
	return rc;
}

/* ---- opening ---- */

const char *ckpt_kind_name(enum ckpt_kind k)
{
	static const char *const names[] = { "pt", "safetensors", "hf", "megatron" };
	return names[k];
}

enum ckpt_kind ckpt_kind(const struct ckpt *ck)
{
	return ck->kind;
}

const char *ckpt_path(const struct ckpt *ck)
{
	return ck->path;
}

const char *ckpt_root(const struct ckpt *ck)
{
	return ck->root;
}

const struct ckpt_parallel *ckpt_parallel(const struct ckpt *ck)
{
	return &ck->par;
}

size_t ckpt_count(const struct ckpt *ck)
{
	return ck->nparams;
}

const struct ckpt_param *ckpt_param(const struct ckpt *ck, size_t i)
{
	return &ck->params[i];
}

long ckpt_find(const struct ckpt *ck, const char *name, size_t len)
{
	const struct strmap_slot *s = strmap_find(&ck->byname, name, len);
	return s ? (long)s->value.u - 1 : -1;
}

void ckpt_close(struct ckpt *ck)
{
	if (!ck)
		return;
	free(ck->path);
	free(ck->root);
	free(ck->files);
	free(ck->pieces);
	free(ck->params);
	strmap_release(&ck->byname);
	arena_release(&ck->arena);
	free(ck);
}

/* The first bytes of a regular file (fewer at its end); -1 when it cannot be read. */
static ssize_t head_bytes(const char *path, unsigned char *buf, size_t n)
{
	struct stat st;
	bool other = false;
	ssize_t got;
	int fd = source_open_regular_fd(AT_FDCWD, path, 0, &st, &other);
	if (fd < 0)
		return -1;
	got = pread(fd, buf, n, 0);
	close(fd);
	return got;
}

/* A zip archive (a .pt), by its first bytes. */
static bool looks_zip(const unsigned char *b, ssize_t n)
{
	return n >= 4 && b[0] == 'P' && b[1] == 'K' && ((b[2] == 3 && b[3] == 4) || (b[2] == 5 && b[3] == 6));
}

/* A safetensors file: a little-endian length, then '{'. */
static bool looks_safetensors(const unsigned char *b, ssize_t n)
{
	return n >= 9 && b[8] == '{' && ck_le64(b) >= 2 && ck_le64(b) < ((uint64_t)1 << 40);
}

/* The layout of a folder, by the names in it; -1 when none. */
static int folder_kind(const char *dir)
{
	static const char *const hf[] = { "model.safetensors.index.json", "model.safetensors",
					   "pytorch_model.bin.index.json", "pytorch_model.bin" };
	char *p = ck_join(dir, "latest_checkpointed_iteration.txt");
	bool megatron = ck_is_file(p);
	free(p);
	if (megatron)
		return CKPT_MEGATRON;
	for (size_t i = 0; i < ARRAY_SIZE(hf); i++) {
		bool there;
		p = ck_join(dir, hf[i]);
		there = ck_is_file(p);
		free(p);
		if (there)
			return CKPT_HF;
	}
	DIR *d = opendir(dir);
	struct dirent *de;
	int kind = -1;
	if (!d)
		return -1;
	while (kind < 0 && (de = readdir(d)))
		if (!strncmp(de->d_name, "mp_rank_", 8)) {
			p = ck_join(dir, de->d_name);
			if (ck_is_dir(p))
				kind = CKPT_MEGATRON;
			free(p);
		}
	closedir(d);
	return kind;
}

bool ckpt_looks_like(const char *path)
{
	unsigned char b[9];
	ssize_t n;
	if (ck_is_dir(path))
		return folder_kind(path) >= 0;
	n = head_bytes(path, b, sizeof(b));
	return looks_zip(b, n) || looks_safetensors(b, n);
}

/* What ckpt_open() says of a folder it does not read. */
static int not_a_checkpoint_folder(const char *path, struct strbuf *err)
{
	char *p = ck_join(path, "model_optim_rng.pt");
	bool rank = ck_is_file(p);
	free(p);
	if (rank)
		return msg_fail(err, path, "a rank folder of a Megatron checkpoint: name its iteration folder (the "
				"parent) to merge the ranks, or model_optim_rng.pt to read this rank's file alone");
	return msg_fail(err, path, "not a checkpoint: no latest_checkpointed_iteration.txt, mp_rank_* folders, "
			"model.safetensors(.index.json) or pytorch_model.bin(.index.json)");
}

static int read_file_kind(struct ckpt *ck, struct strbuf *err)
{
	unsigned char b[9];
	ssize_t n = head_bytes(ck->root, b, sizeof(b));
	if (n < 0) {
		struct stat st;
		if (!stat(ck->root, &st) && !S_ISREG(st.st_mode))
			return msg_fail(err, ck->root, "not a regular file (%s)", source_kind_name(st.st_mode));
		return msg_fail(err, ck->root, "%s", strerror(errno));
	}
	if (looks_zip(b, n)) {
		ck->kind = CKPT_PT;
		return ck_scan_pt(ck, ck->root, ck_add_as_is, ck, err);
	}
	if (looks_safetensors(b, n)) {
		ck->kind = CKPT_SAFETENSORS;
		return ck_read_safetensors(ck, err);
	}
	if (n >= 2 && b[0] == 0x80 && b[1] >= 2 && b[1] <= 5)
		return msg_fail(err, ck->root, "a pickle, not a zip archive: torch.save's legacy format is not supported");
	return msg_fail(err, ck->root, "neither a torch .pt file (a zip archive) nor a safetensors file");
}

int ckpt_open(struct ckpt **out, const char *path, struct strbuf *err)
{
	struct ckpt *ck = xcalloc(1, sizeof(*ck));
	struct stat st;
	int rc, kind;

	*out = NULL;
	ck->path = xstrdup(path);
	ck->root = xstrdup(path);
	ck->par = (struct ckpt_parallel){ 1, 1, 1, 0, 1, -1 };
	if (stat(path, &st)) {
		rc = msg_fail(err, path, "%s", strerror(errno));
	} else if (!S_ISDIR(st.st_mode)) {
		rc = read_file_kind(ck, err);
	} else if ((kind = folder_kind(path)) < 0) {
		rc = not_a_checkpoint_folder(path, err);
	} else {
		ck->kind = (enum ckpt_kind)kind;
		rc = kind == CKPT_HF ? ck_read_hf(ck, err) : ck_read_megatron(ck, err);
	}
	if (!rc && !ck->nparams)
		rc = msg_fail(err, ck->root, "no tensors in this checkpoint");
	if (rc) {
		ckpt_close(ck);
		return -1;
	}
	*out = ck;
	return 0;
}

/* ---- opening a parameter ---- */

static int open_piece(const struct ckpt *ck, uint32_t i, struct tensor *t, struct strbuf *err)
{
	const struct ck_piece *c = &ck->pieces[i];
	return tplace_open(t, ck->files[c->file], &c->place, err);
}

/* The shards of a concatenated parameter, their elements copied into `out` in the merged order. */
struct concat {
	struct tensor *parts;
	uint32_t n, opened;
	unsigned char *out;
};

static void concat_release(struct concat *c)
{
	for (uint32_t i = 0; i < c->opened; i++)
		tensor_close(&c->parts[i]);
	free(c->parts);
	free(c->out);
}

/* Shard elements into out: along axis 0 one after another, along axis k block by block. */
static void concat_copy(const struct ckpt_param *p, struct concat *c)
{
	unsigned size = dtype_info(p->dtype)->size;
	int64_t outer = 1, inner_total = 0;
	unsigned char *dst = c->out;
	for (int d = 0; d < p->axis; d++)
		outer *= p->shape[d];
	for (uint32_t i = 0; i < c->n; i++)
		inner_total += outer ? c->parts[i].numel / outer : 0;
	for (int64_t o = 0; o < outer; o++)
		for (uint32_t i = 0; i < c->n; i++) {
			int64_t block = c->parts[i].numel / outer;
			tensor_read_raw(&c->parts[i], o * block, block, dst);
			dst += block * (int64_t)size;
		}
	(void)inner_total;
}

static int open_concat(const struct ckpt *ck, const struct ckpt_param *p, struct tensor *t, struct strbuf *err)
{
	struct concat *c = xcalloc(1, sizeof(*c)); /* reachable after a fault's jump */
	struct tensor_guard g;
	const size_t err_len = err->len;
	size_t bytes = st_mult((size_t)p->numel, dtype_info(p->dtype)->size);
	volatile int rc = 0;

	c->n = p->npieces;
	c->parts = xcalloc(c->n, sizeof(*c->parts));
	for (uint32_t i = 0; i < c->n && !rc; i++) {
		rc = open_piece(ck, p->first + i, &c->parts[i], err);
		if (!rc)
			c->opened++;
	}
	if (!rc) {
		c->out = xmalloc(bytes ? bytes : 1);
		tensor_guard_begin(&g);
		if (!sigsetjmp(g.jump, 0)) {
			concat_copy(p, c);
		} else {
			strbuf_setlen(err, err_len);
			bool named = false;
			for (uint32_t i = 0; i < c->opened && !named; i++)
				named = tensor_fault_message(&c->parts[i], g.addr, err);
			if (!named) {
				ck_shown_buf shown;
				msg_fail(err, p->file, "a read faulted (SIGBUS) while the shards of %s were read",
					 CK_SHOWN_STR(shown, p->name));
			}
			rc = -1;
		}
		tensor_guard_end(&g);
	}
	if (!rc) {
		tplace_adopt(t, p->file, p->dtype, p->ndim, p->shape, c->out);
		c->out = NULL;
	}
	concat_release(c);
	free(c);
	return rc;
}

/* Whether two open tensors hold the same elements, byte for byte (under the caller's guard). */
static bool same_elements(const struct tensor *a, const struct tensor *b)
{
	enum { CHUNK_ELEMS = 4096 };
	unsigned size = dtype_info(a->dtype)->size;
	unsigned char *x, *y;
	bool same = true;
	if (a->dtype != b->dtype || a->numel != b->numel)
		return false;
	x = xmalloc((size_t)CHUNK_ELEMS * size);
	y = xmalloc((size_t)CHUNK_ELEMS * size);
	for (int64_t at = 0; same && at < a->numel; at += CHUNK_ELEMS) {
		int64_t n = a->numel - at < CHUNK_ELEMS ? a->numel - at : CHUNK_ELEMS;
		tensor_read_raw(a, at, n, x);
		tensor_read_raw(b, at, n, y);
		same = !memcmp(x, y, (size_t)n * size);
	}
	free(x);
	free(y);
	return same;
}

/* A replicated parameter: rank 0's, and a warning when another rank's holds other bytes (msprobe's allclose). */
static void check_replicas(const struct ckpt *ck, const struct ckpt_param *p, const struct tensor *t0)
{
	for (uint32_t i = 1; i < p->npieces; i++) {
		struct tensor other;
		struct strbuf err = STRBUF_INIT;
		struct tensor_guard g;
		volatile bool same = true;
		if (open_piece(ck, p->first + i, &other, &err)) {
			warning("%s", err.buf);
			strbuf_release(&err);
			continue;
		}
		tensor_guard_begin(&g);
		if (!sigsetjmp(g.jump, 0))
			same = same_elements(t0, &other);
		tensor_guard_end(&g);
		if (!same) {
			ck_shown_buf shown;
			warning("%s: %s differs between tensor-parallel ranks 0 and %u: rank 0's is read, as msprobe "
				"does", ck->root, CK_SHOWN_STR(shown, p->name), i);
		}
		tensor_close(&other);
		strbuf_release(&err);
	}
}

int ckpt_tensor(const struct ckpt *ck, size_t i, struct tensor *t, struct strbuf *err)
{
	const struct ckpt_param *p = &ck->params[i];
	if (p->merge == CKPT_CONCAT)
		return open_concat(ck, p, t, err);
	if (open_piece(ck, p->first, t, err))
		return -1;
	if (p->merge == CKPT_REPLICATED)
		check_replicas(ck, p, t);
	return 0;
}

/* ---- the cache of open checkpoints (records name a parameter inside one) ---- */

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct strmap cache = STRMAP_INIT; /* path -> struct ckpt * */

static struct ckpt *cache_get(const char *path, struct strbuf *err)
{
	struct strmap_slot *s;
	struct ckpt *ck = NULL;
	pthread_mutex_lock(&cache_lock);
	s = strmap_find(&cache, path, strlen(path));
	if (s) {
		ck = s->value.p;
	} else if (ckpt_open(&ck, path, err) == 0) {
		strmap_put(&cache, path, strlen(path), NULL)->value.p = ck;
	}
	pthread_mutex_unlock(&cache_lock);
	return ck;
}

const char *ck_shown(ck_shown_buf buf, const char *name, size_t len)
{
	size_t n = text_cut_len(name, len, CK_SHOWN);
	memcpy(buf, name, n);
	if (n < len)
		memcpy(buf + n, "...", 3), n += 3;
	buf[n] = 0;
	return buf;
}

int ckpt_cached_tensor(const char *path, const char *name, size_t len, struct tensor *t, struct strbuf *err)
{
	struct ckpt *ck = cache_get(path, err);
	long i;
	memset(t, 0, sizeof(*t));
	if (!ck)
		return -1;
	i = ckpt_find(ck, name, len);
	if (i < 0) {
		ck_shown_buf shown;
		return msg_fail(err, path, "no parameter %s in this checkpoint", ck_shown(shown, name, len));
	}
	return ckpt_tensor(ck, (size_t)i, t, err);
}
