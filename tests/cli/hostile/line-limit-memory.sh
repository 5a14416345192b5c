# The line bound of hostile/line-limit.sh, in memory: 100 MB without a newline
# into the default limit, and 300 MB into each tool at PROBE_MAX_LINE=16M, whose
# buffer must stop at the limit (peak RSS under 128 MiB), not at the input.
# sanitizers: skip, ASan's shadow and quarantine make the peak meaningless and its checked memchr over 2 GB of zeros takes half a minute; the same reader runs under the sanitizers in hostile/line-limit.sh
probe-gendump --layers 2 g > /dev/null
# the default limit: no newline in 100 MB (before the bound, a 128 MiB buffer and "cut short")
head -c 100000000 /dev/zero | probe-metric > out 2> err
echo "no newline in 100 MB: status $?, last line $(tail -1 out | cut -c1-10); $(cat err)"
# memory: the buffer stops at the limit (16 MiB here), not at the size of the input
for t in match metric first stack plot table; do
	golden=
	[ $t = match ] && golden=g/golden
	head -c 300000000 /dev/zero | PROBE_MAX_LINE=16M /usr/bin/time -f %M -o kb probe-$t $golden > out 2> err
	printf '%-6s status %s, peak under 128 MiB: %s; %s\n' $t $? \
		"$([ "$(tail -1 kb)" -lt 131072 ] && echo yes || echo "no ($(tail -1 kb) KB)")" "$(head -1 err)"
done
