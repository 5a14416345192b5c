# Bad input: a message naming the file, the line and the column, exit status
# 2, nothing on stdout (no record that could pass for a result), whichever
# file it is in and wherever in it.  Then bad command lines.
printf '[1,2]\n[3,4]\n[5]\n' > good.ndjson
t() { # label, then the bad file's content (printf format)
	label=$1
	shift
	printf "$@" > bad.ndjson
	probe-tokens bad.ndjson good.ndjson > out; s=$?
	printf '%-18s status %s, %s bytes out\n' "$label" $s "$(wc -c < out)"
}
t "not JSON" '[1,2]\n[3,x]\n[5]\n'
t "cut short" '[1,2]\n[3,4]\n[5'
t "negative id" '[1,2]\n[3,-4]\n[5]\n'
t "fraction" '[1,2]\n[3,4.5]\n[5]\n'
t "string id" '[1,"2"]\n[3,4]\n[5]\n'
t "huge id" '[1,99999999999999999999]\n[3,4]\n[5]\n'
t "a number" '[1,2]\n7\n[5]\n'
t "no ids" '[1,2]\n{"text":"x"}\n[5]\n'
t "ids twice" '[1,2]\n{"ids":[3],"token_ids":[3]}\n[5]\n'
t "short logprobs" '[1,2]\n{"ids":[3,4],"logprobs":[-1]}\n[5]\n'
t "probabilities" '[1,2]\n{"ids":[3,4],"logprobs":[0.9,0.8]}\n[5]\n'
t "NaN" '[1,2]\n{"ids":[3,4],"logprobs":[NaN,-1]}\n[5]\n'
t "bad key" '[1,2]\n{"ids":[3,4],"logprobs":[{"a":-1},-1]}\n[5]\n'
t "no logprob" '[1,2]\n{"ids":[3,4],"logprobs":[{"3":{"rank":1}},-1]}\n[5]\n'
t "binary" '[1,2]\n[3,\377]\n[5]\n'
t "a BOM" '\357\273\277[1,2]\n[3,4]\n[5]\n'
# the golden's error, on its last line
printf '[1,2]\n[3,4]\n[5,]\n' > bad-golden.ndjson
probe-tokens good.ndjson bad-golden.ndjson > out; echo "golden: status $?, $(wc -c < out) bytes out"
probe-tokens missing.ndjson good.ndjson; echo "status $?"
probe-tokens good.ndjson; echo "status $?"
probe-tokens good.ndjson good.ndjson good.ndjson; echo "status $?"
probe-tokens - - < good.ndjson; echo "status $?"
probe-tokens --tie -1 good.ndjson good.ndjson; echo "status $?"
probe-tokens --tie nan good.ndjson good.ndjson; echo "status $?"
probe-tokens --prefill-step x good.ndjson good.ndjson; echo "status $?"
probe-tokens --format csv good.ndjson good.ndjson; echo "status $?"
