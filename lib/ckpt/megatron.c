/*
 * megatron.c: Megatron-LM / MindSpeed checkpoints in the legacy layout,
 * merged by msprobe's rules (ckpt.h, CKPT_MEGATRON; the rules:
 * ../shared/reference/msprobe-precheck.md, section C).
 */
#include "ckptio.h"
#include "../core/source.h"
#include "../core/textesc.h"

#include <dirent.h>

/* name_mapping.yaml of msprobe 26.0.0, in its order: each applied to the whole name, every occurrence */
static const struct { const char *from, *to; } name_mapping[] = {
	{ "self_attention.linear_qkv.layer_norm_", "input_layernorm." },
	{ "language_model.", "" },
	{ "encoder", "decoder" },
	{ ".input_norm.", ".input_layernorm." },
	{ "query_key_value", "linear_qkv" },
	{ ".dense.", ".linear_proj." },
	{ "post_attention_norm", "pre_mlp_layernorm" },
	{ "dense_h_to_4h", "linear_fc1" },
	{ "dense_4h_to_h", "linear_fc2" },
	{ "mlp.local_experts", "mlp.experts.local_experts" },
	{ "final_norm", "final_layernorm" },
	{ "word_embeddings_for_head", "output_layer" },
};

/* Concatenated on dimension 0 when the name holds one of these, on dimension 1 for the next list. */
static const char *const column_parallel[] = { "linear_qkv", "linear_fc1", "word_embeddings.weight", "output_layer.weight" };
static const char *const row_parallel[] = { "linear_fc2.weight", "linear_proj.weight" };

/* Every occurrence of from in s replaced by to, left to right (Python's str.replace). */
static void replace_all(struct strbuf *s, const char *from, const char *to)
{
	struct strbuf out = STRBUF_INIT;
	size_t fl = strlen(from), at = 0;
	const char *hit;
	if (!fl || !strstr(s->buf, from))
		return;
	while ((hit = strstr(s->buf + at, from))) {
		strbuf_add(&out, s->buf + at, (size_t)(hit - s->buf) - at);
		strbuf_addstr(&out, to);
		at = (size_t)(hit - s->buf) + fl;
	}
	strbuf_addstr(&out, s->buf + at);
	strbuf_reset(s);
	strbuf_addbuf(s, &out);
	strbuf_release(&out);
}

/*
 * The first "<word>.<digits>." in s (re.search(r'<word>\.(\d+)\.')): its
 * number (digits as written, any length, in *digits) and true; false when none.
 */
static bool find_index(const char *s, const char *word, const char **digits, size_t *ndigits)
{
	size_t wl = strlen(word);
	for (const char *p = strstr(s, word); p; p = strstr(p + 1, word)) {
		const char *d = p + wl, *e;
		if (*d != '.')
			continue;
		for (e = d + 1; *e >= '0' && *e <= '9'; e++)
			;
		if (e > d + 1 && *e == '.') {
			*digits = d + 1;
			*ndigits = (size_t)(e - d - 1);
			return true;
		}
	}
	return false;
}

/* Python's int() of a run of digits, saturated (an index that large renumbers nothing sensible anyway). */
static int64_t digits_value(const char *d, size_t n)
{
	int64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v = v > (INT64_MAX - 9) / 10 ? INT64_MAX : v * 10 + (d[i] - '0');
	return v;
}

/* msprobe's renumbering: "<word>.<local>" replaced everywhere by "<word>.<local + shift>". */
static void renumber(struct strbuf *s, const char *word, int64_t local, int64_t shift)
{
	char from[96], to[96];
	snprintf(from, sizeof(from), "%s.%lld", word, (long long)local);
	snprintf(to, sizeof(to), "%s.%lld", word, (long long)local + (long long)shift);
	replace_all(s, from, to);
}

/* ---- one (expert rank, pipeline stage): its tensor-parallel ranks ---- */

struct key {
	const char *name;   /* mapped, without the vpp stage (arena) */
	size_t len;
	int vpp;
	uint32_t *pieces;   /* per tensor-parallel rank; rank r's at [r] */
	uint32_t have;      /* ranks that gave it */
	int64_t local;      /* its local layer, or -1 */
};

