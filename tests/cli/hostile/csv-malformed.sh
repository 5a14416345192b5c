# A malformed compare_result CSV (issue 17, class 12c): before, libcsv's words
# ("error parsing data while strict checking enabled") without a place.  Now
# FILE:LINE:COL of the byte libcsv refused, or the line of the row for a quoted
# cell that the file ends inside; rows are counted by line, so a cell holding a
# newline moves the lines after it.
probe-gendump --layers 2 g > /dev/null
probe-flatten g/target | probe-match g/golden | probe-metric --csv > good.csv
f=compare_result_rank0_20250101000000.csv
bad() { # what, then awk program over good.csv
	what=$1
	awk "$2" good.csv > $f
	probe-flatten $f > out 2> err
	echo "$what: status $?, last line $(tail -1 out | cut -c1-10); $(cat err)"
}
bad "text after a closing quote" 'NR == 5 { sub(/,"\[/, ",\"[\"x") } { print }'
bad "a quote inside an unquoted cell" 'NR == 7 { sub(/,torch.float32,/, ",torch.flo\"at32,") } { print }'
bad "an unclosed quote at the end" '{ print } END { printf "\"unclosed,x" }'
bad "a cell with a newline, then a stray quote" 'NR == 3 { sub(/,"\[/, ",\"\n[") } NR == 9 { sub(/,torch.float32,/, ",t\"orch.float32,") } { print }'
bad "CRLF lines, a stray quote" '{ if (NR == 4) sub(/,torch.float32,/, ",torch.\"float32,"); printf "%s\r\n", $0 }'
bad "too many cells, after a two-line cell" 'NR == 3 { sub(/,"\[/, ",\"\n[") } NR == 6 { $0 = $0 ",extra" } { print }'
bad "blank lines before a short row" 'NR == 4 { print ""; print ""; $0 = "a,b" } { print }'
