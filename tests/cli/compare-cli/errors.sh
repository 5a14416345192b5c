# Trouble, status 2: a command line without -tp or -gp, or with an operand or an option msprobe's
# compare has and this tool does not (the usage); a missing dump (probe-flatten's one message,
# nothing added, no file in OUT, with and without -da); a stage that cannot be run (its name and
# why, nothing in OUT).
probe-gendump --layers 2 d > /dev/null
T=d/target/step0 G=d/golden/step0
echo "== usage"
probe-compare -gp $G; echo "status $?"
probe-compare -tp $T; echo "status $?"
probe-compare -tp $T -gp $G extra; echo "status $?"
probe-compare -tp $T -gp $G -s; echo "status $?"
probe-compare -tp '' -gp $G; echo "status $?"
echo "== a missing dump"
probe-compare -tp nope -gp $G -o out; echo "status $?, files in out: $(find out -type f | wc -l)"
probe-compare -tp nope -gp $G -o out2 -da; echo "status $?, files in out2: $(find out2 -type f | wc -l)"
probe-compare -tp $T -gp nope -o out3 --xlsx; echo "status $?, files in out3: $(find out3 -type f | wc -l)"
echo "== no probe-first in PATH"
mkdir bin
for t in probe-flatten probe-match probe-metric; do ln -s "$(command -v $t)" bin/$t; done
cmd=$(command -v probe-compare)
PATH=$PWD/bin "$cmd" -tp $T -gp $G -o out4 -da; echo "status $?, files in out4: $(find out4 -type f | wc -l)"