struct stage {
	struct ckpt *ck;
	int64_t tp;
	struct key *keys;
	size_t nkeys, alloc;
	struct strmap index;   /* "<name>/<vpp>" -> key index + 1 */
	struct strbuf scratch;
	int tp_rank, vpp;
	const char *file;
	struct strbuf *err;
};

enum {
	MAX_INDEX = 999999, /* a layer or expert number past this is refused: no model has that many */
};

/*
 * The number of the first "<word>.<digits>." of name (mapped): 0 and *v
 * (-1 when there is none), or -1 with "FILE: tensor 'NAME': ..." in err
 * when it is past MAX_INDEX (digits_value() would saturate it, and the
 * renumbering would overflow and drop the tensor).
 */
static int index_in(const struct stage *s, const char *name, size_t len, const char *word, int64_t *v)
{
	const char *digits;
	size_t nd;
	struct strbuf shown = STRBUF_INIT;
	int rc;
	*v = -1;
	if (!find_index(name, word, &digits, &nd))
		return 0;
	size_t lead = 0;
	while (lead + 1 < nd && digits[lead] == '0')
		lead++; /* Python's int() reads "007" as 7 */
	if (nd - lead <= 6) {
		*v = digits_value(digits, nd);
		return 0;
	}
	text_quote_cut(&shown, name, len, CK_SHOWN);
	strbuf_addstr(&shown, ": its ");
	strbuf_addstr(&shown, word);
	strbuf_addstr(&shown, " number ");
	text_quote_cut(&shown, digits, nd, 24);
	rc = msg_fail(s->err, s->file, "tensor %s is larger than %d: not a Megatron name probe can renumber",
		      shown.buf, MAX_INDEX);
	strbuf_release(&shown);
	return rc;
}

static int stage_tensor(void *ctx, const char *name, size_t len, const struct ptobj_tensor *t)
{
	struct stage *s = ctx;
	struct strbuf *m = &s->scratch;
	struct strmap_slot *slot;
	bool created = false;
	struct key *k;
	int64_t local, expert;
	strbuf_reset(m);
	strbuf_add(m, name, len);
	for (size_t i = 0; i < ARRAY_SIZE(name_mapping); i++)
		replace_all(m, name_mapping[i].from, name_mapping[i].to);
	size_t mapped_len = m->len;
	if (index_in(s, m->buf, m->len, "layers", &local) ||
	    (s->ck->par.num_experts && index_in(s, m->buf, m->len, "experts", &expert)))
		return -1;
	strbuf_addf(m, "/%d", s->vpp);
	slot = strmap_put(&s->index, m->buf, m->len, &created);
	if (created) {
		ALLOC_GROW(s->keys, s->nkeys + 1, s->alloc);
		slot->value.u = s->nkeys + 1;
		k = &s->keys[s->nkeys++];
		memset(k, 0, sizeof(*k));
		k->name = arena_memdupz(&s->ck->arena, m->buf, mapped_len);
		k->len = mapped_len;
		k->vpp = s->vpp;
		k->pieces = arena_alloc(&s->ck->arena, sizeof(*k->pieces) * (size_t)s->tp);
		for (int64_t r = 0; r < s->tp; r++)
			k->pieces[r] = UINT32_MAX;
		k->local = local;
	}
	k = &s->keys[slot->value.u - 1];
	if (k->pieces[s->tp_rank] == UINT32_MAX)
		k->have++;
	/* the same name twice in one rank: the later tensor, as the dict keeps it */
	k->pieces[s->tp_rank] = ck_add_piece(s->ck, (uint32_t)(s->ck->nfiles - 1), &t->place);
	return 0;
}

/* The model dicts of one rank's state dict: `model`, or model0, model1, ... (virtual pipeline stages). */
static int read_rank_file(struct stage *s, const char *file, int *vpp_count, struct strbuf *err)
{
	struct ptobj *o;
	ptobj_ref root, model;
	int rc = 0;
	if (ptobj_open(&o, file, err))
		return -1;
	ck_add_file(s->ck, file);
	s->file = file;
	root = ptobj_root(o);
	if ((model = ptobj_get(o, root, "model")) != PTOBJ_NOREF) {
		s->vpp = 0;
		rc = ck_walk(o, model, "", true, stage_tensor, s, err);
		*vpp_count = 1;
	} else if (ptobj_get(o, root, "model0") != PTOBJ_NOREF) {
		char key[32];
		int v = 0;
		for (;; v++) {
			snprintf(key, sizeof(key), "model%d", v);
			if ((model = ptobj_get(o, root, key)) == PTOBJ_NOREF)
				break;
			s->vpp = v;
			if ((rc = ck_walk(o, model, "", true, stage_tensor, s, err)))
				break;
		}
		*vpp_count = v;
	} else {
		rc = msg_fail(err, file, "no \"model\" (or model0, model1, ...) in its state dict: not a Megatron rank file");
	}
	ptobj_close(o);
	return rc;
}

