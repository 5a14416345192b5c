# CSV formula injection (issue 17, class 4).  Where msprobe writes the file
# (probe-metric --csv and -o) probe does what msprobe does: a string argument or an
# API name that starts with + - = % @ (or their full-width forms, or holds ';' and
# one) stops the compare while parsing, the target dump first, then the golden one;
# a string cell (or header) it would write that is such a string and not a number
# stops it before writing ("Malicious value [...]").  No table is written, exit 2,
# msprobe's message.  probe's own CSV writer (probe-table) writes such a cell with a
# single quote before it; numbers ("-1.5", "-inf") are never changed.
leaf='{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 2.0, "Min": -1.5, "Mean": 0.25, "Norm": 2.5, "requires_grad": false}'
dump() { # dir entry string-argument parameter-value [second entry's argument]: a statistics dump of two entries
	mkdir -p "$1"
	jq -n --arg e "$2" --arg a "$3" --arg p "$4" --arg b "${5:-x}" --argjson leaf "$leaf" '{task: "statistics", level: "mix",
		framework: "pytorch", dump_data_dir: null, data: {($e): {input_args: [$leaf, {type: "str", value: $a}],
		input_kwargs: {}, output: [$leaf], parameters: {w: {type: "str", value: $p}}},
		"Torch.mul.0.forward": {input_args: [$leaf, {type: "str", value: $b}], input_kwargs: {}, output: [$leaf]}}}' > "$1/dump.json"
}
run() { # label: the compare of t and g, as msprobe runs it
	probe-flatten -q t | probe-match g | probe-metric --csv > out.csv 2> err
	echo "$1: status $?, $(wc -c < out.csv) bytes written; $(cat err)"
}
dump t Module.m.M.forward.0 "plain" "plain"; dump g Module.m.M.forward.0 "plain" "plain"
run "nothing to refuse"
dump t Module.m.M.forward.0 "=cmd|' /C calc'!A0" "plain"; dump g Module.m.M.forward.0 "plain" "plain"
run "a string argument =cmd|' /C calc'!A0"
dump t '=HYPERLINK("http://x","y").0.forward' "plain" "plain"; dump g '=HYPERLINK("http://x","y").0.forward' "plain" "plain"
run "an API name =HYPERLINK(...)"
dump t Module.m.M.forward.0 "plain" "-x"; dump g Module.m.M.forward.0 "plain" "plain"
run "a parameter -x (not looked at while parsing: refused as a cell)"
dump t Module.m.M.forward.0 "plain" "@SUM(A1)"; dump g Module.m.M.forward.0 "plain" "plain"
run "a parameter @SUM(A1)"
dump t Module.m.M.forward.0 "plain" "＝1+2"; dump g Module.m.M.forward.0 "plain" "plain"
run "a parameter with a full-width ＝"
dump t Module.m.M.forward.0 "plain" "a;=1+2"; dump g Module.m.M.forward.0 "plain" "plain"
run "a parameter a;=1+2"
dump t Module.m.M.forward.0 "plain" "-1.5"; dump g Module.m.M.forward.0 "plain" "+2;-3e5"
run "parameters -1.5 and +2;-3e5 (numbers: written)"
echo "  the NPU max and Bench max of the parameter's row: $(sed -n 4p out.csv | cut -d, -f1,17,21)"
dump t Module.m.M.forward.0 "-1.5" "plain"; dump g Module.m.M.forward.0 "-1.5" "plain"
run "a string argument -1.5 (refused while parsing, number or not)"
# which message: the target's first, in its order; then the golden's; then a cell's
dump t Module.m.M.forward.0 "plain" "=1" "%x"; dump g Module.m.M.forward.0 "@y" "plain"
run "a golden argument @y, a target cell =1, then a target argument %x"
dump t Module.m.M.forward.0 "plain" "=1"; dump g Module.m.M.forward.0 "plain" "plain" "@z"
run "a target cell =1, a golden argument @z in a later entry"
dump t Module.m.M.forward.0 "plain" "plain"; dump g Module.m.M.forward.0 "plain" "plain"
printf '%s\n' '{"Module.m.M.forward.0": ["File a.py, line 1, in f, \n x = y;=1"]}' > t/stack.json
run "a stack line with ;="
rm t/stack.json
dump t Module.m.M.forward.0 "plain" "-x"; dump g Module.m.M.forward.0 "plain" "plain"
mkdir out
probe-flatten -q t | probe-match g | probe-metric -o out 2> err; echo "-o: status $?, $(ls -A out | wc -l) files; $(sed 's/_[0-9]\{14\}/_TIMESTAMP/' err)"
probe-flatten -q t | probe-match g | probe-metric > records; echo "the records (ours, JSON): status $?, $(wc -l < records) records"
# probe-table: a quote before what a spreadsheet would run
printf '%s\n' '{"a": "=1+2", "b": -1.5, "c": "-1.5", "d": "@SUM(A1)", "e": "x;=cmd|'"'"' /C calc'"'"'!A0", "f": "\tx", "g": "-inf", "h": "-x", "=h": 1}' \
	'{"a": "+", "b": "1e5", "c": "%", "d": "＠x", "e": "a;-1;-b", "f": "\rx", "g": "+3", "h": "mid=dle", "=h": "-"}' |
	probe-table | sed 's/\r/<CR>/g; s/\t/<TAB>/g'
# --xlsx: msprobe's check_df_malicious guards its workbook too ("into the excel")
probe-flatten -q t | probe-match g | probe-metric --xlsx > out.xlsx 2> err; echo "--xlsx: status $?, $(wc -c < out.xlsx) bytes; $(cat err)"
rm -r out; mkdir out
probe-flatten -q t | probe-match g | probe-metric -o out --xlsx 2> err; echo "-o --xlsx: status $?, $(ls -A out | wc -l) files; $(sed 's/_[0-9]\{14\}/_TIMESTAMP/' err)"
