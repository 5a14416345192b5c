# What the picture calls the runs and the inputs.  A run without a rank has
# one label everywhere, the one every probe tool gives it: its proc<pid>
# folder ("proc1234", msprobe's folder for a dump without a rank), else "no
# rank"; never "rank ?", "-1", "(no rank)" or null.  The legend names the
# rank that started it, whichever it is, also among 32 (gendump's fault rank:
# the others only differ from the gradients' all_reduce on, probe-gendump(1)).
# The title names the dumps the records come from, also when they come on
# standard input, and says "standard input" when the records name none.
show() { # svg: its title, the inputs, the counts, the legend, the marks' tooltips
	python3 - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
S = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
print("  title:  ", root.find(S + "title").text)
for t in root.iter(S + "text"):
    if t.get("class") in ("inputs", "counts"):
        print("  %-8s" % (t.get("class") + ":"), t.text)
print("  legend: ", " | ".join(t.text for t in root.iter(S + "text") if t.get("class") == "legend"))
for g in root.iter(S + "g"):
    if g.get("class") == "mark":
        print("  mark:   ", g.find(S + "title").text)
PY
}
words() { # every text and tooltip of the picture: none of the old labels of a run without a rank
	python3 - "$1" <<'PY'
import re, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
texts = [e.text or "" for e in root.iter()]
bad = [t for t in texts if re.search(r"rank \?|\(no rank\)|\brank -1\b|^-1$|\bnull\b", t)]
print("  old labels:", len(bad), bad[:3])
PY
}
pipeline() { probe-flatten "$1/target" | probe-match "$1/golden" | probe-metric | probe-stack; }

echo "== a dump without a rank, under proc1234, on standard input"
probe-gendump p > /dev/null
for side in target golden; do mv p/$side/step0/rank0 p/$side/step0/proc1234; done
pipeline p | probe-plot > p.svg; echo "status $?"
show p.svg
words p.svg

echo "== a dump.json in a folder of its own (no rank, no step, no proc folder)"
mkdir -p flat/target flat/golden
cp p/target/step0/proc1234/*.json flat/target/
cp p/golden/step0/proc1234/*.json flat/golden/
pipeline flat > flat.ndjson
probe-plot flat.ndjson > flat.svg; echo "status $?"
show flat.svg
words flat.svg

echo "== 8 ranks, the fault on rank 5, from a file"
probe-gendump --ranks 8 --fault-rank 5 r8 > /dev/null
pipeline r8 > r8.ndjson
probe-plot r8.ndjson > r8.svg
show r8.svg | grep -v '^  mark:'

echo "== 32 ranks, the fault on rank 17"
probe-gendump --ranks 32 --fault-rank 17 r32 > /dev/null
pipeline r32 | probe-plot > r32.svg
show r32.svg | grep -v '^  mark:'

echo "== records that name no dump, on standard input"
jq -c 'del(.t.dump, .g.dump)' r8.ndjson | probe-plot > nodump.svg
show nodump.svg | grep -e title -e inputs
