#!/bin/sh
# tests/valgrind/run.sh BUILD [PATTERN]: the golden CLI tests (tests/cli/*/*.sh) with
# every tool of BUILD/bin run under valgrind (memcheck, --leak-check=full, definite
# and possible leaks are errors).  A test passes when its output is the expected one
# (as in tests/run.sh) and valgrind found nothing in any tool it ran.  Prints TAP,
# one line per test, the valgrind report of a failing one, and "N passed, N failed".
# PATTERN limits the tests to paths holding it (e.g. "hostile").  Slow: see
# tests/valgrind/README or the timings in the project's notes.
set -u
[ $# -ge 1 ] || { echo "usage: tests/valgrind/run.sh BUILD [PATTERN]" >&2; exit 2; }
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$1 only=${2:-}
case $build in /*) ;; *) build=$top/$build ;; esac
command -v valgrind > /dev/null || { echo "tests/valgrind/run.sh: valgrind is not installed (make deps)" >&2; exit 2; }
[ -x "$build/bin/probe-flatten" ] || { echo "tests/valgrind/run.sh: no tools in $build/bin (make BUILD=... all)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A directory of wrappers, first in PATH: each tool runs under valgrind, its report in $VG_LOGS.
mkdir "$work/bin"
for tool in "$build"/bin/probe-*; do
	name=$(basename "$tool")
	cat > "$work/bin/$name" <<WRAP
#!/bin/sh
exec valgrind -q --error-exitcode=99 --leak-check=\${VG_LEAKS:-full} --errors-for-leak-kinds=definite,possible \\
	--suppressions="$top/tests/valgrind/suppressions" --log-file="\$VG_LOGS/$name.%p.log" "$tool" "\$@"
WRAP
	chmod +x "$work/bin/$name"
done

export LC_ALL=C TESTS="$top/tests"
export FIXTURES="$(cd "$top/.." && pwd)/shared/fixtures"
passed=0 failed=0 skipped=0 n=0
start=$(date +%s)
for t in "$top"/tests/cli/*/*.sh; do
	rel=${t#"$top"/tests/}
	case $rel in *"$only"*) ;; *) continue ;; esac
	n=$((n + 1))
	dir=$(mktemp -d "$work/t.XXXXXX")
	logs=$dir.logs
	mkdir "$logs"
	# a tool killed by a signal stops mid-work: what it holds then is no leak
	leaks=full
	case $rel in cli/hostile/signals.sh) leaks=no ;; esac
	t0=$(date +%s)
	( cd "$dir" && VG_LEAKS=$leaks VG_LOGS="$logs" PATH="$work/bin:$PATH" TOP="$top" sh "$t" > "$dir/.stdout" 2> "$dir/.stderr"; echo $? > "$dir/.status" )
	secs=$(($(date +%s) - t0))
	status=$(cat "$dir/.status")
	if [ "$status" = 77 ]; then
		skipped=$((skipped + 1))
		echo "ok $n - $rel # SKIP $(head -n 1 "$dir/.stdout")"
		rm -rf "$dir" "$logs"
		continue
	fi
	good=1 why=
	for k in out err status; do
		case $k in out) got=$dir/.stdout ;; err) got=$dir/.stderr ;; status) got=$dir/.status ;; esac
		if [ -f "$t.$k" ]; then
			cmp -s "$t.$k" "$got" || { good=0; why="$why $k differs;"; }
		elif [ $k = status ]; then
			[ "$status" = 0 ] || { good=0; why="$why status $status;"; }
		else
			[ ! -s "$got" ] || { good=0; why="$why unexpected std$k;"; }
		fi
	done
	reports=$(find "$logs" -type f -size +0 | wc -l)
	[ "$reports" -eq 0 ] || { good=0; why="$why valgrind reports from $reports tool run(s);"; }
	if [ $good = 1 ]; then
		passed=$((passed + 1))
		echo "ok $n - $rel (${secs}s)"
	else
		failed=$((failed + 1))
		echo "not ok $n - $rel (${secs}s):$why"
		find "$logs" -type f -size +0 | head -3 | while read -r l; do
			echo "#   $(basename "$l"):"
			head -40 "$l" | sed 's/^/#     /'
		done
		for k in out err; do
			want=$t.$k; [ -f "$want" ] || want=/dev/null
			diff -u "$want" "$dir/.std$k" | head -10 | sed 's/^/#   /'
		done
	fi
	rm -rf "$dir" "$logs"
done
echo "1..$n"
echo "# $(($(date +%s) - start)) s under valgrind"
[ $skipped -gt 0 ] && echo "# $skipped skipped"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
