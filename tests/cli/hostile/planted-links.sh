# Output files in a folder others can write to (issue 17, class 5).  Symbolic links
# planted where a tool used to write its temporary file (NAME.partial, a name anyone
# could predict: probe-metric -o's has the time in it) must not make it write through
# them: the file they point to stays as it was, and every final name is a regular file
# of the tool's own.  The files get the mode fopen() gives (0666 minus the umask), not
# mkstemp's 0600.
umask 022
probe-gendump --layers 2 d > /dev/null
probe-flatten d/target | probe-match d/golden > pairs
echo "precious" > victim
links() { # the temporary names probe-metric -o used, for the next few seconds
	now=$(date +%s)
	for i in 0 1 2 3 4 5 6 7 8 9; do
		ln -s ../victim "out/compare_result_rank0_$(date -d @$((now + i)) +%Y%m%d%H%M%S).csv.partial"
	done
}
mkdir out
links
probe-metric -o out pairs; echo "probe-metric -o: status $?; victim: $(cat victim)"
echo "  tables: $(find out -name '*.csv' -type f | wc -l) regular file(s), $(find out -name '*.csv' -type l | wc -l) link(s); mode $(stat -c %a out/*.csv)"
probe-metric pairs > metrics
ln -s victim p.svg.partial
probe-plot --output-file p.svg metrics; echo "probe-plot -o: status $?; victim: $(cat victim); p.svg: $(stat -c %F p.svg), mode $(stat -c %a p.svg)"
mkdir -p g/golden/step0/rank0 g/target/step0/rank0
for f in dump.json stack.json construct.json; do
	ln -s ../../../../victim g/golden/step0/rank0/$f.partial
	ln -s ../../../../victim g/target/step0/rank0/$f.partial
done
probe-gendump --layers 2 g > /dev/null; echo "probe-gendump: status $?; victim: $(cat victim)"
echo "  files: $(find g -name '*.json' -type f | wc -l) regular, $(find g -name '*.json' -type l | wc -l) links; modes $(find g -name '*.json' -type f -exec stat -c %a {} + | sort -u)"
umask 002
probe-gendump --layers 2 --mode tensor t > /dev/null; echo "probe-gendump --mode tensor, umask 002: status $?; modes $(find t -type f -exec stat -c %a {} + | sort -u)"
echo "  left behind: $(find . -name '*.partial' -type f | wc -l) temporary files"
