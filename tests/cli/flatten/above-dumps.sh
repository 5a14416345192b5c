# probe-flatten on a folder above the dumps (golden/ and target/ side by side, as
# probe-gendump and many users lay them out) is not a dump, and the message names
# the subfolders that are, with the pipeline that compares two of them (the one
# named like a target, "target" or "npu", first); a name with a blank is quoted.
# A folder with none below says only what it is not.
probe-gendump --layers 2 d > /dev/null
probe-flatten d > out; echo "status $?, $(wc -l < out) line(s) out"
mkdir w; cp -r d/golden w/gpu; cp -r d/target "w/npu run"; mkdir w/notes
probe-flatten w > /dev/null; echo "status $?"
mkdir -p empty/x
probe-flatten empty > /dev/null; echo "status $?"
