# -o DIR as msprobe's graph_visualize -o: the folder is made (parents too),
# the file named compare_<ts>.vis.db for metric records and build_<ts>.vis.db
# for one run's leaves, the stamp the local time as 14 digits; --format html
# and json give .html and .ndjson there. A name that reads as one file is
# refused (exit 2, naming --output-file, nothing made); -o with --output-file
# is refused; an existing folder named like a file is taken as the folder.
probe-gendump --ranks 2 --fault-rank 1 d > /dev/null
probe-flatten d/target | probe-match d/golden | probe-metric > m.ndjson
names() { (cd "$1" && ls | sed 's/_[0-9]\{14\}\./_<ts>./'); }
probe-graph -o out/a m.ndjson; echo "-o out/a: status $?: $(names out/a)"
probe-flatten d/target | probe-graph -o build; echo "build: status $?: $(names build)"
probe-graph -o html --format html m.ndjson; echo "--format html: status $?: $(names html)"
probe-graph -o json --format json m.ndjson; echo "--format json: status $?: $(names json)"
head -c 15 html/*.html; echo
python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT graph_type FROM tb_config").fetchone()[0])' out/a/compare_*.vis.db
for f in g.html g.vis.db g.ndjson; do
	probe-graph -o "$f" m.ndjson; echo "-o $f: status $?"
	ls -d "$f" 2> /dev/null
done
mkdir taken.html
probe-graph -o taken.html m.ndjson; echo "-o taken.html (a folder): status $?: $(names taken.html)"
probe-graph -o out/b --output-file x.vis.db m.ndjson; echo "-o and --output-file: status $?"
ls -d out/b x.vis.db 2> /dev/null
exit 0
