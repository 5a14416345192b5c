# Nothing to compare is trouble (exit 2), never "no divergence".
probe-gendump d > /dev/null
: | probe-first; echo "status $?"
probe-flatten d/target | probe-first; echo "status $?"
probe-flatten d/target | probe-match d/golden | probe-first --nonfinite; echo "status $?"
probe-flatten d/target | head -3 | sed 's/^/{"key":"k","g":null,"t":/; s/$/}/' | probe-first; echo "status $?"
printf '{"error":"probe-match: x: broken"}\n' | probe-first; echo "status $?"
probe-first --rtol -1 /dev/null; echo "status $?"
probe-first --nonfinite --rtol 0.1 /dev/null; echo "status $?"
probe-first --format pdf /dev/null; echo "status $?"
