# A mapping file whose name holds an escaped NUL byte is refused (found by
# tests/fuzz/fuzz_yaml.c: it crashed the mapping loader).
cp "$TESTS/data/match/target.json" t.json
probe-flatten t.json > t.ndjson
printf '"a\\0b": c\n' > key.yaml
printf 'a: "b\\0c"\n' > value.yaml
printf 'a: b\n"\\x00": c\n' > second.yaml
for f in key.yaml value.yaml second.yaml; do
	probe-match --data-mapping $f t.json t.ndjson > /dev/null; echo "status $?"
	probe-match --cell-mapping=$f t.json t.ndjson > /dev/null; echo "status $?"
done
