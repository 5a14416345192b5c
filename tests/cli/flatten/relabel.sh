# --rank and --step relabel one dump; when its directories say another rank or step, a warning
# says so (-q: none).  On several dumps they are an error that says how to pick one.
probe-gendump --ranks 2 --steps 2 run > /dev/null
probe-flatten --rank 0 run/target/step1/rank1 | jq -c '[.rank, .step]' | uniq
probe-flatten --rank 0 --step 7 run/target/step1/rank1/dump.json | jq -c '[.rank, .step]' | uniq
probe-flatten -q --rank 0 --step 7 run/target/step1/rank1/dump.json | jq -c '[.rank, .step]' | uniq
probe-flatten --only-ranks 1 --rank 0 --list run/target/step0
echo "the same numbers, stdin, a file outside the layout: no warning"
probe-flatten --rank 1 --step 1 run/target/step1/rank1 | jq -c '[.rank, .step]' | uniq
probe-flatten --rank 3 --step 3 < run/target/step0/rank0/dump.json | jq -c '[.rank, .step]' | uniq
cp run/target/step0/rank0/dump.json loose.json
probe-flatten --rank 3 --step 3 loose.json | jq -c '[.rank, .step]' | uniq
echo "several dumps:"
probe-flatten --rank 0 run/target/step0; echo "status $?"
probe-flatten --step 0 run/target; echo "status $?"
probe-flatten --step 0 run/target/step0/rank0 run/target/step1/rank0; echo "status $?"
probe-flatten --rank 0 loose.json - < loose.json; echo "status $?"
