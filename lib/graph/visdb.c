/*
 * visdb.c: msprobe's vis.db (SQLite) from probe-graph's model: the schema,
 * tb_nodes, tb_stack and tb_config as ../shared/reference/msprobe-graph.md
 * gives them.  One transaction, prepared statements; written under a
 * temporary name and renamed when complete (partial.h).
 */
#include "../core/compat.h"

#include <sqlite3.h>
#include <unistd.h>

#include "graphmodel.h"
#include "../core/msg.h"
#include "../core/partial.h"
#include "../core/xalloc.h"
#include "../json/jsonw.h"

static const char schema[] =
	"PRAGMA journal_mode=WAL;\n"
	"CREATE TABLE tb_nodes (\n"
	"    id TEXT PRIMARY KEY,\n    graph_id TEXT NOT NULL,\n    node_order INTEGER NOT NULL,\n"
	"    node_name TEXT NOT NULL,\n    node_type TEXT NOT NULL,\n    up_node TEXT,\n    sub_nodes TEXT,\n"
	"    precision_index INTEGER,\n    overflow_level TEXT,\n    micro_step_id INTEGER NOT NULL,\n"
	"    matched_node_link TEXT,\n    stack_id TEXT,\n    parallel_merge_info TEXT,\n    matched_distributed TEXT,\n"
	"    modified INTEGER NOT NULL,\n    input_data TEXT,\n    output_data TEXT,\n    data_source TEXT,\n"
	"    dump_data_dir TEXT,\n    step INTEGER NOT NULL,\n    rank INTEGER NOT NULL,\n    is_distributed INTEGER\n);\n"
	"CREATE TABLE tb_stack (\n    id TEXT PRIMARY KEY,\n    stack_info TEXT\n);\n"
	"CREATE TABLE tb_config (\n    id TEXT PRIMARY KEY,\n    graph_type TEXT NOT NULL,\n    task TEXT,\n"
	"    tool_tip TEXT,\n    micro_steps INTEGER,\n    overflow_check INTEGER,\n    node_colors TEXT NOT NULL,\n"
	"    rank_list TEXT NOT NULL,\n    step_list TEXT NOT NULL\n);\n"
	"CREATE INDEX index1 ON tb_nodes (step, rank, data_source, up_node, node_order);\n"
	"CREATE INDEX index2 ON tb_nodes (step, rank, data_source, node_name);\n"
	"CREATE INDEX index3 ON tb_nodes (step, rank, data_source, node_order);\n"
	"CREATE INDEX index4 ON tb_nodes (step, rank, node_order);\n"
	"CREATE INDEX index5 ON tb_nodes (step, rank, micro_step_id, node_order);\n"
	"CREATE INDEX index6 ON tb_nodes (step, rank, modified, matched_node_link);\n"
	"CREATE INDEX index7 ON tb_nodes (is_distributed);\n";

/* msprobe's tool tips and colour legend, by mode. */
static const char tips_summary[] =
	"{\"Max diff\": \"NPU与标杆API统计信息比对，最大值的差值\", \"Min diff\": \"NPU与标杆API统计信息比对，最小值的差值\", "
	"\"Mean diff\": \"NPU与标杆API统计信息比对，平均值的差值\", \"L2norm diff\": \"NPU与标杆API统计信息比对，2范数（平方根）的差值\"}";
static const char tips_tensor[] =
	"{\"One Thousandth Err Ratio\": \"Tensor中的元素逐个与对应的标杆数据对比，相对误差小于千分之一的比例占总元素个数的比例，比例越接近1越好\", "
	"\"Five Thousandths Err Ratio\": \"Tensor中的元素逐个与对应的标杆数据对比，相对误差小于千分之五的比例占总元素个数的比例，比例越接近1越好\", "
	"\"Cosine\": \"通过计算两个向量的余弦值来判断其相似度，数值越接近于1说明计算出的两个张量越相似，实际可接受阈值为大于0.99。在计算中可能会存在nan，主要由于可能会出现其中一个向量为0\", "
	"\"MaxAbsErr\": \"当最大绝对误差越接近0表示其计算的误差越小，实际可接受阈值为小于0.001\", "
	"\"MaxRelativeErr\": \"当最大相对误差越接近0表示其计算的误差越小。当dump数据中存在0或Nan时，比对结果中最大相对误差则出现inf或Nan的情况，属于正常现象\"}";
