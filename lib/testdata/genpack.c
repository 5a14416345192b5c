#include "genpack.h"
#include "genio.h"
#include "../core/msg.h"
#include "../core/partial.h"
#include "../core/strbuf.h"
#include "../json/jsonw.h"
#include "../msprobe/pyfmt.h"

#include <minizip/zip.h>
#include <unistd.h>

enum { IN = 4, HID = 8, OUT = 2, BATCH = 4 };

void genpack_config_init(struct genpack_config *c)
{
	*c = (struct genpack_config){ .outdir = NULL, .diffs = GENPACK_ALL, .steps = 3, .ranks = 1, .seed = 1 };
}

long genpack_diffs_parse(const char *list)
{
	static const char *const names[] = { "env", "pip", "lr", "seed", "dataset", "weight", "random" };
	long bits = 0;
	const char *p = list;
	while (*p) {
		size_t n = strcspn(p, ","), i;
		if (n == 3 && !memcmp(p, "all", 3))
			bits |= GENPACK_ALL;
		else if (!(n == 4 && !memcmp(p, "none", 4))) {
			for (i = 0; i < ARRAY_SIZE(names) && !(strlen(names[i]) == n && !memcmp(p, names[i], n)); i++)
				;
			if (i == ARRAY_SIZE(names))
				return -1;
			bits |= 1L << i;
		}
		p += n + (p[n] == ',');
	}
	return bits;
}

/* ---- JSON as json.dumps(obj, indent=4) writes it */

struct jtext {
	struct strbuf out;
	int depth;
	bool first;      /* the next member is its container's first */
};

static void jt_indent(struct jtext *j)
{
	strbuf_addch(&j->out, '\n');
	for (int i = 0; i < j->depth; i++)
		strbuf_addstr(&j->out, "    ");
}

static void jt_next(struct jtext *j)
{
	if (j->depth == 0)
		return;
	if (!j->first)
		strbuf_addch(&j->out, ',');
	jt_indent(j);
	j->first = false;
}

static void jt_open(struct jtext *j, char c)
{
	strbuf_addch(&j->out, c);
	j->depth++;
	j->first = true;
}

static void jt_close(struct jtext *j, char c)
{
	j->depth--;
	if (!j->first)
		jt_indent(j);
	strbuf_addch(&j->out, c);
	j->first = false;
}

static void jt_key(struct jtext *j, const char *k)
{
	jt_next(j);
	jsonw_str(&j->out, k);
	strbuf_addstr(&j->out, ": ");
}

static void jt_kv_str(struct jtext *j, const char *k, const char *v)
{
	jt_key(j, k);
	jsonw_str(&j->out, v);
}

static void jt_kv_tok(struct jtext *j, const char *k, const char *token)
{
	jt_key(j, k);
	strbuf_addstr(&j->out, token);
}

/* ---- the zip */

struct zipw {
	zipFile z;
	struct partial *part;
	const char *path;
};

static void zip_create(struct zipw *w, const char *path)
{
	struct strbuf err = STRBUF_INIT;
	int fd = partial_create_private(path, &w->part, &err);
	if (fd < 0)
		die("%s", err.buf);
	close(fd);
	w->path = path;
	if (!(w->z = zipOpen64(partial_tmp_name(w->part), APPEND_STATUS_CREATE)))
		die("%s: cannot create the zip", path);
}

/* A member as zipfile.writestr(ZipInfo(name), text) with ZIP_DEFLATED adds it: dated 1980-01-01 00:00. */
static void zip_add(struct zipw *w, const char *name, const struct strbuf *text)
{
	zip_fileinfo zi;
	memset(&zi, 0, sizeof(zi));
	zi.tmz_date.tm_year = 1980;
	zi.tmz_date.tm_mday = 1;
	if (zipOpenNewFileInZip64(w->z, name, &zi, NULL, 0, NULL, 0, NULL, Z_DEFLATED, Z_DEFAULT_COMPRESSION, 0) != ZIP_OK ||
	    zipWriteInFileInZip(w->z, text->buf, (unsigned)text->len) != ZIP_OK || zipCloseFileInZip(w->z) != ZIP_OK)
		die("%s: cannot write its member %s", w->path, name);
}

static void zip_commit(struct zipw *w)
{
	struct strbuf err = STRBUF_INIT;
	if (zipClose(w->z, NULL) != ZIP_OK)
		die("%s: cannot finish the zip", w->path);
	if (partial_commit(w->part, &err) < 0)
		die("%s", err.buf);
	strbuf_release(&err);
}

/* ---- the run */

struct run {
	bool cmp;
	unsigned diffs;            /* the differences this run has (none for bench) */
	float w1[HID * IN], b1[HID], w2[OUT * HID], b2[OUT];
	double lr;
};

static bool has(const struct run *r, unsigned d)
{
	return r->cmp && (r->diffs & d);
}

