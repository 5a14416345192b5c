#!/usr/bin/env python3
"""A second reader of model checkpoints, for probe-ckpt's tests: plain Python, no torch, no numpy.

It shares no code with probe: zipfile and pickle.Unpickler (with stand-ins for torch's globals)
read the .pt files, struct and json the safetensors files, and msprobe's megatron_loader.py rules
(../shared/reference/msprobe-precheck.md, section C) are written out again here.

    ckptread.py list CKPT          name, dtype, shape, one parameter a line, in probe's order
    ckptread.py compare A B        per parameter: name, verdict, reason, first differing index,
                                   max ulp, l2 and cos (9 significant digits), tab-separated
    ckptread.py msprobe A B        msprobe's ckpt_similarity.json (run with PYTHONHASHSEED=0 for
                                   msprobe's order: the order of Python's own set intersection)
    ckptread.py values CKPT NAME   the parameter's elements, one a line (repr)
"""
import collections
import io
import json
import math
import os
import pickle
import re
import struct
import sys
import zipfile

# ---- .pt files: zipfile + pickle with stand-ins --------------------------------------------

STORAGE_DTYPES = {
    'DoubleStorage': 'float64', 'FloatStorage': 'float32', 'HalfStorage': 'float16', 'BFloat16Storage': 'bfloat16',
    'LongStorage': 'int64', 'IntStorage': 'int32', 'ShortStorage': 'int16', 'CharStorage': 'int8',
    'ByteStorage': 'uint8', 'BoolStorage': 'bool',
}
SIZES = {'float64': 8, 'float32': 4, 'float16': 2, 'bfloat16': 2, 'int64': 8, 'int32': 4, 'int16': 2, 'int8': 1,
         'uint8': 1, 'bool': 1, 'uint16': 2, 'uint32': 4, 'uint64': 8}
CODES = {'float64': 'd', 'float32': 'f', 'float16': 'e', 'bfloat16': 'H', 'int64': 'q', 'int32': 'i', 'int16': 'h',
         'int8': 'b', 'uint8': 'B', 'bool': '?', 'uint16': 'H', 'uint32': 'I', 'uint64': 'Q'}


class Tensor:
    def __init__(self, storage, offset, size, stride, dtype=None):
        self.raw, storage_dtype = storage
        self.dtype = dtype or storage_dtype
        self.offset, self.shape, self.stride = offset, list(size), list(stride)

    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    def bits(self):
        """Each element's bits (an int), row-major."""
        size = SIZES[self.dtype]
        out = []

        def walk(dim, at):
            if dim == len(self.shape):
                out.append(int.from_bytes(self.raw[at * size:(at + 1) * size], 'little'))
                return
            for i in range(self.shape[dim]):
                walk(dim + 1, at + i * self.stride[dim])
        walk(0, self.offset)
        return out


def bits_value(dtype, b):
    if dtype == 'bfloat16':
        return struct.unpack('<f', struct.pack('<I', b << 16))[0]
    size = SIZES[dtype]
    return struct.unpack('<' + CODES[dtype], b.to_bytes(size, 'little'))[0]


class Namespace:
    def __init__(self, *args, **kw):
        self.__dict__.update(kw)

    def __setstate__(self, state):
        self.__dict__.update(state)


class Opaque:
    """Any other class or function a checkpoint names (a Megatron enum, numpy's state): inert."""
    def __init__(self, *args, **kw):
        self.args = args

    def __setstate__(self, state):
        self.state = state


def rebuild_v2(storage, offset, size, stride, requires_grad, hooks, metadata=None):
    return Tensor(storage, offset, size, stride)


def rebuild_v3(storage, offset, size, stride, requires_grad, hooks, dtype, metadata=None):
    return Tensor(storage, offset, size, stride, dtype.replace('torch.', ''))


def rebuild_parameter(tensor, requires_grad, hooks, *state):
    return tensor


