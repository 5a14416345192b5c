#include "precheck.h"
#include "difflib.h"
#include "../core/msg.h"
#include "../core/source.h"
#include "../core/xalloc.h"
#include "../json/jsonw.h"
#include "../msprobe/pyfmt.h"

#include <math.h>
#include <strings.h>
#include <sys/stat.h>

/* ---- opening an operand */

/* The first bytes of a file, to tell a zip (PK\3\4, PK\5\6 when empty) before reading it whole. */
static bool zip_magic(const char *path)
{
	unsigned char b[4] = { 0 };
	FILE *f = source_fopen_regular(path, NULL);
	bool zip;
	if (!f)
		return false;
	zip = fread(b, 1, 4, f) == 4 && b[0] == 'P' && b[1] == 'K' && ((b[2] == 3 && b[3] == 4) || (b[2] == 5 && b[3] == 6));
	fclose(f);
	return zip;
}

struct pack *precheck_open(const char *path, enum plain_kind kind, struct strbuf *err)
{
	struct strbuf data = STRBUF_INIT;
	struct pack *p = NULL;
	struct stat st;
	bool is_stdin = !strcmp(path, "-");
	if (!is_stdin && stat(path, &st) < 0) {
		msg_fail(err, path, "cannot open: %s", strerror(errno));
		return NULL;
	}
	if (!is_stdin && S_ISDIR(st.st_mode)) {
		if (kind != PLAIN_UNKNOWN && kind != PLAIN_PACK) {
			msg_fail(err, path, "a folder, read as a pack only (not --kind %s)", plain_kind_name(kind));
			return NULL;
		}
		p = pack_new(path, PACK_DIR);
		if (pack_read_dir(p, err) < 0)
			goto fail;
		return p;
	}
	if (!is_stdin && S_ISREG(st.st_mode) && (kind == PLAIN_PACK || (kind == PLAIN_UNKNOWN && zip_magic(path)))) {
		p = pack_new(path, PACK_ZIP);
		if (pack_read_zip(p, err) < 0)
			goto fail;
		return p;
	}
	if (plain_read_file(path, &data, err) < 0)
		goto fail;
	if (kind == PLAIN_UNKNOWN)
		kind = plain_detect(path, data.buf, data.len);
	if (kind == PLAIN_PACK) {
		msg_fail(err, path, is_stdin ? "a pack zip cannot be read from standard input: give its file"
					     : "a zip pack that could not be read as one");
		goto fail;
	}
	if (kind == PLAIN_UNKNOWN) {
		msg_fail(err, path, "cannot tell what this holds (a pip list, an environment dump, a YAML or JSON "
				    "config, a launch script?): give --kind");
		goto fail;
	}
	p = pack_new(path, kind == PLAIN_PIP ? PACK_PIP_TEXT : kind == PLAIN_ENV ? PACK_ENV_TEXT
				 : kind == PLAIN_CONFIG ? PACK_CONFIG : PACK_SCRIPT);
	if (plain_read(p, kind, data.buf, data.len, err) < 0)
		goto fail;
	strbuf_release(&data);
	return p;
fail:
	strbuf_release(&data);
	pack_free(p);
	return NULL;
}

/* ---- Python's values */

static const struct pyval *dict_get(const struct pyval *d, const char *key, size_t len)
{
	if (!d || d->kind != PY_DICT)
		return NULL;
	for (size_t i = 0; i < d->n; i++)
		if (d->items[2 * i]->len == len && !memcmp(d->items[2 * i]->text, key, len))
			return d->items[2 * i + 1];
	return NULL;
}

static bool is_num(const struct pyval *v)
{
	return v->kind == PY_BOOL || v->kind == PY_INT || v->kind == PY_FLOAT;
}

static double num(const struct pyval *v)
{
	return v->kind == PY_BOOL ? (double)v->b : pyval_float(v);
}

/* Python's ==, or with nan_same the same value (NaN is NaN: a run against itself is alike). */
static bool py_eq(const struct pyval *a, const struct pyval *b, bool nan_same)
{
	if (is_num(a) && is_num(b)) {
		if (a->kind == PY_INT && b->kind == PY_INT)
			return a->len == b->len && !memcmp(a->text, b->text, a->len);
		return num(a) == num(b) || (nan_same && isnan(num(a)) && isnan(num(b)));
	}
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case PY_NONE: return true;
	case PY_STR: return a->len == b->len && !memcmp(a->text, b->text, a->len);
	case PY_LIST:
		if (a->n != b->n)
			return false;
		for (size_t i = 0; i < a->n; i++)
			if (!py_eq(a->items[i], b->items[i], nan_same))
				return false;
		return true;
	case PY_DICT:
		if (a->n != b->n)
			return false;
		for (size_t i = 0; i < a->n; i++) {
			const struct pyval *o = dict_get(b, a->items[2 * i]->text, a->items[2 * i]->len);
			if (!o || !py_eq(a->items[2 * i + 1], o, nan_same))
				return false;
		}
		return true;
	default: return false;
	}
}

bool precheck_py_eq(const struct pyval *a, const struct pyval *b)
{
	return py_eq(a, b, false);
}

static bool same_value(const struct pyval *a, const struct pyval *b)
{
	return py_eq(a, b, true);
}

bool precheck_to_str(const struct pyval *v, struct strbuf *out)
{
	if (!is_num(v))
		return false;
	pyval_str(out, v);
	return true;
}

/* ---- findings */

static char *dup(struct precheck *c, const char *s)
{
	return s ? arena_memdupz(&c->arena, s, strlen(s)) : NULL;
}

static struct pc_finding *add(struct precheck *c, enum pack_check ch, enum pc_level level, enum pc_what what,
			      const char *item)
{
	struct pc_finding *f;
	if (c->n == c->alloc) {
		c->alloc = c->alloc ? 2 * c->alloc : 64;
		c->v = xrealloc(c->v, st_mult(c->alloc, sizeof(*c->v)));
	}
	f = &c->v[c->n++];
	memset(f, 0, sizeof(*f));
	f->check = ch;
	f->level = level;
	f->what = what;
	f->item = dup(c, item);
	f->step = f->rank = -1;
	return f;
}

