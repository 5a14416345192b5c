# Each tool's option table (its hidden --list-options) and its man page's
# OPTIONS list name the same options, with the same argument names.
#
# --list-options prints one line per option, short TAB long TAB arg TAB choices
# TAB flags TAB help ("-" for none; flag "o": the argument is optional), then
# "operands" TAB flags.  It lists -h/--help and --version, which every tool has
# without declaring them (lib/core/opt.h); the pages list them too, so they are
# checked like any other option.
#
# On the page, the entries are the .It lines of the first-level list of
# OPTIONS; each is read as mdoc: "Fl x" is -x, "Fl -long" is --long, "Ar NAME"
# the argument of the option before it, "Op = Ns Ar NAME" an optional one
# (--opt[=NAME]); several options may share an entry, separated by commas.
# Checked, for every tool beside probe-flatten in PATH:
#   - every option of the table is on the page, its short and long names in one
#     entry, with the table's argument name, optional where the table says so;
#   - every option on the page is in the table;
#   - each fixed value of an option (its choices) is named on the page in its
#     entry, with Cm;
#   - each option but -h/--help and --version is in the SYNOPSIS.
# One line per tool, with the counts.
command -v mandoc > /dev/null || { echo "mandoc is not installed (make deps)"; exit 77; }
bindir=$(dirname "$(command -v probe-flatten)")
exec python3 - "$TESTS/cli/man" "$bindir" <<'EOF'
import os, re, shlex, sys
sys.path.insert(0, sys.argv[1])
import manpage

bindir = sys.argv[2]
bad = 0


def page_entries(page):
    """The first-level .It entries of OPTIONS: a list of (options, body), where
    options is a list of dicts name, arg, optional and body the source lines
    up to the next entry."""
    entries, depth = [], 0
    for line in manpage.source_section(page, "OPTIONS"):
        if re.match(r"\.Bl\b", line):
            depth += 1
            continue
        if re.match(r"\.El\b", line):
            depth -= 1
            continue
        if depth == 1 and re.match(r"\.It\b", line):
            toks = shlex.split(line[3:], posix=True)
            opts, cur, optional, i = [], None, False, 0
            while i < len(toks):
                t = toks[i]
                if t == "Fl" and i + 1 < len(toks):
                    i += 1
                    n = toks[i]
                    if n.startswith("-"):
                        n = "-" + n
                    elif len(n) == 1:
                        n = "-" + n
                    else:
                        raise ValueError("%s: entry %r: Fl %s is neither -x nor --long" % (page, line, n))
                    cur = dict(name=n, arg=None, optional=False)
                    opts.append(cur)
                    optional = False
                elif t == "Ar" and i + 1 < len(toks) and cur is not None:
                    i += 1
                    cur["arg"], cur["optional"] = toks[i], optional
                elif t == "Op":
                    optional = True
                elif t in ("Ns", "=", ","):
                    pass
                else:
                    raise ValueError("%s: entry %r: cannot read %r" % (page, line, t))
                i += 1
            if not opts:
                raise ValueError("%s: entry %r names no option" % (page, line))
            entries.append((opts, []))
        elif depth >= 1 and entries:
            entries[-1][1].append(line)
    return entries


def cm_words(lines):
    words = set()
    for line in lines:
        if line.startswith("."):
            toks = line[1:].split()
            for i, t in enumerate(toks[:-1]):
                if t == "Cm":
                    words.add(toks[i + 1])
    return words


for t in manpage.tools(bindir):
    page = os.path.join(manpage.MANDIR, t + ".1")
    if not os.path.exists(page):
        print("%s: no man page share/man/%s.1" % (t, t))
        bad += 1
        continue
    table, _ = manpage.list_options(os.path.join(bindir, t))
    entries = page_entries(page)
    on_page = {}  # name -> (option dict, entry index)
    problems = []
    for k, (opts, _) in enumerate(entries):
        for o in opts:
            if o["name"] in on_page:
                problems.append("%s is listed twice" % o["name"])
            on_page[o["name"]] = (o, k)
    synopsis = " ".join(manpage.rendered_section(manpage.render(page), "SYNOPSIS"))
    syn_words = set(re.findall(r"--?[\w-]+", synopsis))
    syn_shorts = set()
    for w in syn_words:
        if re.fullmatch(r"-\w+", w):
            syn_shorts.update(w[1:])
    names = set()
    for o in table:
        mine = (["-" + o["short"]] if o["short"] else []) + ["--" + o["long"]]
        names.update(mine)
        optional = "o" in o["flags"]
        for n in mine:
            if n not in on_page:
                problems.append("%s is in the table, not on the page" % n)
                continue
            p = on_page[n][0]
            if p["arg"] != o["arg"] or (o["arg"] and p["optional"] != optional):
                def show(arg, opt):
                    return "no argument" if arg is None else ("[=%s]" if opt else "%s") % arg
                problems.append("%s takes %s in the table, %s on the page" % (n, show(o["arg"], optional), show(p["arg"], p["optional"])))
        if o["short"] and all(n in on_page for n in mine) and on_page[mine[0]][1] != on_page[mine[1]][1]:
            problems.append("-%s and --%s are in different entries" % (o["short"], o["long"]))
        if o["choices"] and mine[-1] in on_page:
            missing = [c for c in o["choices"] if c not in cm_words(entries[on_page[mine[-1]][1]][1])]
            if missing:
                problems.append("%s: the page does not name %s (Cm)" % (mine[-1], ", ".join(missing)))
        if o["long"] not in ("help", "version"):
            if "--" + o["long"] not in syn_words and not (o["short"] and o["short"] in syn_shorts):
                problems.append("%s is not in the SYNOPSIS" % mine[-1])
    for n in sorted(set(on_page) - names):
        problems.append("%s is on the page, not in the table" % n)
    if not table or not entries:
        problems.append("nothing to compare: %d options in the table, %d entries on the page" % (len(table), len(entries)))
    if problems:
        bad += 1
        print("%s: options differ" % t)
        for p in problems:
            print("  " + p)
    else:
        nchoices = sum(len(o["choices"]) for o in table)
        print("%s: options agree (%d options, %d names, %d fixed values, in %d entries)" % (t, len(table), len(names), nchoices, len(entries)))
sys.exit(1 if bad else 0)
EOF
