# A dump cut short (a crashed job): the records read so far, then the error record.
head -c 2400 "$TESTS/data/kinds.json" > dump.json
probe-flatten dump.json