/* An item compared: a finding when it differs (or always, with --all). */
static struct pc_finding *compared(struct precheck *c, enum pack_check ch, bool differs, enum pc_level level,
				   enum pc_what what, const char *item)
{
	c->sum[ch].items++;
	if (!differs && !c->opts.all)
		return NULL;
	return add(c, ch, differs ? level : PC_PASS, differs ? what : PC_SAME, item);
}

/* ---- env */

static const struct env_pair {
	const char *npu, *gpu, *fallback;
} msprobe_env[] = {
	{ "HCCL_DETERMINISTIC", "NCCL_DETERMINISTIC", "False" },
	{ "HCCL_ALGO", "NCCL_ALGO", "None" },
	{ "HCCL_INTRA_ROCE_ENABLE", NULL, "0" },
	{ "HCCL_INTRA_PCIE_ENABLE", NULL, "1" }, /* msprobe names it HCCL_INTRA_PICE_ENABLE and reads ROCE twice */
	{ "ASCEND_LAUNCH_BLOCKING", "CUDA_LAUNCH_BLOCKING", "0" },
	{ "ASCEND_RT_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "None" },
};

bool precheck_env_matters(const char *name)
{
	static const char *const exact[] = { "PYTHONHASHSEED", "CUBLAS_WORKSPACE_CONFIG", "NVIDIA_TF32_OVERRIDE",
					     "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "CUDA_DEVICE_MAX_CONNECTIONS",
					     "OMP_NUM_THREADS", "MKL_NUM_THREADS", "TASK_QUEUE_ENABLE",
					     "INF_NAN_MODE_ENABLE", "CLOSE_MATMUL_K_SHIFT", "PYTORCH_NPU_ALLOC_CONF",
					     "PYTORCH_CUDA_ALLOC_CONF" };
	static const char *const prefixes[] = { "HCCL_", "NCCL_", "ASCEND_", "ATB_", "LCCL_", "NVTE_", "MS_" };
	static const char *const not_numeric[] = { "_PATH", "_HOME", "_DIR", "_FILE" };
	size_t n = strlen(name);
	for (size_t i = 0; i < ARRAY_SIZE(exact); i++)
		if (!strcmp(name, exact[i]))
			return true;
	if (strstr(name, "LOG"))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(not_numeric); i++)
		if (n >= strlen(not_numeric[i]) && !strcmp(name + n - strlen(not_numeric[i]), not_numeric[i]))
			return false;
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

bool precheck_npu_side(const struct pyval *env)
{
	for (size_t i = 0; env && i < env->n; i++)
		if (mem_holds(env->items[2 * i]->text, env->items[2 * i]->len, "ASCEND"))
			return true;
	return false;
}

static const struct pyval *env_get(const struct pyval *env, const char *name)
{
	return name ? dict_get(env, name, strlen(name)) : NULL;
}

/* The value a variable has in effect: its own, or the one unset means. */
static void effective(struct strbuf *out, const struct pyval *v, const char *fallback)
{
	if (v)
		pyval_str(out, v);
	else
		strbuf_addstr(out, fallback);
}

static int cmp_cstr(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static void compare_env(struct precheck *c)
{
	const struct pyval *be = c->bench->env.value, *ce = c->cmp->env.value;
	bool bnpu = precheck_npu_side(be), cnpu = precheck_npu_side(ce);
	const char **names = xmalloc(st_mult(be->n + ce->n + 1, sizeof(*names)));
	const char *covered[2 * ARRAY_SIZE(msprobe_env)];
	size_t nn = 0, ncov = 0;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;

	for (size_t i = 0; i < ARRAY_SIZE(msprobe_env); i++) {
		const struct env_pair *e = &msprobe_env[i];
		const char *bn = bnpu ? e->npu : e->gpu, *cn = cnpu ? e->npu : e->gpu;
		const struct pyval *bv = env_get(be, bn), *cv = env_get(ce, cn);
		struct pc_finding *f;
		if (bn)
			covered[ncov++] = bn;
		if (cn)
			covered[ncov++] = cn;
		if (!bn && !cn)
			continue;
		if (!bn || !cn) {
			c->sum[PACK_ENV].info++;
			f = add(c, PACK_ENV, PC_INFO, bn ? PC_BENCH_ONLY : PC_CMP_ONLY, bn ? bn : cn);
			f->note = dup(c, bn ? "a variable of NPU runs; cmp runs on GPU" : "a variable of NPU runs; bench runs on GPU");
		} else {
			strbuf_reset(&a);
			strbuf_reset(&b);
			effective(&a, bv, e->fallback);
			effective(&b, cv, e->fallback);
			f = compared(c, PACK_ENV, strcasecmp(a.buf, b.buf) != 0, PC_ERROR, PC_DIFFERS, bn);
			if (!f)
				continue;
		}
		f->bench_name = dup(c, bn);
		f->cmp_name = dup(c, cn);
		f->bench = bv;
		f->cmp = cv;
		f->fallback = e->fallback;
	}
	for (size_t i = 0; i < be->n; i++)
		names[nn++] = be->items[2 * i]->text;
	for (size_t i = 0; i < ce->n; i++)
		if (!dict_get(be, ce->items[2 * i]->text, ce->items[2 * i]->len))
			names[nn++] = ce->items[2 * i]->text;
	qsort(names, nn, sizeof(*names), cmp_cstr);
	for (size_t i = 0; i < nn; i++) {
		const struct pyval *bv = env_get(be, names[i]), *cv = env_get(ce, names[i]);
		enum pc_level level = precheck_env_matters(names[i]) ? PC_WARNING : PC_INFO;
		struct pc_finding *f;
		size_t k;
		for (k = 0; k < ncov && strcmp(covered[k], names[i]); k++)
			;
		if (k < ncov)
			continue;
		if (bv && cv) {
			f = compared(c, PACK_ENV, !same_value(bv, cv), level, PC_DIFFERS, names[i]);
		} else {
			c->sum[PACK_ENV].items++;
			f = add(c, PACK_ENV, level, bv ? PC_BENCH_ONLY : PC_CMP_ONLY, names[i]);
		}
		if (f) {
			f->bench = bv;
			f->cmp = cv;
			if (f->level == PC_INFO)
				c->sum[PACK_ENV].info++;
		}
	}
	strbuf_release(&a);
	strbuf_release(&b);
	free(names);
}

/* ---- pip */

bool precheck_key_package(const char *name)
{
	static const char *const key[] = {
		"torch", "torch-npu", "torchvision", "numpy", "transformers", "deepspeed", "megatron", "megatron-core",
		"mindspeed", "mindspeed-llm", "mindspore", "mindformers", "apex", "transformer-engine", "flash-attn",
		"xformers", "triton", "accelerate", "datasets", "peft", "tokenizers", "safetensors", "vllm",
		"vllm-ascend", "verl", "jax", "jaxlib",
	};
	for (size_t i = 0; i < ARRAY_SIZE(key); i++)
		if (!strcmp(name, key[i]))
			return true;
	return false;
}

struct pkg {
	char *norm;
	const struct piplist_entry *b, *c;
};

static int cmp_pkg(const void *x, const void *y)
{
	return strcmp(((const struct pkg *)x)->norm, ((const struct pkg *)y)->norm);
}

static void add_pkgs(struct precheck *c, struct pkg **v, size_t *n, const struct piplist *l, bool bench)
{
	struct strbuf norm = STRBUF_INIT;
	for (size_t i = 0; i < l->n; i++) {
		size_t k;
		strbuf_reset(&norm);
		piplist_normalize(&norm, l->v[i].name);
		for (k = 0; k < *n && strcmp((*v)[k].norm, norm.buf); k++)
			;
		if (k == *n) {
			*v = xrealloc(*v, st_mult(*n + 1, sizeof(**v)));
			(*v)[(*n)++] = (struct pkg){ arena_memdupz(&c->arena, norm.buf, norm.len), NULL, NULL };
		}
		if (bench)
			(*v)[k].b = &l->v[i];
		else
			(*v)[k].c = &l->v[i];
	}
	strbuf_release(&norm);
}

static const struct pyval *str_pyval(struct precheck *c, const char *s)
{
	struct pyval *v = arena_alloc(&c->arena, sizeof(*v));
	memset(v, 0, sizeof(*v));
	v->kind = PY_STR;
	v->text = dup(c, s);
	v->len = strlen(s);
	return v;
}

static void compare_pip(struct precheck *c)
{
	struct pkg *v = NULL;
	size_t n = 0;
	add_pkgs(c, &v, &n, &c->bench->pip, true);
	add_pkgs(c, &v, &n, &c->cmp->pip, false);
	if (n)
		qsort(v, n, sizeof(*v), cmp_pkg);
	for (size_t i = 0; i < n; i++) {
		enum pc_level level = precheck_key_package(v[i].norm) ? PC_ERROR : PC_INFO;
		struct pc_finding *f;
		if (v[i].b && v[i].c) {
			f = compared(c, PACK_PIP, strcmp(v[i].b->version, v[i].c->version) != 0, level, PC_DIFFERS, v[i].norm);
		} else {
			c->sum[PACK_PIP].items++;
			f = add(c, PACK_PIP, level == PC_ERROR ? PC_WARNING : level, v[i].b ? PC_BENCH_ONLY : PC_CMP_ONLY,
				v[i].norm);
		}
		if (!f)
			continue;
		if (f->level == PC_INFO)
			c->sum[PACK_PIP].info++;
		f->bench = v[i].b ? str_pyval(c, v[i].b->version) : NULL;
		f->cmp = v[i].c ? str_pyval(c, v[i].c->version) : NULL;
		f->bench_name = v[i].b ? dup(c, v[i].b->name) : NULL;
		f->cmp_name = v[i].c ? dup(c, v[i].c->name) : NULL;
	}
	free(v);
}

/* ---- statistics (dataset, weights) */

static const char *const stat_names[4] = { "max", "min", "mean", "norm" };

static bool is_stats(const struct pyval *v)
{
	if (!v || v->kind != PY_DICT || v->n != 4)
		return false;
	for (int k = 0; k < 4; k++)
		if (!dict_get(v, stat_names[k], strlen(stat_names[k])))
			return false;
	return true;
}

static double stat_of(const struct pyval *v, int k)
{
	const struct pyval *s = dict_get(v, stat_names[k], strlen(stat_names[k]));
	return s && is_num(s) ? num(s) : NAN;
}

/* Our differences of two statistics objects: |b - c| and |b - c| / |b| (0 / 0 is 0; x / 0 has none). */
static bool stats_differ(struct pc_finding *f, const struct pyval *b, const struct pyval *c)
{
	bool differ = false;
	for (int k = 0; k < 4; k++) {
		double x = stat_of(b, k), y = stat_of(c, k), d = fabs(x - y);
		bool same = x == y || (isnan(x) && isnan(y));
		differ |= !same;
		if (!f)
			continue;
		f->abs_diff[k] = same ? 0 : d;
		f->has_rel[k] = same || x != 0;
		f->rel[k] = same ? 0 : d / fabs(x);
	}
	return differ;
}

static void stats_finding(struct precheck *c, enum pack_check ch, const char *item, const struct pyval *b,
			  const struct pyval *v, int64_t step, int64_t rank)
{
	bool differ = stats_differ(NULL, b, v);
	struct pc_finding *f = compared(c, ch, differ, PC_ERROR, PC_DIFFERS, item);
	if (!f)
		return;
	stats_differ(f, b, v);
	f->bench = b;
	f->cmp = v;
	f->step = step;
	f->rank = rank;
}

static void one_side(struct precheck *c, enum pack_check ch, enum pc_level level, bool bench, const char *item,
		     const struct pyval *v, int64_t step, int64_t rank)
{
	struct pc_finding *f = add(c, ch, level, bench ? PC_BENCH_ONLY : PC_CMP_ONLY, item);
	c->sum[ch].items++;
	if (level == PC_INFO)
		c->sum[ch].info++;
	if (bench)
		f->bench = v;
	else
		f->cmp = v;
	f->step = step;
	f->rank = rank;
}

/* dataset.json: the inputs of one forward, key by key (args.0, kwargs.x, ...). */
static void compare_inputs(struct precheck *c, const struct pyval *b, const struct pyval *v, struct strbuf *tag,
			   int64_t step, int64_t rank)
{
	size_t base = tag->len;
	for (size_t i = 0; i < b->n; i++) {
		const struct pyval *k = b->items[2 * i], *x = b->items[2 * i + 1];
		const struct pyval *y = dict_get(v, k->text, k->len);
		if (base)
			strbuf_addch(tag, '.');
		strbuf_add(tag, k->text, k->len);
		if (!y)
			one_side(c, PACK_DATASET, PC_ERROR, true, tag->buf, x, step, rank);
		else if (is_stats(x) && is_stats(y))
			stats_finding(c, PACK_DATASET, tag->buf, x, y, step, rank);
		else if (x->kind == PY_DICT && y->kind == PY_DICT && !is_stats(x) && !is_stats(y))
			compare_inputs(c, x, y, tag, step, rank);
		else {
			struct pc_finding *f = compared(c, PACK_DATASET, !same_value(x, y), PC_ERROR, PC_DIFFERS, tag->buf);
			if (f) {
				f->bench = x, f->cmp = y, f->step = step, f->rank = rank;
			}
		}
		strbuf_setlen(tag, base);
	}
	for (size_t i = 0; i < v->n; i++) {
		const struct pyval *k = v->items[2 * i];
		if (dict_get(b, k->text, k->len))
			continue;
		if (base)
			strbuf_addch(tag, '.');
		strbuf_add(tag, k->text, k->len);
		one_side(c, PACK_DATASET, PC_ERROR, false, tag->buf, v->items[2 * i + 1], step, rank);
		strbuf_setlen(tag, base);
	}
}

static void compare_weight_file(struct precheck *c, const struct pack_json *b, const struct pack_json *v)
{
	const char *base = strrchr(b->member, '/') + 1;
	const char *file = strcmp(base, "weight.json") ? base : NULL;
	size_t first = c->n;
	for (size_t i = 0; i < b->value->n; i++) {
		const struct pyval *k = b->value->items[2 * i];
		const struct pyval *y = dict_get(v->value, k->text, k->len);
		if (y)
			stats_finding(c, PACK_WEIGHTS, k->text, b->value->items[2 * i + 1], y, b->step, b->rank);
		else
			one_side(c, PACK_WEIGHTS, PC_ERROR, true, k->text, b->value->items[2 * i + 1], b->step, b->rank);
	}
	for (size_t i = 0; i < v->value->n; i++) {
		const struct pyval *k = v->value->items[2 * i];
		if (!dict_get(b->value, k->text, k->len))
			one_side(c, PACK_WEIGHTS, PC_ERROR, false, k->text, v->value->items[2 * i + 1], v->step, v->rank);
	}
	for (size_t i = first; i < c->n; i++)
		c->v[i].file = dup(c, file);
}

/* Files of a list paired by step, rank and member; each pair handed to `both`, each single to `single`. */
static void pair_files(struct precheck *c, enum pack_check ch, const struct pack_json *b, size_t nb,
		       const struct pack_json *v, size_t nv,
		       void (*both)(struct precheck *, const struct pack_json *, const struct pack_json *))
{
	size_t i = 0, j = 0;
	while (i < nb || j < nv) {
		int order = i == nb ? 1 : j == nv ? -1 : (b[i].step != v[j].step ? (b[i].step < v[j].step ? -1 : 1)
						     : b[i].rank != v[j].rank ? (b[i].rank < v[j].rank ? -1 : 1)
						     : strcmp(b[i].member, v[j].member));
		if (order == 0) {
			both(c, &b[i++], &v[j++]);
			continue;
		}
		{
			const struct pack_json *x = order < 0 ? &b[i++] : &v[j++];
			struct pc_finding *f = add(c, ch, PC_INFO, order < 0 ? PC_BENCH_ONLY : PC_CMP_ONLY, x->member);
			c->sum[ch].info++;
			f->step = ch == PACK_RANDOM ? -1 : x->step;
			f->rank = x->rank;
			f->note = dup(c, order < 0 ? "only in bench: not compared" : "only in cmp: not compared");
		}
	}
}

static void compare_dataset_file(struct precheck *c, const struct pack_json *b, const struct pack_json *v)
{
	struct strbuf tag = STRBUF_INIT;
	compare_inputs(c, b->value, v->value, &tag, b->step, b->rank);
	strbuf_release(&tag);
}

/* ---- hyperparameters */

const struct pc_alias_group precheck_alias_groups[] = {
	{ "learning_rate", { "lr", "learningrate" } },
	{ "batch_size", { "batch", "bs", "batch_size_per_gpu" } },
	{ "epochs", { "num_epochs", "max_epochs", "epoch" } },
	{ "weight_decay", { "wd", "weightdecay" } },
	{ "dropout_rate", { "dropout", "drop_rate" } },
	{ "compute_dtype", { "bf16", "fp32" } },
	{ "residual_dtype", { "fp32_residual_connection" } },
	{ "softmax_compute_dtype", { "attention_softmax_in_fp32" } },
};

const size_t precheck_nalias_groups = ARRAY_SIZE(precheck_alias_groups);

/* msprobe's refined name: the part after the last '.', '-' as '_'. */
static void refine(struct strbuf *out, const char *key, size_t len)
{
	const char *dot = NULL;
	for (size_t i = 0; i < len; i++)
		if (key[i] == '.')
			dot = key + i;
	if (dot) {
		len -= (size_t)(dot + 1 - key);
		key = dot + 1;
	}
	for (size_t i = 0; i < len; i++)
		strbuf_addch(out, key[i] == '-' ? '_' : key[i]);
}

/* The group of a refined name (bf16 and fp32 are two settings, not two names of one: no group). */
static int group_of(const char *refined)
{
	for (size_t g = 0; g < precheck_nalias_groups; g++) {
		const struct pc_alias_group *a = &precheck_alias_groups[g];
		if (!strcmp(a->name, "compute_dtype"))
			continue;
		if (!strcmp(refined, a->name))
			return (int)g;
		for (int k = 0; k < 4 && a->aliases[k]; k++)
			if (!strcmp(refined, a->aliases[k]))
				return (int)g;
	}
	return -1;
}

static void lower(struct strbuf *out, const char *s)
{
	for (; *s; s++)
		strbuf_addch(out, (char)(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s));
}

/* Two hyperparameter values alike: Python-equal once numbers are text (msprobe's rule), or the same number, or the same truth. */
static bool values_alike(const struct pyval *a, const struct pyval *b)
{
	struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;
	bool same;
	if (same_value(a, b))
		return true;
	if (a->kind == PY_LIST || b->kind == PY_LIST || a->kind == PY_DICT || b->kind == PY_DICT || a->kind == PY_NONE ||
	    b->kind == PY_NONE)
		return false;
	pyval_str(&x, a);
	pyval_str(&y, b);
	same = !strcmp(x.buf, y.buf) || (a->kind == PY_BOOL || b->kind == PY_BOOL ? !strcasecmp(x.buf, y.buf) : false);
	if (!same && pyfmt_float_accepts(x.buf, x.len) && pyfmt_float_accepts(y.buf, y.len))
		same = pyfmt_strtod(x.buf, NULL) == pyfmt_strtod(y.buf, NULL);
	strbuf_release(&x);
	strbuf_release(&y);
	return same;
}

struct hkey {
	const char *key;
	size_t len;
	char *refined;
	const struct pyval *value;
	long partner;  /* index on the other side, or -1 */
	enum pc_match how;
	double ratio;
};

static struct hkey *hkeys(const struct pyval *d, size_t *n)
{
	struct hkey *v = xcalloc(d->n + 1, sizeof(*v));
	struct strbuf r = STRBUF_INIT;
	for (size_t i = 0; i < d->n; i++) {
		strbuf_reset(&r);
		refine(&r, d->items[2 * i]->text, d->items[2 * i]->len);
		v[i] = (struct hkey){ d->items[2 * i]->text, d->items[2 * i]->len, xstrdup(r.buf), d->items[2 * i + 1], -1,
				      PC_MATCH_NONE, 0 };
	}
	strbuf_release(&r);
	*n = d->n;
	return v;
}

static void pair_keys(struct hkey *b, size_t i, struct hkey *v, size_t j, enum pc_match how, double ratio)
{
	b[i].partner = (long)j, v[j].partner = (long)i;
	b[i].how = v[j].how = how;
	b[i].ratio = v[j].ratio = ratio;
}

/* A pair of names above the similarity threshold. */
struct cand {
	double ratio;
	size_t i, j;
};

/* The highest ratio first; among equals, bench's order, then cmp's. */
static int cmp_cand(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;
	if (a->ratio != b->ratio)
		return a->ratio > b->ratio ? -1 : 1;
	if (a->i != b->i)
		return a->i < b->i ? -1 : 1;
	return a->j < b->j ? -1 : a->j > b->j;
}

static void match_keys(struct hkey *b, size_t nb, struct hkey *v, size_t nv)
{
	/* the same key; then the same refined name, or names of one group (msprobe's hyperparameter.yaml) */
	for (int pass = 0; pass < 3; pass++)
		for (size_t i = 0; i < nb; i++)
			for (size_t j = 0; j < nv && b[i].partner < 0; j++) {
				bool m = v[j].partner < 0;
				if (m && pass == 0)
					m = b[i].len == v[j].len && !memcmp(b[i].key, v[j].key, b[i].len);
				else if (m && pass == 1)
					m = !strcmp(b[i].refined, v[j].refined);
				else if (m)
					m = group_of(b[i].refined) >= 0 && group_of(b[i].refined) == group_of(v[j].refined);
				if (m)
					pair_keys(b, i, v, j, pass == 0 ? PC_MATCH_NAME : pass == 1 ? PC_MATCH_REFINED : PC_MATCH_ALIAS, 0);
			}
	/* then the most similar names above msprobe's 0.8, best first: every ratio once, then the pairs in order */
	{
		struct cand *c = NULL;
		size_t n = 0, alloc = 0;
		struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;
		for (size_t i = 0; i < nb; i++) {
			if (b[i].partner >= 0)
				continue;
			strbuf_reset(&x);
			lower(&x, b[i].refined);
			for (size_t j = 0; j < nv; j++) {
				double r;
				if (v[j].partner >= 0)
					continue;
				strbuf_reset(&y);
				lower(&y, v[j].refined);
				if ((r = difflib_ratio_utf8(x.buf, x.len, y.buf, y.len)) <= 0.8)
					continue;
				if (n == alloc) {
					alloc = alloc ? 2 * alloc : 16;
					c = xrealloc(c, st_mult(alloc, sizeof(*c)));
				}
				c[n++] = (struct cand){ r, i, j };
			}
		}
		if (n)
			qsort(c, n, sizeof(*c), cmp_cand);
		for (size_t k = 0; k < n; k++)
			if (b[c[k].i].partner < 0 && v[c[k].j].partner < 0)
				pair_keys(b, c[k].i, v, c[k].j, PC_MATCH_SIMILAR, c[k].ratio);
		free(c);
		strbuf_release(&x);
		strbuf_release(&y);
	}
}

static void free_hkeys(struct hkey *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].refined);
	free(v);
}

