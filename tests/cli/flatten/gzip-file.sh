# A .json.gz dump reads like the plain one (only the dump path differs).
cp "$TESTS/data/kinds.json" dump.json
gzip -c dump.json > dump.json.gz
probe-flatten dump.json | sed 's|"dump":"dump.json"|D|' > plain
probe-flatten dump.json.gz | sed 's|"dump":"dump.json.gz"|D|' > gz
cmp plain gz && wc -l < gz
