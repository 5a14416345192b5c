# msprobe's node hierarchy (lib/graph/hier.c, printed by the unit test program
# test_graph --print) is the one msprobe's own vis.db holds, for both graphs of
# both reference cases of ../shared/fixtures/graph: every node's node_order,
# node_name, node_type, up_node and sub_nodes (read here from dump_db.py's
# canonical dump with python).
set -u
n=0
G=$FIXTURES/graph
test_graph=$(dirname "$(command -v probe-flatten)")/../tests/test_graph
check() { # label canonical data_source construct-dir
	n=$((n + 1))
	if [ ! -f "$2" ] || [ ! -d "$4" ]; then
		echo "ok $n - $1: hierarchy # SKIP $FIXTURES is absent"
		return
	fi
	"$test_graph" --print "$4/construct.json" "$4/dump.json" > "$tmp/ours" 2> "$tmp/err"
	python3 - "$2" "$3" > "$tmp/theirs" <<'PY'
import gzip, json, sys
rows, row = [], None
for line in gzip.open(sys.argv[1], "rt", encoding="utf-8"):
    line = line.rstrip("\n")
    if line == "[tb_nodes]":
        row = {}
        rows.append(row)
    elif line.startswith("[") or line.startswith("#"):
        row = None
    elif row is not None and line.startswith("  ") and " = " in line:
        k, v = line[2:].split(" = ", 1)
        row[k] = json.loads(v[5:]) if v.startswith("json:") else json.loads(v)
rows = sorted((r for r in rows if r.get("data_source") == sys.argv[2]), key=lambda r: r["node_order"])
for r in rows:
    sub = ",".join(r["sub_nodes"]) if r["sub_nodes"] else ""
    print("%d\t%s\t%s\t%s\t%s" % (r["node_order"], r["node_name"], r["node_type"], r["up_node"], sub))
PY
	if [ -s "$tmp/theirs" ] && cmp -s "$tmp/ours" "$tmp/theirs"; then
		echo "ok $n - $1: all $(wc -l < "$tmp/theirs") nodes: order, name, type, parent and children as msprobe's"
	else
		echo "not ok $n - $1: the hierarchy differs from msprobe's"
		cat "$tmp/err" | sed 's/^/# /'
		diff "$tmp/theirs" "$tmp/ours" | head -20 | sed 's/^/# /'
	fi
}
tmp=$(mktemp -d)
E=$FIXTURES/msprobe-example
M=$FIXTURES/mlp-tensor-mix
check "msprobe-example step1 (NPU)" "$G/b_compare_step1_vs_step0/canonical.txt.gz" NPU "$E/step1/proc2016"
check "msprobe-example step0 (Bench)" "$G/b_compare_step1_vs_step0/canonical.txt.gz" Bench "$E/step0/proc2016"
check "mlp-tensor-mix target (NPU)" "$G/c1_compare_mlp_tensor/canonical.txt.gz" NPU "$M/target/step0/rank0"
check "mlp-tensor-mix golden (Bench)" "$G/c1_compare_mlp_tensor/canonical.txt.gz" Bench "$M/golden/step0/rank0"
rm -rf "$tmp"
