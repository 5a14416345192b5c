/*
 * probe-plot's page (plothtml.c): a tooltip on every point drawn, a click
 * on a point or a mark finds its row of the table, a filter over the
 * table, the table sorted by a heading.  No library, nothing fetched.
 *
 * window.probePlot, for people at the console and for the tests:
 *   data                 the page's data: ranks, names, points
 *   pointAt(x, y)        the point drawn nearest to (x, y) in the picture's
 *                        units, within a few pixels, or -1
 *   tipText(i)           the tooltip of point i
 *   select(ri, x)        selects and shows the row of rank ri's leaf at x
 *   selected()           the selected row's id, or null
 *   filter(text)         shows the rows holding text; how many
 */
(function () {
	'use strict';
	var data = JSON.parse(document.getElementById('plot-data').textContent);
	var svg = document.querySelector('#figure svg');
	var tip = document.getElementById('tip');
	var table = document.getElementById('leaves');
	var body = table.tBodies[0];
	var rows = Array.prototype.slice.call(body.rows);
	var status = document.getElementById('status');
	var input = document.getElementById('filter');
	var count = document.getElementById('filter-count');
	var RADIUS = 8;

	/* ---- points: a column index for the nearest one ---- */
	var byColumn = {};
	data.points.forEach(function (pt, i) {
		var c = Math.floor(pt[2]);
		(byColumn[c] = byColumn[c] || []).push(i);
	});

	function pointAt(x, y) {
		var best = -1, bestD = RADIUS * RADIUS;
		for (var c = Math.floor(x - RADIUS); c <= Math.floor(x + RADIUS); c++) {
			var list = byColumn[c];
			if (!list) continue;
			for (var k = 0; k < list.length; k++) {
				var pt = data.points[list[k]], dx = pt[2] - x, dy = pt[3] - y, d = dx * dx + dy * dy;
				if (d < bestD || (d === bestD && best >= 0 && pt[0] < data.points[best][0])) {
					bestD = d;
					best = list[k];
				}
			}
		}
		return best;
	}

	function tipText(i) {
		var pt = data.points[i];
		return data.names[pt[4]] + '\n' + pt[5];
	}

	/* the picture's units of a mouse event */
	function svgPoint(ev) {
		var m = svg.getScreenCTM();
		if (!m) return null;
		var p = svg.createSVGPoint();
		p.x = ev.clientX;
		p.y = ev.clientY;
		return p.matrixTransform(m.inverse());
	}

	/* the mark's own text, taken from its <title> so that the browser does not show a second tooltip */
	Array.prototype.forEach.call(svg.querySelectorAll('.mark'), function (g) {
		var t = g.querySelector('title');
		if (t) {
			g.setAttribute('data-tip', t.textContent);
			t.parentNode.removeChild(t);
		}
	});

	function showTip(text, ev) {
		tip.textContent = text;
		tip.hidden = false;
		var w = tip.offsetWidth, h = tip.offsetHeight, x = ev.clientX + 14, y = ev.clientY + 14;
		if (x + w > window.innerWidth - 4) x = Math.max(4, ev.clientX - w - 14);
		if (y + h > window.innerHeight - 4) y = Math.max(4, ev.clientY - h - 14);
		tip.style.left = x + 'px';
		tip.style.top = y + 'px';
	}

	function hideTip() {
		tip.hidden = true;
	}

	function markOf(ev) {
		var e = ev.target;
		while (e && e !== svg) {
			if (e.classList && e.classList.contains('mark')) return e;
			e = e.parentNode;
		}
		return null;
	}

	svg.addEventListener('mousemove', function (ev) {
		var mark = markOf(ev), p = svgPoint(ev), i = p ? pointAt(p.x, p.y) : -1;
		if (mark) {
			showTip(mark.getAttribute('data-tip') + (i >= 0 ? '\n\n' + tipText(i) : ''), ev);
			return;
		}
		if (i >= 0) showTip(tipText(i), ev);
		else hideTip();
	});
	svg.addEventListener('mouseleave', hideTip);

	svg.addEventListener('click', function (ev) {
		var mark = markOf(ev), p, i;
		if (mark) {
			select(+mark.getAttribute('data-ri'), +mark.getAttribute('data-x'));
			return;
		}
		p = svgPoint(ev);
		i = p ? pointAt(p.x, p.y) : -1;
		if (i >= 0) select(data.points[i][0], data.points[i][1]);
	});

	/* ---- the table: selection, filter, sort ---- */
	var selectedRow = null;

	function say(text) {
		status.textContent = text;
	}

	function select(ri, x) {
		var row = document.getElementById('row-' + ri + '-' + x);
		if (selectedRow) {
			selectedRow.classList.remove('selected');
			selectedRow.removeAttribute('aria-selected');
			selectedRow = null;
		}
		if (!row) {
			say('The leaf at x ' + x + ' of ' + data.ranks[ri].label + ' is not in the table: it is the same as the golden, or beyond the rows listed (--table-rows).');
			return false;
		}
		if (row.classList.contains('hidden')) {
			input.value = '';
			filter('');
		}
		say('');
		row.classList.add('selected');
		row.setAttribute('aria-selected', 'true');
		selectedRow = row;
		row.scrollIntoView({block: 'center'});
		return true;
	}

	Array.prototype.forEach.call(document.querySelectorAll('#marks li[data-ri]'), function (li) {
		function go() { select(+li.getAttribute('data-ri'), +li.getAttribute('data-x')); }
		li.addEventListener('click', go);
		li.addEventListener('keydown', function (ev) { if (ev.key === 'Enter') go(); });
	});

	/* each row's text, its cells apart, in lower case */
	var texts = rows.map(function (r) {
		return Array.prototype.map.call(r.cells, function (c) { return c.textContent; }).join('\t').toLowerCase();
	});

	function filter(text) {
		var q = text.trim().toLowerCase(), shown = 0;
		rows.forEach(function (r, i) {
			var keep = !q || texts[i].indexOf(q) >= 0;
			r.classList.toggle('hidden', !keep);
			shown += keep;
		});
		count.textContent = shown + ' of ' + rows.length + ' rows';
		return shown;
	}
	input.addEventListener('input', function () { filter(input.value); });

	var heads = table.tHead.rows[0].cells;
	function key(row, i, num) {
		var c = row.cells[i];
		if (!num) return c.textContent;
		var v = parseFloat(c.getAttribute('data-v'));
		return isNaN(v) ? -Infinity : v;
	}
	Array.prototype.forEach.call(heads, function (th, i) {
		th.addEventListener('click', function () {
			var num = th.getAttribute('data-type') === 'num';
			var down = th.getAttribute('aria-sort') === 'ascending';
			var order = rows.map(function (r, k) { return k; });
			order.sort(function (a, b) {
				var x = key(rows[a], i, num), y = key(rows[b], i, num);
				var d = x < y ? -1 : x > y ? 1 : a - b;
				return down ? -d : d;
			});
			Array.prototype.forEach.call(heads, function (h) { h.removeAttribute('aria-sort'); });
			th.setAttribute('aria-sort', down ? 'descending' : 'ascending');
			order.forEach(function (k) { body.appendChild(rows[k]); });
		});
	});

	/* the table's head sticks under the bar */
	var bar = document.getElementById('tablebar');
	function placeHead() {
		document.documentElement.style.setProperty('--bar-h', bar.offsetHeight + 'px');
	}
	window.addEventListener('resize', placeHead);
	placeHead();

	window.probePlot = {
		data: data,
		pointAt: pointAt,
		tipText: tipText,
		select: select,
		selected: function () { return selectedRow ? selectedRow.id : null; },
		filter: function (text) { input.value = text; return filter(text); }
	};
	document.body.setAttribute('data-ready', '1');
})();