static const char tips_md5[] = "{\"md5\": \"NPU与标杆API的md5值是否一致\"}";

static void node_colors(const struct graph_set *g, struct strbuf *out)
{
	const char *what = g->mode == GDATA_TENSOR ? "此节点所有输入输出的 tensor 误差, 颜色越深代表调试侧与标杆侧的偏差越大"
			   : g->mode == GDATA_MD5 ? "此节点所有输入输出的md5值与标杆不一致"
						  : "此节点所有输入输出的统计量误差, 颜色越深代表调试侧与标杆侧的偏差越大";
	strbuf_addstr(out, "{\"#FFFCF3\": {\"value\": [0, 0.3], \"description\": \"");
	strbuf_addstr(out, what);
	strbuf_addstr(out, "\", \"accuracy_level\": \"pass\"}, \"#FFDC7F\": {\"value\": [0.3, 0.6], \"description\": \"");
	strbuf_addstr(out, what);
	strbuf_addstr(out, "\", \"accuracy_level\": \"warning\"}, \"#FF704D\": {\"value\": [0.6, 1], \"description\": \"");
	strbuf_addstr(out, what);
	strbuf_addstr(out, "\", \"accuracy_level\": \"error\"}, \"#C7C7C7\": {\"value\": [], \"description\": "
			   "\"比对过程中节点未匹配上\", \"accuracy_level\": \"unmatched node\"}}");
}

struct db {
	sqlite3 *h;
	sqlite3_stmt *node, *stack;
	struct strbuf *err;
	const char *path;
};

static int db_fail(struct db *db, const char *what)
{
	msg_fail(db->err, db->path, "%s: %s", what, sqlite3_errmsg(db->h));
	return PROBE_ERR;
}

static void bind_text(sqlite3_stmt *s, int i, const char *text, size_t len)
{
	sqlite3_bind_text(s, i, text, (int)len, SQLITE_TRANSIENT);
}

static void bind_str(sqlite3_stmt *s, int i, const char *text)
{
	bind_text(s, i, text, strlen(text));
}

