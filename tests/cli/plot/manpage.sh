# probe-plot(1) as mandoc renders it: no word made an option by mistake (an
# .Fl line that runs on into the sentence once rendered "(use --range -to
# -see -them)"): probe-plot's only short options are -o and -h, so a single
# dash before two letters or more is such a word.
command -v mandoc > /dev/null || { echo "mandoc is not installed (make deps)"; exit 77; }
mandoc -T utf8 "$TESTS/../share/man/probe-plot.1" 2> /dev/null | col -b > page.txt
grep -o '(use --range to see them)' page.txt
echo "words made options: $(grep -cE '(^|[^-[:alnum:]])-[a-z]{2,}' page.txt)"
grep -oE '(^|[^-[:alnum:]])-[a-z]{2,}' page.txt | sort -u
