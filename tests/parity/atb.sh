# ATB (MindIE) dumps (../shared/fixtures/atb): msprobe's compare -m atb table, cell for cell,
# for the statistics pair (01, exec folder 0 of each side) and the tensor pair with operations
# and kernels (05); CSV byte for byte against the rendering of msprobe's workbook, and our
# --xlsx read back by a reader of our own (xlsx_render.py) equal to it with every cell a string,
# as msprobe's; then our verdict and probe-first's answer on both, with what to dump next
# (the layer's operations and kernels; the kernel's inputs to a reproduction).
set -u
n=0
D=$FIXTURES/atb/dumps
E=$FIXTURES/atb/expected
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
S_T=$D/stats_layer/target/atb_dump_data/data/0_276107/0
S_G=$D/stats_layer/golden/atb_dump_data/data/0_39943/0
T_T=$D/tensor_op_f0/target
T_G=$D/tensor_op_f0/golden
skip() { echo "ok $n - $1 # SKIP $FIXTURES is absent"; }
csv() { # label expected target golden
	n=$((n + 1))
	[ -f "$2" ] || { skip "$1"; return; }
	if ! { probe-flatten "$3" | probe-match "$4" | probe-metric --csv > "$tmp/ours.csv"; } 2> "$tmp/err"; then
		echo "not ok $n - $1: the pipeline failed"
		sed 's/^/# /' "$tmp/err"
	elif cmp -s "$2" "$tmp/ours.csv"; then
		echo "ok $n - $1: CSV equals msprobe's workbook cell for cell ($(($(wc -l < "$2") - 1)) rows)"
	else
		echo "not ok $n - $1: the CSV differs from msprobe's"
		diff "$2" "$tmp/ours.csv" | head -n 10 | sed 's/^/# /'
	fi
}
book() { # label expected-dir target golden mode
	n=$((n + 1))
	X=$(ls "$2"/csv/*.csv 2> /dev/null)
	[ -f "$X" ] || { skip "$1"; return; }
	rm -rf "$tmp/o" "$tmp/book"
	if ! { probe-flatten "$3" | probe-match "$4" | probe-metric -o "$tmp/o" --xlsx; } 2> "$tmp/err"; then
		echo "not ok $n - $1: the pipeline failed"
		sed 's/^/# /' "$tmp/err"
		return
	fi
	f=$(ls "$tmp"/o/atb_"$5"_compare_result_[0-9]*.xlsx 2> /dev/null)
	if [ ! -f "$f" ] || ! python3 "$(dirname "$0")/xlsx_render.py" "$f" "$tmp/book" 2> "$tmp/err"; then
		echo "not ok $n - $1: no readable atb_$5_compare_result_<time>.xlsx in -o's directory"
		ls "$tmp/o" | sed 's/^/# /'
		return
	fi
	stem=$(basename "$f" .xlsx)
	if ! cmp -s "$X" "$tmp/book/${stem}__Sheet1.csv"; then
		echo "not ok $n - $1: the workbook's cells differ from msprobe's"
		diff "$X" "$tmp/book/${stem}__Sheet1.csv" | head -n 6 | sed 's/^/# /'
	elif ! cmp -s "$(ls "$2"/csv/types/*.csv)" "$tmp/book/types/${stem}__Sheet1.types.csv"; then
		echo "not ok $n - $1: the cell types differ from msprobe's (every cell a string)"
	else
		echo "ok $n - $1: $(basename "$f"): sheet Sheet1, every cell msprobe's, every cell a string"
	fi
}
ours() { # label target golden expected-first-diff first-text-pattern
	n=$((n + 1))
	[ -d "$2" ] || { skip "$1"; return; }
	probe-flatten "$2" | probe-match "$3" | probe-metric > "$tmp/m.ndjson" 2> "$tmp/err"
	got=$(jq -r 'select(.verdict == "diff") | .key' "$tmp/m.ndjson" | head -n 1)
	same=$(jq -r 'select(.verdict == "same")' "$tmp/m.ndjson" | jq -s length)
	if [ "$got" != "$4" ]; then
		echo "not ok $n - $1: our first diff is [$got], expected [$4]"
		sed 's/^/# /' "$tmp/err"
	elif ! probe-first --format text < "$tmp/m.ndjson" 2>&1 | grep -q -- "$5"; then
		echo "not ok $n - $1: probe-first's report does not say [$5]"
		probe-first --format text < "$tmp/m.ndjson" 2>&1 | head -n 8 | sed 's/^/# /'
	else
		echo "ok $n - $1: first diff $got ($same pairs same), probe-first says it"
	fi
}
csv "01 statistics, layer level, exec 0" "$(ls "$E"/01_stats_layer_exec0/csv/*.csv 2> /dev/null)" "$S_T" "$S_G"
csv "01 statistics, named by statistic.csv" "$(ls "$E"/01_stats_layer_exec0/csv/*.csv 2> /dev/null)" "$S_T/statistic.csv" "$S_G/statistic.csv"
csv "05 tensor, operations and kernels, atb_dump_data roots" "$(ls "$E"/05_tensor_op_f0/csv/*.csv 2> /dev/null)" "$T_T" "$T_G"
book "01 statistics, -o DIR --xlsx" "$E/01_stats_layer_exec0" "$S_T" "$S_G" stats
book "05 tensor, -o DIR --xlsx" "$E/05_tensor_op_f0" "$T_T" "$T_G" tensor
ours "01 our verdict, layer level" "$S_T" "$S_G" "1_Prefill_layer/output.0" '"ids": "1", "save_child": true' 
ours "05 our verdict, kernel level" "$T_T" "$T_G" "1_Prefill_layer/3_ElewiseOperation/0_AddBF16Kernel/output.0" "0_AddBF16Kernel is the kernel"

# both exec folders of the statistics root: two tables under -o, one per exec folder
n=$((n + 1))
if [ -d "$S_T" ]; then
	rm -rf "$tmp/o2"
	probe-flatten "$D/stats_layer/target" | probe-match "$D/stats_layer/golden" | probe-metric -o "$tmp/o2" 2> "$tmp/err"
	c=$(ls "$tmp"/o2/0_276107/*/atb_stats_compare_result_*.csv 2> /dev/null | wc -l)
	if [ "$c" = 2 ] && cmp -s "$(ls "$E"/01_stats_layer_exec0/csv/*.csv)" "$(ls "$tmp"/o2/0_276107/0/*.csv)"; then
		echo "ok $n - two exec folders: a table each under DIR/<device_pid>/<exec>/, exec 0's msprobe's"
	else
		echo "not ok $n - two exec folders: $c tables"
		find "$tmp/o2" | sed 's/^/# /'
	fi
else
	skip "two exec folders"
fi