static int insert_side(struct db *db, const struct graph_set *g, const struct grun *r, bool golden)
{
	const struct hier *h = golden ? &r->gh : &r->th, *o = golden ? &r->th : &r->gh;
	const struct gjudge *j = golden ? r->gj : r->tj;
	const char *dir = golden ? r->gd.dump_data_dir : r->td.dump_data_dir;
	struct strbuf gid = STRBUF_INIT, s = STRBUF_INIT, in = STRBUF_INIT, out = STRBUF_INIT;
	int ret = 0;
	graph_id(r, golden, &gid);
	for (size_t k = 0; k < r->nstacks[golden] && !ret; k++) {
		strbuf_reset(&s);
		strbuf_addf(&s, "%s_%zu", gid.buf, k);
		sqlite3_reset(db->stack);
		bind_text(db->stack, 1, s.buf, s.len);
		bind_str(db->stack, 2, r->stacks[golden][k]);
		if (sqlite3_step(db->stack) != SQLITE_DONE)
			ret = db_fail(db, "cannot write tb_stack");
	}
	for (size_t k = 0; k < h->nsorted && !ret; k++) {
		uint32_t i = h->sorted[k];
		const struct hier_node *n = &h->nodes[i];
		sqlite3_stmt *st = db->node;
		sqlite3_reset(st);
		strbuf_reset(&s);
		strbuf_addf(&s, "%s_%s", gid.buf, n->name);
		bind_text(st, 1, s.buf, s.len);
		bind_text(st, 2, gid.buf, gid.len);
		sqlite3_bind_int64(st, 3, n->order);
		bind_text(st, 4, n->name, n->name_len);
		strbuf_reset(&s);
		strbuf_addi(&s, n->op);
		bind_text(st, 5, s.buf, s.len);
		bind_str(st, 6, n->parent >= 0 ? h->nodes[n->parent].name : "");
		strbuf_reset(&s);
		if (n->nsub) {
			strbuf_addch(&s, '[');
			for (size_t c = 0; c < n->nsub; c++) {
				if (c)
					strbuf_addstr(&s, ", ");
				jsonw_str(&s, h->nodes[n->sub[c]].name);
			}
			strbuf_addch(&s, ']');
		}
		bind_text(st, 7, s.buf, s.len);
		if (j[i].precision < 0)
			sqlite3_bind_null(st, 8);
		else if (j[i].precision == 0.5)
			sqlite3_bind_double(st, 8, 0.5);
		else
			sqlite3_bind_int64(st, 8, (sqlite3_int64)j[i].precision);
		if (j[i].overflow)
			bind_str(st, 9, j[i].overflow);
		else
			sqlite3_bind_null(st, 9);
		sqlite3_bind_int64(st, 10, n->micro_step < 0 ? 0 : n->micro_step);
		strbuf_reset(&s);
		strbuf_addch(&s, '[');
		if (n->match >= 0 && r->gdump) {
			const char *chain[512];
			size_t depth = 0;
			/* the matched node's chain (the same as this one's but with -fm) */
			for (int64_t a = n->match; a >= 0 && depth < ARRAY_SIZE(chain); a = o->nodes[a].parent)
				chain[depth++] = o->nodes[a].name;
			for (size_t c = depth; c > 0; c--) {
				if (c < depth)
					strbuf_addstr(&s, ", ");
				jsonw_str(&s, chain[c - 1]);
			}
		}
		strbuf_addch(&s, ']');
		bind_text(st, 11, s.buf, s.len);
		strbuf_reset(&s);
		strbuf_addf(&s, "%s_%lld", gid.buf, (long long)j[i].stack);
		bind_text(st, 12, s.buf, s.len);
		bind_str(st, 13, "");
		bind_str(st, 14, j[i].distributed ? j[i].distributed : "{}");
		sqlite3_bind_int64(st, 15, 0);
		strbuf_reset(&in);
		strbuf_reset(&out);
		graph_node_data(r, golden, i, &in, &out);
		bind_text(st, 16, in.buf, in.len);
		bind_text(st, 17, out.buf, out.len);
		bind_str(st, 18, golden ? "Bench" : "NPU");
		if (dir) {
			strbuf_reset(&s);
			strbuf_addstr(&s, dir);
			bind_text(st, 19, s.buf, s.len);
		} else {
			sqlite3_bind_null(st, 19);
		}
		sqlite3_bind_int64(st, 20, r->db_step);
		sqlite3_bind_int64(st, 21, r->db_rank);
		sqlite3_bind_int64(st, 22, !strncmp(n->name, "Distributed", 11));
		if (sqlite3_step(st) != SQLITE_DONE)
			ret = db_fail(db, "cannot write tb_nodes");
	}
	(void)g;
	strbuf_release(&gid);
	strbuf_release(&s);
	strbuf_release(&in);
	strbuf_release(&out);
	return ret;
}

static void int_list(struct strbuf *out, const int64_t *v, size_t n)
{
	strbuf_addch(out, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_addstr(out, ", ");
		strbuf_addi(out, v[i]);
	}
	strbuf_addch(out, ']');
}

static size_t distinct(int64_t *v, size_t n)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < m && v[k] != v[i])
			k++;
		if (k == m)
			v[m++] = v[i];
	}
	for (size_t i = 1; i < m; i++) /* sorted */
		for (size_t k = i; k > 0 && v[k - 1] > v[k]; k--) {
			int64_t t = v[k];
			v[k] = v[k - 1];
			v[k - 1] = t;
		}
	return m;
}

