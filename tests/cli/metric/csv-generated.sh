# The CSV of a generated run: msprobe's Results for the fc2-weight fault, and its columns.
probe-gendump run > /dev/null
probe-flatten run/target | probe-match run/golden | probe-metric --csv > out.csv
head -1 out.csv
cut -d, -f1 out.csv | tail -n +2 | wc -l
awk -F, 'NR > 1 { print $(NF - 0) }' out.csv > /dev/null
python3 -c '
import csv, collections
rows = list(csv.DictReader(open("out.csv")))
print(collections.Counter(r["Result"] for r in rows).most_common())
print([r["NPU Name"] for r in rows if r["Result"] != "pass"][:4])
print(rows[0]["NPU_Stack_Info"][:90])
'
