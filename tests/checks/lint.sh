#!/bin/sh
# tests/checks/lint.sh: make lint (tests/lint/run.sh) as part of make check, in TAP:
# cppcheck and clang-tidy's bugprone checks clean but for tests/lint/suppressions.
# The Clang static analyzer (clang-analyzer-*) is left to make lint: it would take
# about 400 CPU seconds of make check's fifteen minutes.
for t in cppcheck clang-tidy; do
	if ! command -v $t > /dev/null; then
		echo "1..1"
		echo "ok 1 - lint # SKIP $t is not installed (make deps)"
		exit 0
	fi
done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
LINT_ANALYZER=0 "$TOP/tests/lint/run.sh" > "$out" 2>&1
echo "1..2"
n=0
for tool in cppcheck clang-tidy; do
	n=$((n + 1))
	if grep -qx "$tool: clean" "$out"; then
		echo "ok $n - $tool: clean$([ $tool = clang-tidy ] && echo ' (bugprone; the analyzer in make lint)')"
	else
		echo "not ok $n - $tool: findings (tests/lint/run.sh)"
		sed 's/^/# /' "$out" | head -40
	fi
done
