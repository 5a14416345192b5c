# --format text: the summary first (how many prompts differ, the earliest
# first difference, real divergences, near ties and those without
# log-probabilities, those that end early), then the prompts that differ,
# most relevant first: real divergences, then undecided, then "ends", then
# near ties; each group by position, then prompt.  Worked by hand:
#   prompt 0: same
#   prompt 1: near tie at 1 (margins 0.0625 and 0.03125)
#   prompt 2: real at 3 (margin 1.5 in the target run)
#   prompt 3: undecided at 2 (no log-probabilities)
#   prompt 4: ends at 1 (target longer: it goes on with 8)
#   prompt 5: real at 0 (the golden's token not among the target's
#             candidates {60: -0.25, 61: -2.25}: margin at least 2)
# The order: prompt 5 (real, 0), 2 (real, 3), 3 (undecided), 4 (ends), 1 (tie).
# The earliest: prompt 5 at token 0, step 0.  Exit status 1.
cat > target.ndjson <<'J'
[1,2,3]
{"ids":[1,11],"logprobs":[-0.25,{"11":-0.5,"12":-0.5625}]}
{"ids":[1,2,3,21],"logprobs":[-0.25,-0.25,-0.25,{"21":-0.25,"22":-1.75}]}
[1,2,31]
[7,8]
{"ids":[60],"logprobs":[{"60":-0.25,"61":-2.25}]}
J
cat > golden.ndjson <<'J'
[1,2,3]
{"ids":[1,12],"logprobs":[-0.25,{"12":-0.46875,"11":-0.5}]}
[1,2,3,22]
[1,2,32]
[7]
[62]
J
probe-tokens --format text target.ndjson golden.ndjson; echo "status $?"
# --prefill-step: the dump's step numbers started at 5 (the step of the prefill)
probe-tokens --format text --prefill-step 5 target.ndjson golden.ndjson | sed -n '1p;/^prompt 2/p'
probe-tokens --prefill-step 5 target.ndjson golden.ndjson | jq -c 'select(.prompt == 2) | {position, step}, (.summary // empty | .first)'
