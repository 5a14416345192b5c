# Every command of the EXAMPLES section of every page runs, and prints what the
# page shows.
#
# The commands are the lines beginning with "$ " inside the .Bd -literal blocks
# of EXAMPLES (probe(7)'s worked session included), as mandoc renders them, with
# the lines that follow when a line ends with | or \.  Each page's commands run
# in order (a later one reads what an earlier one wrote: the pages generate
# their dumps with probe-gendump first) in a fresh directory of their own, with
# sh -c, the tools under test first in PATH and stdin from /dev/null.
#
# A command passes when its exit status is 0, or 1 (the tools' "a difference was
# found"), and:
#   - when the page shows output lines after it: what it prints on stdout and
#     stderr together equals them exactly, line for line, the whole output (a
#     page that wants to show part of a long output says so with | head);
#     tabs are expanded to every 8th column and trailing blanks ignored, as a
#     terminal and the rendered page show them;
#   - when the page shows none: it prints nothing on stderr (its stdout is not
#     compared).
# A command that names ../shared/fixtures is skipped, with a note, when they are
# absent (none does today).
# One line per page: commands run, passed, and how many of those had their
# output compared; then the failures, each with its command and a diff.
command -v mandoc > /dev/null || { echo "mandoc is not installed (make deps)"; exit 77; }
command -v jq > /dev/null || { echo "jq is not installed (make deps)"; exit 77; }
exec python3 - "$TESTS/cli/man" <<'EOF'
import difflib, os, subprocess, sys
sys.path.insert(0, sys.argv[1])
import manpage

fixtures = os.environ.get("FIXTURES", "")
have_fixtures = bool(fixtures) and os.path.isdir(fixtures)
failed = 0
total = 0
for n, page in enumerate(manpage.pages()):
    name = os.path.basename(page)
    work = os.path.abspath("page%d" % n)
    os.mkdir(work)
    ran = passed = compared = skipped = 0
    problems = []
    for block in manpage.examples(page):
        for cmd, shown in block:
            if "fixtures" in cmd and not have_fixtures:
                skipped += 1
                problems.append("  note: skipped, ../shared/fixtures absent: $ " + cmd)
                continue
            ran += 1
            # Shown output is compared with stdout and stderr as they interleave on
            # a terminal; with none shown, stderr is kept apart and must be empty.
            try:
                r = subprocess.run(["sh", "-c", cmd], cwd=work, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT if shown else subprocess.PIPE, timeout=300)
                out, status = r.stdout.decode(errors="replace"), r.returncode
                err = "" if shown else r.stderr.decode(errors="replace")
            except subprocess.TimeoutExpired:
                out, err, status = "", "(timed out after 300 s)\n", -1
            got = [l.expandtabs(8).rstrip() for l in out.split("\n")]
            if got and got[-1] == "":
                got.pop()
            want = [l.rstrip() for l in shown]
            why = []
            if status not in (0, 1):
                why.append("exit status %d" % status)
            if shown and got != want:
                why.append("output differs from the page")
            if err:
                why.append("it wrote on stderr")
            if not why:
                passed += 1
                compared += bool(shown)
            else:
                problems.append("  FAIL: %s:\n    $ %s" % (", ".join(why), cmd.replace("\n", "\n    ")))
                if shown and got != want:
                    for d in list(difflib.unified_diff(want, got, "page", "output", lineterm="", n=1))[:20]:
                        problems.append("    " + d)
                problems.extend("    stderr: " + l for l in err.split("\n")[:10] if l)
    total += ran
    failed += ran - passed
    note = ", %d skipped" % skipped if skipped else ""
    print("%s: %d commands ran, %d passed, %d of them with their output compared%s" % (name, ran, passed, compared, note))
    for p in problems:
        print(p)
if total == 0:
    print("no example command found: the extraction is broken")
    sys.exit(1)
sys.exit(1 if failed else 0)
EOF
