/* Finding dump files: rank, step and root directories, and the layouts that are errors. */
#include "tap.h"
#include "../../lib/dumps/layout.h"
#include "../../lib/records/leafrec.h"
#include "../../lib/core/msg.h"
#include "../../lib/core/xalloc.h"

#include <sys/stat.h>
#include <unistd.h>

static char root[64];

static void touch(const char *rel)
{
	char p[256];
	FILE *f;
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	if (f)
		fclose(f);
}

static void mkdirs(const char *rel)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (char *s = p + strlen(root) + 1; *s; s++) {
		if (*s == '/') {
			*s = 0;
			mkdir(p, 0755);
			*s = '/';
		}
	}
	mkdir(p, 0755);
}

/* "path rank step" lines of an operand relative to root, or "error: ..." */
static void discover(const char *rel, struct strbuf *out)
{
	struct dump_list list = DUMP_LIST_INIT;
	struct strbuf err = STRBUF_INIT;
	char p[256];
	snprintf(p, sizeof(p), "%s%s%s", root, *rel ? "/" : "", rel);
	strbuf_reset(out);
	if (layout_discover(p, &list, &err) < 0) {
		strbuf_addf(out, "error: %s", err.buf + strlen(root) + 1);
	} else {
		for (size_t i = 0; i < list.nr; i++)
			strbuf_addf(out, "%s %lld %lld%s%s%s\n", list.v[i].path + strlen(root) + 1,
				    (long long)list.v[i].rank, (long long)list.v[i].step,
				    list.v[i].debug ? " debug" : "", list.v[i].exec_mode ? " " : "",
				    list.v[i].exec_mode ? leaf_exec_mode_names[list.v[i].exec_mode] : "");
	}
	layout_release(&list);
	strbuf_release(&err);
}

static void expect(const char *rel, const char *want, const char *what)
{
	struct strbuf got = STRBUF_INIT;
	discover(rel, &got);
	is_str(got.buf, want, what);
	strbuf_release(&got);
}

/* layout_rank_batches() over ranks with the given sizes (rank -1 ends the list), n batches. */
static void expect_batches(const int64_t *ranks, const uint64_t *sizes, size_t n, const char *want, const char *what)
{
	struct dump_list list = DUMP_LIST_INIT;
	struct strbuf got = STRBUF_INIT, err = STRBUF_INIT;
	size_t nr = 0;
	while (ranks[nr] >= 0)
		nr++;
	list.v = xcalloc(nr ? nr : 1, sizeof(*list.v));
	for (size_t i = 0; i < nr; i++)
		list.v[i] = (struct dump_file){ .path = (char *)"x", .rank = ranks[i], .step = 0 };
	list.nr = nr;
	if (layout_rank_batches(&list, sizes, n, &got, &err) < 0)
		strbuf_addf(&got, "error: %s", err.buf);
	is_str(got.buf, want, what);
	free(list.v);
	strbuf_release(&got);
	strbuf_release(&err);
}

