# bash: completions/probe.bash loads and registers a function for every tool, and
# calling it as bash's programmable completion does (COMP_WORDS split as bash
# splits them, "=" a word of its own) gives what the option tables say: options,
# fixed values, directories, dump files (see complete.py for the cases).
bindir=$(dirname "$(command -v probe-flatten)")
tools=$(cd "$bindir" && ls probe-* | sort)
bash --norc --noprofile -c '
source "$1/completions/probe.bash" || exit 1
shift
n=0
for t; do
	spec=$(complete -p "$t" 2>&1) && fn=${spec#*-F } && declare -F "${fn%% *}" > /dev/null &&
		n=$((n + 1)) || echo "$t: no completion function registered"
done
echo "probe.bash loads: registered for $n of $# tools"
' bash "$TOP" $tools 2>&1
python3 "$TESTS/cli/completions/complete.py" bash "$bindir"
