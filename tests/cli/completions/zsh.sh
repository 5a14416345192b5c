# zsh: completions/_probe loads with compinit, and completing in a real interactive
# zsh (driven through the zpty module; a compadd wrapper records the matches each
# completion adds) gives what the option tables say: options, fixed values,
# directories, dump files (see complete.py for the cases).
# long: started first in make check (about 22 s; not under ASan)
command -v zsh > /dev/null || { echo "zsh is not installed (make deps)"; exit 77; }
zsh -f -c 'zmodload zsh/zpty' 2> /dev/null || { echo "zsh has no zpty module"; exit 77; }
bindir=$(dirname "$(command -v probe-flatten)")
tools=$(cd "$bindir" && ls probe-* | sort)
# Loading: compinit finds _probe for every tool, and the file parses (autoload +X).
zsh -f -c '
fpath=("$1/completions" $fpath)
shift
autoload -Uz compinit && compinit -u -D || exit 1
autoload -Uz +X _probe || exit 1
n=0
for t; do
	[[ $_comps[$t] == _probe ]] && n=$((n + 1)) || print -r -- "$t: no completion registered (_comps: ${_comps[$t]:-none})"
done
print -r -- "_probe loads: registered for $n of $# tools"
' zsh "$TOP" $tools 2>&1
python3 "$TESTS/cli/completions/complete.py" zsh "$bindir"
