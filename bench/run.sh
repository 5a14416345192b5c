#!/bin/sh
# bench/run.sh BUILD: the measurements of probe (make bench).
#
# Inputs are built here, once, under bench/out/ (about 28 GB): the big statistics pair of
# ../shared/bench/make-big-pair.py (when ../shared and python3 are there) at two
# sizes, and dumps of the project's own generator at two sizes, so that the
# benchmark also runs from a fresh clone, and tensor dumps of the generator
# (float32 and bfloat16, about 2.2 GB of tensors each), ATB dumps of the generator (2.2 GB of
# .bin tensors), and pairs of generated checkpoints (a
# safetensors file and a .pt, 2.1 GB each).  Each figure is the median of RUNS runs
# (default 5) with min and max; peak memory is the largest RSS of those runs.
# Next to each figure, a reference measured in the same run: reading the same
# bytes once (cat from the page cache) and, for JSON, `jq -c .data`.
# Results: one NDJSON line per figure in bench/out/results.ndjson, and a table.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
bin=$build/bin
out=$top/bench/out
runs=${RUNS:-5}
mkdir -p "$out"
results=$out/results.ndjson
: > "$results"
stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)

# measure NAME BYTES CMD...: run CMD $runs times; record median/min/max seconds and peak KB
measure() {
	name=$1 bytes=$2
	shift 2
	times=$(mktemp)
	peak=0
	i=0
	: > "$times.cpu"
	while [ $i -lt "$runs" ]; do
		start=$(date +%s%N)
		/usr/bin/time -f '%M %U %S' -o "$times.one" sh -c "$*" > /dev/null
		end=$(date +%s%N)
		read -r kb user sys < "$times.one"
		echo "$(( (end - start) / 1000 ))" | awk '{ printf "%.6f\n", $1 / 1e6 }' >> "$times"
		echo "$user $sys" | awk '{ printf "%.2f %.2f\n", $1 + $2, $2 }' >> "$times.cpu"
		[ "$kb" -gt "$peak" ] && peak=$kb
		i=$((i + 1))
	done
	# CPU seconds (user + system, of every process of the command): the median run's, by CPU
	cpu=$(sort -n "$times.cpu" | awk '{ c[NR] = $1; s[NR] = $2 } END { m = int((NR + 1) / 2); print c[m], s[m] }')
	sort -n "$times" | awk -v name="$name" -v bytes="$bytes" -v peak="$peak" -v runs="$runs" \
		-v stamp="$stamp" -v commit="$commit" -v cpu="$cpu" '
		{ t[NR] = $1 }
		END {
			med = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
			if (med <= 0) med = 0.000001
			mbs = bytes / 1e6 / med
			split(cpu, c, " ")
			printf "{\"figure\":\"%s\",\"median_s\":%.4f,\"min_s\":%.4f,\"max_s\":%.4f,\"runs\":%d,\"bytes\":%.0f,\"mb_per_s\":%.1f,\"cpu_s\":%.2f,\"sys_s\":%.2f,\"peak_kb\":%d,\"commit\":\"%s\",\"date\":\"%s\"}\n",
				name, med, t[1], t[NR], runs, bytes, mbs, c[1], c[2], peak, commit, stamp
		}' >> "$results"
	rm -f "$times" "$times.one" "$times.cpu"
}

# inputs -------------------------------------------------------------------
big() { # REPLICAS: the pair of make-big-pair.py
	d=$out/big$1
	if [ ! -f "$d/target/step0/rank0/dump.json" ]; then
		python3 "$top/../shared/bench/make-big-pair.py" "$1" "$d" > /dev/null
	fi
	echo "$d"
}
gen() { # LAYERS MICRO: the project's own generator
	d=$out/gen-l$1-m$2
	if [ ! -f "$d/target/step0/rank0/dump.json" ]; then
		"$bin/probe-gendump" --layers "$1" --micro-batches "$2" "$d" > /dev/null
	fi
	echo "$d"
}
size() { wc -c < "$1" | tr -d ' '; }

pairs=
if [ -f "$top/../shared/bench/make-big-pair.py" ] && command -v python3 > /dev/null; then
	pairs="$(big 30) $(big 300)"  # 21 MB and 209 MB a side: the sizes msprobe was timed on
else
	echo "bench: ../shared/bench/make-big-pair.py or python3 missing: msprobe's big pair left out" >&2