static void compare_hyper_file(struct precheck *c, const char *file, const struct pyval *bd, const struct pyval *cd)
{
	size_t nb, nv;
	struct hkey *b = hkeys(bd, &nb), *v = hkeys(cd, &nv);
	match_keys(b, nb, v, nv);
	for (size_t i = 0; i < nb; i++) {
		struct pc_finding *f;
		if (b[i].partner < 0) {
			c->sum[PACK_HYPER].items++;
			f = add(c, PACK_HYPER, PC_WARNING, PC_BENCH_ONLY, b[i].key);
		} else {
			const struct hkey *o = &v[b[i].partner];
			if (!(f = compared(c, PACK_HYPER, !values_alike(b[i].value, o->value), PC_ERROR, PC_DIFFERS, b[i].key)))
				continue;
			f->cmp_name = dup(c, o->key);
			f->cmp = o->value;
			f->match = b[i].how;
			f->similarity = b[i].ratio;
		}
		f->bench_name = dup(c, b[i].key);
		f->bench = b[i].value;
		f->file = dup(c, file);
	}
	for (size_t j = 0; j < nv; j++) {
		struct pc_finding *f;
		if (v[j].partner >= 0)
			continue;
		c->sum[PACK_HYPER].items++;
		f = add(c, PACK_HYPER, PC_WARNING, PC_CMP_ONLY, v[j].key);
		f->cmp_name = dup(c, v[j].key);
		f->cmp = v[j].value;
		f->file = dup(c, file);
	}
	free_hkeys(b, nb);
	free_hkeys(v, nv);
}

