# What probe-plot cannot draw is an error (exit 2) naming the input, with
# nothing written: leaf records, pairs not yet compared, no records, nothing
# in the ranks or the range asked for, bad option values, an output that
# cannot be written.
probe-gendump d > /dev/null
probe-flatten d/target > leaves.ndjson
probe-flatten d/target | probe-match d/golden > pairs.ndjson
probe-metric pairs.ndjson > m.ndjson
run() { "$@" > out.svg; echo "status $? ($(wc -c < out.svg) bytes out)"; }
run probe-plot leaves.ndjson
run probe-plot pairs.ndjson
: > empty.ndjson
run probe-plot empty.ndjson
run probe-plot --ranks 5-7 m.ndjson
run probe-plot --range 1000:2000 m.ndjson
head -c 2000 m.ndjson > cut.ndjson
run probe-plot cut.ndjson
run probe-plot --metric nope m.ndjson
run probe-plot --range 5 m.ndjson
run probe-plot --range 9:3 m.ndjson
run probe-plot --ranks x m.ndjson
run probe-plot --width 10 m.ndjson
run probe-plot --rtol -1 m.ndjson
run probe-plot --format png m.ndjson
run probe-plot m.ndjson m.ndjson
run probe-plot no-such.ndjson
probe-plot --output-file no/such/dir/p.svg m.ndjson; echo "status $?"
ls no 2>&1 | sed 's/^ls: //'
probe-plot m.ndjson > /dev/full; echo "status $?"
probe-plot --output-file p.svg m.ndjson; echo "status $?"; ls p.svg*
# a file size limit half-way through the picture: no file, and stdout cut back
(ulimit -f 8; probe-plot --output-file big.svg m.ndjson; echo "status $?"; probe-plot m.ndjson > big2.svg; echo "status $?")
ls big.svg* 2>&1 | sed 's/^ls: //'; echo "big2.svg: $(wc -c < big2.svg) bytes"
