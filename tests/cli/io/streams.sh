# Every tool: data on stdout only; a closed pipe ends it quietly; a full disk
# is an error naming stdout (exit 2); progress only when asked for or on a
# terminal, on stderr, without escape sequences.
probe-gendump --layers 12 --micro-batches 8 d > /dev/null
probe-flatten d/target > t.ndjson
probe-match d/golden t.ndjson > p.ndjson
probe-metric p.ndjson > m.ndjson
run() { # label command...: exit status and stderr of the command writing into a closed pipe and to /dev/full
	label=$1
	shift
	"$@" 2> err1 | head -c 10 > /dev/null; s1=$?
	"$@" > /dev/full 2> err2; s2=$?
	printf '%-14s | head: status %s, %s stderr lines; /dev/full: status %s: %s\n' "$label" "$s1" "$(wc -l < err1)" \
		"$s2" "$(sed 's/^[a-z-]*: //' err2 | head -1)"
}
run flatten probe-flatten d/target
run match probe-match d/golden t.ndjson
run metric probe-metric p.ndjson
run metric-csv probe-metric --csv p.ndjson
run first probe-first -n 100 p.ndjson
run stack probe-stack m.ndjson
run table sh -c 'jq -c "{name: .t.name, verdict}" m.ndjson | probe-table'
run gendump probe-gendump --print-tensors g
# progress: none when stderr is not a terminal; asked for, a line on stderr; no escape sequences
probe-flatten d/target 2> err > /dev/null; echo "not asked: $(wc -c < err) bytes on stderr"
PROBE_PROGRESS=1 probe-flatten d/target 2> err > /dev/null
tr '\r' '\n' < err | grep -c '^probe-flatten: .*%' | sed 's/^[1-9][0-9]*$/asked: progress lines with a percentage/'
if grep -q "$(printf '\033')" err; then echo "escape sequences in the progress line"; else echo "no escape sequences"; fi
PROBE_PROGRESS=0 probe-metric p.ndjson 2> err > /dev/null; echo "PROBE_PROGRESS=0: $(wc -c < err) bytes on stderr"
# a tool that reads stdin and finds a terminal there prints its usage instead of waiting
for t in "probe-flatten" "probe-match d/golden" "probe-metric" "probe-first" "probe-stack" "probe-table"; do
	script -qec "$t; echo \"status \$?\"" /dev/null < /dev/null | tr -d '\r' > tty.out
	echo "$(head -1 tty.out) | usage lines: $(grep -c '^usage:' tty.out) | $(tail -1 tty.out)"
done
