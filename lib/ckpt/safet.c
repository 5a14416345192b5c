/* safet.c: safetensors files and Hugging Face model folders (ckptio.h). */
#include "ckptio.h"
#include "../json/json.h"
#include "../core/source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* safetensors refuses headers above 100 MB; so does probe */
#define ST_MAX_HEADER ((uint64_t)100 << 20)
/* a model index (weight_map) of hundreds of thousands of names is a few tens of MB */
#define INDEX_MAX ((uint64_t)256 << 20)

/* Exactly len bytes at offset off of fd into buf: 0, or -1 (errno, or 0 at the end of the file). */
static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	for (size_t got = 0; got < len;) {
		ssize_t r = pread(fd, (char *)buf + got, len - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (!r)
				errno = 0;
			return -1;
		}
		got += (size_t)r;
	}
	return 0;
}

static const struct { const char *name; enum dtype d; } st_dtypes[] = {
	{ "F64", DT_FLOAT64 }, { "F32", DT_FLOAT32 }, { "F16", DT_FLOAT16 }, { "BF16", DT_BFLOAT16 },
	{ "F8_E4M3", DT_FLOAT8_E4M3FN }, { "F8_E5M2", DT_FLOAT8_E5M2 }, { "I64", DT_INT64 }, { "I32", DT_INT32 },
	{ "I16", DT_INT16 }, { "I8", DT_INT8 }, { "U64", DT_UINT64 }, { "U32", DT_UINT32 }, { "U16", DT_UINT16 },
	{ "U8", DT_UINT8 }, { "BOOL", DT_BOOL }, { "C64", DT_COMPLEX64 },
};

/* A JSON number that is a whole number from 0 to 2^63 - 1, as written (no sign, fraction or exponent). */
static bool json_u63(const struct json_token *t, uint64_t *v)
{
	*v = 0;
	if (t->type != JSON_NUMBER || t->nonfinite || !t->len || (t->len > 1 && t->text[0] == '0'))
		return false;
	for (size_t i = 0; i < t->len; i++) {
		unsigned d = (unsigned char)t->text[i] - '0';
		if (d > 9 || *v > (uint64_t)(INT64_MAX - d) / 10)
			return false;
		*v = *v * 10 + d;
	}
	return true;
}

struct st_tensor {
	bool has_dtype, has_shape, has_offsets;
	enum dtype dtype;
	int ndim;
	int64_t shape[TENSOR_MAX_DIMS];
	uint64_t begin, end;
};

/* The array of whole numbers after `[` (already read): at most max of them into v, their count in *n. */
static int read_u63_array(struct json_reader *r, const char *what, const char *name, uint64_t *v, int max, int *n)
{
	struct json_token t;
	*n = 0;
	while (json_reader_next(r, &t) != JSON_ARRAY_END) {
		if (t.type == JSON_ERROR)
			return -1;
		if (*n >= max)
			return json_reader_fail_at(r, &t, "tensor \"%s\": %s has more than %d numbers", name, what, max);
		if (!json_u63(&t, &v[*n]))
			return json_reader_fail_at(r, &t, "tensor \"%s\": %s holds %s, not a whole number from 0", name,
						   what, t.type == JSON_NUMBER ? "a number" : json_type_name(t.type));
		(*n)++;
	}
	return 0;
}

