/*
 * probe-config's parsers and Python emulations (lib/precheck): difflib's
 * ratio, str hashes and set order of Python 3.11 with PYTHONHASHSEED=0, pip
 * lists, environment dumps, YAML typed as PyYAML types it, launch scripts by
 * msprobe's rules and by the shell's, what kind a file is.
 *
 * The expected ratios, hashes, set orders and YAML values were computed by
 * python3 3.11's difflib, hash(), set and yaml.safe_load (PyYAML 6.0), as the
 * comments say; msprobe's ShellParser results by its rules (launch.h) worked
 * out by hand, and checked against those rules written as Python regular
 * expressions; the rest by hand.
 */
#include "tap.h"
#include "../../lib/precheck/difflib.h"
#include "../../lib/precheck/launch.h"
#include "../../lib/precheck/pack.h"
#include "../../lib/precheck/piplist.h"
#include "../../lib/precheck/plain.h"
#include "../../lib/precheck/precheck.h"
#include "../../lib/precheck/pyset.h"
#include "../../lib/msprobe/pyhash.h"
#include "../../lib/core/msg.h"

#include <math.h>

static void ratio_is(const char *a, const char *b, double want)
{
	double got = difflib_ratio_utf8(a, strlen(a), b, strlen(b));
	if (!ok(got == want, "ratio('%.20s', '%.20s') = %.17g", a, b, want))
		diag("got %.17g", got);
}

static void test_difflib(void)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	/* SequenceMatcher(None, a, b).ratio() */
	ratio_is("lr", "learning_rate", 0.26666666666666666);
	ratio_is("learning_rate", "lr", 0.26666666666666666);
	ratio_is("hidden_size", "hiddensize", 0.9523809523809523);
	ratio_is("num_layers", "num_layer", 0.9473684210526315);
	ratio_is("weight_decay", "weightdecay", 0.9565217391304348);
	ratio_is("", "", 1.0);
	ratio_is("abc", "", 0.0);
	/* not symmetric: the longest block is searched in a, then b */
	ratio_is("bbca", "acabba", 0.6);
	ratio_is("acabba", "bbca", 0.4);
	/* msprobe's random check: fixture cc01's two manual_seed lines (mean score (1 + 1 + r) / 3 = 0.888...) */
	ratio_is("torch.manual_seed(0)                      # model init seed: identical on both sides",
		 "torch.manual_seed(a.seed)                 # training seed: differs between the packs", 0.6666666666666666);
	ratio_is("x = torch.randn(4, 4)", "y = torch.randn(4, 2)", 0.9047619047619048);
	/* code points, not bytes */
	ratio_is("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80" "b", "\xe2\x82\xac" "b\xf0\x9f\x98\x80", 0.5714285714285714);
	/* autojunk: in 210 elements, a and b are popular (> 3 each), so no block starts with them */
	for (int i = 0; i < 150; i++)
		strbuf_addch(&a, 'a');
	for (int i = 0; i < 60; i++)
		strbuf_addch(&a, 'b');
	for (int i = 0; i < 60; i++)
		strbuf_addch(&b, 'b');
	for (int i = 0; i < 150; i++)
		strbuf_addch(&b, 'a');
	ratio_is(a.buf, b.buf, 0.0); /* with autojunk=False it would be 0.7142857142857143 */
	/* 'ab' * 150 + 'c' against 'ba' * 120 + 'c' + 'ab' * 30: only c matches */
	strbuf_reset(&a);
	strbuf_reset(&b);
	for (int i = 0; i < 150; i++)
		strbuf_addstr(&a, "ab");
	strbuf_addch(&a, 'c');
	for (int i = 0; i < 120; i++)
		strbuf_addstr(&b, "ba");
	strbuf_addch(&b, 'c');
	for (int i = 0; i < 30; i++)
		strbuf_addstr(&b, "ab");
	ratio_is(a.buf, b.buf, 0.0033222591362126247);
	ratio_is(b.buf, a.buf, 0.0033222591362126247);
	strbuf_release(&a);
	strbuf_release(&b);
}

static void hash_is(const char *s, int64_t want)
{
	is_int(pyhash_str(s, strlen(s)), want, s);
}

static void order_is(const char *const *a, size_t na, const char *const *b, size_t nb, const char *want)
{
	const char **v;
	struct strbuf got = STRBUF_INIT;
	size_t n = pyset_union_order(a, na, b, nb, &v);
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&got, "%s%s", i ? " " : "", v[i]);
	is_str(got.buf, want, "set order");
	free(v);
	strbuf_release(&got);
}

