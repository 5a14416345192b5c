# msprobe's CSV across frameworks and within MindSpore (../shared/fixtures/crossfw):
# 02_nomap, a MindSpore target against a PyTorch golden without a mapping (the
# cross-framework dtype table of the gate: Int32 against torch.int64 matched, its
# Result msprobe's error for the dtype and requires_grad names), and 13, a
# MindSpore dump with one Cell's output doubled against the original; and 03, 02 with
# msprobe's -am (the built-in MindSpore -> PyTorch API table: Mint.cos.0 pairs with
# Torch.cos.0); 06, 02 with msprobe's -lm and the data mapping it derived; byte for byte.
set -u
n=0
C=$FIXTURES/crossfw
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() { # label expected-csv target golden [--partial]
	n=$((n + 1))
	if [ ! -f "$2" ]; then
		echo "ok $n - $1 # SKIP $FIXTURES is absent"
		return
	fi
	match_opts=$5
	metric_opts=; case $5 in *--partial*) metric_opts=--partial ;; esac
	if ! { probe-flatten "$3" | probe-match $match_opts "$4" | probe-metric $metric_opts --csv > "$tmp/ours.csv"; } 2> "$tmp/err"; then
		echo "not ok $n - $1: the pipeline failed"
		sed 's/^/# /' "$tmp/err"
	elif cmp -s "$2" "$tmp/ours.csv"; then
		echo "ok $n - $1: CSV equals msprobe's byte for byte ($(($(wc -l < "$2") - 1)) rows, $(grep -c ',error,' "$2") error)"
	else
		echo "not ok $n - $1: the CSV differs from msprobe's"
		diff "$2" "$tmp/ours.csv" | head -n 10 | sed 's/^/# /'
	fi
}
# msprobe compares what it can; 8 of 44 matched is a partial comparison to probe
check "02 MindSpore against PyTorch, no mapping" "$(ls "$C"/expected/02_nomap/*.csv 2> /dev/null)" \
	"$C/sample/mindspore_data" "$C/sample/pytorch_data" --partial
check "13 MindSpore against MindSpore, one Cell's output doubled" "$(ls "$C"/expected/13_ms_vs_ms_emb_x2/*.csv 2> /dev/null)" \
	"$C/ms_perturbed_x2" "$C/sample/mindspore_data" ""
check "03 MindSpore against PyTorch, --api-mapping (msprobe -am, its built-in table)" \
	"$(ls "$C"/expected/03_am_builtin/*.csv 2> /dev/null)" "$C/sample/mindspore_data" "$C/sample/pytorch_data" \
	"--partial --api-mapping"
check "06 MindSpore against PyTorch, --layer-mapping (msprobe -lm sample/layer_mapping.yaml)" \
	"$(ls "$C"/expected/06_lm_sample/*.csv 2> /dev/null)" "$C/sample/mindspore_data" "$C/sample/pytorch_data" \
	"--layer-mapping=$C/sample/layer_mapping.yaml"
# and the data mapping -lm derived, as msprobe wrote it
n=$((n + 1))
want=$(ls "$C"/expected/06_lm_sample/data_mapping_*.yaml 2> /dev/null)
if [ -z "$want" ]; then
	echo "ok $n - 06's derived data mapping # SKIP $FIXTURES is absent"
elif mkdir "$tmp/lm" && probe-flatten "$C/sample/mindspore_data" |
	probe-match --layer-mapping="$C/sample/layer_mapping.yaml" --save-mapping "$tmp/lm" "$C/sample/pytorch_data" \
		> /dev/null 2> "$tmp/err" && cmp -s "$want" "$tmp"/lm/data_mapping_*.yaml; then
	echo "ok $n - 06's derived data mapping equals msprobe's byte for byte ($(wc -l < "$want") leaves)"
else
	echo "not ok $n - 06's derived data mapping differs from msprobe's"
	diff "$want" "$tmp"/lm/data_mapping_*.yaml 2>&1 | head -n 10 | sed 's/^/# /'
	sed 's/^/# /' "$tmp/err"
fi
# our verdict across frameworks, on 02's pairs: what differs only by framework is no
# difference (BFloat16 against torch.bfloat16, mindspore.Tensor against torch.Tensor, no
# requires_grad on the MindSpore side); Int32 against torch.int64 is one
n=$((n + 1))
if [ ! -d "$C/sample" ]; then
	echo "ok $n - our verdict across frameworks # SKIP $FIXTURES is absent"
elif probe-flatten "$C/sample/mindspore_data" | probe-match --partial "$C/sample/pytorch_data" 2> /dev/null |
	probe-metric --partial > "$tmp/m.ndjson" 2> "$tmp/err"; then
	got=$(jq -r 'select(.t != null and .g != null) | "\(.t.name) \(.verdict) \(.msprobe.result)"' "$tmp/m.ndjson" | sort)
	want_same="Distributed.all_reduce.0.forward.input.0 same error
Distributed.all_reduce.0.forward.output.0 same error
Tensor.__add__.1.forward.input.0 same error
Tensor.__add__.1.forward.output.0 same error"
	if [ "$(echo "$got" | grep ' same error$')" = "$want_same" ] &&
		echo "$got" | grep -q '^Tensor.__add__.0.forward.input.0 diff error$' &&
		jq -r 'select(.t.name == "Tensor.__add__.0.forward.input.0") | .reason' "$tmp/m.ndjson" |
			grep -qF 'dtype "Int32" vs "torch.int64"' &&
		! jq -r '.reason // ""' "$tmp/m.ndjson" | grep -Eq 'requires_grad|"BFloat16" vs|mindspore.Tensor" vs "torch'; then
		echo "ok $n - our verdict across frameworks: 4 pairs msprobe calls errors for their names are the same; Int32 against torch.int64 differs"
	else
		echo "not ok $n - our verdict across frameworks"
		echo "$got" | sed 's/^/# /'
	fi
else
	echo "not ok $n - our verdict across frameworks: the pipeline failed"
	sed 's/^/# /' "$tmp/err"
fi
