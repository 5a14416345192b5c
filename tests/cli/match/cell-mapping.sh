# --cell-mapping (msprobe -cm): Cell becomes Module, and module names map by the YAML,
# exactly or by substring replacement in file order.
cat > cells.yaml <<'YAML'
fc1.Dense: fc1.Linear
Dense: Linear
YAML
probe-gendump --fault none run > /dev/null
probe-flatten run/target | sed -e 's/"Module\.fc\([0-9]\)\.Linear/"Cell.fc\1.Dense/g' > cells.ndjson
probe-match --cell-mapping=cells.yaml run/golden cells.ndjson | jq -r 'select(.t and (.t.name | startswith("Cell"))) | [.t.name, .key, (.g != null)] | @tsv' | head -3
probe-match --cell-mapping run/golden cells.ndjson | jq -r 'select(.t and (.t.name | startswith("Cell"))) | [.key, (.g != null)] | @tsv' | head -2
