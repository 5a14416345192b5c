# bash: the file loads, options complete from the option table, operands complete to
# directories and dump files.
mkdir -p npu/step0/rank0 && touch dump.json dump.json.gz notes.txt
bash -c '
source "$TOP/completions/probe.bash" || exit 1
complete_at() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _probe_flatten; printf "%s\n" "${COMPREPLY[@]}" | sort; echo --; }
complete_at probe-flatten ""
complete_at probe-flatten --r
complete_at probe-flatten --rank ""
complete_at probe-flatten -
'