fi
pairs="$pairs $(gen 100 40) $(gen 300 40)"
# msprobe's largest pair (or ours): its compare pipeline is measured stage by stage and whole
last=$(echo $pairs | tr ' ' '\n' | grep big | tail -1)
[ -n "$last" ] || last=$(echo $pairs | tr ' ' '\n' | tail -1)

# figures ------------------------------------------------------------------
for p in $pairs; do
	f=$p/target/step0/rank0/dump.json
	label=$(basename "$p")
	bytes=$(size "$f")
	cat "$f" > /dev/null # into the page cache
	measure "read-once:$label" "$bytes" "cat '$f'"
	measure "flatten:$label" "$bytes" "'$bin/probe-flatten' -q '$f'"
	# the smaller of msprobe's pairs to CSV too (the largest gets it below, with its stages)
	case $label in
	big*) [ "$p" = "$last" ] ||
		measure "pipeline-csv:$label" "$bytes" "'$bin/probe-flatten' -q '$p/target' | '$bin/probe-match' '$p/golden' | '$bin/probe-metric' --csv" ;;
	esac
done
# the compare pipeline, stage by stage and whole, on $last
label=$(basename "$last")
f=$last/target/step0/rank0/dump.json
bytes=$(size "$f")
tmp=$out/tmp
mkdir -p "$tmp"
"$bin/probe-flatten" -q "$last/target" > "$tmp/target.ndjson"
"$bin/probe-match" "$last/golden" "$tmp/target.ndjson" > "$tmp/pairs.ndjson"
measure "stage-match:$label" "$bytes" "'$bin/probe-match' '$last/golden' '$tmp/target.ndjson'"
measure "stage-metric-csv:$label" "$bytes" "'$bin/probe-metric' --csv '$tmp/pairs.ndjson'"
measure "stage-metric-ndjson:$label" "$bytes" "'$bin/probe-metric' '$tmp/pairs.ndjson'"
# msprobe's workbook beside its CSV: -o, as users run it (the workbook is deflated, its rows spilled first)
mkdir -p "$tmp/xlsx" "$tmp/csvdir"
measure "stage-metric-xlsx:$label" "$bytes" "rm -f '$tmp/xlsx'/* && '$bin/probe-metric' -o '$tmp/xlsx' --xlsx '$tmp/pairs.ndjson'"
measure "stage-metric-csv-o:$label" "$bytes" "rm -f '$tmp/csvdir'/* && '$bin/probe-metric' -o '$tmp/csvdir' '$tmp/pairs.ndjson'"
measure "stage-first:$label" "$bytes" "'$bin/probe-first' '$tmp/pairs.ndjson' || test \$? = 1"
"$bin/probe-metric" "$tmp/pairs.ndjson" > "$tmp/metric.ndjson"
measure "stage-plot-svg:$label" "$bytes" "'$bin/probe-plot' '$tmp/metric.ndjson'"
measure "stage-plot-html:$label" "$bytes" "'$bin/probe-plot' --format html '$tmp/metric.ndjson'"
# probe-graph on the same records (make-big-pair.py writes no construct.json: bench/big-construct.py does)
case $label in
big*) [ -f "$last/target/step0/rank0/construct.json" ] || python3 "$top/bench/big-construct.py" "${label#big}" "$last" ;;
esac
RUNS_SAVED=$runs; runs=$(( runs < 3 ? runs : 3 ))
measure "stage-graph-html:$label" "$bytes" "'$bin/probe-graph' --output-file '$tmp/graph.html' '$tmp/metric.ndjson'"
measure "stage-graph-visdb:$label" "$bytes" "'$bin/probe-graph' --output-file '$tmp/graph.vis.db' '$tmp/metric.ndjson'"
runs=$RUNS_SAVED
browser=$(command -v chromium-headless-shell || command -v chromium || true)
if [ -n "$browser" ]; then
	# the page's time to interactive in headless Chromium, and its size
	python3 "$top/tests/browser/page_ready.py" "$tmp/graph.html" |
		jq -c --arg f "graph-page-ready:$label" --arg c "$commit" --arg d "$stamp" \
			'{figure: $f, median_s: (.ready_ms / 1000), min_s: (.ready_ms / 1000), max_s: (.ready_ms / 1000), runs: 1,
			  bytes: .bytes, mb_per_s: (.bytes / 1e6 / (.ready_ms / 1000)), peak_kb: 0, commit: $c, date: $d}' >> "$results"
