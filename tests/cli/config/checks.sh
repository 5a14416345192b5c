# Each check, one difference at a time (probe-gendump --framework config-check --fault KIND):
# the checks that differ, and the findings' items, by hand from genpack.h's differences:
#   env      CUDA_LAUNCH_BLOCKING 0 -> 1: env error; nothing else
#   pip      numpy 1.24.2 -> 1.26.4: pip error
#   lr       0.01 -> 0.02: hyperparameter lr; the weights equal at step 0 (before any update),
#            all four differ at steps 1 and 2 (an update with another rate)
#   seed     hyperparameter seed 1234 -> 4321 only: the weights and data do not follow it, and
#            random agrees (msprobe's pack records no seed value)
#   dataset  every step's input differs; the weights from step 1 (trained on other batches)
#   weight   fc2.bias at every step, from step 0; the other weights from step 1 (its gradient
#            flows into them)
#   random   torch.randn at line 75 called twice in cmp: one random finding, count 1 -> 2
#   none     nothing differs but MASTER_PORT, which is not counted: exit 0
# MASTER_PORT (29500 -> 29501) is reported in every pair at level info, never counted.
for kind in env pip lr seed dataset weight random none; do
	probe-gendump --framework config-check --fault $kind p$kind || exit
	probe-config p$kind/bench.zip p$kind/cmp.zip > $kind.rec
	echo "== $kind: status $?"
	jq -r 'select(.summary) | .summary.checks | to_entries[] | select(.value.level != "pass") | "\(.key) \(.value.level) \(.value.differ)"' $kind.rec
	jq -r 'select(.check) | [.check, .finding, .level, (.step // "-"), .item] | @tsv' $kind.rec
done
