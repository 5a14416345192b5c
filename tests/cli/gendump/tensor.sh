# --mode tensor: dump.json as msprobe's task "tensor" writes it, and one file per tensor leaf.
probe-gendump --mode tensor run
probe-gendump run-stats
d=run/golden/step0/rank0
jq -c '[keys_unsorted, .task, .dump_data_dir]' $d/dump.json
# a tensor leaf gains data_name (its row name + .pt); the bool kwarg of F.relu gets none
jq -c '.data["Functional.linear.0.forward"].input_args[1] | keys_unsorted' $d/dump.json
jq -c '.data["Functional.relu.0.forward"] | [.input_args[0].data_name, .input_kwargs.inplace]' $d/dump.json
jq -c '.data["Module.fc1.Linear.parameters_grad.0"] | [.weight[0].data_name, .bias[0].data_name]' $d/dump.json
# apart from task, dump_data_dir and data_name, the dump is the statistics dump byte for byte
strip='del(.task, .dump_data_dir) | walk(if type == "object" then del(.data_name) else . end)'
for side in golden target; do
	jq "$strip" run/$side/step0/rank0/dump.json > t.json
	jq "$strip" run-stats/$side/step0/rank0/dump.json > s.json
	cmp t.json s.json && echo "$side: the statistics dump plus data_name"
done
cmp run/golden/step0/rank0/stack.json run-stats/golden/step0/rank0/stack.json && echo "stack.json unchanged"
# every data_name is a file, every file a data_name; a tensor used twice is saved twice
for side in golden target; do
	jq -r '.. | objects | .data_name? // empty' run/$side/step0/rank0/dump.json | sort > names
	ls run/$side/step0/rank0/dump_tensor_data | sort > files
	cmp names files && echo "$side: $(wc -l < files) files, one per data_name"
done
ls $d/dump_tensor_data | head -3
# the sizes follow torch 1.13's layout: 64-byte aligned entries around the raw float32 storage
wc -c $d/dump_tensor_data/Functional.linear.0.forward.input.0.pt $d/dump_tensor_data/Functional.mse_loss.0.forward.output.0.pt \
	$d/dump_tensor_data/Module.fc2.Linear.forward.0.parameters.weight.pt
md5sum $d/dump_tensor_data/Functional.linear.0.forward.input.0.pt run/target/step0/rank0/dump_tensor_data/Module.fc2.Linear.forward.0.parameters.weight.pt
# the zip entries: stored (method 0), named after the file, the data 64-byte aligned
zipinfo() {
	python3 -c 'import sys, zipfile
for i in zipfile.ZipFile(sys.argv[1]).infolist():
    print(i.filename, i.compress_type, i.file_size, i.header_offset)' "$1"
}
zipinfo $d/dump_tensor_data/Functional.linear.0.forward.input.0.pt
# the comparison with the real msprobe dump of the same model: tests/parity/gendump-tensor.sh
