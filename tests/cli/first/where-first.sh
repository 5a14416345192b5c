# The report's block for a divergence puts the user's line (where) right
# under the leaf, before the numbers; the stack lists the user's own frames
# (stack) before the framework's (library: dist-packages here), each
# innermost first; the labels in order, then the files of the frames.
probe-gendump d > /dev/null
probe-flatten d/target | probe-match d/golden | probe-metric | probe-stack | probe-first --format text > report.txt
echo "status $?"
sed -n '/divergence #1/,/^$/p' report.txt | cut -c1-11 | grep -v '^  *$' | sed 's/ *$//' | uniq
sed -n '/^  stack/,/^  modules/p' report.txt | sed 's/^  [a-z]* *//; s/^ *//; s/:[0-9]* in .*//'
