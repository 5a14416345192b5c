# Where each fault first shows, comparing the records of the two runs leaf by leaf.
first_difference() {
	probe-flatten "$1/golden" | jq -c 'del(.dump)' > g
	probe-flatten "$1/target" | jq -c 'del(.dump)' > t
	paste -d '\n' g t | jq -r -n '[inputs] | _nwise(2) | select(.[0] != .[1]) | .[0].name' | head -1
}
for f in fc2-weight fc2-weight-tiny input linear1-output nan; do
	probe-gendump --fault $f --mode md5 $f
	echo "$f: $(first_difference $f)"
done
