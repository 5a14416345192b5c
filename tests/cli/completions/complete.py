"""complete.py SHELL BINDIR: ask SHELL (bash, zsh or fish) for completions of the
probe tools, using the generated files in completions/, and check that they
are what the option tables (each tool's --list-options) say.

Not a test itself (run.sh runs tests/cli/*/*.sh); bash.sh, zsh.sh and fish.sh
run it.  The completions are asked for in a directory holding
    npu/ (with npu/step0/rank0/), other/, dump.json, dump.json.gz, "a b.json", notes.txt,
    stack.json, construct.json (they go beside a dump: files, not dumps)
so that
    dump operands (where the tool reads dumps)  complete to  all but notes.txt, stack.json, construct.json
    file operands and FILE arguments            complete to  all six
    directory operands and DIR arguments        complete to  npu other
    an argument without fixed values (N, X)     completes to  nothing
    an argument with fixed values               completes to  those values
For every tool: TOOL --, TOOL -, TOOL (operands), and for every option with an
argument, each of its names followed by a space, --long=, and the name with
a value followed by a space (operands again).  Candidates are compared as
sets of names: a description, a trailing / and the directory part are left
out, as are the --long= before a value and zsh's quoting of file names.
Prints a few completions in full, then one line per tool with the counts.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

DUMPS = {"npu", "other", "dump.json", "dump.json.gz", "a b.json"}
FILES = DUMPS | {"notes.txt", "stack.json", "construct.json"}
DIRS = {"npu", "other"}
TOP = os.environ.get("TOP") or os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))
COMPDIR = os.path.join(TOP, "completions")


def list_options(path):
    opts, operands = [], ""
    for line in subprocess.run([path, "--list-options"], capture_output=True, check=True).stdout.decode().split("\n"):
        f = line.split("\t")
        if f[0] == "operands":
            operands = f[1]
        elif len(f) == 6:
            opts.append(dict(short=None if f[0] == "-" else f[0], long=f[1], arg=None if f[2] == "-" else f[2],
                             choices=[] if f[3] == "-" else f[3].split("|"), flags=f[4]))
    return opts, operands


def operand_set(flags):
    return DUMPS if "D" in flags else DIRS if "d" in flags else FILES


def value_set(o):
    if o["choices"]:
        return set(o["choices"])
    if "d" in o["flags"]:
        return DIRS
    if "f" in o["flags"] or "D" in o["flags"]:
        return FILES
    return set()


def cases(bindir, tools):
    """(tool, command line, expected set, what) for every check."""
    out = []
    for t in tools:
        opts, operands = list_options(os.path.join(bindir, t))
        longs = {"--" + o["long"] for o in opts}
        shorts = {"-" + o["short"] for o in opts if o["short"]}
        out.append((t, t + " --", longs, "option"))
        out.append((t, t + " -", longs | shorts, "option"))
        out.append((t, t + " ", operand_set(operands), "operand"))
        for o in opts:
            if not o["arg"]:
                continue
            names = ["--" + o["long"]] + (["-" + o["short"]] if o["short"] else [])
            if "o" in o["flags"]:
                # --opt=ARG only: after "--opt " come the operands
                out.append((t, "%s --%s=" % (t, o["long"]), value_set(o), "value"))
                out.append((t, "%s --%s " % (t, o["long"]), operand_set(operands), "operand"))
                continue
            value = o["choices"][0] if o["choices"] else "npu" if "d" in o["flags"] else "1"
            for n in names:
                out.append((t, "%s %s " % (t, n), value_set(o), "value"))
                out.append((t, "%s %s %s " % (t, n, value), operand_set(operands), "operand"))
            out.append((t, "%s --%s=" % (t, o["long"]), value_set(o), "value"))
    # prefixes
    out.append(("probe-flatten", "probe-flatten --r", {"--rank"}, "option"))
    out.append(("probe-metric", "probe-metric --mode s", {"statistics"}, "value"))
    out.append(("probe-metric", "probe-metric --mode=t", {"tensor"}, "value"))
    out.append(("probe-gendump", "probe-gendump --fault nan", {"nan", "nan-input"}, "value"))
    out.append(("probe-plot", "probe-plot --metric max_", {"max_rel", "max_abs"}, "value"))
    out.append(("probe-flatten", "probe-flatten d", {"dump.json", "dump.json.gz"}, "operand"))
    out.append(("probe-flatten", "probe-flatten npu/", {"step0"}, "operand"))
    return out


SHOWN = ["probe-flatten --r", "probe-metric --mode ", "probe-first --format ", "probe-flatten ",
         "probe-metric -o ", "probe-match --data-mapping ", "probe-match --cell-mapping=", "probe-gendump ",
         "probe-plot --metric "]

ZSH = r'''
# zsh -f THIS COMPDIR CASES OUTDIR: an interactive zsh on a pseudo-terminal (zpty)
# with compinit and COMPDIR first in fpath types each line of CASES and a TAB;
# a compadd wrapper writes what each completion adds (compadd -O: the matches
# it would add) to OUTDIR/N.  TAB runs the completion, then leaves a mark, so
# that nothing is typed while it runs (zsh cuts a completion short when input
# is waiting).
zmodload zsh/zpty || exit 1
compdir=$1 cases=$2 out=$3
wait_for() { # file
	local n=0
	while [[ ! -e $1 ]]; do
		zpty -r -t z junk 2>/dev/null
		sleep 0.01
		(( ++n > 1000 )) && { print -u2 "no answer from the zsh under test (${1:t})"; exit 1; }
	done
}
# run a command line in the shell under test and wait until it has run
sync_run() { # marker command
	zpty -w z "$2; : > ${(q)out}/$1"
	wait_for $out/$1
}
zpty z zsh -f -i
sync_run ready.1 "PS1= PROMPT= RPROMPT=; fpath=(${(q)compdir} \$fpath); autoload -Uz compinit; compinit -u -D"
sync_run ready.2 'setopt no_auto_list no_list_beep no_beep no_auto_menu no_menu_complete'
sync_run ready.3 'zle -C probe-complete complete-word _main_complete; probe-tab() { zle probe-complete; : > $CAPTURE.tabbed; }; zle -N probe-tab; bindkey "^I" probe-tab'
sync_run ready.4 'compadd() { if (( ${@[(I)-[OAD]*]} )); then builtin compadd "$@"; return; fi; local -a m; builtin compadd -O m "$@"; (( $#m )) && print -rl -- $m >> $CAPTURE; builtin compadd "$@"; }'
i=0
while IFS= read -r line; do
	i=$((i + 1))
	sync_run $i.ready "CAPTURE=${(q)out}/$i; : > \$CAPTURE"
	zpty -w -n z "$line"$'\t'
	wait_for $out/$i.tabbed
	# ^U empties the line again
	zpty -w -n z $'\025'
	sync_run $i.done :
done < $cases
zpty -d z
'''

FISH = r'''
# fish --no-config -c THIS COMPDIR OUTDIR TOOL... -- LINE...: source the tools'
# completion files, then write `complete -C LINE` to OUTDIR/N.
set -l compdir $argv[1]
set -l out $argv[2]
set -l i (contains -i -- -- $argv)
for t in $argv[3..(math $i - 1)]
    source $compdir/$t.fish; or exit 1
end
set -l n 0
for line in $argv[(math $i + 1)..-1]
    set n (math $n + 1)
    complete -C"$line" > $out/$n
end
'''

BASH = r'''
# bash THIS COMPDIR OUTDIR < CASES: source probe.bash; for each case (the words of
# the line, as bash splits them for completion, one per line, then an empty
# line) call the function `complete -p TOOL` names and write COMPREPLY to OUTDIR/N.
source "$1/probe.bash" || exit 1
out=$2 n=0 words=()
while IFS= read -r w; do
	if [ -n "$w" ]; then words+=("${w#.}"); continue; fi
	n=$((n + 1))
	spec=$(complete -p "${words[0]}") || exit 1
	fn=${spec#*-F }; fn=${fn%% *}
	COMP_WORDS=("${words[@]}") COMP_CWORD=$((${#words[@]} - 1)) COMPREPLY=()
	"$fn" "${words[0]}" "${words[COMP_CWORD]}" "${words[COMP_CWORD-1]}"
	printf '%s\n' "${COMPREPLY[@]}" > "$out/$n"
	words=()
done
'''


def bash_words(line):
    """The words of a command line as bash makes them for completion: split at
    blanks, and at "=" (in COMP_WORDBREAKS), which makes a word of its own."""
    words = []
    for w in line.split(" "):
        parts = w.split("=")
        for k, p in enumerate(parts):
            if k:
                words.append("=")
            if p or k == 0:
                words.append(p)
    return words


def normalise(shell, line, got):
    last = line.split(" ")[-1]
    prefix = last[:last.index("=") + 1] if last.startswith("--") and "=" in last else ""
    out = set()
    for c in got:
        c = c.split("\t")[0]
        if shell == "zsh":
            c = re.sub(r"\\(.)", r"\1", c)  # _path_files adds file names quoted ("a\ b.json")
        if prefix and c.startswith(prefix):
            c = c[len(prefix):]
        c = c.rstrip("/").rsplit("/", 1)[-1]
        if c:
            out.add(c)
    return out


def show(names):
    return " ".join(shlex.quote(n) for n in sorted(names)) or "(nothing)"


def main():
    shell, bindir = sys.argv[1], sys.argv[2]
    tools = sorted(f for f in os.listdir(bindir) if f.startswith("probe-"))
    all_cases = cases(bindir, tools)
    base = tempfile.mkdtemp(prefix="complete.", dir=os.getcwd())
    work, fx = os.path.join(base, "work"), os.path.join(base, "fx")
    os.makedirs(os.path.join(fx, "npu", "step0", "rank0"))
    os.makedirs(os.path.join(fx, "other"))
    for f in ("dump.json", "dump.json.gz", "a b.json", "notes.txt", "stack.json", "construct.json"):
        open(os.path.join(fx, f), "w").close()
    os.makedirs(os.path.join(work, "out"))
    out = os.path.join(work, "out")
    lines = [c[1] for c in all_cases]
    if shell == "zsh":
        with open(os.path.join(work, "cases"), "w") as f:
            f.write("".join(l + "\n" for l in lines))
        with open(os.path.join(work, "run.zsh"), "w") as f:
            f.write(ZSH)
        r = subprocess.run(["zsh", "-f", os.path.join(work, "run.zsh"), COMPDIR, os.path.join(work, "cases"), out],
                           cwd=fx, capture_output=True, timeout=600)
    elif shell == "fish":
        r = subprocess.run(["fish", "--no-config", "-c", FISH, COMPDIR, out] + tools + ["--"] + lines,
                           cwd=fx, capture_output=True, timeout=600)
    else:
        text = "".join("".join("." + w + "\n" for w in bash_words(l)) + "\n" for l in lines)
        with open(os.path.join(work, "run.bash"), "w") as f:
            f.write(BASH)
        r = subprocess.run(["bash", "--norc", "--noprofile", os.path.join(work, "run.bash"), COMPDIR, out],
                           cwd=fx, input=text.encode(), capture_output=True, timeout=600)
    if r.returncode != 0 or r.stderr:
        print("%s failed (exit status %d): %s" % (shell, r.returncode, r.stderr.decode().strip()))
        return 1
    got = {}
    for n, line in enumerate(lines, 1):
        path = os.path.join(out, str(n))
        if not os.path.exists(path):
            print("%s: no answer for %r" % (shell, line))
            return 1
        with open(path) as f:
            got[line] = normalise(shell, line, f.read().split("\n"))
    for line in SHOWN:
        print("%-32s -> %s" % (line + "<TAB>", show(got[line])))
    bad = 0
    for t in tools:
        mine = [c for c in all_cases if c[0] == t]
        wrong = [c for c in mine if got[c[1]] != c[2]]
        kinds = {k: sum(1 for c in mine if c[3] == k) for k in ("option", "value", "operand")}
        if wrong:
            bad += 1
            print("%s: %d of %d completions differ from the option table:" % (t, len(wrong), len(mine)))
            for c in wrong:
                print("  %r<TAB>: want %s; got %s" % (c[1], show(c[2]), show(got[c[1]])))
        else:
            print("%s: %d completions as the option table says (options %d, option arguments %d, operands %d)"
                  % (t, len(mine), kinds["option"], kinds["value"], kinds["operand"]))
    shutil.rmtree(base)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
