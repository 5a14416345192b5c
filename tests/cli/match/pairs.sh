# Every kind of pair: matched, unmatched target leaf, golden-only leaf (with its place),
# msprobe's dtype gate (int32 vs int64 gated, float16 vs float32 not), backward
# renumbering (linear.3.backward pairs with linear.7.backward), and a golden key given
# twice (a cross product, as msprobe's join makes).
cp "$TESTS/data/match/target.json" t.json
cp "$TESTS/data/match/golden.json" g.json
probe-flatten t.json | probe-match -v g.json |
	jq -c '[.key, .t.name, .g.name, .msprobe_unmatched, .t_after]'