static void test_pyset(void)
{
	static const char *const w[] = { "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias" };
	static const char *const ops1[] = { "torch.manual_seed", "torch.randn" };
	static const char *const ops2[] = { "torch.randn", "random.random", "np.random.rand" };
	const char *layers[20], *extra[] = { "extra" };
	char names[20][24];
	/* PYTHONHASHSEED=0 python3 -c 'print(hash(s))' */
	hash_is("", 0);
	hash_is("a", 4644417185603328019);
	hash_is("fc1.weight", 735564804806323762);
	hash_is("fc2.bias", 2956304587751864490);
	hash_is("torch.manual_seed", -7182407183657595972);
	hash_is("\xc3\xa9", 6047309291227476195);                   /* Latin-1: one byte a character */
	hash_is("\xe2\x82\xac" "uro", 7542247858446192590);          /* UCS-2 */
	hash_is("\xf0\x9f\x98\x80", -3536540696076613844);           /* UCS-4 */
	/* list(set(a) | set(b)): fixture cc01's weights order */
	order_is(w, 4, w, 4, "fc2.bias fc2.weight fc1.weight fc1.bias");
	order_is(ops1, 2, ops2, 3, "torch.randn np.random.rand torch.manual_seed random.random");
	/* 21 names: the table grows twice on the way */
	for (int i = 0; i < 20; i++) {
		snprintf(names[i], sizeof(names[i]), "layer%d.weight", i);
		layers[i] = names[i];
	}
	order_is(layers, 20, extra, 1,
		 "layer18.weight layer3.weight layer19.weight layer9.weight layer10.weight layer7.weight layer8.weight "
		 "layer0.weight layer4.weight layer15.weight layer13.weight layer5.weight layer17.weight layer14.weight "
		 "layer1.weight layer12.weight layer16.weight extra layer6.weight layer11.weight layer2.weight");
}

static const char *pip_text(const struct piplist *l, struct strbuf *out)
{
	strbuf_reset(out);
	for (size_t i = 0; i < l->n; i++)
		strbuf_addf(out, "%s%s=%s", i ? " " : "", l->v[i].name, l->v[i].version);
	return out->buf;
}

static void test_piplist(void)
{
	struct piplist l = PIPLIST_INIT;
	struct strbuf err = STRBUF_INIT, t = STRBUF_INIT;
	static const char freeze[] = "# comment\ntorch==2.1.0\nnumpy===1.24.2\r\n-r other.txt\n"
				     "mylib @ file:///src/mylib\n-e git+https://x/y.git@abc#egg=yy\n\nPyYAML=6.0\n"
				     "torch==2.1.1\n";
	static const char table[] = "Package    Version   Editable project location\n---------- --------- ----\n"
				    "numpy      1.26.4\ntorch-npu  2.1.0.post3\nmylib      0.1       /src/mylib\n";
	ok(piplist_parse(&l, "f", freeze, strlen(freeze), &err) == 0, "pip freeze and msprobe's lines read");
	/* a name twice: its first place, its last version */
	is_str(pip_text(&l, &t),
	       "torch=2.1.1 numpy=1.24.2 mylib=@ file:///src/mylib yy=-e git+https://x/y.git@abc#egg=yy PyYAML=6.0",
	       "their names and versions");
	piplist_release(&l);
	ok(piplist_parse(&l, "t", table, strlen(table), &err) == 0, "pip list's table read");
	is_str(pip_text(&l, &t), "numpy=1.26.4 torch-npu=2.1.0.post3 mylib=0.1", "its columns");
	piplist_release(&l);
	/* msprobe's load_pip_txt: split on '=', "" unless there are two parts */
	piplist_parse_msprobe(&l, freeze, strlen(freeze));
	is_str(piplist_get(&l, "torch")->version, "", "msprobe reads name==version as an empty version");
	is_str(piplist_get(&l, "PyYAML")->version, "6.0", "and Name=version as the version");
	ok(piplist_get(&l, "numpy") != NULL && !*piplist_get(&l, "numpy")->version, "numpy===1.24.2: empty too");
	piplist_release(&l);
	strbuf_reset(&err);
	ok(piplist_parse(&l, "bad.txt", "torch==1\nthis is not\n", 20, &err) < 0, "a line that is no package refused");
	is_str(err.buf,
	       "bad.txt:2: not a package of a pip list (name==version, name=version, name @ URL or pip list's columns)",
	       "the message names the file and the line");
	piplist_release(&l);
	strbuf_reset(&t);
	piplist_normalize(&t, "Py_YAML..x-_y");
	is_str(t.buf, "py-yaml-x-y", "PEP 503 names");
	ok(piplist_sniff("a==1\nb==2\n", 10) == 2 && piplist_sniff("PATH=/bin\nfoo bar baz\n", 22) < 0,
	   "pip lists told from other text");
	strbuf_release(&err);
	strbuf_release(&t);
}

