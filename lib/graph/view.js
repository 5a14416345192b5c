/*
 * view.js: the browser side of probe-graph, a self-contained viewer of the
 * target and golden model graphs of one comparison.  No network, no
 * libraries: plain ES2017.  probe-graph writes the page from view.html,
 * putting view.css, the data and this file in place of @CSS@, @DATA@, @JS@.
 *
 * DATA, in the JSON script element probe-graph-data (no less-than sign,
 * greater-than sign or ampersand in it: each is a \u escape, as are U+2028
 * and U+2029; a character a page may not hold is U+FFFD: jsonw_script_safe()):
 *   { "tool": "probe-graph", "version": 1,
 *     "mode": "statistics" | "tensor" | "md5" | "build",   build: no golden side
 *     "first_rank": int | null,                  the rank where the divergence started
 *     "graphs": [ {                              one per (rank, step)
 *        "rank": int | null, "step": int, "label": "rank 0 step 0",
 *        "target": { "label", "dump", "nodes": [NODE...] },
 *        "golden": { "label", "dump", "nodes": [NODE...] } | null,
 *        "stacks": [ [frame text, ...], ... ],   indexed by NODE.st
 *        "first": target index of the first divergence, or -1,
 *        "diverging": [target indices that differ, in execution order] } ] }
 *   NODE = { "n": name (nodes[0] is the root DefaultModel), "t": 0 module | 1 API | 9 collection,
 *     "p": parent index (-1: root), "c": [children], "o": node_order (post-order: execution order),
 *     "m": matched index on the other side (-1: none), "ms": micro step,
 *     "pi": msprobe precision index null | 0 | 0.5 | 1, "ov": null | "critical" | "high" | "medium",
 *     "v": "same" | "diff" | "first" | "propagated" | "received" | "unmatched" | "",
 *     "why": reason, "where": the user's own line or "", "st": stack index or -1,
 *     "md": msprobe's matched_distributed {"communications_type", "nodes_info": {rank: [index, node]}} (absent: none),
 *     "in": [[leaf name, {field: string}], ...], "out": [[leaf name, {field: string}], ...] }
 *     (or each as an object {leaf name: {field: string}}, msprobe's input_data form); without them on the
 *     node, they are in a script of their own per "leaf_chunk" nodes (top level: the chunk size):
 *     a script element of type application/json and id pg-leaves-GRAPH-SIDE-CHUNK holding [[in, out], ...],
 *     GRAPH the graph's index, SIDE target or golden, CHUNK floor(node index / leaf_chunk), parsed when
 *     first needed
 *   Target and golden leaves of a matched pair line up by position in "in" and in "out".
 *   Every field but n, p and c may be missing: a missing one reads as its "none".
 *   On the golden side a missing or empty v / pi reads as its matched target node's.
 *
 * The trees are virtualised: each side keeps the flattened list of its visible
 * rows (expanded modules only) and builds DOM for the rows in the window only.
 * Test hooks: window.probeGraph (see exposeApi) and document.body.dataset.ready.
 */
