#!/bin/sh
# tests/checks/lint.sh: make lint (tests/lint/run.sh) as part of make check, in TAP:
# cppcheck and clang-tidy clean but for tests/lint/suppressions.  About 80 s on two
# quiet cores (clang-tidy is most of it).
for t in cppcheck clang-tidy; do
	if ! command -v $t > /dev/null; then
		echo "1..1"
		echo "ok 1 - lint # SKIP $t is not installed (make deps)"
		exit 0
	fi
done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$TOP/tests/lint/run.sh" > "$out" 2>&1
echo "1..2"
n=0
for tool in cppcheck clang-tidy; do
	n=$((n + 1))
	if grep -qx "$tool: clean" "$out"; then
		echo "ok $n - $tool: clean"
	else
		echo "not ok $n - $tool: findings (tests/lint/run.sh)"
		sed 's/^/# /' "$out" | head -40
	fi
done
