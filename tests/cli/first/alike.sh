# Like for like (probe(7)): the answer is right, or it is an error.  Every case
# has its opposite: the same model, all compared, one rank.
# long: started first in make check (about 3 s plain, 12 s under ASan)
pipe() { # target golden [probe-first options...]
	t=$1 g=$2
	shift 2
	probe-flatten -q "$t" | probe-match "$g" 2>/dev/null | probe-first "$@"
}

echo "# 1. two different models: the target's leaves mostly find no partner"
probe-gendump --layers 2 --width 8 small > /dev/null
probe-gendump --layers 5 big > /dev/null
probe-flatten big/target | probe-match big/golden > /dev/null; echo "same model: probe-match status $?"
probe-flatten big/target | probe-match small/golden > /dev/null; echo "probe-match status $?"
probe-flatten big/target | probe-match --partial small/golden > marked.ndjson 2> /dev/null
sed 's/,"partial":true//' marked.ndjson > pairs.ndjson
probe-metric --partial < pairs.ndjson > metrics.ndjson
for tool in probe-metric probe-first; do
	$tool < pairs.ndjson > /dev/null 2> err; echo "$tool on the same pairs: status $?"
	head -1 err
done
probe-plot --output-file p.svg < metrics.ndjson 2> err; echo "probe-plot on their metrics: status $?"
head -1 err
echo "accepted on purpose: the pairs marked by probe-match --partial, or --partial"
probe-first < marked.ndjson > /dev/null; echo "probe-first status $?"
probe-first --partial < pairs.ndjson > /dev/null; echo "probe-first --partial status $?"
probe-plot --partial --output-file p.svg < metrics.ndjson; echo "probe-plot --partial status $?"
probe-first --format text < marked.ndjson | grep -E 'partial|incomplete'
echo "a smaller model against a bigger one: all its leaves match; the golden-only leaves are explained"
pipe small/target big/golden --format text | grep -E '^  (incomplete|note)'

echo "# 2. a tensor dump against an md5 dump: statistics compared, the same answer everywhere"
probe-gendump --mode tensor tens > /dev/null
probe-gendump --mode md5 md5 > /dev/null
pipe tens/target md5/golden | jq -c '.first_divergence // .summary | {leaf, role, answer}'
probe-flatten tens/target | probe-match md5/golden | probe-metric |
	jq -c 'select(.verdict == "diff") | {leaf: .t.name, msprobe, verdict}' | head -1
probe-flatten tens/target | probe-match md5/golden | probe-metric --csv > /dev/null; echo "probe-metric --csv status $?"
pipe tens/target md5/golden --format text | grep 'tasks differ'
echo "opposite: tensor against tensor compares the elements"
pipe tens/target tens/golden | jq -c '.first_divergence | select(.) | {leaf, role}'

echo "# 3. the tensors are not there"
probe-gendump --mode tensor --fault none gone > /dev/null
pipe gone/target gone/golden > /dev/null; echo "all there: status $?"
rm -r gone/target/step0/rank0/dump_tensor_data gone/golden/step0/rank0/dump_tensor_data
probe-flatten gone/target > /dev/null
pipe gone/target gone/golden --format text; echo "status $?"
pipe gone/target gone/golden | tail -1 | jq -c '.summary | {compared, total, answer}'
pipe gone/target gone/golden --partial > /dev/null; echo "--partial: status $?"
printf 'include %s/share/probe.mk\nPROBE_TARGET = gone/target\nPROBE_GOLDEN = gone/golden\n' "$TOP" > Makefile
make -s probe-check > out 2>&1; echo "make probe-check: status $?"
grep -v '^make' out | tail -1
make -s probe-check PROBE_PARTIAL=yes > /dev/null 2>&1; echo "make probe-check PROBE_PARTIAL=yes: status $?"

echo "# 4. four ranks, the fault on rank 2: the first record is the rank that started it"
probe-gendump --ranks 4 --fault-rank 2 four > /dev/null
pipe four/target four/golden | head -1 | jq -c '.first_divergence | {rank, leaf, role, started_here}'
pipe four/target four/golden --format text | sed -n '1,5p'
echo "sixteen ranks, the fault on rank 11"
probe-gendump --ranks 16 --fault-rank 11 sixteen > /dev/null
pipe sixteen/target sixteen/golden | head -1 | jq -c '.first_divergence | {rank, leaf, role}'
pipe sixteen/target sixteen/golden --format text | sed -n '1,4p'
pipe sixteen/target sixteen/golden --format text | grep -c '^rank'
echo "opposite: one rank"
probe-gendump one > /dev/null
pipe one/target one/golden --format text | sed -n '1,3p'

echo "# 5. roles: the weight that caused it is never propagated"
pipe one/target one/golden -n 3 | jq -c '.first_divergence | select(.) | {n, leaf, role, same_as}'
echo "a later step: the parameter is carried by the optimizer's update (module entries only, as at level L0)"
probe-gendump --steps 2 steps > /dev/null
probe-flatten steps/golden | jq -c 'select(.entry | startswith("Module."))' > l0-golden.ndjson
probe-flatten steps/target | jq -c 'select(.entry | startswith("Module."))' | probe-match l0-golden.ndjson |
	probe-first -n 100 | jq -c '.first_divergence | select(.leaf // "" | endswith("parameters.weight")) | {step, leaf, role, why}' |
	head -2

echo "# golden-only leaves belong to their target rank: no phantom rank"
probe-gendump --layers 4 rnull > /dev/null
mv rnull/golden/step0/rank0 rnull/golden/step0/proc7
probe-flatten one/target | probe-match --partial rnull/golden 2> /dev/null | probe-first | tail -1 |
	jq -c '.summary.ranks | map({rank, pairs, golden_only})'

echo "# --where: report only what a filter chooses; every leaf still counts"
pipe one/target one/golden -n 2 --where '.t.state == "output"' |
	jq -c '.first_divergence | select(.) | {leaf, role, not_chosen_before}'
pipe one/target one/golden --where '.t.max + "x"' 2>&1; echo "status $?"
probe-first --where '.t.' < /dev/null 2> err; echo "status $?"
head -1 err
echo "probe-plot --where marks what probe-first --where reports"
probe-flatten one/target | probe-match one/golden | probe-metric > m.ndjson
probe-plot --where '.t.state == "output"' < m.ndjson | grep -o 'first divergence, rank[^<]*'
