# --help, -h, --version and --list-options of every tool into a full disk
# (issue 17, class 12b): before, exit status 2 and not a word; now the write
# error is said, exit status 2.  Into a closed pipe they end quietly; into a
# file, all is written and the status is 0.
# sanitizers: skip, 32 processes of help text; the write error path is the one io/streams.sh and hostile/output.sh run under the sanitizers
for t in probe-flatten probe-gendump probe-match probe-metric probe-first probe-stack probe-table probe-plot; do
	for o in --help -h --version --list-options; do
		$t $o > /dev/full 2> err
		s=$?
		$t $o 2> err2 | head -c 1 > /dev/null
		$t $o > out 2>> err2
		printf '%-13s %-14s /dev/full: status %s, %s | closed pipe: %s stderr lines | file: status %s, %s\n' \
			$t $o $s "$(cat err)" "$(wc -l < err2)" $? "$(grep -q "$t\|help" out && echo written || echo empty)"
	done
done