static void env_member(struct zipw *z, const struct run *r)
{
	struct jtext j = { STRBUF_INIT, 0, true };
	jt_open(&j, '{');
	jt_kv_str(&j, "PATH", "/usr/local/bin:/usr/bin:/bin");
	jt_kv_str(&j, "HOME", "/home/user");
	jt_kv_str(&j, "LANG", "C.UTF-8");
	jt_kv_str(&j, "PYTHONHASHSEED", "0");
	jt_kv_str(&j, "OMP_NUM_THREADS", "1");
	jt_kv_str(&j, "MASTER_PORT", r->cmp ? "29501" : "29500"); /* differs, and matters not */
	jt_kv_str(&j, "CUDA_LAUNCH_BLOCKING", has(r, GENPACK_ENV) ? "1" : "0");
	jt_close(&j, '}');
	zip_add(z, "env", &j.out);
	strbuf_release(&j.out);
}

static void pip_member(struct zipw *z, const struct run *r)
{
	static const char *const pkgs[] = { "PyYAML=6.0", "pandas=1.5.3", "torch=2.1.0", "transformers=4.36.0",
					    "numpy=", "safetensors=0.4.1", "tqdm=4.64.1", "setuptools=66.1.1",
					    "packaging=23.0", "Jinja2=3.1.2", "typing_extensions=4.4.0", "pip=23.0.1" };
	struct strbuf t = STRBUF_INIT;
	for (size_t i = 0; i < ARRAY_SIZE(pkgs); i++) {
		strbuf_addstr(&t, pkgs[i]);
		if (!strcmp(pkgs[i], "numpy="))
			strbuf_addstr(&t, has(r, GENPACK_PIP) ? "1.26.4" : "1.24.2");
		strbuf_addch(&t, '\n');
	}
	zip_add(z, "pip", &t);
	strbuf_release(&t);
}

static void hyper_member(struct zipw *z, const struct run *r)
{
	struct jtext j = { STRBUF_INIT, 0, true };
	jt_open(&j, '{');
	jt_kv_str(&j, "nproc_per_node", "1");
	jt_kv_str(&j, "micro-batch-size", "4");
	jt_kv_str(&j, "hidden-size", "8");
	jt_kv_str(&j, "lr", has(r, GENPACK_LR) ? "0.02" : "0.01");
	jt_kv_str(&j, "seed", has(r, GENPACK_SEED) ? "4321" : "1234");
	jt_kv_tok(&j, "bf16", "true");
	jt_kv_tok(&j, "model.hidden_size", "8");
	jt_kv_tok(&j, "model.num_layers", "2");
	jt_kv_str(&j, "model.activation", "relu");
	jt_kv_tok(&j, "optimizer.momentum", "0.0");
	jt_kv_tok(&j, "data.shuffle", "false");
	jt_close(&j, '}');
	zip_add(z, "hyperparameters/hyperparameters_static.json", &j.out);
	strbuf_release(&j.out);
}

static void stats_object(struct jtext *j, const float *v, size_t n, int ndim)
{
	char stat[4][32];
	static const char *const names[4] = { "max", "min", "mean", "norm" };
	genio_summarize(DT_FLOAT32, v, n, ndim, stat);
	jt_open(j, '{');
	for (int k = 0; k < 4; k++)
		jt_kv_tok(j, names[k], stat[k]);
	jt_close(j, '}');
}

/* The input batch of a forward: normal numbers of the run's data order. */
static void batch(const struct genpack_config *c, const struct run *r, int step, int rank, float x[BATCH * IN])
{
	uint64_t s = genio_rng_stream(c->seed, 2, (uint64_t)step, (uint64_t)rank, has(r, GENPACK_DATASET) ? 1 : 0);
	for (int i = 0; i < BATCH * IN; i++)
		x[i] = genio_rng_normal(&s);
}

static void dataset_member(struct zipw *z, const struct genpack_config *c, const struct run *r, int step, int rank)
{
	struct jtext j = { STRBUF_INIT, 0, true };
	char name[128];
	float x[BATCH * IN];
	batch(c, r, step, rank, x);
	jt_open(&j, '{');
	jt_key(&j, "args");
	jt_open(&j, '{');
	jt_key(&j, "0");
	stats_object(&j, x, BATCH * IN, 2);
	jt_close(&j, '}');
	jt_key(&j, "kwargs");
	jt_open(&j, '{');
	jt_close(&j, '}');
	jt_close(&j, '}');
	snprintf(name, sizeof(name), "dataset/step%d/rank%d/dataset.json", step, rank);
	zip_add(z, name, &j.out);
	strbuf_release(&j.out);
}

static void weights_member(struct zipw *z, const struct run *r, int step, int rank)
{
	struct jtext j = { STRBUF_INIT, 0, true };
	char name[128];
	jt_open(&j, '{');
	jt_key(&j, "fc1.weight");
	stats_object(&j, r->w1, HID * IN, 2);
	jt_key(&j, "fc1.bias");
	stats_object(&j, r->b1, HID, 1);
	jt_key(&j, "fc2.weight");
	stats_object(&j, r->w2, OUT * HID, 2);
	jt_key(&j, "fc2.bias");
	stats_object(&j, r->b2, OUT, 1);
	jt_close(&j, '}');
	snprintf(name, sizeof(name), "weights/step%d/rank%d/weight.json", step, rank);
	zip_add(z, name, &j.out);
	strbuf_release(&j.out);
}

