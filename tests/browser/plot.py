#!/usr/bin/env python3
"""plot.py PAGE.html RECORDS.ndjson [options]: check a probe-plot page in headless Chromium.

The records are the metric records the page was drawn from (each rank's
steps one after another, as probe-plot reads them): what each
point, row and label should say is worked out here from them (the leaves'
own statistics, the ranks' numbers and dump folders), not read from the
page.  Prints one line per check, deterministic (names and counts, no
timings or paths); a failed check says what went wrong instead.  Used by
tests/cli/plot/browser.sh.  Exit status 0 unless the browser itself fails.

Options:
  --query TEXT      a filter to type into the table's filter box
  --started RANK    the rank that started it (the legend must name it)
  --title TEXT      what the page's title must say after "probe-plot: "
  --min-de N        the least CIELAB distance wanted between two ranks' colours
  --narrow PX       also check that the table fits a window this wide
"""
import argparse
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

STATS = ("max", "min", "mean", "norm")
MARK_COLOURS = ("#c8102e", "#e87d00")  # the red and orange of the marks


# ---- what the records say ----------------------------------------------------------

def run_label(leaf):
    """A run's label as every probe tool gives it: rank N, its proc<pid> folder, no rank."""
    if leaf.get("rank") is not None:
        return "rank %d" % leaf["rank"]
    procs = re.findall(r"(?:^|/)(proc[0-9]+)(?=/|$)", leaf.get("dump") or "")
    return procs[-1] if procs else "no rank"


def rel_value(t, g):
    """The tooltip's value line for the rel metric, by probe-plot(1)'s rules, from the two leaves."""
    pairs = []
    for s in STATS:
        a, b = t.get(s), g.get(s)
        if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
            continue
        try:
            pairs.append((float(a), float(b)))
        except (TypeError, ValueError):
            continue
    if not pairs:
        return "no rel"
    for a, b in pairs:
        d = abs(a - b)
        if not math.isfinite(d):
            return "rel nan" if math.isnan(d) else "rel inf"
    zero = [abs(a - b) for a, b in pairs if b == 0 and a != 0]
    if zero:
        return "golden 0: abs %.4g" % max(zero)
    v = max(abs(a - b) / abs(b) if b != 0 else 0.0 for a, b in pairs)
    return "rel 0" if v == 0 else "rel %.4g" % v


class Records:
    def __init__(self, path):
        self.leaves = {}      # (rank, x) -> record
        ranks = {}            # rank -> [its step now, where that step starts, just past its largest x]
        for line in open(path):
            r = json.loads(line)
            t = r.get("t")
            if not t:
                continue
            rank = -1 if t.get("rank") is None else t["rank"]
            # x: the seq, a later step of the rank continuing after the last x of the one before
            st = ranks.setdefault(rank, [object(), 0, 0])
            if t.get("step") != st[0]:
                st[0], st[1] = t.get("step"), st[2]
            x = st[1] + t["seq"]
            st[2] = max(st[2], x + 1)
            self.leaves[(rank, x)] = r
        self.ranks = sorted(ranks)      # the page's rank index is the place in numeric order
        self.labels = {}
        for (rank, _), r in self.leaves.items():
            self.labels.setdefault(rank, run_label(r["t"]))

    def tip(self, ri, x):
        r = self.leaves[(self.ranks[ri], x)]
        t = r["t"]
        where = self.labels[self.ranks[ri]]
        if t.get("step") is not None:
            where += ", step %d" % t["step"]
        where += ", seq %d" % t["seq"]
        return "%s\n%s\n%s" % (t["name"], where, rel_value(t, r["g"]))

    def listed(self):
        """The rows of the table: (rank index, x) of the target leaves that are not the same, in input order."""
        index = {rank: i for i, rank in enumerate(self.ranks)}
        return [(index[k[0]], k[1], r) for k, r in self.leaves.items() if r["verdict"] != "same"]


# ---- colours -------------------------------------------------------------------------

