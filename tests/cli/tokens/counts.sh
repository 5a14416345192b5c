# Prompts are paired by position: unequal counts are an error naming both
# files and both counts, exit status 2, nothing on stdout, whichever is
# longer, even when the prompts they share agree.
printf '[1]\n[2]\n[3]\n' > target.ndjson
printf '[1]\n[2]\n' > golden.ndjson
probe-tokens target.ndjson golden.ndjson; echo "status $?"
probe-tokens golden.ndjson target.ndjson; echo "status $?"
printf '[[1],[2]]\n' > one-document.json
printf '[1]\n' > one.ndjson
probe-tokens one-document.json one.ndjson; echo "status $?"
