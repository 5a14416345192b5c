# What the two sides of the verl dumps share is bitwise the same tensor, read from the saved .pt
# files by a reader of our own (zipfile, struct: no probe tool, no torch): the training q, k, v
# outputs joined on the last axis are vLLM's qkv_proj output, gate and up are gate_up_proj's, the
# parameters joined on axis 0 the fused parameters (as msprobe's consistency compare joins them);
# vLLM's SiluAndMul output is Hugging Face's down_proj input, and silu(gate) * up of the saved
# training tensors within bfloat16 rounding; vLLM's RMSNorm with a residual takes the branch and the
# residual and returns the norm and their sum, its decoder layer returns (branch, residual);
# Megatron's TELayerNormColumnParallelLinear takes the un-normalised stream and gives vLLM's
# output, its layer_norm_weight is vLLM's norm weight, the identity norms pass their input on, the
# rotary angles are t / 10000^(2j/4) in float32.  No fault, so every pair holds.
probe-gendump --framework verl-fsdp --mode tensor --fault none fsdp
probe-gendump --framework verl-megatron --mode tensor --fault none megatron
python3 - <<'PY'
import math, re, struct, zipfile

def load(path):
    """(dtype, values) of a torch.save'd tensor: BFloat16, Float or Long storage, contiguous."""
    z = zipfile.ZipFile(path)
    pkl = z.read(next(n for n in z.namelist() if n.endswith("data.pkl")))
    dtype = re.search(rb"ctorch\n(\w+)Storage", pkl).group(1).decode()
    raw = z.read(next(n for n in z.namelist() if n.endswith("/data/0")))
    if dtype == "BFloat16":
        return dtype, [struct.unpack("<f", struct.pack("<I", h << 16))[0] for h in struct.unpack("<%dH" % (len(raw) // 2), raw)]
    fmt = {"Float": "f", "Long": "q"}[dtype]
    return dtype, list(struct.unpack("<%d%s" % (len(raw) // struct.calcsize(fmt), fmt), raw))

def t(side, name):
    root = {"infer": "fsdp/golden", "fsdp": "fsdp/target", "megatron": "megatron/target"}[side]
    prefix = {"infer": "Module.model.", "fsdp": "Module._fsdp_wrapped_module.model.",
              "megatron": "Module.0.module.module."}[side]
    return load("%s/step0/rank0/dump_tensor_data/%s%s.pt" % (root, prefix, name))[1]

def rows(v, width):
    return [v[i:i + width] for i in range(0, len(v), width)]

def join_last(parts):  # (values, width) ... joined on the last axis
    return [x for r in zip(*(rows(v, w) for v, w in parts)) for piece in r for x in piece]

checks = 0
def check(what, ok):
    global checks
    checks += 1
    if not ok:
        print("not so:", what)

def hf(l, m):
    return "layers.%d._fsdp_wrapped_module.%s" % (l, m)
for l in (0, 1):
    I = lambda m: "layers.%d.%s" % (l, m)
    qkv = t("infer", I("self_attn.qkv_proj.QKVParallelLinear.forward.0.output.0"))
    q, k, v = (t("fsdp", hf(l, "self_attn.%s_proj.Linear.forward.0.output.0" % p)) for p in "qkv")
    check("layer %d: q|k|v = qkv_proj output" % l, join_last([(q, 8), (k, 4), (v, 4)]) == qkv)
    for p in ("weight", "bias"):
        parts = [t("fsdp", hf(l, "self_attn.%s_proj.Linear.forward.0.parameters.%s" % (x, p))) for x in "qkv"]
        check("layer %d: q|k|v %s = qkv_proj's" % (l, p), sum(parts, []) == t("infer", I("self_attn.qkv_proj.QKVParallelLinear.forward.0.parameters." + p)))
    gate = t("fsdp", hf(l, "mlp.gate_proj.Linear.forward.0.output.0"))
    up = t("fsdp", hf(l, "mlp.up_proj.Linear.forward.0.output.0"))
    gate_up = t("infer", I("mlp.gate_up_proj.MergedColumnParallelLinear.forward.0.output.0"))
    check("layer %d: gate|up = gate_up_proj output" % l, join_last([(gate, 12), (up, 12)]) == gate_up)
    check("layer %d: gate|up weights = gate_up_proj's" % l,
          t("fsdp", hf(l, "mlp.gate_proj.Linear.forward.0.parameters.weight")) + t("fsdp", hf(l, "mlp.up_proj.Linear.forward.0.parameters.weight"))
          == t("infer", I("mlp.gate_up_proj.MergedColumnParallelLinear.forward.0.parameters.weight")))
    act = t("infer", I("mlp.act_fn.SiluAndMul.forward.0.output.0"))
    check("layer %d: SiluAndMul output = down_proj input" % l, act == t("fsdp", hf(l, "mlp.down_proj.Linear.forward.0.input.0")))
    silu = t("fsdp", hf(l, "mlp.act_fn.SiLU.forward.0.output.0"))
    check("layer %d: SiLU = silu(gate)" % l, all(abs(s - g / (1 + math.exp(-g))) <= abs(s) / 128 + 1e-30 for s, g in zip(silu, gate)))
    check("layer %d: SiluAndMul = silu(gate) * up" % l, all(abs(a - s * u) <= abs(a) / 64 + 1e-30 for a, s, u in zip(act, silu, up)))
    # vLLM's post-attention norm: (branch = o_proj output, residual = the layer's input) -> (normed, sum)
    check("layer %d: post norm input.0 = o_proj output" % l, t("infer", I("post_attention_layernorm.RMSNorm.forward.0.input.0")) == t("fsdp", hf(l, "self_attn.o_proj.Linear.forward.0.output.0")))
    check("layer %d: post norm input.1 = the training layer's input" % l, t("infer", I("post_attention_layernorm.RMSNorm.forward.0.input.1")) == t("fsdp", hf(l, "Qwen2DecoderLayer.forward.0.input.0")))
    check("layer %d: post norm output.1 = the training norm's input" % l, t("infer", I("post_attention_layernorm.RMSNorm.forward.0.output.1")) == t("fsdp", hf(l, "post_attention_layernorm.Qwen2RMSNorm.forward.0.input.0")))
    check("layer %d: post norm output.0 = the training norm's output" % l, t("infer", I("post_attention_layernorm.RMSNorm.forward.0.output.0")) == t("fsdp", hf(l, "post_attention_layernorm.Qwen2RMSNorm.forward.0.output.0")))
    check("layer %d: decoder output = (mlp output, residual)" % l,
          t("infer", I("Qwen2DecoderLayer.forward.0.output.0")) == t("infer", I("mlp.Qwen2MLP.forward.0.output.0")) and
          t("infer", I("Qwen2DecoderLayer.forward.0.output.1")) == t("infer", I("post_attention_layernorm.RMSNorm.forward.0.output.1")))
    # Megatron: the norm inside the linear
    M = lambda m: "decoder.layers.%d.%s" % (l, m)
    check("layer %d: linear_qkv input = the layer's input" % l, t("megatron", M("self_attention.linear_qkv.TELayerNormColumnParallelLinear.forward.0.input.0")) == t("fsdp", hf(l, "input_layernorm.Qwen2RMSNorm.forward.0.input.0")))
    check("layer %d: linear_qkv output = qkv_proj output" % l, t("megatron", M("self_attention.linear_qkv.TELayerNormColumnParallelLinear.forward.0.output.0")) == qkv)
    check("layer %d: linear_qkv layer_norm_weight = input_layernorm weight" % l, t("megatron", M("self_attention.linear_qkv.TELayerNormColumnParallelLinear.forward.0.parameters.layer_norm_weight")) == t("infer", I("input_layernorm.RMSNorm.forward.0.parameters.weight")))
    check("layer %d: linear_fc1 output = gate_up_proj output" % l, t("megatron", M("mlp.linear_fc1.TELayerNormColumnParallelLinear.forward.0.output.0")) == gate_up)
    check("layer %d: linear_fc1 layer_norm_weight = post_attention_layernorm weight" % l, t("megatron", M("mlp.linear_fc1.TELayerNormColumnParallelLinear.forward.0.parameters.layer_norm_weight")) == t("infer", I("post_attention_layernorm.RMSNorm.forward.0.parameters.weight")))
    check("layer %d: pre_mlp_layernorm passes the residual sum on" % l, t("megatron", M("pre_mlp_layernorm.IdentityOp.forward.0.output.0")) == t("infer", I("post_attention_layernorm.RMSNorm.forward.0.output.1")))
    check("layer %d: TE attention key, value = vLLM's" % l,
          t("megatron", M("self_attention.core_attention.TEDotProductAttention.forward.0.input.1")) == t("infer", I("self_attn.attn.Attention.forward.0.input.1")) and
          t("megatron", M("self_attention.core_attention.TEDotProductAttention.forward.0.input.2")) == t("infer", I("self_attn.attn.Attention.forward.0.input.2")))
    check("layer %d: q_layernorm input = vLLM's q before rotation" % l, t("megatron", M("self_attention.q_layernorm.IdentityOp.forward.0.input.0")) == t("infer", I("self_attn.rotary_emb.RotaryEmbedding.forward.0.input.1")))
# layer 1's vLLM input norm: (branch = layer 0's MLP output, residual = layer 0's post-attention sum)
check("layer 1: input norm (branch, residual) = layer 0's decoder output",
      t("infer", "layers.1.input_layernorm.RMSNorm.forward.0.input.0") == t("infer", "layers.0.Qwen2DecoderLayer.forward.0.output.0") and
      t("infer", "layers.1.input_layernorm.RMSNorm.forward.0.input.1") == t("infer", "layers.0.Qwen2DecoderLayer.forward.0.output.1"))
check("layer 1: input norm output.1 = the training layer 0's output",
      t("infer", "layers.1.input_layernorm.RMSNorm.forward.0.output.1") == t("fsdp", hf(0, "Qwen2DecoderLayer.forward.0.output.0")))
check("final norm output = last_hidden_state", t("infer", "norm.RMSNorm.forward.0.output.0") == t("fsdp", "Qwen2Model.forward.0.output.0.last_hidden_state"))
check("final norm output.1 = the training final norm's input", t("infer", "norm.RMSNorm.forward.0.output.1") == t("fsdp", "norm.Qwen2RMSNorm.forward.0.input.0"))
check("embedding weights", t("infer", "embed_tokens.VocabParallelEmbedding.forward.0.parameters.weight") == t("megatron", "embedding.word_embeddings.VocabParallelEmbedding.forward.0.parameters.weight"))
angles = t("megatron", "rotary_pos_emb.RotaryEmbedding.forward.0.output.0")
want = [struct.unpack("<f", struct.pack("<f", p * struct.unpack("<f", struct.pack("<f", 1 / 10000 ** (2 * j / 4)))[0]))[0] for p in range(5) for j in (0, 1, 0, 1)]
check("rotary angles", angles == want)
check("recomputes = forward.0", t("fsdp", hf(1, "mlp.down_proj.Linear.forward.1.output.0")) == t("fsdp", hf(1, "mlp.down_proj.Linear.forward.0.output.0")))
check("Qwen2Model backward output = the final norm's grad_output", t("fsdp", "Qwen2Model.backward.0.output.0") == t("fsdp", "norm.Qwen2RMSNorm.backward.0.output.0"))
check("down_proj backward output = the final norm's grad_input", t("fsdp", hf(1, "mlp.down_proj.Linear.backward.0.output.0")) == t("fsdp", "norm.Qwen2RMSNorm.backward.0.input.0"))
print("%d checks" % checks)
PY
