# 100,000 levels of nesting and numbers of 10,000 digits: refused with a position
# (nesting: the reader's limit of 10,000 levels, msprobe's of 400 inside an entry)
# or kept as the dump's own text, without a crash, in bounded time and memory.
python3 - <<'PY'
n = 100000
head = '{"task":"statistics","data":{"Functional.linear.0.forward":{"input_args":'
open("deep-arrays.json", "w").write(head + "[" * n + "]" * n + "}}}")
open("deep-objects.json", "w").write(head + '{"a":' * n + "1" + "}" * n + "}}}")
open("deep-top.json", "w").write("[" * n + "]" * n)
open("deep-unclosed.json", "w").write(head + "[" * n)
open("deep-500.json", "w").write(head + "[" * 500 + '{"type":"int","value":1}' + "]" * 500 + "}}}")
d = "9" * 10000
leaf = '{"type":"torch.Tensor","dtype":"torch.float32","shape":[%s],"Max":%s,"Min":-0.%se-%s,"Mean":1e%s,"Norm":%s,"requires_grad":false}'
for side, norm in (("g", "1"), ("t", "2")):
    open("long-%s.json" % side, "w").write(head.replace("input_args", "output") + "[" + leaf % ("1", d, d, d, d, norm) + "]}}}")
open("long-shape.json", "w").write(head.replace("input_args", "output") + "[" + leaf % (d, "1", "1", "1", "1", "1") + "]}}}")
open("long-key.json", "w").write('{"task":"statistics","data":{"' + "x" * 1000000 + '":{}}}')
PY
for f in deep-arrays deep-objects deep-top deep-unclosed deep-500; do
	probe-flatten $f.json > out 2> err
	echo "$f: status $?, last record $(tail -1 out | cut -c1-9); $(cut -c1-160 err)"
done
probe-flatten long-t.json > t.ndjson; echo "10,000 digits: status $?, Max kept whole: $(grep -o '"max":[0-9]*' t.ndjson | tr -d '"max:\n' | wc -c) digits"
probe-flatten long-t.json | probe-match long-g.json | probe-metric | jq -c '{verdict, reason}'
probe-flatten long-t.json | probe-match long-g.json | probe-metric --csv | tail -1 | cut -d, -f9-12,17-20
probe-flatten long-t.json | probe-match long-g.json | probe-first > /dev/null; echo "probe-first: status $?"
echo "a shape of 10,000 digits: $(probe-flatten long-shape.json | grep -o '"shape":\[[0-9]*\]' | tr -d '"shape:[]\n' | wc -c) digits kept"
probe-flatten long-key.json 2>&1 >/dev/null | cut -c1-120
