# One run stops earlier (EOS, a stop string or max_tokens) while the ids agree
# up to there: a divergence at the shorter length, "ends", the run that ended
# has id null there.  Worked by hand:
#   prompt 0: target [1,2] golden [1,2,3,4]: ends at 2, target id null,
#             golden id 3, lengths 2 and 4
#   prompt 1: target [1,2,3] golden [1]: ends at 1, target id 2, golden null
#   prompt 2: target [] golden [9]: ends at 0 (the target generated nothing)
# With log-probabilities, the run that went on has its own token's (-0.5 for
# prompt 1's token 2); nothing to compare it with: tie null, never counted
# as real, tie or undecided.  A stop token kept in the ids differs from the
# other run's token at that position instead: prompt 3, where the target
# generated EOS (id 2) at position 1 and the golden went on with 7.
printf '[1,2]\n{"ids":[1,2,3],"logprobs":[-0.25,-0.5,-0.125]}\n[]\n[4,2]\n' > target.ndjson
printf '[1,2,3,4]\n[1]\n[9]\n[4,7,8]\n' > golden.ndjson
probe-tokens target.ndjson golden.ndjson | jq -c 'select(.prompt != null) | {prompt, status, position, tie, t: [.t.id, .t.length, .t.logprob], g: [.g.id, .g.length]}'
probe-tokens target.ndjson golden.ndjson > out; echo "status $?"
jq -c 'select(.summary) | .summary' out
probe-tokens --format text target.ndjson golden.ndjson; echo "status $?"
