#!/bin/sh
# share/build/cstring.sh NAME FILE [NAME FILE ...]: each FILE as a C string
# constant `const char NAME[]`, on stdout (the build compiles probe-graph's
# page in with it).  Backslashes, quotes and control characters escaped; one
# source line per string line; a file with a NUL byte is refused.
set -eu
echo "/* made by share/build/cstring.sh from the files it names: do not edit */"
while [ $# -ge 2 ]; do
	if [ "$(tr -d '\000' < "$2" | wc -c)" != "$(wc -c < "$2")" ]; then
		echo "cstring.sh: $2 holds a NUL byte" >&2
		exit 1
	fi
	echo "const char $1[] ="
	LC_ALL=C awk '{ gsub(/\\/, "&&"); gsub(/"/, "\\\""); gsub(/\?/, "\\?"); gsub(/\t/, "\\t"); gsub(/\r/, "\\r"); printf "\t\"%s\\n\"\n", $0 } END { print "\t\"\";" }' "$2"
	shift 2
done
