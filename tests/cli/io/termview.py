#!/usr/bin/env python3
"""termview.py: what a terminal shows of a tool's stderr, to check progress lines.

Reads the bytes a pseudo-terminal received (script(1)'s typescript) and
plays them on a model of a terminal's row: a printable character
overwrites the row at the cursor, '\\r' returns to column 0, '\\n' keeps the
row and starts a new one.  Written from what a terminal does, not from
probe's code.  A drawing is the text written after a '\\r' up to the next
'\\r' or '\\n' that names a tool and a share ("probe-x: 45% ...").

Checks (each failure a "FAIL: ..." line, exit status 1):
  - after each drawing the row reads exactly that drawing: nothing of a
    longer line before it is left;
  - no drawing is wider than WIDTH - 1 columns (it would wrap, and a
    carriage return goes back to the start of one row only);
  - the last row is empty when the output ends (the line was cleared);
  - no row kept by a line end holds a drawing (a message written after a
    drawing, on its row, or a drawing ended by a newline).
Prints which tools drew, the last drawing with its numbers as N, then the
rows kept, one per line.

  termview.py TYPESCRIPT [WIDTH]
"""
import re
import sys

DRAWING = re.compile(r"^probe-[a-z]+: (\d+% of |[0-9.]+ [kMG]B read)")
data = open(sys.argv[1], "rb").read().decode("utf-8", "replace").replace("\r\n", "\n")
width = int(sys.argv[2]) if len(sys.argv) > 2 else 80
row, col, kept, tools, failures, last = [], 0, [], set(), [], None
segment, after_cr = "", False


def shown():
    return "".join(row).rstrip(" ")


def segment_done():
    global last
    text = segment.rstrip(" ")
    if not (after_cr and DRAWING.match(text)):
        return
    tools.add(text.split(":")[0])
    last = text
    if len(text) > width - 1:
        failures.append("a drawing %d columns wide: %r" % (len(text), text))
    if shown() != text:
        failures.append("after the drawing %r the row reads %r" % (text, shown()))


for ch in data:
    if ch in "\r\n":
        segment_done()
        segment, after_cr = "", ch == "\r"
        col = 0
        if ch == "\n":
            kept.append(shown())
            row = []
        continue
    if col < len(row):
        row[col] = ch
    else:
        row.append(ch)
    col += 1
    segment += ch
segment_done()
for line in kept:
    if re.search(r"probe-[a-z]+: \d+% of ", line):
        failures.append("a row kept with a drawing in it: %r" % line)
if shown():
    failures.append("the last row is not cleared: %r" % shown())
print("drew: %s" % (" ".join(sorted(tools)) or "nobody"))
if last:  # its words, the numbers as N
    print("last drawing: " + re.sub(r"[0-9]+(?:[,.][0-9]+)*", "N", last))
for f in failures:
    print("FAIL: " + f)
for line in kept:
    print("row: " + line)
sys.exit(1 if failures else 0)
