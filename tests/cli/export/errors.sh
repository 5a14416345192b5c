# Trouble: a message naming the file (and the record's line), exit status 2, nothing written and no
# record on stdout that could pass for a result: a missing file, a file that is no tensor, a truncated
# .bin, a folder without tensors (with the hint -r when they are below it), two sources for one output
# file, a leaf without a tensor file (statistics), a leaf name that would leave the output folder,
# an upstream error record, nothing to export; then bad command lines.
probe-gendump --framework atb --mode tensor --save-child run > /dev/null
E=run/target/atb_dump_data/data/0_276107/0
K=$E/1_Prefill_layer/3_ElewiseOperation/0_AddBF16Kernel
t() { # label, then the command's arguments; stdin from $in (default /dev/null)
	label=$1
	shift
	probe-export -o out "$@" < "${in:-/dev/null}" > stdout; s=$?
	printf '%-22s status %s, %s bytes out, %s\n' "$label" $s "$(wc -c < stdout)" "$(test -e out && echo 'out made' || echo 'nothing written')"
	rm -rf out
}
t "missing" no/such.bin
t "no tensor" $E/statistic.csv
head -c 120 $K/after/outtensor0.bin > cut.bin
t "cut short" cut.bin
mkdir empty
t "empty folder" empty
t "tensors below" $K
t "two for one file" $K/before/intensor0.bin run/golden/atb_dump_data/data/0_39943/0/1_Prefill_layer/3_ElewiseOperation/0_AddBF16Kernel/before/intensor0.bin
t "- with operands" - $K/before
probe-gendump --framework atb save > /dev/null
probe-flatten save/target | head -3 > stats.nd
in=stats.nd t "statistics leaf"
probe-flatten run/target | jq -c 'select(.seq == 1) | .name = "../../escape"' > escape.nd
in=escape.nd t "name leaves out/"
probe-flatten run/target | jq -c 'select(.seq == 1) | .name = "a//b"' > empty-part.nd
in=empty-part.nd t "empty name part"
probe-flatten run/target | jq -c 'select(.seq < 3)' > two.nd
printf '{"error":"probe-flatten: x.json:3:1: cut short"}\n' >> two.nd
in=two.nd t "upstream error"
printf '{"a":1}\n' > other.nd
in=other.nd t "not a record"
: > nothing.nd
in=nothing.nd t "nothing"
echo "== bad command lines"
probe-export -t zip $K/before; echo "status $?"
probe-export -o '' $K/before; echo "status $?"
probe-export --format csv $K/before; echo "status $?"