static void compare_hyper(struct precheck *c)
{
	for (int i = 0; i < 2; i++) {
		const struct pyval *b = c->bench->hyper[i].value, *v = c->cmp->hyper[i].value;
		if (b && v) {
			compare_hyper_file(c, pack_hyper_files[i], b, v);
		} else if (b || v) {
			struct pc_finding *f = add(c, PACK_HYPER, PC_INFO, b ? PC_BENCH_ONLY : PC_CMP_ONLY, pack_hyper_files[i]);
			c->sum[PACK_HYPER].info++;
			f->file = dup(c, pack_hyper_files[i]);
			f->note = dup(c, b ? "only in bench: not compared" : "only in cmp: not compared");
		}
	}
}

/* ---- random */

/* msprobe's _parse_frame(): "File PATH, line N, in FUNC, CODE" split on single spaces. */
static void parse_frame(const struct pyval *frame, const char **path, size_t *pn, const char **func, size_t *fn,
			const char **code, size_t *cn)
{
	const char *s = frame->text, *sp[6];
	size_t n = frame->len, k = 0;
	*path = *func = *code = "";
	*pn = *fn = *cn = 0;
	for (size_t i = 0; i < n && k < 6; i++)
		if (s[i] == ' ')
			sp[k++] = s + i;
	if (k < 6)
		return;
	*path = sp[0] + 1;
	*pn = (size_t)(sp[1] - *path);
	*pn = *pn ? *pn - 1 : 0; /* [:-1]: the comma */
	*func = sp[4] + 1;
	*fn = (size_t)(sp[5] - *func);
	*fn = *fn ? *fn - 1 : 0;
	*code = sp[5] + 1;
	*cn = n - (size_t)(*code - s);
}

