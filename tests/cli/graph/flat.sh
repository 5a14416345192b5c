# A dump of level L1 (construct.json empty or absent): a warning that the
# hierarchy needs L0 or mix, and the flat list of its entries under the root.
probe-gendump d > /dev/null
echo '{}' > d/target/step0/rank0/construct.json
rm d/golden/step0/rank0/construct.json
probe-flatten d/target | probe-match d/golden | probe-metric | probe-graph --format json > nodes.ndjson
echo "status $?"
echo "entries in the dump: $(jq '.data | length' d/target/step0/rank0/dump.json)"
echo "target nodes under the root (or its collections): $(jq -s 'map(select(.side == "target" and .parent != null and .type != "collection")) | length' nodes.ndjson)"
echo "deepest parent: $(jq -r 'select(.type != "collection") | .parent' nodes.ndjson | sort -u | grep -v '^Apis_Between' | tr '\n' ' ')"
