# Terminal escapes in names (issue 17, class 11).  An API name, a stack line and a
# name of an entry msprobe skips carry an OSC sequence (ESC ] 0 ; ... BEL: it retitles
# the terminal), a C1 CSI (U+009B), a carriage return, a stray byte that is not UTF-8
# and a newline; a file name, a byte that is not UTF-8.  Text for people (probe-first --format text, probe-stack --format text,
# probe-match -v, every message on stderr) shows them as \xHH / \u009b, never raw; the
# records keep them as JSON escapes.  cat -v would show a raw ESC as ^[ and a raw CSI
# as M-BM-^[; each "raw" count below is the number of raw control bytes in that text.
probe-gendump d > /dev/null
rename='sub("^Functional.linear.1"; "Functional.li\u001b]0;owned\u0007\u009b2J\r\nnear.1")'
for side in target golden; do
	f=d/$side/step0/rank0
	jq -c ".data |= with_entries(.key |= $rename) |
		.data[\"Tensor.x\u001b[31m.0.hook\"] = {\"input_args\": [], \"output\": []}" $f/dump.json > $f/x && mv $f/x $f/dump.json
	jq -c "map_values([(.[0] | map($rename)), (.[1] | map(sub(\"self.fc2\"; \"self.\u001b]0;owned\u0007fc2\")))])" \
		$f/stack.json > $f/x && mv $f/x $f/stack.json
done
# a target-only entry (probe-match -v names it)
jq -c '.data["Functional.ev\u001b]0;x\u0007il.0.forward"] = {"input_args": [{"type": "int", "value": 1}], "output": []}' \
	d/target/step0/rank0/dump.json > x && mv x d/target/step0/rank0/dump.json
raw() { tr -d '\n\t' | LC_ALL=C tr -dc '\000-\037\177\200-\237' | wc -c; }
probe-flatten d/target > leaves 2> err
echo "probe-flatten: stderr $(raw < err) raw; $(cat -v err)"
probe-match -v d/golden leaves > pairs 2> err
echo "probe-match -v: stderr $(raw < err) raw; $(grep -a 'e\.g\.' err | cat -v)"
probe-stack pairs > stacked
echo "the records keep the names: $(jq -r 'select(.t.entry != null) | .t.entry' stacked | grep -c "$(printf 'li\033]0;owned\007')")"
probe-first --format text stacked > report
echo "probe-first --format text: $(raw < report) raw; the lines with the name:"
grep -a 'owned' report | cat -v
probe-stack --format text pairs > lines
echo "probe-stack --format text: $(raw < lines) raw; $(grep -a -c owned lines) lines with the name, $(wc -l < lines) lines for $(wc -l < pairs) records:"
grep -a 'owned' lines | head -2 | cat -v
# names in dumps are UTF-8 (JSON); a file name need not be: a byte that is not UTF-8 (0x9b alone) and an ESC
probe-flatten "$(printf 'no\033]0;x\007such\233')" 2>&1 | cat -v
