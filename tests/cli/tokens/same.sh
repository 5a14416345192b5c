# Two runs that generated the same ids for every prompt: a "same" record per
# prompt (position, step and tie null; each side's line and length, no id),
# the summary with answer "same" and first null, exit status 0; the report
# says so in one line: 3 prompts, 3 + 1 + 0 = 4 tokens.  A prompt with no
# tokens in both runs is the same too.
printf '[1,2,3]\n[4]\n[]\n' > target.ndjson
cp target.ndjson golden.ndjson
probe-tokens target.ndjson golden.ndjson; echo "status $?"
probe-tokens --format text target.ndjson golden.ndjson; echo "status $?"