class Reader(pickle.Unpickler):
    def __init__(self, data, zf, stem):
        super().__init__(io.BytesIO(data))
        self.zf, self.stem = zf, stem

    def find_class(self, module, name):
        known = {('torch._utils', '_rebuild_tensor_v2'): rebuild_v2, ('torch._utils', '_rebuild_tensor_v3'): rebuild_v3,
                 ('torch._utils', '_rebuild_parameter'): rebuild_parameter,
                 ('collections', 'OrderedDict'): collections.OrderedDict, ('argparse', 'Namespace'): Namespace}
        if (module, name) in known:
            return known[(module, name)]
        if module == 'torch' and name.endswith('Storage'):
            return STORAGE_DTYPES.get(name, 'untyped')
        if module == 'torch':
            return 'torch.' + name
        return Opaque

    def persistent_load(self, pid):
        _, cls, key, location, numel = pid
        return self.zf.read('%s/data/%s' % (self.stem, key)), cls


def load_pt(path):
    zf = zipfile.ZipFile(path)
    pkl = [n for n in zf.namelist() if n.endswith('/data.pkl') and n.count('/') == 1][0]
    return Reader(zf.read(pkl), zf, pkl[:-len('/data.pkl')]).load()


def walk(obj, prefix, dicts_only, out):
    """(name, tensor) of a .pt's objects: probe's CKPT_PT walk (dicts, lists, tuples), msprobe's (dicts only)."""
    if isinstance(obj, Tensor):
        if not prefix.endswith('_extra_state'):
            out.append((prefix, obj))
        return
    if isinstance(obj, dict):
        items = [(str(k), v) for k, v in obj.items()]
    elif not dicts_only and isinstance(obj, (list, tuple)):
        items = [(str(i), v) for i, v in enumerate(obj)]
    else:
        return
    for k, v in items:
        walk(v, '.'.join([prefix, k]).strip('.'), dicts_only, out)


def as_dict(pairs):
    d = {}  # plain dicts throughout: msprobe's set(dict) is built another way than set(OrderedDict)
    for k, v in pairs:
        d[k] = v
    return d


# ---- safetensors -----------------------------------------------------------------------------

ST_DTYPES = {'F64': 'float64', 'F32': 'float32', 'F16': 'float16', 'BF16': 'bfloat16', 'I64': 'int64', 'I32': 'int32',
             'I16': 'int16', 'I8': 'int8', 'U8': 'uint8', 'BOOL': 'bool', 'U16': 'uint16', 'U32': 'uint32', 'U64': 'uint64'}


def load_safetensors(path):
    data = open(path, 'rb').read()
    n = struct.unpack('<Q', data[:8])[0]
    header = json.loads(data[8:8 + n], object_pairs_hook=collections.OrderedDict)
    out = {}
    for name, info in header.items():
        if name == '__metadata__':
            continue
        b, e = info['data_offsets']
        dtype = ST_DTYPES[info['dtype']]
        shape = info['shape']
        stride, s = [], 1
        for d in reversed(shape):
            stride.insert(0, s)
            s *= d
        out[name] = Tensor((data[8 + n + b:8 + n + e], dtype), 0, shape, stride)
    return out


# ---- Hugging Face folders ------------------------------------------------------------------------

def load_hf(folder):
    for index, reader in (('model.safetensors.index.json', load_safetensors), ('pytorch_model.bin.index.json', None)):
        p = os.path.join(folder, index)
        if os.path.exists(p):
            wm = json.load(open(p), object_pairs_hook=collections.OrderedDict)['weight_map']
            shards = {}
            out = {}
            for name, shard in wm.items():
                if shard not in shards:
                    f = os.path.join(folder, shard)
                    shards[shard] = reader(f) if reader else as_dict(walk_file(f))
                out[name] = shards[shard][name]
            return out
    if os.path.exists(os.path.join(folder, 'model.safetensors')):
        return load_safetensors(os.path.join(folder, 'model.safetensors'))
    return as_dict(walk_file(os.path.join(folder, 'pytorch_model.bin')))


def walk_file(path):
    out = []
    walk(load_pt(path), '', False, out)
    return out


# ---- Megatron, as msprobe's megatron_loader.py merges it --------------------------------------

