# probe-flatten T | probe-match G | probe-metric --csv reproduces msprobe's own
# compare_result CSV for the real fixtures, byte for byte.
set -u
n=0
check() { # name target golden expected
	n=$((n + 1))
	if [ ! -f "$FIXTURES/$4" ]; then
		echo "ok $n - $1: CSV equals msprobe's # SKIP $FIXTURES is absent"
		return
	fi
	out=$(mktemp)
	probe-flatten "$FIXTURES/$2" | probe-match "$FIXTURES/$3" | probe-metric --csv > "$out"
	if cmp -s "$out" "$FIXTURES/$4"; then
		echo "ok $n - $1: CSV equals msprobe's byte for byte ($(($(wc -l < "$out") - 1)) rows)"
	else
		echo "not ok $n - $1: CSV differs from msprobe's"
		diff "$FIXTURES/$4" "$out" | head -6 | cut -c1-300 | sed 's/^/#   /'
	fi
	rm -f "$out"
}
check msprobe-example msprobe-example/step1 msprobe-example/step0 msprobe-example/expected/compare_step1_vs_step0.csv
check mlp-md5-mix mlp-md5-mix/target mlp-md5-mix/golden mlp-md5-mix/expected/compare_target_vs_golden.csv
check mlp-tensor-mix mlp-tensor-mix/target mlp-tensor-mix/golden mlp-tensor-mix/expected/compare_target_vs_golden.csv
