# The first position where the ids differ, the two ids there, the lengths,
# the step that produced it (step k produced token k: step 0 the prefill).
# Worked by hand:
#   prompt 0: [5,6,7,8] against [5,6,9,8]: differs at 2 (7 against 9), step 2;
#             the later position 3 agrees again and does not matter
#   prompt 1: [1] against [2]: differs at 0, step 0 (the prefill's token)
#   prompt 2: [3,3,3] against [3,3,3,4,5]: the same as far as the target
#             goes, then it stops: "ends" at 3 (golden's 4), step 3
# No log-probabilities: tie null, "undecided" counted (2: prompts 0 and 1).
# The earliest first difference: prompt 1, position 0.  Exit status 1.
printf '[5,6,7,8]\n[1]\n[3,3,3]\n' > target.ndjson
printf '[5,6,9,8]\n[2]\n[3,3,3,4,5]\n' > golden.ndjson
probe-tokens target.ndjson golden.ndjson; echo "status $?"
# one line per prompt for a quick look
probe-tokens target.ndjson golden.ndjson | jq -c 'select(.prompt != null) | [.prompt, .status, .position, .step, .t.id, .g.id]'
