# The report for people: the summary first (how many parameters differ, how many are equal, how
# many are on one side only), the two checkpoints, then what differs, the most first (a shape
# or a dtype apart, then the lowest cosine), then the names on one side only.  The numbers it
# shows are the records' (faults.sh checks them against a second reader).
probe-gendump --framework checkpoint --ckpt-layout pt --fault none a
probe-gendump --framework checkpoint --ckpt-layout pt --fault reshape b
probe-gendump --framework checkpoint --ckpt-layout pt --fault missing c
probe-gendump --framework checkpoint --ckpt-layout pt --fault perturb d
probe-ckpt --format text a/golden/model.pt a/target/model.pt
echo "exit $?"
# a perturbed weight against a reshaped output layer: the shape first, then the values
probe-ckpt --format text d/target/model.pt b/target/model.pt
echo "exit $?"
# a missing bias, on each side
probe-ckpt --format text c/target/model.pt a/golden/model.pt | tail -2
probe-ckpt --format text a/golden/model.pt c/target/model.pt | tail -2
# --msprobe-json to a file it cannot write: exit 2, and no records
probe-ckpt --msprobe-json no/such/dir/sim.json a/golden/model.pt a/target/model.pt > out
echo "exit $?, $(wc -c < out) bytes out"
# --msprobe-json - and --format text both want standard output
probe-ckpt --msprobe-json - --format text a/golden/model.pt a/target/model.pt
echo "exit $?"
