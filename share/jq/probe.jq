# probe.jq: jq functions for the record streams of the probe tools (probe-records(5)).
#
# Usage: put this directory on jq's module path with -L, then import or include it:
#
#   jq -nc -L /usr/local/share/probe/jq 'import "probe" as p; p::summary(inputs)' metrics.ndjson
#   jq -nc -L /usr/local/share/probe/jq 'include "probe"; summary(inputs)' metrics.ndjson
#
# The directory is $(DATADIR)/probe/jq: /usr/local/share/probe/jq after `make install`,
# /usr/share/probe/jq with PREFIX=/usr, share/jq in the source tree.  jq 1.6 or later.
#
# metrics.ndjson stands for metric records, those probe-metric(1) writes:
#
#   probe-flatten run/target | probe-match run/golden | probe-metric > metrics.ndjson
#
# The functions that read a stream take it as their last argument, records: pass
# `inputs` with `jq -n` (one record at a time; only what the function returns is held
# in memory), or `.[]` of a slurped array.  In that stream an {"error": ...} record
# (a tool upstream failed) stops jq with an error, since what came before it is not a
# complete result, and probe-first's {"summary": ...} record is skipped.
#
# Their results are rows, JSON objects that all have the same members in the same
# order: `jq -c` prints one per line and probe-table(1) writes them as a CSV table:
#
#   jq -nc -L DIR 'import "probe" as p; p::summary(inputs)' metrics.ndjson | probe-table > summary.csv
#
# Non-finite numbers are written as probe writes them, the strings "nan", "inf" and
# "-inf" (jq itself would print null and 1.7976931348623157e+308).
#
# Each function's example runs in probe's tests (tests/cli/shell/jq.sh) on dumps from
# `probe-gendump --ranks 4 --fault-rank 2 run`, which is where the outputs shown come from.

module {
  "name": "probe",
  "description": "jq functions for the record streams of the probe tools: summaries, worst entries, msprobe merge_result's table"
};

# _records(records): records without probe-first's summary record; an error record stops jq.
def _records(records):
  records
  | if type != "object" then error("probe.jq: not a record: \(tojson)")
    elif has("error") then error("probe.jq: the input ends with an error record: \(.error)")
    elif has("summary") then empty
    else . end;

