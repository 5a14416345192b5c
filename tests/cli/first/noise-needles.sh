# Mixed precision with a planted bug: against a float32 golden run, a target in
# bf16, fp16 or float32 with its reductions in another order differs nearly
# everywhere by rounding, and probe-first must still find the bug where the
# generator put it.  The expected answer is the generator's needle.json, written
# from the injection, never from comparing the dumps (lib/testdata/gendecoder.h):
# the first divergence reported (the first record: the rank that started it) must
# be on the needle's entry and rank, with role "cause", and the summary must name
# that rank alone as the one that started it; exit status 1 (a finding).  The leaf
# must be the needle's too, except for the hook (kind "unmatched"): its entry
# Tensor.__mul__.0 has no golden partner, so the cause named is that entry's output
# (the tensor the difference enters through), and noise-hook.sh checks that.
# bf16 + weight runs in tensor mode (the elements compared), fp16 + kernel on two
# ranks with the fault on rank 1.  One line per case: the needle's leaf and kind,
# then ok or MISMATCH with what probe-first said instead.
# long: 18 generated runs, one in tensor mode (about 4 s plain)
for p in bf16 fp16 fp32-kernels; do
	for f in scale eps softmax-fp16 weight kernel hook; do
		set --
		case $p/$f in
		bf16/weight) set -- --mode tensor ;;
		fp16/kernel) set -- --ranks 2 --fault-rank 1 ;;
		esac
		probe-gendump --framework decoder --precision $p --fault $f "$@" d > /dev/null || echo "gendump failed: $p $f"
		probe-flatten d/target | probe-match d/golden > pairs.ndjson
		probe-first pairs.ndjson > out.ndjson
		status=$?
		got=$(head -n 1 out.ndjson | jq -c '.first_divergence | [.entry, .leaf, .role, .rank]')
		started=$(jq -c 'select(.summary) | .summary.started_by' out.ndjson)
		verdict=$(jq -r --argjson got "$got" --argjson started "$started" --argjson status $status '
			if $status == 1 and $got[0] == .entry and $got[2] == "cause" and $got[3] == .rank
			   and $started == [.rank] and (.kind == "unmatched" or $got[1] == .leaf)
			then "ok" else "MISMATCH: status \($status), got \($got), started_by \($started)" end' d/needle.json)
		printf '%-12s %-12s %s%s: %s\n' $p $f "$(jq -r '"\(.leaf) \(.kind) rank \(.rank)"' d/needle.json)" "${*:+ ($*)}" "$verdict"
		rm -rf d
	done
done