NAME_MAP = [('self_attention.linear_qkv.layer_norm_', 'input_layernorm.'), ('language_model.', ''),
            ('encoder', 'decoder'), ('.input_norm.', '.input_layernorm.'), ('query_key_value', 'linear_qkv'),
            ('.dense.', '.linear_proj.'), ('post_attention_norm', 'pre_mlp_layernorm'),
            ('dense_h_to_4h', 'linear_fc1'), ('dense_4h_to_h', 'linear_fc2'),
            ('mlp.local_experts', 'mlp.experts.local_experts'), ('final_norm', 'final_layernorm'),
            ('word_embeddings_for_head', 'output_layer')]
COLUMN = ['linear_qkv', 'linear_fc1', 'word_embeddings.weight', 'output_layer.weight']
ROW = ['linear_fc2.weight', 'linear_proj.weight']


class Merged:
    """A parameter concatenated from shards: its dtype, shape and bits."""
    def __init__(self, dtype, shape, bits):
        self.dtype, self.shape, self._bits = dtype, shape, bits

    def bits(self):
        return self._bits

    def numel(self):
        return len(self._bits)


def concat(parts, axis):
    shape = list(parts[0].shape)
    shape[axis] = sum(p.shape[axis] for p in parts)
    outer = 1
    for d in shape[:axis]:
        outer *= d
    blocks = [p.bits() for p in parts]
    out = []
    for o in range(outer):
        for p, b in zip(parts, blocks):
            n = len(b) // outer
            out += b[o * n:(o + 1) * n]
    return Merged(parts[0].dtype, shape, out)


