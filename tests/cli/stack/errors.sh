# A missing stack.json or construct.json is a warning and the records pass
# unchanged; a malformed one is an error naming the file and the position.
cp "$TESTS/data/stack/dump.json" .
probe-flatten dump.json > leaves.ndjson
probe-stack leaves.ndjson > out.ndjson; echo "status $?"
cmp leaves.ndjson out.ndjson && echo "unchanged"
cp "$TESTS/data/stack/stack-cut.json" stack.json
probe-stack leaves.ndjson > out.ndjson; echo "status $?"
tail -1 out.ndjson
rm stack.json
cp "$TESTS/data/stack/construct-bad.json" construct.json
probe-stack leaves.ndjson > /dev/null; echo "status $?"
# records without a dump, and other records, pass unchanged
printf '{"summary":{"x":1}}\n{"key":"k","t":null,"g":null}\n' | probe-stack; echo "status $?"
probe-stack --innermost 0 leaves.ndjson; echo "status $?"
