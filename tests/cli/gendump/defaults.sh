# The defaults: one step, one rank, the fc2-weight fault; the three files of each side.
probe-gendump run
find run -type f | sort
probe-flatten run/golden | jq -r .name | md5sum
probe-flatten run/golden | wc -l
