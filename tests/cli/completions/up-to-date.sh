# The committed completions are what completions/gen.sh makes of the option tables
# (`make completions` after changing an option).
cp "$TOP/completions/gen.sh" .
bindir=$(dirname "$(command -v probe-flatten)")
tools=$(cd "$bindir" && ls probe-* | sort)
sh ./gen.sh "$bindir" $tools
for f in probe.bash _probe $(for t in $tools; do echo $t.fish; done); do
	cmp "$f" "$TOP/completions/$f" && echo "$f up to date"
done
