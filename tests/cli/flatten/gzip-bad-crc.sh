# A .json.gz whose CRC is wrong: the records come out, then the error at
# the end of the text, where gzip found it (found by tests/fuzz/fuzz_dump.c:
# the position used to depend on how much was inflated at once, 1:1 here).
cp "$TESTS/data/kinds.json" dump.json
gzip -n -c dump.json > dump.json.gz
size=$(wc -c < dump.json.gz)
printf '\125' | dd of=dump.json.gz bs=1 seek=$((size - 8)) conv=notrunc 2> /dev/null
probe-flatten dump.json.gz > out; echo "status $?"
wc -l < dump.json
grep -vc '"error"' out
tail -n 1 out
