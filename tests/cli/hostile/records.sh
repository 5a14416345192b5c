# Broken record streams into every tool that reads records: a stream cut inside a
# record, a line that is not a JSON object, a record of the wrong kind, bytes that
# are not JSON.  Each: the input's name and line (and byte, for a syntax error),
# exit status 2, and a record-writing tool ends its output with {"error": ...}.
# probe-stack and probe-table take any JSON objects: a record of another kind
# passes through or becomes a row.
probe-gendump --layers 2 g > /dev/null
probe-flatten g/target > leaves
probe-match g/golden leaves > pairs
probe-metric pairs > metrics
half() { head -c $(($(wc -c < "$1") / 2)) "$1"; }
half leaves > cut-leaves; half pairs > cut-pairs; half metrics > cut-metrics
printf '{"a":1}\n[1,2]\n' > arrays
for f in leaves pairs metrics; do head -3 $f > bytes-$f; printf '{"key":"x","t":\377}\n' >> bytes-$f; done
printf '{"key":"x","t":1}\n' > wrong-kind
for t in "probe-match g/golden" probe-metric probe-first probe-stack probe-table; do
	case $t in
	probe-match*) in=leaves ;;
	probe-metric|probe-first) in=pairs ;;
	*) in=metrics ;;
	esac
	for f in cut-$in arrays bytes-$in wrong-kind; do
		$t $f > out 2> err
		printf '%-20s %-13s status %s, last line %-10s| %s\n' "$t" $f $? "$(tail -1 out | cut -c1-10)" "$(cat err)"
	done
done
