# -o DIR: the folder is made (parents too) and the picture written there as
# plot_<ts>.svg, or plot_<ts>.html with --format html, the stamp the local time
# as 14 digits. A name that reads as one file (-o x.svg, -o x.png, the habit of
# the old -o FILE) is refused (exit 2, naming --output-file, nothing made);
# -o with --output-file is refused.
probe-gendump d > /dev/null
probe-flatten d/target | probe-match d/golden | probe-metric > m.ndjson
names() { (cd "$1" && ls | sed 's/_[0-9]\{14\}\./_<ts>./'); }
probe-plot -o plots/run1 m.ndjson; echo "-o plots/run1: status $?: $(names plots/run1)"
probe-plot -o page --format html m.ndjson; echo "--format html: status $?: $(names page)"
head -c 5 plots/run1/*.svg; echo; head -c 15 page/*.html; echo
for f in x.svg x.png X.HTML; do
	probe-plot -o "$f" m.ndjson; echo "-o $f: status $?"
	ls -d "$f" 2> /dev/null
done
probe-plot -o p --output-file x.svg m.ndjson; echo "-o and --output-file: status $?"
ls -d p x.svg 2> /dev/null
exit 0
