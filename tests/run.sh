#!/bin/sh
# tests/run.sh: run every test of probe and print TAP, ending "N passed, N failed".
#
#   tests/run.sh --build DIR [--asan DIR] [--fast] [--regen] [--only PATTERN]
#
# unit     DIR/tests/test_*           TAP programs over lib/
# cli      tests/cli/<tool>/<case>.sh golden tests: the script runs in a fresh
#                                     directory with the tools first in PATH; its
#                                     stdout, stderr and exit status must equal
#                                     <case>.sh.out, <case>.sh.err, <case>.sh.status
#                                     (a missing file means empty / 0).  --regen
#                                     rewrites them from what the tools print now.
#                                     A script that cannot run here (a missing
#                                     optional tool) exits 77, saying why on its
#                                     first line: a SKIP, not counted as passed.
# parity   tests/parity/*.sh          TAP scripts against ../shared/fixtures; they
#                                     say "# SKIP" when the fixtures are absent.
# checks   tests/checks/*.sh          TAP scripts over the whole project: fuzzing
#                                     smoke runs, static analysis, valgrind.
# With --asan DIR the unit and cli tests run again on the sanitizer build (the cli
# tests of the completions, the man pages, the browser and the install once only,
# and those with a line "# sanitizers: skip, REASON": each says why, e.g. a loop the
# fuzz harnesses already run under the sanitizers); LeakSanitizer there only for the
# tests of the tools that stream records and of hostile inputs (make valgrind checks
# every tool for leaks).
# With --fast only the unit and cli tests run (make test: the edit-test loop).
# The cli tests, and the parity and checks scripts, run JOBS at a time (default: the
# number of processors), each reported whole and in order; cli tests with a line
# "# long: ..." (the longest ones: TEST_TIMES=FILE lists each test's time) start first,
# so that the workers end together.
# --only PATTERN runs the tests whose name (as printed: test_NAME, cli/TOOL/CASE.sh,
# parity/..., checks/...) contains PATTERN, e.g. --only cli/first/ or --only alike.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-$(getconf _NPROCESSORS_ONLN 2> /dev/null || echo 2)}
build=build asan= regen=0 only= fast=0
one=0
if [ "${1:-}" = --one ]; then
	# internal: run_cli's worker, one test (bindir label regen test resultfile)
	one=1 one_bindir=$2 one_label=$3 regen=$4 one_test=$5 one_res=$6
	set --
elif [ "${1:-}" = --one-tap ]; then
	# internal: run_scripts' worker, one TAP script (bindir test resultfile)
	( cd "$top" && PATH="$2/bin:$PATH" TOP="$top" BUILD="$2" sh "$3" > "$4" 2>&1 )
	exit 0
fi
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--asan) asan=$2; shift 2 ;;
	--regen) regen=1; shift ;;
	--fast) fast=1; shift ;;
	--only) only=$2; shift 2 ;;
	*) echo "usage: tests/run.sh --build DIR [--asan DIR] [--fast] [--regen] [--only PATTERN]" >&2; exit 2 ;;
	esac
