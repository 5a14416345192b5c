# One dump entry of millions of leaves (issue 17, class 8): probe-flatten holds one entry
# at a time, and one entry may take at most 256 MiB of memory (about 360 bytes for a
# scalar leaf of 25 bytes of text).  Beyond that the reading stops with an error naming
# the entry, where it is and the limit, before it takes more: the leaves of the entries
# before it are out, and the stream ends with an error record.  probe-match reads its
# golden dump with the same reader.  An entry under the limit is read as always.
entry() { # name leaves: an entry whose output is a list of that many scalar leaves
	awk -v name="$1" -v n="$2" 'BEGIN {
		printf "\"%s\":{\"input_args\":[{\"type\":\"int\",\"value\":%d}],\"output\":[[", name, n
		for (i = 0; i < n; i++)
			printf "%s{\"type\":\"int\",\"value\":%d}", i ? "," : "", i % 10
		printf "]]}"
	}'
}
dump() { # leaves of the second entry
	printf '{"task":"statistics","level":"L1","framework":"pytorch","dump_data_dir":null,"data":{'
	entry Tensor.view.0.forward 3
	printf ','
	entry Tensor.tolist.0.forward $1
	printf '}}\n'
}
dump 1000000 > big.json
dump 2000000 > bigger.json
ls -l big.json | awk '{ printf "a dump of %.0f MB, an entry of 1,000,000 leaves\n", $5 / 1e6 }'
/usr/bin/time -f %M -o kb1 probe-flatten big.json > out 2> err; echo "probe-flatten: status $?, $(grep -c '"seq"' out) leaves, then $(tail -1 out | cut -c1-10)"
cat err
/usr/bin/time -f %M -o kb2 probe-flatten bigger.json > /dev/null 2>&1
a=$(tail -1 kb1) b=$(tail -1 kb2)
[ $((b * 10)) -lt $((a * 11)) ] && echo "  2,000,000 leaves take the memory 1,000,000 take (within 10 %)"
probe-gendump g > /dev/null
probe-flatten g/target | probe-match big.json > /dev/null 2> err; echo "probe-match with it as the golden: status $?"
cat err
dump 100000 > fits.json
probe-flatten fits.json > out; echo "an entry of 100,000 leaves: status $?, $(wc -l < out) leaves"
