# --framework decoder: the same options give the same bytes (its arithmetic is float32 in a fixed
# order, whatever the precision), in both tasks; with --precision fp32 and --fault none the target
# is byte for byte the golden (the golden is the fp32 target), tensor files included; with bf16,
# fp16 or fp32-kernels and no fault the two runs differ by rounding alone, and the first leaf that
# differs is the first one that rounding reaches: the first linear's output (autocast), the first
# mean (float32 kernels that add in another order).
probe-gendump --framework decoder --ranks 2 --fault hook a
probe-gendump --framework decoder --ranks 2 --fault hook b
diff -r a b && echo "statistics: same bytes"
probe-gendump --framework decoder --mode tensor --precision fp16 --fault softmax-fp16 --layers 2 c
probe-gendump --framework decoder --mode tensor --precision fp16 --fault softmax-fp16 --layers 2 d
# dump.json names its own folder in dump_data_dir
diff -r -x dump.json c d && for s in golden target; do
	sed 's|"c/|"d/|' c/$s/step0/rank0/dump.json | cmp -s - d/$s/step0/rank0/dump.json || echo "$s dump.json differs"
done && echo "tensor, 2 layers: same bytes"

probe-gendump --framework decoder --precision fp32 --fault none e
diff -r e/golden e/target && echo "fp32, no fault: the target is the golden"
probe-gendump --framework decoder --mode tensor --precision fp32 --fault none --ranks 2 --layers 1 f
diff -r -x dump.json f/golden f/target && for r in 0 1; do
	sed 's|"f/golden/|"f/target/|' f/golden/step0/rank$r/dump.json | cmp -s - f/target/step0/rank$r/dump.json ||
		echo "rank $r: dump.json differs"
done && echo "fp32, no fault, tensor, 2 ranks, 1 layer: the target is the golden"

for p in bf16 fp16 fp32-kernels; do
	probe-gendump --framework decoder --precision $p --fault none $p
	probe-flatten $p/golden | jq -c 'del(.dump)' > g
	probe-flatten $p/target | jq -c 'del(.dump)' > t
	paste -d '\n' g t | jq -r -n --arg p $p '[inputs] | [_nwise(2)] as $pairs
		| [$pairs[] | select(.[0] != .[1]) | .[1].name] as $diff
		| "\($p), no fault: \($diff | length) of \($pairs | length) leaves differ, the first \($diff[0])"'
done