static void base_of(const char **p, size_t *n)
{
	for (size_t i = *n; i > 0; i--)
		if ((*p)[i - 1] == '/') {
			*n -= i;
			*p += i;
			return;
		}
}

bool precheck_stack_match(const struct pyval *s1, const struct pyval *s2, double *mean)
{
	double total = 0;
	if (mean)
		*mean = 0;
	if (s1->n != s2->n)
		return false;
	for (size_t i = 0; i < s1->n; i++) {
		const char *p1, *f1, *c1, *p2, *f2, *c2;
		size_t pn1, fn1, cn1, pn2, fn2, cn2;
		double path, func, code, score;
		parse_frame(s1->items[i], &p1, &pn1, &f1, &fn1, &c1, &cn1);
		parse_frame(s2->items[i], &p2, &pn2, &f2, &fn2, &c2, &cn2);
		path = 0.0;
		if (pn1 && pn2) {
			base_of(&p1, &pn1);
			base_of(&p2, &pn2);
			path = pn1 == pn2 && !memcmp(p1, p2, pn1) ? 1.0 : 0.0;
		}
		func = fn1 == fn2 && !memcmp(f1, f2, fn1) ? 1.0 : 0.0;
		code = difflib_ratio_utf8(c1, cn1, c2, cn2);
		score = (path + func + code) / 3.0;
		if (score < 0.8)
			return false;
		total += score;
	}
	if (mean)
		*mean = s1->n ? total / (double)s1->n : 1.0;
	return true;
}

