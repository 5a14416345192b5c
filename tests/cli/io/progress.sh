# The progress line of a pipeline, as a terminal shows it (script(1) gives the tools a
# pseudo-terminal; termview.py plays what it received on a model of a terminal's row): only the
# tool at the head of the pipeline draws (the others read a pipe), in the user's units (the share
# of the dump read, the rank of how many, the leaves), each drawing covers the row (also when every
# tool draws, PROBE_PROGRESS=all), is cut to the terminal's width, a warning goes on a row of its
# own, and the row is cleared at the end.  Not a terminal: nothing, unless asked.
# sanitizers: skip, it tests what a terminal shows (script(1), timing); lib/core/progress.c runs under the sanitizers in tests/unit/test_progress.c
command -v script > /dev/null || { echo "script(1) is not installed (bsdutils, make deps)"; exit 77; }
probe-gendump --ranks 8 --layers 40 --micro-batches 4 run > /dev/null
pipeline="probe-flatten run/target/step0 | probe-match run/golden/step0 | probe-metric | probe-first > /dev/null"
pty() { # COMMAND [COLUMNS]
	script -qfec "stty cols ${2:-80}; $1" /dev/null > ts
	python3 "$TESTS/cli/io/termview.py" ts "${2:-80}" || echo "termview: exit $?"
}
echo "== asked for (PROBE_PROGRESS=1): the head of the pipeline only"
pty "export PROBE_PROGRESS=1 PROBE_PROGRESS_MS=5; $pipeline"
echo "== every tool (PROBE_PROGRESS=all): each drawing covers the row"
pty "export PROBE_PROGRESS=all PROBE_PROGRESS_MS=5; $pipeline" | sed 's/^last drawing: .*/last drawing: (a tool)/'
echo "== 40 columns: cut, never wrapped"
pty "export PROBE_PROGRESS=1 PROBE_PROGRESS_MS=5; $pipeline" 40
echo "== a warning while the line is drawn: a row of its own"
cp -r run/target warn
jq -c '.data["Tensor.odd.0"] = .data["Functional.linear.0.forward"]' warn/step0/rank5/dump.json > x.json
mv x.json warn/step0/rank5/dump.json
pty "export PROBE_PROGRESS=1 PROBE_PROGRESS_MS=5; probe-flatten warn/step0 > /dev/null"
echo "== the head reads a file of pairs"
probe-flatten run/target/step0 | probe-match run/golden/step0 > pairs.ndjson
pty "export PROBE_PROGRESS=1 PROBE_PROGRESS_MS=5; probe-metric pairs.ndjson | probe-first > /dev/null"
echo "== on a terminal, not asked: nothing in the first second"
pty "probe-flatten run/target/step0/rank0 > /dev/null"
echo "== no terminal"
probe-flatten run/target/step0 2> err > /dev/null; echo "not asked: $(wc -c < err) bytes on stderr"
PROBE_PROGRESS=1 PROBE_PROGRESS_MS=5 probe-flatten run/target/step0 2> err > /dev/null
python3 "$TESTS/cli/io/termview.py" err || echo "termview: exit $?"
