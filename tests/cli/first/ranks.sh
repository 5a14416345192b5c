# A fault on one rank of four reaches the others through the gradient
# all_reduce: they received it; rank 2 started it.
probe-gendump --ranks 4 --fault-rank 2 d > /dev/null
probe-flatten d/target | probe-match d/golden | probe-first > out.ndjson; echo "status $?"
jq -c '.first_divergence // .summary | if .rank != null then {rank, entry, leaf, role, comm_ops_before, started_here} else {started_by} end' out.ndjson
# over two steps, the first divergence of each rank is still the one in step 0
probe-gendump --ranks 2 --steps 2 --fault-rank 1 --fault input e > /dev/null
probe-flatten e/target | probe-match e/golden | probe-first --format text
