# Every leaf kind of a dump, one record each, in msprobe's row order.
cp "$TESTS/data/kinds.json" dump.json
probe-flatten dump.json
