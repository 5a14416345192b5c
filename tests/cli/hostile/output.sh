# Output that cannot be written: a file size limit (ulimit -f: a disk that fills
# up) and /dev/full.  Each: a message naming what could not be written, exit
# status 2, and no file under its final name that could pass for complete:
# -o writes .partial files and renames them only when the whole run succeeded;
# a CSV on stdout into a file is cut back to nothing; probe-gendump renames each
# file when it is whole.  (Closed pipes and /dev/full on stdout: tests/cli/io.)
probe-gendump --ranks 2 --layers 4 d > /dev/null
probe-flatten d/target | probe-match d/golden > pairs
mkdir out
( ulimit -f 8; probe-metric -o out pairs ) 2> err; echo "-o with a 4 KB limit: status $?; $(sed 's/_[0-9]\{14\}/_TIMESTAMP/g' err)"
echo "  left in out/: $(ls -A out | wc -l) files"
( ulimit -f 8; probe-metric --csv --rows-per-file 10 -o out pairs ) 2> /dev/null; echo "  split in parts: status $?, $(ls -A out | wc -l) files left"
( ulimit -f 8; probe-flatten d/target/step0/rank0 | probe-match d/golden/step0/rank0 | probe-metric --csv > table.csv ) 2> err
echo "--csv > file with a 4 KB limit: status $?; $(cat err); table.csv: $(wc -c < table.csv) bytes"
echo "previous content" > table.csv
( ulimit -f 8; probe-flatten d/target/step0/rank0 | probe-match d/golden/step0/rank0 | probe-metric --csv >> table.csv ) 2> /dev/null
echo "  the same appended (>>): status $?; table.csv: $(cat table.csv)"
( ulimit -f 8; jq -c '{name: .t.name, key}' pairs | probe-table > t.csv ) 2> err
echo "probe-table > file with a 4 KB limit: status $?; $(cat err); t.csv: $(wc -c < t.csv) bytes"
( ulimit -f 8; probe-flatten d/target > leaves ) 2> err; echo "probe-flatten > file with a 4 KB limit: status $?; $(cat err)"
( ulimit -f 8; probe-gendump --mode tensor g ) > /dev/null 2> err; echo "probe-gendump with a 4 KB limit: status $?; $(sed 's/\.tmp[0-9.]*/.tmpN/' err)"
echo "  files bigger than 4 KB or half-written: $(find g -type f \( -size +4k -o -name '*.partial' -o -name '*.tmp*' \) | wc -l); dump.json files: $(find g -name dump.json | wc -l)"
probe-metric -o /dev/full pairs 2> err; echo "-o /dev/full: status $?; $(sed "s/_[0-9]\{14\}/_TIMESTAMP/" err)"
probe-gendump /dev/full/g 2> err; echo "probe-gendump /dev/full/g: status $?; $(cat err)"
