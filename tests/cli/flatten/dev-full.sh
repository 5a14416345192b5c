# Any other write failure is an error.
cp "$TESTS/data/kinds.json" dump.json
probe-flatten dump.json > /dev/full
