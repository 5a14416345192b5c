#!/bin/sh
# tests/fuzz/run.sh: fuzz every parser of probe with libFuzzer.
#
#   tests/fuzz/run.sh [-j JOBS] [--only NAME[,NAME...]] SECONDS
#
# 1. builds the harnesses (tests/fuzz/fuzz_*.c) with clang, libFuzzer,
#    ASan and UBSan into build-fuzz/ (tests/fuzz/build.sh);
# 2. generates example data with the project's own tools (built into
#    build-fuzz/tools with the normal compiler): probe-gendump dumps in
#    statistics, md5 and tensor modes (--zoo, --pt-layout torch2,
#    --format npy, several ranks and steps), their leaf, pair and metric
#    records and compare_result CSVs;
# 3. seeds build-fuzz/corpus/NAME/ from those and tests/data
#    (tests/fuzz/seeds.sh), and keeps what the fuzzer adds there;
# 4. runs each harness for SECONDS (JOBS at a time, default: the number
#    of processors) with its dictionary (tests/fuzz/dict/), -timeout=10
#    (a hang is a finding) and -rss_limit_mb=2048, in libFuzzer's fork
#    mode so that a crash does not end the run (JOBS defaults to
#    $FUZZ_JOBS when set: make fuzz FUZZ_JOBS=1 FUZZ_SECONDS=480);
# 5. for each distinct crash (by the sanitizer's summary line), minimizes
#    the input and stores it as tests/fuzz/regressions/NAME/crash-SHA1
#    (commit it, with the fix); tests/checks/fuzz.sh replays them.
#
# Prints one line per harness: seconds fuzzed, executions, coverage
# (edges), features, corpus size, and the crashes, timeouts and
# out-of-memory runs found.  Logs are in build-fuzz/logs/NAME.log.  Exits
# 1 when anything was found.  $FUZZ_OUT names another directory than
# build-fuzz.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
only=
usage() { echo "usage: tests/fuzz/run.sh [-j JOBS] [--only NAME[,NAME...]] SECONDS" >&2; exit 2; }
while [ $# -gt 1 ]; do
	case $1 in
	-j) jobs=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	*) usage ;;
	esac
done
[ $# = 1 ] || usage
seconds=$1
case $seconds in ''|*[!0-9]*) usage ;; esac

out=${FUZZ_OUT:-$top/build-fuzz}
case $out in /*) ;; *) out=$top/$out ;; esac
export FUZZ_OUT="$out"
export FUZZ_JOBS="${FUZZ_JOBS:-$jobs}"
names=
for f in tests/fuzz/fuzz_*.c; do
	n=${f#tests/fuzz/fuzz_}
	n=${n%.c}
	if [ -n "$only" ]; then
		case ",$only," in *",$n,"*) ;; *) continue ;; esac
	fi
	names="$names $n"
done
[ -n "$names" ] || { echo "run.sh: no harness matches --only $only" >&2; exit 2; }

# 1. the harnesses
tests/fuzz/build.sh -q
case $? in
0) ;;
77) echo "run.sh: cannot fuzz: $(tests/fuzz/build.sh -q | head -n 1)" >&2; exit 2 ;;
*) echo "run.sh: the harnesses do not build" >&2; exit 2 ;;
esac

# 2. example data, made again when the tools change
tools=$out/tools
mkdir -p "$out"
if ! make -s --no-print-directory -j"$FUZZ_JOBS" BUILD="$tools" all > "$out/tools.log" 2>&1; then
	cat "$out/tools.log" >&2
	echo "run.sh: the tools do not build (see above)" >&2
	exit 2
fi
gen=$out/gen
if [ ! -f "$gen/.done" ] || [ "$tools/bin/probe-gendump" -nt "$gen/.done" ]; then
	rm -rf "$gen"
	tests/fuzz/gendata.sh "$tools/bin" "$gen" || echo "run.sh: some seed data is missing (see above)" >&2
	touch "$gen/.done"
fi

# 3. seeds
for n in $names; do
	tests/fuzz/seeds.sh "$n" "$out/corpus/$n" "$gen" || exit 2
done

# 4. fuzzing, JOBS at a time
mkdir -p "$out/logs"
fuzz_one() { # name
	n=$1
	rm -rf "$out/artifacts/$n"
	mkdir -p "$out/artifacts/$n"
	start=$(date +%s)
	dict=tests/fuzz/dict/$n.dict
	case $n in construct|hier) dict=tests/fuzz/dict/stack.dict ;; graphdata) dict=tests/fuzz/dict/dump.dict ;; esac
	extra=
	case $n in npy|yaml|construct|hier|stack) extra=-max_len=4096 ;; esac
	"$out/bin/fuzz_$n" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
		-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 $extra \
		-dict="$dict" -artifact_prefix="$out/artifacts/$n/" -print_final_stats=1 \
		"$out/corpus/$n" > "$out/logs/$n.log" 2>&1
	echo $(($(date +%s) - start)) > "$out/logs/$n.seconds"
}
running=0
for n in $names; do
	fuzz_one "$n" &
	running=$((running + 1))
	if [ $running -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait

# 5. the findings, and the report
found=0
printf '%-10s %8s %12s %8s %8s %8s  %s\n' harness seconds executions cov ft corpus "oom/timeout/crash"
for n in $names; do
	log=$out/logs/$n.log
	last=$(grep -E '^#[0-9]+: cov: ' "$log" | tail -n 1)
	execs=$(echo "$last" | sed -n 's/^#\([0-9]*\):.*/\1/p')
	cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	otc=$(echo "$last" | sed -n 's|.*oom/timeout/crash: \([0-9/]*\).*|\1|p')
	corpus=$(find "$out/corpus/$n" -type f | wc -l)
	secs=$(cat "$out/logs/$n.seconds" 2>/dev/null)
	printf '%-10s %8s %12s %8s %8s %8s  %s\n' "$n" "${secs:-?}" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$corpus" "${otc:-?}"
	summaries=
	for a in "$out/artifacts/$n"/*; do
		[ -f "$a" ] || continue
		found=1
		kind=${a##*/}
		kind=${kind%%-*}
		sum=$("$out/bin/fuzz_$n" -timeout=10 -rss_limit_mb=2048 "$a" 2>&1 |
			grep -E '^SUMMARY:|check failed|ERROR: libFuzzer' | head -n 1)
		[ -n "$sum" ] || sum="$kind"
		case $summaries in *"|$sum|"*) continue ;; esac
		summaries="$summaries|$sum|"
		min=$out/artifacts/$n.min
		if [ "$kind" = crash ] || [ "$kind" = leak ]; then
			"$out/bin/fuzz_$n" -minimize_crash=1 -max_total_time=30 -timeout=10 -rss_limit_mb=2048 \
				-exact_artifact_path="$min" "$a" > /dev/null 2>&1 || true
		fi
		[ -s "$min" ] || cp "$a" "$min"
		mkdir -p "tests/fuzz/regressions/$n"
		dest=tests/fuzz/regressions/$n/$kind-$(sha1sum < "$min" | cut -c1-40)
		mv "$min" "$dest"
		echo "  $kind: $sum"
		echo "    input: $dest"
	done
done
exit $found
