# stdin, gzip-compressed, labelled with --rank and --step.
gzip -c "$TESTS/data/kinds.json" | probe-flatten --rank 3 --step 7 | head -2