static int insert_config(struct db *db, const struct graph_set *g)
{
	sqlite3_stmt *st;
	struct strbuf colors = STRBUF_INIT, ranks = STRBUF_INIT, steps = STRBUF_INIT;
	int64_t *rv = xcalloc(g->n + 1, sizeof(*rv)), *sv = xcalloc(g->n + 1, sizeof(*sv));
	size_t micro = 1;
	int ret = 0;
	for (size_t i = 0; i < g->n; i++) {
		rv[i] = g->runs[i].db_rank;
		sv[i] = g->runs[i].db_step;
		if (g->runs[i].micro_steps > micro)
			micro = g->runs[i].micro_steps;
	}
	int_list(&ranks, rv, distinct(rv, g->n));
	int_list(&steps, sv, distinct(sv, g->n));
	if (sqlite3_prepare_v2(db->h, "INSERT INTO tb_config VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK) {
		ret = db_fail(db, "cannot write tb_config");
		goto out;
	}
	bind_str(st, 1, "1");
	bind_str(st, 2, g->two_runs ? "compare" : "build");
	bind_str(st, 3, graph_task(g));
	if (g->two_runs)
		bind_str(st, 4, g->mode == GDATA_TENSOR ? tips_tensor : g->mode == GDATA_MD5 ? tips_md5 : tips_summary);
	else
		sqlite3_bind_null(st, 4);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)micro);
	sqlite3_bind_int64(st, 6, g->overflow);
	if (g->two_runs)
		node_colors(g, &colors);
	else
		strbuf_addstr(&colors, "null");
	bind_text(st, 7, colors.buf, colors.len);
	bind_text(st, 8, ranks.buf, ranks.len);
	bind_text(st, 9, steps.buf, steps.len);
	if (sqlite3_step(st) != SQLITE_DONE)
		ret = db_fail(db, "cannot write tb_config");
	sqlite3_finalize(st);
out:
	free(rv);
	free(sv);
	strbuf_release(&colors);
	strbuf_release(&ranks);
	strbuf_release(&steps);
	return ret;
}

static int fill(struct db *db, const struct graph_set *g)
{
	char *msg = NULL;
	if (sqlite3_exec(db->h, schema, NULL, NULL, &msg) != SQLITE_OK || sqlite3_exec(db->h, "BEGIN", NULL, NULL, &msg) != SQLITE_OK) {
		msg_fail(db->err, db->path, "cannot create the tables: %s", msg ? msg : sqlite3_errmsg(db->h));
		sqlite3_free(msg);
		return PROBE_ERR;
	}
	if (sqlite3_prepare_v2(db->h, "INSERT INTO tb_nodes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			       -1, &db->node, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db->h, "INSERT INTO tb_stack VALUES (?, ?)", -1, &db->stack, NULL) != SQLITE_OK)
		return db_fail(db, "cannot prepare the inserts");
	for (size_t i = 0; i < g->n; i++) {
		if (insert_side(db, g, &g->runs[i], false) < 0)
			return PROBE_ERR;
		if (g->runs[i].gdump && insert_side(db, g, &g->runs[i], true) < 0)
			return PROBE_ERR;
	}
	if (insert_config(db, g) < 0)
		return PROBE_ERR;
	if (sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(db, "cannot commit");
	return 0;
}

int graph_write_visdb(const struct graph_set *g, const char *path, const char *ext, struct strbuf *err)
{
	struct strbuf first = STRBUF_INIT;
	struct partial *p;
	struct db db = { NULL, NULL, NULL, err, NULL };
	int fd, ret;
	strbuf_addf(&first, "%s%s", path, ext ? ext : "");
	db.path = first.buf;
	partial_init();
	if ((fd = partial_create_private(first.buf, &p, err)) < 0) {
		strbuf_release(&first);
		return PROBE_ERR;
	}
	close(fd);
	/* in a private folder of ours (partial.h); no link followed on the way */
	if (sqlite3_open_v2(partial_tmp_name(p), &db.h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW,
			    NULL) != SQLITE_OK) {
		ret = db_fail(&db, "cannot open");
	} else {
		ret = fill(&db, g);
	}
	sqlite3_finalize(db.node);
	sqlite3_finalize(db.stack);
	if (db.h && sqlite3_close(db.h) != SQLITE_OK && !ret)
		ret = db_fail(&db, "cannot close");
	strbuf_release(&first);
	if (ret < 0) {
		partial_drop(p);
		return PROBE_ERR;
	}
	ret = ext ? partial_commit_numbered(p, path, ext, NULL, err) : partial_commit(p, err);
	return ret < 0 ? PROBE_ERR : 0;
}
