# mandoc -T lint -W warning finds nothing to say about any page under share/man.
#
# The only lines ignored are "outdated mandoc.db lacks ... entry": they come from
# the system's manual database (mandoc looks up the pages an .Xr names in it),
# not from our pages.  First, a page with a known fault must draw a warning, so
# that a mandoc that says nothing proves nothing.  One line per page.
command -v mandoc > /dev/null || { echo "mandoc is not installed (make deps)"; exit 77; }
lint() { mandoc -T lint -W warning "$1" 2>&1 | grep -v '^mandoc: outdated mandoc\.db lacks .* entry'; }

printf '.Dd November 29, 2026\n.Dt BAD 1\n.Os\n.Sh NAME\n.Nm bad\n.Nd bad\n.Sh DESCRIPTION\n.Bl -tag\n.It x\ny\n.El\n' > bad.1
if [ -z "$(lint bad.1)" ]; then
	echo "mandoc -T lint -W warning says nothing about a list without -width: the check proves nothing"
	exit 1
fi
status=0 n=0
for page in "$TOP"/share/man/*.[1-9]; do
	n=$((n + 1))
	name=${page##*/}
	out=$(lint "$page" | sed "s|$TOP/||")
	if [ -z "$out" ]; then
		echo "$name: no warnings"
	else
		echo "$name: warnings"
		echo "$out" | sed 's/^/  /'
		status=1
	fi
done
[ $n -gt 0 ] || { echo "no page under share/man"; status=1; }
exit $status