# leaf: the leaf of a record: a leaf record itself; for a pair, metric or
# first-divergence record its target leaf t, or the golden leaf g of a golden-only one.
#
# Example:
#   $ jq -c -L /usr/local/share/probe/jq 'include "probe"; leaf | {rank, name}' metrics.ndjson | head -2
#   {"rank":0,"name":"Functional.linear.0.forward.input.0"}
#   {"rank":0,"name":"Functional.linear.0.forward.input.1"}
def leaf:
  if type == "object" and (has("t") or has("g")) then (.t // .g) else . end;

# num: a metric as a number, for comparing and sorting: numbers as they are; number
# text as probe and msprobe write it ("0.25", " inf" with msprobe's leading space,
# "1.5%" whose % is dropped, "nan", "NaN", "Nan", "inf", "-inf", "Infinity") as the
# number it says; anything else (null, "N/A", "unsupported", "shape unmatched",
# true, false) as null.
#
# Example:
#   $ jq -nc -L /usr/local/share/probe/jq 'import "probe" as p; ["0.25", " inf", "1.5%", "N/A", "nan", 3] | map(p::num | p::json_safe)'
#   [0.25,"inf",1.5,null,"nan",3]
def num:
  if type == "number" then .
  elif type == "string" then
    (gsub("^\\s+|\\s+$"; "") | rtrimstr("%")) as $s
    | ($s | ascii_downcase) as $l
    | if $l == "nan" or $l == "+nan" or $l == "-nan" then nan
      elif $l == "inf" or $l == "+inf" or $l == "infinity" or $l == "+infinity" then infinite
      elif $l == "-inf" or $l == "-infinity" then -infinite
      elif $s | test("^[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?$") then $s | tonumber
      else null end
  else null end;

# json_safe: a number as probe's records write it: nan, infinity and -infinity as the
# strings "nan", "inf" and "-inf"; anything else unchanged.
#
# Example:
#   $ jq -nc -L /usr/local/share/probe/jq 'import "probe" as p; [nan, infinite, -infinite, 1.5, "x"] | map(p::json_safe)'
#   ["nan","inf","-inf",1.5,"x"]
def json_safe:
  if type != "number" then .
  elif isnan then "nan"
  elif isinfinite then (if . > 0 then "inf" else "-inf" end)
  else . end;

# tally(group; records): how many records of each group there are, with our verdicts
# (same, diff, unmatched, golden_only, unreadable) and msprobe's results (pass,
# warning, error; no_msprobe for the leaves msprobe leaves out of its table) counted.
# group is evaluated on each record and gives the row's first members, an object
# ({rank: leaf.rank} for one row per rank); the rows come in the order their groups
# first appear.  records are metric records: a record without a verdict is an error.
#
# Example: per step
#   $ jq -nc -L /usr/local/share/probe/jq 'import "probe" as p; p::tally({step: p::leaf.step}; inputs)' metrics.ndjson
#   {"step":0,"records":392,"same":326,"diff":66,"unmatched":0,"golden_only":0,"unreadable":0,"pass":389,"warning":3,"error":0,"no_msprobe":0}
def tally(group; records):
  reduce (_records(records)
          | if has("verdict") | not then error("probe.jq: tally: not a metric record (no verdict; see probe-metric(1)): \(.key // (leaf | .name) | tojson)") else . end
          | [(group | if type == "object" then . else error("probe.jq: tally: the group must be an object, not \(tojson)") end), .verdict, (.msprobe | if . == null then "no_msprobe" else .result end)])
         as [$g, $v, $m]
    ({}; ($g | tojson) as $k
         | (.[$k] // ($g + {records: 0, same: 0, diff: 0, unmatched: 0, golden_only: 0, unreadable: 0, pass: 0, warning: 0, error: 0, no_msprobe: 0})) as $row
         | .[$k] = ($row
                    | .records += 1
                    | if $v | IN("same", "diff", "unmatched", "golden_only", "unreadable") then .[$v] += 1 else error("probe.jq: tally: unknown verdict \($v | tojson)") end
                    | if $m | IN("pass", "warning", "error", "no_msprobe") then .[$m] += 1 else error("probe.jq: tally: unknown msprobe result \($m | tojson)") end))
  | .[];

# summary(records): tally per rank and per state, the rows in rank order and the
# states in msprobe's row order (input, parameters, output, parameters_grad, debug).
#
# Example: the rank that started it (2) differs in every state; the others only
# in outputs, from the all_reduce of the gradients on
#   $ jq -nc -L /usr/local/share/probe/jq 'import "probe" as p; p::summary(inputs) | select(.rank >= 1 and .rank <= 2)' metrics.ndjson | probe-table
#   rank,state,records,same,diff,unmatched,golden_only,unreadable,pass,warning,error,no_msprobe
#   1,input,44,44,0,0,0,0,44,0,0,0
#   1,parameters,6,6,0,0,0,0,6,0,0,0
#   1,output,42,36,6,0,0,0,42,0,0,0
#   1,parameters_grad,6,6,0,0,0,0,6,0,0,0
#   2,input,44,27,17,0,0,0,44,0,0,0
#   2,parameters,6,5,1,0,0,0,6,0,0,0
#   2,output,42,18,24,0,0,0,39,3,0,0
#   2,parameters_grad,6,0,6,0,0,0,6,0,0,0
def summary(records):
  ["input", "parameters", "output", "parameters_grad", "debug"] as $order
  | [tally(leaf as $l | {rank: $l.rank, state: $l.state}; records)]
  | sort_by(.rank, (.state as $s | $order | index($s) // 99), .state)
  | .[];

# _top(n; metric; dir; records): the n records with the largest metric * dir, NaN first.
def _top($n; metric; $dir; records):
  # sort key, smallest first: NaN, then +inf, then finite values from the largest, then -inf
  def key($x; $i):
    if $x | isnan then [0, 0, $i]
    elif ($x | isinfinite) and $x > 0 then [1, 0, $i]
    elif $x | isinfinite then [3, 0, $i]
    else [2, -$x, $i] end;
  if ($n | type) != "number" or $n < 0 then error("probe.jq: worst: n must be a number >= 0, not \($n | tojson)") else . end
  | reduce _records(records) as $r ({i: 0, top: []};
      .i += 1
      | [$r | metric][0] as $v
      | ($v | num) as $x
      | if $x == null or $n == 0 then .
        else .top = ((.top + [{k: key($x * $dir; .i), r: $r, v: $v}]) | sort_by(.k) | .[:$n]) end)
  | .top[]
  | .v as $v
  | .r
  | leaf as $l
  | {rank: $l.rank, step: $l.step, name: $l.name, verdict: .verdict, result: .msprobe.result, value: ($v | json_safe)};

# worst(n; metric; records): the n records with the largest metric, largest first:
# a NaN before everything (a value that became NaN is the worst there is), then inf,
# then the finite values; ties in input order.  metric is evaluated on each record
# and read with num: records where it is not a number ("N/A", "unsupported", null)
# are left out.  One row per record: rank, step, name (its leaf's), verdict, result
# (msprobe's), value (the metric as the record has it).
#   metric   e.g. .metrics.max.rel (our relative difference of Max), .metrics.tensor.max_ulp
#            or .metrics.tensor.max_abs (tensor dumps), .msprobe.MaxRelativeErr ("1.5%"),
#            .metrics.norm.abs
#
# Example: the largest relative differences of the Max statistic
#   $ jq -nc -L /usr/local/share/probe/jq 'import "probe" as p; p::worst(3; .metrics.max.rel; inputs)' metrics.ndjson
#   {"rank":2,"step":0,"name":"Functional.linear.0.backward.output.0","verdict":"diff","result":"warning","value":0.05119286503044373}
#   {"rank":2,"step":0,"name":"Module.fc1.Linear.parameters_grad.0.bias","verdict":"diff","result":"pass","value":0.05119286503044373}
#   {"rank":2,"step":0,"name":"Distributed.all_reduce.1.forward.input.0","verdict":"diff","result":"pass","value":0.05119286503044373}
def worst($n; metric; records): _top($n; metric; 1; records);

# lowest(n; metric; records): as worst, for a metric where smaller is worse (msprobe's
# Cosine): the n smallest, a NaN first, then -inf, then the finite values from the smallest.
#
# Example: the least similar tensors (tensor-metrics.ndjson: the same, from
# probe-gendump --mode tensor --ranks 4 --fault-rank 2 trun)
#   $ jq -nc -L /usr/local/share/probe/jq 'import "probe" as p; p::lowest(2; .msprobe.Cosine; inputs)' tensor-metrics.ndjson
#   {"rank":2,"step":0,"name":"Functional.linear.1.backward.output.1","verdict":"diff","result":"pass","value":"0.990424814309"}
#   {"rank":2,"step":0,"name":"Functional.relu.0.backward.input.0","verdict":"diff","result":"pass","value":"0.990424814309"}
def lowest($n; metric; records): _top($n; metric; -1; records);

# _pystr: a leaf value as Python's str() prints it (msprobe's cells); jq has already
# lost a float's text, so 1.0 prints as 1.
def _pystr:
  def r:
    if type == "string" then "'" + . + "'"
    elif type == "array" then "[" + (map(r) | join(", ")) + "]"
    elif type == "boolean" then (if . then "True" else "False" end)
    elif . == null then "None"
    elif type == "number" then tostring
    else tojson end;
  if type == "string" then . else r end;

# _maxcell: msprobe's "NPU max" (of t) or "Bench max" (of g) cell of a leaf.
def _maxcell:
  if . == null then "N/A"
  elif .type == "torch.ProcessGroup" then (.attrs.group_ranks | _pystr)
  elif has("max") then (.max | _pystr)
  else (.value | _pystr) end;

# The compare indices of msprobe merge_result, per mode, as the records name them.
def _merge_columns($mode):
  if $mode == "statistics" then
    ["Max diff", "Min diff", "Mean diff", "L2norm diff", "MaxRelativeErr", "MinRelativeErr", "MeanRelativeErr", "NormRelativeErr"]
  elif $mode == "tensor" then
    ["Cosine", "EucDist", "MaxAbsErr", "MaxRelativeErr", "One Thousandth Err Ratio", "Five Thousandths Err Ratio"]
  else error("probe.jq: merge: msprobe merge_result merges statistics and tensor compares, not \($mode | tojson)") end;

# merge(apis; columns; records): msprobe merge_result's table, from metric records of
# several ranks: for the rows of the operators named by apis (msprobe's rule: the NPU
# name contains one of them followed by a dot, anywhere), the cells of the metric
# columns, one member per rank: {"NPU Name", "rank0", "rank1", ...}.  Rows in NPU
# name order (as msprobe's outer merge sorts them), ranks in number order, every rank
# seen in records has its member (null, an empty cell, where it has no such row); the
# first row of a duplicated name counts.  A cell "N/A", "unsupported" or "Nan" is
# replaced, as msprobe does, by "NPU:<NPU max>  Bench:<Bench max>" (for example the
# process group of a communication operator: "NPU:[0, 1, 2, 3]  Bench:[0, 1, 2, 3]").
#   apis     a prefix or an array of them, at any granularity:
#            "Distributed", "Distributed.all_reduce", "Distributed.all_reduce.0.forward"
#   columns  a metric column by its CSV name ("Max diff", "Cosine", ...): one table,
#            msprobe's sheet of that name; or an array of them: one table whose rows
#            begin with "Compare Index", the column's name (msprobe's sheet name);
#            [] means all of the mode's compare indices, as msprobe's empty compare_index
#            (statistics: Max diff ... NormRelativeErr; tensor: Cosine ... Five
#            Thousandths Err Ratio; md5 compares cannot be merged).
# msprobe's Requires_grad Consistent column is not in the metric records; a step is
# not told apart: give records of one step (select(.t.step == 0)).
#
# Example:
#   $ jq -nc -L /usr/local/share/probe/jq 'import "probe" as p; p::merge(["Distributed.all_reduce.0"]; "MaxRelativeErr"; inputs)' metrics.ndjson | probe-table
#   NPU Name,rank0,rank1,rank2,rank3
#   Distributed.all_reduce.0.forward.input.0,0,0,3.0220724686878397%,0
#   Distributed.all_reduce.0.forward.input.group,0,0,0,0
#   Distributed.all_reduce.0.forward.input.op,0,0,0,0
#   Distributed.all_reduce.0.forward.output.0,0.005619789057070849%,0.005619789057070849%,0.005619789057070849%,0.005619789057070849%
#   Distributed.all_reduce.0.forward.output.1,0,0,0,0
#   Distributed.all_reduce.0.forward.output.2,0,0,0,0
def merge(apis; columns; records):
  (apis | if type == "string" then [.] elif type == "array" and length > 0 and all(type == "string") then . else error("probe.jq: merge: apis must be a string or a non-empty array of strings") end) as $apis
  | (columns | if type == "string" or (type == "array" and all(type == "string")) then . else error("probe.jq: merge: columns must be a string or an array of strings") end) as $columns
  | reduce (_records(records) | select(.t != null and .msprobe != null)) as $r ({ranks: {}, rows: {}, mode: null};
      ($r.t.rank | if type == "number" then "rank\(.)" else error("probe.jq: merge: a record without a rank: \($r.key | tojson)") end) as $rank
      | .ranks[$rank] = $r.t.rank
      | .mode //= $r.msprobe.mode
      | $r.t.name as $name
      | if any($apis[]; . as $a | $name | contains($a + ".")) and ((.rows[$name] // {}) | has($rank) | not)
        then .rows[$name][$rank] = ($r.msprobe + {"NPU max": ($r.t | _maxcell), "Bench max": ($r.g | _maxcell)})
        else . end)
  | . as $m
  | ($m.ranks | to_entries | sort_by(.value) | map(.key)) as $ranks
  | (if $columns == [] then _merge_columns($m.mode) elif ($columns | type) == "string" then [$columns] else $columns end) as $cols
  | $cols[] as $col
  | ($m.rows | keys[]) as $name
  | $m.rows[$name] as $cells
  | (if ($columns | type) == "array" then {"Compare Index": $col} else {} end)
    + {"NPU Name": $name}
    + (reduce $ranks[] as $rk ({};
        .[$rk] = ($cells[$rk]
                  | if . == null then null
                    elif has($col) | not then error("probe.jq: merge: no column \($col | tojson) in the \(.mode) records")
                    elif .[$col] | IN("N/A", "unsupported", "Nan") then "NPU:\(.["NPU max"])  Bench:\(.["Bench max"])"
                    else .[$col] end)));

# merge(columns; records): merge(["Distributed"]; columns; records), msprobe's
# communication operators (torch.distributed): as msprobe matches anywhere in the
# name, MintDistributed.* rows are taken too.
#
# Example: two compare indices in one table
#   $ jq -nc -L /usr/local/share/probe/jq 'import "probe" as p; p::merge(["Max diff", "MaxRelativeErr"]; inputs) | select(."NPU Name" | test("all_reduce.5.forward.output.0"))' metrics.ndjson | probe-table
#   Compare Index,NPU Name,rank0,rank1,rank2,rank3
#   Max diff,Distributed.all_reduce.5.forward.output.0,0.00021284818649291992,0.00021284818649291992,0.00021284818649291992,0.00021284818649291992
#   MaxRelativeErr,Distributed.all_reduce.5.forward.output.0,0.06513977644342475%,0.06513977644342475%,0.06513977644342475%,0.06513977644342475%
def merge(columns; records): merge(["Distributed"]; columns; records);
