# Nothing in common: an error, never "no divergence".
probe-gendump --layers 2 a > /dev/null
probe-flatten a/target | sed 's/"key":"/"key":"other./' | probe-match a/golden > out
echo "status $?"
tail -1 out
