# -da: probe-first --msprobe's output, as the pipeline prints it by hand, in
# OUT/diff_analyze_<ns>.json (msprobe's name), with probe-first's status: 1 and the file when
# msprobe's rule finds a node (a run whose input differs); 0 and no file when it finds none
# (the default fault, a 1 % weight change, is below msprobe's 50 % rule), as msprobe writes no
# analyze file then.  -da ignores the match options (-fm here), as msprobe's -da does.
probe-gendump --layers 2 --fault input e > /dev/null
probe-gendump --layers 2 d > /dev/null
echo "== a node found"
probe-compare -tp e/target/step0 -gp e/golden/step0 -o out -da > stdout; echo "status $?, $(wc -c < stdout) bytes on stdout"
probe-flatten e/target/step0 | probe-match e/golden/step0 | probe-metric | probe-first --msprobe > hand.json
echo "by hand: status $?"
ls out | sed 's/^diff_analyze_[0-9]\{19\}\.json$/diff_analyze_<ns>.json/'
cmp out/diff_analyze_*.json hand.json && echo "same bytes"
jq -r '.rank_0[].op_name' hand.json
echo "== nothing found"
probe-compare -tp d/target/step0 -gp d/golden/step0 -o none -da -fm; echo "status $?"
probe-flatten d/target/step0 | probe-match d/golden/step0 | probe-metric | probe-first --msprobe
echo "by hand: status $?"
echo "files in none: $(find none -type f | wc -l)"
