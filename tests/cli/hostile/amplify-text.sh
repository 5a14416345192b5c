# Amplification without a budget (issue 41, class 2) in the token files and the mapping YAML:
# memory and time must follow what the input holds, not what it claims or how it expands.
# Each hostile file below is small on disk and is refused with exit 2 and a message naming
# the file, under a 600 MB address-space limit (normal build) and a 20 s timeout, never a
# crash, an out-of-memory abort or a timeout:
# - probe-tokens: a ~300 KB gzip of 50 M token ids in one prompt: a prompt holds at most
#   4194304 ids (PROBE_MAX_TOKENS; also the log-probability entries and candidates);
#   PROBE_MAX_TOKENS=3 refuses a 4-id prompt, and a bad PROBE_MAX_TOKENS is refused.
# - --layer-mapping / --api-mapping: a billion-laughs YAML (each level's list holds the
#   previous one 10 times: 10^12 nodes once expanded) is refused: the nodes after expansion
#   are bounded to 64 per YAML event read (PROBE_MAX_YAML_NODES raises it); a list nested
#   200,000 deep is refused at depth 64, before anything is built.
# - Small aliases stay allowed (a node reused a few times is well under the bound).
# (the sanitizer build reserves terabytes of shadow memory: no address-space limit there)
asan=; ldd "$(command -v probe-tokens)" 2>/dev/null | grep -q 'libasan' && asan=1
lim() { ( if [ -z "$asan" ]; then ulimit -v 600000; fi; exec timeout 20 "$@" ); }
python3 - <<'PY'
import gzip
with gzip.open('ids.json.gz', 'wb', compresslevel=9) as f:
    f.write(b'[')
    chunk = b'1,' * 1000000
    for _ in range(50):
        f.write(chunk)
    f.write(b'1]\n')
lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]']
for i in range(1, 13):
    p = '*a%d' % (i - 1)
    lines.append('a%d: &a%d [%s]' % (i, i, ', '.join([p] * 10)))
open('laughs.yaml', 'w').write('\n'.join(lines) + '\n')
open('deep.yaml', 'w').write('[' * 200000 + '\n')
PY
ls -l ids.json.gz | awk '{ print ($5 < 1000000) ? "ids.json.gz small" : "ids.json.gz too big" }'
printf '[1, 2]\n' > ok.json
lim probe-tokens ids.json.gz ok.json > /dev/null; echo "tokens status $?"
printf '[1, 2, 3, 4]\n' > four.json
PROBE_MAX_TOKENS=3 probe-tokens four.json four.json > /dev/null; echo "tokens max 3 status $?"
PROBE_MAX_TOKENS=4 probe-tokens four.json four.json > /dev/null; echo "tokens max 4 status $?"
PROBE_MAX_TOKENS=x probe-tokens four.json four.json > /dev/null; echo "tokens max x status $?"
for opt in layer-mapping api-mapping; do
	lim probe-match --$opt=laughs.yaml g < /dev/null; echo "$opt laughs status $?"
	lim probe-match --$opt=deep.yaml g < /dev/null; echo "$opt deep status $?"
done
# a billion-laughs in the api-mapping's own shape (a list of entries)
python3 - <<'PY'
lines = ['- ms_api: &a0 [x, x, x, x, x, x, x, x, x, x]']
for i in range(1, 13):
    lines.append('  k%d: &a%d [%s]' % (i, i, ', '.join(['*a%d' % (i - 1)] * 10)))
open('laughs-am.yaml', 'w').write('\n'.join(lines) + '\n')
PY
lim probe-match --api-mapping=laughs-am.yaml g < /dev/null; echo "api-mapping laughs-am status $?"
# within the bound: aliases of a small node, and a raised bound, reach the mapping's own checks
printf -- '- ms_api: &n Mint.add\n  pt_api: *n\n  ms_args: [0]\n  pt_args: [0]\n' > small.yaml
# (the mapping loads: the only trouble left is the golden dump g, which is absent)
probe-match --api-mapping=small.yaml g < /dev/null > /dev/null 2>small.err; echo "small aliases status $?: $(cat small.err)"
PROBE_MAX_YAML_NODES=x probe-match --api-mapping=small.yaml g < /dev/null; echo "bad env status $?"
