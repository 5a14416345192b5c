# A fault on rank 1 reaches rank 0 only through all_reduce.
probe-gendump --ranks 2 --fault-rank 1 run
for r in 0 1; do
	probe-flatten run/golden/step0/rank$r | jq -c 'del(.dump)' > g
	probe-flatten run/target/step0/rank$r | jq -c 'del(.dump)' > t
	echo "rank $r: first difference at $(paste -d '\n' g t | jq -r -n '[inputs] | _nwise(2) | select(.[0] != .[1]) | .[0].name' | head -1)"
done