/* The merge msprobe's _consolidate_tp_weights picks for a name. */
static enum ckpt_merge merge_of(const char *name, int *axis)
{
	for (size_t i = 0; i < ARRAY_SIZE(column_parallel); i++)
		if (strstr(name, column_parallel[i])) {
			*axis = 0;
			return CKPT_CONCAT;
		}
	for (size_t i = 0; i < ARRAY_SIZE(row_parallel); i++)
		if (strstr(name, row_parallel[i])) {
			*axis = 1;
			return CKPT_CONCAT;
		}
	*axis = 0;
	return CKPT_REPLICATED;
}

/* The merged shape of a concatenation, the shards checked against each other. */
static int concat_shape(struct ckpt *ck, const struct key *k, int axis, int64_t *shape, int *ndim, struct strbuf *err)
{
	const struct tplace *p0 = &ck->pieces[k->pieces[0]].place;
	ck_shown_buf shown;
	*ndim = p0->ndim;
	if (p0->ndim <= axis)
		return msg_fail(err, ck->root, "%s: tensor-parallel shards of %d dimension%s cannot be concatenated on "
				"dimension %d (msprobe's rule for this name)", ck_shown(shown, k->name, k->len), p0->ndim, p0->ndim == 1 ? "" : "s", axis);
	memcpy(shape, p0->shape, sizeof(*shape) * (size_t)p0->ndim);
	for (uint32_t r = 1; r < k->have; r++) {
		const struct tplace *p = &ck->pieces[k->pieces[r]].place;
		bool fits = p->dtype == p0->dtype && p->ndim == p0->ndim;
		for (int d = 0; fits && d < p->ndim; d++)
			fits = d == axis || p->shape[d] == p0->shape[d];
		if (!fits)
			return msg_fail(err, ck->root, "%s: the shard of tensor-parallel rank %u (%s) does not fit rank 0's "
					"for a concatenation on dimension %d", ck_shown(shown, k->name, k->len), r, dtype_info(p->dtype)->name, axis);
		if (__builtin_add_overflow(shape[axis], p->shape[axis], &shape[axis]))
			return msg_fail(err, ck->root, "%s: its tensor-parallel shards concatenated on dimension %d hold more "
					"than 2^63 elements", ck_shown(shown, k->name, k->len), axis);
	}
	return 0;
}

/* Local layers per stage (msprobe: of pipeline stage 0, the largest local layer + 1; 1 when none). */
static int64_t layers_per_stage(const struct stage *s)
{
	int64_t most = -1;
	for (size_t i = 0; i < s->nkeys; i++)
		if (s->keys[i].local > most)
			most = s->keys[i].local;
	return most >= 0 ? most + 1 : 1;
}

