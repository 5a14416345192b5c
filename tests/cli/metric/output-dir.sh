# --output-dir: one CSV per rank, named as msprobe names them, split past --rows-per-file
# rows into _part_N files, each with the header; --csv alone refuses several ranks.
probe-gendump --ranks 2 run > /dev/null
probe-flatten run/target | probe-match run/golden > pairs
mkdir out small
probe-metric -o out pairs
ls out | sed 's/_[0-9]\{14\}/_TIMESTAMP/'
for f in out/*.csv; do echo "$(tail -n +2 "$f" | wc -l) rows"; done
probe-metric -o small --rows-per-file 40 pairs
ls small | sed 's/_[0-9]\{14\}/_TIMESTAMP/'
for f in small/*.csv; do echo "$(head -1 "$f" | cut -c1-17) $(tail -n +2 "$f" | wc -l)"; done
cat small/*rank1*part_1.csv small/*rank1*part_2.csv small/*rank1*part_3.csv | grep -v '^NPU Name' > joined
probe-flatten run/target/step0/rank1 | probe-match run/golden/step0/rank1 | probe-metric --csv | tail -n +2 | cmp - joined && echo "parts join into the whole table"
probe-metric --csv pairs > /dev/null; echo "status $?"
