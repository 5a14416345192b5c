#!/usr/bin/env python3
"""Write the crafted compare corpus: tests/data/compare/<case>/{target,golden}/dump.json
(+ target/stack.json where useful) and <case>/expected.csv produced by msprobe_compare.py.

usage: make_corpus.py [OUTDIR]      (default: ../data/compare next to this script)

Every case is small and named by what it exercises; README.md in OUTDIR lists them.
expected.csv is the oracle's answer, never hand-edited: rerun this script after
changing the oracle or a case.
"""

import json
import os
import subprocess
import sys

INF = float('inf')
NAN = float('nan')
MISSING = object()


# ----------------------------------------------------------------------------- builders

def T(mx=2.0, mn=1.0, mean=1.5, norm=3.0, dtype='torch.float32', shape=(2, 2), rg=False, **extra):
    """A tensor leaf as the dumper writes it (rg=None: no requires_grad key)."""
    leaf = {'type': 'torch.Tensor', 'dtype': dtype, 'shape': list(shape),
            'Max': mx, 'Min': mn, 'Mean': mean, 'Norm': norm}
    if rg is not None:
        leaf['requires_grad'] = rg
    leaf.update(extra)
    return leaf


def S(typ, value=MISSING, **extra):
    """A non-tensor leaf {"type": typ, "value": value}."""
    leaf = {'type': typ}
    if value is not MISSING:
        leaf['value'] = value
    leaf.update(extra)
    return leaf


def fwd(inputs=(), kwargs=None, outputs=(), params=None):
    entry = {'input_args': list(inputs), 'input_kwargs': kwargs or {}, 'output': list(outputs)}
    if params is not None:
        entry['parameters'] = params
    return entry


def bwd(inputs=(), outputs=()):
    return {'input': list(inputs), 'output': list(outputs)}


def dump(data, task='statistics', level='mix'):
    return {'task': task, 'level': level, 'framework': 'pytorch', 'dump_data_dir': None, 'data': data}


def md5t(md5, **kw):
    """A tensor leaf carrying an md5 (summary_mode md5)."""
    return T(md5=md5, **kw)


CASES = []


def case(name, about, target, golden, stack=None, raw_target=None):
    CASES.append({'name': name, 'about': about, 'target': target, 'golden': golden,
                  'stack': stack, 'raw_target': raw_target})


# ----------------------------------------------------------------------------- reference example

case('worked-example-11-1',
     'The statistics example of msprobe-compare.md section 11.1, whose expected.csv equals '
     'the output of the real msprobe 26.0.0 quoted there (selftest.py checks this).',
     dump({
         'Torch.add.0.forward': fwd([T(2.0, 1.0, 1.5, 3.2), S('int', 1)], {'alpha': S('float', 0.5)},
                                    [T(3.5, 1.0, 2.25, 5.0)]),
         'Torch.relu.0.forward': fwd([T(2.0, -1.0, 0.5, 2.5)], {}, [T(2.0, 0.0, NAN, None)]),
         'Functional.linear.2.backward': bwd([T(1.0, 1.0, 1.0, 2.0)], [T(0.5, 0.5, 0.5, 1.0), None]),
     }, level='L1'),
     dump({
         'Torch.add.0.forward': fwd([T(2.0, 1.0, 1.5, 3.2), S('int', 1)], {'alpha': S('float', 0.5)},
                                    [T(3.0, 1.0, 2.0, 4.0)]),
         'Functional.linear.0.backward': bwd([T(1.0, 1.0, 1.0, 2.0)], [T(0.5, 0.5, 0.5, 0.0), None]),
     }, level='L1'))


# ----------------------------------------------------------------------------- checkers

case('checker-infnan',
     'InfNan checker: NPU max/min inf or NaN -> error; skipped when the bench max/min is '
     'nan/inf; fires on unmatched rows; mean/norm inf does not trigger it (but an inf '
     'NormRelativeErr triggers RelativeErr); str scalar "inf" counts; leading-space " inf".',
     dump({
         'Torch.mul.0.forward': fwd([T()], outputs=[T(INF, 1.0, 2.0, 5.0)]),
         'Torch.div.0.forward': fwd([T()], outputs=[T(2.0, NAN, NAN, 5.0)]),
         'Torch.log.0.forward': fwd([T()], outputs=[T(2.0, -INF, -INF, INF)]),
         'Torch.exp.0.forward': fwd([T()], outputs=[T(INF, 1.0, 2.0, 5.0)]),
         'Torch.sqrt.0.forward': fwd([T()], outputs=[T(NAN, 1.0, 2.0, 5.0)]),
         'Torch.pow.0.forward': fwd([T()], outputs=[T(2.0, 1.0, INF, INF)]),
         'Torch.full.0.forward': fwd([S('str', 'inf')], outputs=[T()]),
     }),
     dump({
         'Torch.mul.0.forward': fwd([T()], outputs=[T(4.0, 1.0, 2.0, 5.0)]),
         'Torch.div.0.forward': fwd([T()], outputs=[T(2.0, 1.0, 1.5, 5.0)]),
         'Torch.log.0.forward': fwd([T()], outputs=[T(2.0, -INF, -INF, INF)]),
         'Torch.exp.0.forward': fwd([T()], outputs=[T(NAN, 1.0, 2.0, 5.0)]),
         'Torch.pow.0.forward': fwd([T()], outputs=[T(2.0, 1.0, 1.0, 2.0)]),
         'Torch.full.0.forward': fwd([S('str', 'big')], outputs=[T()]),
     }))

case('checker-relative-err',
     'RelativeErr checker: inputs max NormRelativeErr < 0.1 and an output > 0.5 -> error '
     'on that output; 10.0% input (= 0.1) is a near miss; exactly 50% output is a near miss '
     '(but RelativeWarn fires); "inf" and "-inf" outputs count, "Nan" never does; error and '
     'warning messages stacked on one row.',
     dump({
         'Torch.matmul.0.forward': fwd([T(norm=2.0), T(norm=10.1)], outputs=[T(norm=16.0), T(norm=12.0)]),
         'Torch.bmm.0.forward': fwd([T(norm=11.0)], outputs=[T(norm=19.0)]),
         'Torch.addmm.0.forward': fwd([T()], outputs=[T(norm=1.0), T(norm=NAN), T(norm=5.0)]),
         'Torch.baddbmm.0.forward': fwd([T()], outputs=[T(norm=15.0)]),
     }),
     dump({
         'Torch.matmul.0.forward': fwd([T(norm=2.0), T(norm=10.0)], outputs=[T(norm=10.0), T(norm=10.0)]),
         'Torch.bmm.0.forward': fwd([T(norm=10.0)], outputs=[T(norm=10.0)]),
         'Torch.addmm.0.forward': fwd([T()], outputs=[T(norm=0.0), T(norm=1.0), T(norm=INF)]),
         'Torch.baddbmm.0.forward': fwd([T()], outputs=[T(norm=10.0)]),
     }))

