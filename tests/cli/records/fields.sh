# Every field of the leaf record (probe-records(5)) against an independent reading of
# the dump in Python (oracle.py): number texts, names, keys, order, everything.
check() { # dump [rank step]
	echo "== $1"
	probe-flatten "$1" > records.ndjson
	python3 "$TESTS/cli/records/oracle.py" records.ndjson "$@"
}
cp "$TESTS/data/kinds.json" dump.json
check dump.json
probe-gendump --mode md5 --fault nan --ranks 2 --steps 2 --micro-batches 2 run > /dev/null
check run/target/step1/rank1/dump.json 1 1
probe-gendump --fault none --layers 4 plain > /dev/null
check plain/golden/step0/rank0/dump.json 0 0
mkdir -p t/step3/rank5 && cp "$TESTS/data/saved.json" t/step3/rank5/dump.json
check t/step3/rank5/dump.json 5 3 2>/dev/null
# the oracle sees a wrong number text, a wrong key and a missing field
sed -e 's/"max":2.0/"max":2/' -e 's/"key":"Functional.linear.0.forward.input.0"/"key":"x"/' \
    -e 's/,"data":"[^"]*output.0.pt"//' records.ndjson > bad.ndjson
python3 "$TESTS/cli/records/oracle.py" bad.ndjson t/step3/rank5/dump.json 5 3 | grep DISAGREE
# exec_mode: the leaves of a MindSpore root with graph/ and pynative/ side by side, each dump's
# records as probe-flatten writes them for the whole root
. "$TESTS/data/mix-roots.sh"
probe-flatten T > root.ndjson
for d in graph/step0 pynative/step1; do
	echo "== T/$d/rank0/dump.json in T"
	grep -F "\"dump\":\"T/$d/rank0/dump.json\"" root.ndjson > records.ndjson # (jq would rewrite 1.0 as 1)
	python3 "$TESTS/cli/records/oracle.py" records.ndjson "T/$d/rank0/dump.json" 0 "${d#*step}" "${d%%/*}"
done
