# Hostile .npy files (mktensor.py): a bad magic or version, headers that are not
# a dict or lie about their length, object and structured dtypes, negative,
# overflowing and 10,000-digit shapes, data shorter than the shape.  As in pt.sh:
# a message naming the file and the header byte, the verdict "unreadable", no crash.
# (Data longer than the shape is what numpy.load accepts too.)  npy-unaligned is
# valid, its data at an odd offset: read without loads of misaligned floats (ASan
# build: UBSan), the same as the golden.  (pt.sh's archives are unaligned too.)
python3 "$TESTS/cli/hostile/mktensor.py" files npy
mk() { # side file
	mkdir -p $1/dump_tensor_data
	cp "$2" $1/dump_tensor_data/Functional.linear.0.forward.output.0.npy
	printf '{"task":"tensor","level":"L1","framework":"mindspore","dump_data_dir":"x","data":{"Functional.linear.0.forward":{"output":[{"type":"mindspore.Tensor","dtype":"Float32","shape":[4,4],"Max":15.0,"Min":0.0,"Mean":7.5,"Norm":35.21363372331802,"data_name":"Functional.linear.0.forward.output.0.npy"}]}}}\n' > $1/dump.json
}
mk golden files/good.npy
n=0
for f in files/*.npy; do
	c=$(basename "$f" .npy)
	[ $c = good ] && continue
	rm -rf target
	mk target "$f"
	n=$((n + 1))
	probe-flatten target | probe-match golden > pairs
	probe-metric pairs > m.ndjson 2> err; s=$?
	printf '%-24s %s %s| %s\n' $c $s "$(cat err)" "$(jq -r '.verdict + ": " + (.metrics.tensor.problem // "-")' m.ndjson | sed 's|target/dump_tensor_data/||')"
done
echo "$n files"