static const struct pyval *entries_of(const struct pyval *rank_file, const char *op)
{
	const struct pyval *v = dict_get(rank_file, op, strlen(op));
	return v && v->kind == PY_LIST ? v : NULL;
}

static const struct pyval *member(const struct pyval *entry, const char *key)
{
	return dict_get(entry, key, strlen(key));
}

static int64_t count_of(const struct pyval *entry)
{
	return (int64_t)strtoll(member(entry, "count")->text, NULL, 10);
}

static void random_finding(struct precheck *c, const char *op, int64_t rank, const struct pyval *be,
			   const struct pyval *ce, bool same_stack)
{
	struct pc_finding *f;
	if (be && ce)
		f = compared(c, PACK_RANDOM, count_of(be) != count_of(ce), PC_ERROR, PC_DIFFERS, op);
	else {
		c->sum[PACK_RANDOM].items++;
		f = add(c, PACK_RANDOM, PC_ERROR, be ? PC_BENCH_ONLY : PC_CMP_ONLY, op);
	}
	if (!f)
		return;
	f->rank = rank;
	if (be) {
		f->bench_count = count_of(be);
		f->bench_stack = member(be, "stack");
	}
	if (ce) {
		f->cmp_count = count_of(ce);
		f->cmp_stack = member(ce, "stack");
	}
	f->stack_same = same_stack;
}

