# make install PREFIX=/usr DESTDIR=...: the files land where conventions.md says
# (tools in bin, man pages in man1/man5/man7, bash, zsh and fish completions,
# probe.mk, probe.jq and the examples in share/probe), the installed tools, probe.mk
# and probe.jq work from there, and make uninstall leaves no probe file behind.
#
# Where it builds: other people build and test in the tree at the same time, in the
# tree's build/ and in build dirs of their own.  `make install` depends on `all`, so
# run with BUILD=build it would rebuild build/ whenever a source is newer than it,
# two makes writing the same objects at once.  This test instead gives make a BUILD
# of its own, in its temporary directory: a copy (times kept) of the build whose
# tools are on PATH, so that make finds it up to date and only installs, and
# rebuilds in the copy whatever a newer source changed.  `make -C $TOP
# BUILD=$PWD/build` reads the tree's sources and the Makefile as they are and writes
# only into BUILD and DESTDIR, nothing in the tree.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEFILES MAKEOVERRIDES GNUMAKEFLAGS V
root=$PWD/root
build=$PWD/build
from=$(command -v probe-flatten) && from=$(dirname "$(dirname "$from")")
[ -f "$from/libprobe.a" ] || { echo "no build of the tree on PATH (probe-flatten: $from)"; exit 1; }
cp -a "$from" "$build"
tools=$(sed -n 's/^TOOLS = //p' "$TOP/Makefile")
[ -n "$tools" ] || { echo "no TOOLS line in $TOP/Makefile"; exit 1; }

make -C "$TOP" -j2 BUILD="$build" PREFIX=/usr DESTDIR="$root" install > install.log 2>&1
s=$?; echo "make install: status $s"
[ $s = 0 ] || { tail -n 20 install.log; exit 1; }

echo "# what was installed, with its mode"
(cd "$root" && find . ! -type d | sort | while IFS= read -r f; do echo "$(stat -c %a "$f") ${f#./}"; done)

echo "# where conventions.md says, for each tool of the Makefile's TOOLS"
share=$root/usr/share
n=0
for t in $tools; do
	n=$((n + 1))
	[ -x "$root/usr/bin/$t" ] || echo "$t: not installed in /usr/bin"
	[ -f "$share/man/man1/$t.1" ] || echo "$t: no man page in /usr/share/man/man1"
	[ -f "$share/bash-completion/completions/$t" ] || echo "$t: no bash completion"
	[ -f "$share/fish/vendor_completions.d/$t.fish" ] || echo "$t: no fish completion"
	sed -n 1p "$share/zsh/site-functions/_probe" | grep -q " $t\( \|\$\)" || echo "$t: not in the zsh completion's #compdef"
	m=$(man -M "$share/man" -w "$t" 2>/dev/null) && [ "$m" = "$share/man/man1/$t.1" ] || echo "$t: man -M does not find its page"
done
echo "$n tools checked"
for p in probe-records.5:man5 probe.7:man7; do
	[ -f "$share/man/${p#*:}/${p%:*}" ] || echo "missing: /usr/share/man/${p#*:}/${p%:*}"
done
for f in probe.mk jq/probe.jq examples/Makefile examples/demo.sh; do
	cmp -s "$TOP/share/$f" "$share/probe/$f" && echo "/usr/share/probe/$f: as in the tree" || echo "/usr/share/probe/$f: missing or different"
done

echo "# the installed tools, alone on PATH with the system's"
PATH=$root/usr/bin:/usr/bin:/bin
export PATH
command -v probe-first | sed "s|$root|DESTDIR|"
for t in $tools; do "$t" --version; done
probe-gendump --ranks 2 --fault-rank 1 run > /dev/null
probe-flatten run/target | probe-match run/golden | probe-first | jq -c 'select(.summary) | .summary.started_by'
probe-flatten run/target | probe-match run/golden | probe-metric | probe-first --format text | head -n 1
bash -c '. "$1/probe-first" && complete -p probe-first' sh "$share/bash-completion/completions"

echo "# the installed example, through the installed probe.mk; the installed jq module"
make --no-print-directory -f "$share/probe/examples/Makefile" FAULT=none > make.log 2>&1; echo "make: status $?"
tail -n 1 make.log
make --no-print-directory -f "$share/probe/examples/Makefile" > make.log 2>&1; echo "make: status $?"
grep -e '^rank' -e 'diverges' make.log
probe-flatten run/target | probe-match run/golden | probe-metric |
	jq -nc -L "$share/probe/jq" 'import "probe" as p; p::tally({rank: p::leaf.rank}; inputs)' | probe-table

echo "# make uninstall leaves no file behind, and nothing named probe"
make -C "$TOP" BUILD="$build" PREFIX=/usr DESTDIR="$root" uninstall > uninstall.log 2>&1; echo "make uninstall: status $?"
left=$(cd "$root" && find . ! -type d | sort)
echo "files left: ${left:-none}"
left=$(cd "$root" && find . -name '*probe*' | sort)
echo "probe names left: ${left:-none}"
echo "directories left (empty, as uninstall leaves them):"
(cd "$root" && find . -mindepth 1 -type d | sort)
