# Metric records: msprobe's verdict beside ours, for every kind of pair.
cp "$TESTS/data/match/target.json" t.json
cp "$TESTS/data/match/golden.json" g.json
probe-flatten t.json | probe-match g.json | probe-metric -v |
	jq -c '[.key, .verdict, .msprobe.result, .msprobe.NormRelativeErr, .reason]'
