# One run alone: the first operator whose inputs are finite and outputs are
# not; the operators fed by inf/nan after it are propagators.
probe-gendump --fault nan d > /dev/null
probe-flatten d/target | probe-first --nonfinite --format text; echo "status $?"
probe-flatten d/golden | probe-first --nonfinite; echo "status $?"
probe-gendump --fault nan-input e > /dev/null
probe-flatten e/target | probe-first --nonfinite | jq -c '.first_nonfinite // .summary | {entry, leaf, nonfinite, ranks}'
probe-gendump --fault inf --ranks 2 --fault-rank 1 i > /dev/null
probe-flatten i/target | probe-first --nonfinite | jq -c '.first_nonfinite // .summary | {rank, entry, started_here, started_by}'
