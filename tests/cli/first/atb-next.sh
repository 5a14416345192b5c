# probe-first on ATB dumps says what to do next, seed 004's "layer first, then operation": on a
# layer-level dump, the ATB config.json that dumps the first differing layer's operations and kernels
# (ids = the layer's id, save_child, filter_level 0, exec_range = its exec count); on an operation and
# kernel dump, the kernel whose inputs agree and whose output differs, and the probe-export commands
# that write its tensors, both runs'; those commands, copied from the report, run and write the
# kernel's inputs and output.
probe-gendump --framework atb --mode tensor --steps 2 layers > /dev/null
probe-flatten layers/target | probe-match layers/golden | probe-metric | probe-first --format text | grep -A3 '^  next'
probe-gendump --framework atb --mode tensor --save-child kernels > /dev/null
probe-flatten kernels/target | probe-match kernels/golden | probe-metric | probe-first --format text > report
grep -A2 '^  next' report
sed -n 's/^ *\(probe-export .*\)/\1/p' report > commands
sh -e commands > written; echo "commands: status $?"
jq -r .file written
