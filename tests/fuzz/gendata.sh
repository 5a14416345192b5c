#!/bin/sh
# tests/fuzz/gendata.sh: example data for the fuzz seeds, made with the
# project's own tools.
#
#   tests/fuzz/gendata.sh [--quick] BINDIR DIR
#
# Writes probe-gendump dumps to DIR/<kind>/{golden,target} (statistics,
# md5 and tensor modes, --zoo, the torch 2.x .pt layout, bfloat16, .npy,
# several ranks, steps and micro-batches) and, for each, the golden's
# leaf records (DIR/<kind>.leaves), the pair and metric records of
# target against golden (.pairs, .metric) and msprobe's compare_result
# CSVs of step 0, one per rank as msprobe names them (DIR/<kind>-csv/).  --quick makes four small dumps only (for make check).
# The tools are taken from BINDIR.  Exits 1 when a tool fails.
set -u
quick=0
[ "${1:-}" = --quick ] && { quick=1; shift; }
[ $# = 2 ] || { echo "usage: tests/fuzz/gendata.sh [--quick] BINDIR DIR" >&2; exit 2; }
bin=$1 gen=$2
mkdir -p "$gen" || exit 1
small="--layers 2 --width 2 --batch 1"
if [ $quick = 1 ]; then
	set -- "stat:--mode statistics --zoo $small" "md5:--mode md5 --zoo $small" \
		"tensor:--mode tensor --zoo $small" "npy:--mode tensor --format npy $small"
else
	set -- "stat:--mode statistics" "md5:--mode md5 --zoo" "ranks:--ranks 2 --steps 2 $small" \
		"micro:--micro-batches 2 --fault nan $small" "tensor:--mode tensor --zoo $small" \
		"torch2:--mode tensor --pt-layout torch2 $small" "bf16:--mode tensor --dtype bfloat16 $small" \
		"npy:--mode tensor --format npy $small"
fi
status=0
for spec in "$@"; do
	n=${spec%%:*}
	rm -rf "${gen:?}/$n"
	# shellcheck disable=SC2086 # the options are words
	if ! "$bin/probe-gendump" ${spec#*:} "$gen/$n" > /dev/null 2>> "$gen/gendump.log"; then
		echo "gendata.sh: probe-gendump ${spec#*:} failed (see $gen/gendump.log)" >&2
		status=1
		continue
	fi
	"$bin/probe-flatten" "$gen/$n/golden" > "$gen/$n.leaves" 2>> "$gen/gendump.log" || status=1
	"$bin/probe-flatten" "$gen/$n/target" 2>> "$gen/gendump.log" |
		"$bin/probe-match" "$gen/$n/golden" > "$gen/$n.pairs" 2>> "$gen/gendump.log" || status=1
	"$bin/probe-metric" < "$gen/$n.pairs" > "$gen/$n.metric" 2>> "$gen/gendump.log" || status=1
	mkdir -p "$gen/$n-csv"
	"$bin/probe-flatten" "$gen/$n/target/step0" 2>> "$gen/gendump.log" |
		"$bin/probe-match" "$gen/$n/golden/step0" 2>> "$gen/gendump.log" |
		"$bin/probe-metric" -o "$gen/$n-csv" 2>> "$gen/gendump.log" || status=1
	mkdir -p "$gen/$n-xlsx"
	"$bin/probe-metric" -o "$gen/$n-xlsx" --xlsx < "$gen/$n.pairs" 2>> "$gen/gendump.log" || status=1
done
exit $status
