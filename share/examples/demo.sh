#!/bin/sh
# make demo: the main job on a generated example.
#
# probe-gendump computes three training steps of a small MLP twice, a golden
# run and a target run whose fc2.weight is 1.01 times too large (the fault of
# the real fixture), and writes both as msprobe dumps.  probe-flatten turns
# each into records; jq finds the first leaf whose statistics differ; the
# pipeline says the same with the line of the model that called it; and
# probe-plot draws the comparison.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
PATH=$build/bin:$PATH
out=${DEMO_DIR:-$top/build/demo}
rm -rf "$out"
mkdir -p "$out"
cd "$out"

say() { printf '\n$ %s\n' "$*"; }

say probe-gendump --fault fc2-weight --steps 3 run
probe-gendump --fault fc2-weight --steps 3 run

say probe-flatten --list run/golden run/target
probe-flatten --list run/golden run/target

say "probe-flatten run/golden > golden.ndjson; probe-flatten run/target > target.ndjson"
probe-flatten run/golden > golden.ndjson
probe-flatten run/target > target.ndjson
wc -l golden.ndjson target.ndjson

say "head -1 target.ndjson | jq ."
head -1 target.ndjson | jq .

say "the first leaf, in execution order, whose statistics differ (bitwise, as text):"
prog='[range(0; $t | length) as $i | $t[$i] as $a | $g[$i] as $b
	| select($a.key == $b.key and ([$a.max, $a.min, $a.mean, $a.norm] != [$b.max, $b.min, $b.mean, $b.norm]))
	| {seq: $a.seq, name: $a.name, state: $a.state,
	   target: [$a.max, $a.min, $a.mean, $a.norm], golden: [$b.max, $b.min, $b.mean, $b.norm]}]
	| first'
printf "jq -n --slurpfile g golden.ndjson --slurpfile t target.ndjson '%s'\n" "$prog"
jq -n --slurpfile g golden.ndjson --slurpfile t target.ndjson "$prog"

say "probe-flatten run/target | probe-match run/golden | probe-metric | probe-stack > metric.ndjson"
probe-flatten run/target | probe-match run/golden | probe-metric | probe-stack > metric.ndjson

say "probe-first --format text metric.ndjson"
probe-first --format text metric.ndjson || [ $? = 1 ] # 1: a divergence was found

say "probe-plot --output-file plot.svg metric.ndjson; probe-plot --output-file plot.html metric.ndjson"
probe-plot --output-file plot.svg metric.ndjson
probe-plot --output-file plot.html metric.ndjson

echo
echo "The dumps are in $out/run; the records in $out/*.ndjson."
echo "The picture: $out/plot.svg (the page, with tooltips and a table to filter: $out/plot.html)."