def load_megatron(path):
    tracker = os.path.join(path, 'latest_checkpointed_iteration.txt')
    if os.path.exists(tracker):
        it = open(tracker).read().strip()
        path = os.path.join(path, 'release' if it == 'release' else 'iter_%07d' % int(it))
    first = sorted(d for d in os.listdir(path) if d.startswith('mp_rank_'))[0]
    args = load_pt(os.path.join(path, first, 'model_optim_rng.pt'))['args']
    tp, pp = args.tensor_model_parallel_size, args.pipeline_model_parallel_size
    ep, experts = getattr(args, 'expert_model_parallel_size', 1), getattr(args, 'num_experts', None)
    combined = {}  # a dict, as msprobe's: set() of an OrderedDict would be built another way
    for er in range(ep):
        per_stage = 0
        for pr in range(pp):
            part = collections.OrderedDict()
            for tr in range(tp):
                name = 'mp_rank_%02d' % tr + ('_%03d' % pr if pp > 1 else '') + ('_%03d' % er if ep > 1 else '')
                sd = load_pt(os.path.join(path, name, 'model_optim_rng.pt'))
                keys = ['model'] if 'model' in sd else []
                v = 0
                while not keys and 'model%d' % v in sd or (keys and keys[0] != 'model' and 'model%d' % v in sd):
                    keys.append('model%d' % v)
                    v += 1
                for vpp, k in enumerate(keys):
                    found = []
                    walk(sd[k], '', True, found)
                    for n, t in found:
                        for a, b in NAME_MAP:
                            n = n.replace(a, b)
                        part.setdefault('%s/%d' % (n, vpp), []).append(t)
            if not per_stage:
                idx = [int(m[0]) for m in (re.findall(r'layers\.(\d+)\.', k) for k in part) if m]
                per_stage = max(idx) + 1 if idx else 1
            for key, ts in part.items():
                if any(c in key for c in COLUMN):
                    t = concat(ts, 0) if tp > 1 else ts[0]
                elif any(r in key for r in ROW):
                    t = concat(ts, 1) if tp > 1 else ts[0]
                else:
                    t = ts[0]
                name, vpp = key.split('/')
                m = re.search(r'layers\.(\d+)\.', name)
                if m:
                    local = int(m.group(1))
                    name = name.replace('layers.%d' % local, 'layers.%d' % (local + (pp * int(vpp) + pr) * per_stage))
                if experts:
                    m = re.search(r'experts\.(\d+)\.', name)
                    if m:
                        local = int(m.group(1))
                        name = name.replace('experts.%d' % local, 'experts.%d' % (local + er * (experts // ep)))
                combined[name] = t
    return combined


# ---- any checkpoint ----------------------------------------------------------------------------

def load(path):
    if os.path.isdir(path):
        if os.path.exists(os.path.join(path, 'latest_checkpointed_iteration.txt')) or \
                any(d.startswith('mp_rank_') for d in os.listdir(path)):
            return load_megatron(path)
        return load_hf(path)
    with open(path, 'rb') as f:
        head = f.read(9)
    if head[:2] == b'PK':
        return as_dict(walk_file(path))
    return load_safetensors(path)


# ---- comparisons -------------------------------------------------------------------------------

def values(t):
    return [bits_value(t.dtype, b) for b in t.bits()]


def ordered(b, width):
    sign = 1 << (width - 1)
    return -(b & (sign - 1)) if b & sign else b


def f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]


def compare(a, b):
    for name in list(a) + [n for n in b if n not in a]:
        ta, tb = a.get(name), b.get(name)
        if ta is None or tb is None:
            print('%s\t%s' % (name, 'only_b' if ta is None else 'only_a'))
            continue
        reason = []
        if ta.dtype != tb.dtype:
            reason.append('dtype')
        if list(ta.shape) != list(tb.shape):
            reason.append('shape')
        if 'shape' in reason:
            print('%s\tdiff\t%s' % (name, ' and '.join(reason)))
            continue
        va, vb = values(ta), values(tb)
        first, ulp = '-', '-'
        if not reason:
            ba, bb = ta.bits(), tb.bits()
            diffs = [i for i in range(len(ba)) if ba[i] != bb[i]]
            width = SIZES[ta.dtype] * 8
            if diffs:
                first = str(diffs[0])
                ulp = str(max(abs(ordered(ba[i], width) - ordered(bb[i], width)) for i in diffs))
            verdict = 'diff' if diffs else 'same'
            why = 'values' if diffs else '-'
        else:
            verdict, why = 'diff', ' and '.join(reason)
        l2 = math.sqrt(sum((x - y) ** 2 for x, y in zip(va, vb)))
        na, nb = math.sqrt(sum(x * x for x in va)), math.sqrt(sum(y * y for y in vb))
        cos = 1.0 if na == 0 and nb == 0 else (float('nan') if na == 0 or nb == 0 else
                                                 sum(x * y for x, y in zip(va, vb)) / (na * nb))
        if verdict == 'same':
            l2, cos = 0.0, 1.0
        print('%s\t%s\t%s\t%s\t%s\t%.9g\t%.9g' % (name, verdict, why, first, ulp, l2, cos))


def msprobe(a, b):
    """metrics.py over float32 arrays: numpy's float32 dot, one element at a time; the keys in set order."""
    results = {}
    common = set(a) & set(b)
    for key in common:
        ta, tb = a[key], b[key]
        va, vb = [f32(x) for x in values(ta)], [f32(x) for x in values(tb)]
        r = {}
        if list(ta.shape) != list(tb.shape):
            r['l2'], r['cos'] = None, None
        else:
            def dot(x, y):
                s = 0.0
                for p, q in zip(x, y):
                    s = f32(s + f32(p * q))
                return s
            d = [f32(x - y) for x, y in zip(va, vb)]
            r['l2'] = f32(math.sqrt(dot(d, d)))
            na, nb = f32(math.sqrt(dot(va, va))), f32(math.sqrt(dot(vb, vb)))
            if na == 0 and nb == 0:
                r['cos'] = 1.0
            elif na == 0 or nb == 0:
                r['cos'] = None
            else:
                r['cos'] = f32(dot(va, vb) / f32(na * nb))
        r['numel'] = len(va) if len(va) == len(vb) else (len(va), len(vb))
        r['shape'] = list(ta.shape) if list(ta.shape) == list(tb.shape) else [list(ta.shape), list(tb.shape)]
        results[key] = r
    sys.stdout.write(json.dumps(results, indent=4))


def main():
    cmd = sys.argv[1]
    if cmd == 'list':
        for name, t in load(sys.argv[2]).items():
            print('%s %s %s' % (name, t.dtype, list(t.shape)))
    elif cmd == 'compare':
        compare(load(sys.argv[2]), load(sys.argv[3]))
    elif cmd == 'msprobe':
        msprobe(load(sys.argv[2]), load(sys.argv[3]))
    elif cmd == 'values':
        for v in values(load(sys.argv[2])[sys.argv[3]]):
            print(repr(v))


if __name__ == '__main__':
    main()