/* The hyperparameters (or env) of a plain file as "key=repr ..." (ms: msprobe's view). */
static const char *values_text(const struct pyval *d, struct strbuf *out)
{
	strbuf_reset(out);
	for (size_t i = 0; d && i < d->n; i++) {
		strbuf_addf(out, "%s%s=", i ? " " : "", d->items[2 * i]->text);
		pyval_repr(out, d->items[2 * i + 1]);
	}
	return out->buf;
}

static struct pack *read_plain(const char *name, enum plain_kind k, const char *text, struct strbuf *err)
{
	struct pack *p = pack_new(name, PACK_CONFIG);
	strbuf_reset(err);
	if (plain_read(p, k, text, strlen(text), err) < 0) {
		diag("%s", err->buf);
		pack_free(p);
		return NULL;
	}
	return p;
}

static void test_yaml(void)
{
	struct strbuf err = STRBUF_INIT, t = STRBUF_INIT;
	/* yaml.safe_load of each value (PyYAML 6.0) */
	static const char yaml[] =
		"a: 1e-5\nb: 1.0e-5\nc: 1.0e5\nd: yes\ne: 0o17\nf: 017\ng: 0x1F\nh: 1_000\ni: '1:30'\nj: 1:30\n"
		"k: 1:30.5\nl: .inf\nm: -.inf\nn: ~\no: 2002-12-14\np: 09\nq: +12\nr: -0\ns: 0b101\nt: 1.\n"
		"u: '1'\nv: On\nw: 12345678901234567890123\nx: [1, two, [3]]\ny: [{k: 1}, 2]\n"
		"base: &b {p: 1, q: 2}\nmodel:\n  <<: *b\n  q: 3\n  hidden_size: 8\n";
	struct pack *p = read_plain("c.yaml", PLAIN_CONFIG, yaml, &err);
	ok(p != NULL, "a YAML config read");
	if (!p) {
		strbuf_release(&err);
		return;
	}
	is_str(values_text(p->hyper[0].value, &t),
	       "a='1e-5' b=1e-05 c='1.0e5' d=True e='0o17' f=15 g=31 h=1000 i='1:30' j=90 k=90.5 l=inf m=-inf n=None "
	       "o='2002-12-14' p='09' q=12 r=0 s=5 t=1.0 u='1' v=True w=12345678901234567890123 x=[1, 'two', [3]] "
	       "y.0.k=1 y.1=2 base.p=1 base.q=2 model.p=1 model.q=3 model.hidden_size=8",
	       "typed as PyYAML types it, flattened, merges (<<) under the own keys");
	/* msprobe's YamlParser: None and dates are no scalars to it */
	is_str(values_text(p->hyper[0].ms_value, &t),
	       "a='1e-5' b=1e-05 c='1.0e5' d=True e='0o17' f=15 g=31 h=1000 i='1:30' j=90 k=90.5 l=inf m=-inf "
	       "p='09' q=12 r=0 s=5 t=1.0 u='1' v=True w=12345678901234567890123 x=[1, 'two', [3]] "
	       "y.0.k=1 y.1=2 base.p=1 base.q=2 model.p=1 model.q=3 model.hidden_size=8",
	       "msprobe's view drops None and the date");
	pack_free(p);
	/* a key that is not a str: msprobe's parser fails on it and gives nothing */
	p = read_plain("k.yaml", PLAIN_CONFIG, "1: a\nb: 2\n", &err);
	ok(p && p->hyper[0].ms_value->n == 0 && p->hyper[0].value->n == 2, "an int key: ours two values, msprobe's none");
	pack_free(p);
	p = read_plain("j.json", PLAIN_CONFIG, "{\"optimizer\": {\"lr\": 0.01, \"betas\": [0.9, 0.95]}, \"x\": null}", &err);
	is_str(p ? values_text(p->hyper[0].value, &t) : "", "optimizer.lr=0.01 optimizer.betas=[0.9, 0.95] x=None",
	       "a JSON config flattened");
	pack_free(p);
	strbuf_reset(&err);
	p = pack_new("bad.yaml", PACK_CONFIG);
	ok(plain_read(p, PLAIN_CONFIG, "a: [1, 2\n", 9, &err) < 0 && !strncmp(err.buf, "bad.yaml:", 9),
	   "bad YAML refused with its position: %s", err.buf);
	pack_free(p);
	strbuf_release(&err);
	strbuf_release(&t);
}

