# The rounding budget's options (tools/probe-first.c, probe-first(1)).
# Usage errors, exit 2 with a message and no result: --budget-factor is a number
# above 0 (0, -1 and abc are refused); it sets the budget, which --bitwise (no
# budget) and a band (--rtol) replace, so neither goes with it; --nonfinite looks
# at one run, where no budget applies, so --bitwise is refused with it.
# --explain on the decoder's bf16 scale fault: the first divergence's record holds
# rounding.before, the leaves judged rounding just before it (1 to 16 of them, the
# last ones), each within the factor (delta <= budget * factor: it was judged
# rounding), and the text has a "before" line.
# The budget decides: on a bf16 noise-only run (within rounding at the default
# factor 8, noise-within.sh), --budget-factor 0.5 gives a divergence (exit 1)
# whose record says it is beyond its budget (ratio > 0.5, delta > 0.5 budget).
# A huge factor (1e6) lets every numeric difference pass in bf16: a relative delta
# of a few at most against a budget of at least bf16's unit 2^-8 (an output's own
# rounding), times 1e6.  The kernel fault (needle kind "numeric": silu computes
# sigmoid) then gives "within_rounding", exit 0; a structural difference is
# beyond rounding at any factor, so the softmax-fp16 fault (kind "nonfinite": inf
# and NaN on one side) is still found at the needle, its record "structural".
# Each check prints ok or MISMATCH with what was found.
check() { # what, condition (a jq expression over null input that is true when it holds)
	if [ "$(jq -n "$2")" = true ]; then echo "$1: ok"; else echo "$1: MISMATCH"; fi
}
probe-gendump --framework decoder --precision bf16 --fault scale d > /dev/null
probe-flatten d/target | probe-match d/golden > pairs.ndjson
echo "== usage errors"
for opts in "--budget-factor 0" "--budget-factor -1" "--budget-factor abc" "--budget-factor 2 --bitwise" \
	"--budget-factor 2 --rtol 0.1" "--nonfinite --bitwise"; do
	# shellcheck disable=SC2086
	probe-first $opts pairs.ndjson > out.ndjson 2> err.txt
	status=$?
	echo "probe-first $opts: status $status"
	head -n 1 err.txt
	check "  nothing but an error record" "$(jq -s 'length == 1 and (.[0] | keys) == ["error"]' out.ndjson)"
done
echo "== --explain (bf16, scale)"
leaf=$(jq -r .leaf d/needle.json)
probe-first --explain pairs.ndjson > out.ndjson
status=$?
head -n 1 out.ndjson > first.json
check "status $status, first divergence at the needle $leaf" "$status == 1 and $(jq '.first_divergence.leaf' first.json) == \"$leaf\""
n=$(jq '.first_divergence.rounding.before | length' first.json)
check "rounding.before: 1 to 16 leaves" "$n >= 1 and $n <= 16"
check "each within the factor" "$(jq '.first_divergence.rounding as $r | $r.factor as $f | all($r.before[]; .delta <= .budget * $f)' first.json)"
probe-first --explain --format text pairs.ndjson | grep -c '^  before   [0-9]* leaves of this rank differ within rounding before it' | sed 's/^/text: before lines: /'
rm -rf d
echo "== --budget-factor 0.5 (bf16, no fault)"
probe-gendump --framework decoder --precision bf16 --fault none d > /dev/null
probe-flatten d/target | probe-match d/golden > pairs.ndjson
probe-first pairs.ndjson > /dev/null
echo "default factor: status $?"
probe-first --budget-factor 0.5 pairs.ndjson > out.ndjson
status=$?
head -n 1 out.ndjson > first.json
check "--budget-factor 0.5: status $status, a divergence beyond 0.5 of its budget" \
	"$status == 1 and $(jq '.first_divergence.rounding | .factor == 0.5 and .ratio > 0.5 and .delta > 0.5 * .budget' first.json)"
rm -rf d
echo "== --budget-factor 1e6 (bf16)"
for fault in kernel softmax-fp16; do
	probe-gendump --framework decoder --precision bf16 --fault $fault d > /dev/null
	probe-flatten d/target | probe-match d/golden > pairs.ndjson
	probe-first --budget-factor 1e6 pairs.ndjson > out.ndjson
	status=$?
	kind=$(jq -r .kind d/needle.json)
	if [ "$kind" = numeric ]; then
		check "$fault ($kind): status $status, within rounding" \
			"$status == 0 and $(jq -s 'length == 1 and .[0].summary.answer == "within_rounding"' out.ndjson)"
	else
		got=$(head -n 1 out.ndjson | jq -c '.first_divergence | {leaf, role, structural: (.rounding.structural != null)}')
		check "$fault ($kind): status $status, $got" "$status == 1 and $got == {leaf: $(jq .leaf d/needle.json), role: \"cause\", structural: true}"
	fi
	rm -rf d
done
