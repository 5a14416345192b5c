# FIFOs named by an option or found where a file is read whole (issue 41, class 3): every
# mapping and config file an option names (probe-match --data-mapping, --cell-mapping=,
# --api-mapping=, --layer-mapping=, probe-compare's --dm/--cm/--am/--lm passed on to it,
# probe-graph --mapping, probe-merge -c), probe-merge's table operands (.xlsx, .csv) and the
# members of its folder, an ATB .bin file, a config_check pack, and a checkpoint's
# safetensors file must be regular files.  A FIFO there with no writer would make open()
# wait for ever; it is refused at once (exit 2, "PATH: a FIFO, not a regular file: refused
# ...": the one check of lib/core/source.c), never waited on.  Every run is under
# timeout 10: status 124 would be the hang.  What is read as a stream stays a stream:
# probe-merge's records on standard input ("-") and through a FIFO with a writer still work.
run() { # label command...
	label=$1; shift
	timeout 10 "$@" > out 2> err; status=$?
	echo "$label: status $status"
	sed 's/^/  /; s/_[0-9]\{14\}/_TIMESTAMP/g' err
}
probe-gendump --ranks 2 run > /dev/null
probe-flatten run/target > leaves
probe-match run/golden leaves > pairs
mkfifo map.yaml
for o in --data-mapping=map.yaml --cell-mapping=map.yaml --api-mapping=map.yaml --layer-mapping=map.yaml; do
	run "probe-match $o" probe-match "$o" run/golden leaves
done
for o in --dm --cm --am --lm; do
	run "probe-compare $o=map.yaml" probe-compare -o cmp --tp run/target --gp run/golden "$o=map.yaml"
done
run "probe-graph --mapping" probe-graph --mapping map.yaml --format ndjson pairs
# probe-merge: its config, a table operand, a member of its folder
mkdir x c
probe-metric -o x --xlsx pairs
probe-metric -o c pairs
ts=$(ls x | sed -n 's/^compare_result_rank0_\([0-9]*\)\.xlsx$/\1/p')
cts=$(ls c | sed -n 's/^compare_result_rank0_\([0-9]*\)\.csv$/\1/p')
run "probe-merge -c" probe-merge -c map.yaml x
mkdir fx fc
mkfifo fx/compare_result_rank1_$ts.xlsx fc/compare_result_rank1_$cts.csv
run "probe-merge, an .xlsx operand" probe-merge --api all_reduce x/compare_result_rank0_$ts.xlsx fx/compare_result_rank1_$ts.xlsx
run "probe-merge, a .csv operand" probe-merge --api all_reduce c/compare_result_rank0_$cts.csv fc/compare_result_rank1_$cts.csv
cp x/compare_result_rank0_$ts.xlsx fx/
cp c/compare_result_rank0_$cts.csv fc/
run "probe-merge, an .xlsx member of its folder" probe-merge --api all_reduce fx
run "probe-merge, a .csv member of its folder" probe-merge --api all_reduce fc
# records stay a stream: standard input, and a FIFO with a writer
probe-match run/golden leaves | timeout 10 probe-merge --api all_reduce - > out; echo "probe-merge, records on stdin: status $?, $(wc -l < out) lines"
mkfifo recs
timeout 10 sh -c 'cat pairs > recs' > /dev/null 2>&1 &
timeout 10 probe-merge --api all_reduce recs > out; echo "probe-merge, records through a FIFO with a writer: status $?, $(wc -l < out) lines"
wait
# an ATB .bin file (read for its alias line while the dump is flattened)
probe-gendump --framework atb --mode tensor atb > /dev/null
bin=$(find atb/target -name outtensor0.bin | sort | head -n 1)
rm "$bin"
mkfifo "$bin"
run "probe-flatten, an ATB .bin a FIFO" probe-flatten atb/target
# a config_check pack, and a checkpoint's safetensors file
mkfifo pack.zip
run "probe-config, a pack a FIFO" probe-config pack.zip pack.zip
mkfifo model.safetensors
run "probe-ckpt, a safetensors file a FIFO" probe-ckpt model.safetensors model.safetensors
