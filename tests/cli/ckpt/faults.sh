# Each difference the generator injects, in each layout, found by probe-ckpt as a second reader
# (ckptread.py) finds it: per parameter the verdict, the reason, the first differing element,
# the largest distance in ulps, l2 and cosine (9 significant digits); names on one side only
# listed; the exit status 1 when anything differs and 0 when nothing does.  And msprobe's
# ckpt_similarity.json byte for byte as the second reader writes it with msprobe's rules
# (float32 sums one element at a time; Python's own set order under PYTHONHASHSEED=0).
# long: started first in make check (about 26 s plain, 31 s under ASan)
command -v python3 > /dev/null || { echo "python3 is not installed"; exit 77; }
oracle="python3 $TESTS/cli/ckpt/ckptread.py"
for layout in megatron pt hf; do
	for fault in perturb missing reshape dtype none; do
		rm -rf out
		probe-gendump --framework checkpoint --ckpt-layout $layout --fault $fault out
		a=out/golden b=out/target
		[ $layout = pt ] && a=$a/model.pt b=$b/model.pt
		probe-ckpt "$a" "$b" > records
		status=$?
		jq -r 'select(.name) | if .verdict == "only_a" or .verdict == "only_b" then "\(.name)\t\(.verdict)"
			elif .l2 == null then [.name, .verdict, .reason] | @tsv
			else [.name, .verdict, (.reason // "-"), (.first_diff // "-"),
			      (if .max_ulp and .max_ulp > 0 then .max_ulp else "-" end), .l2, .cos] | @tsv end' records |
			python3 -c '
import sys
for line in sys.stdin:
    f = line.rstrip("\n").split("\t")
    if len(f) == 7:
        f[4] = str(int(float(f[4]))) if f[4] != "-" else "-"
        f[5] = "%.9g" % float(f[5])
        f[6] = "%.9g" % float(f[6])
    print("\t".join(f))' > got
		$oracle compare "$a" "$b" > want
		differing=$(grep -vc "	same	" want)
		if cmp -s want got; then
			echo "$layout $fault: $(wc -l < want) parameters agree, $differing not the same; exit $status"
		else
			echo "$layout $fault: the readers disagree"
			diff want got | head -6
		fi
		grep -v "	same	" want | cut -f1-5 | sed 's/^/  /'
		PYTHONHASHSEED=0 $oracle msprobe "$a" "$b" > ms-want.json
		probe-ckpt --msprobe-json ms-got.json "$a" "$b" > /dev/null
		cmp -s ms-want.json ms-got.json && echo "  msprobe's json: the same bytes" || echo "  msprobe's json differs"
	done
done
