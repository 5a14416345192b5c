# With no operand and a terminal on stdin, print the usage instead of waiting.
if command -v script >/dev/null; then
	script -qec 'probe-flatten' /dev/null | tr -d '\r'
else
	echo "skip: script(1) missing"
fi
