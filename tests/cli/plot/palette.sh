# The colours of the ranks in lib/plot/plot.c are the table
# share/build/plotpalette.py makes (each next colour the farthest from
# those before it): nobody edits one without the other.
top=$(cd "$TESTS/.." && pwd)
sed -n '/^const char \*const plot_palette\[PLOT_NPALETTE\] = {$/,/^};$/p' "$top/lib/plot/plot.c" > table.c
python3 "$top/share/build/plotpalette.py" > made.c
if cmp -s table.c made.c; then
	echo "plot.c holds the table plotpalette.py makes: $(grep -o '"#[0-9a-f]*"' made.c | sort -u | wc -l) distinct colours"
else
	echo "plot.c's palette is not plotpalette.py's:"; diff table.c made.c
fi
