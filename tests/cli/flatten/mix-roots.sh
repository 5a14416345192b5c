# A MindSpore root of run mode pynative_graph (graph/ and pynative/ side by side): each folder is
# read as a dump root, graph first, and every leaf record says its folder ("exec_mode").
. "$TESTS/data/mix-roots.sh"
probe-flatten --list T
probe-flatten T | head -n 1
probe-flatten T | jq -c '[.exec_mode, .step, .rank, .seq, .name]'
echo "a folder named on its own is an ordinary dump root (no exec_mode):"
probe-flatten T/pynative | jq -c 'has("exec_mode")' | uniq -c
echo "a root with pynative/ alone, and an empty graph/ beside it:"
mkdir -p P/graph && cp -r T/pynative P/
probe-flatten --list P
echo "step<N> directories beside the folders are left out, as msprobe leaves them:"
mkdir -p S/step0/rank0 && cp T/graph/step0/rank0/dump.json S/step0/rank0/ && cp -r T/graph S/
probe-flatten --list S
echo "an empty directory named graph beside step<N> directories is not a folder of such a root:"
mkdir -p R/graph R/step0/rank0 && cp T/graph/step0/rank0/dump.json R/step0/rank0/
probe-flatten --list R
echo "a graph folder whose step holds no rank:"
mkdir -p B/graph/step0
probe-flatten B; echo "status $?"
