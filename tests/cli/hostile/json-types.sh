# Wrong types where a dump has objects, lists and numbers.  Where the structure is
# wrong (the top level, "data", an entry, "task", data_name) the dump is refused
# with file:line:column and exit status 2; a bare value where a leaf object belongs
# is a warning with its position (msprobe makes no row of it either).  Inside a
# leaf, probe keeps what the dump says, as text (a shape that is a string, a Max
# that is an object), as tests/data/compare/known-differences records; the
# comparison then goes on without a crash.
try() { # label text
	printf '%s\n' "$2" > dump.json
	probe-flatten dump.json > out 2> err
	echo "$1: status $?, $(wc -l < out) record(s); $(cat err)"
}
try "top level is an array" '[{"task":"statistics","data":{}}]'
try "top level is a number" '42'
try "task is a number" '{"task":3,"data":{}}'
try "data is an array" '{"task":"statistics","data":[{"Functional.linear.0.forward":{}}]}'
try "data is a string" '{"task":"statistics","data":"Functional.linear.0.forward"}'
try "an entry is an array" '{"task":"statistics","data":{"Functional.linear.0.forward":[{"type":"int","value":1}]}}'
try "an entry is a number" '{"task":"statistics","data":{"Functional.linear.0.forward":7}}'
try "input_args is a number" '{"task":"statistics","data":{"Functional.linear.0.forward":{"input_args":7,"output":[{"type":"int","value":1}]}}}'
try "a leaf without a type" '{"task":"statistics","data":{"Functional.linear.0.forward":{"input_args":[{"value":3}],"output":[{"type":"int","value":1}]}}}'
try "only bare values" '{"task":"statistics","data":{"Functional.linear.0.forward":{"input_args":[1,2,3]}}}'
try "data_name is a number" '{"task":"tensor","data":{"Functional.linear.0.forward":{"output":[{"type":"torch.Tensor","dtype":"torch.float32","shape":[1],"data_name":5}]}}}'
try "data_name is an object" '{"task":"tensor","data":{"Functional.linear.0.forward":{"output":[{"type":"torch.Tensor","dtype":"torch.float32","shape":[1],"data_name":{}}]}}}'
# inside a leaf: kept as the dump says, compared as text
for leaf in '"dtype":5,"shape":{"a":1},"Max":1' '"dtype":null,"shape":"2x3","Max":{"x":1}' \
	    '"dtype":"torch.float32","shape":[-1,1e400],"Max":[]'; do
	printf '{"task":"statistics","data":{"Functional.linear.0.forward":{"output":[{"type":"torch.Tensor",%s,"Min":[1],"Mean":"abc","Norm":true,"requires_grad":"yes"}]}}}\n' "$leaf" > g.json
	sed 's/"abc"/"abd"/' g.json > t.json
	probe-flatten t.json | probe-match g.json > pairs
	echo "$leaf: flatten+match $?; metric: $(probe-metric pairs | jq -c '[.verdict, .reason]'); csv: $(probe-metric --csv pairs | tail -1 | cut -d, -f3-8)"
	probe-first pairs > /dev/null; echo "  probe-first: status $?"
done
