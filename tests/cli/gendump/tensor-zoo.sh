# --zoo: Tensor.zoo_<case>.0.forward entries after the training ones, on both sides (the cases are
# listed in lib/testdata/gendump.h with what msprobe should report for them).  jq shows dump.json's NaN as null
# and its infinities as +-1.797e308.
probe-gendump --mode tensor --zoo run
for side in target golden; do
	echo "== $side"
	d=run/$side/step0/rank0
	jq -r '.data | to_entries[] | select(.key | startswith("Tensor.zoo_")) | .value.output[0] |
		[.data_name, .dtype, (.shape | tostring), .Max, .Min, .Mean, .Norm] | map(tostring) | join(" ")' $d/dump.json |
	while read -r name rest; do
		f=$d/dump_tensor_data/$name
		if [ "$name" = -1 ]; then size="no file"; elif [ -f "$f" ]; then size="$(wc -c < "$f") bytes"; else size="missing"; fi
		echo "${name#Tensor.zoo_} $rest: $size"
	done
done
# the input of every zoo entry is the same on both sides
jq -c '[.data | to_entries[] | select(.key | startswith("Tensor.zoo_")) | .value.input_args[0] | del(.data_name)] | unique' \
	run/target/step0/rank0/dump.json
# the zoo entries are in construct.json (no parent) and have no stack
jq -c '[to_entries[] | select(.key | startswith("Tensor.zoo_"))] | [length, (map(.value) | unique)]' run/target/step0/rank0/construct.json
grep -c zoo run/target/step0/rank0/stack.json
# statistics mode: the same entries, without files
probe-gendump --zoo stats
jq -c '.data["Tensor.zoo_view_step.0.forward"].output[0]' stats/golden/step0/rank0/dump.json
md5sum run/target/step0/rank0/dump_tensor_data/Tensor.zoo_view_transposed.0.forward.output.0.pt \
	run/golden/step0/rank0/dump_tensor_data/Tensor.zoo_view_step.0.forward.output.0.pt