done
case $build in /*) ;; *) build=$top/$build ;; esac
case $asan in /*|'') ;; *) asan=$top/$asan ;; esac

passed=0 failed=0 skipped=0 n=0
FIXTURES=$(cd "$top/.." && pwd)/shared/fixtures
export FIXTURES
export TESTS="$top/tests"
export LC_ALL=C

ok() { n=$((n + 1)); passed=$((passed + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); skipped=$((skipped + 1)); echo "ok $n - $1 # SKIP $2"; }
selected() { [ -z "$only" ] || case $1 in *$only*) return 0 ;; *) return 1 ;; esac; }

# Fold the TAP of a sub-run into ours, prefixing its descriptions.
fold_tap() { # label file
	while IFS= read -r line; do
		case $line in
		"not ok "*) notok "$1: ${line#not ok * - }" ;;
		"ok "*"# SKIP"*) d=${line#ok * - }; skip "$1: ${d%% \# SKIP*}" "${d#*\# SKIP }" ;;
		"ok "*) ok "$1: ${line#ok * - }" ;;
		"#"*) echo "$line" ;;
		esac
	done < "$2"
}

run_unit() { # bindir label
	for t in "$1"/tests/test_*; do
		[ -x "$t" ] || continue
		name=$(basename "$t")
		selected "$name" || continue
		out=$(mktemp)
		if "$t" > "$out" 2>&1; then status=0; else status=$?; fi
		fold_tap "$2$name" "$out"
		if [ $status -ne 0 ] && ! grep -q '^not ok' "$out"; then
			notok "$2$name exited with status $status"
			sed 's/^/# /' "$out" | tail -20
		fi
		rm -f "$out"
	done
}

# One cli test (run in parallel by run_cli through "run.sh --one"): its TAP lines,
# as "ok|DESC", "notok|DESC", "skip|DESC|REASON" and "# ..." comment lines, into a file.
cli_one() { # bindir label test resultfile
	bindir=$1 label=$2 t=$3 res=$4
	rel=${t#"$top"/tests/}
	dir=$(mktemp -d)
	t0=$(date +%s%N)
	# LeakSanitizer's check at exit (about 30 ms a process) on the sanitizer build only for the
	# tools that stream records (a leak a record there grows with the input) and the hostile
	# inputs; the leaks of every tool are make valgrind's, and the unit tests and the fuzz
	# harnesses check lib/ for them.  With it for every test this phase took 296 s, 277 s so.
	if [ "$label" = "asan: " ]; then
		case $rel in
		cli/flatten/* | cli/match/* | cli/metric/* | cli/first/* | cli/stack/* | cli/records/* | cli/io/* | \
		cli/compare/* | cli/compare-cli/* | cli/hostile/*) ;;
		*) ASAN_OPTIONS=$(printf %s "${ASAN_OPTIONS:-}" | sed 's/detect_leaks=1/detect_leaks=0/'); export ASAN_OPTIONS ;;
		esac
	fi
	( cd "$dir" && PATH="$bindir/bin:$PATH" TOP="$top" sh "$t" > "$dir/.stdout" 2> "$dir/.stderr"; echo $? > "$dir/.status" )
	# TEST_TIMES=FILE: each test's wall time in ms, to find the slow ones
	[ -z "${TEST_TIMES:-}" ] || echo "$((($(date +%s%N) - t0) / 1000000)) $label$rel" >> "$TEST_TIMES"
	if [ "$(cat "$dir/.status")" = 77 ]; then
		# the test cannot run here; its first line of output says why
		echo "skip|$label$rel|$(head -n 1 "$dir/.stdout")" > "$res"
		rm -rf "$dir"
		return
	fi
	if [ $regen = 1 ]; then
		for k in out err; do
			src=$dir/.std$k
			if [ -s "$src" ]; then cp "$src" "$t.$k"; else rm -f "$t.$k"; fi
		done
		if [ "$(cat "$dir/.status")" != 0 ]; then cp "$dir/.status" "$t.status"; else rm -f "$t.status"; fi
	fi
	good=1
	for k in out err status; do
		case $k in out) got=$dir/.stdout ;; err) got=$dir/.stderr ;; status) got=$dir/.status ;; esac
		want=$t.$k
		if [ -f "$want" ]; then
			cmp -s "$want" "$got" || good=0
		elif [ $k = status ]; then
			[ "$(cat "$got")" = 0 ] || good=0
		else
			[ ! -s "$got" ] || good=0
		fi
	done
	if [ $good = 1 ]; then
		echo "ok|$label$rel" > "$res"
	else
		{
			echo "notok|$label$rel"
			echo "#   reproduce: cd \$(mktemp -d) && PATH=$bindir/bin:\$PATH TOP=$top sh $t"
			for k in out err status; do
				case $k in out) got=$dir/.stdout ;; err) got=$dir/.stderr ;; status) got=$dir/.status ;; esac
				want=$t.$k; [ -f "$want" ] || { want=/dev/null; [ $k = status ] && { want=$dir/.zero; echo 0 > "$want"; }; }
				diff -u "$want" "$got" | head -30 | sed 's/^/#   /'
			done
		} > "$res"
	fi
	rm -rf "$dir"
}

# The cli tests, JOBS at a time (default: the number of processors), reported in order.
run_cli() { # bindir label
	res=$(mktemp -d)
	i=0
	for t in "$top"/tests/cli/*/*.sh; do
		[ -f "$t" ] || continue
		selected "${t#"$top"/tests/}" || continue
		# on the sanitizer build, only the tests that run our C code on their own inputs:
		# not those of the shell completions, the man pages, the browser and the install
		case "$2:${t#"$top"/tests/}" in
		"asan: :cli/completions/"* | "asan: :cli/man/"* | "asan: :cli/"*/browser*.sh | "asan: :cli/shell/install.sh") continue ;;
		"asan: :"*) ! grep -q '^# sanitizers: skip' "$t" || continue ;;
		esac
		i=$((i + 1))
		# a test marked "# long" starts first, so that the workers end together
		if grep -q '^# long:' "$t"; then
			printf '%s\n%s\n' "$t" "$res/$(printf %05d $i)" >> "$res/first"
		else
			printf '%s\n%s\n' "$t" "$res/$(printf %05d $i)" >> "$res/then"
		fi
	done
	cat "$res/first" "$res/then" 2> /dev/null | xargs -r -d '\n' -n 2 -P "$jobs" sh "$top/tests/run.sh" --one "$1" "$2" $regen
	rm -f "$res/first" "$res/then"
	for r in "$res"/*; do
		[ -f "$r" ] || continue
		while IFS= read -r line; do
			case $line in
			"ok|"*) ok "${line#ok|}" ;;
			"notok|"*) notok "${line#notok|}" ;;
			"skip|"*) d=${line#skip|}; skip "${d%%|*}" "${d#*|}" ;;
			*) echo "$line" ;;
			esac
		done < "$r"
	done
	rm -rf "$res"
}

# TAP scripts (tests/parity/*.sh against ../shared/fixtures, tests/checks/*.sh over
# the whole project: fuzzing smoke runs, static analysis), JOBS at a time, the
# checks first (the longest), each folded into our TAP whole and in order.
run_scripts() { # dir...
	res=$(mktemp -d)
	i=0
	for d in "$@"; do
		for t in "$top"/tests/$d/*.sh; do
			[ -f "$t" ] || continue
			selected "${t#"$top"/tests/}" || continue
			i=$((i + 1))
			printf '%s\n%s\n' "$t" "$res/$(printf %05d $i)"
		done
	done > "$res/list"
	xargs -r -d '\n' -n 2 -P "$jobs" sh "$top/tests/run.sh" --one-tap "$build" < "$res/list"
	while IFS= read -r t && IFS= read -r r; do
		if [ -f "$r" ]; then fold_tap "${t#"$top"/tests/}" "$r"; else notok "${t#"$top"/tests/}: did not run"; fi
	done < "$res/list"
	rm -rf "$res"
}

if [ $one = 1 ]; then
	cli_one "$one_bindir" "$one_label" "$one_test" "$one_res"
	exit 0
fi
phase_start=$(date +%s)
phase() { # name: how long the phase that ends here took, as a TAP comment
	now=$(date +%s)
	echo "# $1: $((now - phase_start)) s"
	phase_start=$now
}
run_unit "$build" ""; phase "unit tests"
run_cli "$build" ""; phase "cli tests ($jobs at a time)"
if [ $fast = 0 ]; then
	run_scripts checks parity; phase "checks and parity tests ($jobs at a time)"
fi
if [ -n "$asan" ]; then
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:halt_on_error=1
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	run_unit "$asan" "asan: "; phase "unit tests, sanitizers"
	run_cli "$asan" "asan: "; phase "cli tests, sanitizers"
fi
echo "1..$n"
[ $skipped -gt 0 ] && echo "# $skipped skipped (not counted as passed): see the SKIP lines above"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
