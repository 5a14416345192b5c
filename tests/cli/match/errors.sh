cp "$TESTS/data/match/target.json" t.json
probe-flatten t.json > t.ndjson
echo '{"not": "a dump"}' > notdump.json
probe-match notdump.json t.ndjson; echo "status $?"
probe-match t.json < t.json; echo "status $?"
printf '{"rank":0}\n' | probe-match t.json; echo "status $?"
: | probe-match t.json; echo "status $?"
head -c 100 t.ndjson | probe-match t.json; echo "status $?"
printf '{"error":"probe-flatten: x.json:3:4: unterminated string"}\n' | probe-match t.json; echo "status $?"
cp "$TESTS/data/match/bad.yaml" "$TESTS/data/match/list.yaml" .
probe-match --data-mapping bad.yaml t.json t.ndjson; echo "status $?"
probe-match --data-mapping list.yaml t.json t.ndjson; echo "status $?"
probe-match --data-mapping no-such.yaml t.json t.ndjson; echo "status $?"
probe-match; echo "status $?"
