# A dump root: every step, every rank, with rank and step from the directory names.
for d in run/step0/rank0 run/step0/rank1 run/step1/rank0 run/step1/rank1; do
	mkdir -p $d && cp "$TESTS/data/kinds.json" $d/dump.json
done
probe-flatten --list run
probe-flatten run | jq -c '[.rank, .step, .seq]' | sort -u | awk 'NR % 23 == 1'
probe-flatten run/step1 | jq -r '.dump' | uniq