else
	echo "bench: no chromium-headless-shell: the page's time to interactive is left out" >&2
fi
measure "pipeline-csv:$label" "$bytes" "'$bin/probe-flatten' -q '$last/target' | '$bin/probe-match' '$last/golden' | '$bin/probe-metric' --csv"
measure "pipeline-ndjson:$label" "$bytes" "'$bin/probe-flatten' -q '$last/target' | '$bin/probe-match' '$last/golden' | '$bin/probe-metric'"
rm -rf "$tmp"

# tensor mode: generated dumps of about 2.2 GB of tensors (target + golden), float32 and bfloat16
tensor_dump() { # DTYPE WIDTH
	d=$out/tensor-$1-w$2
	if [ ! -f "$d/golden/step0/rank0/dump.json" ]; then
		"$bin/probe-gendump" --mode tensor --dtype "$1" --width "$2" "$d" > /dev/null
	fi
	echo "$d"
}
tmp=$out/tmp
mkdir -p "$tmp"
for spec in float32:8192 bfloat16:11585; do
	d=$(tensor_dump "${spec%:*}" "${spec#*:}")
	label=${spec%:*}
	files="$d/target/step0/rank0/dump_tensor_data/* $d/golden/step0/rank0/dump_tensor_data/*"
	# shellcheck disable=SC2086 # the glob is meant
	bytes=$(cat $files | wc -c | tr -d ' ')
	"$bin/probe-flatten" -q "$d/target" | "$bin/probe-match" "$d/golden" > "$tmp/tensor-pairs.ndjson"
	measure "read-once:tensor-$label" "$bytes" "cat $files"
	measure "tensor-metric-j1:$label" "$bytes" "'$bin/probe-metric' -j 1 --csv '$tmp/tensor-pairs.ndjson'"
	measure "tensor-metric-j2:$label" "$bytes" "'$bin/probe-metric' -j 2 --csv '$tmp/tensor-pairs.ndjson'"
done
rm -rf "$tmp"

# ATB (MindIE) dumps: msprobe's compare -m atb table and our answer on a generated operation and kernel
# dump of about 1.1 GB of .bin tensors a side (2.2 GB in all), and the same model's statistics dump
atb_dump() { # MODE
	d=$out/atb-$1
	if [ ! -f "$d/golden/atb_dump_data/data/0_39943/0/statistic.csv" ]; then
		rm -rf "$d"
		"$bin/probe-gendump" --framework atb --mode "$1" --save-child --width 4096 --layers 7 "$d" > /dev/null
	fi
	echo "$d"
}
d=$(atb_dump tensor)
bytes=$(find "$d" -name '*.bin' -exec cat {} + | wc -c | tr -d ' ')
measure "read-once:atb-tensor" "$bytes" "find '$d' -name '*.bin' -exec cat {} + > /dev/null"
measure "atb-tensor-csv" "$bytes" "'$bin/probe-flatten' '$d/target' | '$bin/probe-match' '$d/golden' | '$bin/probe-metric' --csv"
measure "atb-tensor-first" "$bytes" "'$bin/probe-flatten' '$d/target' | '$bin/probe-match' '$d/golden' | '$bin/probe-metric' | '$bin/probe-first'; test \$? -le 1"
d=$(atb_dump statistics)
bytes=$(cat "$d"/*/atb_dump_data/data/*/0/statistic.csv | wc -c | tr -d ' ')
measure "atb-stats-csv" "$bytes" "'$bin/probe-flatten' '$d/target' | '$bin/probe-match' '$d/golden' | '$bin/probe-metric' --csv"