def lab(colour):
    """CIELAB (D65) of an sRGB colour "#rrggbb" or "rgb(r, g, b)"."""
    if colour.startswith("#"):
        rgb = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    else:
        rgb = [int(v) / 255 for v in re.findall(r"[0-9]+", colour)[:3]]
    lin = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in rgb]
    x = 0.4124 * lin[0] + 0.3576 * lin[1] + 0.1805 * lin[2]
    y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    z = 0.0193 * lin[0] + 0.1192 * lin[1] + 0.9505 * lin[2]

    def f(v):
        return v ** (1 / 3) if v > 216 / 24389 else (24389 / 27 * v + 16) / 116
    fx, fy, fz = f(x / 0.95047), f(y), f(z / 1.08883)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def hex_of(colour):
    if colour.startswith("#"):
        return colour.lower()
    return "#%02x%02x%02x" % tuple(int(v) for v in re.findall(r"[0-9]+", colour)[:3])


# ---- the page --------------------------------------------------------------------------

def js(fn, *args):
    return "(%s)(%s)" % (fn, ", ".join(json.dumps(a) for a in args))


# Every vertex of every rank's line and every dot: the data point of that rank at that place, if any.
COVERAGE = """function () {
	var d = window.probePlot.data, missing = [], drawn = 0;
	function has(ri, x, y) {
		return d.points.some(function (p) { return p[0] === ri && Math.abs(p[2] - x) < 0.05 && Math.abs(p[3] - y) < 0.05; });
	}
	document.querySelectorAll('#figure path.rank').forEach(function (path) {
		var ri = +path.getAttribute('data-ri'), re = /([ML])([-0-9.]+) ([-0-9.]+)/g, m;
		while ((m = re.exec(path.getAttribute('d')))) {
			drawn++;
			if (!has(ri, +m[2], +m[3])) missing.push(ri + ':' + m[2] + ',' + m[3]);
		}
	});
	document.querySelectorAll('#figure g.points').forEach(function (g) {
		var ri = +g.getAttribute('data-ri');
		g.querySelectorAll('circle').forEach(function (c) {
			drawn++;
			if (!has(ri, +c.getAttribute('cx'), +c.getAttribute('cy'))) missing.push(ri + ':' + c.getAttribute('cx'));
		});
	});
	return {drawn: drawn, points: d.points.length, missing: missing.slice(0, 3), nmissing: missing.length};
}"""

TO_CLIENT = """function (x, y) {
	var svg = document.querySelector('#figure svg'), p = svg.createSVGPoint();
	p.x = x; p.y = y;
	p = p.matrixTransform(svg.getScreenCTM());
	return [p.x, p.y];
}"""

# Is the picture's point (x, y) under a mark?
UNDER_MARK = """function (x, y) {
	var svg = document.querySelector('#figure svg'), p = svg.createSVGPoint();
	p.x = x; p.y = y;
	p = p.matrixTransform(svg.getScreenCTM());
	var e = document.elementFromPoint(p.x, p.y);
	return !!(e && e.closest && e.closest('.mark'));
}"""

ROW_PLACE = """function (id) {
	var row = document.getElementById(id), head = document.querySelector('#leaves thead th');
	if (!row) return null;
	var r = row.getBoundingClientRect(), h = head.getBoundingClientRect();
	return {top: r.top, bottom: r.bottom, head: h.bottom, height: window.innerHeight,
		leaf: row.querySelector('td.leaf').textContent, selected: row.classList.contains('selected')};
}"""

STICKY = """function () {
	var table = document.getElementById('leaves'), body = table.tBodies[0];
	var last = body.rows[body.rows.length - 1];
	window.scrollTo(0, window.scrollY + last.getBoundingClientRect().top - window.innerHeight / 2);
	var bar = document.getElementById('tablebar').getBoundingClientRect();
	var th = table.tHead.rows[0].cells[0].getBoundingClientRect();
	return {table: table.getBoundingClientRect().top, bar: bar.top, barBottom: bar.bottom, th: th.top, thBottom: th.bottom,
		rows: body.rows.length};
}"""