static void test_env(void)
{
	struct strbuf err = STRBUF_INIT, t = STRBUF_INIT;
	struct pack *p = read_plain("e", PLAIN_ENV,
				    "PATH=/bin\nFUNC=() {  echo\n}\nEMPTY=\nHCCL_ALGO=level0:NA;level1:H-D_R\n", &err);
	is_str(p ? values_text(p->env.value, &t) : "",
	       "PATH='/bin' FUNC='() {  echo\\n}' EMPTY='' HCCL_ALGO='level0:NA;level1:H-D_R'",
	       "env's output, a value of two lines");
	pack_free(p);
	p = read_plain("x", PLAIN_ENV, "declare -x A=\"1 2\"\ndeclare -x B\nexport C='x'\n", &err);
	is_str(p ? values_text(p->env.value, &t) : "", "A='1 2' C='x'", "export -p / declare -x, quotes removed");
	pack_free(p);
	p = pack_new("bad.env", PACK_ENV_TEXT);
	strbuf_reset(&err);
	ok(plain_read(p, PLAIN_ENV, "not an assignment\n", 18, &err) < 0, "a dump that is no NAME=value refused");
	is_str(err.buf, "bad.env:1: not NAME=value, as env prints the environment", "its message");
	pack_free(p);
	strbuf_release(&err);
	strbuf_release(&t);
}

static const char *args_text(const char *script, enum launch_rules rules, struct strbuf *out)
{
	struct launch_args a = LAUNCH_ARGS_INIT;
	launch_parse(&a, script, strlen(script), rules);
	strbuf_reset(out);
	if (!a.found)
		strbuf_addstr(out, "(no command)");
	for (size_t i = 0; i < a.n; i++)
		strbuf_addf(out, "%s%s=%s", i ? " " : "", a.v[i].key, a.v[i].value ? a.v[i].value : "True");
	launch_release(&a);
	return out->buf;
}

static void test_launch(void)
{
	struct strbuf t = STRBUF_INIT;
	static const char script[] =
		"#!/bin/bash\n"
		"# a comment\n"
		"LR=0.01\n"
		"MY_LR=5\n"
		"SEED=\"1234\"   # the seed\n"
		"DISTRIBUTED_ARGS=\"\n    --nproc_per_node 8 \\\n    --nnodes 1\n\"\n"
		"VERY_LONG_NAME_OF_MORE_THAN_TWENTY_ARGS=\"--weird 1\"\n"
		"GPT_ARGS=\"\n    --hidden-size 8 \\\n    --lr $LR \\\n    --seed ${SEED} \\\n    --bf16 \\\n"
		"    --use-flash-attn --no-bias\n    --lr-decay=cosine\n\"\n"
		"torchrun $DISTRIBUTED_ARGS pretrain_gpt.py \\\n    $GPT_ARGS \\\n    ${VERY_LONG_NAME_OF_MORE_THAN_TWENTY_ARGS} \\\n"
		"    --data-path \"/data/my set#1\" \\\n    --train-iters 3 | tee log.txt\n";
	/*
	 * msprobe: MY_LR=5 is the last "LR=" (lr 5); SEED's quotes stay; use-flash-attn takes "--no-bias";
	 * --lr-decay=cosine is a flag; the long *_ARGS block is never substituted (its name is cut to 20
	 * characters, and ${...} is not replaced anyway); the '#' cuts --data-path's quoted value.
	 */
	is_str(args_text(script, LAUNCH_MSPROBE, &t),
	       "nproc_per_node=8 nnodes=1 hidden-size=8 lr=5 seed=\"1234\" bf16=True use-flash-attn=--no-bias "
	       "lr-decay=True data-path=\"/data/my train-iters=3",
	       "msprobe's ShellParser, faults kept");
	is_str(args_text(script, LAUNCH_PROBE, &t),
	       "nproc_per_node=8 nnodes=1 hidden-size=8 lr=0.01 seed=1234 bf16=True use-flash-attn=True no-bias=True "
	       "lr-decay=cosine weird=1 data-path=/data/my set#1 train-iters=3",
	       "probe's reading: as the shell reads it");
	is_str(args_text("python3 -m torch.distributed.launch --a 1\n", LAUNCH_MSPROBE, &t), "a=1",
	       "python -m torch.distributed.launch");
	is_str(args_text("python train.py --lr 0.1\n", LAUNCH_MSPROBE, &t), "(no command)",
	       "msprobe: no launcher, no arguments");
	is_str(args_text("python train.py --lr 0.1\n", LAUNCH_PROBE, &t), "lr=0.1", "probe: python SCRIPT.py");
	is_str(args_text("deepspeed train.py --zero 2 --bf16\n", LAUNCH_PROBE, &t), "zero=2 bf16=True", "probe: deepspeed");
	is_str(args_text("msrun --worker_num 2 x.py --k v --k w\n", LAUNCH_MSPROBE, &t), "worker_num=2 k=w",
	       "msrun; a key twice: its last value");
	ok(launch_sniff("torchrun --nproc_per_node 2 a.py\n", 33) && !launch_sniff("echo torch\n", 11),
	   "launch commands told");
	strbuf_release(&t);
}

