# Tensor files that do not hold what their dump.json says (issue 17, class 3).  Both
# dumps say torch.float32 [4, 4] with the same statistics; the files are swapped for
# others: empty, 0-d, of another dtype, on either side.  A pair whose files cannot stand
# for their leaves was never compared: "unreadable" with what the file holds and what the
# dump says (never "same" from the statistics), and probe-first says "incomplete"
# (status 3), never "no divergence".  msprobe's cells stay what msprobe gets from the
# files ("This is empty data", "shape unmatched").  A MindSpore bfloat16 saved as a float32
# .npy is what MindSpore writes: compared as usual.  Files that differ from each other
# while their dumps agree are a difference.
# long: started first in make check (about 5 s plain, 13 s under ASan)
mkv() { python3 "$TESTS/cli/hostile/mkview.py" "$@"; }
mk() { # side file [dtype [shape [framework]]]: a tensor dump whose linear output is file (and a relu whose is good)
	ext=${2##*.}
	rm -rf $1
	mkdir -p $1/dump_tensor_data
	cp "$2" $1/dump_tensor_data/Functional.linear.0.forward.output.0.$ext
	cp good.$ext $1/dump_tensor_data/Functional.relu.0.forward.output.0.$ext
	leaf='{"type":"torch.Tensor","dtype":"%s","shape":%s,"Max":15.0,"Min":0.0,"Mean":7.5,"Norm":35.21363372331802,"requires_grad":false,"data_name":"%s"}'
	printf '{"task":"tensor","level":"L1","framework":"%s","dump_data_dir":"x","data":{"Functional.linear.0.forward":{"output":['"$leaf"']},"Functional.relu.0.forward":{"output":['"$leaf"']}}}\n' \
		"${5:-pytorch}" "${3:-torch.float32}" "${4:-[4,4]}" Functional.linear.0.forward.output.0.$ext \
		"${3:-torch.float32}" "${4:-[4,4]}" Functional.relu.0.forward.output.0.$ext > $1/dump.json
}
mkv pt good.pt float32 4,4 4,1 16
mkv pt empty16.pt float16 0 1 0
mkv pt zero-d.pt float32 "" "" 1
mkv pt f64.pt float64 4,4 4,1 16
mkv pt row.pt float32 16 1 16
mkv npy good.npy '<f4' 4,4
mkv npy f64.npy '<f8' 4,4
show() { # label: the linear pair's verdict and reason, msprobe's cells, probe-first's status
	probe-flatten target | probe-match golden > pairs
	probe-metric pairs > m.ndjson 2> err
	head -1 m.ndjson > linear
	printf '%s: %s | msprobe Cosine %s, MaxAbsErr %s\n' "$1" "$(jq -r '.verdict + ": " + .reason' linear | sed 's|/dump_tensor_data/|/|g')" \
		"$(jq -r '.msprobe.Cosine' linear)" "$(jq -r '.msprobe.MaxAbsErr' linear)"
	probe-first pairs > /dev/null 2>&1; s1=$?
	probe-first m.ndjson > /dev/null 2>&1; s2=$?
	echo "  probe-first on pairs: status $s1, on metrics: $s2"
}
mk golden good.pt
mk target good.pt; show "the same files"
mk target empty16.pt; show "target float16 [0]"
mk target zero-d.pt; show "target 0-d"
mk target f64.pt; show "target float64"
mk target row.pt; show "target [16]"
mk target good.pt; mk golden empty16.pt; show "golden float16 [0]"
mk target zero-d.pt; mk golden zero-d.pt; show "both 0-d, the same"
mk golden good.pt
echo "the CSV keeps msprobe's cells (target float16 [0]):"
mk target empty16.pt
probe-flatten target | probe-match golden | probe-metric --csv | cut -d, -f1,9-14 | sed -n 2p
echo "the files agree with their dumps, the dumps differ:"
mk target f64.pt torch.float64; show "target float64, declared"
echo "MindSpore (.npy):"
mk golden good.npy Float32 '[4,4]' mindspore
mk target good.npy Float32 '[4,4]' mindspore; show "the same files"
mk target f64.npy Float32 '[4,4]' mindspore; show "target float64 .npy, the dump says Float32"
mk golden good.npy BFloat16 '[4,4]' mindspore
mk target good.npy BFloat16 '[4,4]' mindspore; show "BFloat16 saved as float32 .npy, both"
echo "the same dumps, the files differ from each other, the dtype one probe does not know:"
mk golden good.pt torch.qint8
mk target f64.pt torch.qint8
probe-flatten target | probe-match golden | probe-metric | head -1 | jq -r '.verdict + ": " + .reason'
probe-flatten target | probe-match golden | probe-first > /dev/null; echo "  probe-first: status $?"
