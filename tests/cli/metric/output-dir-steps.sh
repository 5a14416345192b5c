# -o with records of several steps of a rank: msprobe compares one step at a
# time and names its file by rank and second, so the later step gets _step<N>
# before the time; each file is the table that step gives alone.
probe-gendump --steps 3 d > /dev/null
probe-flatten d/target | probe-match d/golden > pairs.ndjson
mkdir out
probe-metric -o out pairs.ndjson; echo "status $?"
ls out | sed 's/_[0-9]\{14\}\.csv$/_TIME.csv/'
for s in 0 1 2; do
	probe-flatten d/target/step$s | probe-match d/golden/step$s | probe-metric --csv > step$s.csv
	f=$(ls out/*.csv | grep "_step${s}_" || ls out/*.csv | grep -v _step)
	cmp -s step$s.csv $f && echo "step $s: the table of the step alone"
done