case('checker-relative-warn',
     'RelativeWarn checker: input max 0 and output > 0.1 -> warning; ratio > 10 -> warning; '
     'near misses (0.05 with zero inputs, ratio 8, ratio exactly 10); "inf" input rel is '
     'ignored in the input max; the warning lands on the first output row.',
     dump({
         'Torch.add.0.forward': fwd([T()], outputs=[T(), T(norm=3.45)]),
         'Torch.add.1.forward': fwd([T()], outputs=[T(norm=3.15)]),
         'Torch.add.2.forward': fwd([T(norm=10.2)], outputs=[T(norm=12.5)]),
         'Torch.add.3.forward': fwd([T(norm=10.5)], outputs=[T(norm=14.0)]),
         'Torch.add.4.forward': fwd([T(norm=11.0)], outputs=[T(norm=20.0)]),
         'Torch.add.5.forward': fwd([T(norm=1.0)], outputs=[T(norm=12.0)]),
     }),
     dump({
         'Torch.add.0.forward': fwd([T()], outputs=[T(), T(norm=3.0)]),
         'Torch.add.1.forward': fwd([T()], outputs=[T(norm=3.0)]),
         'Torch.add.2.forward': fwd([T(norm=10.0)], outputs=[T(norm=10.0)]),
         'Torch.add.3.forward': fwd([T(norm=10.0)], outputs=[T(norm=10.0)]),
         'Torch.add.4.forward': fwd([T(norm=10.0)], outputs=[T(norm=10.0)]),
         'Torch.add.5.forward': fwd([T(norm=0.0)], outputs=[T(norm=10.0)]),
     }))

case('checker-requires-grad',
     'RequiresGrad checker: True vs False -> error; a tensor without requires_grad (N/A) vs '
     'True -> error; Requires_grad Consistent False on those rows.',
     dump({'Torch.add.0.forward': fwd([T(rg=True), T(rg=None), T(rg=False)], outputs=[T(rg=True)])}),
     dump({'Torch.add.0.forward': fwd([T(rg=False), T(rg=True), T(rg=False)], outputs=[T(rg=True)])}))

case('checker-parameters',
     'Parameters checker: matched Python-scalar inputs with different values -> error '
     '(float, torch.device, torch.dtype, bool); equal values pass; output scalars are not '
     'checked.',
     dump({
         'Torch.add.0.forward': fwd([T(), S('int', 1)], {'alpha': S('float', 0.5)}, [T()]),
         'Torch.ones.0.forward': fwd([S('int', 2)], {'device': S('torch.device', 'npu:0'),
                                                     'dtype': S('torch.dtype', 'torch.float16'),
                                                     'layout': S('str', 'strided')}, [T()]),
         'Functional.dropout.0.forward': fwd([T()], {'training': S('bool', True), 'p': S('float', 0.1)}, [T()]),
         'Torch.numel.0.forward': fwd([T()], outputs=[S('int', 3)]),
     }),
     dump({
         'Torch.add.0.forward': fwd([T(), S('int', 1)], {'alpha': S('float', 0.25)}, [T()]),
         'Torch.ones.0.forward': fwd([S('int', 2)], {'device': S('torch.device', 'cpu'),
                                                     'dtype': S('torch.dtype', 'torch.float32'),
                                                     'layout': S('str', 'strided')}, [T()]),
         'Functional.dropout.0.forward': fwd([T()], {'training': S('bool', False), 'p': S('float', 0.1)}, [T()]),
         'Torch.numel.0.forward': fwd([T()], outputs=[S('int', 4)]),
     }))

case('checker-dtype',
     'DType checker: fp16/bf16 vs fp32 pass the dtype gate, then get error on inputs and '
     'outputs; equal dtypes pass.',
     dump({'Functional.linear.0.forward': fwd(
         [T(dtype='torch.float16'), T(dtype='torch.bfloat16'), T()], outputs=[T(dtype='torch.float16')])}),
     dump({'Functional.linear.0.forward': fwd(
         [T(), T(), T()], outputs=[T()])}))

case('checker-dtype-qkv-gate-up',
     'DType checker skipped when the Bench Name contains "qkv" or "gate_up" (substring); '
     'near misses q_k_v and gate; the Shape checker still runs on qkv rows.',
     dump({
         'Module.attn.qkv.Linear.forward.0': fwd([T(dtype='torch.float16')], outputs=[T(dtype='torch.float16', shape=(2, 3))]),
         'Module.mlp.gate_up_proj.Linear.forward.0': fwd([T(dtype='torch.bfloat16')], outputs=[T()]),
         'Module.attn.q_k_v.Linear.forward.0': fwd([T(dtype='torch.float16')], outputs=[T()]),
         'Module.mlp.gate.Linear.forward.0': fwd([T(dtype='torch.bfloat16')], outputs=[T()]),
     }),
     dump({
         'Module.attn.qkv.Linear.forward.0': fwd([T()], outputs=[T()]),
         'Module.mlp.gate_up_proj.Linear.forward.0': fwd([T()], outputs=[T()]),
         'Module.attn.q_k_v.Linear.forward.0': fwd([T()], outputs=[T()]),
         'Module.mlp.gate.Linear.forward.0': fwd([T()], outputs=[T()]),
     }))

case('checker-shape',
     'Shape checker: tensor [2, 3] vs [3, 2], torch.Size value [2, 3] vs [3, 2], 0-d [] vs [1] '
     '-> error; equal slices (3,) and ellipsis pass.',
     dump({
         'Torch.reshape.0.forward': fwd([T(shape=(2, 3)), S('torch.Size', [2, 3]), T(shape=())], outputs=[T(shape=(6,))]),
         'Tensor.__getitem__.0.forward': fwd([T(), S('slice', [0, 2, None]), S('ellipsis', '...')], outputs=[T()]),
     }),
     dump({
         'Torch.reshape.0.forward': fwd([T(shape=(3, 2)), S('torch.Size', [3, 2]), T(shape=(1,))], outputs=[T(shape=(6,))]),
         'Tensor.__getitem__.0.forward': fwd([T(), S('slice', [0, 3, None]), S('ellipsis', '...')], outputs=[T()]),
     }))

