"""Render each sheet of an .xlsx workbook as the fixtures do (../shared/fixtures/xlsx): a CSV of
str() of each cell as openpyxl reads it, and a types CSV (s str, i int, f float, b bool, - empty).
Python's standard library only (zipfile, xml.etree): a reader of its own, not the one under test.

usage: xlsx_render.py BOOK.xlsx OUTDIR   writes OUTDIR/<stem>__<sheet>.csv and OUTDIR/types/..."""
import csv
import os
import posixpath
import re
import sys
import zipfile
import xml.etree.ElementTree as ET

M = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
PR = "{http://schemas.openxmlformats.org/package/2006/relationships}"


def col_index(ref):
    letters = re.match(r"[A-Z]+", ref).group()
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - 64
    return n - 1


def text_of(el):
    # <t> runs, the phonetic ones (<rPh>) left out
    out = []
    for node in el.iter():
        if node.tag == M + "rPh":
            continue
        if node.tag == M + "t":
            out.append(node.text or "")
    return "".join(out)


def cell_value(c, shared):
    t = c.get("t", "n")
    v = c.find(M + "v")
    if t == "inlineStr":
        is_ = c.find(M + "is")
        return text_of(is_) if is_ is not None else ""
    if v is None or v.text is None:
        return None
    if t == "s":
        return shared[int(v.text)]
    if t == "b":
        return bool(int(v.text))
    if t in ("str", "e", "d"):
        return v.text
    # openpyxl's _cast_number
    if "." in v.text or "E" in v.text or "e" in v.text:
        return float(v.text)
    return int(v.text)


def kind(v):
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "b"
    if isinstance(v, int):
        return "i"
    if isinstance(v, float):
        return "f"
    return "s"


def sheets(path):
    z = zipfile.ZipFile(path)
    rels = {r.get("Id"): r.get("Target") for r in ET.fromstring(z.read("xl/_rels/workbook.xml.rels")).iter(PR + "Relationship")}
    shared = []
    if "xl/sharedStrings.xml" in z.namelist():
        shared = [text_of(si) for si in ET.fromstring(z.read("xl/sharedStrings.xml")).findall(M + "si")]
    wb = ET.fromstring(z.read("xl/workbook.xml"))
    for s in wb.find(M + "sheets"):
        target = rels[s.get(R + "id")]
        member = target.lstrip("/") if target.startswith("/") else posixpath.normpath("xl/" + target)
        rows = {}
        width = 0
        for row in ET.fromstring(z.read(member)).iter(M + "row"):
            cells = {}
            for c in row.findall(M + "c"):
                i = col_index(c.get("r"))
                cells[i] = cell_value(c, shared)
                width = max(width, i + 1)
            rows[int(row.get("r")) - 1] = cells
        height = max(rows) + 1 if rows else 0
        yield s.get("name"), [[rows.get(r, {}).get(i) for i in range(width)] for r in range(height)]


def main():
    book, outdir = sys.argv[1], sys.argv[2]
    stem = os.path.basename(book)[: -len(".xlsx")]
    os.makedirs(os.path.join(outdir, "types"), exist_ok=True)
    for name, rows in sheets(book):
        with open(os.path.join(outdir, "%s__%s.csv" % (stem, name)), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            for r in rows:
                w.writerow(["" if v is None else str(v) for v in r])
        with open(os.path.join(outdir, "types", "%s__%s.types.csv" % (stem, name)), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            for r in rows:
                w.writerow([kind(v) for v in r])


main()
