# msprobe's node hierarchy and matching (lib/graph/hier.c, printed by the unit
# test program test_graph --print-pair) are the ones msprobe's own vis.db
# holds, for both graphs of both reference cases of ../shared/fixtures/graph:
# every node's node_order, node_name, node_type, up_node, sub_nodes,
# micro_step_id and matched_node_link (read here from dump_db.py's canonical
# dump with python).
set -u
n=0
G=$FIXTURES/graph
test_graph=$(dirname "$(command -v probe-flatten)")/../tests/test_graph
check() { # label canonical target-dir golden-dir
	n=$((n + 1))
	if [ ! -f "$2" ] || [ ! -d "$3" ] || [ ! -d "$4" ]; then
		echo "ok $n - $1: hierarchy and matching # SKIP $FIXTURES is absent"
		return
	fi
	"$test_graph" --print-pair "$3/construct.json" "$3/dump.json" "$4/construct.json" "$4/dump.json" \
		> "$tmp/ours" 2> "$tmp/err"
	python3 - "$2" > "$tmp/theirs" 2> "$tmp/counts" <<'PY'
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
counts = []
for source in ("NPU", "Bench"):
    mine = sorted((r for r in rows if r.get("data_source") == source), key=lambda r: r["node_order"])
    counts.append("%d %s nodes (%d unmatched)" % (len(mine), source, sum(1 for r in mine if not r["matched_node_link"])))
    for r in mine:
        sub = ",".join(r["sub_nodes"]) if r["sub_nodes"] else ""
        print("%d\t%s\t%s\t%s\t%s\t%d\t%s" % (r["node_order"], r["node_name"], r["node_type"], r["up_node"], sub,
                                           r["micro_step_id"], ",".join(r["matched_node_link"])))
print(", ".join(counts), file=sys.stderr)
PY
	if [ -s "$tmp/theirs" ] && cmp -s "$tmp/ours" "$tmp/theirs"; then
		echo "ok $n - $1: $(cat "$tmp/counts"): order, name, type, parent, children, micro step and match as msprobe's"
	else
		echo "not ok $n - $1: the hierarchy or the matching differs from msprobe's"
		sed 's/^/# /' "$tmp/err"
		diff "$tmp/theirs" "$tmp/ours" | head -20 | sed 's/^/# /'
	fi
}
tmp=$(mktemp -d)
E=$FIXTURES/msprobe-example
M=$FIXTURES/mlp-tensor-mix
check "msprobe-example step1 vs step0" "$G/b_compare_step1_vs_step0/canonical.txt.gz" "$E/step1/proc2016" "$E/step0/proc2016"
check "mlp-tensor-mix" "$G/c1_compare_mlp_tensor/canonical.txt.gz" "$M/target/step0/rank0" "$M/golden/step0/rank0"
rm -rf "$tmp"
