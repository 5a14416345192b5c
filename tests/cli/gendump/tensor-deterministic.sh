# The same options give the same bytes in tensor mode, in every variant (OUTDIR is part of dump.json's
# dump_data_dir, so both runs use the same OUTDIR name, in two directories).
# sanitizers: skip, it compares the bytes of two runs of the generator, whose code the other gendump tests run under the sanitizers
for opts in "--zoo" "--zoo --pt-layout torch2 --dtype float16" "--zoo --format npy --dtype bfloat16" \
	"--ranks 2 --steps 2 --micro-batches 2 --width 24 --batch 3"; do
	mkdir -p one two
	(cd one && probe-gendump --mode tensor $opts run)
	(cd two && probe-gendump --mode tensor $opts run)
	diff -r one two > /dev/null && echo "$opts: same bytes ($(find one -type f | wc -l) files)"
	rm -rf one two
done
probe-gendump --mode tensor --fault none c
diff -r c/golden/step0/rank0/dump_tensor_data c/target/step0/rank0/dump_tensor_data && echo "--fault none: the same tensor files"
