#!/usr/bin/python3
"""construct.json for the big statistics pair of ../shared/bench/make-big-pair.py.

usage: big-construct.py REPLICAS PAIRDIR

make-big-pair.py writes dump.json and stack.json only; probe-graph needs the
hierarchy too.  This writes construct.json beside both dumps: msprobe's
example construct.json replicated REPLICAS times, every node (and parent)
renamed in replica k by the rule make-big-pair.py renames entries with (each
call count shifted by k * (the largest count of that API or module in the
example's dump.json + 1)).  Names it cannot take apart keep their name.
"""
import json
import os
import re
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "..", "shared", "fixtures", "msprobe-example", "step0", "proc2016")
API = re.compile(r"^(.*)\.(\d+)\.(forward|backward)$")
MODULE = re.compile(r"^(.*)\.(forward|backward|parameters_grad)\.(\d+)$")


def parts(name):
    """(base, count, rebuild) of an entry name, or None."""
    m = MODULE.match(name)
    if m and name.startswith("Module."):
        return m.group(1), int(m.group(3)), lambda c: "%s.%s.%d" % (m.group(1), m.group(2), c)
    m = API.match(name)
    if m:
        return m.group(1), int(m.group(2)), lambda c: "%s.%d.%s" % (m.group(1), c, m.group(3))
    return None


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: big-construct.py REPLICAS PAIRDIR")
    reps, out = int(sys.argv[1]), sys.argv[2]
    with open(os.path.join(SRC, "dump.json")) as f:
        names = list(json.load(f)["data"])
    with open(os.path.join(SRC, "construct.json")) as f:
        construct = json.load(f)
    top = defaultdict(int)
    for n in names:
        p = parts(n)
        if p:
            top[p[0]] = max(top[p[0]], p[1])

    def renamed(name, k):
        p = parts(name) if name else None
        return p[2](p[1] + k * (top[p[0]] + 1)) if p else name

    big = {}
    for k in range(reps):
        for node, parent in construct.items():
            big[renamed(node, k)] = renamed(parent, k)
    for side in ("golden", "target"):
        with open(os.path.join(out, side, "step0", "rank0", "construct.json"), "w") as f:
            json.dump(big, f)


if __name__ == "__main__":
    main()
