# The committed completions are what completions/gen.sh makes of the option tables
# (run `completions/gen.sh build/bin <tools>` after changing an option).
cp "$TOP/completions/gen.sh" .
bindir=$(dirname "$(command -v probe-flatten)")
sh ./gen.sh "$bindir" probe-flatten
for f in probe.bash _probe probe-flatten.fish; do
	cmp "$f" "$TOP/completions/$f" && echo "$f up to date"
done
