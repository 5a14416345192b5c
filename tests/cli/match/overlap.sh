# The golden side loads in a thread beside the target stream; the pairs must
# be exactly those of loading it whole first (PROBE_NO_THREADS), whatever the
# order of the target records, and a golden dump that breaks late must end
# the stream with an error record and status 2.
probe-gendump --ranks 2 --steps 2 --micro-batches 3 --layers 4 --fault fc2-weight d > /dev/null
probe-flatten d/target > t.ndjson
same() { # label, then the target records on stdin
	cat > in.ndjson
	probe-match d/golden in.ndjson > threaded.ndjson; s1=$?
	PROBE_NO_THREADS=1 probe-match d/golden in.ndjson > whole.ndjson; s2=$?
	if cmp -s threaded.ndjson whole.ndjson && [ $s1 = $s2 ]; then
		echo "$1: same ($(wc -l < whole.ndjson) pairs, status $s1)"
	else
		echo "$1: DIFFERENT (status $s1 vs $s2)"
	fi
}
same "in order" < t.ndjson
# each rank's records reversed: every lookup runs ahead of the loader
awk '{ print NR "\t" $0 }' t.ndjson | sort -t '	' -k1,1nr | cut -f2- | sort -s -t , -k1,2 > rev.ndjson
same "reversed within ranks" < rev.ndjson
# target leaves the golden does not have, and golden leaves the target lacks
grep -v 'fc1' t.ndjson | sed 's/"key":"Module.fc3/"key":"Module.fcX/' | same "unmatched both ways"
# the golden of rank 1 breaks near its end
cp -r d/golden g2
f=g2/step1/rank1/dump.json
head -c $(( $(wc -c < $f) - 300 )) $f > cut.json && mv cut.json $f
probe-match g2 t.ndjson > out.ndjson 2> err.txt; echo "status $?"
tail -n 1 out.ndjson | sed 's/:[0-9]*:[0-9]*:/:L:C:/'
sed 's/:[0-9]*:[0-9]*:/:L:C:/' err.txt
