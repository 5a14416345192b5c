#!/usr/bin/env python3
"""graph.py PAGE.html [--shot OUT.png] [--search TEXT]: check a probe-graph page in headless Chromium.

Prints one line per check, deterministic (names and counts, no timings or
paths); a failed check prints a line saying what went wrong instead.  Used by
tests/cli/graph/browser.sh.  Exit status 0 unless the browser itself fails.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402


def js(fn, *args):
    """An expression calling a JS function text with JSON arguments."""
    return "(%s)(%s)" % (fn, ", ".join(json.dumps(a) for a in args))


# What a side's node and its matched node hold: used to check the detail panel.
DETAIL = """function () {
	var pg = window.probeGraph, s = pg.selected(), d = document.getElementById('detail');
	if (!s) return {error: 'nothing selected'};
	var g = pg.data.graphs[pg.graphIndex()], t = s.side === 'target' ? s.index : pg.partner(s.side, s.index);
	var tn = g.target.nodes[t], want = null;
	var tl = pg.leaves('target', t), gls = g.golden && tn.m >= 0 ? pg.leaves('golden', tn.m) : null;
	['in', 'out'].forEach(function (kind) {
		tl[kind].forEach(function (leaf, k) {
			var gl = gls && gls[kind][k];
			if (!want && leaf[1].Max !== undefined && gl && gl[1].Max !== undefined)
				want = {kind: kind, k: k, leaf: leaf[0], t: String(leaf[1].Max), g: String(gl[1].Max)};
		});
	});
	if (!want) return {error: 'the node has no leaf with Max on both sides'};
	var table = d.querySelectorAll('section.leaves[data-kind=' + want.kind + '] table')[want.k];
	if (!table) return {error: 'no table for ' + want.leaf};
	var tc = table.querySelector('td[data-side=target][data-field=Max]'), gc = table.querySelector('td[data-side=golden][data-field=Max]');
	return {leaf: want.leaf, target: tc ? tc.textContent === want.t : false, golden: gc ? gc.textContent === want.g : false,
		result: !!table.querySelector('td[data-field=Result]'), where: !!d.querySelector('.where, ol.stack'),
		crumbs: d.querySelectorAll('.crumbs button').length};
}"""

# A collapsed, matched module in the visible list of the target side, with children on both sides.
PICK_MODULE = """function () {
	var pg = window.probeGraph, g = pg.data.graphs[pg.graphIndex()], names = pg.visibleNames('target');
	for (var r = 0; r < names.length; r++) {
		var i = pg.find('target', names[r]), n = g.target.nodes[i];
		if (n.t === 0 && n.c.length && !pg.isExpanded('target', i) && n.m >= 0 && g.golden.nodes[n.m].c.length) return i;
	}
	return -1;
}"""

CHILDREN_SHOWN = """function (i) {
	var pg = window.probeGraph, g = pg.data.graphs[pg.graphIndex()], t = g.target.nodes[i], m = t.m;
	var vt = pg.visibleNames('target'), vg = pg.visibleNames('golden');
	var tk = t.c.map(function (c) { return g.target.nodes[c].n; }), gk = g.golden.nodes[m].c.map(function (c) { return g.golden.nodes[c].n; });
	return {name: t.n, target: tk.length, golden: gk.length,
		tshown: tk.every(function (n) { return vt.indexOf(n) >= 0; }), gshown: gk.every(function (n) { return vg.indexOf(n) >= 0; }),
		expanded: pg.isExpanded('target', i) && pg.isExpanded('golden', m)};
}"""

ONLY_DIVERGING = """function () {
	var pg = window.probeGraph, g = pg.data.graphs[pg.graphIndex()], nodes = g.target.nodes;
	var div = {}, anc = {};
	var differs = { first: 1, diff: 1, propagated: 1, received: 1 }, list = g.diverging.slice();
	nodes.forEach(function (nd, i) { if (differs[nd.v]) list.push(i); });
	list.forEach(function (i) { div[i] = 1; for (var j = nodes[i].p; j >= 0; j = nodes[j].p) anc[j] = 1; });
	var sel = pg.selected(), keep = sel && sel.side === 'target' ? sel.index : -1; /* the selection stays in view */
	var bad = pg.visibleNames('target').filter(function (name) { var i = pg.find('target', name); return i !== keep && !div[i] && !anc[i] && !(nodes[i].pi >= 1); });
	return {rows: pg.visibleNames('target').length, bad: bad.length};
}"""

RANK_LINK = """function () {
	var pg = window.probeGraph, k = pg.graphIndex(), g = pg.data.graphs[k], nodes = g.target.nodes;
	for (var i = 0; i < nodes.length; i++) {
		var md = nodes[i].md;
		if (md && md.nodes_info) {
			var rank = Object.keys(md.nodes_info)[0];
			return {index: i, name: nodes[i].n, rank: g.rank, graph: k, peer: md.nodes_info[rank][1]};
		}
	}
	return null;
}"""

A11Y = """function () {
	var t = document.getElementById('tree-target'), sel = t.querySelector('[role=treeitem][aria-selected=true]');
	return {tree: t.getAttribute('role'), items: t.querySelectorAll('[role=treeitem]').length > 0,
		expanded: !!t.querySelector('[role=treeitem][aria-expanded]'), selected: !!sel,
		active: !!sel && t.getAttribute('aria-activedescendant') === sel.id};
}"""


def plural(n, one, many):
    return "%d %s" % (n, one if n == 1 else many)


def check_page(b, path, args):
    url = "file://" + os.path.abspath(path)
    page = b.open(url, timeout=120)
    page.wait_for("document.body.dataset.ready === '1'", timeout=120)
    b.pump(0.3)
    print("page: loaded, %s, %s" % (
        "no console error" if not page.errors else "console errors: " + " | ".join(page.errors),
        "no network request" if not page.requests else "network requests: " + " ".join(page.requests)))

    info = page.evaluate("(function(){var d=window.probeGraph.data; return {tool:d.tool, version:d.version, mode:d.mode,"
                         " graphs:d.graphs.length, label:d.graphs[window.probeGraph.graphIndex()].label,"
                         " first:d.graphs[window.probeGraph.graphIndex()].first}})()")
    print("data: %s version %s, mode %s, %d graph%s" % (
        info["tool"], info["version"], info["mode"], info["graphs"], "" if info["graphs"] == 1 else "s"))

    if info["first"] is None or info["first"] < 0:
        print("go to first: no first divergence in this graph")
    else:
        page.click("#go-first")
        sel = page.wait_for("window.probeGraph.selected()", timeout=10)
        ok = sel["side"] == "target" and sel["index"] == info["first"]
        print("go to first: %s%s" % (sel["name"], "" if ok else " (NOT the graph's first: %r)" % sel))
        d = page.evaluate(js(DETAIL))
        if "error" in d:
            print("detail: " + d["error"])
        else:
            print("detail: %s, target Max %s, golden Max %s, Result %s, stack %s, %d modules in the chain" % (
                d["leaf"], "shown" if d["target"] else "MISSING", "shown" if d["golden"] else "MISSING",
                "shown" if d["result"] else "missing", "shown" if d["where"] else "missing", d["crumbs"]))

    a = page.evaluate(js(A11Y))
    print("a11y: role %s, treeitems %s, aria-expanded %s, aria-selected %s, active descendant %s" % (
        a["tree"], "yes" if a["items"] else "no", "yes" if a["expanded"] else "no",
        "yes" if a["selected"] else "no", "yes" if a["active"] else "no"))

    if info["mode"] != "build":
        i = page.evaluate(js(PICK_MODULE))
        if i < 0:
            print("expand: no collapsed matched module")
        else:
            page.evaluate("window.probeGraph.select('target', %d)" % i)
            page.evaluate("document.getElementById('tree-target').focus()")
            page.key("ArrowRight")          # real key: expand
            c = page.evaluate(js(CHILDREN_SHOWN, i))
            print("expand %s: %s on target %s, %s on golden %s" % (
                c["name"], plural(c["target"], "child", "children"), "shown" if c["tshown"] else "NOT shown",
                plural(c["golden"], "child", "children"), "shown" if c["gshown"] else "NOT shown"))
            m = page.evaluate("window.probeGraph.partner('target', %d)" % i)
            page.evaluate("window.probeGraph.select('golden', %d)" % m)
            page.key("ArrowLeft")           # collapse on the golden side
            both = page.evaluate("!window.probeGraph.isExpanded('golden', %d) && !window.probeGraph.isExpanded('target', %d)" % (m, i))
            print("collapse on golden: %s" % ("target collapsed too" if both else "target NOT collapsed"))

    text = args.search
    page.key("/")                           # focus the search box
    page.type_text(text)
    page.wait_for("document.getElementById('search-count').textContent", timeout=10)
    count = page.evaluate("window.probeGraph.search(%s)" % json.dumps(text))
    page.key("Enter")
    hit = page.evaluate("window.probeGraph.selected()")
    print("search %s: %s, Enter selects %s" % (json.dumps(text), plural(count, "match", "matches"),
          "one" if hit and text.lower() in hit["name"].lower() else "NOT a match"))
    page.key("Escape")

    div = page.evaluate("window.probeGraph.data.graphs[window.probeGraph.graphIndex()].diverging")
    if len(div) >= 2 and info["first"] == div[0]:
        page.evaluate("window.probeGraph.goFirst()")
        page.key("n")
        n1 = page.evaluate("window.probeGraph.selected()")
        page.click("#next")
        n2 = page.evaluate("window.probeGraph.selected()")
        page.click("#prev")
        p1 = page.evaluate("window.probeGraph.selected()")
        page.key("p")
        p0 = page.evaluate("window.probeGraph.selected()")
        want = [div[1], div[2] if len(div) > 2 else div[1], div[1], div[0]]
        got = [x["index"] for x in (n1, n2, p1, p0)]
        print("next/previous: %s, then %s" % (n1["name"], "along diverging, back to the first" if got == want else "WRONG: %r, want %r" % (got, want)))
    else:
        print("next/previous: fewer than two diverging nodes (%d)" % len(div))

    if info["mode"] != "build":
        page.click("#only-diverging")
        f = page.evaluate(js(ONLY_DIVERGING))
        print("only diverging: %s" % ("diverging nodes and their modules only" if f["bad"] == 0 and f["rows"] > 0 else "%d other rows" % f["bad"]))
        page.click("#only-diverging")
        page.evaluate("window.probeGraph.goFirst()")

    link = page.evaluate(js(RANK_LINK))
    if link is None:
        print("rank link: no linked communication node")
    else:
        page.evaluate("window.probeGraph.select('target', %d)" % link["index"])
        page.click("#detail .links button")     # real click on the first peer
        now = page.evaluate("(function () { var pg = window.probeGraph, g = pg.data.graphs[pg.graphIndex()], s = pg.selected();"
                            " return {rank: g.rank, name: s && s.name}; })()")
        print("rank link: %s on rank %s -> rank %s, %s" % (link["name"], link["rank"], now["rank"],
              "the same node selected" if now["name"] == link["peer"] else "selected %r, want %r" % (now["name"], link["peer"])))
        page.evaluate("window.probeGraph.setGraph(%d)" % link["graph"])

    png = page.screenshot(args.shot)
    colours = cdp.distinct_colours(png, limit=64)
    print("screenshot: %s" % ("not blank" if colours >= 16 else "BLANK (%d colours)" % colours))
    b.pump(0.2)
    if page.errors or page.requests:
        print("after the checks: errors %r, requests %r" % (page.errors, page.requests))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pages", nargs="+")
    ap.add_argument("--shot", help="screenshot of the last page, PNG")
    ap.add_argument("--search", default="linear")
    args = ap.parse_args()
    with cdp.Browser(timeout=60) as b:
        for k, path in enumerate(args.pages):
            shot = args.shot if k == len(args.pages) - 1 else None
            check_page(b, path, argparse.Namespace(shot=shot, search=args.search))


if __name__ == "__main__":
    main()