FITS = """function () {
	var e = document.documentElement, widest = 0;
	document.querySelectorAll('#leaves td.reason').forEach(function (c) { widest = Math.max(widest, c.getBoundingClientRect().right); });
	return {scroll: e.scrollWidth, width: e.clientWidth, reasonRight: widest,
		wraps: getComputedStyle(document.querySelector('#leaves td.reason') || document.body).overflowWrap};
}"""

VERDICTS = """function () {
	var out = {rows: {}, chips: {}, key: {}};
	document.querySelectorAll('#leaves tbody tr:not(.selected)').forEach(function (tr) {
		var v = tr.querySelector('td.verdict').textContent, chip = tr.querySelector('td.verdict .chip');
		(out.rows[v] = out.rows[v] || {})[getComputedStyle(tr).backgroundColor] = 1;
		(out.chips[v] = out.chips[v] || {})[getComputedStyle(chip).backgroundColor] = 1;
	});
	document.querySelectorAll('#verdict-key .entry').forEach(function (e) {
		var chip = e.querySelector('.chip');
		if (chip) out.key[chip.textContent] = {colour: getComputedStyle(chip).backgroundColor, meaning: e.getAttribute('title') || ''};
	});
	return out;
}"""

RANK_COLOURS = """function () {
	var lines = {}, legend = [], key = {};
	document.querySelectorAll('#figure path.rank').forEach(function (p) { lines[p.getAttribute('data-ri')] = p.getAttribute('stroke'); });
	document.querySelectorAll('#figure line.legend-rank').forEach(function (l) {
		var t = l.nextElementSibling;
		while (t && t.tagName !== 'text') t = t.nextElementSibling;
		legend.push({colour: l.getAttribute('stroke'), text: t ? t.textContent : ''});
	});
	document.querySelectorAll('#ranks li').forEach(function (li) {
		key[li.getAttribute('data-ri')] = {colour: getComputedStyle(li.querySelector('.swatch')).backgroundColor,
			text: li.textContent, started: li.classList.contains('started')};
	});
	return {lines: lines, legend: legend, key: key, ranks: window.probePlot.data.ranks};
}"""

# Every text a person reads: the page's text, the picture's texts and tooltips, every point's tooltip.
ALL_TEXT = """function () {
	var pp = window.probePlot, out = [document.title, document.body.innerText];
	document.querySelectorAll('#figure text, #figure title').forEach(function (e) { out.push(e.textContent); });
	document.querySelectorAll('[title]').forEach(function (e) { out.push(e.getAttribute('title')); });
	document.querySelectorAll('#figure .mark').forEach(function (e) { out.push(e.getAttribute('data-tip')); });
	pp.data.points.forEach(function (p, i) { out.push(pp.tipText(i)); });
	pp.data.ranks.forEach(function (r) { out.push(r.label); });
	return out;
}"""


def value_kind(value):
    if value.startswith("golden 0"):
        return "golden 0"
    if value.split()[-1] in ("inf", "nan"):
        return "inf/nan"
    return {"rel 0": "0", "no rel": "none"}.get(value, "rel")


def say(ok, good, bad):
    print(good if ok else bad)


def check_load(page):
    say(not page.errors and not page.requests, "page: loaded, no console error, no network request",
        "page: errors %r, requests %r" % (page.errors, page.requests))


def check_title(page, want):
    t = page.evaluate("[document.title, document.querySelector('h1').textContent, "
                      "document.querySelector('#figure svg > title').textContent]")
    say(all(x == "probe-plot: " + want for x in t), "title: the page, its heading and the picture name %s" % want,
        "title: %r, want %r" % (t, "probe-plot: " + want))


