# verl's training against inference compare (../shared/fixtures/verl): msprobe's CSV of
# compare --consistent_check --backend fsdp (01) and megatron (02), byte for byte, in
# single-rank and step-directory form; then our verdict: only the perturbed layer-1 down
# projection and what follows it differ, what the frameworks compute differently is
# "structural", and probe-first names the down projection as the cause.
set -u
n=0
V=$FIXTURES/verl/inputs/tensor
E=$FIXTURES/verl/expected
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
csv() { # label expected backend train infer
	n=$((n + 1))
	if [ ! -f "$2" ]; then
		echo "ok $n - $1 # SKIP $FIXTURES is absent"
		return
	fi
	if ! { probe-flatten "$4" | probe-match --consistency "$3" "$5" | probe-metric --csv > "$tmp/ours.csv"; } 2> "$tmp/err"; then
		echo "not ok $n - $1: the pipeline failed"
		sed 's/^/# /' "$tmp/err"
	elif cmp -s "$2" "$tmp/ours.csv"; then
		echo "ok $n - $1: CSV equals msprobe's byte for byte ($(($(wc -l < "$2") - 1)) rows)"
	else
		echo "not ok $n - $1: the CSV differs from msprobe's"
		diff "$2" "$tmp/ours.csv" | head -n 10 | sed 's/^/# /'
	fi
}
ours() { # label backend expected-diff-keys
	n=$((n + 1))
	if [ ! -d "$V/infer" ]; then
		echo "ok $n - $1 # SKIP $FIXTURES is absent"
		return
	fi
	probe-flatten "$V/${2}_train/step0/rank0" | probe-match --consistency "$2" "$V/infer/step0/rank0" |
		probe-metric > "$tmp/m.ndjson" 2> "$tmp/err"
	got=$(jq -r 'select(.verdict == "diff") | .key' "$tmp/m.ndjson" | tr '\n' ' ')
	structural=$(jq -r 'select(.verdict == "structural") | .key' "$tmp/m.ndjson" | wc -l)
	if [ "$got" != "$3" ]; then
		echo "not ok $n - $1: our diffs are [$got], expected [$3]"
		sed 's/^/# /' "$tmp/err"
	elif [ "$structural" -lt 8 ]; then
		echo "not ok $n - $1: only $structural rows called structural"
	elif ! probe-first --format text < "$tmp/m.ndjson" 2>&1 | grep -q "layers.1.*\(down_proj\|linear_fc2\).*output.0"; then
		echo "not ok $n - $1: probe-first does not name the layer-1 down projection"
		probe-first --format text < "$tmp/m.ndjson" 2>&1 | head -n 5 | sed 's/^/# /'
	else
		echo "ok $n - $1: diffs [$got], $structural structural rows, probe-first names the down projection"
	fi
}
csv "01 fsdp, one rank" "$(ls "$E"/01_fsdp_tensor/*.csv 2> /dev/null)" fsdp "$V/fsdp_train/step0/rank0" "$V/infer/step0/rank0"
csv "01 fsdp, step directories" "$(ls "$E"/01_fsdp_tensor/*.csv 2> /dev/null)" fsdp "$V/fsdp_train/step0" "$V/infer/step0"
csv "02 megatron, one rank" "$(ls "$E"/02_megatron_tensor/*.csv 2> /dev/null)" megatron "$V/megatron_train/step0/rank0" "$V/infer/step0/rank0"
ours "01 fsdp, our verdict" fsdp "1:down_proj:forward.0.output.0 1:mlp:forward.0.output.0 -1:norm:forward.0.output.0 "
ours "02 megatron, our verdict" megatron "1:down_proj:forward.0.output.0 1:mlp:forward.0.output.0 "
