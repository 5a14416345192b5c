#!/bin/sh
# tests/checks/fuzz.sh: the libFuzzer harnesses in make check (TAP).
#
# 1. builds the harnesses of tests/fuzz/ into $BUILD/fuzz (warnings fail);
# 2. replays every input under tests/fuzz/regressions/NAME/ through
#    fuzz_NAME: each was a crash, a hang or a broken invariant once, and
#    must now pass;
# 3. a smoke run of each harness from seeds made of tests/data and of a
#    few small dumps of probe-gendump (from BUILD/bin, as make fuzz
#    seeds from bigger ones): a fixed seed and at most SMOKE_RUNS
#    executions or SMOKE_SECONDS seconds (defaults 3000 and 3; about 40 s
#    for all), so that a harness that cannot start, or an invariant
#    broken on the project's own examples, shows.
#
# Without clang and libFuzzer the whole check is one SKIP.  Environment
# (tests/run.sh sets it): TOP, the source tree; BUILD, the build directory.
set -u
top=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BUILD:-$top/build}
cd "$top" || exit 1
runs=${SMOKE_RUNS:-3000}
seconds=${SMOKE_SECONDS:-3}
out=$build/fuzz
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); failed=1; echo "not ok $n - $1"; }
comment() { sed 's/^/# /'; }

mkdir -p "$out"
log=$out/check.log
FUZZ_OUT=$out tests/fuzz/build.sh -q > "$log" 2>&1
case $? in
0) ok "the fuzz harnesses build without warnings" ;;
77)
	echo "ok 1 # SKIP $(head -n 1 "$log")"
	echo "1..1"
	exit 0
	;;
*)
	notok "the fuzz harnesses build without warnings"
	grep -E 'warning:|error:' "$log" | head -n 20 | comment
	echo "1..$n"
	exit 1
	;;
esac

names=
for f in tests/fuzz/fuzz_*.c; do
	name=${f#tests/fuzz/fuzz_}
	names="$names ${name%.c}"
done

# the harness runs quietly; what it says on a failure goes to the TAP as comments
replay() { # name file...
	bin=$out/bin/fuzz_$1
	shift
	"$bin" -timeout=10 -rss_limit_mb=2048 "$@" > "$out/replay.log" 2>&1
}

# 2. the regression inputs
for dir in tests/fuzz/regressions/*/; do
	[ -d "$dir" ] || continue
	name=$(basename "$dir")
	case " $names " in
	*" $name "*) ;;
	*) notok "regressions/$name: there is no harness fuzz_$name"; continue ;;
	esac
	set --
	for f in "$dir"*; do
		[ -f "$f" ] && set -- "$@" "$f"
	done
	[ $# -gt 0 ] || continue
	count=$#
	for f in "$@"; do
		if ! replay "$name" "$f"; then
			notok "fuzz_$name: regression ${f#tests/fuzz/} fails again"
			grep -E 'check failed|ERROR:|SUMMARY:|runtime error|^[a-z].*: ' "$out/replay.log" | head -n 8 |
				comment
			count=-1
		fi
	done
	[ $count -ge 0 ] && ok "fuzz_$name: $count regression input(s) pass"
done

# 3. smoke runs
gen=$out/gen
rm -rf "$gen"
if [ -x "$build/bin/probe-gendump" ]; then
	if tests/fuzz/gendata.sh --quick "$build/bin" "$gen" > "$out/gendata.log" 2>&1; then
		ok "seed data from probe-gendump"
	else
		notok "seed data from probe-gendump"
		comment < "$out/gendata.log"
	fi
else
	notok "seed data from probe-gendump: no $build/bin/probe-gendump (make all first)"
fi
for name in $names; do
	corpus=$out/smoke/$name
	rm -rf "$corpus" "$out/artifacts/$name"
	mkdir -p "$out/artifacts/$name"
	if ! tests/fuzz/seeds.sh "$name" "$corpus" "$gen" > "$out/seeds.log" 2>&1; then
		notok "fuzz_$name: no seeds"
		comment < "$out/seeds.log"
		continue
	fi
	seeds=$(find "$corpus" -type f | wc -l)
	dict=tests/fuzz/dict/$name.dict
	[ -f "$dict" ] || dict=tests/fuzz/dict/stack.dict
	if "$out/bin/fuzz_$name" -seed=1 -runs="$runs" -max_total_time="$seconds" -timeout=10 \
		-rss_limit_mb=2048 -max_len=65536 -dict="$dict" -artifact_prefix="$out/artifacts/$name/" \
		"$corpus" > "$out/smoke-$name.log" 2>&1; then
		execs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$out/smoke-$name.log")
		ok "fuzz_$name: smoke run of ${execs:-?} inputs from $seeds seeds"
	else
		notok "fuzz_$name: smoke run finds a failure (input in $out/artifacts/$name/)"
		grep -E 'check failed|ERROR:|SUMMARY:|runtime error' "$out/smoke-$name.log" | head -n 8 | comment
	fi
	rm -rf "$corpus"
done
echo "1..$n"
exit $failed
