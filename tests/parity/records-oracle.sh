# Every field of the records of the real msprobe dumps agrees with an independent
# Python reading of them (tests/cli/records/oracle.py).
set -u
n=0
for d in msprobe-example/step1/proc2016 msprobe-example/step0/proc2016 mlp-tensor-mix/target/step0/rank0 \
	 mlp-md5-mix/golden/step0/rank0; do
	n=$((n + 1))
	f=$FIXTURES/$d/dump.json
	if [ ! -f "$f" ]; then
		echo "ok $n - $d: every record field agrees with the oracle # SKIP $FIXTURES is absent"
		continue
	fi
	rank=$(probe-flatten --list "$f" | jq .rank)
	step=$(probe-flatten --list "$f" | jq .step)
	out=$(mktemp)
	probe-flatten -q "$f" > "$out.nd"
	python3 "$TESTS/cli/records/oracle.py" "$out.nd" "$f" "$rank" "$step" > "$out"
	if grep -q DISAGREE "$out" || grep -q 'record count' "$out"; then
		echo "not ok $n - $d: record fields disagree with the oracle"
		grep -E 'DISAGREE|record count' "$out" | sed 's/^/#   /'
	else
		echo "ok $n - $d: all $(wc -l < "$out.nd") records agree with the oracle on every field"
	fi
	rm -f "$out" "$out.nd"
done