/* One tensor's object: { "dtype": ..., "shape": [...], "data_offsets": [b, e] }; other members are skipped. */
static int read_tensor_info(struct json_reader *r, const char *name, struct st_tensor *st)
{
	struct json_token t;
	uint64_t v[TENSOR_MAX_DIMS];
	int n;
	if (json_reader_next(r, &t) != JSON_OBJECT_BEGIN)
		return t.type == JSON_ERROR ? -1 : json_reader_fail_at(r, &t, "tensor \"%s\" is %s, not an object", name,
								       json_type_name(t.type));
	while (json_reader_next(r, &t) == JSON_KEY) {
		if (t.len == 5 && !memcmp(t.text, "dtype", 5)) {
			size_t i;
			if (json_reader_next(r, &t) != JSON_STRING)
				return t.type == JSON_ERROR ? -1 : json_reader_fail_at(r, &t, "tensor \"%s\": dtype is not a string", name);
			for (i = 0; i < ARRAY_SIZE(st_dtypes); i++)
				if (strlen(st_dtypes[i].name) == t.len && !memcmp(st_dtypes[i].name, t.text, t.len))
					break;
			if (i == ARRAY_SIZE(st_dtypes)) {
				ck_shown_buf dtype;
				return json_reader_fail_at(r, &t, "tensor \"%s\": dtype \"%s\" is not one probe reads", name,
							   ck_shown(dtype, t.text, t.len));
			}
			st->dtype = st_dtypes[i].d;
			st->has_dtype = true;
		} else if ((t.len == 5 && !memcmp(t.text, "shape", 5)) || (t.len == 12 && !memcmp(t.text, "data_offsets", 12))) {
			bool shape = t.len == 5;
			if (json_reader_next(r, &t) != JSON_ARRAY_BEGIN)
				return t.type == JSON_ERROR ? -1 : json_reader_fail_at(r, &t, "tensor \"%s\": %s is not an array", name,
										       shape ? "shape" : "data_offsets");
			if (read_u63_array(r, shape ? "shape" : "data_offsets", name, v, shape ? TENSOR_MAX_DIMS : 2, &n))
				return -1;
			if (shape) {
				st->ndim = n;
				for (int d = 0; d < n; d++)
					st->shape[d] = (int64_t)v[d];
				st->has_shape = true;
			} else {
				if (n != 2 || v[0] > v[1])
					return json_reader_fail_at(r, &t, "tensor \"%s\": data_offsets is not [begin, end] with begin <= end", name);
				st->begin = v[0], st->end = v[1];
				st->has_offsets = true;
			}
		} else {
			enum json_type vt = json_reader_next(r, &t);
			if (vt == JSON_ERROR || ((vt == JSON_OBJECT_BEGIN || vt == JSON_ARRAY_BEGIN) && json_reader_skip(r)))
				return -1;
		}
	}
	if (t.type == JSON_ERROR)
		return -1;
	if (!st->has_dtype || !st->has_shape || !st->has_offsets)
		return json_reader_fail_at(r, &t, "tensor \"%s\" has no %s", name,
					   !st->has_dtype ? "dtype" : !st->has_shape ? "shape" : "data_offsets");
	return 0;
}

struct st_range {
	uint64_t begin, end;
	uint32_t piece;
};

static int cmp_range(const void *a, const void *b)
{
	const struct st_range *x = a, *y = b;
	return x->begin < y->begin ? -1 : x->begin > y->begin ? 1 : (x->end > y->end) - (x->end < y->end);
}

struct st_file {
	struct ckpt *ck;
	const char *path;
	uint32_t file;
	uint64_t data_at, data_len;  /* where the tensors' bytes start, and how many there are */
	struct st_range *ranges;
	size_t nranges, ranges_alloc;
	struct strmap seen;
	struct strbuf member;
};

