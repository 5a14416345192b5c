# --fuzzy (msprobe -fm): names without their call index, the k-th with the k-th, so a
# target whose linear calls are numbered differently still pairs, in order.
probe-gendump --fault none run > /dev/null
probe-flatten run/target | sed 's/Functional\.linear\.\([0-9]\)\.forward/Functional.linear.1\1.forward/g' > shifted.ndjson
echo "exact keys:"
probe-match run/golden shifted.ndjson | jq -r 'select(.t and .g) | .t.name' | grep -c linear
echo "fuzzy:"
probe-match --fuzzy run/golden shifted.ndjson | jq -r 'select(.t and .g and (.t.name | test("linear"))) | [.t.name, .g.name, .key] | @tsv' | head -4
probe-match -f run/golden shifted.ndjson | jq -s '[.[] | select(.t == null or .g == null)] | length'
