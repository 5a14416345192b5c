# Record lines have a bound (issue 17, class 1).  Every tool that reads records
# refuses a line longer than the limit, 64 MiB unless PROBE_MAX_LINE says
# otherwise, naming the input and the line, exit status 2 (a record-writing tool
# ending its output with {"error": ...}), and holds no more than the limit while
# it looks for the newline.  A line of exactly the limit is read, with or without
# a CR; a PROBE_MAX_LINE that is not a size is refused before anything is read.
# The compare_result CSV reader bounds its rows by the same limit. (The memory
# the bound keeps: hostile/line-limit-memory.sh.)
probe-gendump --layers 2 g > /dev/null
probe-flatten g/target > leaves
probe-match g/golden leaves > pairs
probe-metric pairs > metrics
probe-stack metrics > stacked
input() { # tool: the records it reads
	case $1 in
	match) echo leaves ;;
	metric | first) echo pairs ;;
	*) echo stacked ;;
	esac
}
tool() { # name input...
	t=$1
	shift
	case $t in
	match) probe-match g/golden "$@" ;;
	*) probe-$t "$@" ;;
	esac
}
# a real record made longer than the limit on line 3 of each tool's input
pad=$(head -c 5000 /dev/zero | tr '\0' x)
for f in leaves pairs stacked; do
	awk -v pad="$pad" 'NR == 3 { sub(/"task":"statistics"/, "\"task\":\"statistics\",\"pad\":\"" pad "\"") } { print }' $f > long-$f
done
for t in match metric first stack plot table; do
	PROBE_MAX_LINE=4K tool $t long-$(input $t) > out 2> err
	printf '%-6s status %s, %s records before the error, last line %-10s| %s\n' $t $? \
		"$(grep -vc '^{"error"' out)" "$(tail -1 out | cut -c1-10)" "$(cat err)"
done
# a line of exactly the limit is read, and with a CR after it; one byte less is refused
for t in match metric first stack plot table; do
	f=$(input $t)
	n=$(awk '{ if (length($0) > n) n = length($0) } END { print n }' $f)
	tool $t $f > want 2> /dev/null
	PROBE_MAX_LINE=$n tool $t $f > got 2> err; s1=$?
	sed 's/$/\r/' $f > crlf
	PROBE_MAX_LINE=$n tool $t crlf > /dev/null 2>> err; s2=$?
	PROBE_MAX_LINE=$((n - 1)) tool $t $f > /dev/null 2> err2; s3=$?
	printf '%-6s the longest line: status %s, output %s; with CRs: status %s; a byte less: status %s, %s\n' $t $s1 \
		"$(cmp -s want got && echo unchanged || echo changed)" $s2 $s3 "$(sed "s/[0-9][0-9]* bytes/N bytes/" err2 | cut -d' ' -f3-8)"
	cat err
done
# the variable: suffixes, and what is not a size
for v in 1k 1K 2M 4096; do
	head -c 3000000 /dev/zero | PROBE_MAX_LINE=$v probe-stack 2>&1 > /dev/null
done
probe-stack stacked > want
PROBE_MAX_LINE=1g probe-stack stacked > out; echo "1g: status $?, output $(cmp -s want out && echo unchanged || echo changed)"
PROBE_MAX_LINE= probe-stack stacked > out; echo "empty: unset, status $?, output $(cmp -s want out && echo unchanged || echo changed)"
for v in abc 0 -1 1KB 1.5M 1T ' 1' 99999999999999999999 17179869184G; do
	PROBE_MAX_LINE=$v probe-metric pairs > out 2> err
	echo "PROBE_MAX_LINE='$v': status $?, $(wc -c < out) bytes out; $(cat err)"
done
# compare_result CSV rows: the same bound
probe-metric --csv pairs > compare_result_rank0_20250101000000.csv
PROBE_MAX_LINE=1K probe-flatten compare_result_rank0_20250101000000.csv > out 2> err
echo "CSV with rows past 1K: status $?, last line $(tail -1 out | cut -c1-10); $(cat err)"
{ head -1 compare_result_rank0_20250101000000.csv; printf '"'; head -c 3000000 /dev/zero | tr '\0' x; } > compare_result_rank1_20250101000000.csv
PROBE_MAX_LINE=1M probe-flatten compare_result_rank1_20250101000000.csv > out 2> err
echo "a quoted cell of 3 MB without its end: status $?; $(cat err)"
