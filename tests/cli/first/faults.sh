# Every fault of the generator: probe-first names the leaf where it starts and
# whether its operator made the difference or received it (lib/testdata/gendump.h
# documents where each fault lands), in statistics and md5 dumps; identical
# runs give exit status 0 and nothing but the summary.
# long: started first in make check (about 2 s plain, 16 s under ASan)
for mode in statistics md5; do
	echo "== $mode"
	for fault in fc2-weight fc2-weight-tiny input grad dtype shape scalar linear1-output inf nan nan-input none; do
		probe-gendump --mode $mode --fault $fault d > /dev/null
		probe-flatten d/target | probe-match d/golden | probe-first > out.ndjson
		status=$?
		printf '%-16s %s %s\n' "$fault" "$status" "$(jq -r 'select(.first_divergence) | .first_divergence | "\(.leaf) \(.role)"' out.ndjson)"
		rm -rf d
	done
done
# tensor dumps: the elements themselves are compared, so a one-ulp change of a
# weight shows at the weight although its statistics do not move
echo "== tensor"
for fault in fc2-weight-tiny nan none; do
	probe-gendump --mode tensor --fault $fault d > /dev/null
	probe-flatten d/target | probe-match d/golden | probe-first > out.ndjson
	status=$?
	printf '%-16s %s %s\n' "$fault" "$status" "$(jq -r 'select(.first_divergence) | "\(.first_divergence.leaf) \(.first_divergence.role) \(.reason)"' out.ndjson)"
	rm -rf d
done
