# A dump.json cut short, as a crashed job leaves it: at each kind of position a
# message naming the file, line and column, exit status 2, and the records read
# so far end with an {"error": ...} record.  Then every 5th cut point of a dump
# with every kind of leaf (tests/data/kinds.json): all must fail the same way (a
# cut that leaves only the final newline off is a complete dump).
# sanitizers: skip, the cut-point loop is hundreds of processes; fuzz_dump and fuzz_json run the same reader on broken and cut inputs under the sanitizers
# long: started first in make check (about 18 s; not under ASan)
try() { # label text
	printf '%s' "$2" > dump.json
	probe-flatten dump.json > out 2> err
	echo "$1: status $?, $(wc -l < out) line(s), last $(tail -1 out | cut -c1-10); $(cat err)"
}
E='{"task":"statistics","data":{"Functional.linear.0.forward":{"input_args":[{"type":"torch.Tensor","dtype":"torch.float32","shape":[2],"Max":1.5'
try "inside a key" '{"task":"statistics","data":{"Functional.linear.0.forward":{"input_ar'
try "inside a string" '{"task":"statistics","data":{"Functional.linear.0.forward":{"input_args":[{"type":"torch.Ten'
try "inside an escape" '{"task":"statistics","data":{"Functional.linear.0.forward":{"input_args":[{"type":"torch\u00'
try "inside a number" "$E"
try "inside an exponent" "${E}e"
try "inside a literal" '{"task":"statistics","data":{"Functional.linear.0.forward":{"input_args":[{"type":"bool","value":tr'
try "inside NaN" '{"task":"statistics","data":{"Functional.linear.0.forward":{"input_args":[{"type":"float","value":Na'
try "after a key" '{"task":"statistics","data":{"Functional.linear.0.forward":{"input_args"'
try "after a colon" '{"task":"statistics","data":{"Functional.linear.0.forward":{"input_args":'
try "between items" "$E}"
try "after a comma" "$E},"
try "between entries" '{"task":"statistics","data":{"Functional.linear.0.forward":{"output":[{"type":"int","value":1}]},'
try "before data" '{"task":"statistics",'
try "one byte" '{'
# the loop
f=$TESTS/data/kinds.json
size=$(wc -c < "$f")
cuts=0 bad=0 i=1
while [ $i -lt $((size - 1)) ]; do
	head -c $i "$f" > cut.json
	probe-flatten cut.json > out 2> err
	s=$?
	cuts=$((cuts + 1))
	if [ $s != 2 ] || ! grep -q '^probe-flatten: cut\.json:[0-9]*:[0-9]*: ' err || ! tail -1 out | grep -q '^{"error":'; then
		bad=$((bad + 1))
		echo "cut at $i: status $s: $(cat err)"
	fi
	i=$((i + 5))
done
echo "$cuts cut points of a $size-byte dump: $bad without status 2, a position and a final error record"