def check_tooltips(page, rec):
    cov = page.evaluate(js(COVERAGE))
    say(cov["nmissing"] == 0 and cov["drawn"] > 0,
        "points: every vertex and dot drawn has its point in the page's data",
        "points: %d of %d drawn have no point: %r" % (cov["nmissing"], cov["drawn"], cov["missing"]))
    points = page.evaluate("window.probePlot.data.points.map(function (p, i) { return [p[0], p[1], window.probePlot.tipText(i)]; })")
    wrong = [(ri, x, text) for ri, x, text in points if text != rec.tip(ri, x)]
    kinds = sorted({value_kind(text.split("\n")[2]) for _, _, text in points})
    say(not wrong, "tooltips: all %s say leaf, run, step, seq and value as worked out (values: %s)" % (
        "points" if len(points) != 1 else "1 point", ", ".join(kinds)),
        "tooltips: %d wrong, e.g. %r, want %r" % (len(wrong), wrong[0][2] if wrong else "",
                                                   rec.tip(wrong[0][0], wrong[0][1]) if wrong else ""))
    # a real mouse over three points (none under a mark): the tooltip shows the point there
    page.evaluate("window.scrollTo(0, 0)")
    shown = []
    for start in (0, len(points) // 2, len(points) - 1):
        i = next((k for k in list(range(start, len(points))) + list(range(start, -1, -1))
                  if not page.evaluate(js(UNDER_MARK, *page.evaluate("window.probePlot.data.points[%d].slice(2, 4)" % k)))), None)
        if i is None:
            shown.append(False)
            continue
        p = page.evaluate("window.probePlot.data.points[%d]" % i)
        x, y = page.evaluate(js(TO_CLIENT, p[2], p[3]))
        page.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})
        j = page.evaluate(js("function (x, y) { return window.probePlot.pointAt(x, y); }", p[2], p[3]))
        q = page.evaluate("window.probePlot.data.points[%d]" % j)
        tip = page.evaluate("(function(){var t=document.getElementById('tip'); return t.hidden ? null : t.textContent;})()")
        shown.append(tip is not None and q[2] == p[2] and q[3] == p[3] and tip == rec.tip(q[0], q[1]))
    say(all(shown), "hover: the tooltip under the mouse shows the point there (3 of 3)",
        "hover: %r" % shown)


def pick_listed_point(page, rec):
    """A point drawn whose leaf is in the table: its index."""
    listed = {(ri, x) for ri, x, _ in rec.listed()}
    points = page.evaluate("window.probePlot.data.points")
    for i in range(len(points) - 1, -1, -1):
        p = points[i]
        if (p[0], p[1]) in listed and page.evaluate("window.probePlot.pointAt(%r, %r)" % (p[2], p[3])) == i:
            return i, p
    return None, None


def check_row_shown(page, rid, leaf, what):
    place = page.evaluate(js(ROW_PLACE, rid))
    ok = place and place["selected"] and place["leaf"] == leaf and place["top"] >= place["head"] - 0.5 \
        and place["bottom"] <= place["height"] + 0.5
    say(ok, "%s: selects the row of %s, scrolled into view under the head" % (what, leaf),
        "%s: row %s: %r" % (what, rid, place))


def check_clicks(page, rec):
    i, p = pick_listed_point(page, rec)
    if i is None:
        print("click a point: no point drawn is listed in the table")
    else:
        page.evaluate("window.scrollTo(0, 0)")
        page.click(tuple(page.evaluate(js(TO_CLIENT, p[2], p[3]))))
        sel = page.evaluate("window.probePlot.selected()")
        want = "row-%d-%d" % (p[0], p[1])
        if sel != want:
            print("click a point: selected %r, want %r" % (sel, want))
        else:
            check_row_shown(page, want, rec.leaves[(rec.ranks[p[0]], p[1])]["t"]["name"], "click a point")
    marks = page.evaluate("Array.prototype.map.call(document.querySelectorAll('#figure .mark'), function (m) {"
                          " return [m.getAttribute('data-kind'), +m.getAttribute('data-ri'), +m.getAttribute('data-x'),"
                          " m.getAttribute('data-leaf')]; })")
    if not marks:
        print("click a mark: no mark")
        return
    kind, ri, x, leaf = marks[-1]
    page.evaluate("window.scrollTo(0, 0)")
    centre = page.centre("#figure .mark[data-ri='%d'][data-x='%d'] path" % (ri, x))
    page.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": centre[0], "y": centre[1]})
    tip = page.evaluate("(function(){var t=document.getElementById('tip'); return t.hidden ? '' : t.textContent;})()")
    t = rec.leaves[(rec.ranks[ri], x)]["t"]
    want = "first %s, %s, step %d, seq %d: %s (" % ("divergence" if kind == "divergence" else "non-finite",
                                                   rec.labels[rec.ranks[ri]], t["step"], t["seq"], t["name"])
    say(tip.startswith(want), "hover the %s mark: %s...)" % (kind, want), "hover the %s mark: %r, want %r..." % (kind, tip, want))
    page.click("#figure .mark[data-ri='%d'][data-x='%d'] path" % (ri, x))
    sel = page.evaluate("window.probePlot.selected()")
    if sel != "row-%d-%d" % (ri, x) or rec.leaves[(rec.ranks[ri], x)]["t"]["name"] != leaf:
        print("click a mark: selected %r, want row-%d-%d" % (sel, ri, x))
    else:
        check_row_shown(page, sel, leaf, "click the %s mark of %s" % (kind, rec.labels[rec.ranks[ri]]))


