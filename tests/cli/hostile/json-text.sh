# Invalid UTF-8, bad escapes, duplicate keys, a 0-byte dump.json and other bytes
# that are not JSON: each refused with file:line:column, exit status 2 and a final
# {"error": ...} record; escaped NUL characters are data and are kept.
try() { # label printf-format
	printf "$2" > dump.json
	probe-flatten dump.json > out 2> err
	echo "$1: status $?, last record $(tail -1 out | cut -c1-9); $(cat err)"
}
P='{"task":"statistics","data":{"Functional.linear.0.forward":{"output":[{"type":"str","value":"'
S='"}]}}}\n'
try "0-byte dump.json" ''
try "only blanks" '  \n\n '
try "a stray continuation byte" "${P}a\\200b${S}"
try "an overlong encoding" "${P}\\300\\257${S}"
try "an encoded surrogate" "${P}\\355\\240\\200${S}"
try "beyond U+10FFFF" "${P}\\364\\220\\200\\200${S}"
try "UTF-8 cut by the quote" "${P}\\344\\270${S}"
try "invalid UTF-8 in a key" '{"task":"statistics","data":{"Functional.lin\377ear.0.forward":{"output":[{"type":"int","value":1}]}}}\n'
try "Latin-1 outside strings" '{"task":"statistics",\351"data":{}}\n'
try "an unknown escape" "${P}a\\\\qb${S}"
try "a short \\\\u escape" "${P}\\\\u12${S}"
try "a \\\\u escape with non-hex" "${P}\\\\u12zz${S}"
try "a lone high surrogate" "${P}\\\\ud800${S}"
try "a lone low surrogate" "${P}\\\\udc00x${S}"
try "a raw tab in a string" "${P}a\\tb${S}"
try "a raw NUL byte" '{"task":"statistics",\000"data":{}}\n'
try "a byte order mark" '\357\273\277{"task":"statistics","data":{}}\n'
try "a duplicate key in a leaf" '{"task":"statistics","data":{"Functional.linear.0.forward":{"output":[{"type":"int","type":"str","value":1}]}}}\n'
try "a duplicate \"data\"" '{"task":"statistics","data":{},"data":{}}\n'
try "a duplicate input_args" '{"task":"statistics","data":{"Functional.linear.0.forward":{"input_args":[],"input_args":[{"type":"int","value":1}]}}}\n'
try "a duplicate entry" '{"task":"statistics","data":{"Functional.linear.0.forward":{"output":[{"type":"int","value":1}]},"Functional.linear.0.forward":{}}}\n'
try "two dumps in one file" '{"task":"statistics","data":{}}{"task":"statistics","data":{}}\n'
try "text after the dump" '{"task":"statistics","data":{"Functional.linear.0.forward":{"output":[{"type":"int","value":1}]}}} x\n'
# escaped NUL: data, kept as an escape
printf '%s' '{"task":"statistics","data":{"Functional.linear.0.forward":{"output":[{"type":"str","value":"a\u0000b","a\u0000k":1}]}}}' > dump.json
probe-flatten dump.json | jq -c '{value, attrs}'
# the same bytes through the record readers
for t in "probe-match dump.json" probe-metric probe-first probe-stack probe-table; do
	printf '{"key":"x","t":"\377"}\n' | $t > out 2> err
	echo "$t: status $?; $(cat err)"
done
