#!/usr/bin/env python3
"""page_ready.py PAGE.html: how long probe-graph's page takes to become interactive in headless Chromium.

Prints one JSON object: {"ready_ms": time from navigation start to the page's ready mark
(window.probeGraph.readyAt), "parse_ms": ..., "bytes": the file's size}.  Used by make bench.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: page_ready.py PAGE.html")
    path = os.path.abspath(sys.argv[1])
    with cdp.Browser(timeout=300) as b:
        page = b.open("file://" + path, timeout=300)
        page.wait_for("document.body.dataset.ready === '1'", timeout=300)
        t = page.evaluate("({ready: window.probeGraph.readyAt, timings: window.probeGraph.timings || null})")
    out = {"ready_ms": round(t["ready"], 1), "bytes": os.path.getsize(path)}
    if t.get("timings"):
        out["timings"] = t["timings"]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
