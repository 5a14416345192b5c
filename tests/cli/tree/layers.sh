# lib/ keeps the layering lib/README.md states: every include of another subsystem is one
# its row of the table allows, the subsystems include each other in no cycle, and no two
# modules include each other (tests/cli/tree/layers.py says what is checked).  The output
# lists what each subsystem includes in fact.
python3 "$TOP/tests/cli/tree/layers.py" "$TOP"
