probe-gendump --format npy out
probe-gendump --mode tensor --format npy --pt-layout torch2 out
probe-gendump --mode tensor --pt-layout torch3 out
probe-gendump --dtype float64 out
probe-gendump --width 0 out
probe-gendump --batch 65537 out