/* The stage's names, merged over tensor parallelism and renumbered, added to the checkpoint. */
static int add_stage(struct stage *s, int64_t pp_rank, int64_t ep_rank, int64_t layers, struct strbuf *err)
{
	struct ckpt *ck = s->ck;
	const struct ckpt_parallel *par = &ck->par;
	struct strbuf name = STRBUF_INIT;
	int64_t shape[TENSOR_MAX_DIMS];
	ck_shown_buf shown;
	int rc = 0;
	for (size_t i = 0; i < s->nkeys && !rc; i++) {
		struct key *k = &s->keys[i];
		const struct tplace *p0;
		uint32_t first;
		int axis, ndim;
		enum ckpt_merge merge;
		const char *digits;
		size_t nd;
		if (k->have != (uint32_t)s->tp) {
			rc = msg_fail(err, ck->root, "%s is in %u of the %lld tensor-parallel ranks' files",
				      ck_shown(shown, k->name, k->len), k->have,
				      (long long)s->tp);
			break;
		}
		merge = s->tp > 1 ? merge_of(k->name, &axis) : (axis = 0, CKPT_AS_IS);
		p0 = &ck->pieces[k->pieces[0]].place;
		ndim = p0->ndim;
		memcpy(shape, p0->shape, sizeof(*shape) * (size_t)ndim);
		if (merge == CKPT_CONCAT && (rc = concat_shape(ck, k, axis, shape, &ndim, err)))
			break;
		/* the pieces of a parameter are consecutive: copy them in rank order */
		first = (uint32_t)ck->npieces;
		for (int64_t r = 0; r < s->tp; r++) {
			struct ck_piece c = ck->pieces[k->pieces[r]];
			ALLOC_GROW(ck->pieces, ck->npieces + 1, ck->pieces_alloc);
			ck->pieces[ck->npieces++] = c;
		}
		strbuf_reset(&name);
		strbuf_add(&name, k->name, k->len);
		if (k->local >= 0) {
			int64_t shift;
			if (__builtin_mul_overflow(par->pp, (int64_t)k->vpp, &shift) ||
			    __builtin_add_overflow(shift, pp_rank, &shift) || __builtin_mul_overflow(shift, layers, &shift) ||
			    shift > INT64_MAX - k->local) {
				rc = msg_fail(err, ck->root, "%s: its layer number cannot be renumbered (stage %lld of %lld)",
					      ck_shown(shown, k->name, k->len), (long long)pp_rank, (long long)par->pp);
				break;
			}
			renumber(&name, "layers", k->local, shift);
		}
		if (par->num_experts && find_index(name.buf, "experts", &digits, &nd))
			renumber(&name, "experts", digits_value(digits, nd), ep_rank * (par->num_experts / par->ep));
		ck_add_param(ck, name.buf, name.len, merge, axis, ndim, shape, first, (uint32_t)s->tp, false, ck->root);
	}
	strbuf_release(&name);
	return rc;
}

static void stage_reset(struct stage *s)
{
	free(s->keys);
	s->keys = NULL;
	s->nkeys = s->alloc = 0;
	strmap_clear(&s->index);
}

/* ---- the folders ---- */

/* A rank folder's name, as msprobe builds it from the sizes. */
static void rank_dir_name(const struct ckpt_parallel *par, int64_t tp, int64_t pp, int64_t ep, struct strbuf *out)
{
	strbuf_reset(out);
	strbuf_addf(out, "mp_rank_%02lld", (long long)tp);
	if (par->pp > 1)
		strbuf_addf(out, "_%03lld", (long long)pp);
	if (par->ep > 1)
		strbuf_addf(out, "_%03lld", (long long)ep);
}

/* The tracker's text (its first 64 bytes), stripped of white space at both ends as Python's strip() does. */
static void read_tracker(FILE *f, struct strbuf *text)
{
	char buf[64];
	size_t n = fread(buf, 1, sizeof(buf), f), start = 0;
	while (n && strchr(" \t\n\r\v\f", buf[n - 1]) && buf[n - 1])
		n--;
	while (start < n && strchr(" \t\n\r\v\f", buf[start]) && buf[start])
		start++;
	strbuf_add(text, buf + start, n - start);
}

