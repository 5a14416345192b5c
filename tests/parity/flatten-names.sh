# probe-flatten names every leaf as msprobe's compare does: the "name" values, in
# order, are the NPU Name column of msprobe's own CSV for each fixture.
# The fixtures live in ../shared/fixtures and are never copied into the project.
set -u
n=0
check() { # fixture target-dump-operand expected-csv
	n=$((n + 1))
	if [ ! -f "$FIXTURES/$3" ]; then
		echo "ok $n - $1: names equal msprobe's NPU Name column # SKIP $FIXTURES is absent"
		return
	fi
	got=$(mktemp) want=$(mktemp)
	probe-flatten -q "$FIXTURES/$2" | jq -r .name > "$got"
	# the names contain no comma or quote, so the first CSV field is the whole name
	tail -n +2 "$FIXTURES/$3" | cut -d, -f1 > "$want"
	if cmp -s "$got" "$want"; then
		echo "ok $n - $1: $(wc -l < "$want") names equal msprobe's NPU Name column, in order"
	else
		echo "not ok $n - $1: names differ from msprobe's NPU Name column"
		diff "$want" "$got" | head -10 | sed 's/^/#   /'
	fi
	rm -f "$got" "$want"
}
check msprobe-example msprobe-example/step1 msprobe-example/expected/compare_step1_vs_step0.csv
check mlp-tensor-mix mlp-tensor-mix/target mlp-tensor-mix/expected/compare_target_vs_golden.csv
check mlp-md5-mix mlp-md5-mix/target mlp-md5-mix/expected/compare_target_vs_golden.csv

# The compare keys pair the rows msprobe paired: for every row whose Bench Name is not
# N/A, the key of the target leaf equals the key of the golden leaf of that name.
n=$((n + 1))
csv=$FIXTURES/msprobe-example/expected/compare_step1_vs_step0.csv
if [ ! -f "$csv" ]; then
	echo "ok $n - msprobe-example: keys pair what msprobe paired # SKIP $FIXTURES is absent"
	exit 0
fi
t=$(mktemp) g=$(mktemp) pairs=$(mktemp)
probe-flatten -q "$FIXTURES/msprobe-example/step1" | jq -r '[.name, .key] | @tsv' > "$t"
probe-flatten -q "$FIXTURES/msprobe-example/step0" | jq -r '[.name, .key] | @tsv' > "$g"
tail -n +2 "$csv" | cut -d, -f1,2 | awk -F, '$2 != "N/A"' > "$pairs"
bad=$(awk -F'\t' 'FILENAME == ARGV[1] { tk[$1] = $2; next }
	FILENAME == ARGV[2] { gk[$1] = $2; next }
	{ split($0, p, ","); if (tk[p[1]] == "" || tk[p[1]] != gk[p[2]]) bad++ }
	END { print bad + 0 }' "$t" "$g" "$pairs")
total=$(wc -l < "$pairs")
if [ "$bad" = 0 ] && [ "$total" -gt 0 ]; then
	echo "ok $n - msprobe-example: the keys of all $total pairs msprobe made are equal"
else
	echo "not ok $n - msprobe-example: $bad of $total msprobe pairs have different keys"
fi
rm -f "$t" "$g" "$pairs"
