# --data-mapping (msprobe -dm): mapped rows pair by the YAML, the others by their raw
# names (so the renumbered backward no longer pairs), and the dtype gate is off.
cp "$TESTS/data/match/target.json" t.json
cp "$TESTS/data/match/golden.json" g.json
probe-flatten t.json | probe-match --data-mapping "$TESTS/data/match/data_mapping.yaml" g.json |
	jq -c 'select(.t) | [.key, .g.name, .msprobe_unmatched]'
