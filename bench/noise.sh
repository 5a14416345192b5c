#!/bin/sh
# The rounding budget measured (issue 39): probe-first on generated runs of a
# small LLaMA-style decoder (probe-gendump --framework decoder), the golden in
# float32 and the target in bf16, fp16 or other float32 kernels.
#   noise-only runs: how many name a cause (false causes; goal 0), and the
#                    largest ratio to the budget among their leaves;
#   planted bugs:    whether the first cause named is the generator's needle
#                    (needle.json: the generator's own injection, never probe's).
# Usage: bench/noise.sh [BIN] [FACTOR]   (BIN: the tools, default build/bin)
set -u
BIN=${1:-build/bin}
FACTOR=${2:-}
PATH=$BIN:$PATH
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
ff=${FACTOR:+--budget-factor $FACTOR}
noise_runs=0 false_causes=0 worst=0
for prec in bf16 fp16 fp32-kernels; do
	for seed in 1 2 3 4 5 6 7 8 9; do
		case $seed in
		1|2) size="--layers 4 --width 32 --batch 8" ;;
		3|4) size="--layers 6 --width 64 --batch 16" ;;
		5) size="--layers 2 --width 128 --batch 32" ;;
		6) size="--layers 8 --width 32 --batch 4 --ranks 2" ;;
		7) size="--layers 3 --width 96 --batch 24 --mode tensor" ;;
		8) size="--layers 16 --width 256 --batch 16" ;;
		*) size="--layers 32 --width 128 --batch 16" ;;
		esac
		rm -rf "$W/r"
		probe-gendump --framework decoder --precision $prec --fault none --seed $seed $size "$W/r" > /dev/null || exit 2
		probe-flatten "$W/r/target" | probe-match "$W/r/golden" | probe-first $ff -n 1 > "$W/out"
		noise_runs=$((noise_runs + 1))
		answer=$(jq -r 'select(.summary) | .summary.answer' "$W/out")
		# every leaf's ratio: with a tiny factor each differing leaf is reported with its own
		closest=$(probe-flatten "$W/r/target" | probe-match "$W/r/golden" |
			probe-first --budget-factor 1e-9 -n 100000 | jq -r 'select(.first_divergence) | .first_divergence.rounding.ratio // 0' |
			grep -v inf | sort -g | tail -1)
		if [ "$answer" != within_rounding ]; then
			false_causes=$((false_causes + 1))
			echo "false cause: $prec seed $seed ($size): $answer, $(jq -r 'select(.first_divergence) | .first_divergence.leaf' "$W/out" | head -1)"
		fi
		worst=$(printf '%s\n%s\n' "$worst" "${closest:-0}" | sort -g | tail -1)
		printf 'noise %-13s seed %s: %-16s largest ratio %s\n' $prec $seed "$answer" "${closest:-0}"
	done
done
planted=0 found=0
for prec in bf16 fp16 fp32-kernels fp32; do
	for fault in scale eps softmax-fp16 weight kernel hook; do
		for seed in 1 2; do
			rm -rf "$W/r"
			probe-gendump --framework decoder --precision $prec --fault $fault --seed $seed --layers 4 --fault-layer $((seed)) \
				"$W/r" > /dev/null || exit 2
			want=$(jq -r '.leaf' "$W/r/needle.json")
			want_entry=$(jq -r '.entry' "$W/r/needle.json")
			got=$(probe-flatten "$W/r/target" | probe-match "$W/r/golden" | probe-first $ff |
				jq -r 'select(.first_divergence) | .first_divergence | "\(.entry) \(.leaf) \(.role)"' | head -1)
			planted=$((planted + 1))
			case "$got" in
			"$want_entry "*" cause") found=$((found + 1)); mark=ok ;;
			*) mark=MISSED ;;
			esac
			printf 'planted %-13s %-13s seed %s: %-6s want %s, got %s\n' $prec $fault $seed $mark "$want" "${got:-none}"
		done
	done
done
echo "noise-only runs: $noise_runs, false causes: $false_causes, largest ratio to the budget: $worst (factor ${FACTOR:-12}, the default)"
echo "planted bugs: $planted, named first: $found"
