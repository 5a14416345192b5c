# The golden side may be a file of leaf records instead of a dump: same pairs.
cp "$TESTS/data/match/target.json" t.json
cp "$TESTS/data/match/golden.json" g.json
probe-flatten g.json > golden.ndjson
probe-flatten t.json | probe-match g.json > from-dump
probe-flatten t.json | probe-match golden.ndjson > from-records
cmp from-dump from-records && wc -l < from-records
probe-flatten t.json > target.ndjson
probe-match golden.ndjson target.ndjson | cmp - from-records && echo "target as an operand: same"
