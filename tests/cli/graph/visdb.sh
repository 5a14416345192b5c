# --format visdb: msprobe's SQLite file, read back with python's sqlite3:
# its tables, the graphs of every rank, a build file for one run, and the
# file written whole (no temporary left).
probe-gendump --ranks 2 --fault-rank 1 d > /dev/null
probe-flatten d/target | probe-match d/golden | probe-metric > m.ndjson
probe-graph --output-file compare.vis.db m.ndjson; echo "status $?"
probe-flatten d/target | probe-graph --format visdb --output-file build.db; echo "status $?"
ls
python3 - compare.vis.db build.db <<'PY'
import json, sqlite3, sys
for path in sys.argv[1:]:
    db = sqlite3.connect(path)
    q = lambda s: db.execute(s).fetchall()
    print("%s: journal %s, tables %s" % (path, q("PRAGMA journal_mode")[0][0],
          " ".join(r[0] for r in q("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name"))))
    print("  graphs: %s" % " ".join("%s=%d" % r for r in q("SELECT graph_id, count(*) FROM tb_nodes GROUP BY graph_id ORDER BY graph_id")))
    print("  config: %s" % json.dumps(q("SELECT graph_type, task, micro_steps, overflow_check, rank_list, step_list FROM tb_config")[0]))
    print("  precision: %s" % " ".join("%s=%d" % (r[0], r[1]) for r in q("SELECT quote(precision_index), count(*) FROM tb_nodes GROUP BY 1 ORDER BY 1")))
    print("  unmatched NPU nodes: %d" % q("SELECT count(*) FROM tb_nodes WHERE data_source='NPU' AND matched_node_link='[]'")[0][0])
    print("  stacks referenced but missing: %d" % q("SELECT count(*) FROM tb_nodes WHERE stack_id NOT IN (SELECT id FROM tb_stack)")[0][0])
    print("  parents missing: %d" % q("SELECT count(*) FROM tb_nodes a WHERE up_node != '' AND NOT EXISTS (SELECT 1 FROM tb_nodes b WHERE b.graph_id = a.graph_id AND b.node_name = a.up_node)")[0][0])
PY
