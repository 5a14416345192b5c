# A target of one leaf against a large golden dump: the golden-only records
# (several MB) are written as they are made, in pieces, and must be exactly
# the golden records in their order, each once, after the one pair.
probe-gendump --layers 60 --micro-batches 4 d > /dev/null
probe-flatten d/golden > g.ndjson
probe-flatten d/target | head -n 1 > one.ndjson
probe-match d/golden one.ndjson > out.ndjson; echo "status $?"
echo "golden-only output over 1 MB: $(test "$(wc -c < out.ndjson)" -gt 1048576 && echo yes || echo no)"
echo "pairs with a target: $(jq -c 'select(.t != null)' out.ndjson | wc -l)"
jq -c 'select(.t == null) | .g' out.ndjson > only.ndjson
jq -c 'select(.t != null) | .g' out.ndjson > matched.ndjson
cat matched.ndjson only.ndjson | sort > got.sorted
jq -c . g.ndjson | sort > want.sorted
cmp -s got.sorted want.sorted && echo "every golden record once: yes" || echo "every golden record once: NO"
jq -c . g.ndjson | grep -v -x -F -f matched.ndjson | cmp -s - only.ndjson && echo "in golden order: yes" || echo "in golden order: NO"
