# On msprobe's real MLP dumps, where fc2.weight was scaled by 1.01 in the
# target (a change msprobe passes on every row), probe-first names the fc2
# weight going into Functional.linear.1.forward as the cause: from the
# tensors, from the statistics alone, and from the md5 dump.
set -u
n=0
check() { # label fixture extra-stage
	n=$((n + 1))
	if [ ! -d "$FIXTURES/$2" ]; then
		echo "ok $n - $1: first divergence # SKIP $FIXTURES is absent"
		return
	fi
	got=$(probe-flatten "$FIXTURES/$2/target" | probe-match "$FIXTURES/$2/golden" | sh -c "$3" |
		jq -r 'select(.first_divergence) | .first_divergence | "\(.entry) \(.leaf) \(.role)"')
	want="Functional.linear.1.forward Functional.linear.1.forward.input.1 cause"
	if [ "$got" = "$want" ]; then
		echo "ok $n - $1: the fc2 weight into Functional.linear.1.forward, the cause"
	else
		echo "not ok $n - $1: first divergence"
		echo "#   got:  $got"
		echo "#   want: $want"
	fi
}
check "mlp-tensor-mix, tensors" mlp-tensor-mix "probe-first"
check "mlp-tensor-mix, statistics" mlp-tensor-mix "probe-metric --mode statistics | probe-first"
check "mlp-tensor-mix, metric records" mlp-tensor-mix "probe-metric | probe-first"
check "mlp-md5-mix" mlp-md5-mix "probe-first"
