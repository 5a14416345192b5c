# SIGTERM and SIGINT in the middle of a long write leave no output that could pass
# for complete: -o removes its .partial files, a CSV on stdout into a file is cut
# back to nothing, and a record stream ends with an {"error": ...} record on a
# line of its own.  Each tool is fed through a FIFO that stays open, so that it is
# surely in the middle of its work: the signal comes once its output has begun
# (md5 mode: probe-metric knows the mode from the first pair and writes at once).
probe-gendump --mode md5 --layers 12 --micro-batches 8 d > /dev/null
dump=d/target/step0/rank0/dump.json
probe-flatten d/target | probe-match d/golden > pairs
probe-metric pairs > metrics
probe-flatten d/target > leaves.full
# a background job of a script ignores SIGINT; this starts the tool with it restored
sigdfl() { exec python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])' "$@"; }
wait_for() { # test...: up to 20 s, while the tool runs
	i=0
	while ! "$@" && kill -0 $pid 2> /dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
}
partials() { ls out | grep -c '\.partial$'; }
run() { # label signal input until-test command...
	label=$1 sig=$2 input=$3 until=$4
	shift 4
	rm -f fifo; mkfifo fifo
	sigdfl "$@" < fifo 2> err &
	pid=$!
	exec 3> fifo
	cat "$input" >&3
	wait_for sh -c "$until"
	[ -n "${SIGNALS_TIMING:-}" ] && echo "$label: waited $i tenths of a second" >&2
	kill -$sig $pid
	wait $pid 2> /dev/null
	status=$?
	exec 3>&-
}
mkdir out
run "-o" TERM pairs '[ "$(ls out | grep -c partial)" -gt 2 ]' probe-metric -o out --rows-per-file 100
echo "probe-metric -o, SIGTERM: status $status; left in out/: $(ls -A out | wc -l) files; stderr: $(wc -c < err) bytes"
run "-o" INT pairs '[ "$(ls out | grep -c partial)" -gt 2 ]' probe-metric -o out --rows-per-file 100
echo "probe-metric -o, SIGINT: status $status; left in out/: $(ls -A out | wc -l) files"
probe-flatten d/target | probe-match d/golden > pairs
# (--csv holds its table until its input ends: msprobe's cell formats depend on every row;
# probe-table shows the cut back of a table that has begun)
run "--csv" TERM pairs 'sleep 1' sh -c 'exec probe-metric --csv > table.csv'
echo "probe-metric --csv > file, SIGTERM: status $status; table.csv: $(wc -c < table.csv) bytes"
for i in 1 2 3 4 5 6 7 8 9 10; do jq -c '{name: .t.name, key}' pairs; done > objects
run "table" INT objects '[ -s table.csv ]' sh -c 'exec probe-table > table.csv'
echo "probe-table > file, SIGINT: status $status; table.csv: $(wc -c < table.csv) bytes"
check_records() { # label file: the last line, and the lines before it that are not JSON (at most the one cut)
	bad=$(sed '$d' "$2" | jq -R -c 'try fromjson catch "NOT JSON"' | grep -c '^"NOT JSON"$')
	echo "$1: status $status; the last line $(tail -1 "$2"); lines before it that are not JSON: $([ "$bad" -le 1 ] && echo "at most the one cut" || echo "$bad")"
}
run "flatten" TERM $dump '[ -s leaves ]' sh -c 'exec probe-flatten > leaves'
check_records "probe-flatten > file, SIGTERM" leaves
run "match" INT leaves.full '[ -s pairs2 ]' sh -c 'exec probe-match d/golden > pairs2'
check_records "probe-match > file, SIGINT" pairs2
run "metric" TERM pairs '[ -s metrics2 ]' sh -c 'exec probe-metric > metrics2'
check_records "probe-metric > file, SIGTERM" metrics2
run "stack" TERM metrics '[ -s stacks ]' sh -c 'exec probe-stack > stacks'
check_records "probe-stack > file, SIGTERM" stacks
