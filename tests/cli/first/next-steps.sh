# The report's next steps are commands that run: each one, with TARGET and GOLDEN replaced by the
# dumps, exits 0 (or 1, a divergence found) and writes what it says. Only what applies is offered:
# the stack when none was attached, more divergences when a rank has more, the graph of modules
# where there are modules (not for ATB's operations); a mixed graph/pynative root pictures one folder.
probe-gendump run > /dev/null
steps() { sed -n '/^next steps/,$p'; }
try() { # REPORT DUMPS: run each step's command
	sed -n '/^next steps/,$s/^  [^:]*:  //p' "$1" | sed "s/TARGET/$2\/target/; s/GOLDEN/$2\/golden/" > commands
	while IFS= read -r c; do
		sh -c "$c" > out 2> err; s=$?
		printf 'status %s, %s, %s lines on stderr: %s\n' $s "$(test -s out -o -s plot.html -o -s graph.html -o -s compare.csv && echo output || echo 'no output')" "$(wc -l < err)" "$(echo "$c" | sed 's/.*| //')"
	done < commands
}
echo "== no stack attached"
probe-flatten run/target | probe-match run/golden | probe-metric | probe-first --format text > report
steps < report
try report run
ls plot.html graph.html compare.csv
echo "== with the stack, -n 40: all shown, no more to ask for"
probe-flatten run/target | probe-match run/golden | probe-metric | probe-stack | probe-first -n 40 --format text | steps
echo "== ATB: no module graph"
probe-gendump --framework atb --mode tensor atb > /dev/null
probe-flatten atb/target | probe-match atb/golden | probe-metric | probe-first --format text > report
steps < report
try report atb
echo "== --nonfinite"
probe-gendump --fault nan nan > /dev/null
probe-flatten nan/target | probe-first --nonfinite --format text | steps
