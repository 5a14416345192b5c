# Files a library opens again by name (issue 41, class 4).  libxlsxwriter and sqlite reopen
# the file they write by its name; a name in the destination folder could be swapped for a
# link between our open and theirs.  So such a file is made in a private folder of this
# process (mkdtemp: mode 0700) beside the destination, then renamed into place: under
# strace, the library's open is inside a fresh 0700 folder, never in the destination
# folder itself; the output lands under its final name, and no private folder is left
# behind, after success or after an error (the destination made unwritable midway is not
# portable: an error in the input is used).
command -v strace > /dev/null || { echo "strace is not installed: cannot watch the library's opens"; exit 77; }
strace -f -o /dev/null true 2> /dev/null || { echo "strace cannot trace here (ptrace refused)"; exit 77; }
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # LeakSanitizer cannot run under ptrace
probe-gendump --layers 2 d > /dev/null
probe-flatten d/target | probe-match d/golden > pairs
check() { # label trace-file out-dir
	mk=$(grep -c 'mkdir(".*\.partial-[A-Za-z0-9]\{6\}", 0700)' "$2")
	lib=$(grep -E 'openat\(.*"[^"]*\.partial-[A-Za-z0-9]{6}/[^"]*", O_(WRONLY|RDWR)' "$2" | grep -vc ENOENT)
	bare=$(grep -E 'openat\(.*"[^"]*\.(xlsx|db)(\.[A-Za-z0-9]{12}\.partial)?", O_(WRONLY|RDWR)' "$2" | grep -vc '\.partial-')
	echo "$1: private 0700 folders made: $mk; writes inside one: $([ "$lib" -gt 0 ] && echo yes || echo no); writes in the destination: $bare"
	echo "  left: $(find "$3" -name '*.partial*' | wc -l) partial(s); files: $(cd "$3" && find . -type f | sed 's/[0-9]\{14\}/STAMP/' | sort | tr '\n' ' ')"
}
mkdir m
strace -f -o t1 -e trace=openat,rename,renameat2,mkdir probe-metric --xlsx -o m pairs > /dev/null 2>&1; echo "probe-metric --xlsx: status $?"
check 'probe-metric --xlsx' t1 m
mkdir g
probe-metric pairs > m.ndjson 2> /dev/null
strace -f -o t2 -e trace=openat,rename,renameat2,mkdir probe-graph --format visdb -o g m.ndjson > /dev/null 2>&1; echo "probe-graph visdb: status $?"
check 'probe-graph --format visdb' t2 g
# an error after the library's file is made: nothing left
mkdir e
echo '{"broken": ' > bad
probe-metric --xlsx -o e bad > /dev/null 2>&1; echo "probe-metric --xlsx on bad input: status $?"
echo "  left: $(find e | wc -l) entr(y/ies) in e (itself only)"