/* A tensor of the header: its bytes checked against its dtype, shape and the data; a piece made. */
static int add_tensor(struct st_file *f, struct json_reader *r, const struct json_token *at, const char *name,
		      size_t len, const char *shown, const struct st_tensor *st, uint32_t *piece)
{
	uint64_t numel = 1, want;
	unsigned size = dtype_info(st->dtype)->size;
	bool created = false;
	struct tplace p = { .dtype = st->dtype, .ndim = st->ndim, .shape = st->shape };
	for (int d = 0; d < st->ndim; d++)
		if (st->shape[d] && numel > UINT64_MAX / 16 / (uint64_t)st->shape[d])
			return json_reader_fail_at(r, at, "tensor \"%s\": its shape holds more than 2^60 elements", shown);
		else
			numel *= (uint64_t)st->shape[d];
	want = numel * size;
	if (st->end > f->data_len)
		return json_reader_fail_at(r, at, "tensor \"%s\": its data_offsets [%llu, %llu] reach past the data, "
					   "which holds %llu bytes", shown, (unsigned long long)st->begin,
					   (unsigned long long)st->end, (unsigned long long)f->data_len);
	if (st->end - st->begin != want)
		return json_reader_fail_at(r, at, "tensor \"%s\": its data_offsets [%llu, %llu] hold %llu bytes, and %s "
					   "of %llu elements takes %llu", shown, (unsigned long long)st->begin,
					   (unsigned long long)st->end, (unsigned long long)(st->end - st->begin),
					   dtype_info(st->dtype)->name, (unsigned long long)numel, (unsigned long long)want);
	strmap_put(&f->seen, name, len, &created);
	if (!created)
		return json_reader_fail_at(r, at, "tensor \"%s\" is in the header twice", shown);
	p.at = f->data_at + st->begin;
	p.bytes = want;
	strbuf_addf(&f->member, "tensor \"%s\"", shown);
	p.member = f->member.buf;
	*piece = ck_add_piece(f->ck, f->file, &p);
	strbuf_reset(&f->member);
	ALLOC_GROW(f->ranges, f->nranges + 1, f->ranges_alloc);
	f->ranges[f->nranges++] = (struct st_range){ st->begin, st->end, *piece };
	return 0;
}

/*
 * No two tensors share bytes: a header that says so lies.  In the order of
 * their offsets, each range starts at or after the furthest end before it;
 * an empty tensor is a range too, by its offset: one inside another
 * tensor's bytes is refused, as the safetensors library refuses it, and
 * cannot hide an overlap between the tensors around it.
 */
static int check_overlaps(struct st_file *f, struct strbuf *err)
{
	size_t far = 0; /* the range reaching furthest so far */
	if (f->nranges > 1)
		qsort(f->ranges, f->nranges, sizeof(*f->ranges), cmp_range);
	for (size_t i = 1; i < f->nranges; i++) {
		const struct st_range *a = &f->ranges[far], *b = &f->ranges[i];
		if (b->end > a->end)
			far = i;
		if (b->begin < a->end)
			return msg_fail(err, f->path, "header: the data of two tensors overlap: bytes [%llu, %llu) and "
					"[%llu, %llu)", (unsigned long long)a->begin, (unsigned long long)a->end,
					(unsigned long long)b->begin, (unsigned long long)b->end);
	}
	return 0;
}

/* The header's members in order; each tensor to fn. */
static int read_header(struct st_file *f, struct json_reader *r, ck_piece_fn *fn, void *ctx, struct strbuf *err)
{
	struct json_token t;
	struct strbuf name = STRBUF_INIT;
	int rc = 0;
	if (json_reader_next(r, &t) != JSON_OBJECT_BEGIN)
		return t.type == JSON_ERROR ? -1 : json_reader_fail_at(r, &t, "the header is %s, not an object",
								       json_type_name(t.type));
	while (!rc && json_reader_next(r, &t) == JSON_KEY) {
		struct json_token at = t;
		struct st_tensor st = { 0 };
		uint32_t piece = 0;
		ck_shown_buf shown;
		strbuf_reset(&name);
		strbuf_add(&name, t.text, t.len);
		if (!strcmp(name.buf, "__metadata__")) {
			enum json_type vt = json_reader_next(r, &t);
			if (vt != JSON_OBJECT_BEGIN)
				rc = vt == JSON_ERROR ? -1 : json_reader_fail_at(r, &t, "__metadata__ is not an object");
			else
				rc = json_reader_skip(r);
			continue;
		}
		ck_shown(shown, name.buf, name.len);
		rc = read_tensor_info(r, shown, &st);
		if (!rc)
			rc = add_tensor(f, r, &at, name.buf, name.len, shown, &st, &piece);
		if (!rc && fn(ctx, name.buf, name.len, piece, err))
			rc = 1;
	}
	if (!rc && t.type == JSON_ERROR)
		rc = -1;
	if (!rc && json_reader_next(r, &t) != JSON_EOF)
		rc = t.type == JSON_ERROR ? -1 : json_reader_fail_at(r, &t, "more after the header's object");
	strbuf_release(&name);
	if (rc < 0)
		strbuf_addstr(err, json_reader_error(r));
	return rc ? -1 : check_overlaps(f, err);
}

