# A checkpoint is also a dump: probe-flatten's records of two checkpoints go through probe-match,
# probe-metric and probe-first as two dumps do, the tensors opened inside the checkpoints
# (data_member): the perturbed weight is the first divergence, found by its elements (its
# statistics agree to the print only in some cases), in each layout; a missing parameter is a
# golden-only leaf; equal checkpoints give no divergence (exit 0).
ck() { # layout fault
	rm -rf "$1-$2"
	probe-gendump --framework checkpoint --ckpt-layout "$1" --fault "$2" "$1-$2"
	p=; [ "$1" = pt ] && p=/model.pt
	t="$1-$2/target$p" g="$1-$2/golden$p"
}
for layout in megatron pt safetensors hf; do
	ck $layout perturb
	probe-flatten "$t" | probe-match "$g" | probe-metric | probe-first > first.ndjson
	echo "$layout perturb: probe-first exit $?: $(head -1 first.ndjson | jq -r '.first_divergence.leaf')"
	head -1 first.ndjson | jq -c '.metrics.tensor | {same, elements, differ, first_diff, max_ulp}'
done
# probe-first reads the tensors itself when given pairs
ck megatron perturb
probe-flatten "$t" | probe-match "$g" | probe-first --format text | head -3
# msprobe's cells of the weight's row, from the tensors (its tensor mode: Cosine, EucDist, Result)
probe-flatten "$t" | probe-match "$g" | probe-metric |
	jq -c 'select(.key == "decoder.layers.3.mlp.linear_fc2.weight") | .msprobe | {Cosine, EucDist, result}'
probe-flatten "$t" | probe-match "$g" | probe-metric --csv | python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
print(len(rows), "rows;", [r["Cosine"] for r in rows if r["NPU Name"] == "decoder.layers.3.mlp.linear_fc2.weight"])' 
# a parameter missing in the target: golden-only, and probe-first says the comparison is incomplete or differs
ck hf missing
probe-flatten "$t" | probe-match "$g" | probe-metric | jq -r 'select(.verdict != "same") | "\(.key) \(.verdict)"'
# the same checkpoints: no divergence
ck megatron none
probe-flatten "$t" | probe-match "$g" | probe-metric | probe-first > /dev/null
echo "megatron none: probe-first exit $?"
# records of two checkpoints of two layouts: the merged Megatron parameters against the same model's state dict
ck pt none
probe-flatten megatron-none/golden | jq -r '.name' | head -3
