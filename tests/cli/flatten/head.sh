# A closed pipe ends the tool quietly.
for d in run/step0/rank0 run/step0/rank1; do mkdir -p $d && cp "$TESTS/data/kinds.json" $d/dump.json; done
probe-flatten run | head -1 | jq -r .name
