#!/usr/bin/python3
"""A MindSpore target and a PyTorch golden for the layer-mapping benchmark.

usage: crossfw-lm.py LAYERS OUTDIR

Writes OUTDIR/{ms,pt}/{dump,stack,construct}.json and OUTDIR/layer_mapping.yaml:
a network of LAYERS transformer-like layers, each a module call holding an
attention module with four API calls and an MLP with three, on both sides under
different module names (net/model, attention/self_attention, mlp/feed_forward),
with backward calls, as MindSpore and PyTorch name them.  48 leaves and 24
entries a layer: 3,400 layers make 163,200 leaves a side.
"""
import json
import os
import sys


def tensor(ms, v):
    t = {"type": "mindspore.Tensor" if ms else "torch.Tensor", "dtype": "Float32" if ms else "torch.float32",
         "shape": [4, 8], "Max": v, "Min": -v, "Mean": v / 3, "Norm": v * 2}
    if not ms:
        t["requires_grad"] = False
    return t


def side(ms, layers, out):
    top, mod, api = ("Cell", "net", "Mint") if ms else ("Module", "model", "Torch")
    attn, mlp = ("attention", "mlp") if ms else ("self_attention", "feed_forward")
    data, stack, construct = {}, {}, {}
    count = {}
    frames = ["File /x/site-packages/%s/hook.py, line 1, in api, \n return ApiTemplate(n)(*a)" %
              ("mindspore" if ms else "torch"),
              "File /x/model.py, line 9, in %s, \n y = f(x)" % ("construct" if ms else "forward")]

    def call(name, parent, v, backward=True):
        c = count.get(name, 0)
        count[name] = c + 1
        entry = "%s.%s.%d.forward" % (api, name, c)
        data[entry] = {"input_args": [tensor(ms, v), tensor(ms, v + 1)], "input_kwargs": {},
                       "output": [tensor(ms, v + 2)]}
        stack[entry] = frames
        construct[entry] = parent
        if backward:
            b = "%s.%s.%d.backward" % (api, name, c)
            data[b] = {"input": [tensor(ms, v + 3)], "output": [tensor(ms, v + 4), tensor(ms, v + 5)]}
            construct[b] = parent.replace(".forward.", ".backward.")

    for k in range(layers):
        layer = "%s.%s.layers.%d.Layer.forward.0" % (top, mod, k)
        a = "%s.%s.layers.%d.%s.Attention.forward.0" % (top, mod, k, attn)
        m = "%s.%s.layers.%d.%s.MLP.forward.0" % (top, mod, k, mlp)
        for n in ("matmul", "softmax", "matmul", "add"):
            call(n, a, k + 0.5)
        for n in ("matmul", "gelu", "matmul"):
            call(n, m, k + 0.25)
        for name, parent in ((a, layer), (m, layer), (layer, None)):
            data[name] = {"input_args": [tensor(ms, k + 1.0)], "input_kwargs": {}, "output": [tensor(ms, k + 2.0)]}
            construct[name] = parent
    os.makedirs(out, exist_ok=True)
    dump = {"task": "statistics", "level": "mix", "framework": "mindspore" if ms else "pytorch",
            "dump_data_dir": None, "data": data}
    for name, doc in (("dump.json", dump), ("stack.json", stack), ("construct.json", construct)):
        with open(os.path.join(out, name), "w") as f:
            json.dump(doc, f, indent=1)


def main():
    layers, out = int(sys.argv[1]), sys.argv[2]
    side(True, layers, os.path.join(out, "ms"))
    side(False, layers, os.path.join(out, "pt"))
    with open(os.path.join(out, "layer_mapping.yaml"), "w") as f:
        f.write("Cell:\n  net: model\nLayer:\n  attention: self_attention\n  mlp: feed_forward\n")


main()
