# data_name reaching outside the dump (issue 17, class 10).  A tensor file is read only
# inside its dump's tensor folder: a data_name with a ".." component or an absolute one,
# or a link in the folder that resolves outside it, is refused with the reason, the pair
# "unreadable", and nothing outside is opened (msprobe's cells: "unsupported").  Links
# that stay inside, a tensor folder that is itself a link, and names in folders of the
# tensor folder are read as usual.  The record's "data" stays as probe-flatten made it.
# A hand-made record's folder is its "data" without its data_name (without one: the
# directory of "data"); an empty file, like /proc/self/mem, is refused without opening it.
here=$(pwd -P)
probe-gendump --mode tensor --layers 2 d > /dev/null
f=Functional.linear.0.forward.output.0.pt
entry() { # data_name: give one leaf that data_name in both dumps (a leaf's name, so its key, comes from it)
	for side in t gd; do
		jq -c --arg n "$1" '.data["Functional.linear.0.forward"].output[0].data_name = $n' $side/step0/rank0/dump.json > tmp
		mv tmp $side/step0/rank0/dump.json
	done
}
show() { # label: the pair of that leaf
	probe-flatten t | probe-match gd > pairs
	probe-metric pairs > m.ndjson 2> /dev/null
	jq -c 'select(.t.entry == "Functional.linear.0.forward" and .t.state == "output")' m.ndjson > leaf
	printf '%s: %s | msprobe: %s\n' "$1" "$(jq -r '.verdict + ": " + .reason' leaf | sed "s|$here|HERE|g; s|/proc/[0-9]*/|/proc/PID/|")" \
		"$(jq -r '.msprobe.Cosine' leaf)"
}
reset() { rm -rf t gd; cp -r d/target t; cp -r d/golden gd; }

reset
cp t/step0/rank0/dump_tensor_data/$f t/step0/z.pt
cp gd/step0/rank0/dump_tensor_data/$f gd/step0/z.pt
entry ../../z.pt; show 'data_name "../../z.pt" (a copy of the right file there)'
probe-flatten t | jq -r 'select(.data_name == "../../z.pt") | "  its record keeps \"data\": " + .data'
entry "$here/t/step0/z.pt"; show "an absolute data_name"
entry /proc/self/mem; show "data_name /proc/self/mem"
reset
mkdir -p outside
mv t/step0/rank0/dump_tensor_data/$f outside/$f
ln -s "$here/outside/$f" t/step0/rank0/dump_tensor_data/$f; show "a link out of the folder (absolute)"
rm t/step0/rank0/dump_tensor_data/$f
ln -s ../../../../outside/$f t/step0/rank0/dump_tensor_data/$f; show "a link out of the folder (relative)"
rm t/step0/rank0/dump_tensor_data/$f
ln -s "$here/outside/nowhere.pt" t/step0/rank0/dump_tensor_data/$f; show "a link to nothing"
rm t/step0/rank0/dump_tensor_data/$f
ln -s /proc/self/mem t/step0/rank0/dump_tensor_data/$f; show "a link to /proc/self/mem"
echo "read as usual:"
reset
for side in t gd; do
	mkdir $side/step0/rank0/dump_tensor_data/keep
	mv $side/step0/rank0/dump_tensor_data/$f $side/step0/rank0/dump_tensor_data/keep/$f
	ln -s keep/$f $side/step0/rank0/dump_tensor_data/$f
done
show "a link inside the folder"
entry keep/$f; show "a data_name in a folder of the folder"
entry keep/../keep/$f; show 'the same through "..": refused (no ".." at all)'
reset
mv t/step0/rank0/dump_tensor_data moved
ln -s "$here/moved" t/step0/rank0/dump_tensor_data; show "the tensor folder a link"
rm t/step0/rank0/dump_tensor_data
mkdir t/step0/rank0/dump_tensor_data
for x in moved/*; do ln -s "$here/$x" t/step0/rank0/dump_tensor_data/; done
show "every file a link out of the folder"
echo "hand-made records: the folder is \"data\" without its data_name"
reset
probe-flatten t | probe-match gd > pairs
jq -c 'if .t.name == "Functional.linear.0.forward.output.0" then .t.data = "'"$here"'/gd/step0/rank0/dump_tensor_data/" + .t.data_name else . end' pairs |
	probe-metric 2> /dev/null | jq -r 'select(.t.name == "Functional.linear.0.forward.output.0") | "  data in another dump, by its name: " + .verdict'
jq -c 'if .t.name == "Functional.linear.0.forward.output.0" then .t.data = "/proc/self/mem" | .t.data_name = "/proc/self/mem" else . end' pairs |
	probe-metric 2> /dev/null | jq -r 'select(.t.name == "Functional.linear.0.forward.output.0") | "  /proc/self/mem: " + .verdict + ": " + .reason'
jq -c 'if .t.name == "Functional.linear.0.forward.output.0" then .t.data = "/proc/self/mem" | del(.t.data_name) else . end' pairs |
	probe-metric 2> /dev/null | jq -r 'select(.t.name == "Functional.linear.0.forward.output.0") | "  /proc/self/mem, no data_name: " + .verdict + ": " + .reason'
