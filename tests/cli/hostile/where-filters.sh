# Hostile --where filters (issue 41, class 8): libjq trusts its filter, we must not.
# - modules (include, import, modulemeta) used to abort the tool on a libjq assertion, and
#   input-reading or writing builtins (input, inputs, input_filename, debug, stderr) reach
#   callbacks never set: they are refused before compiling, found as jq's lexer finds them
#   (not in strings or comments, not as a field .input or a variable $input); usage error, exit 2.
# - a filter that never ends (def f: f; f, a generator of 1e15 values) or grows without end
#   ([range(1e12)]) is stopped per record by PROBE_WHERE_SECONDS / PROBE_WHERE_MB: exit 2
#   with a message that names the record's line and the filter (cut to 60 bytes).
# - halt_error is an error, not a silent end; filters that are fine still choose records.
probe-gendump d > /dev/null
probe-flatten d/target | probe-match d/golden | probe-metric > m.ndjson
try() { # label filter [env...]
	label=$1 filter=$2
	shift 2
	env "$@" probe-first --where "$filter" m.ndjson > out 2> err
	echo "$label: exit $?, $(wc -l < out) lines out; $(head -n 1 err)"
}
try "include" 'include "x"; .'
try "import" '  import "x" as y; .'
try "modulemeta" '"x" | modulemeta'
try "input" '.t.name == input'
try "inputs" '[inputs]'
try "input in an interpolation" '"\(input)" | length > 0'
try "input_filename" 'input_filename == null'
try "debug" 'debug | true'
try "stderr" 'stderr | true'
try "words in strings and comments, fields, variables" '("include input" as $input | $input | length > 0) # import
and .input == null and .debug == null and $__loc__.line > 0'
try "halt_error" 'halt_error'
try "a jq error" 'error("no")'
try "a filter that never ends" 'last(range(1e15))' PROBE_WHERE_SECONDS=1
try "one that recurses" 'def f: f; f' PROBE_WHERE_SECONDS=1 PROBE_WHERE_MB=100000
try "one that grows" '[range(1e12)] | length > 0' PROBE_WHERE_SECONDS=600 PROBE_WHERE_MB=64
try "a long filter, quoted cut" "$(printf '.t.name == "%s" or ' $(seq 1 20)) last(range(1e15))" PROBE_WHERE_SECONDS=1
try "a bound that is not a number" 'true' PROBE_WHERE_SECONDS=1s
try "a fine filter" '.t.name | test("linear")'
probe-plot --where 'input' -o p.svg m.ndjson > /dev/null 2> err; echo "probe-plot: exit $?; $(head -n 1 err)"
