# "task" after "data" (jq -S sorts keys that way): a second pass reads the header.
jq -S . "$TESTS/data/kinds.json" > dump.json
probe-flatten dump.json | jq -r .task | uniq -c
jq -S . "$TESTS/data/kinds.json" | probe-flatten