/* One operation's calls on one rank, paired one to one: equal stacks first, then the most similar by msprobe's rule. */
static void compare_calls(struct precheck *c, const char *op, int64_t rank, const struct pyval *bl, const struct pyval *cl)
{
	size_t nb = bl ? bl->n : 0, nc = cl ? cl->n : 0;
	long *partner = xmalloc(st_mult(nb + 1, sizeof(*partner)));
	bool *taken = xcalloc(nc + 1, sizeof(*taken)), *same = xcalloc(nb + 1, sizeof(*same));
	for (size_t i = 0; i < nb; i++) {
		partner[i] = -1;
		for (size_t j = 0; j < nc && partner[i] < 0; j++)
			if (!taken[j] && same_value(member(bl->items[i], "stack"), member(cl->items[j], "stack")))
				partner[i] = (long)j, taken[j] = same[i] = true;
	}
	for (size_t i = 0; i < nb; i++) {
		double best = -1, score;
		if (partner[i] >= 0)
			continue;
		for (size_t j = 0; j < nc; j++)
			if (!taken[j] &&
			    precheck_stack_match(member(cl->items[j], "stack"), member(bl->items[i], "stack"), &score) &&
			    score > best)
				best = score, partner[i] = (long)j;
		if (partner[i] >= 0)
			taken[partner[i]] = true;
	}
	for (size_t i = 0; i < nb; i++)
		random_finding(c, op, rank, bl->items[i], partner[i] >= 0 ? cl->items[partner[i]] : NULL, same[i]);
	for (size_t j = 0; j < nc; j++)
		if (!taken[j])
			random_finding(c, op, rank, NULL, cl->items[j], false);
	free(partner);
	free(taken);
	free(same);
}

static void compare_random_file(struct precheck *c, const struct pack_json *b, const struct pack_json *v)
{
	const char **ops = xmalloc(st_mult(b->value->n + v->value->n + 1, sizeof(*ops)));
	size_t n = 0;
	for (size_t i = 0; i < b->value->n; i++)
		ops[n++] = b->value->items[2 * i]->text;
	for (size_t i = 0; i < v->value->n; i++)
		if (!dict_get(b->value, v->value->items[2 * i]->text, v->value->items[2 * i]->len))
			ops[n++] = v->value->items[2 * i]->text;
	if (n)
		qsort(ops, n, sizeof(*ops), cmp_cstr);
	for (size_t i = 0; i < n; i++)
		compare_calls(c, ops[i], b->rank, entries_of(b->value, ops[i]), entries_of(v->value, ops[i]));
	free(ops);
}

/* ---- the comparison */

struct precheck *precheck_new(const struct precheck_options *o)
{
	struct precheck *c = xcalloc(1, sizeof(*c));
	c->opts = *o;
	c->arena = (struct arena)ARENA_INIT;
	return c;
}

void precheck_free(struct precheck *c)
{
	if (!c)
		return;
	free(c->v);
	arena_release(&c->arena);
	free(c);
}

static void describe_has(struct strbuf *out, const struct pack *p)
{
	bool any = false;
	for (int k = 0; k < PACK_NCHECKS; k++)
		if (p->has & (1u << k)) {
			strbuf_addf(out, "%s%s", any ? ", " : "", pack_check_name((enum pack_check)k));
			any = true;
		}
	if (!any)
		strbuf_addstr(out, "nothing");
}

int precheck_compare(struct precheck *c, const struct pack *bench, const struct pack *cmp, struct strbuf *err)
{
	unsigned both = bench->has & cmp->has;
	c->bench = bench;
	c->cmp = cmp;
	if (!both) {
		strbuf_addf(err, "%s and %s have no check in common (%s has ", bench->path, cmp->path, bench->path);
		describe_has(err, bench);
		strbuf_addf(err, "; %s has ", cmp->path);
		describe_has(err, cmp);
		strbuf_addstr(err, "): nothing to compare");
		return -1;
	}
	for (int k = 0; k < PACK_NCHECKS; k++) {
		c->sum[k].bench_has = bench->has & (1u << k);
		c->sum[k].cmp_has = cmp->has & (1u << k);
		c->sum[k].compared = both & (1u << k);
	}
	if (both & (1u << PACK_ENV))
		compare_env(c);
	if (both & (1u << PACK_PIP))
		compare_pip(c);
	if (both & (1u << PACK_DATASET))
		pair_files(c, PACK_DATASET, bench->dataset, bench->ndataset, cmp->dataset, cmp->ndataset,
			   compare_dataset_file);
	if (both & (1u << PACK_WEIGHTS))
		pair_files(c, PACK_WEIGHTS, bench->weights, bench->nweights, cmp->weights, cmp->nweights,
			   compare_weight_file);
	if (both & (1u << PACK_HYPER))
		compare_hyper(c);
	if (both & (1u << PACK_RANDOM))
		pair_files(c, PACK_RANDOM, bench->random, bench->nrandom, cmp->random, cmp->nrandom, compare_random_file);
	for (size_t i = 0; i < c->n; i++) {
		struct pc_summary *s = &c->sum[c->v[i].check];
		if (c->v[i].level > s->level)
			s->level = c->v[i].level;
		if (c->v[i].level >= PC_WARNING)
			s->differ++;
	}
	return 0;
}

int precheck_status(const struct precheck *c)
{
	for (int k = 0; k < PACK_NCHECKS; k++)
		if (c->sum[k].level >= PC_WARNING)
			return PROBE_DIFFERENT;
	return PROBE_OK;
}

/* ---- records */

static const char *level_name(enum pc_level l)
{
	static const char *const n[] = { "pass", "info", "warning", "error" };
	return n[l];
}

static const char *what_name(enum pc_what w)
{
	static const char *const n[] = { "same", "differs", "bench_only", "cmp_only" };
	return n[w];
}

static const char *match_name(enum pc_match m)
{
	static const char *const n[] = { "none", "name", "refined", "alias", "similarity" };
	return n[m];
}

static void json_double(struct strbuf *out, double x)
{
	if (isnan(x))
		strbuf_addstr(out, "\"nan\"");
	else if (isinf(x))
		strbuf_addstr(out, x > 0 ? "\"inf\"" : "\"-inf\"");
	else
		pyfmt_double(out, x);
}