int main(void)
{
	snprintf(root, sizeof(root), "/tmp/probe-test-layout-%d", (int)getpid());
	mkdir(root, 0755);
	msg_set_quiet(true);

	mkdirs("a/step0/rank0");
	mkdirs("a/step0/rank1");
	mkdirs("a/step0/rank10");
	mkdirs("a/step2/rank0");
	mkdirs("a/step10/rank0");
	touch("a/step0/rank0/dump.json");
	touch("a/step0/rank1/dump.json");
	touch("a/step0/rank10/dump.json.gz");
	touch("a/step2/rank0/dump.json");
	touch("a/step10/rank0/debug.json");
	touch("a/step0/notes.txt");

	expect("a/step0/rank1/dump.json", "a/step0/rank1/dump.json 1 0\n", "a dump file: rank and step from its directories");
	expect("a/step0/rank1", "a/step0/rank1/dump.json 1 0\n", "a rank directory");
	expect("a/step0",
	       "a/step0/rank0/dump.json 0 0\na/step0/rank1/dump.json 1 0\na/step0/rank10/dump.json.gz 10 0\n",
	       "a step directory: ranks in numeric order, a gzip dump found too, files ignored");
	expect("a",
	       "a/step0/rank0/dump.json 0 0\na/step0/rank1/dump.json 1 0\na/step0/rank10/dump.json.gz 10 0\n"
	       "a/step2/rank0/dump.json 0 2\na/step10/rank0/debug.json 0 10 debug\n",
	       "a dump root: steps in numeric order; debug.json recognised");

	mkdirs("b/step0/proc2016");
	touch("b/step0/proc2016/dump.json");
	expect("b/step0", "b/step0/proc2016/dump.json -1 0\n", "one proc dir: its rank is unknown");
	mkdirs("b/step0/proc77");
	touch("b/step0/proc77/dump.json");
	expect("b/step0",
	       "error: b/step0: 2 proc<pid> directories and no rank directory: their ranks are unknown; name the one to read",
	       "several proc dirs without rank dirs is an error");
	mkdirs("b/step0/rank3");
	touch("b/step0/rank3/dump.json");
	expect("b/step0", "b/step0/rank3/dump.json 3 0\n", "rank dirs beside proc dirs: the proc dirs are left out");

	mkdirs("c/step0/rank0");
	mkdirs("c/step0/rank1");
	touch("c/step0/rank0/dump.json");
	expect("c/step0", "error: c/step0/rank1: no dump.json or debug.json in this rank directory",
	       "a rank dir without a dump is an error");

	mkdirs("d/step0/rank");
	touch("d/step0/rank/dump.json");
	expect("d/step0", "d/step0/rank/dump.json -1 0\n", "a bare \"rank\" dir has no rank number");
	mkdirs("d/step0/rank0");
	touch("d/step0/rank0/dump.json");
	expect("d/step0",
	       "error: d/step0: a directory named \"rank\" (no rank number) beside rank0: cannot tell their ranks",
	       "a bare \"rank\" dir beside numbered ones is an error");

	mkdirs("e/empty");
	expect("e/empty", "error: e/empty: not a dump: no dump.json or debug.json, no rank<N>, proc<pid>, step<N>, graph or pynative directories, and no ATB statistic.csv",
	       "an empty directory is not a dump");
	expect("nothing", "error: nothing: No such file or directory", "a missing path");

	mkdirs("f/step0/rank01");
	touch("f/step0/rank01/dump.json");
	mkdirs("f/step1/rank0");
	touch("f/step1/rank0/dump.json");
	expect("f", "error: f/step0: no rank<N> or proc<pid> directories in this step",
	       "rank01 is not a rank dir (msprobe's pattern), so step0 holds none");

	/* numbers past INT64_MAX: msprobe reads them, so they are refused rather than left out */
	mkdirs("g/step0/rank0");
	mkdirs("g/step0/rank99999999999999999999");
	touch("g/step0/rank0/dump.json");
	touch("g/step0/rank99999999999999999999/dump.json");
	expect("g/step0", "error: g/step0/rank99999999999999999999: a rank number larger than 9223372036854775807, "
	       "the largest probe reads: leaving the directory out would compare the dump without it",
	       "a rank dir whose number overflows is an error, not left out");
	mkdirs("h/step0/rank9223372036854775808");
	touch("h/step0/rank9223372036854775808/dump.json");
	expect("h/step0", "error: h/step0/rank9223372036854775808: a rank number larger than 9223372036854775807, "
	       "the largest probe reads: leaving the directory out would compare the dump without it",
	       "alone in its step, INT64_MAX + 1 is refused too (not \"not a dump\")");
	mkdirs("h/step0/rank9223372036854775807");
	mkdirs("i/step0/rank0");
	touch("i/step0/rank0/dump.json");
	mkdirs("i/step18446744073709551616/rank0");
	touch("i/step18446744073709551616/rank0/dump.json");
	expect("i", "error: i/step18446744073709551616: a step number larger than 9223372036854775807, "
	       "the largest probe reads: leaving the directory out would compare the dump without it",
	       "a step dir whose number overflows is an error");
	mkdirs("j/step0/rank9223372036854775807");
	touch("j/step0/rank9223372036854775807/dump.json");
	touch("j/step0/rank99999999999999999999");
	expect("j/step0", "j/step0/rank9223372036854775807/dump.json 9223372036854775807 0\n",
	       "INT64_MAX itself is a rank; a plain file named like an overflowing rank dir is ignored");

	/* MindSpore's run mode pynative_graph: graph/ and pynative/ side by side, graph first */
	mkdirs("m/pynative/step0/rank0");
	mkdirs("m/pynative/step1/rank1");
	mkdirs("m/graph/step0/rank0");
	touch("m/pynative/step0/rank0/dump.json");
	touch("m/pynative/step1/rank1/dump.json");
	touch("m/graph/step0/rank0/dump.json");
	expect("m", "m/graph/step0/rank0/dump.json 0 0 graph\nm/pynative/step0/rank0/dump.json 0 0 pynative\n"
	       "m/pynative/step1/rank1/dump.json 1 1 pynative\n", "a graph/pynative root: each folder a dump root, graph first");
	expect("m/graph", "m/graph/step0/rank0/dump.json 0 0\n", "a folder named on its own is an ordinary dump root");
	mkdirs("n/pynative/step0/rank0");
	mkdirs("n/graph");
	touch("n/pynative/step0/rank0/dump.json");
	expect("n", "n/pynative/step0/rank0/dump.json 0 0 pynative\n",
	       "an empty graph folder beside pynative/ is passed over (with a warning)");
	mkdirs("o/step0/rank0");
	mkdirs("o/graph");
	touch("o/step0/rank0/dump.json");
	expect("o", "o/step0/rank0/dump.json 0 0\n", "an empty directory named graph does not make a graph/pynative root");
	mkdirs("o/graph/step3/rank0");
	touch("o/graph/step3/rank0/dump.json");
	expect("o", "o/graph/step3/rank0/dump.json 0 3 graph\n",
	       "step directories beside the folders are left out (with a warning), as msprobe leaves them");
	mkdirs("q/graph/step0");
	expect("q", "error: q/graph/step0: no rank<N> or proc<pid> directories in this step",
	       "a folder's step without ranks is an error, as in any dump root");
	{
		struct strbuf sb = STRBUF_INIT;
		bool good = true;
		static const char *const cases[][2] = {
			{ "T/graph/step0/rank0/dump.json", "T" }, { "/d/T/pynative/step1/rank2/dump.json", "/d/T" },
			{ "graph/step0/rank0/dump.json", "." }, { "step0/rank0/dump.json", "" }, { "dump.json", "" },
		};
		for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
			layout_mode_root(cases[i][0], &sb);
			if (strcmp(sb.buf ? sb.buf : "", cases[i][1]))
				good = false, diag("%s: got '%s'", cases[i][0], sb.buf ? sb.buf : "");
		}
		ok(good, "the graph/pynative root of a dump path: four components up");
		strbuf_release(&sb);
	}

	ok(layout_parse_numbered("rank12", "rank") == 12 && layout_parse_numbered("rank", "rank") == -1 &&
	   layout_parse_numbered("rank-1", "rank") == -1 && layout_parse_numbered("rank0", "rank") == 0 &&
	   layout_parse_numbered("ranks", "rank") == -1 && layout_parse_numbered("rank99999999999999999999", "rank") == -1,
	   "numbered names: rank<N> only, no sign, no leading zero, no overflow");

	{
		/* expected cuts worked out by hand from the rule: a batch ends at the rank where it holds the
		 * bytes not yet in a batch over the batches left, keeping a rank for each batch left */
		const int64_t r8[] = { 0, 1, 2, 3, 4, 5, 6, 7, -1 };
		const uint64_t even[] = { 10, 10, 10, 10, 10, 10, 10, 10 };
		const uint64_t heavy[] = { 10, 10, 10, 10, 10, 10, 10, 90 }; /* total 160: shares 80 */
		const uint64_t first_heavy[] = { 100, 1, 1, 1, 1, 1, 1, 1 };
		const int64_t shuffled[] = { 5, 0, 3, 1, 3, 2, 10, 11, -1 };
		const uint64_t sizes[] = { 1, 1, 1, 1, 1, 1, 1, 1 };
		const int64_t none[] = { -1 };
		expect_batches(r8, even, 2, "0-3\n4-7\n", "batches: eight equal ranks in two");
		expect_batches(r8, even, 3, "0-2\n3-5\n6-7\n", "batches: eight equal ranks in three (30 of 26.7, then 30 of the 25 left a batch)");
		expect_batches(r8, even, 1, "0-7\n", "batches: one");
		expect_batches(r8, even, 20, "0\n1\n2\n3\n4\n5\n6\n7\n", "batches: more than ranks, one a rank");
		expect_batches(r8, heavy, 2, "0-6\n7\n", "batches: a heavy last rank has a batch of its own");
		expect_batches(r8, first_heavy, 3, "0\n1-4\n5-7\n",
			       "batches: a heavy first rank alone; the rest shared out again (3.5 of the 7 left)");
		expect_batches(shuffled, sizes, 2, "0-3\n5,10-11\n",
			       "batches: ranks sorted, rank 3's two files counted together (5 of 8 at its end), gaps as runs");
		expect_batches(none, sizes, 2, "", "batches: no ranks, no lines");
		struct dump_list list = DUMP_LIST_INIT;
		struct strbuf got = STRBUF_INIT, err = STRBUF_INIT;
		struct dump_file v[2] = { { .path = (char *)"a", .rank = 0 }, { .path = (char *)"b/dump.json", .rank = -1 } };
		list.v = v;
		list.nr = 2;
		ok(layout_rank_batches(&list, sizes, 2, &got, &err) < 0 && strstr(err.buf, "b/dump.json") && !got.len,
		   "batches: a dump without a rank is refused, naming it, nothing written");
		strbuf_release(&got);
		strbuf_release(&err);
	}

	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd))
		diag("could not remove %s", root);
	return done_testing();
}