# many ranks: a 64-rank and a 256-rank step, serially (one process a stage over every rank), one job
# per rank with GNU parallel on every core, and one job per batch of ranks (probe-flatten --batches:
# as many batches as processors, the batches' records concatenated in order for probe-first)
ranks_step() { # N: the folder of an N-rank step of the generator
	d=$out/ranks$1
	if [ ! -f "$d/golden/step0/rank$(($1 - 1))/dump.json" ]; then
		"$bin/probe-gendump" --ranks "$1" --fault-rank $(($1 / 2 + 5)) --layers 40 --micro-batches 4 "$d" > /dev/null
	fi
	echo "$d"
}
for nr in 64 256; do
	rd=$(ranks_step $nr)
	bytes=$(cat "$rd"/target/step0/rank*/dump.json | wc -c | tr -d ' ')
	cat "$rd"/*/step0/rank*/dump.json > /dev/null
	measure "read-once:ranks$nr" "$bytes" "cat '$rd'/target/step0/rank*/dump.json"
	measure "ranks$nr-serial-first" "$bytes" \
		"'$bin/probe-flatten' -q '$rd/target/step0' | '$bin/probe-match' '$rd/golden/step0' | '$bin/probe-metric' | '$bin/probe-first' > /dev/null || test \$? = 1"
	if command -v parallel > /dev/null; then
		mkdir -p "$tmp"
		measure "ranks$nr-parallel-first" "$bytes" \
			"rm -rf '$tmp/rk' && mkdir -p '$tmp/rk' && '$bin/probe-flatten' --list '$rd/target/step0' | jq -r .rank | parallel -j \$(nproc) \"'$bin/probe-flatten' -q --only-ranks {} '$rd/target/step0' | '$bin/probe-match' --only-ranks {} '$rd/golden/step0' | '$bin/probe-metric' -j 1 > '$tmp/rk/{}.ndjson'\" && ls '$tmp/rk' | sort -n | sed 's|^|$tmp/rk/|' | xargs cat | '$bin/probe-first' > /dev/null || test \$? = 1"
		"$bin/probe-flatten" --batches "$(getconf _NPROCESSORS_ONLN)" "$rd/target/step0" > "$tmp/batches"
		measure "ranks$nr-batched-first" "$bytes" \
			"rm -rf '$tmp/rk' && mkdir -p '$tmp/rk' && parallel -j \$(nproc) \"'$bin/probe-flatten' -q --only-ranks {} '$rd/target/step0' | '$bin/probe-match' --only-ranks {} '$rd/golden/step0' | '$bin/probe-metric' -j 1 > '$tmp/rk/{#}.ndjson'\" < '$tmp/batches' && ls '$tmp/rk' | sort -n | sed 's|^|$tmp/rk/|' | xargs cat | '$bin/probe-first' > /dev/null || test \$? = 1"
		rm -rf "$tmp/rk" "$tmp/batches"
	else
		echo "bench: GNU parallel missing (make deps installs it): the parallel $nr-rank figures are left out" >&2
	fi
done
# msprobe merge_result's job on the 64 ranks: their workbooks (one per rank), merged and checked
r64=$out/ranks64
mkdir -p "$tmp/r64x"
if [ -z "$(ls "$tmp/r64x")" ]; then
	"$bin/probe-flatten" -q "$r64/target/step0" | "$bin/probe-match" "$r64/golden/step0" | "$bin/probe-metric" -o "$tmp/r64x" --xlsx
fi
measure "ranks64-merge-xlsx" "$(cat "$tmp"/r64x/*.xlsx | wc -c | tr -d ' ')" \
	"rm -rf '$tmp/r64m' && mkdir '$tmp/r64m' && '$bin/probe-merge' --api all_reduce -o '$tmp/r64m' '$tmp/r64x' 2> /dev/null"
measure "ranks64-merge-groups" "$(cat "$tmp"/r64x/*.xlsx | wc -c | tr -d ' ')" "'$bin/probe-merge' --groups '$tmp/r64x' > /dev/null || test \$? = 1"
rm -rf "$tmp"

# cross-framework with the layer mapping (bench/crossfw-lm.py): a MindSpore target against a
# PyTorch golden, 163,200 and 326,400 leaves a side; twice the scopes should take twice the time
for layers in 3400 6800; do
	d=$out/crossfw-lm$layers
	[ -f "$d/ms/dump.json" ] || python3 "$top/bench/crossfw-lm.py" "$layers" "$d"
	measure "crossfw-lm:$layers" "$(size "$d/ms/dump.json")" \
		"'$bin/probe-flatten' -q '$d/ms' | '$bin/probe-match' --layer-mapping='$d/layer_mapping.yaml' '$d/pt' | '$bin/probe-metric' --csv"
done

