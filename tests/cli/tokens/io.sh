# Output: into a closed pipe the tool ends quietly; into a full disk it says
# so, exit status 2; --help and --version go to stdout, exit 0; standard
# input that is a terminal is refused rather than waited on.
for i in $(seq 1 2000); do echo "[$i,1,2,3]"; done > target.ndjson
for i in $(seq 1 2000); do echo "[$i,1,2,4]"; done > golden.ndjson
probe-tokens target.ndjson golden.ndjson 2> err | head -c 10 > /dev/null; echo "| head: $(wc -l < err) stderr lines"
probe-tokens target.ndjson golden.ndjson > /dev/full; echo "/dev/full: status $?"
probe-tokens --format text target.ndjson golden.ndjson | head -n 2
probe-tokens --help | head -n 1; echo "--help: status $?"
probe-tokens --version; echo "--version: status $?"
script -qec "probe-tokens - golden.ndjson; echo \"status \$?\"" /dev/null < /dev/null | tr -d '\r' > tty.out
echo "$(head -1 tty.out) | usage lines: $(grep -c '^usage:' tty.out) | $(tail -1 tty.out)"
