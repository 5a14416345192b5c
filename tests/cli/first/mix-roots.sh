# The first divergence of two graph/pynative roots: each folder's ranks are ranks of their own,
# each folder has its own answer (graph first), and the report names the folder.  The one
# difference is in pynative/step0: the output of Mint.add.0.forward (its inputs the same) is the
# cause, the input of Mint.mul.0.forward after it propagated; graph/ has none.
. "$TESTS/data/mix-roots.sh"
probe-flatten T | probe-match G | probe-first -n 2 > out.ndjson; echo "status $?"
jq -c 'select(.first_divergence) | .first_divergence | {exec_mode, step, rank, n, role, leaf, started_here}' out.ndjson
jq -c 'select(.summary) | .summary | {ranks: [.ranks[] | {exec_mode, rank, pairs, same, diff, first}], started_by}' out.ndjson
probe-flatten T | probe-match G | probe-first --format text; echo "status $?"
echo "only the pynative folder on the target side: graph/ said and passed over"
mkdir Tp && cp -r T/pynative Tp/
probe-flatten Tp | probe-match G | probe-first --format text; echo "status $?"
echo "msprobe's -da analyses each folder apart:"
probe-flatten T | probe-match G | probe-first --msprobe > /dev/null; echo "status $?"
echo "a difference in each folder: two answers, graph's first, never one across them"
cp -r T T2 && sed 's/"Norm":2.0/"Norm":3.0/' T/graph/step0/rank0/dump.json > T2/graph/step0/rank0/dump.json
probe-flatten T2 | probe-match G | probe-first | jq -c '.first_divergence // .summary | {exec_mode, leaf, role, started_here, started_by}'
probe-flatten T2 | probe-match G | probe-first --format text | grep -v '^  \(entry\|leaf\|verdict\|then\)'
