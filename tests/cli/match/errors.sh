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
# --consistency: an unknown backend, another pairing option beside it, nothing matched
probe-match --consistency vllm t.json t.ndjson > /dev/null 2>&1; echo "status $?"
probe-match --consistency fsdp --fuzzy t.json t.ndjson > /dev/null 2> err; echo "status $?"; head -n 1 err
probe-match --consistency fsdp t.json t.ndjson > out.ndjson; echo "status $? $(wc -l < out.ndjson) lines"
