# Per-rank work is independent: select ranks, run each rank's compare as its
# own job with GNU parallel (on all cores, or other machines with
# --sshloginfile; ":" is this machine), merge the per-rank results in rank
# order; the answers equal the serial ones, cross-rank first divergence included.
# sanitizers: skip, it tests GNU parallel's use of the tools, whose code the other tests run under the sanitizers
probe-gendump --ranks 8 --fault-rank 5 --layers 4 d > /dev/null
probe-flatten d/target/step0 | probe-match d/golden/step0 | probe-metric > serial.ndjson
probe-first serial.ndjson > serial-first.ndjson; echo "serial probe-first: status $?"
job='probe-flatten --only-ranks {} d/target/step0 | probe-match --only-ranks {} d/golden/step0 | probe-metric > out/rank{}.ndjson'
mkdir out
probe-flatten --list d/target/step0 | jq -r .rank | parallel -j 2 "$job"
ls out | sort -V | sed 's|^|out/|' | xargs cat > merged.ndjson
cmp serial.ndjson merged.ndjson && echo "parallel -j 2: the merged records equal the serial ones ($(wc -l < merged.ndjson) lines)"
probe-first merged.ndjson > merged-first.ndjson; echo "merged probe-first: status $?"
cmp serial-first.ndjson merged-first.ndjson && echo "the first divergences and the rank that started it are the same"
jq -c 'select(.summary) | .summary.started_by' merged-first.ndjson
# the same through --sshloginfile (":" runs the jobs here; a file of ssh logins spreads them over machines)
echo : > hosts
rm -rf out && mkdir out
probe-flatten --list d/target/step0 | jq -r .rank | parallel --sshloginfile hosts "$job"
ls out | sort -V | sed 's|^|out/|' | xargs cat | cmp - serial.ndjson && echo "--sshloginfile: the same records"
# msprobe's CSV, one file per rank: serially with -o, or one job per rank
mkdir csv-serial csv-par
probe-flatten d/target/step0 | probe-match d/golden/step0 | probe-metric -o csv-serial
probe-flatten --list d/target/step0 | jq -r .rank |
	parallel -j 2 'probe-flatten --only-ranks {} d/target/step0 | probe-match --only-ranks {} d/golden/step0 | probe-metric -o csv-par'
for f in csv-serial/*.csv; do
	r=$(basename "$f" | sed 's/^compare_result_\(rank[0-9]*\)_.*/\1/')
	cmp -s "$f" csv-par/compare_result_${r}_*.csv || echo "$r differs"
done
echo "CSV files: $(ls csv-serial | wc -l) serial, $(ls csv-par | wc -l) parallel, contents compared"
