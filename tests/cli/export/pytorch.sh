# PyTorch and MindSpore tensor dumps: .pt leaves (torch 1.13 and 2.x files, strided views, every dtype
# of the zoo) written contiguous as .pt and as .npy (bfloat16 and float8 as float32), .npy leaves as
# .pt; checked by exportcheck.py, a second reader. Records of several ranks and steps go under
# step<S>/rank<R>/ so that no two leaves meet in one file.
check() { python3 "$TESTS/cli/export/exportcheck.py" "$1" | sed "s|$PWD/||g" || echo "exportcheck $1: exit $?"; }
summary() { sed 's/ \[.*\]//' | awk '{ print $1, $3, $4, $5 }' | sort | uniq -c; }
probe-gendump --mode tensor --zoo --pt-layout torch2 z > /dev/null
# the zoo's broken files (missing, cut short, hostile) are for the compare's errors, not here
probe-flatten z/target 2> /dev/null | jq -c 'select(.data != null and (.name | test("zoo_(missing|trunc|bad|unread|hostile|fifo|dir)") | not))' > leaves.nd
wc -l < leaves.nd
echo "== torch 2.x .pt to .npy"
probe-export -t npy -o npy < leaves.nd > a.nd; echo "status $?"
check a.nd | summary
echo "== to .pt"
probe-export -o pt < leaves.nd > b.nd; echo "status $?"
check b.nd | summary
echo "== strided views come out contiguous"
jq -r 'select(.name | test("zoo_(view|stride|transpose|expand)")) | .file' b.nd | head -3
echo "== torch 1.13 .pt, two ranks, two steps"
probe-gendump --mode tensor --ranks 2 --steps 2 r > /dev/null
probe-flatten r/target | jq -c 'select(.entry == "Functional.linear.0.forward" and .state == "output")' | probe-export -o ranks > c.nd; echo "status $?"
jq -r .file c.nd
check c.nd | wc -l
echo "== MindSpore .npy (bfloat16 saved as float32) to .pt"
probe-gendump --framework mindspore --mode tensor --dtype bfloat16 m > /dev/null
probe-flatten m/target | jq -c 'select(.data != null)' | head -4 | probe-export -o ms > d.nd; echo "status $?"
jq -c '{file, dtype, shape}' d.nd
check d.nd | summary