/* The iteration folder: the tracker's (iter_<N, 7 digits>, or release/), or the folder itself. */
static int find_iteration(struct ckpt *ck, struct strbuf *err)
{
	char *tracker = ck_join(ck->path, "latest_checkpointed_iteration.txt"), *dir = NULL;
	struct strbuf text = STRBUF_INIT;
	FILE *f;
	int rc = 0;
	if (!ck_is_file(tracker)) {
		const char *base = strrchr(ck->path, '/');
		int64_t it = -1;
		base = base ? base + 1 : ck->path;
		if (!strncmp(base, "iter_", 5) && strlen(base) == 12 && strspn(base + 5, "0123456789") == 7)
			it = digits_value(base + 5, 7);
		ck->par.iteration = it;
		free(tracker);
		return 0;
	}
	if (!(f = source_fopen_regular(tracker, err))) {
		rc = -1;
		goto out;
	}
	read_tracker(f, &text);
	fclose(f);
	if (!strcmp(text.buf, "release")) {
		dir = ck_join(ck->path, "release");
	} else if (text.len && text.len <= 18 && strspn(text.buf, "0123456789") == text.len) {
		char name[32];
		ck->par.iteration = digits_value(text.buf, text.len);
		snprintf(name, sizeof(name), "iter_%07lld", (long long)ck->par.iteration);
		dir = ck_join(ck->path, name);
	} else {
		rc = msg_fail(err, tracker, "says \"%.40s\": neither an iteration number nor release", text.buf);
		goto out;
	}
	if (!ck_is_dir(dir)) {
		rc = msg_fail(err, tracker, "says %s, and there is no folder %s", text.buf, dir);
		goto out;
	}
	free(ck->root);
	ck->root = dir;
	dir = NULL;
out:
	free(dir);
	free(tracker);
	strbuf_release(&text);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The mp_rank_* folders of the iteration folder, sorted. */
static int list_rank_dirs(struct ckpt *ck, char ***out, size_t *n, struct strbuf *err)
{
	DIR *d = opendir(ck->root);
	struct dirent *de;
	size_t alloc = 0;
	*out = NULL;
	*n = 0;
	if (!d)
		return msg_fail(err, ck->root, "cannot read the folder: %s", strerror(errno));
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "mp_rank_", 8)) {
			ALLOC_GROW(*out, *n + 1, alloc);
			(*out)[(*n)++] = xstrdup(de->d_name);
		}
	closedir(d);
	if (!*n)
		return msg_fail(err, ck->root, "no mp_rank_* folders: not a Megatron checkpoint's iteration folder");
	qsort(*out, *n, sizeof(**out), cmp_str);
	return 0;
}

/* An int attribute of args: 0 and *v; absent: `absent` (or an error when absent < 0). */
static int arg_int(const struct ptobj *o, ptobj_ref args, const char *name, int64_t absent, int64_t *v,
		   struct strbuf *err)
{
	ptobj_ref r = ptobj_get(o, args, name);
	if (r == PTOBJ_NOREF || (absent >= 0 && ptobj_kind(o, r) == PTOBJ_NONE)) {
		if (absent < 0)
			return msg_fail(err, ptobj_path(o), "args has no %s", name);
		*v = absent;
		return 0;
	}
	if (ptobj_kind(o, r) != PTOBJ_INT || !ptobj_int(o, r, v) || *v < (absent == 0 ? 0 : 1) || *v > 1000000)
		return msg_fail(err, ptobj_path(o), "args.%s is %s, not a %s integer", name, ptobj_kind_name(o, r),
				absent == 0 ? "non-negative" : "positive");
	return 0;
}

/* The sizes, from `args` of the first rank folder's file (msprobe: of the first it lists). */
static int read_sizes(struct ckpt *ck, const char *rank_dir, struct strbuf *err)
{
	char *dir = ck_join(ck->root, rank_dir), *file = ck_join(dir, "model_optim_rng.pt");
	struct ptobj *o = NULL;
	ptobj_ref args;
	int rc = ptobj_open(&o, file, err);
	if (!rc) {
		args = ptobj_get(o, ptobj_root(o), "args");
		if (args == PTOBJ_NOREF)
			rc = msg_fail(err, file, "no \"args\" in its state dict: not a Megatron checkpoint (a state dict alone "
				      "is read when the file is named)");
		else if (ptobj_kind(o, args) != PTOBJ_OBJECT && !ptobj_is_mapping(o, args))
			rc = msg_fail(err, file, "args is %s, not a Namespace", ptobj_kind_name(o, args));
		else if (arg_int(o, args, "tensor_model_parallel_size", -1, &ck->par.tp, err) ||
			 arg_int(o, args, "pipeline_model_parallel_size", -1, &ck->par.pp, err) ||
			 arg_int(o, args, "expert_model_parallel_size", 1, &ck->par.ep, err) ||
			 arg_int(o, args, "num_experts", 0, &ck->par.num_experts, err))
			rc = -1;
		else if (ck->par.tp * ck->par.pp * ck->par.ep > 65536)
			rc = msg_fail(err, file, "args says %lld x %lld x %lld ranks: more than probe reads", (long long)ck->par.tp,
				      (long long)ck->par.pp, (long long)ck->par.ep);
	}
	ptobj_close(o);
	free(file);
	free(dir);
	return rc;
}

