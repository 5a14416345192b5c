# -o FILE: the format from the suffix, .svg or .html/.htm, any case; a name
# without a suffix gets SVG (or --format's); any other suffix (.png, .pdf,
# .svgz) is refused with exit 2, the message naming the formats there are,
# and no file is written (probe-plot once wrote SVG into x.png and exited 0).
# --help names them too.
probe-gendump d > /dev/null
probe-flatten d/target | probe-match d/golden | probe-metric > m.ndjson
kind() { head -c 60 "$1" | tr '\n' ' ' | sed 's/^\(<[^ >]*\).*/\1/'; }
for f in p.svg P.SVG p.html p.HTM picture dir.v2/picture; do
	mkdir -p dir.v2
	probe-plot --output-file "$f" m.ndjson; echo "--output-file $f: status $?, $(kind "$f")"
done
probe-plot --format html --output-file picture2 m.ndjson; echo "--format html --output-file picture2: status $?, $(kind picture2)"
for f in x.png x.pdf x.svgz x.html.png; do
	probe-plot --output-file "$f" m.ndjson 2> err.txt; echo "--output-file $f: status $?"; head -n 1 err.txt
	ls "$f"* 2> /dev/null
done
probe-plot --format svg --output-file x.png m.ndjson > /dev/null 2>&1; echo "--format svg --output-file x.png: status $?"
probe-plot --help | grep -e '^ *-o, --output' -e '^ *--format'
