# Pairs are prepared by worker threads in batches; the output must not depend
# on how many, and an error must name the line it is about, however far
# the workers have read ahead.
probe-gendump --ranks 1 --micro-batches 10 --layers 12 --fault fc2-weight d > /dev/null
probe-gendump --mode md5 --layers 12 --micro-batches 4 m > /dev/null
probe-flatten d/target | probe-match d/golden > pairs.ndjson
probe-flatten m/target | probe-match m/golden > md5.ndjson
echo "pairs: $(wc -l < pairs.ndjson)"
for j in 1 2 5; do
	probe-metric -j $j pairs.ndjson > n$j.ndjson
	probe-metric -j $j --csv pairs.ndjson > c$j.csv
	probe-metric -j $j --csv md5.ndjson > m$j.csv
done
for f in n c m; do
	ext=csv; [ $f = n ] && ext=ndjson
	if cmp -s $f'1.'$ext $f'2.'$ext && cmp -s $f'1.'$ext $f'5.'$ext; then echo "$f: -j 1, 2 and 5 agree"; else echo "$f: DIFFER"; fi
done
# tensor mode: pairs are whole files of work, helpers take them one each
probe-gendump --mode tensor --layers 6 --micro-batches 2 --fault fc2-weight tz > /dev/null
probe-flatten tz/target | probe-match tz/golden > tensor.ndjson
for j in 1 2 5; do
	probe-metric -j $j tensor.ndjson > t$j.ndjson
	probe-metric -j $j --csv tensor.ndjson > tc$j.csv
done
for f in t tc; do
	ext=csv; [ $f = t ] && ext=ndjson
	if cmp -s $f'1.'$ext $f'2.'$ext && cmp -s $f'1.'$ext $f'5.'$ext; then echo "$f: -j 1, 2 and 5 agree"; else echo "$f: DIFFER"; fi
done
echo "tensor pairs that differ: $(grep -c '"verdict":"diff"' t1.ndjson)"
# line 1500 broken: the records before it go out, the error names line 1500
awk 'NR == 1500 { print "{\"key\":\"x\",\"t\":{\"oops\"" ; next } { print }' pairs.ndjson > bad.ndjson
probe-metric -j 3 bad.ndjson > out.ndjson; echo "status $?"
grep -c '"verdict"' out.ndjson
tail -n 1 out.ndjson
probe-metric -j 1 --jobs 0 pairs.ndjson; echo "status $?"
