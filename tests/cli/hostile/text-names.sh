# The reports for people of probe-ckpt --format text, probe-export --format text and
# probe-merge --groups --format text print names a file chose (a parameter, a tensor file,
# an operator's leaf, a statistic's cell): one holding ESC [2J (clear the screen), CR (write
# over the line), U+009B (CSI as a C1 control, in UTF-8) or a byte that is not UTF-8 (CSI to
# an 8-bit terminal) must reach the terminal visible, as the other tools write them
# (textesc.h): \x1b, \x0d, \u009b, \xff; never raw.  The output is shown through od -c's
# view of the lines that hold a name: no byte below 0x20 but the line ends, none above 0x7e.
H=$(printf 'x\033[2J\ry\302\233z\377') # the hostile part of every name
# raw FILE: the report's bytes a terminal would act on (none expected), then the report
raw() {
	echo "  bytes a terminal acts on: $(LC_ALL=C tr -d '\n\040-\176' < "$1" | wc -c)"
	sed 's/^/  | /; s/_[0-9]\{14\}/_TIMESTAMP/g' "$1"
}
# probe-ckpt: two safetensors files whose parameter names hold it but the byte that is not
# UTF-8 (the header is JSON: the reader refuses it there), A's file name the whole of it
python3 - "$H" <<'PY'
import json, struct, sys
h = sys.argv[1].encode("utf-8", "surrogateescape")
def safet(path, tensors):
    head, data = {}, b""
    for name, vals in tensors:
        raw = struct.pack("<%df" % len(vals), *vals)
        head[name] = {"dtype": "F32", "shape": [len(vals)], "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(head, ensure_ascii=False).encode("utf-8", "surrogateescape")
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)
n = h.decode("utf-8", "surrogateescape").replace("\udcff", "")
safet(("a" + sys.argv[1] + ".safetensors").encode("utf-8", "surrogateescape"), [("w." + n, [1, 2]), ("onlyA." + n, [0, 0]), ("same", [3, 4])])
safet("b.safetensors", [("w." + n, [1, 5]), ("onlyB." + n, [0, 0]), ("same", [3, 4])])
PY
probe-ckpt --format text a*.safetensors b.safetensors > ckpt.txt; echo "probe-ckpt: status $?"
raw ckpt.txt
# probe-export: a tensor file whose name holds it
python3 - "$H" <<'PY'
import struct, sys
name = "t" + sys.argv[1] + ".npy"
head = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"
head += " " * (63 - len(head)) + "\n"
with open(name.encode("utf-8", "surrogateescape"), "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode() + struct.pack("<2f", 1, 2))
PY
probe-export -o out --format text t*.npy > export.txt; echo "probe-export: status $?"
raw export.txt
# probe-merge --groups: the all_reduce's output leaf named with it on both ranks, and rank 1's max a text
probe-gendump --ranks 2 --fault all-reduce --fault-rank 1 run > /dev/null
mkdir c
probe-flatten run/target | probe-match run/golden | probe-metric -o c
python3 - "$H" c/*.csv <<'PY'
import csv, sys
h = sys.argv[1]
old = "Distributed.all_reduce.0.forward.output.0"
for path in sys.argv[2:]:
    with open(path, newline="", encoding="utf-8", errors="surrogateescape") as f:
        rows = list(csv.reader(f))
    col = rows[0].index("NPU max")
    for row in rows:
        if row[0] == old:
            row[0] = row[1] = old + h
            if "rank1" in path:
                row[col] = "max" + h
    def cell(c): # quoted when it must be, a CR included (csv.writer leaves a CR bare)
        return '"' + c.replace('"', '""') + '"' if any(x in c for x in ',"\r\n') else c
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.writelines(",".join(map(cell, row)) + "\n" for row in rows)
PY
probe-merge --groups --format text c > groups.txt; echo "probe-merge --groups: status $?"
raw groups.txt
