"""manpage.py: what the tests in tests/cli/man read out of the mdoc pages.

Every page is read twice: its source, for the structure (sections, the .It
entries of the OPTIONS list, the .Bd -literal blocks of EXAMPLES), and
rendered by mandoc -T ascii, for the text a reader sees (escapes resolved,
no overstrikes).  Not a test itself: run.sh runs only tests/cli/*/*.sh.
"""
import os
import re
import subprocess

TOP = os.environ.get("TOP") or os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))
MANDIR = os.path.join(TOP, "share", "man")


def pages():
    """The pages under share/man (*.1, *.5, *.7), sorted."""
    return sorted(os.path.join(MANDIR, f) for f in os.listdir(MANDIR) if re.fullmatch(r"[\w.-]+\.[1-9]", f))


def render(path_or_text, width=1000, text=False):
    """mandoc -T ascii, overstrikes removed; wide enough that no line wraps."""
    args = ["mandoc", "-T", "ascii", "-O", "width=%d" % width]
    if text:
        r = subprocess.run(args, input=path_or_text.encode(), capture_output=True, check=True)
    else:
        r = subprocess.run(args + [path_or_text], capture_output=True, check=True)
    return re.sub(r".\x08", "", r.stdout.decode()).split("\n")


def rendered_section(lines, name):
    """The lines of section NAME of a rendered page, without its heading."""
    out, inside = [], False
    for line in lines:
        if re.fullmatch(r"[A-Z][A-Z ]*", line):
            inside = line == name
            continue
        if inside:
            out.append(line)
    return out


def source_section(path, name):
    """The source lines of section NAME (.Sh NAME up to the next .Sh)."""
    out, inside = [], False
    with open(path) as f:
        for line in f.read().split("\n"):
            if line.startswith(".Sh "):
                inside = line[4:].strip().strip('"') == name
                continue
            if inside:
                out.append(line)
    return out


def literal_blocks(src_lines):
    """The .Bd -literal ... .Ed blocks among src_lines, each as the list of its
    source lines."""
    blocks, cur = [], None
    for line in src_lines:
        if cur is None and re.match(r"\.Bd\s+-literal\b", line):
            cur = []
        elif cur is not None and re.match(r"\.Ed\b", line):
            blocks.append(cur)
            cur = None
        elif cur is not None:
            cur.append(line)
    if cur is not None:
        raise ValueError(".Bd -literal without .Ed")
    return blocks


def render_block(block):
    """A literal block as a reader sees it: rendered by mandoc on its own,
    with the indentation of the section removed."""
    doc = ".Dd January 1, 2000\n.Dt X 1\n.Os\n.Sh X\n.Bd -literal\n" + "\n".join(block) + "\n.Ed\n"
    lines = render(doc, text=True)
    start = lines.index("X") + 1
    while lines and lines[-1] == "":
        lines.pop()
    lines = lines[start:-1]  # the footer is the last line
    while lines and lines[-1] == "":
        lines.pop()
    for line in lines:
        if line and not line.startswith("     "):
            raise ValueError("unexpected rendering of a literal block: %r" % line)
    return [line[5:] for line in lines]


def examples(path):
    """The commands of the EXAMPLES section: a list of blocks, each a list of
    (command, shown output lines).  A command is a line beginning with "$ ",
    with the lines after it when it ends with | or \\; the lines up to the next
    command or the end of the block are its shown output."""
    out = []
    for block in literal_blocks(source_section(path, "EXAMPLES")):
        lines = render_block(block)
        cmds, i = [], 0
        while i < len(lines):
            if not lines[i].startswith("$ "):
                i += 1
                continue
            cmd = [lines[i][2:]]
            while cmd[-1].rstrip().endswith(("|", "\\")) and i + 1 < len(lines):
                i += 1
                cmd.append(lines[i])
            shown = []
            while i + 1 < len(lines) and not lines[i + 1].startswith("$ "):
                i += 1
                shown.append(lines[i])
            cmds.append(("\n".join(cmd), shown))
            i += 1
        out.append(cmds)
    return out


def tools(bindir):
    return sorted(f for f in os.listdir(bindir) if f.startswith("probe-") and os.access(os.path.join(bindir, f), os.X_OK))


def list_options(tool):
    """A tool's --list-options: (options, operand flags).  Each option is a dict
    short (or None), long, arg (or None), choices (list), flags (string), help.
    The format: short TAB long TAB arg TAB choices TAB flags TAB help, "-" for
    none; the last line is "operands" TAB flags."""
    r = subprocess.run([tool, "--list-options"], capture_output=True, check=True)
    opts, operands = [], None
    for line in r.stdout.decode().split("\n"):
        if not line:
            continue
        f = line.split("\t")
        if f[0] == "operands" and len(f) == 2:
            operands = f[1]
            continue
        if len(f) != 6:
            raise ValueError("%s --list-options: bad line %r" % (tool, line))
        opts.append(dict(short=None if f[0] == "-" else f[0], long=f[1], arg=None if f[2] == "-" else f[2],
                         choices=[] if f[3] == "-" else f[3].split("|"), flags=f[4], help=f[5]))
    if operands is None:
        raise ValueError("%s --list-options: no operands line" % tool)
    return opts, operands

