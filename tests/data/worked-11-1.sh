# The dumps of msprobe-compare.md section 11.1 (msprobe's own worked example).
T() { echo "{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\",\"shape\":[2,2],\"Max\":$1,\"Min\":$2,\"Mean\":$3,\"Norm\":$4,\"requires_grad\":false}"; }
mkdir -p npu bench
cat > npu/dump.json <<JSON
{"task":"statistics","level":"L1","framework":"pytorch","dump_data_dir":null,"data":{
"Torch.add.0.forward":{"input_args":[$(T 2.0 1.0 1.5 3.2),{"type":"int","value":1}],"input_kwargs":{"alpha":{"type":"float","value":0.5}},"output":[$(T 3.5 1.0 2.25 5.0)]},
"Torch.relu.0.forward":{"input_args":[$(T 2.0 -1.0 0.5 2.5)],"input_kwargs":{},"output":[$(T 2.0 0.0 NaN null)]},
"Functional.linear.2.backward":{"input":[$(T 1.0 1.0 1.0 2.0)],"output":[$(T 0.5 0.5 0.5 1.0),null]}}}
JSON
cat > bench/dump.json <<JSON
{"task":"statistics","level":"L1","framework":"pytorch","dump_data_dir":null,"data":{
"Torch.add.0.forward":{"input_args":[$(T 2.0 1.0 1.5 3.2),{"type":"int","value":1}],"input_kwargs":{"alpha":{"type":"float","value":0.5}},"output":[$(T 3.0 1.0 2.0 4.0)]},
"Functional.linear.0.backward":{"input":[$(T 1.0 1.0 1.0 2.0)],"output":[$(T 0.5 0.5 0.5 0.0),null]}}}
JSON
