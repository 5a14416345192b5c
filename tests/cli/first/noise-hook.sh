# The hook fault: a forward hook on layer 1's MLP multiplies its output by 1.5, an
# extra entry Tensor.__mul__.0 in the target that the golden run does not have
# (needle.json: that entry, kind "unmatched").  Its output goes into the layer's
# residual add as its second argument (h + mlp(h), lib/testdata/gendecoder.h), so
# the difference enters the paired leaves at Tensor.__add__.<4F+3>.forward.input.1
# (F the fault layer, 1): probe-first must name the needle's entry as the cause,
# with unpaired_source_of that leaf, which must also be the hook's output (the same
# statistics in the target), in bf16 and in float32, there also with --bitwise
# (nothing else differs); the text report says "has no golden partner".
# probe-plot's divergence mark (svg and html) and probe-graph's node with
# first_divergence (its JSON, verdict "first") must be on the same entry: both
# say they mark what probe-first finds on the same records (probe-plot(1),
# probe-graph(1)).
# The why's wording: "a trainable tensor (a weight)" is for a weight a layer takes
# after its input, never for its input.0 (an activation, even one that requires
# grad): not for any divergence of the hook case with --bitwise, not for a
# linear's input.0 (requires_grad true) changed by hand in a noise-only bf16 run;
# and it is said for the weight fault's W_q (linear input.1).
# Each check prints ok or MISMATCH with what was found.
check() { # what, condition (a jq expression over null input that is true when it holds)
	if [ "$(jq -n "$2")" = true ]; then echo "$1: ok"; else echo "$1: MISMATCH"; fi
}
for p in bf16 fp32; do
	echo "== $p"
	probe-gendump --framework decoder --precision $p --fault hook d > /dev/null
	entry=$(jq -r .entry d/needle.json)
	layer=1
	enters="Tensor.__add__.$((4 * layer + 3)).forward.input.1"
	echo "needle $entry $(jq -r .kind d/needle.json); the difference enters at $enters"
	probe-flatten d/target | probe-match d/golden > pairs.ndjson
	# the hook's output is the tensor the residual add takes: the same statistics
	same=$(jq -n --arg e "$entry.output.0" --arg a "$enters" '[inputs | select(.key == $e or .key == $a) | .t | {dtype, shape, max, min, mean, norm}] | length == 2 and .[0] == .[1]' pairs.ndjson)
	check "hook output is $enters in the target" "$same"
	# with --bitwise the first difference of any size is the answer: in bf16 that is
	# the first leaf rounded (linear.0's output), so the hook only in float32
	opts=--budget-factor=8
	[ $p = fp32 ] && opts="$opts --bitwise"
	for opt in $opts; do
		probe-first "$opt" pairs.ndjson > out.ndjson
		status=$?
		got=$(head -n 1 out.ndjson | jq -c '.first_divergence | {entry, role, unpaired_source_of}')
		check "probe-first $opt: status $status, $got" \
			"$status == 1 and $got == {entry: \"$entry\", role: \"cause\", unpaired_source_of: \"$enters\"}"
	done
	n=$(probe-first --format text pairs.ndjson | grep -c "$entry has no golden partner")
	check "text: says $entry has no golden partner" "$n > 0"
	probe-metric < pairs.ndjson > metric.ndjson
	for format in svg html; do
		marks=$(probe-plot --format $format metric.ndjson | grep -o 'data-kind="divergence"[^>]*data-leaf="[^"]*"' | sed 's/.*data-leaf=//' | jq -cs .)
		check "probe-plot --format $format marks $marks" "$marks == [\"$entry.output.0\"]"
	done
	nodes=$(probe-graph --format json metric.ndjson 2> /dev/null | jq -cs 'map(select(.first_divergence) | [.name, .verdict])')
	check "probe-graph --format json first_divergence nodes $nodes" "$nodes == [[\"$entry\", \"first\"]]"
	if [ $p = bf16 ]; then
		n=$(probe-first --bitwise -n 400 pairs.ndjson | jq -r 'select(.first_divergence) | .first_divergence | select(.leaf | endswith(".input.0")) | .why' | grep -c 'a trainable tensor (a weight)')
		check "--bitwise -n 400: $n input.0 leaves called a trainable tensor" "$n == 0"
	fi
	rm -rf d
done
echo "== an activation that requires grad (bf16, no fault, linear.0's input.0 doubled by hand)"
probe-gendump --framework decoder --precision bf16 --fault none d > /dev/null
probe-flatten d/target | probe-match d/golden |
	jq -c 'if .key == "Functional.linear.0.forward.input.0" then .t.max *= 2 else . end' > pairs.ndjson
jq -r 'select(.key == "Functional.linear.0.forward.input.0") | "requires_grad \(.t.requires_grad)"' pairs.ndjson
probe-first pairs.ndjson > out.ndjson
got=$(head -n 1 out.ndjson | jq -c '.first_divergence | {leaf, role, weight: (.why | test("a trainable tensor \\(a weight\\)"))}')
check "first $got" "$got == {leaf: \"Functional.linear.0.forward.input.0\", role: \"cause\", weight: false}"
rm -rf d
echo "== the weight fault (bf16)"
probe-gendump --framework decoder --precision bf16 --fault weight d > /dev/null
probe-flatten d/target | probe-match d/golden | probe-first > out.ndjson
got=$(head -n 1 out.ndjson | jq -c '.first_divergence | {leaf, role, weight: (.why | test("a trainable tensor \\(a weight\\)"))}')
check "first $got" "$got == {leaf: $(jq .leaf d/needle.json), role: \"cause\", weight: true}"
