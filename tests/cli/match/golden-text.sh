# The golden index keeps each record without the head and tail its group
# repeats; every "g" written must still be its golden record byte for byte,
# also when records of one group differ in those parts.
probe-gendump --layers 3 d > /dev/null
probe-flatten d/golden > g.ndjson
probe-flatten d/target > t.ndjson
# vary heads and tails: an extra field before "task", no "task", another dump path, msprobe_skips
awk '{
	if (NR % 5 == 1) sub(/,"task":/, ",\"extra\":1,\"task\":")
	else if (NR % 5 == 2) sub(/,"task":"statistics"/, "")
	else if (NR % 5 == 3) sub(/"dump":"d\/golden/, "\"dump\":\"elsewhere/d/golden")
	else if (NR % 5 == 4) sub(/}$/, ",\"msprobe_skips\":true}")
	print
}' g.ndjson > varied.ndjson
# and the parts the index leaves out when the name gives them back: an entry that does not
# start the name, one equal to it, escapes in both, a key before the name, a key not the name
python3 - g.ndjson > more.ndjson <<'PY'
import json, sys
for i, line in enumerate(open(sys.argv[1])):
    r = json.loads(line)
    v = i % 6
    if v == 1:
        r["entry"] = "zz"
    elif v == 2:
        r["entry"] = r["name"]
    elif v == 3:
        r["entry"] = "\u00e9\"" + r["entry"]
        r["name"] = "\u00e9\"" + r["name"]
    elif v == 4:
        r = {k: r[k] for k in ["rank", "step", "seq", "entry", "key"] + [k for k in r if k not in ("rank", "step", "seq", "entry", "key")]}
    elif v == 5:
        r["name"] = r["name"] + ".x"
    print(json.dumps(r, separators=(",", ":"), ensure_ascii=not (v == 3 and i % 12 == 3)))
PY
for golden in g.ndjson varied.ndjson more.ndjson d/golden; do
	probe-match "$golden" t.ndjson > pairs.ndjson; echo "$golden: status $?"
	case $golden in *.ndjson) src=$golden ;; *) src=g.ndjson ;; esac
	python3 - "$src" pairs.ndjson <<'PY'
import json, sys
golden = set(l.rstrip("\n") for l in open(sys.argv[1]))
pairs = [l for l in open(sys.argv[2])]
bad = 0
for l in pairs:
    g = l[l.index(',"g":') + 5:]
    if g.startswith("null"):
        continue
    # the golden record is the value of "g": cut where the JSON object ends
    depth, i, instr, esc = 0, 0, False, False
    for i, ch in enumerate(g):
        if instr:
            if esc: esc = False
            elif ch == "\\": esc = True
            elif ch == '"': instr = False
        elif ch == '"': instr = True
        elif ch == "{": depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0: break
    if g[:i + 1] not in golden:
        bad += 1
    json.loads(l)
print(f"{len(pairs)} pairs, {bad} golden texts not verbatim")
PY
done
