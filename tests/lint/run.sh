#!/bin/sh
# tests/lint/run.sh: static analysis of lib/ and tools/ (make lint).
#
#   cppcheck    warning, portability and performance checks
#   clang-tidy  clang-analyzer-* (the Clang static analyzer) and bugprone-*, minus
#               the checks listed below that only flag this code base's idioms
#
# Findings that are not bugs are listed, each with its reason, in
# tests/lint/suppressions (cppcheck's format; clang-tidy findings are
# suppressed there too, as "clang-tidy:CHECK:FILE", matched by this script).
# Exit status 0 when clean, 1 on any finding, 2 when a tool is missing.
# JOBS=N runs N clang-tidy processes (default: the number of processors);
# LINT_FILES="lib/a.c ..." looks at those files only; LINT_ANALYZER=0 leaves the
# Clang static analyzer out (make check does: it is five sixths of the time, about
# 400 CPU seconds; make lint runs it).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
supp=tests/lint/suppressions
for t in cppcheck clang-tidy; do
	command -v $t > /dev/null || { echo "tests/lint/run.sh: $t is not installed (make deps)" >&2; exit 2; }
done
jobs=${JOBS:-$(getconf _NPROCESSORS_ONLN 2> /dev/null || echo 2)}
files=${LINT_FILES:-$(ls lib/*/*.c tools/*.c)}
status=0
out=$(mktemp)
trap 'rm -f "$out" "$out.tidy"' EXIT

# cppcheck: its own suppression lines (those not starting with "clang-tidy:")
grep -v '^clang-tidy:' "$supp" > "$out.supp"
if ! cppcheck --std=c11 --enable=warning,portability,performance --inline-suppr --quiet \
	--suppress=missingIncludeSystem --suppressions-list="$out.supp" --error-exitcode=1 \
	--template='{file}:{line}:{column}: {severity}: {message} [{id}]' -I lib $files > "$out" 2>&1; then
	echo "cppcheck:"
	cat "$out"
	status=1
else
	echo "cppcheck: clean"
fi
rm -f "$out.supp"

# clang-tidy.  Left out: bugprone-easily-swappable-parameters (any two adjacent
# parameters of one type), bugprone-suspicious-string-compare (`!memcmp(...)` is the
# idiom here), bugprone-implicit-widening-of-multiplication-result and
# bugprone-narrowing-conversions (size arithmetic is checked where it matters, and
# the warnings drown it), bugprone-reserved-identifier (include guards),
# bugprone-assignment-in-if-condition (the `if ((n = read(...)) > 0)` idiom),
# bugprone-sizeof-expression (every finding was `sizeof(*v)` of an array of pointers,
# and clang-tidy 14 has no option to spare those), and
# clang-analyzer-security.insecureAPI.DeprecatedOrUnsafeBufferHandling (memcpy_s
# and friends are not in glibc).
checks='-*,clang-analyzer-*,-clang-analyzer-security.insecureAPI.DeprecatedOrUnsafeBufferHandling'
[ "${LINT_ANALYZER:-1}" != 0 ] || checks='-*'
checks=$checks',bugprone-*,-bugprone-easily-swappable-parameters,-bugprone-suspicious-string-compare'
checks=$checks',-bugprone-implicit-widening-of-multiplication-result,-bugprone-narrowing-conversions'
checks=$checks',-bugprone-reserved-identifier,-bugprone-assignment-in-if-condition,-bugprone-sizeof-expression'
export checks
printf '%s\n' $files | xargs -P "$jobs" -n 1 sh -c \
	'clang-tidy --quiet -checks="$checks" "$@" -- -std=c11 -Ilib 2> /dev/null' _ > "$out.tidy"
# keep the findings (file:line:col: warning: ... [check]) not suppressed
grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error): .*\[[A-Za-z0-9.,-]+\]$' "$out.tidy" | sed "s|^$top/||" | sort -u |
while IFS= read -r line; do
	file=${line%%:*}
	check=$(printf '%s\n' "$line" | sed 's/.*\[\([^]]*\)\]$/\1/')
	lineno=$(printf '%s\n' "$line" | cut -d: -f2)
	if grep -qxF "clang-tidy:$check:$file" "$supp" || grep -qxF "clang-tidy:$check:$file:$lineno" "$supp"; then
		continue
	fi
	printf '%s\n' "$line"
done > "$out"
if [ -s "$out" ]; then
	echo "clang-tidy:"
	cat "$out"
	status=1
else
	echo "clang-tidy: clean"
fi
exit $status