(function () {
	'use strict';

	var ROW_H = 22;          /* px, as --row-h in view.css */
	var OVERSCAN = 8;        /* rows drawn above and below the window */
	var MAX_LEAVES = 64;     /* leaves shown per list in the detail panel */
	var MAX_HITS_LISTED = 50;
	var SIDES = ['target', 'golden'];
	var TYPE_GLYPH = { 0: 'M', 1: '\u0192', 9: '\u2026' };
	var TYPE_NAME = { 0: 'module', 1: 'API', 9: 'APIs between modules' };
	var OV_RANK = { medium: 1, high: 2, critical: 3 };
	var OV_SHORT = { medium: '\u26A0 med', high: '\u26A0 high', critical: '\u26A0 crit' };
	var DIVERGING = { first: 1, diff: 1, propagated: 1, received: 1 };
	var PRECISION = [   /* msprobe's legend */
		{ key: 'pass', cls: 'c-pass', badge: 'pass', label: 'pass (0)', colour: '#FFFCF3' },
		{ key: 'warn', cls: 'c-warn', badge: 'warn', label: 'warning (0.5)', colour: '#FFDC7F' },
		{ key: 'err', cls: 'c-err', badge: 'err', label: 'error (1)', colour: '#FF704D' },
		{ key: 'unm', cls: 'c-unm', badge: 'unmatched', label: 'unmatched', colour: '#C7C7C7' }
	];
	var VERDICT = {
		first: { cls: 'v-first', badge: '\u2717 first', label: 'first divergence', colour: '#C62828' },
		diff: { cls: 'v-diff', badge: '\u2260 diff', label: 'differs', colour: '#FFB199' },
		propagated: { cls: 'v-prop', badge: '\u21B3 propagated', label: 'propagated from earlier', colour: '#FFE3B0' },
		received: { cls: 'v-recv', badge: '\u21E0 received', label: 'received from another rank', colour: '#D6CCF5' },
		same: { cls: 'v-same', badge: '= same', label: 'same', colour: '#F4F7F4' },
		unmatched: { cls: 'v-unm', badge: '\u2205 unmatched', label: 'unmatched', colour: '#C7C7C7' }
	};
	var MARK = { first: '#C62828', diff: '#E8590C', propagated: '#F0A030', received: '#7E57C2', err: '#E8401C', warn: '#D4A000', unm: '#8C8C8C', sel: '#1F6FEB' };

	var data = null;
	var S = {                 /* the page's state */
		g: -1, graph: null, build: false,
		mode: 'precision',
		sides: {},            /* name -> side view (makeSide) */
		sel: null,            /* {side, index} */
		active: 'target',     /* the tree the keys act on */
		filter: { diverging: false, unmatched: false, overflow: '' },
		search: { text: '', hits: [], pos: -1 },
		leafCache: {}         /* "graph-side-chunk" -> the chunk's parsed leaves */
	};
	var $ = function (id) { return document.getElementById(id); };

	/* ---------- small helpers ---------- */

	function el(tag, attrs, kids) {
		var e = document.createElement(tag);
		if (attrs) Object.keys(attrs).forEach(function (k) {
			if (k === 'text') e.textContent = attrs[k];
			else if (k === 'cls') e.className = attrs[k];
			else if (k === 'on') Object.keys(attrs.on).forEach(function (ev) { e.addEventListener(ev, attrs.on[ev]); });
			else e.setAttribute(k, attrs[k]);
		});
		(kids || []).forEach(function (c) { if (c != null) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
		return e;
	}
	function other(side) { return side === 'target' ? 'golden' : 'target'; }
	function nodeOf(side, i) { var s = S.sides[side]; return s && i >= 0 && i < s.nodes.length ? s.nodes[i] : null; }
	function partner(side, i) {
		var n = nodeOf(side, i), o = S.sides[other(side)];
		if (!n || !o || n.m == null || n.m < 0 || n.m >= o.nodes.length) return -1;
		return n.m;
	}
	function kids(n) { return n.c || []; }

	/* Our verdict of a node; the golden side falls back on its target partner's. */
	function verdictOf(side, i) {
		var n = nodeOf(side, i);
		if (!n) return '';
		var v = n.v || '';
		if (v === '' && side === 'golden') {
			var p = partner(side, i);
			if (p >= 0) v = S.sides.target.nodes[p].v || '';
		}
		if (v === '' && (n.m == null || n.m < 0) && !S.build) v = 'unmatched';
		return v;
	}
	/* msprobe's precision class: 'pass' | 'warn' | 'err' | 'unm' | '' */
	function precisionOf(side, i) {
		var n = nodeOf(side, i);
		if (!n) return '';
		if (n.m == null || n.m < 0) return 'unm';
		var pi = n.pi;
		if ((pi == null) && side === 'golden') pi = S.sides.target.nodes[n.m].pi;
		if (pi == null) return '';
		return pi >= 1 ? 'err' : pi >= 0.5 ? 'warn' : 'pass';
	}
	function isDiverging(side, i) {
		return DIVERGING[verdictOf(side, i)] === 1 || precisionOf(side, i) === 'err';
	}
	function isFirst(side, i) {
		var f = S.graph ? S.graph.first : -1;
		if (f == null || f < 0) return false;
		return side === 'target' ? i === f : partner('target', f) === i;
	}

	/* ---------- data ---------- */

	function loadData() {
		var script = $('probe-graph-data');
		if (!script) throw new Error('probe-graph: no data in the page');
		var d = JSON.parse(script.textContent);
		if (!d || d.tool !== 'probe-graph' || !Array.isArray(d.graphs)) throw new Error('probe-graph: the data is not probe-graph\'s');
		return d;
	}

	/* A node's leaves as lists [[leaf, fields], ...]: from the node itself, or from its chunk's script, parsed once. */
	function asList(x) { return !x ? [] : Array.isArray(x) ? x : Object.entries(x); }
	function leavesOf(side, i) {
		var n = nodeOf(side, i);
		if (!n) return { in: [], out: [] };
		if (n.in || n.out) return { in: asList(n.in), out: asList(n.out) };
		var size = data.leaf_chunk, c = size ? Math.floor(i / size) : -1, key = S.g + '-' + side + '-' + c;
		if (c < 0) return { in: [], out: [] };
		var chunk = S.leafCache[key];
		if (!chunk) {
			var script = $('pg-leaves-' + key);
			chunk = S.leafCache[key] = script ? JSON.parse(script.textContent) : [];
		}
		var pair = chunk[i - c * size] || [{}, {}];
		return { in: asList(pair[0]), out: asList(pair[1]) };
	}

	function makeSide(name, sd) {
		var n = sd.nodes.length;
		return {
			name: name, label: sd.label || name, dump: sd.dump || '', nodes: sd.nodes,
			expanded: new Uint8Array(n),
			keep: null,                 /* filter: bit 2 the node passes, bit 1 a descendant does */
			hit: null,                  /* search matches */
			lower: null,                /* lower-case names, built on the first search */
			rows: new Int32Array(16), depth: new Int32Array(16), count: 0,
			rowOf: new Int32Array(n),
			tree: $('tree-' + name), spacer: null, pool: [], frame: 0,
			canvas: null, viewport: null
		};
	}

	/* ---------- filters ---------- */

	function filterActive() { var f = S.filter; return f.diverging || f.unmatched || f.overflow !== ''; }
	function passesFilter(side, i) {
		var f = S.filter, n = S.sides[side].nodes[i];
		if (f.diverging && !isDiverging(side, i)) return false;
		if (f.unmatched && !(n.m == null || n.m < 0)) return false;
		if (f.overflow !== '' && !((OV_RANK[n.ov] || 0) >= OV_RANK[f.overflow])) return false;
		return true;
	}
	/* Marks the nodes that pass the filter (2) and their ancestors (1); opens the ancestors. */
	function computeKeep(s) {
		if (!filterActive()) { s.keep = null; return 0; }
		var nodes = s.nodes, keep = new Uint8Array(nodes.length), passing = 0;
		for (var i = 0; i < nodes.length; i++) {
			if (!passesFilter(s.name, i)) continue;
			passing++;
			keep[i] |= 2;
			for (var j = nodes[i].p; j != null && j >= 0 && !(keep[j] & 1); j = nodes[j].p) {
				keep[j] |= 1;
				s.expanded[j] = 1;
			}
		}
		if (nodes.length) keep[0] |= 1;
		s.keep = keep;
		return passing;
	}

	/* ---------- the flattened visible list ---------- */

	function pushRow(s, i, d) {
		if (s.count === s.rows.length) {
			var r = new Int32Array(s.rows.length * 2), dd = new Int32Array(s.rows.length * 2);
			r.set(s.rows); dd.set(s.depth); s.rows = r; s.depth = dd;
		}
		s.rowOf[i] = s.count;
		s.rows[s.count] = i; s.depth[s.count] = d; s.count++;
	}
	function flatten(s) {
		var nodes = s.nodes, keep = s.keep;
		s.count = 0;
		s.rowOf.fill(-1);
		if (!nodes.length) return;
		var stack = [0], depths = [0];
		while (stack.length) {
			var i = stack.pop(), d = depths.pop();
			pushRow(s, i, d);
			if (!s.expanded[i]) continue;
			var c = kids(nodes[i]);
			for (var k = c.length - 1; k >= 0; k--) {
				if (keep && !keep[c[k]]) continue;
				stack.push(c[k]); depths.push(d + 1);
			}
		}
	}

	/* ---------- drawing the trees ---------- */

	function colourClass(side, i) {
		if (S.mode === 'precision') {
			var p = precisionOf(side, i);
			return p ? 'c-' + p : 'c-none';
		}
		var v = verdictOf(side, i);
		return VERDICT[v] ? VERDICT[v].cls : 'v-none';
	}
	function badgeText(side, i) {
		if (S.mode === 'precision') {
			var p = precisionOf(side, i);
			var t = p === 'pass' ? 'pass' : p === 'warn' ? 'warn' : p === 'err' ? 'err' : p === 'unm' ? 'unmatched' : '';
			return isFirst(side, i) ? '\u2717 first' + (t && t !== 'unmatched' ? ' \u00B7 ' + t : '') : t;
		}
		var v = verdictOf(side, i);
		if (isFirst(side, i)) return '\u2717 first';
		return VERDICT[v] ? VERDICT[v].badge : '';
	}

	function makeRow(s, slot) {
		var r = el('div', { cls: 'row', role: 'treeitem', id: s.name + '-row-' + slot });
		r.appendChild(el('span', { cls: 'tw', 'aria-hidden': 'true' }));
		r.appendChild(el('span', { cls: 'ty', 'aria-hidden': 'true' }));
		r.appendChild(el('span', { cls: 'b' }));
		r.appendChild(el('span', { cls: 'nm' }));
		r.appendChild(el('span', { cls: 'kids' }));
		r.appendChild(el('span', { cls: 'ov' }));
		s.spacer.appendChild(r);
		return r;
	}

	function drawRow(s, r, row) {
		var i = s.rows[row], n = s.nodes[i], c = kids(n), side = s.name;
		var sel = S.sel && S.sel.side === side && S.sel.index === i;
		var part = S.sel && S.sel.side !== side && partner(S.sel.side, S.sel.index) === i;
		var cls = 'row ' + colourClass(side, i);
		if (sel) cls += ' sel';
		if (part) cls += ' partner';
		if (s.hit && s.hit[i]) cls += ' hit';
		if (s.keep && s.keep[i] === 1) cls += ' ctx';
		if (isFirst(side, i)) cls += ' is-first';
		r.className = cls;
		r.style.transform = 'translateY(' + row * ROW_H + 'px)';
		r.style.paddingLeft = (4 + s.depth[row] * 14) + 'px';
		r.dataset.index = i;
		r.setAttribute('aria-level', s.depth[row] + 1);
		r.setAttribute('aria-selected', sel ? 'true' : 'false');
		if (c.length) r.setAttribute('aria-expanded', s.expanded[i] ? 'true' : 'false');
		else r.removeAttribute('aria-expanded');
		var parts = r.childNodes;
		parts[0].textContent = c.length ? (s.expanded[i] ? '\u25BE' : '\u25B8') : '';
		parts[1].textContent = TYPE_GLYPH[n.t] || '';
		parts[2].textContent = badgeText(side, i);
		parts[3].textContent = n.n;
		parts[4].textContent = c.length ? '(' + c.length + ')' : '';
		parts[5].textContent = n.ov ? (OV_SHORT[n.ov] || n.ov) : '';
		r.title = n.n;
		if (sel) s.tree.setAttribute('aria-activedescendant', r.id);
	}

	function drawWindow(s) {
		var t = s.tree, top = t.scrollTop, h = t.clientHeight || 400;
		var first = Math.max(0, Math.floor(top / ROW_H) - OVERSCAN);
		var last = Math.min(s.count, Math.ceil((top + h) / ROW_H) + OVERSCAN);
		var need = last - first, slot;
		while (s.pool.length < need) s.pool.push(makeRow(s, s.pool.length));
		if (!S.sel || S.sel.side !== s.name) s.tree.removeAttribute('aria-activedescendant');
		for (slot = 0; slot < need; slot++) {
			s.pool[slot].hidden = false;
			drawRow(s, s.pool[slot], first + slot);
		}
		for (; slot < s.pool.length; slot++) s.pool[slot].hidden = true;
		s.shown = [first, last];
		drawViewport(s);
	}

	function renderSide(s) {
		s.spacer.style.height = Math.max(s.count * ROW_H, 1) + 'px';
		drawWindow(s);
		drawMinimap(s);
	}
	function eachSide(fn) { SIDES.forEach(function (name) { if (S.sides[name]) fn(S.sides[name]); }); }
	function refresh(reflatten) {
		eachSide(function (s) { if (reflatten) flatten(s); renderSide(s); });
	}
	function redraw() { eachSide(drawWindow); }

	/* ---------- the overview bar ---------- */

	function markColour(side, i) {
		if (isFirst(side, i)) return MARK.first;
		if (S.search.text && S.sides[side].hit && S.sides[side].hit[i]) return '#C9B800';
		if (S.mode === 'precision') {
			var p = precisionOf(side, i);
			return p === 'err' ? MARK.err : p === 'warn' ? MARK.warn : null;
		}
		var v = verdictOf(side, i);
		return MARK[v] || (v === 'unmatched' ? MARK.unm : null);
	}
	function drawMinimap(s) {
		var c = s.canvas, box = c.parentNode, w = box.clientWidth || 12, h = box.clientHeight || 300;
		if (c.width !== w || c.height !== h) { c.width = w; c.height = h; }
		var g = c.getContext('2d');
		g.clearRect(0, 0, w, h);
		if (!s.count) return;
		var scale = h / s.count, lastY = -1, lastC = null;
		for (var r = 0; r < s.count; r++) {
			var col = markColour(s.name, s.rows[r]);
			if (!col) continue;
			var y = Math.floor(r * scale);
			if (y === lastY && (col === lastC || lastC === MARK.first)) continue;
			g.fillStyle = col;
			g.fillRect(0, y, w, Math.max(2, Math.ceil(scale)));
			lastY = y; lastC = col;
		}
		if (S.sel && S.sel.side === s.name && s.rowOf[S.sel.index] >= 0) {
			g.fillStyle = MARK.sel;
			g.fillRect(0, Math.floor(s.rowOf[S.sel.index] * scale), w, 3);
		}
		drawViewport(s);
	}
	function drawViewport(s) {
		var t = s.tree, sh = Math.max(t.scrollHeight, 1), h = s.canvas.parentNode.clientHeight;
		s.viewport.style.top = (t.scrollTop / sh * h) + 'px';
		s.viewport.style.height = Math.min(h, t.clientHeight / sh * h) + 'px';
	}
	function onMinimapClick(s, ev) {
		var box = s.canvas.parentNode, rect = box.getBoundingClientRect();
		var frac = (ev.clientY - rect.top) / Math.max(rect.height, 1);
		var row = Math.floor(frac * s.count);
		/* the nearest marked row within a few pixels, if any: select it */
		var span = Math.ceil(s.count / Math.max(rect.height, 1) * 3), best = -1;
		for (var d = 0; d <= span && best < 0; d++) {
			if (row + d < s.count && markColour(s.name, s.rows[row + d])) best = row + d;
			else if (row - d >= 0 && row - d < s.count && markColour(s.name, s.rows[row - d])) best = row - d;
		}
		if (best >= 0) { select(s.name, s.rows[best]); return; }
		s.tree.scrollTop = frac * s.tree.scrollHeight - s.tree.clientHeight / 2;
	}

	/* ---------- expansion, kept in step on both sides ---------- */

	/* Opens or closes node i and its partner; true when that changed anything. */
	function setOpen(side, i, open) {
		var s = S.sides[side], n = nodeOf(side, i), v = open ? 1 : 0, changed = false;
		if (!n || !kids(n).length) return false;
		if (s.expanded[i] !== v) { s.expanded[i] = v; changed = true; }
		var p = partner(side, i), o = S.sides[other(side)];
		if (p >= 0 && kids(o.nodes[p]).length && o.expanded[p] !== v) { o.expanded[p] = v; changed = true; }
		return changed;
	}
	function expand(side, i, open) {
		if (open === undefined) open = true;
		var n = nodeOf(side, i);
		if (!n || !kids(n).length) return;
		var changed = setOpen(side, i, open);
		if (open) changed = reveal(side, i) || changed;
		if (changed) refresh(true);
	}
	function toggle(side, i) { expand(side, i, !S.sides[side].expanded[i]); }
	/* Opens the ancestors of node i on one side (and their partners); true when that changed anything. */
	function revealOnly(side, i) {
		var s = S.sides[side], changed = false;
		if (!s) return false;
		for (var j = s.nodes[i].p; j != null && j >= 0; j = s.nodes[j].p) {
			if (setOpen(side, j, true)) changed = true;
			if (s.keep && !s.keep[j]) { s.keep[j] = 1; changed = true; }
		}
		if (s.keep && !s.keep[i]) { s.keep[i] = 1; changed = true; }
		return changed;
	}
	function reveal(side, i) {
		var changed = revealOnly(side, i), p = partner(side, i);
		if (p >= 0 && revealOnly(other(side), p)) changed = true;
		return changed;
	}

	/* ---------- selection ---------- */

	function scrollToRow(s, row) {
		if (row < 0) return;
		var t = s.tree, y = row * ROW_H, h = t.clientHeight;
		if (y < t.scrollTop || y + ROW_H > t.scrollTop + h) t.scrollTop = Math.max(0, y - h / 2 + ROW_H / 2);
	}
	function select(side, i, opts) {
		opts = opts || {};
		if (!nodeOf(side, i)) return false;
		S.sel = { side: side, index: i };
		S.active = side;
		refresh(reveal(side, i));
		scrollToRow(S.sides[side], S.sides[side].rowOf[i]);
		var p = partner(side, i);
		if (p >= 0) scrollToRow(S.sides[other(side)], S.sides[other(side)].rowOf[p]);
		redraw();
		updateDivPos();
		showDetail();
		if (opts.focus) S.sides[side].tree.focus({ preventScroll: true });
		return true;
	}
	function selected() {
		if (!S.sel) return null;
		return { side: S.sel.side, index: S.sel.index, name: nodeOf(S.sel.side, S.sel.index).n };
	}
	function moveSelection(delta) {
		var s = S.sides[S.active];
		if (!s || !s.count) return;
		var cur = S.sel && S.sel.side === s.name ? s.rowOf[S.sel.index] : -1;
		var row = cur < 0 ? 0 : Math.max(0, Math.min(s.count - 1, cur + delta));
		select(s.name, s.rows[row], { focus: true });
	}

	/* ---------- divergence navigation ---------- */

	function targetOfSelection() {
		if (!S.sel) return -1;
		return S.sel.side === 'target' ? S.sel.index : partner('golden', S.sel.index);
	}
	function goFirst() {
		var f = S.graph.first;
		if (f == null || f < 0 || !nodeOf('target', f)) return false;
		return select('target', f, { focus: true });
	}
	function goDiverging(dir) {
		var list = S.graph.diverging || [], t = targetOfSelection(), nodes = S.sides.target.nodes;
		if (!list.length) return false;
		var k = t >= 0 ? list.indexOf(t) : -1, next;
		if (k >= 0) next = k + dir;
		else if (t < 0) next = dir > 0 ? 0 : list.length - 1;
		else {            /* between two diverging nodes: by execution order */
			var ord = nodes[t].o;
			next = dir > 0 ? list.length : -1;
			for (var j = 0; j < list.length; j++) {
				var oj = nodes[list[j]].o;
				if (dir > 0 && oj > ord) { next = j; break; }
				if (dir < 0 && oj < ord) next = j;
			}
		}
		if (next < 0 || next >= list.length) return false;
		return select('target', list[next], { focus: true });
	}
	function updateDivPos() {
		var list = (S.graph && S.graph.diverging) || [], t = targetOfSelection(), k = t >= 0 ? list.indexOf(t) : -1;
		$('div-pos').textContent = list.length ? (k >= 0 ? (k + 1) : '\u2013') + ' / ' + list.length : 'none';
		$('prev').disabled = !list.length || k === 0;
		$('next').disabled = !list.length || k === list.length - 1;
	}

	/* ---------- search ---------- */

	function search(text) {
		text = (text || '').trim();
		var q = text.toLowerCase(), hits = [];
		S.search = { text: text, hits: hits, pos: -1 };
		eachSide(function (s) {
			s.hit = null;
			if (!q) return;
			if (!s.lower) s.lower = s.nodes.map(function (n) { return String(n.n).toLowerCase(); });
			s.hit = new Uint8Array(s.nodes.length);
			for (var i = 0; i < s.lower.length; i++)
				if (s.lower[i].indexOf(q) >= 0) { s.hit[i] = 1; hits.push([s.name, i]); }
		});
		$('search-count').textContent = q ? hits.length + (hits.length === 1 ? ' match' : ' matches') : '';
		listHits();
		refresh(false);
		return hits.length;
	}
	function listHits() {
		var ul = $('search-results'), hits = S.search.hits;
		ul.textContent = '';
		if (!S.search.text || !hits.length || document.activeElement !== $('search')) { ul.hidden = true; return; }
		hits.slice(0, MAX_HITS_LISTED).forEach(function (h, k) {
			var li = el('li', { role: 'option', 'aria-selected': k === S.search.pos ? 'true' : 'false', 'data-k': k },
				[el('span', { cls: 'side', text: h[0] }), nodeOf(h[0], h[1]).n]);
			li.addEventListener('mousedown', function (ev) { ev.preventDefault(); goHit(k); });
			ul.appendChild(li);
		});
		if (hits.length > MAX_HITS_LISTED) ul.appendChild(el('li', { cls: 'more', text: '\u2026 ' + (hits.length - MAX_HITS_LISTED) + ' more: Enter goes on' }));
		ul.hidden = false;
	}
	function goHit(k) {
		var hits = S.search.hits;
		if (!hits.length) return false;
		S.search.pos = ((k % hits.length) + hits.length) % hits.length;
		var h = hits[S.search.pos];
		select(h[0], h[1]);
		$('search-count').textContent = (S.search.pos + 1) + ' / ' + hits.length;
		listHits();
		return true;
	}
	function searchNext(dir) {
		if ($('search').value.trim() !== S.search.text) search($('search').value);
		return goHit(S.search.pos < 0 ? (dir > 0 ? 0 : -1) : S.search.pos + dir);
	}

	/* ---------- the detail panel ---------- */

	function factList(pairs) {
		var dl = el('dl', { cls: 'facts' });
		pairs.forEach(function (p) { if (p) { dl.appendChild(el('dt', { text: p[0] })); dl.appendChild(el('dd', {}, [p[1]])); } });
		return dl;
	}
	function nodeLink(side, i, text) {
		return el('button', { type: 'button', cls: 'link', text: text || nodeOf(side, i).n, on: { click: function () { select(side, i, { focus: true }); } } });
	}
	/* msprobe's matched_distributed: the peers of a communication node, each a button to its rank's graph. */
	function rankLinks(side, n) {
		var box = el('span', { cls: 'links' }), info = n.md.nodes_info;
		Object.keys(info).forEach(function (rank) {
			var peer = info[rank], name = peer[1], idx = peer[0];
			box.appendChild(el('button', { type: 'button', cls: 'link', title: n.md.communications_type + ' with rank ' + rank,
				text: 'rank ' + rank + ': ' + name + ' (' + idx + ')',
				on: { click: function () { goToRank(Number(rank), side, name); } } }));
		});
		box.insertBefore(document.createTextNode(n.md.communications_type + ' '), box.firstChild);
		return box;
	}
	function goToRank(rank, side, name) {
		var step = S.graph.step, k = -1;
		data.graphs.forEach(function (g, j) { if (g.rank === rank && g.step === step && k < 0) k = j; });
		if (k < 0) return false;
		setGraph(k);
		var nodes = S.sides[side] ? S.sides[side].nodes : [];
		for (var i = 0; i < nodes.length; i++) if (nodes[i].n === name) return select(side, i, { focus: true });
		return false;
	}
	function breadcrumbs(side, i) {
		var chain = [], nodes = S.sides[side].nodes;
		for (var j = nodes[i].p; j != null && j >= 0; j = nodes[j].p) chain.unshift(j);
		var nav = el('nav', { cls: 'crumbs', 'aria-label': 'module chain' });
		chain.forEach(function (j) {
			nav.appendChild(el('button', { type: 'button', text: nodes[j].n, title: nodes[j].n, on: { click: function () { select(side, j, { focus: true }); } } }));
			nav.appendChild(el('span', { cls: 'sep', 'aria-hidden': 'true', text: '\u203A' }));
		});
		nav.appendChild(el('span', { text: nodes[i].n }));
		return nav;
	}
	function precisionLabel(side, i) {
		var n = nodeOf(side, i), p = precisionOf(side, i);
		var pi = n.pi != null ? n.pi : (side === 'golden' && n.m >= 0 ? S.sides.target.nodes[n.m].pi : null);
		var name = p === 'pass' ? 'pass' : p === 'warn' ? 'warning' : p === 'err' ? 'error' : p === 'unm' ? 'unmatched' : 'none';
		return name + (pi != null ? ' (' + pi + ')' : '');
	}
	function resultClass(v) {
		v = String(v).toLowerCase();
		return v === 'pass' ? 'res-pass' : v === 'warning' ? 'res-warn' : (v === 'error' || v === 'diff') ? 'res-err' : '';
	}
	/* One table per leaf position: target and golden side by side. */
	function leafTable(kind, k, tl, gl, hasGolden) {
		var tf = (tl && tl[1]) || {}, gf = (gl && gl[1]) || {};
		var name = (tl && tl[0]) || (gl && gl[0]) || kind + ' ' + k;
		var both = [], cmp = [];
		Object.keys(tf).forEach(function (f) { (gl && !(f in gf) ? cmp : both).push(f); });
		Object.keys(gf).forEach(function (f) { if (!(f in tf)) both.push(f); });
		var table = el('table', { 'data-leaf': name, 'data-kind': kind });
		table.appendChild(el('caption', { text: name + (gl && tl && gl[0] !== tl[0] ? '  \u2194  ' + gl[0] : '') }));
		var colg = el('colgroup', {}, [el('col', { cls: 'fcol' }), el('col'), hasGolden ? el('col') : null]);
		table.appendChild(colg);
		table.appendChild(el('thead', {}, [el('tr', {}, [el('th', { cls: 'f', text: 'field' }), el('th', { text: 'target' }), hasGolden ? el('th', { text: 'golden' }) : null])]));
		var body = el('tbody');
		both.forEach(function (f) {
			var a = f in tf ? String(tf[f]) : '', b = f in gf ? String(gf[f]) : '';
			var ne = hasGolden && tl && gl && a !== b && (f in tf) && (f in gf);
			body.appendChild(el('tr', {}, [el('th', { cls: 'f', text: f }),
				el('td', { 'data-side': 'target', 'data-field': f, cls: ne ? 'ne' : '', text: tl ? a : '\u2014' }),
				hasGolden ? el('td', { 'data-side': 'golden', 'data-field': f, cls: ne ? 'ne' : '', text: gl ? b : '\u2014' }) : null]));
		});
		if (cmp.length) {
			body.appendChild(el('tr', { cls: 'sub' }, [el('th', { colspan: hasGolden ? 3 : 2, text: 'comparison' })]));
			cmp.forEach(function (f) {
				var v = String(tf[f]);
				body.appendChild(el('tr', {}, [el('th', { cls: 'f', text: f }),
					el('td', { 'data-side': 'compare', 'data-field': f, colspan: hasGolden ? 2 : 1, cls: f === 'Result' ? resultClass(v) : '', text: v })]));
			});
		}
		table.appendChild(body);
		return table;
	}
	function leafSection(kind, title, tleaves, gleaves, hasGolden) {
		var tl = (tleaves && tleaves[kind]) || [], gl = (gleaves && gleaves[kind]) || [], n = Math.max(tl.length, gl.length);
		var sec = el('section', { cls: 'leaves', 'data-kind': kind }, [el('h4', { text: title + ' (' + n + ')' })]);
		for (var k = 0; k < Math.min(n, MAX_LEAVES); k++) sec.appendChild(leafTable(kind, k, tl[k], gl[k], hasGolden));
		if (n > MAX_LEAVES) sec.appendChild(el('p', { cls: 'more', text: '\u2026 ' + (n - MAX_LEAVES) + ' more not shown' }));
		if (!n) sec.appendChild(el('p', { cls: 'more', text: 'none' }));
		return sec;
	}
	function stackSection(tn, gn) {
		var n = tn || gn, st = n.st != null && n.st >= 0 ? n.st : (gn && gn.st != null ? gn.st : -1);
		var frames = (S.graph.stacks && S.graph.stacks[st]) || [];
		var where = (tn && tn.where) || (gn && gn.where) || '';
		var sec = el('section', { cls: 'stack' }, [el('h4', { text: 'where' })]);
		sec.appendChild(where ? el('div', { cls: 'where', text: where }) : el('p', { cls: 'more', text: 'no line of the user\'s own code known' }));
		if (frames.length) {
			sec.appendChild(el('h4', { text: 'stack (' + frames.length + (frames.length === 1 ? ' frame)' : ' frames)') }));
			sec.appendChild(el('ol', { cls: 'stack' }, frames.map(function (f) { return el('li', { text: String(f) }); })));
		}
		return sec;
	}
	function showDetail() {
		var box = $('detail');
		box.textContent = '';
		if (!S.sel) { box.appendChild(el('p', { cls: 'hint', text: 'Select a node to see its inputs and outputs, target and golden side by side.' })); return; }
		var side = S.sel.side, i = S.sel.index, n = nodeOf(side, i), p = partner(side, i);
		var ti = side === 'target' ? i : p, gi = side === 'golden' ? i : p;
		var tn = nodeOf('target', ti), gn = S.build ? null : nodeOf('golden', gi);
		var v = verdictOf(side, i), why = (tn && tn.why) || (gn && gn.why) || n.why || '';
		box.dataset.side = side; box.dataset.index = i; box.dataset.name = n.n;
		box.appendChild(el('h3', { text: n.n }));
		box.appendChild(breadcrumbs(side, i));
		var vinfo = VERDICT[v];
		box.appendChild(factList([
			['side', side + (S.build ? '' : p >= 0 ? '' : ' (unmatched)')],
			S.build ? null : [side === 'target' ? 'golden' : 'target', p >= 0 ? nodeLink(other(side), p) : document.createTextNode('no matched node')],
			['type', TYPE_NAME[n.t] || String(n.t)],
			['verdict', el('span', { cls: 'pill ' + (vinfo ? vinfo.cls : ''), text: (isFirst(side, i) ? '\u2717 first divergence' : vinfo ? vinfo.label : 'none') })],
			S.build ? null : ['msprobe precision', document.createTextNode(precisionLabel(side, i))],
			n.ov ? ['overflow', document.createTextNode(n.ov)] : null,
			['micro step', document.createTextNode(n.ms != null ? String(n.ms) : '\u2014')],
			['order', document.createTextNode(n.o != null ? String(n.o) : '\u2014')],
			kids(n).length ? ['children', document.createTextNode(String(kids(n).length))] : null,
			n.md && n.md.nodes_info ? ['linked ranks', rankLinks(side, n)] : null
		]));
		if (why) box.appendChild(el('div', { cls: 'why', text: why }));
		var tleaves = tn ? leavesOf('target', ti) : null, gleaves = gn ? leavesOf('golden', gi) : null;
		box.appendChild(leafSection('in', 'inputs', tleaves, gleaves, !S.build));
		box.appendChild(leafSection('out', 'outputs', tleaves, gleaves, !S.build));
		box.appendChild(stackSection(tn || n, gn));
	}

	/* ---------- toolbar ---------- */

	function legend() {
		var box = $('legend');
		box.textContent = '';
		var items = S.mode === 'precision' ? PRECISION.map(function (p) { return [p.colour, p.label]; })
			: Object.keys(VERDICT).map(function (k) { return [VERDICT[k].colour, VERDICT[k].badge]; });
		items.forEach(function (it) {
			box.appendChild(el('span', {}, [el('span', { cls: 'sw', style: 'background:' + it[0], 'aria-hidden': 'true' }), it[1]]));
		});
	}
	function setColorMode(mode) {
		if (S.build && mode === 'precision') mode = 'verdict';
		S.mode = mode === 'verdict' ? 'verdict' : 'precision';
		$('color-mode').value = S.mode;
		legend();
		refresh(false);
	}
	function setFilter(f) {
		var was = filterActive();
		if (!was) eachSide(function (s) { s.savedExpanded = s.expanded.slice(); });
		Object.keys(f || {}).forEach(function (k) { if (k in S.filter) S.filter[k] = f[k]; });
		if (was && !filterActive()) eachSide(function (s) { if (s.savedExpanded) s.expanded = s.savedExpanded; s.savedExpanded = null; });
		$('only-diverging').checked = !!S.filter.diverging;
		$('only-unmatched').checked = !!S.filter.unmatched;
		$('overflow-filter').value = S.filter.overflow || '';
		eachSide(computeKeep);
		if (S.sel) reveal(S.sel.side, S.sel.index);
		refresh(true);
	}
	function graphOptions() {
		var sel = $('graph-select'), started = startedIndex();
		sel.textContent = '';
		data.graphs.forEach(function (g, k) {
			var label = g.label || ('rank ' + g.rank + ' step ' + g.step);
			if (k === started) label += '  \u25C0 started here';
			else if (g.first != null && g.first >= 0) label += '  \u2022 diverges';
			sel.appendChild(el('option', { value: k, text: label }));
		});
	}
	/* The graph where the divergence started: first_rank's earliest step with a first divergence. */
	function startedIndex() {
		var best = -1;
		data.graphs.forEach(function (g, k) {
			if (data.first_rank == null || g.rank !== data.first_rank) return;
			if (best < 0 || ((g.first >= 0) && !(data.graphs[best].first >= 0)) ||
				((g.first >= 0) === (data.graphs[best].first >= 0) && g.step < data.graphs[best].step)) best = k;
		});
		return best;
	}
	function setGraph(k) {
		var g = data.graphs[k];
		if (!g) return false;
		S.g = k; S.graph = g; S.sel = null;
		S.build = data.mode === 'build' || !g.golden;
		document.body.classList.toggle('build', S.build);
		S.sides = { target: makeSide('target', g.target) };
		if (!S.build) S.sides.golden = makeSide('golden', g.golden);
		eachSide(function (s) {
			s.spacer = s.tree.querySelector('.spacer');
			s.spacer.textContent = '';
			s.canvas = s.tree.parentNode.querySelector('canvas');
			s.viewport = s.tree.parentNode.querySelector('.viewport');
			s.tree.scrollTop = 0;
			$('dump-' + s.name).textContent = (s.label !== s.name ? s.label + ' \u00B7 ' : '') + s.dump;
			$('dump-' + s.name).title = s.dump;
			if (s.nodes.length) s.expanded[0] = 1;
			computeKeep(s);
		});
		if (!S.sides.golden) { $('tree-golden').querySelector('.spacer').textContent = ''; }
		$('graph-select').value = String(k);
		$('color-mode').querySelector('option[value=precision]').disabled = S.build;
		$('go-first').disabled = !(g.first != null && g.first >= 0);
		$('mode-tag').textContent = data.mode + (S.build ? ': one run, no golden side' : '');
		S.active = 'target';
		if (S.build && S.mode === 'precision') S.mode = 'verdict';
		$('color-mode').value = S.mode;
		legend();
		refresh(true);
		if (S.search.text) search(S.search.text);
		updateDivPos();
		showDetail();
		return true;
	}

	/* ---------- events ---------- */

	function rowIndexOf(ev) {
		var r = ev.target.closest ? ev.target.closest('.row') : null;
		return r ? Number(r.dataset.index) : -1;
	}
	function bindTree(side) {
		var t = $('tree-' + side), scheduled = false;
		t.addEventListener('scroll', function () {
			if (scheduled) return;
			scheduled = true;
			requestAnimationFrame(function () { scheduled = false; if (S.sides[side]) drawWindow(S.sides[side]); });
		});
		t.addEventListener('click', function (ev) {
			var i = rowIndexOf(ev);
			if (i < 0) return;
			if (ev.target.classList.contains('tw')) { toggle(side, i); S.active = side; t.focus({ preventScroll: true }); return; }
			select(side, i, { focus: true });
		});
		t.addEventListener('dblclick', function (ev) { var i = rowIndexOf(ev); if (i >= 0) toggle(side, i); });
		t.addEventListener('focus', function () { S.active = side; });
		var mm = t.parentNode.querySelector('.minimap');
		mm.addEventListener('click', function (ev) { if (S.sides[side]) onMinimapClick(S.sides[side], ev); });
	}
	function inField(ev) {
		var tag = ev.target && ev.target.tagName;
		return tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA';
	}
	function onKey(ev) {
		if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
		if (ev.target === $('search')) {
			if (ev.key === 'Enter') { ev.preventDefault(); searchNext(ev.shiftKey ? -1 : 1); }
			else if (ev.key === 'Escape') { $('search').blur(); $('search-results').hidden = true; S.sides[S.active].tree.focus(); }
			return;
		}
		if (inField(ev)) return;
		var s = S.sides[S.active], i = S.sel && S.sel.side === S.active ? S.sel.index : -1, n = i >= 0 ? s.nodes[i] : null;
		var handled = true;
		switch (ev.key) {
		case 'ArrowDown': moveSelection(1); break;
		case 'ArrowUp': moveSelection(-1); break;
		case 'PageDown': moveSelection(Math.floor(s.tree.clientHeight / ROW_H)); break;
		case 'PageUp': moveSelection(-Math.floor(s.tree.clientHeight / ROW_H)); break;
		case 'Home': if (s.count) select(s.name, s.rows[0], { focus: true }); break;
		case 'End': if (s.count) select(s.name, s.rows[s.count - 1], { focus: true }); break;
		case 'ArrowRight':
			if (!n) moveSelection(0);
			else if (kids(n).length && !s.expanded[i]) expand(s.name, i, true);
			else if (kids(n).length && s.rowOf[i] + 1 < s.count) select(s.name, s.rows[s.rowOf[i] + 1], { focus: true });
			break;
		case 'ArrowLeft':
			if (!n) moveSelection(0);
			else if (kids(n).length && s.expanded[i]) expand(s.name, i, false);
			else if (n.p != null && n.p >= 0) select(s.name, n.p, { focus: true });
			break;
		case 'Enter': case ' ': if (n) toggle(s.name, i); else moveSelection(0); break;
		case '/': $('search').focus(); $('search').select(); break;
		case 'f': goFirst(); break;
		case 'n': goDiverging(1); break;
		case 'p': goDiverging(-1); break;
		default: handled = false;
		}
		if (handled) ev.preventDefault();
	}
	function bindToolbar() {
		$('go-first').addEventListener('click', goFirst);
		$('next').addEventListener('click', function () { goDiverging(1); });
		$('prev').addEventListener('click', function () { goDiverging(-1); });
		$('color-mode').addEventListener('change', function () { setColorMode($('color-mode').value); });
		$('graph-select').addEventListener('change', function () { setGraph(Number($('graph-select').value)); });
		$('only-diverging').addEventListener('change', function (e) { setFilter({ diverging: e.target.checked }); });
		$('only-unmatched').addEventListener('change', function (e) { setFilter({ unmatched: e.target.checked }); });
		$('overflow-filter').addEventListener('change', function (e) { setFilter({ overflow: e.target.value }); });
		var timer = 0, box = $('search');
		box.addEventListener('input', function () {
			clearTimeout(timer);
			timer = setTimeout(function () { search(box.value); }, 120);
		});
		box.addEventListener('focus', listHits);
		box.addEventListener('blur', function () { $('search-results').hidden = true; });
		document.addEventListener('keydown', onKey);
		var rt = 0;
		window.addEventListener('resize', function () { clearTimeout(rt); rt = setTimeout(function () { refresh(false); }, 80); });
		SIDES.forEach(bindTree);
	}

	/* ---------- test hooks ---------- */

	function names(s, from, to) {
		var out = [];
		for (var r = from; r < to; r++) out.push(s.nodes[s.rows[r]].n);
		return out;
	}
	function exposeApi() {
		var api = {
			ready: false, readyAt: null, data: data,
			select: function (side, i) { return select(side, i); },
			selected: selected,
			expand: function (side, i) { expand(side, i, true); return api.isExpanded(side, i); },
			collapse: function (side, i) { expand(side, i, false); return !api.isExpanded(side, i); },
			toggle: function (side, i) { toggle(side, i); },
			isExpanded: function (side, i) { var s = S.sides[side]; return !!(s && s.expanded[i]); },
			visibleNames: function (side) { var s = S.sides[side]; return s ? names(s, 0, s.count) : []; },
			renderedNames: function (side) { var s = S.sides[side]; return s && s.shown ? names(s, s.shown[0], s.shown[1]) : []; },
			find: function (side, name) { var s = S.sides[side]; if (!s) return -1; for (var i = 0; i < s.nodes.length; i++) if (s.nodes[i].n === name) return i; return -1; },
			partner: partner,
			goFirst: goFirst,
			next: function () { return goDiverging(1); },
			prev: function () { return goDiverging(-1); },
			search: function (text) { $('search').value = text; return search(text); },
			searchNext: function () { return searchNext(1); },
			graphIndex: function () { return S.g; },
			setGraph: setGraph,
			goToRank: goToRank,
			leaves: leavesOf,
			setColorMode: setColorMode,
			setFilter: setFilter,
			colorMode: function () { return S.mode; }
		};
		window.probeGraph = api;
		return api;
	}

	function fail(err) {
		var box = el('div', { cls: 'error-box', role: 'alert' }, [el('strong', { text: 'probe-graph: cannot show this page. ' }), String(err && err.message || err)]);
		document.body.insertBefore(box, document.body.firstChild);
		console.error(err);
	}

	function init() {
		var t0 = performance.now();
		try {
			data = loadData();
		} catch (e) { fail(e); return; }
		var t1 = performance.now();
		var api = exposeApi();
		if (!data.graphs.length) { fail(new Error('the data has no graph')); return; }
		bindToolbar();
		graphOptions();
		S.mode = data.mode === 'build' ? 'verdict' : 'precision';
		var start = startedIndex();
		if (start < 0) data.graphs.some(function (g, k) { if (g.first != null && g.first >= 0) { start = k; return true; } return false; });
		setGraph(start < 0 ? 0 : start);
		api.ready = true;
		api.readyAt = performance.now();
		api.timings = { start: t0, parse: t1 - t0, render: api.readyAt - t1 };
		document.body.dataset.ready = '1';
	}

	if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
	else init();
})();
