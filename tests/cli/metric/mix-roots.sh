# msprobe's mix compare writes OUTPUT/<graph|pynative>/<step>/compare_result_rank<N>_<ts>.csv,
# one file per folder, step and rank; probe-metric -o does the same for two graph/pynative roots.
. "$TESTS/data/mix-roots.sh"
mkdir out
probe-flatten T | probe-match G | probe-metric -o out; echo "status $?"
find out | sort | sed 's/_[0-9]\{14\}\.csv$/_TS.csv/'
# pynative/step0: the add output's Norm 12.0 against 6.0 is NormRelativeErr 100.0% with its inputs
# at 0: msprobe's error (> 0.5) and its warning (input 0, output > 0.1); the mul after it has that
# 100.0% on an input too, so its output's 100.0% passes.  graph/ and pynative/step1 all pass.
for f in out/graph/step0/*.csv out/pynative/step0/*.csv out/pynative/step1/*.csv; do
	echo "== ${f%%_rank0_*}"
	# NPU Name, L2norm diff, NormRelativeErr; then NPU Name, Result, Err_message
	cut -d, -f1,12,16 "$f" | sed 1d
	sed 1d "$f" | sed 's/^\([^,]*\),.*,\([a-z]*\),\(\[\]\|"\[.*\]"\)$/\1 \2 \3/'
done
echo "--csv to stdout holds one table, and these are three:"
probe-flatten T | probe-match G | probe-metric --csv > one.csv; echo "status $? $(wc -c < one.csv) bytes"
echo "one folder alone is one table:"
probe-flatten T | probe-match G | jq -c 'select((.t // .g).exec_mode == "graph")' | probe-metric --csv | cut -d, -f1,26