# two checkpoints of about 2.1 GB each (6 layers of width 4096, bfloat16), one weight element apart,
# as a safetensors file and as a .pt state dict: probe-ckpt against reading both once (cat from the
# page cache); -j 1 and the default (every processor); probe-flatten of one (statistics of every
# parameter) against reading it once
ckpt_pair() { # LAYOUT: the folder of the pair
	d=$out/ckpt-$1
	if [ ! -f "$d/.done" ]; then
		rm -rf "$d"
		"$bin/probe-gendump" --framework checkpoint --ckpt-layout "$1" --layers 6 --width 4096 "$d" > /dev/null &&
			touch "$d/.done"
	fi
	echo "$d"
}
for layout in safetensors pt; do
	d=$(ckpt_pair $layout)
	a=$d/golden/model.$layout b=$d/target/model.$layout
	[ $layout = safetensors ] || { a=$d/golden/model.pt b=$d/target/model.pt; }
	bytes=$(($(size "$a") + $(size "$b")))
	cat "$a" "$b" > /dev/null # into the page cache
	measure "read-once:ckpt-$layout" "$bytes" "cat '$a' '$b'"
	measure "ckpt-compare-j1:$layout" "$bytes" "'$bin/probe-ckpt' -j 1 '$a' '$b' || test \$? = 1"
	measure "ckpt-compare:$layout" "$bytes" "'$bin/probe-ckpt' '$a' '$b' || test \$? = 1"
	measure "ckpt-flatten:$layout" "$(size "$a")" "'$bin/probe-flatten' '$a'"
done

# jq reference on the largest pair only (msprobe's when it is there): it takes seconds a run
last=$(echo $pairs | tr ' ' '\n' | grep big | tail -1)
[ -n "$last" ] || last=$(echo $pairs | tr ' ' '\n' | tail -1)
f=$last/target/step0/rank0/dump.json
RUNS_SAVED=$runs; runs=1
measure "jq-c-data:$(basename "$last")" "$(size "$f")" "jq -c .data '$f'"
runs=$RUNS_SAVED

# table --------------------------------------------------------------------
printf '%-28s %9s %9s %9s %10s %10s\n' figure median_s min_s max_s MB/s peak_MB
jq -r '[.figure, .median_s, .min_s, .max_s, .mb_per_s, (.peak_kb / 1024 | floor)] | @tsv' "$results" |
	awk -F'\t' '{ printf "%-28s %9.4f %9.4f %9.4f %10.1f %10d\n", $1, $2, $3, $4, $5, $6 }'
echo
echo "ratios (flatten MB/s over read-once MB/s, and over jq):"
jq -rs '
	(map({(.figure): .}) | add) as $f
	| [.[] | select(.figure | startswith("flatten:"))]
	| .[] | (.figure | sub("flatten:"; "")) as $l
	| "  \($l): \(.mb_per_s) MB/s = \((.mb_per_s / $f["read-once:" + $l].mb_per_s * 100 | floor)) % of read-once; \(if .cpu_s > 0 then (.bytes / 1e6 / .cpu_s | floor) else "?" end) MB a CPU-second"
	  + (if $f["jq-c-data:" + $l] then ", \((.mb_per_s / $f["jq-c-data:" + $l].mb_per_s * 10 | floor) / 10)x jq" else "" end)' "$results"
echo
echo "msprobe's workbook (probe-metric -o DIR --xlsx) beside the CSV files (-o DIR):"
jq -r 'select(.figure | test("^stage-metric-(xlsx|csv-o)")) | "  \(.figure): \(.median_s) s (min \(.min_s), max \(.max_s)), peak \(.peak_kb / 1024 | floor) MB"' "$results"
echo
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2> /dev/null | head -1)
echo "this machine: ${cpu:-unknown processor}, $(getconf _NPROCESSORS_ONLN) processors"
# msprobe cannot be installed here: its figures as measured (msprobe 26.0.0, AMD EPYC, 2 cores):
# 258.7 s and 4.70 GB peak on the 209 MB pair (a side) to CSV, 22.3 s on the 21 MB pair.
echo "the compare pipeline, stage by stage (each on its file) and whole (to CSV: the ratio to msprobe compare's time on a pair of that size, 258.7 s for 209 MB, 22.3 s for 21 MB, AMD EPYC):"
jq -r 'select(.figure | test("^(stage-(match|metric|first)|pipeline)"))
	| (.mb_per_s * .median_s) as $mb
	| (if (.figure | startswith("pipeline-csv")) | not then null elif ($mb > 190 and $mb < 230) then 258.7
	   elif ($mb > 18 and $mb < 24) then 22.3 else null end) as $ms
	| "  \(.figure): \(.median_s) s (min \(.min_s), max \(.max_s)), \(.cpu_s) CPU-s (system \(.sys_s)), peak \(.peak_kb / 1024 | floor) MB"
	  + (if $ms then ", \($ms / .median_s | floor)x msprobe" else "" end)' "$results"
