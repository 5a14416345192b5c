# probe-compare -tp T -gp G -o OUT writes the files the pipeline writes when run by hand: the same
# names (but for the time in them) and the same bytes; with --xlsx the same workbooks (every
# member of the zip but docProps/core.xml, which holds the time of writing); and nothing on
# stdout or stderr, status 0.
probe-gendump --layers 2 d > /dev/null
names() { ls "$1" | sed 's/_[0-9]\{14\}\./_<time>./'; }
same() { # two folders of one file each
	a=$(ls "$1"/*) b=$(ls "$2"/*)
	if cmp -s "$a" "$b"; then echo "same bytes"; else echo "DIFFERENT: $a $b"; fi
}
echo "== csv"
probe-compare -tp d/target/step0 -gp d/golden/step0 -o out > stdout; echo "status $?, $(wc -c < stdout) bytes on stdout"
probe-flatten d/target/step0 | probe-match d/golden/step0 | probe-metric -o hand
names out
names hand
same out hand
echo "== msprobe's default folder, ./output"
probe-compare -tp d/target/step0 -gp d/golden/step0; echo "status $?"
names output
same output hand
echo "== xlsx"
probe-compare -tp d/target/step0 -gp d/golden/step0 -o outx --xlsx; echo "status $?"
probe-flatten d/target/step0 | probe-match d/golden/step0 | probe-metric -o handx --xlsx
names outx
names handx
python3 - outx/* handx/* <<'PY'
import sys, zipfile
a, b = (zipfile.ZipFile(p) for p in sys.argv[1:3])
print("members:", "same" if a.namelist() == b.namelist() else "DIFFERENT")
diff = [n for n in a.namelist() if n != "docProps/core.xml" and a.read(n) != b.read(n)]
print("differing members but docProps/core.xml:", diff or "none")
PY
