# A record whose leaf name, entry or key is not valid UTF-8, or holds a bad
# escape, is malformed: every tool that matches or reports on names says so
# with the line (exit 2) rather than cutting the name short.  A lone
# surrogate escape is readable (U+FFFD), as in any other string.
probe-gendump d > /dev/null
probe-flatten d/target > leaves.ndjson
probe-flatten d/target | probe-match d/golden | probe-metric > m.ndjson
python3 - <<'PY'
for src, dst, old, new in [
    ("m.ndjson", "bytes.ndjson", b'forward.input.1"', b'forward.input.1\xff"'),
    ("m.ndjson", "escape.ndjson", b'forward.input.1"', b'forward.input.1\\q"'),
    ("m.ndjson", "surrogate.ndjson", b'forward.input.1"', b'forward.input.1\\ud800"'),
    ("leaves.ndjson", "leaves-bytes.ndjson", b'"entry":"Functional.linear.1.forward"', b'"entry":"Functional.linear.1\xc3\x28forward"'),
]:
    lines = open(src, "rb").read().split(b"\n")
    out = [l.replace(old, new) if b'"seq":14,' in l else l for l in lines]
    open(dst, "wb").write(b"\n".join(out))
PY
for f in bytes escape; do
	for t in probe-first probe-metric probe-plot; do
		$t $f.ndjson > out 2> err; echo "$t $f: status $?, $(wc -l < out) lines out, the last $(tail -n 1 out | cut -c1-24)"; cat err
	done
done
probe-first surrogate.ndjson > out; echo "probe-first surrogate: status $? (1: found)"
grep -o '"leaf":"[^"]*"' out | od -An -c | tr -s ' ' | tail -2
probe-match d/golden leaves-bytes.ndjson > out 2> err; echo "probe-match: status $?, last record: $(tail -c 200 out | tail -1 | cut -c1-60)"; cat err
probe-first --nonfinite leaves-bytes.ndjson > out 2> err; echo "probe-first --nonfinite: status $?"; cat err
