# Every fault of the generator: probe-first names the leaf where it starts and
# whether its operator made the difference or received it (lib/testdata/gendump.h
# documents where each fault lands), in statistics and md5 dumps; identical
# runs give exit status 0 and nothing but the summary.  Each line: the status, the
# first divergence and the answer with the rounding budget (the default), then with
# --bitwise.  Two faults are rounding-sized in float32 statistics: fc2-weight-tiny
# (one ulp of one weight, which the statistics show only as a last-digit change of a
# later mean) and dtype (an output rounded to float16, a float-to-float change):
# "within_rounding" with the budget, the leaf gendump.h names with --bitwise.  In
# md5 dumps the weight's CRC shows the ulp where no rounding is allowed (a float32
# weight), so fc2-weight-tiny is found there either way.
# long: started first in make check (about 2 s plain, 16 s under ASan)
for mode in statistics md5; do
	echo "== $mode"
	for fault in fc2-weight fc2-weight-tiny input grad dtype shape scalar linear1-output inf nan nan-input none; do
		probe-gendump --mode $mode --fault $fault d > /dev/null
		probe-flatten d/target | probe-match d/golden > pairs.ndjson
		probe-first pairs.ndjson > out.ndjson
		status=$?
		probe-first --bitwise pairs.ndjson > bitwise.ndjson
		bstatus=$?
		printf '%-16s %s %s %s | --bitwise %s %s\n' "$fault" "$status" \
			"$(jq -r 'select(.first_divergence) | .first_divergence | "\(.leaf) \(.role)"' out.ndjson)" \
			"$(jq -r 'select(.summary) | .summary.answer' out.ndjson)" "$bstatus" \
			"$(jq -r 'select(.first_divergence) | .first_divergence | "\(.leaf) \(.role)"' bitwise.ndjson)"
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
