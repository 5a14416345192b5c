# Hostile .pt files (tests/cli/hostile/mktensor.py builds them from nothing): a
# truncated zip, a bad central directory, entry sizes and offsets beyond the file,
# zip bombs, pickle programs with unknown opcodes, deep nesting or huge lengths,
# storage shorter than the view, negative and overflowing shapes and strides.
# Each target file is paired with a good golden one in a one-entry tensor dump:
# probe-metric must read none outside the file, say what is wrong and where
# (archive entry, data.pkl byte), and give the pair the verdict "unreadable",
# which probe-first never takes for "no divergence".  Inflating only the bytes a
# view needs, a 1 GiB zip bomb costs nothing.
# long: started first in make check (about 12 s plain, 27 s under ASan)
python3 "$TESTS/cli/hostile/mktensor.py" files
mk() { # side file
	mkdir -p $1/dump_tensor_data
	cp "$2" $1/dump_tensor_data/Functional.linear.0.forward.output.0.pt
	printf '{"task":"tensor","level":"L1","framework":"pytorch","dump_data_dir":"x","data":{"Functional.linear.0.forward":{"output":[{"type":"torch.Tensor","dtype":"torch.float32","shape":[4,4],"Max":15.0,"Min":0.0,"Mean":7.5,"Norm":35.21363372331802,"requires_grad":false,"data_name":"Functional.linear.0.forward.output.0.pt"}]}}}\n' > $1/dump.json
}
mk golden files/good.pt
n=0
for f in files/*.pt; do
	c=$(basename "$f" .pt)
	[ $c = good ] && continue
	rm -rf target
	mk target "$f"
	n=$((n + 1))
	probe-flatten target | probe-match golden > pairs
	probe-metric pairs > m.ndjson 2> err; s=$?
	printf '%-26s %s %s| %s\n' $c $s "$(cat err)" "$(jq -r '.verdict + ": " + (.metrics.tensor.problem // "-")' m.ndjson | sed 's|target/dump_tensor_data/||')"
done
echo "$n files"
# a 1 GiB bomb: bounded memory
mk target files/bomb-1gib.pt
probe-flatten target | probe-match golden > pairs
/usr/bin/time -f '%M' -o kb probe-metric pairs > /dev/null
[ "$(cat kb)" -lt 200000 ] && echo "bomb-1gib: under 200 MB of memory"
# probe-first: an unreadable pair is never "no divergence"
mk target files/pickle-cut.pt
probe-flatten target | probe-match golden | probe-metric | probe-first; echo "probe-first on metrics: status $?"
probe-flatten target | probe-match golden | probe-first; echo "probe-first on pairs: status $?"