/* Every rank folder the sizes name is there; folders they do not name are said. */
static int check_rank_dirs(struct ckpt *ck, char **dirs, size_t n, struct strbuf *err)
{
	struct strmap want = STRMAP_INIT;
	struct strbuf name = STRBUF_INIT;
	int rc = 0;
	struct strmap have = STRMAP_INIT;
	/* every rank folder is there before anything is sized by the claimed ranks (args tp=65536 on one folder) */
	for (size_t i = 0; i < n; i++)
		strmap_put(&have, dirs[i], strlen(dirs[i]), NULL);
	for (int64_t e = 0; e < ck->par.ep && !rc; e++)
		for (int64_t p = 0; p < ck->par.pp && !rc; p++)
			for (int64_t t = 0; t < ck->par.tp && !rc; t++) {
				rank_dir_name(&ck->par, t, p, e, &name);
				if (!strmap_find(&have, name.buf, name.len)) {
					char *dir = ck_join(ck->root, name.buf), *file = ck_join(dir, "model_optim_rng.pt");
					rc = msg_fail(err, file, "missing: args says tensor x pipeline x expert parallel sizes "
						      "%lld x %lld x %lld", (long long)ck->par.tp, (long long)ck->par.pp,
						      (long long)ck->par.ep);
					free(file);
					free(dir);
				}
			}
	strmap_release(&have);
	if (rc) {
		strbuf_release(&name);
		return rc;
	}
	for (int64_t e = 0; e < ck->par.ep; e++)
		for (int64_t p = 0; p < ck->par.pp; p++)
			for (int64_t t = 0; t < ck->par.tp; t++) {
				rank_dir_name(&ck->par, t, p, e, &name);
				strmap_put(&want, name.buf, name.len, NULL);
			}
	for (size_t i = 0; i < n; i++)
		if (!strmap_find(&want, dirs[i], strlen(dirs[i])))
			warning("%s: %s is not a rank of tensor x pipeline x expert parallel sizes %lld x %lld x %lld "
				"(args): left out", ck->root, dirs[i], (long long)ck->par.tp, (long long)ck->par.pp,
				(long long)ck->par.ep);
	strmap_release(&want);
	strbuf_release(&name);
	return rc;
}

static int read_ranks(struct ckpt *ck, struct strbuf *err)
{
	struct stage s = { .ck = ck, .tp = ck->par.tp, .index = STRMAP_INIT, .scratch = STRBUF_INIT, .err = err };
	struct strbuf name = STRBUF_INIT;
	int rc = 0;
	for (int64_t e = 0; e < ck->par.ep && !rc; e++) {
		int64_t layers = 0;
		for (int64_t p = 0; p < ck->par.pp && !rc; p++) {
			for (int64_t t = 0; t < ck->par.tp && !rc; t++) {
				char *dir, *file;
				int vpp = 1;
				rank_dir_name(&ck->par, t, p, e, &name);
				dir = ck_join(ck->root, name.buf);
				file = ck_join(dir, "model_optim_rng.pt");
				if (!ck_is_file(file))
					rc = msg_fail(err, file, "missing: args says tensor x pipeline x expert parallel sizes "
						      "%lld x %lld x %lld", (long long)ck->par.tp, (long long)ck->par.pp,
						      (long long)ck->par.ep);
				else {
					s.tp_rank = (int)t;
					rc = read_rank_file(&s, file, &vpp, err);
					if (vpp > ck->par.vpp)
						ck->par.vpp = vpp;
				}
				free(file);
				free(dir);
			}
			if (!rc && !layers)
				layers = layers_per_stage(&s);
			if (!rc)
				rc = add_stage(&s, p, e, layers, err);
			stage_reset(&s);
		}
	}
	stage_reset(&s);
	strmap_release(&s.index);
	strbuf_release(&s.scratch);
	strbuf_release(&name);
	return rc;
}

int ck_read_megatron(struct ckpt *ck, struct strbuf *err)
{
	char **dirs = NULL;
	size_t n = 0;
	int rc = find_iteration(ck, err);
	if (!rc)
		rc = list_rank_dirs(ck, &dirs, &n, err);
	if (!rc && dirs && n)
		rc = read_sizes(ck, dirs[0], err);
	if (!rc)
		rc = check_rank_dirs(ck, dirs, n, err);
	if (!rc)
		rc = read_ranks(ck, err);
	for (size_t i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
	return rc;
}