static void call(struct jtext *j, int count, int line, const char *code)
{
	char frame[256];
	snprintf(frame, sizeof(frame), "File /home/user/run/train.py, line %d, in <module>, %s", line, code);
	jt_next(j);
	jt_open(j, '{');
	jt_kv_tok(j, "count", count == 2 ? "2" : "1");
	jt_key(j, "stack");
	jt_open(j, '[');
	jt_next(j);
	jsonw_str(&j->out, frame);
	jt_close(j, ']');
	jt_close(j, '}');
}

static void random_member(struct zipw *z, const struct run *r, int rank)
{
	struct jtext j = { STRBUF_INIT, 0, true };
	char name[64];
	jt_open(&j, '{');
	jt_key(&j, "torch.manual_seed");
	jt_open(&j, '[');
	call(&j, 1, 62, "torch.manual_seed(0)                      # model init seed: identical on both sides");
	call(&j, 1, 67, "torch.manual_seed(a.seed)                 # training seed");
	jt_close(&j, ']');
	jt_key(&j, "torch.randn");
	jt_open(&j, '[');
	call(&j, has(r, GENPACK_RANDOM) ? 2 : 1, 75, "x = torch.randn(4, 4)");
	call(&j, 1, 76, "y = torch.randn(4, 2)");
	jt_close(&j, ']');
	jt_close(&j, '}');
	snprintf(name, sizeof(name), "random/rank%d.json", rank);
	zip_add(z, name, &j.out);
	strbuf_release(&j.out);
}

static void init_weights(const struct genpack_config *c, struct run *r)
{
	uint64_t s = genio_rng_stream(c->seed, 1, 0, 0, 0);
	for (int i = 0; i < HID * IN; i++)
		r->w1[i] = 0.5f * genio_rng_symmetric(&s);
	for (int i = 0; i < HID; i++)
		r->b1[i] = 0.5f * genio_rng_symmetric(&s);
	for (int i = 0; i < OUT * HID; i++)
		r->w2[i] = 0.35f * genio_rng_symmetric(&s);
	for (int i = 0; i < OUT; i++)
		r->b2[i] = 0.35f * genio_rng_symmetric(&s);
	if (has(r, GENPACK_WEIGHT))
		r->b2[0] += 0.5f;
	r->lr = has(r, GENPACK_LR) ? 0.02 : 0.01;
}

/* One SGD step, gradients of a squared loss on the batch's mean, in float32. */
static void sgd_step(const struct genpack_config *c, struct run *r, int step)
{
	float x[BATCH * IN], h[HID], y[OUT], gy[OUT], gh[HID];
	float xm[IN] = { 0 };
	batch(c, r, step, 0, x);
	for (int b = 0; b < BATCH; b++)
		for (int i = 0; i < IN; i++)
			xm[i] += x[b * IN + i] / BATCH;
	for (int o = 0; o < HID; o++) {
		float s = r->b1[o];
		for (int i = 0; i < IN; i++)
			s += r->w1[o * IN + i] * xm[i];
		h[o] = s > 0 ? s : 0;
	}
	for (int o = 0; o < OUT; o++) {
		float s = r->b2[o];
		for (int i = 0; i < HID; i++)
			s += r->w2[o * HID + i] * h[i];
		y[o] = s;
		gy[o] = 2.0f * (y[o] - 1.0f);
	}
	for (int i = 0; i < HID; i++) {
		float s = 0;
		for (int o = 0; o < OUT; o++)
			s += gy[o] * r->w2[o * HID + i];
		gh[i] = h[i] > 0 ? s : 0;
	}
	for (int o = 0; o < OUT; o++) {
		for (int i = 0; i < HID; i++)
			r->w2[o * HID + i] -= (float)r->lr * gy[o] * h[i];
		r->b2[o] -= (float)r->lr * gy[o];
	}
	for (int o = 0; o < HID; o++) {
		for (int i = 0; i < IN; i++)
			r->w1[o * IN + i] -= (float)r->lr * gh[o] * xm[i];
		r->b1[o] -= (float)r->lr * gh[o];
	}
}

static void write_pack(const struct genpack_config *c, bool cmp)
{
	struct strbuf path = STRBUF_INIT;
	struct run r = { .cmp = cmp, .diffs = c->diffs };
	struct zipw z;
	strbuf_addf(&path, "%s/%s.zip", c->outdir, cmp ? "cmp" : "bench");
	init_weights(c, &r);
	zip_create(&z, path.buf);
	env_member(&z, &r);
	pip_member(&z, &r);
	hyper_member(&z, &r);
	for (int step = 0; step < c->steps; step++) {
		for (int rank = 0; rank < c->ranks; rank++) {
			dataset_member(&z, c, &r, step, rank);
			weights_member(&z, &r, step, rank);
			if (step == 0 && rank == 0)
				random_member(&z, &r, rank);
		}
		sgd_step(c, &r, step);
	}
	zip_commit(&z);
	strbuf_release(&path);
}

void genpack_write(const struct genpack_config *c)
{
	partial_init();
	genio_mkdirs(c->outdir);
	write_pack(c, false);
	write_pack(c, true);
}
