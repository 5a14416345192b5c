# Ranks pair by id; a golden side with one rank and one step pairs with any step.
probe-gendump --ranks 2 --steps 2 run > /dev/null
probe-flatten run/target | probe-match run/golden | jq -r '"\(.t.rank) \(.t.step) \(.g.rank) \(.g.step)"' | sort | uniq -c
echo "step 1 against step 0 (one golden step):"
probe-flatten run/target/step1 | probe-match run/golden/step0 | jq -r '"\(.t.step) \(.g.step)"' | sort | uniq -c
echo "a rank on one side only:"
probe-flatten run/target/step0 | probe-match run/golden/step0/rank0 | tail -1
probe-flatten run/target/step0/rank0 | probe-match run/golden/step0 | tail -1
echo "by position, as msprobe pairs them:"
probe-flatten run/target/step0/rank1 | probe-match --ranks-by-position run/golden/step0/rank0 | jq -r '"\(.t.rank) \(.g.rank)"' | uniq -c
