# Like for like on msprobe's real dumps (issue: no confident wrong answer on
# mismatched input).  Each case as a new user meets it, and what must hold.
set -u
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "#   $l"; done; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $FIXTURES is absent"; }
expect() { # label got want
	if [ "$2" = "$3" ]; then ok "$1"; else notok "$1" "got:  $2" "want: $3"; fi
}
F=$FIXTURES
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -d "$F/mlp-md5-mix" ] || [ ! -d "$F/msprobe-example" ] || [ ! -d "$F/mlp-tensor-mix" ]; then
	for c in "two models" "two models, the same judgement" "two models, no phantom rank" "tasks" \
		"tasks, probe-metric" "tasks, --csv" "tensors gone" "tensors gone, probe.mk" "roles" "step1 vs step0"; do
		skip "$c"
	done
	exit 0
fi

# 1. two different models: the MLP against ResNet-50
probe-flatten "$F/mlp-md5-mix/target" | probe-match "$F/msprobe-example/step0" > /dev/null 2> "$tmp/err"
expect "two models: probe-match stops, with the numbers" "$? $(head -1 "$tmp/err" | cut -c1-85)" \
	"2 probe-match: rank 0, step 0: only 20 of 62 target leaves (32 %) have a golden partner"
probe-flatten "$F/mlp-md5-mix/target" | probe-match --partial "$F/msprobe-example/step0" 2> /dev/null |
	sed 's/,"partial":true//' > "$tmp/pairs"
got=
for tool in probe-metric probe-first; do
	$tool < "$tmp/pairs" > /dev/null 2>&1
	got="$got $?"
done
expect "two models, the same judgement from probe-metric and probe-first" "$got" " 2 2"
got=$(probe-first --partial < "$tmp/pairs" 2> /dev/null | tail -1 | jq -c '.summary.ranks | map(.rank)')
expect "two models, accepted as partial: no phantom rank for the golden-only leaves" "$got" "[0]"

# 2. a tensor dump against an md5 dump of the same run: the weight, not leaf 0
got=$(probe-flatten "$F/mlp-tensor-mix/target" | probe-match "$F/mlp-md5-mix/golden" | probe-first |
	head -1 | jq -r '.first_divergence | "\(.leaf) \(.role)"')
expect "tasks: tensor against md5 finds the fc2 weight" "$got" "Functional.linear.1.forward.input.1 cause"
got=$(probe-flatten "$F/mlp-tensor-mix/target" | probe-match "$F/mlp-md5-mix/golden" | probe-metric |
	jq -r 'select(.verdict == "diff") | .t.name' | head -1)
expect "tasks, probe-metric: the same first leaf differs" "$got" "Functional.linear.1.forward.input.1"
probe-flatten "$F/mlp-tensor-mix/target" | probe-match "$F/mlp-md5-mix/golden" | probe-metric --csv > "$tmp/csv" 2> /dev/null
expect "tasks, --csv: msprobe writes none, nor does probe" "$? $(wc -c < "$tmp/csv")" "2 0"

# 3. the tensors are not there: incomplete, never a pass
cp -r "$F/mlp-tensor-mix/golden" "$tmp/gone"
rm -r "$tmp/gone/step0/rank0/dump_tensor_data"
probe-flatten "$tmp/gone" 2> "$tmp/err" | probe-match "$tmp/gone" 2> /dev/null | probe-first --format text > "$tmp/out"
status=$?
expect "tensors gone: incomplete, status 3, one warning up front" \
	"$status $(head -1 "$tmp/out") $(grep -c 'no such directory' "$tmp/err")" \
	"3 incomplete: 4 of 62 pairs compared, and no divergence in them 1"
printf 'include %s/share/probe.mk\nPROBE_TARGET = %s\nPROBE_GOLDEN = %s\nPROBE_STACKS = no\n' \
	"$TESTS/.." "$tmp/gone" "$tmp/gone" > "$tmp/Makefile"
make -s -C "$tmp" probe-check > /dev/null 2>&1
expect "tensors gone, probe.mk: make probe-check fails" "$?" "2"

# 5. roles: the weight that caused it all is not "propagated"
got=$(probe-flatten "$F/mlp-tensor-mix/target" | probe-match "$F/mlp-tensor-mix/golden" | probe-first -n 3 |
	jq -r '.first_divergence | select(.) | "\(.n) \(.role)"' | tr '\n' ' ')
expect "roles: #3, the fc2 weight as a parameter, is the same tensor as #1" "$got" "1 cause 2 propagated 3 same_tensor "

# the opposite: msprobe's example, step1 against step0, one rank, names that match but for the call index
got=$(probe-flatten "$F/msprobe-example/step1" | probe-match "$F/msprobe-example/step0" | probe-first --format text |
	grep -c 'differs from one on the other side only by the call index')
expect "step1 vs step0: the 161 unmatched explained (--fuzzy pairs them)" "$got" "2"
echo "1..$n"
