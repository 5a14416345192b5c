# The README's synopses are the tools' own, word for word (its doc drifted once:
# --only-ranks was missing).  Each README synopsis is an indented line that begins
# with a tool's name and an option ("    probe-x [" ...), with the lines indented
# further that continue it; it must equal one of the forms that `TOOL --help`
# prints in its usage (spacing and wrapping aside).  Every tool in PATH must have
# one in the README.  One line per synopsis.
bindir=$(dirname "$(command -v probe-flatten)")
exec python3 - "$TESTS/cli/man" "$bindir" "$TOP/README.md" <<'EOF'
import os, re, subprocess, sys
sys.path.insert(0, sys.argv[1])
import manpage

bindir, readme = sys.argv[2], sys.argv[3]
tools = manpage.tools(bindir)
bad = 0


def forms(name, text):
    """Word lists, one per form of tool NAME in text; a form begins with the name."""
    out = []
    for w in text.split():
        if w == name:
            out.append([])
        elif out:
            out[-1].append(w)
    return out


usage = {}
for t in tools:
    r = subprocess.run([os.path.join(bindir, t), "--help"], capture_output=True)
    lines = []
    for line in r.stdout.decode().split("\n"):
        if not line.strip():
            break
        lines.append(line)
    usage[t] = forms(t, " ".join(lines)[len("usage: "):])

seen = set()
lines = open(readme).read().split("\n")
for i, line in enumerate(lines):
    m = re.match(r"    (probe-[a-z]+) (\[|-)", line)
    if not m or m.group(1) not in usage:
        continue
    t = m.group(1)
    text = line
    j = i + 1
    while j < len(lines) and re.match(r"     +\S", lines[j]) and not lines[j].strip().startswith("probe-"):
        text += " " + lines[j]
        j += 1
    f = forms(t, text)[0]
    seen.add(t)
    if f in usage[t]:
        print("%s: the README synopsis agrees (%d words)" % (t, len(f)))
    else:
        bad += 1
        print("README.md:%d: %s: the synopsis differs from --help" % (i + 1, t))
        print("  README: %s" % " ".join(f))
        for u in usage[t]:
            print("  --help: %s" % " ".join(u))
for t in tools:
    if t not in seen:
        bad += 1
        print("%s: no synopsis in the README" % t)
sys.exit(1 if bad else 0)
EOF
