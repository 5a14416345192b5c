#!/usr/bin/env python3
"""The layering of lib/ that lib/README.md states, checked on the includes.

Reads the table of subsystems in lib/README.md (each row: `name/`, what it is for, the
subsystems it may include), then every #include "..." of lib/*/*.[ch]:
  - a file lies in a subsystem of the table, and the table names every subsystem folder;
  - an include of another subsystem is one its row allows, written "../SUB/file.h";
  - the allowed graph has no cycle (so the includes cannot have one);
  - no header includes itself through others;
  - modules (a .c and its .h) do not include each other round, except the pairs named
    in ALLOWED_MODULE_CYCLES with the reason.
Prints the subsystems and what each includes in fact; exit 1 with the faults otherwise.
"""
import os
import re
import sys

top = sys.argv[1]
lib = os.path.join(top, 'lib')

# the allocator dies through msg (out of memory); msg formats into a strbuf, whose growth
# goes through the allocator, and escapes for the terminal with textesc, which appends to
# a strbuf: the bottom of core, which everything else rests on.
ALLOWED_MODULE_CYCLES = {
    frozenset({'core/strbuf', 'core/xalloc', 'core/msg'}),
    frozenset({'core/strbuf', 'core/xalloc', 'core/msg', 'core/textesc'}),
}
# modules with a private header: plotmodel.h is plot's inside, shared with plotsvg.c; tensorio.h is
# tensor_open()'s, shared with its readers; firstmodel.h is first's, shared with its writers;
# graphmodel.h is graph's, shared with its writers (visdb.c, gview.c); ckptio.h is ckpt_open()'s,
# shared with its readers (safet.c, megatron.c)
MODULE_OF = {'plot/plotmodel': 'plot/plot', 'tensors/tensorio': 'tensors/tensor', 'compare/firstmodel': 'compare/first',
             'graph/graphmodel': 'graph/graph', 'ckpt/ckptio': 'ckpt/ckpt'}

faults = []
allowed = {}
row = re.compile(r'^\| `([a-z]+)/` \|.*\| ([^|]*) \|$')
for line in open(os.path.join(lib, 'README.md'), encoding='utf-8'):
    m = row.match(line.rstrip('\n'))
    if m:
        deps = m.group(2).strip()
        allowed[m.group(1)] = set() if deps == '(nothing)' else set(deps.split())
if not allowed:
    sys.exit('lib/README.md: no table of subsystems found')
for sub, deps in allowed.items():
    for d in deps - set(allowed):
        faults.append('lib/README.md: %s may include %s, which is not a subsystem' % (sub, d))

subs = sorted(d for d in os.listdir(lib) if os.path.isdir(os.path.join(lib, d)))
for s in subs:
    if s not in allowed:
        faults.append('lib/%s/: a folder the table of lib/README.md does not name' % s)
for s in allowed:
    if s not in subs:
        faults.append('lib/README.md: %s/ is in the table and not in lib/' % s)
for f in sorted(os.listdir(lib)):
    if f.endswith(('.c', '.h')):
        faults.append('lib/%s: outside every subsystem' % f)

include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
used = {s: set() for s in subs}
header_edges = {}
module_edges = {}
for s in subs:
    for f in sorted(os.listdir(os.path.join(lib, s))):
        if not f.endswith(('.c', '.h')):
            continue
        path = 'lib/%s/%s' % (s, f)
        mod = MODULE_OF.get('%s/%s' % (s, f[:-2]), '%s/%s' % (s, f[:-2]))
        text = open(os.path.join(top, path), encoding='utf-8').read()
        for inc in include.findall(text):
            m = re.fullmatch(r'\.\./([a-z]+)/([a-z0-9_]+\.h)', inc)
            if m:
                target_sub, name = m.groups()
                if target_sub == s:
                    faults.append('%s: includes its own subsystem by path: "%s"' % (path, inc))
            elif re.fullmatch(r'[a-z0-9_]+\.h', inc):
                target_sub, name = s, inc
            else:
                faults.append('%s: an include that names no subsystem header: "%s"' % (path, inc))
                continue
            if not os.path.exists(os.path.join(lib, target_sub, name)):
                faults.append('%s: includes "%s", which does not exist' % (path, inc))
                continue
            if target_sub != s:
                used[s].add(target_sub)
                if target_sub not in allowed.get(s, set()):
                    faults.append('%s: includes "%s": %s may not include %s (lib/README.md)' %
                                  (path, inc, s, target_sub))
            target = '%s/%s' % (target_sub, name[:-2])
            if f.endswith('.h'):
                header_edges.setdefault('%s/%s' % (s, f[:-2]), set()).add(target)
            tmod = MODULE_OF.get(target, target)
            if tmod != mod:
                module_edges.setdefault(mod, set()).add(tmod)


def cycles(edges):
    """Each elementary cycle found by a depth-first walk, as a list of nodes."""
    found, state = [], {}

    def walk(u, stack):
        state[u] = 1
        stack.append(u)
        for v in sorted(edges.get(u, ())):
            if state.get(v) == 1:
                found.append(stack[stack.index(v):])
            elif not state.get(v):
                walk(v, stack)
        stack.pop()
        state[u] = 2
    for u in sorted(edges):
        if not state.get(u):
            walk(u, [])
    return found


for c in cycles({s: d & set(allowed) for s, d in allowed.items()}):
    faults.append('lib/README.md: the subsystems may include each other round: %s' % ' -> '.join(c + c[:1]))
for c in cycles(header_edges):
    faults.append('lib/: headers include each other round: %s' % ' -> '.join(c + c[:1]))
for c in cycles(module_edges):
    if frozenset(c) not in ALLOWED_MODULE_CYCLES:
        faults.append('lib/: modules include each other round: %s' % ' -> '.join(c + c[:1]))

for s in subs:
    print('%s: includes %s' % (s, ' '.join(sorted(used[s])) or '(nothing)'))
for f in faults:
    print(f, file=sys.stderr)
sys.exit(1 if faults else 0)
