# msprobe's node hierarchy, matching and stacks (lib/graph/hier.c, printed by
# the unit test program test_graph --print-pair) are the ones msprobe's own
# vis.db holds, for both graphs of both reference cases of
# ../shared/fixtures/graph: every node's node_order, node_name, node_type,
# up_node, sub_nodes, micro_step_id, matched_node_link and stack_id, and the
# stack_info of tb_stack (read here from dump_db.py's canonical dump with
# python; stacks compared as the lists they are).
set -u
n=0
G=$FIXTURES/graph
test_graph=$(dirname "$(command -v probe-flatten)")/../tests/test_graph
check() { # label canonical target-dir golden-dir
	n=$((n + 1))
	if [ ! -f "$2" ] || [ ! -d "$3" ] || [ ! -d "$4" ]; then
		echo "ok $n - $1: hierarchy, matching and stacks # SKIP $FIXTURES is absent"
		return
	fi
	if ! "$test_graph" --print-pair "$3" "$4" > "$tmp/ours" 2> "$tmp/err"; then
		echo "not ok $n - $1: test_graph failed"
		sed 's/^/# /' "$tmp/err"
		return
	fi
	if python3 - "$2" "$tmp/ours" > "$tmp/out" 2>&1 <<'PY'
import gzip, json, sys
tables, row = {}, None
for line in gzip.open(sys.argv[1], "rt", encoding="utf-8"):
    line = line.rstrip("\n")
    if line.startswith("[tb_") and line.endswith("]"):
        row = {}
        tables.setdefault(line[1:-1], []).append(row)
    elif line.startswith("[") or line.startswith("#"):
        row = None
    elif row is not None and line.startswith("  ") and " = " in line:
        k, v = line[2:].split(" = ", 1)
        row[k] = json.loads(v[5:]) if v.startswith("json:") else json.loads(v)
stacks = {r["id"]: r["stack_info"] for r in tables["tb_stack"]}
theirs, counts = [], []
for source in ("NPU", "Bench"):
    mine = sorted((r for r in tables["tb_nodes"] if r["data_source"] == source), key=lambda r: r["node_order"])
    counts.append("%d %s nodes (%d unmatched)" % (len(mine), source, sum(1 for r in mine if not r["matched_node_link"])))
    for r in mine:
        theirs.append([str(r["node_order"]), r["node_name"], r["node_type"], r["up_node"],
                       ",".join(r["sub_nodes"]) if r["sub_nodes"] else "", str(r["micro_step_id"]),
                       ",".join(r["matched_node_link"]), r["stack_id"].rsplit("_", 1)[1], stacks[r["stack_id"]]])
ours = []
for line in open(sys.argv[2], encoding="utf-8"):
    f = line.rstrip("\n").split("\t")
    ours.append(f[:8] + [json.loads(f[8])])
bad = [(t, o) for t, o in zip(theirs, ours) if t != o]
if len(theirs) != len(ours) or bad:
    print("%d rows of msprobe's, %d of ours; %d differ" % (len(theirs), len(ours), len(bad)))
    for t, o in bad[:3]:
        print("msprobe: %s\nours:    %s" % (t, o))
    sys.exit(1)
print(", ".join(counts) + ", %d stacks" % len(stacks))
PY
	then
		echo "ok $n - $1: $(cat "$tmp/out"): order, name, type, parent, children, micro step, match and stack as msprobe's"
	else
		echo "not ok $n - $1: the hierarchy, matching or stacks differ from msprobe's"
		sed 's/^/# /' "$tmp/out"
	fi
}
tmp=$(mktemp -d)
E=$FIXTURES/msprobe-example
M=$FIXTURES/mlp-tensor-mix
check "msprobe-example step1 vs step0" "$G/b_compare_step1_vs_step0/canonical.txt.gz" "$E/step1/proc2016" "$E/step0/proc2016"
check "mlp-tensor-mix" "$G/c1_compare_mlp_tensor/canonical.txt.gz" "$M/target/step0/rank0" "$M/golden/step0/rank0"
rm -rf "$tmp"
