#!/bin/sh
# tests/fuzz/build.sh: build the libFuzzer harnesses into build-fuzz/bin
# (incrementally: only what changed is rebuilt).
#
#   tests/fuzz/build.sh [-q]
#
# The compiler is $FUZZ_CC (default clang), with the warning flags and the
# libraries of the top Makefile; the output directory is $FUZZ_OUT
# (default build-fuzz; make check builds its own, so that it never swaps
# the binaries under a running tests/fuzz/run.sh), make runs $FUZZ_JOBS
# jobs (default: the number of processors).  Exits 77, saying why on
# stdout, when there is no clang or no libFuzzer; 1 when the build fails
# or warns.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
quiet=0
[ "${1:-}" = -q ] && quiet=1
cc=${FUZZ_CC:-clang}
out=${FUZZ_OUT:-build-fuzz}

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "no $cc: the fuzz harnesses need clang with libFuzzer"
	exit 77
fi
mkdir -p "$out"
probe=$(mktemp -d "${TMPDIR:-/tmp}/probe-fuzz-cc.XXXXXX") || exit 1
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' > "$probe/t.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined -o "$probe/t" "$probe/t.c" > "$probe/log" 2>&1; then
	echo "$cc cannot build a libFuzzer program (install libclang-rt-dev): $(head -n 1 "$probe/log")"
	rm -rf "$probe"
	exit 77
fi
rm -rf "$probe"

# the warning flags and the libraries, as the top Makefile has them
vars=$(printf 'print-%%:\n\t@echo $($*)\n' | make -s --no-print-directory -f Makefile -f - print-WARNINGS print-PROBE_LIBS) || exit 1
warnings=$(echo "$vars" | sed -n 1p)
libs=$(echo "$vars" | sed -n 2p)
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}

if [ $quiet = 1 ]; then
	log=$out/build.log
	if ! make -s --no-print-directory -j"$jobs" -f tests/fuzz/fuzz.mk OUT="$out" FUZZ_CC="$cc" \
		WARNINGS="$warnings" PROBE_LIBS="$libs" > "$log" 2>&1; then
		cat "$log"
		exit 1
	fi
	# warnings are failures too: the project builds warnings-clean
	if grep -q 'warning:' "$log"; then
		cat "$log"
		exit 1
	fi
	exit 0
fi
exec make --no-print-directory -j"$jobs" -f tests/fuzz/fuzz.mk OUT="$out" FUZZ_CC="$cc" \
	WARNINGS="$warnings" PROBE_LIBS="$libs"
