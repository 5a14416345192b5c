# msprobe's checkpoint compare (config_check -c CKPT1 CKPT2) on fixture ck01: two Megatron
# checkpoints, tensor parallel 2, tracker at iteration 10.  probe-ckpt --msprobe-json writes
# msprobe's ckpt_similarity.json byte for byte (its 17 names, in its order, every number to the
# last digit); our records say which parameters differ (the two msprobe's numbers show) and
# that all the others are the same bytes; the iteration folder named directly gives the same;
# and probe-flatten | probe-match | probe-metric | probe-first finds a differing parameter.
set -u
n=0
C=$FIXTURES/precheck/ckpts
E=$FIXTURES/precheck/expected/ck01_tp2_latest/ckpt_similarity.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; }
if [ ! -f "$E" ]; then
	for c in "ckpt_similarity.json" "the iteration folder" "our verdict" "probe-first"; do
		n=$((n + 1))
		echo "ok $n - ck01: $c # SKIP $FIXTURES is absent"
	done
	exit 0
fi

probe-ckpt --msprobe-json "$tmp/sim.json" "$C/tp2_A" "$C/tp2_B" > "$tmp/records"
status=$?
if cmp -s "$E" "$tmp/sim.json"; then
	ok "ck01: ckpt_similarity.json equals msprobe's byte for byte ($(jq length "$E") parameters)"
else
	notok "ck01: ckpt_similarity.json differs from msprobe's"
	diff "$E" "$tmp/sim.json" | head -10 | sed 's/^/# /'
fi

probe-ckpt --msprobe-json - "$C/tp2_A/iter_0000010" "$C/tp2_B/iter_0000010" > "$tmp/iter.json"
if cmp -s "$E" "$tmp/iter.json"; then
	ok "ck01: the iteration folders named directly give the same file"
else
	notok "ck01: the iteration folders give another file"
fi

got=$(jq -r 'select(.verdict and .verdict != "same") | .name' "$tmp/records" | sort | tr '\n' ' ')
want=$(jq -r 'to_entries[] | select(.value.l2 != 0) | .key' "$E" | sort | tr '\n' ' ')
same=$(jq -r 'select(.verdict == "same") | .name' "$tmp/records" | wc -l)
if [ "$status" = 1 ] && [ "$got" = "$want" ] && [ "$same" = 15 ]; then
	ok "ck01: our verdict: $got differ (exit 1), the other 15 are the same bytes"
else
	notok "ck01: our verdict: exit $status, differ: $got (msprobe's l2 > 0: $want), $same the same"
fi

probe-flatten "$C/tp2_B" | probe-match "$C/tp2_A" | probe-metric | probe-first > "$tmp/first" 2> "$tmp/err"
status=$?
leaf=$(head -1 "$tmp/first" | jq -r '.first_divergence.leaf')
case " $want " in
*" $leaf "*)
	[ "$status" = 1 ] && ok "ck01: probe-first finds $leaf" || notok "ck01: probe-first exit $status" ;;
*)
	notok "ck01: probe-first finds $leaf (exit $status)"
	sed 's/^/# /' "$tmp/err" ;;
esac