def check_filter(page, rec, query):
    listed = rec.listed()
    q = query.lower()
    want = sum(q in r["t"]["name"].lower() or q in rec.labels[rec.ranks[ri]] for ri, _, r in listed)
    page.evaluate("window.scrollTo(0, 0)")
    page.click("#filter")
    page.type_text(query)
    got = page.evaluate("document.querySelectorAll('#leaves tbody tr:not(.hidden)').length")
    shown = page.evaluate("Array.prototype.every.call(document.querySelectorAll('#leaves tbody tr:not(.hidden)'),"
                          " function (r) { return (r.cells[0].textContent + '\\t' + r.querySelector('td.leaf').textContent)"
                          ".toLowerCase().indexOf(%s) >= 0; })" % json.dumps(q))
    count = page.evaluate("document.getElementById('filter-count').textContent")
    say(got == want and shown and count == "%d of %d rows" % (want, len(listed)),
        "filter %s: %d of %d rows, each holding it (%s)" % (json.dumps(query), want, len(listed), count),
        "filter %s: %d rows shown (%s), want %d" % (json.dumps(query), got, count, want))
    page.evaluate("window.probePlot.filter('')")


def check_sticky(page):
    s = page.evaluate(js(STICKY))
    ok = s["table"] < 0 and abs(s["bar"]) < 0.5 and abs(s["th"] - s["barBottom"]) < 1.5
    say(ok, "sticky: scrolled into the table (%d rows), the filter bar and the head stay at the top" % s["rows"],
        "sticky: %r" % s)


def check_fits(page, widths):
    out = []
    for w in widths:
        page.send("Emulation.setDeviceMetricsOverride", {"width": w, "height": 800, "deviceScaleFactor": 1, "mobile": False})
        page.browser.pump(0.2)
        f = page.evaluate(js(FITS))
        out.append((w, f["scroll"] <= f["width"] and f["reasonRight"] <= f["width"] and f["wraps"] == "anywhere"))
    page.send("Emulation.clearDeviceMetricsOverride")
    page.browser.pump(0.2)
    say(all(ok for _, ok in out), "fits: the table fits windows %s wide, reason wraps" % " and ".join(str(w) for w, _ in out),
        "fits: %r" % out)


def check_verdicts(page, rec):
    v = page.evaluate(js(VERDICTS))
    present = sorted(v["rows"])
    want = sorted({r["verdict"] for _, _, r in rec.listed()})
    ok = present == want
    rowc, chipc = {}, {}
    for name in present:
        if len(v["rows"][name]) != 1 or len(v["chips"][name]) != 1:
            ok = False
            continue
        rowc[name] = list(v["rows"][name])[0]
        chipc[name] = list(v["chips"][name])[0]
        k = v["key"].get(name)
        ok = ok and k is not None and k["colour"] == chipc[name] and k["meaning"] != ""
    ok = ok and len(set(rowc.values())) == len(present) and len(set(chipc.values())) == len(present)
    say(ok, "verdict colours: %s, one colour each in rows and chips, the key has each with its meaning" % ", ".join(present),
        "verdict colours: %r, want verdicts %r" % (v, want))