case('checker-ignore-all',
     'All-ignore list keyed on the 2nd name component of the first input row: Tensor.to, '
     'Torch.empty_like, Tensor.numpy, Tensor.__setitem__ and a module whose first path '
     'component is "to" pass whatever happens; near misses: Torch.setitem (the docs\' name) '
     'and a Tensor.to entry without input rows (no ignore).',
     dump({
         'Tensor.to.0.forward': fwd([T(shape=(4,))], outputs=[T(INF, 1.0, 1.5, 3.0, dtype='torch.float16')]),
         'Torch.empty_like.0.forward': fwd([T()], outputs=[T(NAN, NAN, NAN, NAN)]),
         'Tensor.numpy.0.forward': fwd([T(rg=True)], outputs=[T(norm=30.0)]),
         'Module.to.Linear.forward.0': fwd([T(dtype='torch.float16')], outputs=[T(shape=(3,))]),
         'Tensor.__setitem__.0.forward': fwd([T(shape=(5,))], outputs=[T()]),
         'Torch.setitem.0.forward': fwd([T(shape=(5,))], outputs=[T()]),
         'Tensor.to.1.forward': fwd([], outputs=[T(INF, 1.0, 1.5, 3.0)]),
     }),
     dump({
         'Tensor.to.0.forward': fwd([T(shape=(2,))], outputs=[T(2.0, 1.0, 1.5, 3.0)]),
         'Torch.empty_like.0.forward': fwd([T()], outputs=[T()]),
         'Tensor.numpy.0.forward': fwd([T(rg=False)], outputs=[T()]),
         'Module.to.Linear.forward.0': fwd([T()], outputs=[T(shape=(4,))]),
         'Tensor.__setitem__.0.forward': fwd([T(shape=(6,))], outputs=[T()]),
         'Torch.setitem.0.forward': fwd([T(shape=(6,))], outputs=[T()]),
         'Tensor.to.1.forward': fwd([], outputs=[T(2.0, 1.0, 1.5, 3.0)]),
     }))

case('checker-ignore-input',
     'Input-ignore list (all_to_all_single, _all_gather_base): input rows are not checked, '
     'RelativeErr/Parameters/RelativeWarn are skipped, output rows still get InfNan, Shape, '
     'DType; near miss Distributed.all_gather is checked normally.',
     dump({
         'Distributed.all_to_all_single.0.forward': fwd(
             [T(shape=(4,)), T(shape=(4,))], {'group_size': S('int', 1)}, [T(shape=(4,), norm=30.0), T(shape=(8,))]),
         'Distributed._all_gather_base.0.forward': fwd(
             [T(INF, 1.0, 1.5, 3.0)], outputs=[T(INF, 1.0, 1.5, 3.0)]),
         'Distributed.all_gather.0.forward': fwd([T(shape=(4,))], outputs=[T()]),
     }),
     dump({
         'Distributed.all_to_all_single.0.forward': fwd(
             [T(shape=(8,)), T(shape=(4,))], {'group_size': S('int', 2)}, [T(shape=(4,)), T(shape=(4,))]),
         'Distributed._all_gather_base.0.forward': fwd(
             [T()], outputs=[T()]),
         'Distributed.all_gather.0.forward': fwd([T(shape=(8,))], outputs=[T()]),
     }))

case('checker-first-output-row',
     'Input-vs-output checkers write to the first output row: RelativeWarn warning on '
     'output.0 while output.1/output.2 hold the large errors (RelativeErr error stays on the '
     'bad output itself); module parameters rows count as inputs.',
     dump({
         'Torch.split.0.forward': fwd([T()], outputs=[T(), T(norm=3.9), T(norm=5.1)]),
         'Module.fc.Linear.forward.0': fwd([T()], outputs=[T(norm=3.9)],
                                           params={'weight': T(norm=3.06, rg=True), 'bias': T(rg=True)}),
     }),
     dump({
         'Torch.split.0.forward': fwd([T()], outputs=[T(), T(norm=3.0), T(norm=3.0)]),
         'Module.fc.Linear.forward.0': fwd([T()], outputs=[T(norm=3.0)],
                                           params={'weight': T(norm=3.0, rg=True), 'bias': T(rg=True)}),
     }))

case('checker-output-in-module-name',
     'Rows are outputs when the NPU Name contains ".output." anywhere: for module '
     '"Module.output.Linear" every row, even input.0, is an output, so the group has no '
     'inputs (input max defaults to 0) and the warning lands on the input.0 row; near '
     'miss "output_proj".',
     dump({
         'Module.output.Linear.forward.0': fwd([T(norm=3.6)], outputs=[T(norm=6.0)]),
         'Module.decoder.output_proj.Linear.forward.0': fwd([T(norm=3.6)], outputs=[T(norm=4.2)]),
     }),
     dump({
         'Module.output.Linear.forward.0': fwd([T(norm=3.0)], outputs=[T(norm=3.0)]),
         'Module.decoder.output_proj.Linear.forward.0': fwd([T(norm=3.0)], outputs=[T(norm=3.0)]),
     }))

case('checker-scalar-only-inputs',
     'An API whose inputs are only equal scalars has input NormRelativeErr texts "0", which '
     'are not numbers for the rule engine: input max defaults to 0, so any output error '
     '> 10% warns; 8% does not.',
     dump({
         'Torch.mul.0.forward': fwd([S('float', 2.0), S('int', 3)], outputs=[T(norm=3.36)]),
         'Torch.full.0.forward': fwd([S('int', 4), S('float', 0.5)], outputs=[T(norm=3.24)]),
     }),
     dump({
         'Torch.mul.0.forward': fwd([S('float', 2.0), S('int', 3)], outputs=[T(norm=3.0)]),
         'Torch.full.0.forward': fwd([S('int', 4), S('float', 0.5)], outputs=[T(norm=3.0)]),
     }))


# ----------------------------------------------------------------------------- §5 diffs

case('diff-num-num',
     'NUM x NUM rule: float diffs and percent texts (Python repr), int 1 vs float 1.0 '
     '(unequal texts: 0.0 / 0.0%), 0.0 vs -0.0 (rel inf), bench 0 (rel inf), exponent forms '
     '(1e-05, 9.999999999998899e-05), 2000000000000000.0, overflow to inf (" inf" / inf%), '
     'pandas to_numeric re-parse imprecision (-0.00010648369789129086), int stats 5 vs 7 in a '
     'float column print 5.0 / 7.0 with diff -2.0.',
     dump({'Torch.stats.0.forward': fwd([
         T(3.5, 1, -0.0, 5.0),
         T(1e-05, -2.0, 0.0, 1.2e16),
         T(1.0001, 0.49929186701774597, 1.7e308, 7),
         T(5, None, None, None),
     ], outputs=[T()])}),
     dump({'Torch.stats.0.forward': fwd([
         T(3.0, 1.0, 0.0, 0.0),
         T(2e-05, -4.0, -0.0, 1e16),
         T(1.0, 0.4993983507156372, -1.7e308, 0),
         T(7, None, None, None),
     ], outputs=[T()])}))

