# msprobe compare's -tp/-gp: status 2 before anything is read, and the probe pipeline that
# does the job instead, with the user's own paths (quoted for sh when they need it).
probe-gendump run > /dev/null
probe-match -tp run/target -gp run/golden; echo "status $?"
echo "the long forms, in any order, among msprobe's other options (-fm, -dm, -cm, -o carried over; -o's directory is not there yet):"
probe-match --golden_path=run/golden -s -fm -o out --target_path 'my run/target' -dm map.yaml -cm; echo "status $?"
echo "one of them only, a path with a quote:"
probe-match -gp "it's here"; echo "status $?"
echo "what it prints runs (probe-first: status 1, a divergence found; probe-metric: the CSV):"
probe-match -tp run/target -gp run/golden 2> hint; echo "status $?"
sed -n 3p hint > first.sh
sh first.sh > /dev/null; echo "status $?"
mkdir out
probe-match -tp run/target -gp run/golden -o out 2> hint
sed -n 5p hint > table.sh
sh table.sh; echo "status $?"
ls out | sed 's/_[0-9]*\.csv$/_TIME.csv/'
echo "probe's own options and operands are untouched:"
probe-flatten run/target | probe-match -f run/golden | wc -l
probe-flatten run/target | probe-match run/golden - | wc -l
probe-match -- -tp; echo "status $?"
probe-match -x run/golden 2> err; echo "status $?"
head -1 err
probe-match -tp ms/dump.json -gp pt/dump.json -am > /dev/null 2> err; echo "-am: status $?"; cat err
