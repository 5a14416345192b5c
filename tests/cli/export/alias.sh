# filter_level 1: a tensor several ops hold is saved once, its other files an alias ("data=<first
# file>", no payload), which msprobe's parse skips. probe-export writes an alias from the file it
# names (found under the alias's exec folder as a Tensor Path is), says so once, and records both
# files; records from probe-flatten have the alias followed already. A missing target is an error that
# names both files, and nothing is written.
check() { python3 "$TESTS/cli/export/exportcheck.py" "$1" | sed "s|$PWD/||g" || echo "exportcheck $1: exit $?"; }
probe-gendump --framework atb --mode tensor --filter-level 1 run > /dev/null
E=run/golden/atb_dump_data/data/0_39943/0
A=$E/2_Prefill_layer/before/intensor0.bin
sed -n 's/^data=//p' $A
echo "== the alias named"
probe-export -o a $A > a.nd; echo "status $?"
jq -c '{file, from, alias}' a.nd
check a.nd
echo "== its folder, with the other files"
probe-export -o b $E/2_Prefill_layer/before > b.nd 2> b.err; echo "status $?"
jq -r 'select(.alias) | .alias + " -> " + .from' b.nd
sed 's/^/stderr: /' b.err
check b.nd | wc -l
echo "== records"
probe-flatten run/golden 2> /dev/null | jq -c 'select(.alias)' > aliased.nd
wc -l < aliased.nd
probe-export -o c < aliased.nd > c.nd; echo "status $?"
check c.nd | grep -vc '^ok'
echo "== the file it names gone"
cp -r run/golden gone
T=$(sed -n 's/^data=atb_dump_data\/data\/0_39943\/0\///p' $A)
rm gone/atb_dump_data/data/0_39943/0/$T
probe-export -o d gone/atb_dump_data/data/0_39943/0/2_Prefill_layer/before/intensor0.bin; echo "status $?"
probe-export -r -o d gone/atb_dump_data/data/0_39943/0/2_Prefill_layer; echo "status $?"
test -e d && echo "d was made" || echo "nothing written"
