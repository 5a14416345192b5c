# Rounding budget against tolerance band.  An MLP saved in bfloat16 against the
# same MLP in float32 (no fault: the same weights, inputs and arithmetic, only the
# saving rounds) differs by rounding alone: without a band, "within_rounding"
# (exit 0); with --rtol 0.05, a float-to-float dtype change is judged on the
# values, and bf16's relative error (2^-8) is far inside the band: "within_band",
# exit 0, the text "no divergence beyond the band: ... N leaves differ within the
# band" with N the leaves that differ at all, counted here with jq (any of dtype,
# shape, max, min, mean, norm, value differs as JSON).
# The decoder's scale fault in bf16 (needle.json: the scalar argument
# Tensor.__truediv__.1.forward.input.1, the divisor D/2 = 16 where the golden has
# sqrt(D/2) = 4, D = 32): a scalar argument is passed by the caller, never made by
# a dumped operator, and rounding never changes it, so it is a cause wherever it
# is reported, band or not.  With --rtol 0.05 the first divergence may be bf16
# noise the band is too narrow for, but never after the needle, the needle must be
# among the divergences with role "cause", no sentence says "0 leaves on this rank
# differ before it" (a propagated leaf with nothing before it), and the text lists
# "scalar arguments that differ" with the needle and its two values.  With a band
# wide enough for the noise (--rtol 1) the needle is the first divergence.
# Each check prints ok or MISMATCH with what was found.
check() { # what, condition (a jq expression over null input that is true when it holds)
	if [ "$(jq -n "$2")" = true ]; then echo "$1: ok"; else echo "$1: MISMATCH"; fi
}
echo "== MLP, bfloat16 against float32"
probe-gendump --fault none g1 > /dev/null
probe-gendump --fault none --dtype bfloat16 g2 > /dev/null
probe-flatten g2/target | probe-match g1/golden > pairs.ndjson
differ=$(jq -n '[inputs | select((.t | {dtype, shape, max, min, mean, norm, value}) != (.g | {dtype, shape, max, min, mean, norm, value}))] | length' pairs.ndjson)
echo "$differ of $(wc -l < pairs.ndjson | tr -d ' ') leaves differ"
probe-first pairs.ndjson > out.ndjson
status=$?
got=$(jq -c 'select(.summary) | .summary | {answer, rounding}' out.ndjson)
check "no band: status $status, $got" "$status == 0 and $got == {answer: \"within_rounding\", rounding: $differ}"
probe-first --rtol 0.05 pairs.ndjson > out.ndjson
status=$?
records=$(wc -l < out.ndjson | tr -d ' ')
got=$(jq -c 'select(.summary) | .summary | {answer, within_band: .ranks[0].within_band}' out.ndjson)
check "--rtol 0.05: status $status, $records records, $got" \
	"$status == 0 and $records == 1 and $got == {answer: \"within_band\", within_band: $differ}"
text=$(probe-first --rtol 0.05 --format text pairs.ndjson | head -n 1)
echo "$text"
case $text in
"no divergence beyond the band: "*"; $differ leaves differ within the band") echo "text: ok" ;;
*) echo "text: MISMATCH" ;;
esac
rm -rf g1 g2
echo "== decoder, bf16, scale fault"
probe-gendump --framework decoder --precision bf16 --fault scale d > /dev/null
leaf=$(jq -r .leaf d/needle.json)
echo "needle $leaf $(jq -r .kind d/needle.json)"
probe-flatten d/target | probe-match d/golden > pairs.ndjson
seq=$(jq -n --arg l "$leaf" '[inputs | select(.key == $l) | .t.seq] | .[0]' pairs.ndjson)
probe-first --rtol 0.05 -n 400 pairs.ndjson > out.ndjson
status=$?
first=$(head -n 1 out.ndjson | jq -c '{leaf: .first_divergence.leaf, seq: .t.seq}')
check "--rtol 0.05: status $status, the first divergence not after the needle (seq $seq)" "$status == 1 and $first.seq <= $seq"
role=$(jq -c --arg l "$leaf" 'select(.first_divergence.leaf == $l) | .first_divergence.role' out.ndjson)
check "--rtol 0.05 -n 400: the needle's role $role" "[$role] == [\"cause\"]"
probe-first --rtol 0.05 -n 400 --format text pairs.ndjson > out.txt
n=$(grep -c ' 0 leaves on this rank differ before it' out.txt)
check "--rtol 0.05 -n 400 --format text: $n lines say 0 leaves differ before it" "$n == 0"
probe-first --rtol 0.05 --format text pairs.ndjson > out.txt
grep -A 1 '^scalar arguments that differ' out.txt
n=$(grep -A 1 '^scalar arguments that differ (1):' out.txt | grep -c "rank 0: $leaf: target 16.0, golden 4.0")
check "--rtol 0.05 --format text: the scalar listed" "$n == 1"
n=$(grep -c ' 0 leaves on this rank differ before it' out.txt)
check "--rtol 0.05 --format text: $n lines say 0 leaves differ before it" "$n == 0"
probe-first --rtol 1 pairs.ndjson > out.ndjson
status=$?
got=$(head -n 1 out.ndjson | jq -c '.first_divergence | {leaf, role}')
check "--rtol 1: status $status, first $got" "$status == 1 and $got == {leaf: \"$leaf\", role: \"cause\"}"
