# Two MindSpore dump roots of run mode pynative_graph (graph/ and pynative/
# side by side), target T and golden G, statistics, one rank:
#   graph/step0/rank0      the same on both sides
#   pynative/step0/rank0   one difference: the target's Mint.add.0.forward
#                          output has Norm 12.0 where the golden's has 6.0, and
#                          the Mint.mul.0.forward after it gets it as its input
#                          (its output: Norm 24.0 against 12.0)
#   pynative/step1/rank0   the same on both sides
# Both folders have a Mint.add.0.forward, with other numbers in each (Max 1.0
# and 2.0 in graph/, 3.0 and 6.0 in pynative/): a pair across the folders
# would differ.
M() { echo "{\"type\":\"mindspore.Tensor\",\"dtype\":\"Float32\",\"shape\":[2],\"Max\":$1,\"Min\":$2,\"Mean\":$3,\"Norm\":$4}"; }
mix_graph() { # DIR
	mkdir -p "$1"
	cat > "$1/dump.json" <<JSON
{"task":"statistics","level":"mix","framework":"mindspore","dump_data_dir":null,"data":{
"Mint.add.0.forward":{"input_args":[$(M 1.0 0.0 0.5 1.0),$(M 1.0 0.0 0.5 1.0)],"input_kwargs":{},"output":[$(M 2.0 0.0 1.0 2.0)]}}}
JSON
}
mix_pynative() { # DIR ADD_OUT_NORM MUL_OUT_NORM
	mkdir -p "$1"
	cat > "$1/dump.json" <<JSON
{"task":"statistics","level":"mix","framework":"mindspore","dump_data_dir":null,"data":{
"Mint.add.0.forward":{"input_args":[$(M 3.0 1.0 2.0 3.0),$(M 3.0 1.0 2.0 3.0)],"input_kwargs":{},"output":[$(M 6.0 2.0 4.0 $2)]},
"Mint.mul.0.forward":{"input_args":[$(M 6.0 2.0 4.0 $2),{"type":"float","value":2.0}],"input_kwargs":{},"output":[$(M 12.0 4.0 8.0 $3)]}}}
JSON
}
mix_graph T/graph/step0/rank0
mix_graph G/graph/step0/rank0
mix_pynative T/pynative/step0/rank0 12.0 24.0
mix_pynative G/pynative/step0/rank0 6.0 12.0
mix_pynative T/pynative/step1/rank0 6.0 12.0
mix_pynative G/pynative/step1/rank0 6.0 12.0