int ck_scan_safetensors(struct ckpt *ck, const char *file, ck_piece_fn *fn, void *ctx, struct strbuf *err)
{
	struct st_file f = { .ck = ck, .path = file, .seen = STRMAP_INIT, .member = STRBUF_INIT };
	struct stat st;
	bool other = false;
	unsigned char len8[8];
	char *header = NULL;
	struct strbuf label = STRBUF_INIT;
	uint64_t n;
	int rc = -1, fd = source_open_regular_fd(AT_FDCWD, file, 0, &st, &other);

	if (fd < 0)
		return other ? msg_fail(err, file, "not a regular file") : msg_fail(err, file, "%s", strerror(errno));
	if (read_at(fd, len8, 8, 0)) {
		msg_fail(err, file, "truncated: not even the 8 bytes of the header's length");
		goto out;
	}
	n = ck_le64(len8);
	if (n > (uint64_t)st.st_size - 8) {
		msg_fail(err, file, "the header's length, %llu bytes, runs past the end of the file (%lld bytes)",
			 (unsigned long long)n, (long long)st.st_size);
		goto out;
	}
	if (n > ST_MAX_HEADER) {
		msg_fail(err, file, "a header of %llu bytes: more than safetensors' limit of %llu", (unsigned long long)n,
			 (unsigned long long)ST_MAX_HEADER);
		goto out;
	}
	header = xmalloc((size_t)n + 1);
	if (read_at(fd, header, (size_t)n, 8)) {
		msg_fail(err, file, "cannot read the header: %s", errno ? strerror(errno) : "the file shrank");
		goto out;
	}
	f.file = ck_add_file(ck, file);
	f.data_at = 8 + n;
	f.data_len = (uint64_t)st.st_size - 8 - n;
	strbuf_addf(&label, "%s: header", file);
	{
		struct source *src = source_from_memory(label.buf, header, (size_t)n);
		struct json_reader r;
		json_reader_init(&r, src, 0, 0);
		rc = read_header(&f, &r, fn, ctx, err);
		json_reader_release(&r);
		source_close(src);
	}
out:
	close(fd);
	free(header);
	free(f.ranges);
	strmap_release(&f.seen);
	strbuf_release(&f.member);
	strbuf_release(&label);
	return rc;
}

int ck_read_safetensors(struct ckpt *ck, struct strbuf *err)
{
	return ck_scan_safetensors(ck, ck->root, ck_add_as_is, ck, err);
}

/* ---- Hugging Face folders ---- */

struct hf_entry {
	const char *name; /* in the arena */
	size_t len;
	uint32_t shard;
};

struct hf_index {
	const char *path;
	struct hf_entry *v;
	size_t n, alloc;
	const char **shards;   /* file names, in order of first appearance */
	size_t nshards, shards_alloc;
	struct strmap shard_of;  /* shard file name -> index + 1 */
	struct strmap found;     /* parameter name -> piece + 1, of the shards read */
	struct strmap in_map;    /* parameter name -> 1 */
	const char *reading;     /* the shard being read */
	size_t unlisted;         /* of its tensors, those weight_map does not name */
	struct strbuf first_unlisted;
};

