# -v prints the pipeline, as a shell line, on stderr before it runs; msprobe's spellings (short,
# long, with = or the next word, an optional value there or not) give the same pipeline as
# probe-compare's long options.  Each command line prints its first stderr line; each group of
# spellings must agree.
# sanitizers: skip, it compares the command lines probe-compare prints, one process per spelling
probe-gendump --layers 2 d > /dev/null
printf 'a: b\n' > map.yaml
T=d/target/step0 G=d/golden/step0
line() { probe-compare -v "$@" -o out > /dev/null 2> err; sed -n 1p err; rm -rf out; }
group() { # a title, then command lines separated by ::
	title=$1
	shift
	first= all=
	for w in "$@"; do
		if [ "$w" = :: ]; then
			l=$(line $all)
			if [ -z "$first" ]; then first=$l; echo "== $title"; echo "$l";
			elif [ "$l" = "$first" ]; then echo "  same: $all"; else echo "  DIFFERENT: $all: $l"; fi
			all=
		else
			all="$all $w"
		fi
	done
}
group "paths" --tp $T --gp $G :: -tp $T -gp $G :: --target_path=$T --golden_path=$G :: --target_path $T --golden_path $G :: -tp=$T -gp=$G ::
group "fuzzy" --tp $T --gp $G --fm :: -tp $T -gp $G -fm :: -tp $T -gp $G --fuzzy_match ::
group "data mapping" --tp $T --gp $G --dm map.yaml :: -tp $T -gp $G -dm map.yaml :: -tp $T -gp $G --data_mapping=map.yaml :: -tp $T -gp $G --data_mapping map.yaml ::
group "cell mapping, no file" --tp $T --gp $G --cm --fm :: -tp $T -gp $G -cm -fm :: -tp $T -gp $G --cell_mapping -fm ::
group "cell mapping, a file" --tp $T --gp $G --cm=map.yaml :: -tp $T -gp $G -cm map.yaml :: -tp $T -gp $G --cell_mapping=map.yaml :: -tp $T -gp $G -cm=map.yaml ::
group "api and layer mapping" --tp $T --gp $G --am --lm=map.yaml :: -tp $T -gp $G -am -lm map.yaml :: -tp $T -gp $G --api_mapping --layer_mapping map.yaml ::
group "xlsx" --tp $T --gp $G --xlsx :: -tp $T -gp $G --xlsx ::
group "-da drops the match options" --tp $T --gp $G --da :: -tp $T -gp $G -da -fm -cm map.yaml :: -tp $T -gp $G --diff_analyze --xlsx ::
echo "== the output folder"
probe-compare -v -tp $T -gp $G --output_path=there 2>&1 > /dev/null | sed -n 1p
probe-compare -v -tp $T -gp $G 2>&1 > /dev/null | sed -n 1p
probe-compare -v -tp $T -gp $G -o 'a b' 2>&1 > /dev/null | sed -n 1p
ls -d there output 'a b'