/* A value as JSON: numbers as Python prints them, the non-finite ones as the record contract's strings. */
static void json_value(struct strbuf *out, const struct pyval *v)
{
	if (!v) {
		strbuf_addstr(out, "null");
		return;
	}
	switch (v->kind) {
	case PY_NONE: strbuf_addstr(out, "null"); return;
	case PY_BOOL: strbuf_addstr(out, v->b ? "true" : "false"); return;
	case PY_INT: strbuf_add(out, v->text, v->len); return;
	case PY_FLOAT:
		if (v->canonical)
			strbuf_add(out, v->text, v->len);
		else
			json_double(out, pyval_float(v));
		return;
	case PY_STR: jsonw_string(out, v->text, v->len); return;
	case PY_LIST:
		strbuf_addch(out, '[');
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				strbuf_addch(out, ',');
			json_value(out, v->items[i]);
		}
		strbuf_addch(out, ']');
		return;
	case PY_DICT:
		strbuf_addch(out, '{');
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				strbuf_addch(out, ',');
			jsonw_string(out, v->items[2 * i]->text, v->items[2 * i]->len);
			strbuf_addch(out, ':');
			json_value(out, v->items[2 * i + 1]);
		}
		strbuf_addch(out, '}');
		return;
	}
}

static void json_member(struct strbuf *out, const char *key, const char *s)
{
	strbuf_addf(out, ",\"%s\":", key);
	if (s)
		jsonw_str(out, s);
	else
		strbuf_addstr(out, "null");
}

static void json_diffs(struct strbuf *out, const char *key, const struct pc_finding *f, bool rel)
{
	strbuf_addf(out, ",\"%s\":{", key);
	for (int k = 0; k < 4; k++) {
		strbuf_addf(out, "%s\"%s\":", k ? "," : "", stat_names[k]);
		if (rel && !f->has_rel[k])
			strbuf_addstr(out, "null");
		else
			json_double(out, rel ? f->rel[k] : f->abs_diff[k]);
	}
	strbuf_addch(out, '}');
}

static void write_finding(struct strbuf *out, const struct pc_finding *f)
{
	strbuf_addf(out, "{\"check\":\"%s\",\"finding\":\"%s\",\"level\":\"%s\"", pack_check_name(f->check),
		    what_name(f->what), level_name(f->level));
	if (f->step >= 0)
		strbuf_addf(out, ",\"step\":%lld", (long long)f->step);
	if (f->rank >= 0)
		strbuf_addf(out, ",\"rank\":%lld", (long long)f->rank);
	if (f->file)
		json_member(out, "file", f->file);
	json_member(out, "item", f->item);
	if (f->check == PACK_RANDOM && !f->note) {
		strbuf_addstr(out, ",\"bench\":");
		if (f->bench_stack)
			strbuf_addf(out, "%lld", (long long)f->bench_count);
		else
			strbuf_addstr(out, "null");
		strbuf_addstr(out, ",\"cmp\":");
		if (f->cmp_stack)
			strbuf_addf(out, "%lld", (long long)f->cmp_count);
		else
			strbuf_addstr(out, "null");
		strbuf_addstr(out, ",\"bench_stack\":");
		json_value(out, f->bench_stack);
		strbuf_addstr(out, ",\"cmp_stack\":");
		json_value(out, f->cmp_stack);
		if (f->bench_stack && f->cmp_stack)
			strbuf_addf(out, ",\"matched_with\":\"%s\"", f->stack_same ? "same stack" : "similar stack");
	} else if (!f->note || f->check == PACK_ENV) {
		strbuf_addstr(out, ",\"bench\":");
		json_value(out, f->bench);
		strbuf_addstr(out, ",\"cmp\":");
		json_value(out, f->cmp);
	}
	if ((f->check == PACK_ENV || f->check == PACK_HYPER || f->check == PACK_PIP) &&
	    (f->bench_name || f->cmp_name) && !(f->check == PACK_PIP && f->what == PC_SAME)) {
		json_member(out, f->check == PACK_ENV ? "bench_name" : f->check == PACK_PIP ? "bench_name" : "bench_key",
			    f->bench_name);
		json_member(out, f->check == PACK_ENV ? "cmp_name" : f->check == PACK_PIP ? "cmp_name" : "cmp_key",
			    f->cmp_name);
	}
	if (f->fallback)
		json_member(out, "default", f->fallback);
	if ((f->check == PACK_DATASET || f->check == PACK_WEIGHTS) && f->bench && f->cmp &&
	    f->bench->kind == PY_DICT && f->cmp->kind == PY_DICT && f->bench->n == 4 && f->what != PC_BENCH_ONLY) {
		json_diffs(out, "abs_diff", f, false);
		json_diffs(out, "rel_diff", f, true);
	}
	if (f->check == PACK_HYPER && f->match != PC_MATCH_NONE) {
		strbuf_addf(out, ",\"matched_with\":\"%s\"", match_name(f->match));
		if (f->match == PC_MATCH_SIMILAR) {
			strbuf_addstr(out, ",\"similarity\":");
			pyfmt_double(out, f->similarity);
		}
	}
	if (f->note)
		json_member(out, "note", f->note);
	strbuf_addstr(out, "}\n");
}

void precheck_write_records(const struct precheck *c, struct strbuf *out)
{
	bool first = true;
	for (size_t i = 0; i < c->n; i++)
		write_finding(out, &c->v[i]);
	strbuf_addstr(out, "{\"summary\":{\"bench\":");
	jsonw_str(out, c->bench->path);
	strbuf_addstr(out, ",\"cmp\":");
	jsonw_str(out, c->cmp->path);
	strbuf_addf(out, ",\"alike\":%s,\"checks\":{", precheck_status(c) == PROBE_OK ? "true" : "false");
	for (int k = 0; k < PACK_NCHECKS; k++) {
		const struct pc_summary *s = &c->sum[k];
		if (!s->bench_has && !s->cmp_has)
			continue;
		strbuf_addf(out, "%s\"%s\":", first ? "" : ",", pack_check_name((enum pack_check)k));
		first = false;
		if (s->compared)
			strbuf_addf(out, "{\"compared\":true,\"level\":\"%s\",\"items\":%zu,\"differ\":%zu,\"info\":%zu}",
				    level_name(s->level), s->items, s->differ, s->info);
		else
			strbuf_addf(out, "{\"compared\":false,\"only_in\":\"%s\"}", s->bench_has ? "bench" : "cmp");
	}
	strbuf_addstr(out, "}}}\n");
}
