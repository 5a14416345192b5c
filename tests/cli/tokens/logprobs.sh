# A near tie against a real divergence, from the log-probabilities of each run.
# Margin of a run: its log-prob of its own token minus that of the other run's
# token, at the first differing position.  Tie default 0.1 nats.  The values
# are binary fractions so that every margin is exact.  Worked by hand:
#   prompt 0 (near tie): target's token 11 at -0.5, golden's 12 at -0.5625:
#     margin 0.0625; golden: 12 at -0.46875, 11 at -0.5: margin 0.03125;
#     both under 0.1: tie true
#   prompt 1 (real): target's 21 at -0.125, golden's 22 at -2.125: margin 2;
#     golden: 22 at -0.25, 21 at -1.75: margin 1.5: tie false
#   prompt 2 (real, from a bound): the golden's token 32 is not among the
#     target's candidates {31: -0.25, 33: -1.25, 34: -3}: below -3, so the
#     margin is at least -0.25 - -3 = 2.75 (margin null, margin_min 2.75);
#     the golden gives numbers only (its own token: -0.0625): tie false
#   prompt 3 (undecided): the target's numbers only (its own token, -0.75),
#     golden without log-probabilities: no margin, tie null
#   prompt 4 (a bound under the tie decides nothing): 42 not among the
#     target's {41: -1, 43: -1.0625}: at least 0.0625 < 0.1: tie null
# --tie 0.05: prompt 0's target margin 0.0625 is at least 0.05: real.
# --tie 3: prompt 1's margins (2, 1.5) and prompt 2's bound (2.75) are under
# 3; prompt 1 becomes a tie, prompt 2 stays undecided (a bound under the tie).
# --tie 0: every margin >= 0 is real, and prompt 4's bound 0.0625 with them.
cat > target.ndjson <<'J'
{"ids":[10,11],"logprobs":[-0.25,{"11":-0.5,"12":-0.5625}]}
{"ids":[20,21],"logprobs":[{"20":-0.125},{"21":-0.125,"22":-2.125}]}
{"ids":[30,31],"logprobs":[null,{"31":-0.25,"33":-1.25,"34":-3}]}
{"ids":[40],"logprobs":[-0.75]}
{"ids":[41],"logprobs":[{"41":-1,"43":-1.0625}]}
J
cat > golden.ndjson <<'J'
{"ids":[10,12],"logprobs":[-0.25,{"12":-0.46875,"11":-0.5}]}
{"ids":[20,22],"logprobs":[{"20":-0.125},{"22":-0.25,"21":-1.75}]}
{"ids":[30,32],"logprobs":[-0.125,-0.0625]}
{"ids":[44]}
{"ids":[42]}
J
probe-tokens target.ndjson golden.ndjson; echo "status $?"
# the report's lines for the undecided ones: some log-probabilities, not enough
probe-tokens --format text target.ndjson golden.ndjson | grep -A3 '^prompt [34],'
for tie in 0.05 3 0; do
	echo "--tie $tie:"
	probe-tokens --tie $tie target.ndjson golden.ndjson | jq -c 'if .summary then .summary | {real, ties, undecided, tie} else [.prompt, .tie] end'
done
# a run that did not take its most likely token (sampling, a penalty): the
# target's 51 at -0.75 below the golden's 52 at -0.5 in its own run: margin
# -0.25, a warning; under the tie, so a near tie
printf '{"ids":[51],"logprobs":[{"51":-0.75,"52":-0.5}]}\n' > sampled.ndjson
printf '[52]\n' > greedy.ndjson
probe-tokens sampled.ndjson greedy.ndjson | jq -c 'select(.prompt == 0) | {tie, margin: .t.margin}'
