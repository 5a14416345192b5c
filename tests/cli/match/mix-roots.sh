# Two graph/pynative roots: a target leaf pairs only with the golden's of the same folder
# (both folders have a Mint.add.0.forward, with other numbers in each); steps and ranks pair
# within the folder as in any dump root.
. "$TESTS/data/mix-roots.sh"
probe-flatten T | probe-match G | jq -c '[.t.exec_mode, .g.exec_mode, .t.step, .g.step, .key, .t.max, .g.max]'
echo "a folder of one side only is passed over, and said (msprobe says nothing):"
mkdir -p Tp Gp && cp -r T/pynative Tp/ && cp -r G/pynative Gp/
probe-flatten Tp | probe-match G | jq -c '.t.exec_mode' | uniq -c; echo "status $?"
probe-flatten T | probe-match Gp | jq -c '.t.exec_mode' | uniq -c; echo "status $?"
echo "no folder in common: an error naming both roots"
mkdir -p Tg && cp -r T/graph Tg/
probe-flatten Tg | probe-match Gp; echo "status $?"
echo "a root of two folders against a dump that is not one, either way:"
probe-flatten T | probe-match G/pynative; echo "status $?"
probe-flatten T/pynative | probe-match G; echo "status $?"
echo "a folder against a folder is an ordinary compare:"
probe-flatten T/pynative | probe-match G/pynative | jq -c 'has("exec_mode")' | uniq -c
echo "the golden side as records pairs the same way:"
probe-flatten G > golden.ndjson
probe-flatten Tp | probe-match golden.ndjson | jq -c '[.t.exec_mode, .g.exec_mode]' | uniq -c
echo "exec_mode takes only graph and pynative:"
echo '{"rank":0,"step":0,"exec_mode":"jit","seq":0,"entry":"e","name":"n","key":"k"}' | probe-match G; echo "status $?"
echo "ranks pair within their folder as in any dump root: a rank the golden folder lacks is an error"
cp -r T T2 && cp -r T2/pynative/step0/rank0 T2/pynative/step0/rank1
probe-flatten T2 | probe-match G > /dev/null; echo "status $?"
probe-flatten T2 | probe-match --ranks-by-position G > /dev/null; echo "status $?"
cp -r G G2 && cp -r G2/graph/step0/rank0 G2/graph/step0/rank1
probe-flatten T | probe-match G2 > /dev/null; echo "status $?"
