# --format html (or an -o FILE.html): one well-formed page holding the
# picture, the marks and a table of the leaves that are not the same, in
# input order, at most --table-rows of them; nothing fetched from anywhere.
probe-gendump --ranks 2 --fault nan --fault-rank 1 d > /dev/null
probe-flatten d/target | probe-match d/golden | probe-metric | probe-stack > m.ndjson
probe-plot --output-file page.html m.ndjson; echo "status $?"
xmllint --noout page.html && echo "well-formed"
echo "svg elements: $(grep -c '<svg xmlns="http://www.w3.org/2000/svg"' page.html)"
# no resource from elsewhere: no src=, no href=, no url(), no @import
grep -Eo '(src|href)=|url\(|@import' page.html | sort | uniq -c
rows() { xmllint --xpath "count(//*[local-name()='table'][@id='leaves']/*[local-name()='tbody']/*[local-name()='tr'])" "$1"; }
echo "table rows: $(rows page.html)"
echo "not same:   $(jq -s 'map(select(.t and .verdict != "same")) | length' m.ndjson)"
# the first rows are the first records that are not the same
xmllint --xpath "//*[local-name()='tbody']/*[local-name()='tr'][position() <= 3]/*[local-name()='td'][4]/text()" page.html; echo
jq -r 'select(.t and .verdict != "same") | .t.name' m.ndjson | head -n 3
echo "marks listed: $(xmllint --xpath "count(//*[local-name()='ul'][@id='marks']/*[local-name()='li'])" page.html)"
probe-plot --format html --table-rows 5 m.ndjson > five.html
echo "--table-rows 5: $(rows five.html) rows"
grep -o '[0-9][0-9]* listed ([^)]*)' five.html
# --format decides over the suffix
probe-plot --format svg --output-file x.html m.ndjson && head -c 38 x.html; echo