/* A shard file name must name a file in the folder itself. */
static bool plain_file_name(const char *s, size_t n)
{
	return n && !memchr(s, '/', n) && !memchr(s, '\0', n) && !(n == 1 && s[0] == '.') &&
	       !(n == 2 && s[0] == '.' && s[1] == '.');
}

static int read_weight_map(struct ckpt *ck, struct hf_index *ix, struct json_reader *r)
{
	struct json_token t;
	while (json_reader_next(r, &t) == JSON_KEY) {
		struct hf_entry e;
		bool created = false;
		struct strmap_slot *s;
		ck_shown_buf shown, file;
		e.name = arena_memdupz(&ck->arena, t.text, t.len);
		e.len = t.len;
		if (json_reader_next(r, &t) != JSON_STRING)
			return t.type == JSON_ERROR ? -1 : json_reader_fail_at(r, &t, "weight_map: \"%s\" maps to %s, not a file name",
									       ck_shown(shown, e.name, e.len), json_type_name(t.type));
		if (!plain_file_name(t.text, t.len))
			return json_reader_fail_at(r, &t, "weight_map: \"%s\": \"%s\" is not the name of a file in the folder",
						   ck_shown(shown, e.name, e.len), ck_shown(file, t.text, t.len));
		s = strmap_put(&ix->shard_of, t.text, t.len, &created);
		if (created) {
			ALLOC_GROW(ix->shards, ix->nshards + 1, ix->shards_alloc);
			ix->shards[ix->nshards] = arena_memdupz(&ck->arena, t.text, t.len);
			s->value.u = ++ix->nshards;
		}
		e.shard = (uint32_t)s->value.u - 1;
		strmap_put(&ix->in_map, e.name, e.len, &created);
		if (!created)
			return json_reader_fail_at(r, &t, "weight_map: \"%s\" is there twice", ck_shown(shown, e.name, e.len));
		ALLOC_GROW(ix->v, ix->n + 1, ix->alloc);
		ix->v[ix->n++] = e;
	}
	return t.type == JSON_ERROR ? -1 : 0;
}

/* model.safetensors.index.json: {"metadata": {...}, "weight_map": {name: shard, ...}}. */
static int read_index(struct ckpt *ck, struct hf_index *ix, struct strbuf *err)
{
	struct source *src = source_open_regular(ix->path, err);
	struct json_reader r;
	struct json_token t;
	bool have_map = false;
	int rc = 0;
	if (!src)
		return -1;
	json_reader_init(&r, src, 0, 0);
	if (json_reader_next(&r, &t) != JSON_OBJECT_BEGIN)
		rc = t.type == JSON_ERROR ? -1 : json_reader_fail_at(&r, &t, "the index is %s, not an object", json_type_name(t.type));
	while (!rc && json_reader_next(&r, &t) == JSON_KEY) {
		bool is_map = t.len == 10 && !memcmp(t.text, "weight_map", 10);
		enum json_type vt = json_reader_next(&r, &t);
		if (is_map && vt != JSON_OBJECT_BEGIN)
			rc = vt == JSON_ERROR ? -1 : json_reader_fail_at(&r, &t, "weight_map is %s, not an object", json_type_name(vt));
		else if (is_map)
			rc = read_weight_map(ck, ix, &r), have_map = true;
		else if (vt == JSON_ERROR || ((vt == JSON_OBJECT_BEGIN || vt == JSON_ARRAY_BEGIN) && json_reader_skip(&r)))
			rc = -1;
	}
	if (!rc && t.type == JSON_ERROR)
		rc = -1;
	if (rc)
		strbuf_addstr(err, json_reader_error(&r));
	else if (!have_map)
		rc = msg_fail(err, ix->path, "no weight_map");
	json_reader_release(&r);
	source_close(src);
	return rc;
}