def check_rank_colours(page, rec, min_de, started):
    c = page.evaluate(js(RANK_COLOURS))
    n = len(rec.ranks)
    lines = {int(k): hex_of(v) for k, v in c["lines"].items()}
    colours = [c["ranks"][i]["color"] for i in range(n)]
    ok = len(set(colours)) == n and all(lines.get(i, colours[i]) == colours[i] for i in range(n))
    ok = ok and all(hex_of(c["key"][str(i)]["colour"]) == colours[i] for i in range(n))
    labels = {e["text"].replace(" (started it)", ""): e["colour"] for e in c["legend"]}
    ok = ok and all(colours[rec.ranks.index(int(t.split()[1]))] == col for t, col in labels.items() if t.startswith("rank "))
    nearest = min((math.dist(lab(a), lab(b)) for i, a in enumerate(colours) for b in colours[i + 1:]), default=99)
    from_marks = min(math.dist(lab(a), lab(m)) for a in colours for m in MARK_COLOURS)
    say(ok and nearest >= min_de and from_marks >= 20,
        ("rank colours: %d ranks, %d distinct colours, no two nearer than %g (CIELAB), none near the marks' red and orange;"
         " the lines, the legend and the key agree" % (n, n, min_de)) if n > 1 else
        "rank colours: 1 rank, not near the marks' red and orange; the line, the legend and the key agree",
        "rank colours: agree %s, nearest two %.1f (want %g), from the marks %.1f" % (ok, nearest, min_de, from_marks))
    if started is not None:
        names = [e["text"] for e in c["legend"]]
        want = "rank %d (started it)" % started
        key = [v["text"] for v in c["key"].values() if v["started"]]
        say(want in names and key == [want],
            "legend: names %s among %d ranks (%s)" % (want, n, " | ".join(names)),
            "legend: %r, key %r, want %r" % (names, key, want))


def check_labels(page, rec):
    texts = page.evaluate(js(ALL_TEXT))
    bad = [t for t in texts if t and re.search(r"rank \?|\(no rank\)|rank -1\b|(^|\s)-1(\s|$)|\bnull\b|\bundefined\b", t)]
    labels = sorted(set(rec.labels.values()))
    shown = all(any(l in t for t in texts) for l in labels)
    numbers = sorted(int(l.split()[1]) for l in labels if re.fullmatch(r"rank [0-9]+", l))
    if len(numbers) > 8 and len(numbers) == len(labels) and numbers == list(range(numbers[0], numbers[-1] + 1)):
        labels = ["rank %d to rank %d" % (numbers[0], numbers[-1])]
    say(not bad and shown, "labels: %s, and no 'rank ?', '-1', '(no rank)' or null anywhere" % ", ".join(labels),
        "labels: %d bad texts, e.g. %r" % (len(bad), bad[:2]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("records")
    ap.add_argument("--query")
    ap.add_argument("--started", type=int)
    ap.add_argument("--title")
    ap.add_argument("--min-de", type=float, default=20)
    ap.add_argument("--narrow", type=int)
    a = ap.parse_args()
    rec = Records(a.records)
    with cdp.Browser(timeout=60) as b:
        page = b.open("file://" + os.path.abspath(a.page), timeout=120)
        page.wait_for("document.body.dataset.ready === '1'", timeout=60)
        check_load(page)
        if a.title:
            check_title(page, a.title)
        check_labels(page, rec)
        check_rank_colours(page, rec, a.min_de, a.started)
        check_tooltips(page, rec)
        check_clicks(page, rec)
        if a.query:
            check_filter(page, rec, a.query)
        check_sticky(page)
        check_verdicts(page, rec)
        check_fits(page, [1280] + ([a.narrow] if a.narrow else []))
        b.pump(0.2)
        if page.errors or page.requests:
            print("after the checks: errors %r, requests %r" % (page.errors, page.requests))


if __name__ == "__main__":
    main()
