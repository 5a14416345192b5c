#!/usr/bin/env python3
"""Self-test of the msprobe compare oracle (standard library only).

usage: selftest.py

Checks, printing TAP:
  1. the oracle reproduces, byte for byte, the CSVs that the real msprobe 26.0.0 wrote
     for the shared fixtures (../shared/fixtures from the project root); when the
     fixtures are absent these tests are reported as SKIPPED, never as passed;
  2. the corpus case worked-example-11-1 gives exactly the msprobe output quoted in
     shared/reference/msprobe-compare.md section 11.1 (copied below);
  3. every tests/data/compare/<case>/expected.csv is what the oracle prints now.
Exit status 0 when nothing failed.
"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..'))
ORACLE = os.path.join(HERE, 'msprobe_compare.py')
CORPUS = os.path.join(ROOT, 'tests', 'data', 'compare')
FIXTURES = os.path.normpath(os.path.join(ROOT, '..', 'shared', 'fixtures'))

FIXTURE_PAIRS = [
    ('msprobe-example step1 vs step0',
     'msprobe-example/step1/proc2016/dump.json', 'msprobe-example/step0/proc2016/dump.json',
     'msprobe-example/expected/compare_step1_vs_step0.csv'),
    ('mlp-md5-mix target vs golden',
     'mlp-md5-mix/target/step0/rank0/dump.json', 'mlp-md5-mix/golden/step0/rank0/dump.json',
     'mlp-md5-mix/expected/compare_target_vs_golden.csv'),
]

# msprobe-compare.md section 11.1: output of the real msprobe for that example.
SECTION_11_1 = '''\
NPU Name,Bench Name,NPU Dtype,Bench Dtype,NPU Tensor Shape,Bench Tensor Shape,NPU Requires_grad,Bench Requires_grad,Max diff,Min diff,Mean diff,L2norm diff,MaxRelativeErr,MinRelativeErr,MeanRelativeErr,NormRelativeErr,NPU max,NPU min,NPU mean,NPU l2norm,Bench max,Bench min,Bench mean,Bench l2norm,Requires_grad Consistent,Result,Err_message
Torch.add.0.forward.input.0,Torch.add.0.forward.input.0,torch.float32,torch.float32,"[2, 2]","[2, 2]",False,False,0,0,0,0,0,0,0,0,2.0,1.0,1.5,3.2,2.0,1.0,1.5,3.2,True,pass,[]
Torch.add.0.forward.input.1,Torch.add.0.forward.input.1,<class 'int'>,<class 'int'>,[],[],N/A,N/A,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,True,pass,[]
Torch.add.0.forward.input.alpha,Torch.add.0.forward.input.alpha,<class 'float'>,<class 'float'>,[],[],N/A,N/A,0,0,0,0,0,0,0,0,0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5,True,pass,[]
Torch.add.0.forward.output.0,Torch.add.0.forward.output.0,torch.float32,torch.float32,"[2, 2]","[2, 2]",False,False,0.5,0,0.25,1.0,16.666666666666664%,0,12.5%,25.0%,3.5,1.0,2.25,5.0,3.0,1.0,2.0,4.0,True,warning,"[""warning: The norm relative error of output is 10 times that of input.""]"
Torch.relu.0.forward.input.0,N/A,torch.float32,N/A,"[2, 2]",N/A,False,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,2.0,-1.0,0.5,2.5,N/A,N/A,N/A,N/A,False,pass,[]
Torch.relu.0.forward.output.0,N/A,torch.float32,N/A,"[2, 2]",N/A,False,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,2.0,0.0,Nan,None,N/A,N/A,N/A,N/A,False,pass,[]
Functional.linear.2.backward.input.0,Functional.linear.0.backward.input.0,torch.float32,torch.float32,"[2, 2]","[2, 2]",False,False,0,0,0,0,0,0,0,0,1.0,1.0,1.0,2.0,1.0,1.0,1.0,2.0,True,pass,[]
Functional.linear.2.backward.output.0,Functional.linear.0.backward.output.0,torch.float32,torch.float32,"[2, 2]","[2, 2]",False,False,0,0,0,1.0,0,0,0,inf,0.5,0.5,0.5,1.0,0.5,0.5,0.5,0.0,True,error,"[""error: The NormRelativeErr of output is greater than 0.5.""]"
Functional.linear.2.backward.output.1,Functional.linear.0.backward.output.1,None,None,None,None,N/A,N/A,0,0,0,0,0,0,0,0,None,None,None,None,None,None,None,None,True,pass,[]
'''


def run_oracle(target, golden):
    result = subprocess.run([sys.executable, ORACLE, target, golden], capture_output=True)
    return result.stdout


class Tap:
    def __init__(self):
        self.n = self.failed = 0

    def report(self, ok, name, detail=''):
        self.n += 1
        if ok is None:
            print('ok %d - %s # SKIP %s' % (self.n, name, detail))
            return
        if not ok:
            self.failed += 1
        print('%s %d - %s%s' % ('ok' if ok else 'not ok', self.n, name, '' if ok else '  (%s)' % detail))


def check_fixtures(tap):
    for name, target, golden, expected in FIXTURE_PAIRS:
        paths = [os.path.join(FIXTURES, p) for p in (target, golden, expected)]
        if not all(os.path.isfile(p) for p in paths):
            tap.report(None, 'fixture ' + name, 'shared fixtures absent at ' + FIXTURES)
            continue
        with open(paths[2], 'rb') as f:
            want = f.read()
        tap.report(run_oracle(paths[0], paths[1]) == want, 'fixture ' + name,
                   'differs from ' + paths[2])


def check_section_11_1(tap):
    base = os.path.join(CORPUS, 'worked-example-11-1')
    got = run_oracle(os.path.join(base, 'target', 'dump.json'), os.path.join(base, 'golden', 'dump.json'))
    tap.report(got == SECTION_11_1.encode(), 'msprobe-compare.md section 11.1 worked example',
               'oracle output differs from the quoted msprobe output')


def check_corpus(tap):
    for name in sorted(os.listdir(CORPUS)):
        base = os.path.join(CORPUS, name)
        expected = os.path.join(base, 'expected.csv')
        if not os.path.isfile(expected):
            continue
        with open(expected, 'rb') as f:
            want = f.read()
        got = run_oracle(os.path.join(base, 'target', 'dump.json'), os.path.join(base, 'golden', 'dump.json'))
        tap.report(got == want, 'corpus ' + name, 'rerun make_corpus.py or fix the oracle')


def main():
    tap = Tap()
    check_fixtures(tap)
    check_section_11_1(tap)
    check_corpus(tap)
    print('1..%d' % tap.n)
    return 1 if tap.failed else 0


if __name__ == '__main__':
    sys.exit(main())