static int hf_collect(void *ctx, const char *name, size_t len, uint32_t piece, struct strbuf *err)
{
	struct hf_index *ix = ctx;
	const struct strmap_slot *m = strmap_find(&ix->in_map, name, len);
	(void)err;
	if (!m) {
		if (!ix->unlisted++)
			text_cut(&ix->first_unlisted, name, len, CK_SHOWN);
		return 0;
	}
	strmap_put(&ix->found, name, len, NULL)->value.u = (uint64_t)piece + 1;
	return 0;
}

/* Every shard the index names read, then its names in weight_map's order, each from the shard it names. */
static int read_sharded(struct ckpt *ck, const char *index, bool safetensors, struct strbuf *err)
{
	struct hf_index ix = { .path = index, .shard_of = STRMAP_INIT, .found = STRMAP_INIT, .in_map = STRMAP_INIT,
			       .first_unlisted = STRBUF_INIT };
	int rc = read_index(ck, &ix, err);
	for (size_t s = 0; !rc && s < ix.nshards; s++) {
		char *shard = ck_join(ck->root, ix.shards[s]);
		ix.reading = shard;
		ix.unlisted = 0;
		strbuf_reset(&ix.first_unlisted);
		rc = safetensors ? ck_scan_safetensors(ck, shard, hf_collect, &ix, err)
				 : ck_scan_pt(ck, shard, hf_collect, &ix, err);
		if (!rc && ix.unlisted)
			warning("%s: %zu of its tensors (the first: %s) are not in %s's weight_map: left out, as loading "
				"the model leaves them", shard, ix.unlisted, ix.first_unlisted.buf, index);
		free(shard);
	}
	for (size_t i = 0; !rc && i < ix.n; i++) {
		const struct hf_entry *e = &ix.v[i];
		const struct strmap_slot *f = strmap_find(&ix.found, e->name, e->len);
		const struct ck_piece *c;
		const char *want = ix.shards[e->shard], *base;
		ck_shown_buf shown;
		if (!f) {
			rc = msg_fail(err, index, "weight_map: \"%s\" is said to be in %s, which does not hold it",
				      ck_shown(shown, e->name, e->len), want);
			break;
		}
		c = &ck->pieces[f->value.u - 1];
		base = strrchr(ck->files[c->file], '/');
		base = base ? base + 1 : ck->files[c->file];
		if (strcmp(base, want)) {
			rc = msg_fail(err, index, "weight_map: \"%s\" is said to be in %s, but %s holds it",
				      ck_shown(shown, e->name, e->len), want,
				      ck->files[c->file]);
			break;
		}
		ck_add_param(ck, e->name, e->len, CKPT_AS_IS, 0, c->place.ndim, c->place.shape, (uint32_t)(f->value.u - 1),
			     1, false, index);
	}
	free(ix.v);
	free(ix.shards);
	strmap_release(&ix.shard_of);
	strmap_release(&ix.found);
	strmap_release(&ix.in_map);
	strbuf_release(&ix.first_unlisted);
	return rc;
}

int ck_read_hf(struct ckpt *ck, struct strbuf *err)
{
	static const struct { const char *name; bool index, safetensors; } files[] = {
		{ "model.safetensors.index.json", true, true },
		{ "model.safetensors", false, true },
		{ "pytorch_model.bin.index.json", true, false },
		{ "pytorch_model.bin", false, false },
	};
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *p = ck_join(ck->root, files[i].name);
		int rc = 1;
		if (ck_is_file(p)) {
			if (files[i].index)
				rc = read_sharded(ck, p, files[i].safetensors, err);
			else if (files[i].safetensors)
				rc = ck_scan_safetensors(ck, p, ck_add_as_is, ck, err);
			else
				rc = ck_scan_pt(ck, p, ck_add_as_is, ck, err);
		}
		free(p);
		if (rc <= 0)
			return rc;
	}
	return msg_fail(err, ck->root, "no model.safetensors(.index.json) or pytorch_model.bin(.index.json)");
}