static void kind_is(const char *name, const char *text, enum plain_kind want)
{
	enum plain_kind got = plain_detect(name, text, strlen(text));
	if (!ok(got == want, "%s: %s", name, plain_kind_name(want)))
		diag("got %s", plain_kind_name(got));
}

static void test_detect(void)
{
	kind_is("a.zip", "PK\003\004rest", PLAIN_PACK);
	kind_is("env", "{\"A\": \"1\"}", PLAIN_ENV);
	kind_is("gpu.env", "A=1\n", PLAIN_ENV);
	kind_is("requirements.txt", "torch\n", PLAIN_PIP);
	kind_is("train.sh", "echo\n", PLAIN_SCRIPT);
	kind_is("c.yml", "a: 1\n", PLAIN_CONFIG);
	kind_is("-", "torch==2.1.0\nnumpy==1.0\n", PLAIN_PIP);
	kind_is("-", "Package Version\n------- -------\nnumpy 1.0\n", PLAIN_PIP);
	kind_is("-", "torch=2.1.0\nnumpy=1.24.2\nPyYAML=6.0\n", PLAIN_PIP);   /* msprobe's pip member */
	kind_is("-", "PATH=/usr/bin\nHOME=/root\nLANG=C\n", PLAIN_ENV);
	kind_is("-", "{\"PATH\": \"/bin\", \"HOME\": \"/\"}", PLAIN_ENV);
	kind_is("-", "{\"lr\": 0.1}", PLAIN_CONFIG);
	kind_is("run", "#!/bin/sh\ntorchrun --nproc_per_node 2 a.py\n", PLAIN_SCRIPT);
	kind_is("-", "model:\n  hidden: 8\n", PLAIN_CONFIG);
	kind_is("-", "just words\n", PLAIN_UNKNOWN);
}

/* Python's == and to_str_if_number on JSON values. */
static void test_values(void)
{
	struct arena a = ARENA_INIT;
	struct strbuf t = STRBUF_INIT;
	static const char tx[] = "{\"a\": 1, \"b\": [1.0, true]}", ty[] = "{\"b\": [1, 1], \"a\": 1.0}";
	struct pyval *x = pyval_from_text(tx, strlen(tx), 0, &a), *y = pyval_from_text(ty, strlen(ty), 0, &a);
	struct pyval *f = pyval_from_text("1e-2", 4, 0, &a), *b = pyval_from_text("true", 4, 0, &a);
	ok(x && y && precheck_py_eq(x, y), "dicts equal whatever their order, 1 == 1.0 == True");
	ok(precheck_to_str(f, &t) && !strcmp(t.buf, "0.01"), "to_str_if_number(1e-2) is '0.01'");
	strbuf_reset(&t);
	ok(precheck_to_str(b, &t) && !strcmp(t.buf, "True"), "and of true 'True' (a bool is an int)");
	arena_release(&a);
	strbuf_release(&t);
}

int main(void)
{
	msg_set_progname("test_precheck");
	msg_set_quiet(true);
	test_difflib();
	test_pyset();
	test_piplist();
	test_yaml();
	test_env();
	test_launch();
	test_detect();
	test_values();
	return done_testing();
}
