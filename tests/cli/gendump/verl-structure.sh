# --framework verl-fsdp and verl-megatron write the dumps of msprobe's reference dumps of the same
# model (../shared/fixtures/verl/inputs/tensor/{infer,fsdp_train,megatron_train}/step0/rank0) with
# our own weights: the same entries in the same (post-)order, the same keys in each, the same
# leaves (type, dtype, shape, requires_grad, which statistics are numbers and which null,
# data_name), the same None leaves, Python scalars, empty lists and dicts; construct.json byte for
# byte; stack.json naming the same entries (grouped by our invented call stacks); the same
# tensor files.  Only the values differ.
V=$FIXTURES/verl/inputs/tensor
if [ ! -d "$V/infer/step0/rank0" ]; then
	echo "the verl reference dumps ($V) are absent"
	exit 77
fi
# One line per entry (ENTRY name keys) and per leaf (path, what it is), then the empty containers.
skeleton() {
	jq -r '
	def leaf: if . == null then "None"
		elif .type == "torch.Tensor" then
			"\(.dtype) \(.shape) grad=\(.requires_grad) \([.Max, .Min, .Mean, .Norm] | map(type))" +
			" \(keys_unsorted | join(",")) \(.data_name)"
		else tojson end;
	"\(keys_unsorted) \(.task) \(.level) \(.framework) \(.dump_data_dir // "" | sub(".*/step0/"; "…/step0/"))",
	(.data | to_entries[] | "ENTRY \(.key) \(.value | keys_unsorted | join(","))",
		(.value | paths(. == null or (type == "object" and has("type"))) as $p
		 | select($p[-1] | IN("Max", "Min", "Mean", "Norm") | not)
		 | "  \($p | map(tostring) | join(".")) \(getpath($p) | leaf)"),
		(.value | paths((type == "array" or type == "object") and length == 0)
		 | "  \(map(tostring) | join(".")) empty"))' "$1"
}
same() { # label ours theirs
	skeleton "$2/dump.json" > ours
	skeleton "$3/dump.json" > theirs
	if cmp -s ours theirs; then
		echo "$1: dump.json as the reference's: $(grep -c '^ENTRY' ours) entries, $(grep -c '^  ' ours) leaves"
	else
		echo "$1: dump.json differs from the reference's:"
		diff theirs ours | head -n 20
	fi
	cmp -s "$2/construct.json" "$3/construct.json" && echo "$1: construct.json byte for byte"
	stack_names() { jq -r '.[][0][]' "$1/stack.json" | sort; }
	stack_names "$2" > ours
	stack_names "$3" > theirs
	cmp -s ours theirs && echo "$1: stack.json names the same $(wc -l < ours) entries, in $(jq length "$2/stack.json") groups"
	ls "$2/dump_tensor_data" > ours
	ls "$3/dump_tensor_data" > theirs
	cmp -s ours theirs && echo "$1: the same $(wc -l < ours) tensor files"
}
probe-gendump --framework verl-fsdp --mode tensor fsdp
probe-gendump --framework verl-megatron --mode tensor megatron
same "vLLM inference (golden)" fsdp/golden/step0/rank0 "$V/infer/step0/rank0"
same "FSDP training (target)" fsdp/target/step0/rank0 "$V/fsdp_train/step0/rank0"
same "Megatron training (target)" megatron/target/step0/rank0 "$V/megatron_train/step0/rank0"
# the inference dump does not depend on the training side it is checked against
for f in dump.json stack.json construct.json; do
	jq 'del(.dump_data_dir)' fsdp/golden/step0/rank0/$f > a.json
	jq 'del(.dump_data_dir)' megatron/golden/step0/rank0/$f > b.json
	cmp -s a.json b.json && echo "golden $f: the same with verl-fsdp and verl-megatron"
done
# statistics mode: the same dump without data_name and files, dump_data_dir null
probe-gendump --framework verl-fsdp stats
strip='del(.task, .dump_data_dir) | walk(if type == "object" then del(.data_name) else . end)'
for side in golden target; do
	jq "$strip" fsdp/$side/step0/rank0/dump.json > t.json
	jq "$strip" stats/$side/step0/rank0/dump.json > s.json
	cmp -s t.json s.json && echo "statistics $side: the tensor dump without data_name"
done
jq -c '[.task, .dump_data_dir]' stats/target/step0/rank0/dump.json
ls stats/target/step0/rank0
