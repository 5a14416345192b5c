# Where each fault first shows, comparing the records of the two runs leaf by leaf.
# sanitizers: skip, it checks where the generator's faults land, with jq over probe-flatten's records; probe-flatten runs under the sanitizers in its own tests
first_difference() {
	probe-flatten "$1/golden" | jq -c 'del(.dump)' > g
	probe-flatten "$1/target" | jq -c 'del(.dump)' > t
	paste -d '\n' g t | jq -r -n '[inputs] | _nwise(2) | select(.[0] != .[1]) | .[0].name' | head -1
}
for f in fc2-weight fc2-weight-tiny input linear1-output nan; do
	probe-gendump --fault $f --mode md5 $f
	echo "$f: $(first_difference $f)"
done

# The first differing leaf again, with what differs in it (golden -> target) and
# whether its operator made the difference (the leaf is an output: the entry's
# inputs, listed before it, are equal) or received it (an input differs).
first_difference_detail() { # dir [subdir]
	probe-flatten "$1/golden$2" | jq -c 'del(.dump)' > g
	probe-flatten "$1/target$2" | jq -c 'del(.dump)' > t
	paste -d '\n' g t | jq -r -n '
		[inputs] | _nwise(2) | select(.[0] != .[1]) | . as [$g, $t]
		| [($g + $t) | keys_unsorted[] | select($g[.] != $t[.])
		   | "\(.) \($g[.] | tojson) -> \($t[.] | tojson)"]
		| "\($g.name) (\(if $g.state == "output" then "made" else "received" end)): \(join(", "))"' | head -1
}
for f in grad dtype shape scalar inf nan-input; do
	probe-gendump --fault $f $f
	echo "$f: $(first_difference_detail $f)"
done

# In md5 mode: the shape fault's tensor has the same bytes, the dtype fault's not.
for f in dtype shape; do
	probe-gendump --fault $f --mode md5 $f-md5
	echo "$f, md5 mode: $(first_difference_detail $f-md5)"
done

# With two layers fc2 is the last: its grad comes from mse_loss's backward.
probe-gendump --fault grad --layers 2 grad-2
echo "grad, 2 layers: $(first_difference_detail grad-2)"
# When B equals fc2's width, [out, B] would not differ: the shape fault flattens.
probe-gendump --fault shape --batch 16 shape-16
echo "shape, batch 16: $(first_difference_detail shape-16)"

# Every call: micro-batch 1 and step 1 carry the fault too (the ReLU after fc1 is
# Functional.relu.2 in micro-batch 1, and msprobe counts again from 0 each step).
probe-gendump --fault scalar --steps 2 --micro-batches 2 scalar-2
for s in 0 1; do
	probe-flatten scalar-2/golden/step$s | jq -c 'del(.dump)' > g
	probe-flatten scalar-2/target/step$s | jq -c 'del(.dump)' > t
	echo "scalar, step $s:" $(paste -d '\n' g t | jq -r -n '[inputs] | _nwise(2) | select(.[0] != .[1]) | .[0].name')
done

# Data parallelism: the faulty rank differs first where its fault is, the others
# only from the gradient all_reduce on (its inputs equal on their side: the
# difference comes from rank 2 through the collective).
probe-gendump --ranks 4 --fault-rank 2 --fault fc2-weight ranks
for r in 0 1 2 3; do
	echo "ranks 4, fault on rank 2, rank $r: $(first_difference_detail ranks /step0/rank$r | cut -d' ' -f1)"
done
