# The usage printed by each tool's --help is its man page's SYNOPSIS, word for word.
#
# For every tool beside probe-flatten in PATH, the usage lines of `TOOL --help`
# (from "usage: " to the first blank line; "usage:" itself left out) are compared
# with the SYNOPSIS of share/man/TOOL.1 as mandoc -T ascii renders it (wide
# enough that nothing wraps, overstrikes removed).  Both are split into their
# forms (a form begins with the tool's name) and each form into words, so that
# only line wrapping and spacing may differ.  Every section-1 page must also
# belong to a tool.  One line per tool.
command -v mandoc > /dev/null || { echo "mandoc is not installed (make deps)"; exit 77; }
bindir=$(dirname "$(command -v probe-flatten)")
exec python3 - "$TESTS/cli/man" "$bindir" <<'EOF'
import os, subprocess, sys
sys.path.insert(0, sys.argv[1])
import manpage

bindir = sys.argv[2]
tools = manpage.tools(bindir)
bad = 0


def forms(name, lines):
    """Word lists, one per form; a form begins with the tool's name."""
    out = []
    for w in " ".join(lines).split():
        if w == name:
            out.append([])
        elif not out:
            raise ValueError("text before the first %s: %r" % (name, w))
        out[-1].append(w)
    return out


for t in tools:
    page = os.path.join(manpage.MANDIR, t + ".1")
    r = subprocess.run([os.path.join(bindir, t), "--help"], capture_output=True)
    help_lines = r.stdout.decode().split("\n")
    if r.returncode != 0 or not help_lines[0].startswith("usage: "):
        print("%s: --help does not begin with a usage line (exit status %d)" % (t, r.returncode))
        bad += 1
        continue
    usage = []
    for line in help_lines:
        if not line.strip():
            break
        usage.append(line)
    usage[0] = usage[0][len("usage: "):]
    if not os.path.exists(page):
        print("%s: no man page share/man/%s.1" % (t, t))
        bad += 1
        continue
    synopsis = [l for l in manpage.rendered_section(manpage.render(page), "SYNOPSIS") if l.strip()]
    h, m = forms(t, usage), forms(t, synopsis)
    if not h or not m:
        print("%s: nothing to compare (--help: %d forms, SYNOPSIS: %d forms)" % (t, len(h), len(m)))
        bad += 1
    elif h == m:
        print("%s: synopsis agrees (%d form%s, %d words)" % (t, len(h), "" if len(h) == 1 else "s", sum(map(len, h))))
    else:
        bad += 1
        print("%s: synopsis differs" % t)
        for i in range(max(len(h), len(m))):
            hf = " ".join(h[i]) if i < len(h) else "(none)"
            mf = " ".join(m[i]) if i < len(m) else "(none)"
            if hf != mf:
                print("  --help:   %s\n  SYNOPSIS: %s" % (hf, mf))
for f in sorted(os.listdir(manpage.MANDIR)):
    if f.endswith(".1") and f[:-2] not in tools:
        print("%s: a section-1 page without a tool in %s" % (f, bindir))
        bad += 1
sys.exit(1 if bad else 0)
EOF