CLASS_VALUES = {          # (NPU value, bench value) representing each §5 class
    'NUM': (1.5, 2.5),
    'NAN': (NAN, NAN),
    'INF': (INF, 'INF'),
    'NEG_INF': (-INF, '-INF'),
    'DEVICE': ('cuda:0', 'npu:1'),
    'NA': ('N/A', 'N/A'),
    'OTHER': (True, None),
}


def class_matrix():
    """All 49 (NPU class, bench class) pairs, four per row, as module parameters (not
    subject to msprobe's parse-time string check, so '-INF' is allowed)."""
    pairs = [(a, b) for a in CLASS_VALUES for b in CLASS_VALUES]
    npu_params, bench_params = {}, {}
    for k in range(0, len(pairs), 4):
        chunk = pairs[k:k + 4]
        while len(chunk) < 4:
            chunk.append(('NUM', 'NUM'))
        name = 'p%02d_' % (k // 4) + '_'.join('%s-%s' % (a, b) for a, b in chunk)
        npu_params[name] = T(*[CLASS_VALUES[a][0] for a, _ in chunk])
        bench_params[name] = T(*[CLASS_VALUES[b][1] for _, b in chunk])
    return npu_params, bench_params


_npu_params, _bench_params = class_matrix()
case('diff-class-matrix',
     'Every (NPU class, bench class) cell of the statistics diff table (NUM, NAN, INF, '
     'NEG_INF, DEVICE, NA, OTHER), packed four pairs per row; parameter names spell the '
     'pairs (max-min-mean-norm).',
     dump({'Module.m.Matrix.forward.0': fwd([], outputs=[T()], params=_npu_params)}),
     dump({'Module.m.Matrix.forward.0': fwd([], outputs=[T()], params=_bench_params)}))

case('diff-nan-inf-stats',
     'Realistic NaN/inf statistics: NaN vs number (Nan), NaN vs NaN (0), inf vs number (inf), '
     '-inf vs number (-inf), number vs inf (-inf), number vs -inf (inf), inf vs -inf (inf), '
     'string "inf" vs float inf (equal text: 0); cells print Nan / " inf" / " -inf".',
     dump({'Torch.nan_to_num.0.forward': fwd(
         [T(NAN, NAN, NAN, NAN), T(INF, -INF, 1.0, INF), T(2.0, 1.0, INF, -INF)],
         outputs=[T(INF, 'inf', NAN, 3.0)])}),
     dump({'Torch.nan_to_num.0.forward': fwd(
         [T(2.0, NAN, 1.0, NAN), T(1.0, 1.0, INF, 2.0), T(INF, -INF, -INF, INF)],
         outputs=[T(INF, INF, 2.0, 3.0)])}))

case('diff-int-column',
     'Whole-column integer case: every cell of the NPU and Bench stats columns is an int '
     '(int scalars and 0-d int tensors, all matched), so diffs print as ints (-2, 6) and '
     'the stats keep their int form.',
     dump({'Torch.add.0.forward': fwd(
         [T(3, 3, 3, 3, dtype='torch.int64', shape=()), S('int', 5)],
         outputs=[T(10, 10, 10, 10, dtype='torch.int64', shape=()), T(4, 4, 4, 4, dtype='torch.int64', shape=())])}),
     dump({'Torch.add.0.forward': fwd(
         [T(3, 3, 3, 3, dtype='torch.int64', shape=()), S('int', 7)],
         outputs=[T(4, 4, 4, 4, dtype='torch.int64', shape=()), T(0, 0, 0, 0, dtype='torch.int64', shape=())])}))


NUMERIC_TEXTS = [(' 5', '5'), ('1e5', '100000'), ('+3', '3'), ('Infinity', 'inf'), ('-0', '0'), ('00', '0'),
                 ('5.', '5'), ('.5', '0.5'), ('1_000', '1000'), ('0x10', '16'), ('1e400', 'inf'), (' inf', 'inf'),
                 ('-Infinity', '-inf'), ('3 ', '3'), ('1e-320', '0'), ('9007199254740993', '9007199254740992')]

case('diff-numeric-text',
     'Which strings pandas.to_numeric accepts as numbers (NUM) and how it parses them: '
     'surrounding spaces, "+3", "1e5", "5.", ".5", "00", "Infinity"/"-Infinity" (NUM, not '
     'INF: only the exact texts inf/-inf are INF), "-0" (-0.0 in a float column), "1e-320"; '
     'not numbers: "1_000", "0x10", "1e400", " inf".  String scalars as module parameters '
     '(no parse-time check, so a leading "-" is allowed).',
     dump({'Module.m.M.forward.0': fwd([T()], outputs=[T()],
                                       params={'s%02d' % i: S('str', a) for i, (a, _) in enumerate(NUMERIC_TEXTS)})}),
     dump({'Module.m.M.forward.0': fwd([T()], outputs=[T()],
                                       params={'s%02d' % i: S('str', b) for i, (_, b) in enumerate(NUMERIC_TEXTS)})}))


# ----------------------------------------------------------------------------- §4.2 inference

case('infer-float-block-unmatched',
     'NPU stats block all numeric with floats: every int prints as a float (2 -> 2.0); the '
     'Bench block holds N/A (an unmatched NPU row) so its ints stay ints, making the int '
     'scalar row "2.0" vs "2": diff 0.0 / 0.0% and no Parameters error (2.0 == 2).',
     dump({
         'Torch.mul.0.forward': fwd([T(4.0, 1.0, 2.5, 5.5), S('int', 2)], outputs=[T(8.0, 2.0, 5.0, 11.0)]),
         'Torch.neg.0.forward': fwd([T(1.0, 0.0, 0.5, 1.0)], outputs=[T(0.0, -1.0, -0.5, 1.0)]),
     }),
     dump({
         'Torch.mul.0.forward': fwd([T(4.0, 1.0, 2.5, 5.5), S('int', 2)], outputs=[T(8.0, 2.0, 5.0, 11.0)]),
     }))

case('infer-float-block-matched',
     'Both stats blocks all numeric with floats and every row matched: int scalars print '
     'as 2.0 on both sides and compare equal (diff 0).',
     dump({'Torch.mul.0.forward': fwd([T(4.0, 1.0, 2.5, 5.5), S('int', 2), S('int', 3)], outputs=[T(8.0, 2.0, 5.0, 11.0)])}),
     dump({'Torch.mul.0.forward': fwd([T(4.0, 1.0, 2.5, 5.5), S('int', 2), S('int', 5)], outputs=[T(8.0, 2.0, 5.0, 11.0)])}))

case('infer-per-column',
     'Stats block with an object column (None in mean): inference is per column there: the '
     'all-int max column keeps ints (3, 4), the int+float min and norm columns print ints '
     'as floats (3.0), the mean column keeps its JSON forms.',
     dump({'Torch.where.0.forward': fwd(
         [T(3, 3, 3, 3, dtype='torch.int64', shape=()), T(4, 0.5, None, 2.5)], outputs=[T(4, 0.5, None, 2.5)])}),
     dump({'Torch.where.0.forward': fwd(
         [T(3, 3, 3, 3, dtype='torch.int64', shape=()), T(4, 0.5, None, 2.5)], outputs=[T(4, 0.5, None, 2.5)])}))

case('infer-int-column-in-float-block',
     'A block of four all-numeric statistics columns with a float anywhere is float64 as a '
     'whole: the all-int max and min columns print 3.0 and 1.0 because mean and norm hold '
     'floats (column by column they would stay ints).',
     dump({'Torch.a.0.forward': fwd(
         [T(3, 1, 2.5, 4.5, dtype='torch.int64', shape=(2,))], outputs=[T(4, 1, 2.0, 5.0, dtype='torch.int64', shape=(2,))])}),
     dump({'Torch.a.0.forward': fwd(
         [T(3, 1, 2.5, 4.5, dtype='torch.int64', shape=(2,))], outputs=[T(4, 1, 2.0, 5.0, dtype='torch.int64', shape=(2,))])}))

case('infer-unmatched-subset',
     'fillna on the unmatched rows re-infers each column over those rows only: an unmatched '
     'subset of ints and floats prints its ints as floats (max 5 -> 5.0) while the same int '
     'on a matched row stays 5; an all-int unmatched subset (min, norm) keeps ints.',
     dump({
         'Torch.add.0.forward': fwd([T(5, 1, 2.5, 7, dtype='torch.int64', shape=()), T(None, None, None, None, shape=(0,))],
                                    outputs=[T(5, 1, 2.5, 7)]),
         'Torch.sub.0.forward': fwd([T(5, 1, 2.5, 7), T(2.5, 2, 1.5, 3)], outputs=[T(5, 1, 2.5, 7)]),
     }),
     dump({
         'Torch.add.0.forward': fwd([T(5, 1, 2.5, 7, dtype='torch.int64', shape=()), T(None, None, None, None, shape=(0,))],
                                    outputs=[T(5, 1, 2.5, 7)]),
     }))


# ----------------------------------------------------------------------------- §1.4 leaves, §1.5 names

case('leaf-kinds',
     'Every leaf kind of the table in §1.4: tensor (also numpy.ndarray, DTensor, bool and '
     'empty tensors), torch.Size, slice, ellipsis, int, float (1e-05), bool, str, '
     'torch.dtype, torch.device, numpy scalar, torch.memory_format (no value), null, empty '
     'list/object (no row), bare JSON scalars (no row), a non-string "type" (container), '
     'nested lists and dicts in args, kwargs and outputs.',
     dump({'Torch.kitchen.0.forward': fwd([
         T(), S('torch.Size', [2, 3]), S('slice', [0, 2, None]), S('ellipsis', '...'),
         S('int', 1), S('float', 1e-05), S('bool', True), S('str', 'mean'),
         S('torch.dtype', 'torch.float32'), S('torch.device', 'cuda:0'), S('float32', 0.5),
         {'type': 'torch.memory_format', 'format': 'contiguous_format'},
         None, [], {}, 0, 'bare',
         [T(shape=(3,)), [S('int', 2), S('int', 3)]],
         {'type': 5, 'a': S('int', 1)},
         T(True, False, None, None, dtype='torch.bool'),
         T(None, None, None, None, shape=(0, 4)),
         {'type': 'numpy.ndarray', 'dtype': 'float32', 'shape': [3], 'Max': 1.0, 'Min': 0.0, 'Mean': 0.5, 'Norm': 1.25},
         T(type='torch.distributed.tensor.DTensor'),
     ], {'opts': {'a': [S('int', 4)], 'b': {'c': T(rg=True)}}, 'out': None},
         [T(), [T(), T()]])}),
     dump({'Torch.kitchen.0.forward': fwd([
         T(), S('torch.Size', [2, 4]), S('slice', [0, 3, None]), S('ellipsis', '...'),
         S('int', 1), S('float', 2e-05), S('bool', False), S('str', 'mean'),
         S('torch.dtype', 'torch.float32'), S('torch.device', 'cuda:0'), S('float32', 0.5),
         {'type': 'torch.memory_format', 'format': 'contiguous_format'},
         None, [], {}, 0, 'bare',
         [T(shape=(3,)), [S('int', 2), S('int', 3)]],
         {'type': 5, 'a': S('int', 1)},
         T(True, True, None, None, dtype='torch.bool'),
         T(None, None, None, None, shape=(0, 4)),
         {'type': 'numpy.ndarray', 'dtype': 'float32', 'shape': [3], 'Max': 1.0, 'Min': 0.0, 'Mean': 0.5, 'Norm': 1.25},
         T(type='torch.distributed.tensor.DTensor'),
     ], {'opts': {'a': [S('int', 4)], 'b': {'c': T(rg=True)}}, 'out': None},
         [T(), [T(), T()]])}))

case('leaf-distributed',
     'Distributed leaves: P2POp (tensor and null tensor) inside batch_isend_irecv (an '
     'input-ignore API), ProcessGroup ([0, 1] x4 as text), src/dst/group_src/group_dst '
     'named leaves (dtype = type, stats = str(value), not checked by Parameters because '
     'the dtype has no "class"), a positional rank that is a plain <class \'int\'>.',
     dump({
         'Distributed.batch_isend_irecv.0.forward': fwd(
             [[{'class_type': 'torch.distributed.P2POp', 'tensor': T(), 'op': 'isend', 'peer': 1, 'tag': 0, 'group_id': 'g'},
               {'class_type': 'torch.distributed.P2POp', 'tensor': None, 'op': 'irecv', 'peer': 1, 'tag': 0, 'group_id': 'g'}]],
             outputs=[T()]),
         'Distributed.send.0.forward': fwd([T()], {'dst': S('int', 1), 'tag': S('int', 0),
                                                   'group': {'type': 'torch.ProcessGroup', 'group_ranks': [0, 1], 'group_id': 'g1'}},
                                           [T()]),
         'Distributed.recv.0.forward': fwd([T()], {'src': S('int', 0), 'group_src': S('int', 3), 'group_dst': S('int', 2)}, [T()]),
         'Distributed.broadcast.0.forward': fwd([T(), S('int', 0)], outputs=[T()]),
     }),
     dump({
         'Distributed.batch_isend_irecv.0.forward': fwd(
             [[{'class_type': 'torch.distributed.P2POp', 'tensor': T(3.0), 'op': 'isend', 'peer': 1, 'tag': 0, 'group_id': 'g'},
               {'class_type': 'torch.distributed.P2POp', 'tensor': None, 'op': 'irecv', 'peer': 1, 'tag': 0, 'group_id': 'g'}]],
             outputs=[T()]),
         'Distributed.send.0.forward': fwd([T()], {'dst': S('int', 2), 'tag': S('int', 0),
                                                   'group': {'type': 'torch.ProcessGroup', 'group_ranks': [0, 2], 'group_id': 'g1'}},
                                           [T()]),
         'Distributed.recv.0.forward': fwd([T()], {'src': S('int', 0), 'group_src': S('int', 3), 'group_dst': S('int', 2)}, [T()]),
         'Distributed.broadcast.0.forward': fwd([T(), S('int', 1)], outputs=[T()]),
     }))

case('names-kwargs-nested',
     'Row naming: kwargs under .input.<key>, nested .input.nest.a.0, tuple output '
     '.output.4.1, data_name-derived names ({entry}.kwargs.weight), entries skipped because '
     'their last two name parts hold no forward/backward/parameters_grad (…debug, …hook.0, '
     'a two-part "x.forward").',
     dump({
         'Torch.sum.0.forward': fwd([T()], {'dim': S('int', 1), 'nest': {'a': [T(), S('int', 2)]}},
                                    [T(), T(), T(), T(), [T(), T(norm=4.0)]]),
         'Functional.linear.0.forward': fwd(
             [T(data_name='Functional.linear.0.forward.input.0.pt')],
             {'weight': T(data_name='Functional.linear.0.forward.kwargs.weight.pt', rg=True)},
             [T(data_name='Functional.linear.0.forward.output.0.pt')]),
         'Functional.linear.0.debug': {'input_args': [T(INF)]},
         'Module.fc1.Linear.hook.0': fwd([T(INF)], outputs=[T(INF)]),
         'x.forward': fwd([T(INF)], outputs=[T(INF)]),
     }),
     dump({
         'Torch.sum.0.forward': fwd([T()], {'dim': S('int', 1), 'nest': {'a': [T(), S('int', 2)]}},
                                    [T(), T(), T(), T(), [T(), T()]]),
         'Functional.linear.0.forward': fwd(
             [T(data_name='Functional.linear.0.forward.input.0.pt')],
             {'weight': T(data_name='Functional.linear.0.forward.kwargs.weight.pt', rg=True)},
             [T(data_name='Functional.linear.0.forward.output.0.pt')]),
     }))

case('rows-order-module',
     'Row order inside an entry: input_args, input_kwargs, parameters, output whatever the '
     'JSON key order; module forward/backward; parameters_grad rows named '
     '{entry}.{param} without list index (new .parameters_grad.0 and old .parameters_grad '
     'styles); parameters_grad.0 vs parameters_grad.1 never match.',
     dump({
         'Module.fc1.Linear.forward.0': {'output': [T(rg=True)], 'parameters': {'weight': T(rg=True), 'bias': T(rg=True)},
                                         'input_kwargs': {'scale': S('float', 1.0)}, 'input_args': [T()]},
         'Module.fc1.Linear.backward.0': bwd([T()], [T(norm=3.3)]),
         'Module.fc1.Linear.parameters_grad.0': {'weight': [T()], 'bias': [T()]},
         'Module.fc2.Linear.parameters_grad': {'weight': [T()]},
         'Module.fc3.Linear.parameters_grad.0': {'weight': [T()]},
     }),
     dump({
         'Module.fc1.Linear.forward.0': {'input_args': [T()], 'input_kwargs': {'scale': S('float', 1.0)},
                                         'output': [T(rg=True)], 'parameters': {'bias': T(rg=True), 'weight': T(rg=True)}},
         'Module.fc1.Linear.backward.0': bwd([T()], [T(norm=3.0)]),
         'Module.fc1.Linear.parameters_grad.0': {'weight': [T(norm=3.5)], 'bias': [T()]},
         'Module.fc2.Linear.parameters_grad': {'weight': [T()]},
         'Module.fc3.Linear.parameters_grad.1': {'weight': [T()]},
     }))


# ----------------------------------------------------------------------------- §3 matching

case('match-unmatched',
     'Unmatched NPU rows: a missing API (tensor row: Requires_grad Consistent False; '
     'scalar row: True), an extra NPU output element, extra bench input elements vanish, '
     'golden-only entries are dropped; diffs N/A, Result pass.',
     dump({
         'Torch.relu.0.forward': fwd([T(), S('int', 1)], outputs=[T()]),
         'Torch.cat.0.forward': fwd([T(), T()], outputs=[T(), T(), T(norm=9.0)]),
     }),
     dump({
         'Torch.cat.0.forward': fwd([T(), T(), T()], outputs=[T(), T()]),
         'Torch.tanh.0.forward': fwd([T()], outputs=[T()]),
     }))

case('match-dtype-gate',
     'dtype gate: int32/int64, fp32/fp64, <class \'int\'>/<class \'float\'>, '
     'Float16/torch.float16 and bool/uint8 pairs become unmatched rows; fp16/fp32, '
     'bf16/fp16 and Float16/Float32 pairs match and then get the DType error.',
     dump({'Torch.add.0.forward': fwd([
         T(dtype='torch.int32'), T(dtype='torch.float32'), S('int', 1), T(dtype='torch.float16'),
         T(dtype='torch.bfloat16'), T(dtype='Float16'), T(dtype='Float16'), T(True, False, None, None, dtype='torch.bool'),
     ], outputs=[T()])}),
     dump({'Torch.add.0.forward': fwd([
         T(dtype='torch.int64'), T(dtype='torch.float64'), S('float', 1.0), T(dtype='torch.float32'),
         T(dtype='torch.float16'), T(dtype='Float32'), T(dtype='torch.float16'), T(1, 0, None, None, dtype='torch.uint8'),
     ], outputs=[T()])}))

DUP_TARGET = '''{
 "task": "statistics", "level": "mix", "framework": "pytorch", "dump_data_dir": null,
 "data": {
  "Torch.add.0.forward": {"input_args": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 9.0, "Min": 9.0, "Mean": 9.0, "Norm": 9.0, "requires_grad": false}], "input_kwargs": {}, "output": []},
  "Module.fc.Linear.parameters_grad.0": {"weight": [
    {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "requires_grad": false},
    {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 2.0, "Min": 0.0, "Mean": 1.0, "Norm": 2.0, "requires_grad": false}],
   "bias": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "requires_grad": false}]},
  "Torch.add.0.forward": {"input_args": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "requires_grad": false}], "input_kwargs": {}, "output": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "requires_grad": false}]}
 }
}
'''

case('match-duplicate-keys',
     'Duplicate compare keys join as a cross product in NPU order, each NPU row with its '
     'bench rows in bench order (parameters_grad lists give repeated names); one pair of a '
     'cross product failing the dtype gate shows as an unmatched row; a duplicated JSON '
     'entry key keeps the last value at the first position (Python json).',
     None,
     dump({
         'Module.fc.Linear.parameters_grad.0': {
             'weight': [T(1.5, 0.0, 0.5, 1.0, shape=(2,)), T(2.0, 0.0, 1.0, 2.0, shape=(2,))],
             'bias': [T(1.0, 0.0, 0.5, 1.0, shape=(2,)), T(1.0, 0.0, 0.5, 1.0, shape=(2,), dtype='torch.float64')]},
         'Torch.add.0.forward': fwd([T(1.0, 0.0, 0.5, 1.0, shape=(2,))], outputs=[T(1.0, 0.0, 0.5, 1.0, shape=(2,))]),
     }),
     raw_target=DUP_TARGET)

case('match-backward-renumber',
     'Backward keys use the backward call order per base: Functional.linear.3/.5.backward '
     'match .1/.2.backward; Module ...backward.4 matches ...backward.0; an entry without '
     'rows still counts; forward indices are never renumbered (Torch.add.1 vs .0 unmatched); '
     'NPU and Bench Names keep their original numbers.',
     dump({
         'Functional.linear.3.backward': bwd([T(norm=3.3)], [T()]),
         'Functional.linear.5.forward': fwd([T()], outputs=[T()]),
         'Functional.linear.5.backward': bwd([T()], [T(norm=3.6)]),
         'Module.fc.Linear.backward.4': bwd([T()], [T()]),
         'Torch.mul.0.backward': {},
         'Torch.mul.1.backward': bwd([T(2.5)], [T()]),
         'Torch.add.1.forward': fwd([T()], outputs=[T()]),
     }),
     dump({
         'Functional.linear.1.backward': bwd([T(norm=3.0)], [T()]),
         'Functional.linear.2.backward': bwd([T()], [T(norm=3.0)]),
         'Module.fc.Linear.backward.0': bwd([T()], [T()]),
         'Torch.mul.0.backward': bwd([T(9.0)], [T()]),
         'Torch.mul.1.backward': bwd([T(2.0)], [T()]),
         'Torch.add.0.forward': fwd([T()], outputs=[T()]),
     }))


# ----------------------------------------------------------------------------- strings, stack

case('strings-bools',
     'String and bool statistics: "input" contains "npu" so it is a DEVICE (Diff against '
     '"weight"), device vs device N/A, "nan"/"NaN" both print Nan, "N/A" text, numeric '
     'strings ("1.5" vs "2": NUM x NUM), empty string, CSV quoting of comma, double quote '
     'and newline, non-ASCII text, bool scalars and bool tensors (Diff).',
     dump({'Torch.custom.0.forward': fwd([
         S('str', 'input'), S('str', 'input'), S('str', 'CUDA'), S('str', 'nan'), S('str', 'a,b'),
         S('str', 'say "hi"'), S('str', 'line1\nline2'), S('str', 'π ünïcode'), S('str', 'N/A'),
         S('str', ''), S('str', '1.5'), S('bool', True), S('bool', False),
         T(True, False, None, None, dtype='torch.bool'),
     ], outputs=[T()])}),
     dump({'Torch.custom.0.forward': fwd([
         S('str', 'input'), S('str', 'weight'), S('str', 'cpu'), S('str', 'NaN'), S('str', 'a,b'),
         S('str', 'say "hi"'), S('str', 'line1\nline2'), S('str', 'π ünïcode'), S('str', 'x'),
         S('str', ''), S('str', '2'), S('bool', False), S('bool', False),
         T(True, True, None, None, dtype='torch.bool'),
     ], outputs=[T()])}))

STACK_LINES_A = ['File /w/model.py, line 10, in forward, \n x = torch.add(a, b)',
                 "File /w/train.py, line 3, in <module>, \n print('step', loss)"]

case('stack-old-format',
     'stack.json in the old format {entry: [lines]}: NPU_Stack_Info holds the Python repr '
     'of the line list on the first row of each entry (newline shown as \\n, a line with '
     "a ' is repr'd in double quotes), N/A on other rows, on entries without a stack, and "
     'an empty list prints [].',
     dump({
         'Torch.add.0.forward': fwd([T(), T()], outputs=[T()]),
         'Torch.mul.0.forward': fwd([T()], outputs=[T()]),
         'Torch.sub.0.forward': fwd([T()], outputs=[T()]),
     }),
     dump({
         'Torch.add.0.forward': fwd([T(), T()], outputs=[T()]),
         'Torch.mul.0.forward': fwd([T()], outputs=[T()]),
     }),
     stack={'Torch.add.0.forward': STACK_LINES_A, 'Torch.mul.0.forward': []})

case('stack-new-format',
     'stack.json in the new format {"0": [[entries], [lines]], ...}: every listed entry '
     'gets the lines; malformed items are skipped.',
     dump({
         'Torch.add.0.forward': fwd([T()], outputs=[T()]),
         'Module.fc.Linear.forward.0': fwd([T()], outputs=[T()], params={'weight': T(rg=True)}),
         'Torch.mul.0.forward': fwd([T()], outputs=[T()]),
         'Torch.sub.0.forward': fwd([T()], outputs=[T()]),
     }),
     dump({
         'Torch.add.0.forward': fwd([T()], outputs=[T()]),
         'Module.fc.Linear.forward.0': fwd([T()], outputs=[T()], params={'weight': T(rg=True)}),
         'Torch.mul.0.forward': fwd([T()], outputs=[T()]),
     }),
     stack={'0': [['Torch.add.0.forward', 'Module.fc.Linear.forward.0'], STACK_LINES_A],
            '1': [['Torch.mul.0.forward'], ['File /w/model.py, line 12, in forward, \n y = x * 2']],
            '2': 'not a pair',
            '3': [['Torch.sub.0.forward']]})


# ----------------------------------------------------------------------------- md5 mode

case('md5-basic',
     'md5 mode: equal md5 pass; different md5 error; unmatched rows warning; an unmatched '
     'null element passes (N/A == N/A); dtype-gated rows warn; dtype and shape differences '
     'are not checked in md5 mode.',
     dump({
         'Torch.add.0.forward': fwd([md5t('1a2b3c4d'), md5t('00ff00ff', dtype='torch.float16'), None],
                                    outputs=[md5t('deadbeef')]),
         'Torch.relu.0.forward': fwd([md5t('12345678'), None], outputs=[md5t('12345678')]),
         'Torch.sum.0.forward': fwd([md5t('0badf00d', dtype='torch.int32')], outputs=[md5t('0badf00d', shape=(3,))]),
     }),
     dump({
         'Torch.add.0.forward': fwd([md5t('1a2b3c4d'), md5t('00ff00ff'), None],
                                    outputs=[md5t('feedface')]),
         'Torch.sum.0.forward': fwd([md5t('0badf00d', dtype='torch.int64')], outputs=[md5t('0badf00d')]),
     }))

case('md5-leaf-kinds',
     'md5 cells of each leaf kind: CRC-32 of str(value) for scalars (1, 1e-05, True, str), '
     'torch.Size ([2, 3]), slice ([0, 2, None]), ellipsis; 00000000 for a missing value and '
     'a tensor without md5; ProcessGroup ranks text; dst value text; null -> N/A; stack.json '
     'old format.',
     dump({
         'Torch.kitchen.0.forward': fwd([
             md5t('aaaaaaaa'), S('int', 1), S('float', 1e-05), S('bool', True), S('str', 'mean'),
             S('torch.Size', [2, 3]), S('slice', [0, 2, None]), S('ellipsis', '...'),
             {'type': 'torch.memory_format', 'format': 'contiguous_format'}, T(), None],
             {'group': {'type': 'torch.ProcessGroup', 'group_ranks': [0, 1], 'group_id': 'g'}, 'dst': S('int', 1)},
             [md5t('bbbbbbbb')]),
     }),
     dump({
         'Torch.kitchen.0.forward': fwd([
             md5t('aaaaaaaa'), S('int', 2), S('float', 1e-05), S('bool', False), S('str', 'mean'),
             S('torch.Size', [2, 3]), S('slice', [0, 2, None]), S('ellipsis', '...'),
             {'type': 'torch.memory_format', 'format': 'contiguous_format'}, md5t('cccccccc'), None],
             {'group': {'type': 'torch.ProcessGroup', 'group_ranks': [0, 2], 'group_id': 'g'}, 'dst': S('int', 1)},
             [md5t('bbbbbbbb')]),
     }),
     stack={'Torch.kitchen.0.forward': ['File /w/a.py, line 1, in f, \n g()']})

case('md5-ignore-lists',
     'md5 mode honours the ignore lists: Tensor.to all pass; all_to_all_single checks only '
     'outputs; near miss Tensor.type is checked.',
     dump({
         'Tensor.to.0.forward': fwd([md5t('11111111')], outputs=[md5t('22222222')]),
         'Distributed.all_to_all_single.0.forward': fwd([md5t('33333333')], outputs=[md5t('44444444')]),
         'Tensor.type.0.forward': fwd([md5t('55555555')], outputs=[md5t('66666666')]),
     }),
     dump({
         'Tensor.to.0.forward': fwd([md5t('1111111f')], outputs=[md5t('2222222f')]),
         'Distributed.all_to_all_single.0.forward': fwd([md5t('3333333f')], outputs=[md5t('4444444f')]),
         'Tensor.type.0.forward': fwd([md5t('5555555f')], outputs=[md5t('66666666')]),
     }))


# ----------------------------------------------------------------------------- aborts

case('abort-special-char',
     'A string argument starting with "-" makes msprobe abort while parsing '
     '(data info ... contains special characters).',
     dump({'Torch.add.0.forward': fwd([T(), S('str', '-x')], outputs=[T()])}),
     dump({'Torch.add.0.forward': fwd([T(), S('str', 'x')], outputs=[T()])}))

case('abort-requires-grad-not-bool',
     'A non-bool requires_grad in an output aborts parsing.',
     dump({'Torch.add.0.forward': fwd([T()], outputs=[T(rg='yes')])}),
     dump({'Torch.add.0.forward': fwd([T()], outputs=[T()])}))

case('abort-malicious-cell',
     'Module parameters are not checked while parsing, but a cell "=1+2" is refused when '
     'the CSV is written (Malicious value ...).',
     dump({'Module.m.M.forward.0': fwd([T()], outputs=[T()], params={'w': S('str', '=1+2')})}),
     dump({'Module.m.M.forward.0': fwd([T()], outputs=[T()], params={'w': S('str', '1+2')})}))

case('abort-mode-mismatch',
     'One side has md5 values and the other not: the dump modes differ and msprobe stops.',
     dump({'Torch.add.0.forward': fwd([md5t('1a2b3c4d')], outputs=[md5t('1a2b3c4d')])}),
     dump({'Torch.add.0.forward': fwd([T()], outputs=[T()])}))


# ----------------------------------------------------------------------------- writer

def write_json(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w', encoding='utf-8') as f:
        json.dump(obj, f, indent=1, ensure_ascii=False)
        f.write('\n')


def write_case(outdir, c, oracle):
    base = os.path.join(outdir, c['name'])
    target = os.path.join(base, 'target', 'dump.json')
    golden = os.path.join(base, 'golden', 'dump.json')
    if c['raw_target'] is not None:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, 'w', encoding='utf-8') as f:
            f.write(c['raw_target'])
    else:
        write_json(target, c['target'])
    write_json(golden, c['golden'])
    if c['stack'] is not None:
        write_json(os.path.join(base, 'target', 'stack.json'), c['stack'])
    result = subprocess.run([sys.executable, oracle, target, golden], capture_output=True)
    if result.returncode not in (0, 1):
        sys.exit('%s: oracle failed (%d): %s' % (c['name'], result.returncode, result.stderr.decode()))
    with open(os.path.join(base, 'expected.csv'), 'wb') as f:
        f.write(result.stdout)


README_HEAD = '''# Crafted compare corpus

Small dump pairs for testing the compare tools against the reference oracle
`tests/oracle/msprobe_compare.py` (an independent Python re-implementation of msprobe
26.0.0 `compare`, statistics and md5 modes, written from
`shared/reference/msprobe-compare.md`).

Layout: `<case>/target/dump.json` (msprobe's -tp, "NPU"), `<case>/golden/dump.json`
(-gp, "Bench"), optional `<case>/target/stack.json` (switches the NPU_Stack_Info
column on), and `<case>/expected.csv`: the oracle's output for

    python3 tests/oracle/msprobe_compare.py <case>/target/dump.json <case>/golden/dump.json

`expected.csv` is generated, never hand-edited: it is either the CSV msprobe would
write, or one line `ABORT: <msprobe's error message>` where msprobe stops without a
result (the `abort-*` cases).  Regenerate everything with

    python3 tests/oracle/make_corpus.py

## Cases
'''


def write_readme(outdir):
    lines = [README_HEAD]
    for c in CASES:
        lines.append('- `%s`: %s\n' % (c['name'], c['about']))
    with open(os.path.join(outdir, 'README.md'), 'w', encoding='utf-8') as f:
        f.write(''.join(lines))


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    outdir = argv[0] if argv else os.path.join(here, '..', 'data', 'compare')
    oracle = os.path.join(here, 'msprobe_compare.py')
    for c in CASES:
        write_case(outdir, c, oracle)
    write_readme(outdir)
    print('%d cases written to %s' % (len(CASES), os.path.normpath(outdir)))


if __name__ == '__main__':
    main(sys.argv[1:])
