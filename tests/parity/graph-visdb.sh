# probe-graph's vis.db is msprobe's, for both reference cases of
# ../shared/fixtures/graph: every table, row and cell of the canonical form
# dump_db.py prints (tables and rows sorted, JSON cells with sorted keys, the
# fixtures folder written <PREFIX>), equal to the canonical dump of msprobe's
# own file.
set -u
n=0
G=$FIXTURES/graph
tmp=$(mktemp -d)
check() { # label canonical target-dir golden-dir
	n=$((n + 1))
	if [ ! -f "$2" ] || [ ! -d "$3" ] || [ ! -d "$4" ]; then
		echo "ok $n - $1: vis.db as msprobe's # SKIP $FIXTURES is absent"
		return
	fi
	rm -f "$tmp/g.vis.db"
	if ! { probe-flatten "$3" | probe-match "$4" | probe-metric | probe-stack | probe-graph --output-file "$tmp/g.vis.db"; } 2> "$tmp/err"; then
		echo "not ok $n - $1: the pipeline failed"
		sed 's/^/# /' "$tmp/err"
		return
	fi
	python3 "$G/dump_db.py" "$tmp/g.vis.db" --strip-prefix "$(cd "$FIXTURES" && pwd)" > "$tmp/ours" 2> "$tmp/err"
	gzip -dc "$2" > "$tmp/theirs"
	if cmp -s "$tmp/theirs" "$tmp/ours"; then
		echo "ok $n - $1: $(grep -c '^\[tb_nodes\]' "$tmp/ours") nodes, $(grep -c '^\[tb_stack\]' "$tmp/ours") stacks, every cell as msprobe's vis.db"
	else
		echo "not ok $n - $1: the vis.db differs from msprobe's ($(diff "$tmp/theirs" "$tmp/ours" | grep -c '^[<>]') lines)"
		diff "$tmp/theirs" "$tmp/ours" | head -n 20 | sed 's/^/# /'
	fi
}
E=$FIXTURES/msprobe-example
M=$FIXTURES/mlp-tensor-mix
check "msprobe-example step1 vs step0" "$G/b_compare_step1_vs_step0/canonical.txt.gz" "$E/step1/proc2016" "$E/step0/proc2016"
check "mlp-tensor-mix" "$G/c1_compare_mlp_tensor/canonical.txt.gz" "$M/target/step0/rank0" "$M/golden/step0/rank0"
rm -rf "$tmp"
