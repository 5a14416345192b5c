# Megatron's activation recomputation, as msprobe's _handle_recompute moves
# it, worked out by hand: a transformer layer recomputed during the backward
# sits at the root of construct.json (TransformerLayer.forward.1 and its
# backward.1); its stack shows torch's checkpoint recompute_fn, its name is
# not a top-level layer's, its twin is at the root too, so both move under
# TransformerBlock.backward.0: the backward twin of the parent of the first
# layer of that prefix not at the root (TransformerLayer.forward.0).  The
# same dump without the recompute frame leaves them at the root.
mk() { # dir recompute-frame?
	python3 - "$1" "$2" <<'PY'
import json, os, sys
d, recompute = sys.argv[1] + "/step0/rank0", sys.argv[2] == "yes"
os.makedirs(d)
P = "Module.0.module."
L = P + "decoder.layers.0.TransformerLayer."
construct = {
    P + "GPTModel.forward.0": None,
    P + "decoder.TransformerBlock.forward.0": P + "GPTModel.forward.0",
    L + "forward.0": P + "decoder.TransformerBlock.forward.0",
    P + "GPTModel.backward.0": None,
    P + "decoder.TransformerBlock.backward.0": P + "GPTModel.backward.0",
    L + "forward.1": None,
    L + "backward.1": None,
}
t = {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "requires_grad": False}
data = {k: {"input_args": [t], "input_kwargs": {}, "output": [t]} for k in construct}
frames = ["File /usr/lib/python3/dist-packages/torch/nn/modules/module.py, line 1501, in _call_impl, \n return forward_call(*args, **kwargs)"]
if recompute:
    frames.append("File /usr/lib/python3/dist-packages/torch/utils/checkpoint.py, line 1112, in recompute_fn, \n fn(*args, **kwargs)")
frames.append("File /home/user/train.py, line 7, in main, \n loss.backward()")
stack = {k: ["File /home/user/train.py, line 5, in main, \n model(x)"] for k in construct}
stack[L + "forward.1"] = frames
json.dump({"task": "statistics", "level": "mix", "framework": "pytorch", "dump_data_dir": None, "data": data}, open(d + "/dump.json", "w"))
json.dump(construct, open(d + "/construct.json", "w"))
json.dump(stack, open(d + "/stack.json", "w"))
PY
}
show() {
	probe-flatten "$1" | probe-graph --format json | jq -r 'select(.name | test("TransformerLayer|DefaultModel|Block.backward")) | "\(.name | sub("Module.0.module."; "")) <- \(.parent // "-" | sub("Module.0.module."; "")); children \(.children | map(sub("Module.0.module."; "")) | join(", "))"'
}
mk re yes
mk plain no
echo "-- recomputed"
show re
echo "-- not recomputed"
show plain
