# Every case of tests/data/compare: probe-flatten | probe-match | probe-metric --csv against
# the CSV of the independent Python oracle (tests/oracle/msprobe_compare.py, written from the
# reference, not from our code).  Cases listed in tests/data/compare/known-differences must
# differ, for the reason given there; every other case must be the same byte for byte.
# long: started first in make check (about 2 s plain, 15 s under ASan)
known="$TESTS/data/compare/known-differences"
for d in "$TESTS"/data/compare/*/; do
	c=$(basename "$d")
	[ -f "$d/expected.csv" ] || continue
	mkdir -p "$c"
	cp -r "$d/target" "$d/golden" "$c/"
	probe-flatten -q "$c/target" 2>/dev/null | probe-match "$c/golden" 2>/dev/null | probe-metric --csv > "$c/out.csv" 2> "$c/err"
	reason=$(awk -F'\t' -v c="$c" '$1 == c { print $2 }' "$known")
	if head -1 "$d/expected.csv" | grep -q '^ABORT' && [ ! -s "$c/out.csv" ]; then
		# msprobe's message, but for the path of the file it would have written (the oracle's is made up)
		want=$(sed -n '1s/^ABORT: //p' "$d/expected.csv" | sed 's/\(not allowed to be written into the csv: \).*/\1/')
		if grep -qF -- "$want" "$c/err"; then
			echo "$c: stops, as msprobe does, with its message"
		else
			echo "$c: stops, as msprobe does, but with another message: $(cat "$c/err")"
		fi
	elif cmp -s "$c/out.csv" "$d/expected.csv"; then
		if [ -n "$reason" ]; then echo "$c: SAME, but listed as a known difference"; else echo "$c: same as the oracle"; fi
	elif [ -n "$reason" ]; then
		echo "$c: differs, as documented"
	else
		echo "$c: DIFFERS from the oracle"
		diff "$d/expected.csv" "$c/out.csv" | head -8 | cut -c1-240
	fi
done
