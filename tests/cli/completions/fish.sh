# fish: each completions/<tool>.fish loads (sourced by fish --no-config), and
# `complete -C LINE` gives what the option tables say: options, fixed values,
# directories, dump files (see complete.py for the cases).
command -v fish > /dev/null || { echo "fish is not installed (make deps)"; exit 77; }
bindir=$(dirname "$(command -v probe-flatten)")
n=0 m=0
for t in $(cd "$bindir" && ls probe-* | sort); do
	m=$((m + 1))
	f=$TOP/completions/$t.fish
	if [ ! -f "$f" ]; then
		echo "$t: no completions/$t.fish"
		continue
	fi
	out=$(fish --no-config -c 'source $argv[1]; and complete -c $argv[2]' "$f" "$t" 2>&1)
	status=$?
	if [ $status -ne 0 ] || [ -z "$out" ] || printf '%s\n' "$out" | grep -qv "^complete "; then
		echo "$t.fish does not load cleanly (exit status $status):"
		printf '%s\n' "$out" | sed 's/^/  /'
	else
		n=$((n + 1))
	fi
done
echo "fish files load: $n of $m tools"
python3 "$TESTS/cli/completions/complete.py" fish "$bindir"
