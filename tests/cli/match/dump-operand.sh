# A dump where probe-match reads target records (msprobe's "target golden" habit): status 2
# before reading, and the pipeline, taking the operands in msprobe's order.
probe-gendump run > /dev/null
probe-match run/target run/golden; echo "status $?"
probe-match run/target/step0 run/golden/step0/rank0/dump.json; echo "status $?"
gzip -c run/golden/step0/rank0/dump.json > 'golden dump.json.gz'
probe-match run/target 'golden dump.json.gz'; echo "status $?"
jq -c . run/golden/step0/rank0/dump.json > compact.json
probe-match run/target compact.json; echo "status $?"
echo "golden records first: the dump is the target"
probe-flatten run/golden > golden.ndjson
probe-match golden.ndjson run/target/step0/rank0; echo "status $?"
echo "what it prints runs:"
probe-match run/target run/golden 2>&1 | sed -n 2p | sh | wc -l
echo "records are read as before: a file, sorted keys and gzip, a pipe, stdin:"
probe-flatten run/target > target.ndjson
probe-match run/golden target.ndjson | wc -l
jq -S -c . target.ndjson | gzip > sorted.ndjson.gz
probe-match golden.ndjson sorted.ndjson.gz | wc -l
mkfifo fifo
# the writer under timeout: if probe-match failed before opening the FIFO, it would wait for ever
timeout 60 sh -c 'probe-flatten run/target > fifo' &
probe-match run/golden fifo | wc -l
wait
probe-match run/golden - < target.ndjson | wc -l
echo "not a dump, not records: as before"
mkdir empty
probe-match run/golden empty; echo "status $?"