echo
echo "probe-plot and probe-graph on the metric records of the pair (msprobe graph_visualize not measured here):"
jq -r 'select(.figure | test("graph|plot")) | if (.figure | startswith("graph-page-ready")) then "  \(.figure): the page (\(.bytes / 1e6 | floor) MB) ready in headless Chromium after \(.median_s) s" else "  \(.figure): \(.median_s) s (min \(.min_s), max \(.max_s)), peak \(.peak_kb / 1024 | floor) MB" end' "$results"
echo
echo "tensor metrics (GB/s of tensor data, target + golden; read-once: cat of the same files from the page cache):"
jq -rs '
	(map({(.figure): .}) | add) as $f
	| [.[] | select(.figure | startswith("tensor-metric"))]
	| .[] | (.figure | sub("tensor-metric-j[0-9]+:"; "")) as $l
	| "  \(.figure): \(.mb_per_s / 1000 * 100 | floor / 100) GB/s, \(.median_s) s, peak \(.peak_kb / 1024 | floor) MB; read-once \($f["read-once:tensor-" + $l].mb_per_s / 1000 * 10 | floor / 10) GB/s, \(($f["read-once:tensor-" + $l].mb_per_s / .mb_per_s) * 10 | floor / 10)x slower"' "$results"
echo
echo "ATB (MindIE) dumps, compare -m atb (tensor: GB/s of .bin data, target + golden; read-once: the same files from the page cache):"
jq -rs '(map({(.figure): .}) | add) as $f | [.[] | select(.figure | test("^atb-"))] | .[]
	| "  \(.figure): \(.median_s) s (min \(.min_s), max \(.max_s)), peak \(.peak_kb / 1024 | floor) MB"
	  + (if (.figure | startswith("atb-tensor")) then ", \(.mb_per_s / 1000 * 100 | floor / 100) GB/s, \((.median_s / $f["read-once:atb-tensor"].median_s) * 10 | floor / 10)x read-once (\($f["read-once:atb-tensor"].median_s) s)" else "" end)' "$results"
echo
echo "checkpoints (two of 2.1 GB, one weight element apart; read-once: cat of both from the page cache):"
jq -rs '(map({(.figure): .}) | add) as $f | [.[] | select(.figure | startswith("ckpt-"))] | .[]
	| (.figure | sub("ckpt-[a-z]+(-j1)?:"; "")) as $l
	| "  \(.figure): \(.median_s) s, \(.mb_per_s / 1000 * 100 | floor / 100) GB/s, peak \(.peak_kb / 1024 | floor) MB; \(($f["read-once:ckpt-" + $l].mb_per_s / .mb_per_s) * 10 | floor / 10)x the time of reading the bytes once"' "$results"
echo
echo "many ranks (64 and 256 ranks of the generator, compare to probe-first; the speed-up is over the serial form):"
jq -rs '(map({(.figure): .}) | add) as $f | [.[] | select(.figure | test("^ranks[0-9]+-"))] | .[]
	| (.figure | capture("^(?<r>ranks[0-9]+)-").r) as $r
	| "  \(.figure): \(.median_s) s (min \(.min_s), max \(.max_s)), \(.cpu_s) CPU-s, \(.mb_per_s) MB/s, peak \(.peak_kb / 1024 | floor) MB"
	  + (if (.figure | test("parallel|batched")) and $f[$r + "-serial-first"] then ", \($f[$r + "-serial-first"].median_s / .median_s * 100 | floor / 100)x serial" else "" end)' "$results"
echo "layer mapping across frameworks (pipeline to CSV; time per leaf should not grow with the scopes):"
jq -rs '(map({(.figure): .}) | add) as $f | [.[] | select(.figure | startswith("crossfw-lm:"))] | .[]
	| (.figure | sub("crossfw-lm:"; "") | tonumber) as $l
	| "  \($l) layers, \($l * 48) leaves a side: \(.median_s) s (min \(.min_s), max \(.max_s)), \(.median_s / ($l * 48) * 1e6 | floor / 1) us a leaf, peak \(.peak_kb / 1024 | floor) MB"' "$results"
echo "results: $results"
