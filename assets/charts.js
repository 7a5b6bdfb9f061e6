/* reportgen index charts: the fixed charts, the metric explorer, hover and click.
   Classic script: no fetch, no eval, no modules, so it runs from file:// under the pages'
   Content-Security-Policy. The data is window.RG_METRICS (metrics_data.js); for big runs the
   explorer's columns come in metrics_data/NNN.js chunks loaded by <script> tags on first use.
   Lines are downsampled for drawing (min/max per pixel column); the hover always reads the
   full data, so the values it shows are exact. */
(function () {
  "use strict";
  // The iteration table is laid out after the charts when it is long (see charts.css): laying
  // out 10,000 table rows costs seconds, and the browser does it before the first chart.
  var ANCHOR = /^#(u-?\d+)$/;
  var table = { parsed: false, wanted: false, shown: false };
  function reveal() {
    if (table.shown) return;
    table.shown = true;
    document.documentElement.setAttribute("data-rg-table", "");
    if (window.RG_CHARTS) window.RG_CHARTS.tableAt = performance.now();
    var m = ANCHOR.exec(window.location.hash);
    var row = m && document.getElementById(m[1]);
    if (row) row.scrollIntoView();
  }
  function showTable() {
    table.wanted = true;
    if (table.parsed) reveal();
  }
  function afterParse(fn) {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", fn);
    else fn();
  }
  afterParse(function () {
    // times are logged in UTC: the reader's local time, the logged one on hover (as the
    // iteration pages and the charts' tooltips show them)
    Array.prototype.forEach.call(document.querySelectorAll("section.segments time[datetime]"), function (t) {
      var d = new Date(t.getAttribute("datetime"));
      if (isNaN(d.getTime())) return;
      t.title = t.getAttribute("datetime");
      t.textContent = d.toLocaleString();
    });
    table.parsed = true;
    var sec = document.querySelector("section.iterations"), tbl = document.getElementById("iterations");
    if (tbl) sortable(tbl);
    var rows = tbl && tbl.tBodies.length ? tbl.tBodies[0].rows.length : 0;
    if (rows > 1500) { // index.LONG_TABLE
      document.documentElement.setAttribute("data-rg-long", "");
      // its sticky headings sit under the site's header, which wraps on a narrow screen
      var head = document.querySelector("header.top");
      var under = function () {
        var h = head && getComputedStyle(head).position === "sticky" ? head.getBoundingClientRect().height : 0;
        document.documentElement.style.setProperty("--rg-top", Math.round(h) + "px");
      };
      under();
      window.addEventListener("resize", under);
      if (sec) sec.style.containIntrinsicSize = "auto " + (rows * 25 + 80) + "px";
    }
    if (table.wanted || !sec || rows <= 1500 || ANCHOR.test(window.location.hash) || !window.IntersectionObserver) {
      reveal();
      return;
    }
    var io = new IntersectionObserver(function (entries) {
      if (entries.some(function (e) { return e.isIntersecting; })) { io.disconnect(); reveal(); }
    }, { rootMargin: "200px 0px" });
    io.observe(sec);
    window.addEventListener("hashchange", function () { if (ANCHOR.test(window.location.hash)) reveal(); });
  });
  // the table of every update sorts by a column: a first click puts the highest first, a
  // second the lowest, a third the run's own order back. Values are read from the cells as
  // shown ("–" and "no texts" last, whichever the order); equal ones keep the run's order.
  function sortable(tbl) {
    var body = tbl.tBodies[0], head = tbl.tHead && tbl.tHead.rows[0];
    if (!body || !head || body.rows.length < 2) return;
    var original = null, by = -1, dir = 0;
    var heads = Array.prototype.slice.call(head.cells);
    function value(row, i) {
      var c = row.cells[i];
      var t = c ? c.textContent.trim().replace(/,/g, "") : "";
      var v = parseFloat(t);
      return isNaN(v) ? (t === "–" || t === "no texts" || t === "" ? null : t.toLowerCase()) : v;
    }
    heads.forEach(function (th, i) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "rg-sort";
      while (th.firstChild) b.appendChild(th.firstChild);
      th.appendChild(b);
      th.setAttribute("aria-sort", "none");
      b.addEventListener("click", function () {
        sortTable(i, by === i ? (dir === -1 ? 1 : 0) : -1); // highest first, lowest first, the run's order
        remember();
      });
    });
    // the sort is this tab's, for this page: Back from an update finds the table as it was left
    var KEY = "reportgen.sort." + window.location.pathname;
    function remember() {
      try {
        if (dir) window.sessionStorage.setItem(KEY, by + ":" + dir);
        else window.sessionStorage.removeItem(KEY);
      } catch (e) { /* no storage here (some file:// setups): the sort is not kept */ }
    }
    function sortTable(i, d) {
      if (!original) original = Array.prototype.slice.call(body.rows);
      dir = d;
      by = dir ? i : -1;
      var rows = original;
      if (dir) {
        var keyed = original.map(function (r, k) { return { r: r, k: k, v: value(r, i) }; });
        keyed.sort(function (a, b) {
          if (a.v === null || b.v === null) return a.v === b.v ? a.k - b.k : a.v === null ? 1 : -1;
          var na = typeof a.v === "number", nb = typeof b.v === "number";
          if (na !== nb) return na ? -1 : 1; // numbers before words, either way
          var c = a.v < b.v ? -1 : a.v > b.v ? 1 : 0;
          return c ? c * dir : a.k - b.k; // dir -1: the highest first
        });
        rows = keyed.map(function (x) { return x.r; });
      }
      var frag = document.createDocumentFragment();
      rows.forEach(function (r) { frag.appendChild(r); });
      body.appendChild(frag);
      tbl.classList.toggle("rg-sorted", !!dir);
      heads.forEach(function (h, j) {
        h.setAttribute("aria-sort", j === by ? (dir === -1 ? "descending" : "ascending") : "none");
      });
    }
    var kept = null;
    try { kept = /^(\d+):(-?1)$/.exec(window.sessionStorage.getItem(KEY) || ""); } catch (e) { kept = null; }
    if (kept && +kept[1] < heads.length) sortTable(+kept[1], +kept[2]);
  }
  function whenIdle(fn) {
    if (window.requestIdleCallback) window.requestIdleCallback(fn, { timeout: 2000 });
    else setTimeout(fn, 200);
  }

  // the index loads charts.js right after the charts section, which is parsed by then: the
  // charts are drawn while the rest of a long page (the table) is still being parsed
  main();

  function main() {
    var D = window.RG_METRICS;
    var section = document.getElementById("charts");
    if (!D || !section) { showTable(); return; }
    var state = (window.RG_CHARTS = { views: {}, explorer: null, drawn: false, startAt: performance.now(), drawnAt: null, errors: [] });
    // vega-embed (for the explorer) loads at the end of the page, after the charts
    var HAVE_VEGA = !!(window.vega && window.vegaLite && window.vega.expressionInterpreter);

    var steps = D.steps;
    var nRows = steps.length;
    var word = D.word;
    var it = D.iters;
    var segByNumber = {};
    var statusOf = {};
    var pageOf = {};
    var i, k;
    if (it.seg) for (i = 0; i < it.n.length; i++) segByNumber[it.n[i]] = it.seg[i];
    for (k in it.status) if (Object.prototype.hasOwnProperty.call(it.status, k)) it.status[k].forEach(function (n) { statusOf[n] = k; });
    for (i = 0; i < it.texts.length; i++) pageOf[it.texts[i]] = it.pages[i];
    var rowOf = {};
    for (i = 0; i < nRows; i++) rowOf[steps[i]] = i;
    // maps keyed by names from the logs (metrics, evaluators): without a prototype, so that a
    // metric called "constructor" or "__proto__" is a name like any other
    function own(o) {
      var m = Object.create(null);
      if (o) for (var key in o) if (Object.prototype.hasOwnProperty.call(o, key)) m[key] = o[key];
      return m;
    }
    D.cols = own(D.cols);
    D.chunk = own(D.chunk);
    D.evals = own(D.evals);
    var emptyNames = Object.create(null);
    (D.empty || []).forEach(function (n) { emptyNames[n] = true; });
    var nonfiniteNames = Object.create(null);
    (D.nonfinite || []).forEach(function (n) { nonfiniteNames[n] = true; });

    /* ------------------------------------------------------------ small helpers */
    function el(tag, cls, text) {
      var e = document.createElement(tag);
      if (cls) e.className = cls;
      if (text !== undefined && text !== null) e.textContent = String(text);
      return e;
    }
    function cssVar(style, name, fallback) {
      var v = style.getPropertyValue(name).trim();
      return v || fallback;
    }
    function clone(o) { return JSON.parse(JSON.stringify(o)); }
    function finite(v) { return typeof v === "number" && isFinite(v); }
    // index of the first element >= x in a sorted array
    function lowerBound(a, x) {
      var lo = 0, hi = a.length;
      while (lo < hi) { var mid = (lo + hi) >> 1; if (a[mid] < x) lo = mid + 1; else hi = mid; }
      return lo;
    }
    function nearestIndex(a, x) {
      if (!a.length) return -1;
      var j = lowerBound(a, x);
      if (j >= a.length) return a.length - 1;
      if (j > 0 && x - a[j - 1] <= a[j] - x) return j - 1;
      return j;
    }
    function pad(n) { return (n < 10 ? "0" : "") + n; }
    function timeText(sec) {
      var d = new Date(sec * 1000);
      return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " +
        pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds());
    }
    function rowTime(r) {
      if (!D.times || r < 0) return null;
      var t = D.times[r];
      return t === null || t === undefined ? null : D.t0 + t;
    }
    // exact value: JavaScript prints the shortest text that reads back as the same number
    function exact(v) { return finite(v) ? String(v) : "–"; }

    /* ------------------------------------------------------------ theme */
    var T = null;
    function readTheme() {
      var s = getComputedStyle(document.documentElement);
      var t = {
        fg: cssVar(s, "--fg", "#1d1f21"), sub: cssVar(s, "--sub", "#5c6166"), border: cssVar(s, "--border", "#d9dcdf"),
        card: cssVar(s, "--card", "#ffffff"), grid: cssVar(s, "--rg-grid", "#eceef0"), band: cssVar(s, "--rg-band", "#1f5fbf"),
        texts: cssVar(s, "--rg-texts", "#1f5fbf"), notexts: cssVar(s, "--rg-notexts", "#9aa0a6"), seg: cssVar(s, "--rg-seg", "#7b4bb7"),
        skipped: cssVar(s, "--rg-skipped", "#e0a100"), incomplete: cssVar(s, "--rg-incomplete", "#9aa0a6"),
        crashed: cssVar(s, "--rg-crashed", "#d93a2b"), palette: []
      };
      for (var j = 1; j <= 10; j++) t.palette.push(cssVar(s, "--rg-c" + j, "#1f5fbf"));
      t.key = [t.fg, t.card, t.palette.join()].join("|");
      return t;
    }
    function vlConfig(t) {
      return {
        background: null,
        aria: false, // no per-point description: it is an interpreted expression per datum
        font: "system-ui, -apple-system, Segoe UI, Roboto, sans-serif",
        view: { stroke: null },
        axis: {
          domainColor: t.border, tickColor: t.border, gridColor: t.grid, labelColor: t.sub, titleColor: t.sub,
          labelFontSize: 11, tickSize: 4, labelPadding: 2, labelFlush: true
        },
        axisX: { grid: false },
      // a fixed y-axis extent makes the plot width known before drawing (see plotWidth)
      axisY: { minExtent: AXIS_Y, maxExtent: AXIS_Y, labelLimit: AXIS_Y - 6 },
        line: { strokeCap: "round" }
      };
    }
    var AXIS_Y = 58, PAD_X = 2 + 8; // the spec's left and right padding
    // the width of the plotting area that makes the whole view fill its box
    function plotWidth(box) { return Math.max(100, Math.floor((box.clientWidth || 400) - AXIS_Y - PAD_X)); }

    // statuses come from the logs: only the ones with a colour of their own are looked up
    function statusColour(st) { return st === "skipped" || st === "crashed" ? T[st] : T.incomplete; }

    /* ------------------------------------------------------------ data */
    function column(name) { return D.cols[name]; }

    // A series whose values fill less than half of its span is logged sparsely (evaluations,
    // totals): connect its points. Otherwise a null is a gap and the line breaks there.
    function isSparse(ys) {
      var first = -1, last = -1, n = 0;
      for (var j = 0; j < ys.length; j++) if (ys[j] !== null) { if (first < 0) first = j; last = j; n++; }
      return first >= 0 && n < 0.5 * (last - first + 1);
    }

    // Min and max per bucket of x (2 px wide), so the drawn line looks like the full one;
    // a null breaks the path (a null point), and an isolated value goes to `lone` (drawn as a dot).
    function downsample(xs, ys, x0, x1, nb, sparse, out, lone, extra) {
      var n = xs.length, j;
      var push = function (idx) { var d = { x: xs[idx], y: ys[idx] }; if (extra) extra(d, idx); out.push(d); };
      var runLen = 0, runStart = -1;
      var endRun = function () { if (runLen === 1 && lone) lone.push(runStart); runLen = 0; };
      var brk = function (idx) {
        endRun();
        if (out.length && out[out.length - 1].y !== null) { var d = { x: xs[idx], y: null }; if (extra) extra(d, idx); out.push(d); }
      };
      if (n <= nb * 2) {
        for (j = 0; j < n; j++) {
          if (ys[j] === null) { if (!sparse) brk(j); continue; }
          if (runLen === 0) runStart = j;
          runLen++;
          push(j);
        }
        endRun();
        return;
      }
      var w = (x1 - x0) / nb || 1, cur = null, first = -1, mn = -1, mx = -1;
      var flush = function () {
        if (first < 0) return;
        // min and max of the bucket, in x order
        push(mn < mx ? mn : mx);
        if (mn !== mx) push(mn < mx ? mx : mn);
        first = -1;
      };
      for (j = 0; j < n; j++) {
        var y = ys[j];
        if (y === null) { if (!sparse) { flush(); brk(j); } continue; }
        if (runLen === 0) runStart = j;
        runLen++;
        var b = Math.floor((xs[j] - x0) / w);
        if (b !== cur || first < 0) { flush(); cur = b; first = mn = mx = j; }
        else { if (y < ys[mn]) mn = j; if (y > ys[mx]) mx = j; }
      }
      flush();
      endRun();
    }

    // mean ± std as an envelope: lowest low and highest high per bucket (at its first and last x);
    // a null breaks the band
    function bandData(m, sd, x0, x1, nb) {
      var out = [], w = (x1 - x0) / nb || 1, cur = null, b0 = -1, b1 = -1, lo = 0, hi = 0;
      var dense = nRows > nb * 2;
      var flush = function () {
        if (b0 < 0) return;
        out.push({ x: steps[b0], lo: lo, hi: hi, c: T.band });
        if (b1 !== b0) out.push({ x: steps[b1], lo: lo, hi: hi, c: T.band });
        b0 = -1;
      };
      for (var r = 0; r < nRows; r++) {
        if (m[r] === null || sd[r] === null) {
          flush();
          if (out.length && out[out.length - 1].lo !== null) out.push({ x: steps[r], lo: null, hi: null, c: T.band });
          continue;
        }
        var l = m[r] - sd[r], h = m[r] + sd[r], b = dense ? Math.floor((steps[r] - x0) / w) : r;
        if (b !== cur || b0 < 0) { flush(); cur = b; b0 = b1 = r; lo = l; hi = h; }
        else { b1 = r; if (l < lo) lo = l; if (h > hi) hi = h; }
      }
      flush();
      return out;
    }

    // one bucket per 2 px of plot: its min and max draw the same picture as every point would
    function buckets(plot) { return Math.max(40, Math.min(1000, Math.round(((plot.clientWidth || 500) - 40) / 2))); }

    // rects for skipped/incomplete/crashed iterations over the full height (neighbours merged),
    // at least ~1.5 px wide so that one update among 10,000 still shows
    function flagRects(nb) {
      var out = [], x0 = D.domain[0], x1 = D.domain[1], minw = 1.5 * (x1 - x0) / nb;
      var nums = [];
      for (var st in it.status) if (Object.prototype.hasOwnProperty.call(it.status, st)) it.status[st].forEach(function (n) { nums.push([n, st]); });
      nums.sort(function (a, b) { return a[0] - b[0]; });
      var idxOf = {};
      for (var j = 0; j < it.n.length; j++) idxOf[it.n[j]] = j;
      var cur = null, runs = [];
      nums.forEach(function (p) {
        var j2 = idxOf[p[0]];
        if (cur && cur.st === p[1] && idxOf[cur.last] === j2 - 1) { cur.last = p[0]; return; }
        cur = { first: p[0], last: p[0], st: p[1] };
        runs.push(cur);
      });
      runs.forEach(function (r) {
        var a = r.first - 0.5, b = r.last + 0.5;
        if (b - a < minw) { var mid = (a + b) / 2; a = mid - minw / 2; b = mid + minw / 2; }
        out.push({ x0: a, x1: b, y0: 0, y1: D.chart_height, o: 0.35, c: statusColour(r.st) });
      });
      return out;
    }

    function segRules() {
      return (D.segs || []).map(function (s) { return { x: s.x, c: T.seg, label: s.label }; });
    }

    // one tick at the bottom per pixel column holding an iteration with texts
    function rugTicks(nums, nb, colour) {
      var out = [], x0 = D.domain[0], w = (D.domain[1] - x0) / nb || 1, lastB = null, half = 0.4 * w;
      nums.forEach(function (n) {
        var b = Math.floor((n - x0) / w);
        if (b !== lastB) { out.push({ x0: n - half, x1: n + half, y0: D.chart_height - 6, y1: D.chart_height, o: 1, c: colour }); lastB = b; }
      });
      return out;
    }

    function evalInfo(label) {
      var ev = D.evals[label] || { texts: [], pages: [] };
      if (!ev.pageOf) { ev.pageOf = {}; for (var j = 0; j < ev.texts.length; j++) ev.pageOf[ev.texts[j]] = ev.pages[j]; }
      return ev;
    }

    // Everything a fixed chart draws, plus the arrays its hover reads.
    function chartData(c, plot) {
      var nb = buckets(plot), x0 = D.domain[0], x1 = D.domain[1];
      var ds = { rects: [], band: [], segs: segRules(), line: [], pts: [] };
      var cols = c.series.map(function (s) { return column(s.key); });
      var colours = c.series.map(function (s, j) { return T.palette[j % T.palette.length]; });
      var isEval = c.kind === "eval";
      var ev = isEval ? evalInfo(c.label) : null;
      var hasTexts = function (n) { return isEval ? ev.pageOf[n] !== undefined : pageOf[n] !== undefined; };
      var lone = [];
      cols.forEach(function (ys, j) {
        var sp = isEval || isSparse(ys), l = [];
        downsample(steps, ys, x0, x1, nb, sp, ds.line, l, function (d) { d.s = c.series[j].key; d.c = colours[j]; });
        l.forEach(function (r) { lone.push([r, j]); });
      });
      if (c.band) ds.band = bandData(column(c.band.mean), column(c.band.std), x0, x1, nb);
      // iteration markers: filled with texts, hollow without, when there is room for them
      var rows = [];
      for (var q = 0; q < nRows; q++) {
        for (var j = 0; j < cols.length; j++) if (cols[j][q] !== null) { rows.push(q); break; }
      }
      var texts = isEval ? ev.texts : it.texts;
      if (rows.length <= nb / 3.5) { // a marker per 7 px at most
        rows.forEach(function (q2) {
          var n = steps[q2], t = hasTexts(n);
          cols.forEach(function (ys, j) {
            if (ys[q2] === null) return;
            ds.pts.push({ x: n, y: ys[q2], f: t ? colours[j] : T.card, c: t ? colours[j] : T.notexts });
          });
        });
      } else {
        ds.rects = rugTicks(texts, nb, T.texts);
        lone.forEach(function (p) { ds.pts.push({ x: steps[p[0]], y: cols[p[1]][p[0]], f: colours[p[1]], c: colours[p[1]] }); });
      }
      if (!isEval) ds.rects = flagRects(nb).concat(ds.rects);
      // hover candidates: every row with a value, and every flagged iteration
      var hx = rows.map(function (q3) { return steps[q3]; });
      if (!isEval) for (var st in it.status) if (Object.prototype.hasOwnProperty.call(it.status, st)) hx = hx.concat(it.status[st]);
      hx.sort(function (a, b) { return a - b; });
      var uniq = [];
      hx.forEach(function (x) { if (!uniq.length || uniq[uniq.length - 1] !== x) uniq.push(x); });
      return { ds: ds, hx: uniq, cols: cols, colours: colours };
    }

    /* ------------------------------------------------------------ tooltip and message */
    var tip = document.getElementById("rg-tip");
    var msg = document.getElementById("rg-msg");

    function showTip(ev, head, sub, rows, foot) {
      if (!tip) return;
      tip.textContent = "";
      tip.appendChild(el("div", "rg-tip-head", head));
      if (sub) tip.appendChild(el("div", "rg-tip-sub", sub));
      if (rows.length) {
        var tbl = el("table");
        rows.forEach(function (r) {
          var tr = el("tr");
          var td = el("td");
          if (r.colour) { var dot = el("span", "rg-dot"); dot.style.background = r.colour; td.appendChild(dot); }
          td.appendChild(document.createTextNode(r.label));
          tr.appendChild(td);
          tr.appendChild(el("td", "rg-v", r.value));
          if (r.extra) tr.appendChild(el("td", "rg-x", r.extra));
          tbl.appendChild(tr);
        });
        tip.appendChild(tbl);
      }
      if (foot) tip.appendChild(el("div", "rg-tip-foot", foot));
      tip.hidden = false;
      var w = tip.offsetWidth, h = tip.offsetHeight;
      var x = ev.clientX + 14, y = ev.clientY + 14;
      if (x + w > window.innerWidth - 8) x = ev.clientX - w - 14;
      if (y + h > window.innerHeight - 8) y = ev.clientY - h - 14;
      tip.style.left = Math.max(4, x) + "px";
      tip.style.top = Math.max(4, y) + "px";
    }
    function hideTip() { if (tip) tip.hidden = true; }
    // what the keyboard moves to is read out by a screen reader: the tooltip is only drawn
    // (#rg-said is in the page from the start: a region made and filled at once is often not read)
    var live = document.getElementById("rg-said");
    function announce(h) {
      if (!live) return;
      var head = [h.head, h.sub].filter(Boolean).join(", ").replace(/\n/g, ", ");
      live.textContent = head + (h.rows.length ? ": " + h.rows.map(function (r) { return r.label + " " + r.value; }).join(", ") : "");
    }

    function hideMsg() { if (msg) msg.hidden = true; }
    function link(page, text) { var a = el("a", null, text); a.href = page; return a; }
    // "update 13 has no texts; nearest with texts: 12 / 14", with links; never a modal dialog
    function noTexts(ev, subject, none, n, texts, pages) {
      if (!msg) return;
      msg.textContent = "";
      msg.appendChild(document.createTextNode(subject + " has no texts"));
      var j = lowerBound(texts, n);
      var before = j > 0 ? j - 1 : -1, after = j < texts.length ? j : -1;
      if (before < 0 && after < 0) {
        msg.appendChild(document.createTextNode("; " + none + "."));
      } else {
        msg.appendChild(document.createTextNode("; nearest with texts: "));
        if (before >= 0) msg.appendChild(link(pages[before], String(texts[before])));
        if (before >= 0 && after >= 0) msg.appendChild(document.createTextNode(" / "));
        if (after >= 0) msg.appendChild(link(pages[after], String(texts[after])));
      }
      var close = el("button", "rg-close", "×");
      close.type = "button";
      close.setAttribute("aria-label", "close");
      close.addEventListener("click", hideMsg);
      msg.appendChild(close);
      msg.hidden = false;
      if (live) live.textContent = msg.textContent.replace(/×$/, "");  // read out (the box is drawn)
      var w = msg.offsetWidth, h = msg.offsetHeight, cx = ev.clientX, cy = ev.clientY;
      if (cx === undefined) { // from the keyboard: under the focused chart
        var r = ev.target.getBoundingClientRect();
        cx = r.left + 20;
        cy = r.bottom - 20;
      }
      var x = Math.min(cx + 8, window.innerWidth - w - 8), y = cy + 12;
      if (y + h > window.innerHeight - 8) y = cy - h - 12;
      msg.style.left = Math.max(4, x) + "px";
      msg.style.top = Math.max(4, y) + "px";
    }
    document.addEventListener("keydown", function (e) { if (e.key === "Escape") { hideMsg(); hideTip(); } });
    document.addEventListener("click", function (e) {
      if (msg && !msg.hidden && !msg.contains(e.target) && !(e.target.closest && e.target.closest(".rg-plot"))) hideMsg();
    });
    window.addEventListener("scroll", hideTip, { passive: true });

    function go(page, e) {
      if (e.ctrlKey || e.metaKey || e.shiftKey || e.button === 1) window.open(page, "_blank", "noopener");
      else window.location.href = page;
    }
    function openTrain(n, e) {
      if (pageOf[n] !== undefined) go(pageOf[n], e);
      else noTexts(e, word + " " + n, "no " + word + " of this run has texts", n, it.texts, it.pages);
    }
    function openEval(label, n, e) {
      var ev = evalInfo(label);
      if (ev.pageOf[n] !== undefined) go(ev.pageOf[n], e);
      else noTexts(e, "eval " + label + " at step " + n, "this evaluator has no texts in the logs", n, ev.texts, ev.pages);
    }

    /* ------------------------------------------------------------ views and pointer */
    var LOG = HAVE_VEGA ? window.vega.Error : 0;
    var EMBED = {
      renderer: "canvas", actions: false, ast: true, defaultStyle: false, tooltip: false, hover: false, logLevel: LOG,
      expr: HAVE_VEGA ? window.vega.expressionInterpreter : undefined
    };

    function withTheme(spec, datasets) {
      var s = clone(spec);
      s.datasets = datasets;
      s.config = vlConfig(T);
      return s;
    }

    // Every fixed chart has the same layers, so the Vega-Lite spec is compiled and parsed once
    // (per theme) and each chart is a View of that runtime with its own data: compiling is most
    // of the cost of a chart.
    var shared = null;
    function sharedRuntime() {
      if (shared && shared.key === T.key) return shared.rt;
      var vg = window.vegaLite.compile(withTheme(D.spec, { rects: [], band: [], segs: [], line: [], pts: [] })).spec;
      shared = { key: T.key, rt: window.vega.parse(vg, null, { ast: true }) };
      return shared.rt;
    }
    // vega names its container "Vega visualization" (role graphics-document): the box's own
    // name says which chart it is and how to move in it, so it is put back once drawn
    function keepName(plot) {
      var role = plot.getAttribute("role"), label = plot.getAttribute("aria-label");
      return function () {
        if (role) plot.setAttribute("role", role);
        if (label) plot.setAttribute("aria-label", label);
        plot.removeAttribute("aria-roledescription");
      };
    }
    function chartView(plot, datasets) {
      var restore = keepName(plot);
      var view = new window.vega.View(sharedRuntime(), {
        renderer: "canvas", container: plot, hover: false, logLevel: LOG, expr: window.vega.expressionInterpreter
      });
      view.width(plotWidth(plot));
      for (var name in datasets) if (Object.prototype.hasOwnProperty.call(datasets, name)) view.data(name, datasets[name]);
      return view.runAsync().then(function (v) { restore(); return v; });
    }
    // the views follow their boxes when the window is resized
    var resizeTimer = null;
    window.addEventListener("resize", function () {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(function () {
        Object.keys(state.views).forEach(function (id) {
          var v = state.views[id], plot = document.querySelector("#chart-" + id + " .rg-plot");
          if (plot && v.width() !== plotWidth(plot)) v.width(plotWidth(plot)).runAsync();
        });
        if (ex.view && ex.view.width() !== plotWidth(ex.plot)) ex.view.width(plotWidth(ex.plot)).runAsync();
      }, 150);
    });

    function canvasOffset(view, plot) {
      var canvas = plot.querySelector("canvas");
      if (!canvas) return null;
      var cr = canvas.getBoundingClientRect(), pr = plot.getBoundingClientRect(), o = view.origin();
      return { left: cr.left - pr.left + o[0], top: cr.top - pr.top + o[1], pl: pr.left, pt: pr.top };
    }

    // data-space x under the pointer, or null when the pointer is off the plotting area
    function pointerX(view, plot, e) {
      var off = canvasOffset(view, plot);
      if (!off) return null;
      var px = e.clientX - off.pl - off.left, py = e.clientY - off.pt - off.top;
      var w = view.width(), h = view.height();
      if (px < -12 || px > w + 12 || py < -8 || py > h + 16) return null;
      var x = view.scale("x").invert(Math.max(0, Math.min(w, px)));
      return x instanceof Date ? x.getTime() : x;
    }

    // the hover's rule and dots: HTML over the canvas, moved with element.style (allowed by the CSP)
    function overlay(plot) {
      var ov = plot.querySelector(".rg-hover");
      if (!ov) {
        ov = el("div", "rg-hover");
        ov.appendChild(el("div", "rg-hline"));
        plot.appendChild(ov);
      }
      return ov;
    }
    function drawHover(plot, view, h) {
      var ov = overlay(plot), off = canvasOffset(view, plot);
      if (!off) return;
      var xs = view.scale("x"), ys = view.scale("y"), px = xs(h.x);
      var line = ov.firstChild;
      line.style.left = off.left + px + "px";
      line.style.top = off.top + "px";
      line.style.height = view.height() + "px";
      while (ov.childNodes.length > 1) ov.removeChild(ov.lastChild);
      h.points.forEach(function (p) {
        var py = ys(p.y);
        if (!isFinite(py)) return;
        var dot = el("div", "rg-hdot");
        dot.style.left = off.left + px + "px";
        dot.style.top = off.top + py + "px";
        dot.style.background = p.c;
        ov.appendChild(dot);
      });
      ov.hidden = false;
    }

    // hover and click on one plot: nearest candidate x, rule + dots, tooltip, open on click;
    // from the keyboard: arrows move between candidates (xs()), Enter opens, Escape leaves
    function wire(plot, getView, hoverAt, onClick, xs) {
      var pending = null, shown = null, kbd = -1, touch = false;
      function at(e) {
        var view = getView();
        var x = view ? pointerX(view, plot, e) : null;
        return x === null ? null : hoverAt(x);
      }
      function update(e) {
        var h = at(e);
        if (!h) { clear(); return; }
        shown = { x: e.clientX, h: h };
        drawHover(plot, getView(), h);
        showTip(e, h.head, h.sub, h.rows, touch ? h.foot.replace(/\bclick\b/, "tap again") : h.foot);
        plot.setAttribute("data-hover", String(h.key));
      }
      function clear() {
        shown = null;
        hideTip();
        var ov = plot.querySelector(".rg-hover");
        if (ov) ov.hidden = true;
        plot.removeAttribute("data-hover");
      }
      // a touch screen has no hover: a first tap shows the values, a second on the same
      // point opens it (a finger that lifts also "leaves" the plot: the values stay)
      plot.addEventListener("pointerdown", function (e) { touch = e.pointerType === "touch" || e.pointerType === "pen"; });
      plot.addEventListener("pointermove", function (e) {
        if (pending || e.pointerType === "touch") return;
        touch = false;
        pending = window.requestAnimationFrame(function () { pending = null; update(e); });
      });
      plot.addEventListener("pointerleave", function (e) {
        if (pending) { window.cancelAnimationFrame(pending); pending = null; }
        if (e.pointerType !== "touch") clear();
      });
      plot.addEventListener("click", function (e) {
        if (touch) {
          var t = at(e);
          e.preventDefault();
          if (t && shown && shown.h.key === t.key) onClick(t.key, e);
          else update(e);
          return;
        }
        // open what the tooltip shows (click coordinates are rounded to whole pixels)
        var h = shown && Math.abs(shown.x - e.clientX) < 1.5 ? shown.h : at(e);
        if (h) { e.preventDefault(); onClick(h.key, e); }
      });
      plot.addEventListener("auxclick", function (e) {
        if (e.button !== 1) return;
        var h = at(e);
        if (h) { e.preventDefault(); onClick(h.key, e); }
      });
      plot.addEventListener("keydown", function (e) {
        var view = getView(), cands = xs();
        if (!view || !cands.length || e.altKey || e.ctrlKey || e.metaKey) return;
        var step = { ArrowRight: 1, ArrowLeft: -1, PageDown: 10, PageUp: -10 }[e.key];
        if (e.key === "Home") kbd = 0;
        else if (e.key === "End") kbd = cands.length - 1;
        else if (step) kbd = kbd < 0 ? (step > 0 ? 0 : cands.length - 1) : Math.max(0, Math.min(cands.length - 1, kbd + step));
        else if (e.key === "Enter" && shown) { e.preventDefault(); onClick(shown.h.key, e); return; }
        else if (e.key === "Escape") { clear(); kbd = -1; return; }
        else return;
        e.preventDefault();
        var h = hoverAt(cands[kbd]);
        if (!h) return;
        drawHover(plot, view, h);
        var off = canvasOffset(view, plot), px = off.pl + off.left + view.scale("x")(h.x);
        var pos = { clientX: px, clientY: off.pt + off.top + view.height() / 3 };
        shown = { x: -1e9, h: h };
        showTip(pos, h.head, h.sub, h.rows, h.foot);
        announce(h);
        plot.setAttribute("data-hover", String(h.key));
      });
      plot.addEventListener("blur", function () { clear(); kbd = -1; });
    }

    function headFor(n) {
      var parts = [];
      if (segByNumber[n] !== undefined && segByNumber[n] !== null) parts.push("segment " + segByNumber[n]);
      var r = rowOf[n] === undefined ? -1 : rowOf[n];
      var t = rowTime(r);
      if (t !== null) parts.push(timeText(t));
      if (statusOf[n]) parts.push(statusOf[n] === "incomplete" ? "incomplete update, or incomplete export" : statusOf[n]);
      return parts.join(" · ") + (segStart[n] ? "\nfirst after a change: " + segStart[n] : "");
    }

    // the first iteration after a segment change says so on hover
    var segStart = {};
    (D.segs || []).forEach(function (s) { segStart[s.at] = s.label; });

    /* ------------------------------------------------------------ fixed charts */
    var charts = D.charts || [];

    function seriesLegend(box, c) {
      var holder = box.querySelector(".rg-series");
      if (!holder) return;
      holder.textContent = "";
      if (c.series.length < 2 && !c.band) return;
      c.series.forEach(function (s, j) {
        var item = el("span");
        var sw = el("span", "rg-swatch");
        sw.style.background = T.palette[j % T.palette.length];
        item.appendChild(sw);
        item.appendChild(document.createTextNode(s.label));
        holder.appendChild(item);
      });
      if (c.band) {
        var b = el("span");
        var sw2 = el("span", "rg-swatch");
        sw2.style.background = T.band;
        sw2.style.opacity = "0.35";
        sw2.style.height = "8px";
        b.appendChild(sw2);
        b.appendChild(document.createTextNode("± " + c.band.std));
        holder.appendChild(b);
      }
    }

    // the change from the row before that has a value: where a metric moved most is what a
    // reader looks for, and the hover shows values one at a time
    function change(col, r) {
      if (r < 0 || col[r] === null) return null;
      for (var k = r - 1; k >= 0; k--) {
        if (col[k] !== null) {
          var d = col[r] - col[k];
          return "Δ " + (d > 0 ? "+" : d < 0 ? "−" : "±") + Number(Math.abs(d).toPrecision(3));
        }
      }
      return null;
    }

    function drawChart(c) {
      var box = document.getElementById("chart-" + c.id);
      if (!box) return Promise.resolve();
      var plot = box.querySelector(".rg-plot");
      var data = chartData(c, plot);
      seriesLegend(box, c);
      var isEval = c.kind === "eval";
      var std = c.band ? column(c.band.std) : null;
      var hoverAt = function (x) {
        var j = nearestIndex(data.hx, x);
        if (j < 0) return null;
        var n = data.hx[j], r = rowOf[n] === undefined ? -1 : rowOf[n];
        var rows = [], points = [];
        c.series.forEach(function (s, q) {
          var v = r >= 0 ? data.cols[q][r] : null;
          rows.push({ label: s.label, value: exact(v), colour: data.colours[q], extra: change(data.cols[q], r) });
          if (v !== null) points.push({ x: n, y: v, c: data.colours[q], o: T.card });
        });
        if (std) rows.push({ label: c.band.std, value: exact(r >= 0 ? std[r] : null), colour: null });
        var has, foot;
        if (isEval) {
          has = evalInfo(c.label).pageOf[n] !== undefined;
          foot = has ? "click to open eval " + c.label + " at step " + n : "no eval texts at this step; click for the nearest";
        } else {
          has = pageOf[n] !== undefined;
          foot = has ? "click to open its texts" : "no texts; click for the nearest " + word + " with texts";
        }
        var sub = isEval ? "eval " + c.label : headFor(n);
        return { key: n, x: n, points: points, head: (isEval ? "step" : word) + " " + n, sub: sub, rows: rows, foot: foot };
      };
      var old = state.views[c.id];
      return chartView(plot, data.ds).then(function (view) {
        if (old) old.finalize();
        state.views[c.id] = view;
        plot.classList.add("rg-drawn");
        if (!plot.hasAttribute("data-wired")) {
          plot.setAttribute("data-wired", "1");
          wire(plot, function () { return state.views[c.id]; }, function (x) { return plot.rgHoverAt(x); },
            function (n, e) { if (isEval) openEval(c.label, n, e); else openTrain(n, e); },
            function () { return plot.rgXs; });
        }
        plot.rgHoverAt = hoverAt;
        plot.rgXs = data.hx;
      }, function (err) {
        failed(plot, err);
      });
    }

    function failed(plot, err) {
      state.errors.push(String(err && err.message || err));
      var p = plot.querySelector(".rg-status") || plot.appendChild(el("p", "rg-status subtle"));
      p.textContent = "This chart could not be drawn: " + (err && err.message || err);
      p.classList.add("rg-error");
    }

    // Charts on the first screen first, chained by promises only (no task in between, where the
    // parser of a long page would resume); then the others one task each, so the page stays responsive.
    function drawAll() {
      T = readTheme();
      var h = window.innerHeight || 800;
      var first = [], later = [];
      charts.forEach(function (c) {
        var box = document.getElementById("chart-" + c.id);
        (box && box.getBoundingClientRect().top < h ? first : later).push(c);
      });
      var queue = first.concat(later), k = 0;
      return new Promise(function (resolve) {
        function next() {
          if (k === first.length && state.firstAt === undefined) state.firstAt = performance.now();
          if (k >= queue.length) { resolve(); return; }
          var c = queue[k++];
          drawChart(c).then(function () { if (k < first.length) next(); else setTimeout(next, 0); });
        }
        next();
      }).then(function () {
        if (!state.drawn) {
          state.drawn = true;
          state.drawnAt = performance.now();
          document.documentElement.setAttribute("data-rg-charts", "drawn");
        }
      });
    }

    /* ------------------------------------------------------------ explorer */
    var ex = {
      picks: [], smooth: 0, log: false, xmode: "step",
      list: document.getElementById("rg-metric-list"), search: document.getElementById("rg-search"),
      plot: document.getElementById("rg-explorer-plot"), legend: document.getElementById("rg-explorer-legend"),
      note: document.getElementById("rg-explorer-note"), smoothIn: document.getElementById("rg-smooth"),
      smoothOut: document.getElementById("rg-smooth-out"), logIn: document.getElementById("rg-log"),
      xIn: document.getElementById("rg-xmode"), count: document.getElementById("rg-picked-count"),
      boxes: Object.create(null), groups: [], timer: null, view: null, seq: 0
    };

    function groupOf(name) { var j = name.lastIndexOf("/"); return j < 0 ? "" : name.slice(0, j); }

    function buildList() {
      if (!ex.list) return;
      var groups = Object.create(null), order = [];
      D.names.forEach(function (n) {
        var g = groupOf(n);
        if (!groups[g]) { groups[g] = []; order.push(g); }
        groups[g].push(n);
      });
      order.sort();
      var openAll = D.names.length <= 40;
      var frag = document.createDocumentFragment();
      order.forEach(function (g) {
        var det = el("details");
        det.open = openAll;
        det.dataset.group = g;
        var sum = el("summary", null, g ? g + "/" : "(no prefix)");
        sum.appendChild(el("span", "rg-count subtle", groups[g].length));
        det.appendChild(sum);
        groups[g].forEach(function (n) {
          var lab = el("label");
          lab.title = n;
          lab.dataset.name = n;
          var box = el("input");
          box.type = "checkbox";
          box.value = n;
          if (emptyNames[n]) { box.disabled = true; lab.classList.add(nonfiniteNames[n] ? "rg-nonfinite" : "rg-empty"); }
          box.addEventListener("change", function () { toggle(n, box.checked); });
          ex.boxes[n] = box;
          lab.appendChild(box);
          lab.appendChild(document.createTextNode(g ? n.slice(g.length + 1) : n));
          det.appendChild(lab);
        });
        ex.groups.push({ det: det, names: groups[g], openAll: openAll });
        frag.appendChild(det);
      });
      ex.list.appendChild(frag);
    }

    function filterList() {
      var q = (ex.search.value || "").toLowerCase().split(/\s+/).filter(Boolean);
      ex.groups.forEach(function (g) {
        var any = false;
        g.names.forEach(function (n) {
          var hit = q.every(function (w) { return n.toLowerCase().indexOf(w) >= 0; });
          ex.boxes[n].parentNode.hidden = !hit;
          if (hit) any = true;
        });
        g.det.hidden = !any;
        g.det.open = q.length ? any : (g.openAll || g.names.some(function (n) { return ex.boxes[n].checked; }));
      });
    }

    function toggle(name, on) {
      var j = ex.picks.indexOf(name);
      if (on && j < 0) ex.picks.push(name);
      if (!on && j >= 0) ex.picks.splice(j, 1);
      if (ex.boxes[name]) ex.boxes[name].checked = on;
      changed();
    }

    function changed() {
      if (ex.count) ex.count.textContent = ex.picks.length ? ex.picks.length + " picked" : "none picked";
      saveHash();
      clearTimeout(ex.timer);
      ex.timer = setTimeout(drawExplorer, 40);
    }

    // Columns kept out of metrics_data.js load from their chunk with a <script> tag, once.
    var chunkWait = {};
    function ensureLoaded(names) {
      var need = {};
      names.forEach(function (n) { if (!D.cols[n] && D.chunk[n] !== undefined) need[D.chunk[n]] = true; });
      return Promise.all(Object.keys(need).map(function (k2) {
        if (!chunkWait[k2]) {
          chunkWait[k2] = new Promise(function (resolve, reject) {
            var s = document.createElement("script");
            s.src = D.chunks[k2];
            s.onload = function () {
              var store = window.RG_METRIC_CHUNKS || {}, obj = store[k2];
              if (obj) for (var n in obj) if (Object.prototype.hasOwnProperty.call(obj, n)) D.cols[n] = obj[n];
              store[k2] = null;
              resolve();
            };
            s.onerror = function () { delete chunkWait[k2]; reject(new Error("cannot load " + D.chunks[k2])); };
            document.body.appendChild(s);
          });
        }
        return chunkWait[k2];
      }));
    }

    // debiased exponential moving average, as TensorBoard's smoothing slider; nulls stay gaps
    function ema(ys, w) {
      var out = new Array(ys.length), last = 0, n = 0;
      for (var j = 0; j < ys.length; j++) {
        var y = ys[j];
        if (y === null) { out[j] = null; continue; }
        last = last * w + (1 - w) * y;
        n++;
        out[j] = last / (1 - Math.pow(w, n));
      }
      return out;
    }

    function xOf(r) {
      if (ex.xmode === "step") return steps[r];
      var t = D.times ? D.times[r] : null;
      if (t === null || t === undefined) return null;
      return ex.xmode === "time" ? (D.t0 + t) * 1000 : t / 3600;
    }

    function setX(spec, domain) {
      spec.layer.forEach(function (l) {
        var x = l.encoding && l.encoding.x;
        if (!x) return;
        if (ex.xmode === "time") { x.type = "temporal"; x.axis = { title: null, labelOverlap: true }; }
        else if (ex.xmode === "elapsed") { x.axis = { title: "hours", labelOverlap: true, format: "~r" }; }
        // a temporal domain given as numbers comes out NaN in Vega-Lite: time axes take the data's extent
        x.scale = ex.xmode === "time" ? { nice: false } : { domain: domain, nice: false, zero: false };
      });
    }

    function drawExplorer() {
      var seq = ++ex.seq;
      if (!ex.plot || typeof window.vegaEmbed !== "function") return;
      ex.legend.textContent = "";
      ex.note.textContent = "";
      if (!ex.picks.length) {
        if (ex.view) { ex.view.finalize(); ex.view = null; state.explorer = null; }
        ex.plot.textContent = "";
        ex.plot.classList.remove("rg-drawn");
        ex.plot.appendChild(el("p", "rg-status subtle", "Pick one or more metrics to chart them."));
        if (tip) hideTip();
        return;
      }
      ensureLoaded(ex.picks).then(function () {
        if (seq === ex.seq) renderExplorer(seq);
      }, function (err) { ex.note.textContent = String(err.message || err); });
    }

    function renderExplorer(seq) {
      var picks = ex.picks.slice();
      // rows in x order (wall time may not follow steps after a resume)
      var order = [];
      for (var r = 0; r < nRows; r++) if (xOf(r) !== null) order.push(r);
      if (ex.xmode !== "step") order.sort(function (a, b) { return xOf(a) - xOf(b); });
      var xs = order.map(xOf);
      var ds = { segs: ex.xmode === "step" ? segRules() : [], raw: [], line: [], pts: [] };
      var nb = buckets(ex.plot);
      var x0 = xs.length ? xs[0] : 0, x1 = xs.length ? xs[xs.length - 1] : 1;
      var domain = ex.xmode === "step" ? D.domain : (x0 === x1 ? [x0 - 1, x1 + 1] : [x0, x1]);
      var nonPos = false, rowsAny = {}, series = [];
      picks.forEach(function (name, j) {
        var full = D.cols[name] || [];
        var ys = order.map(function (r2) { return full[r2] === undefined ? null : full[r2]; });
        ys.forEach(function (v, q) { if (v !== null) { rowsAny[q] = true; if (v <= 0) nonPos = true; } });
        var colour = T.palette[j % T.palette.length];
        var sm = ex.smooth > 0 ? ema(ys, ex.smooth) : null;
        var tag = function (d) { d.s = name; d.c = colour; };
        var lone = [];
        var sp = isSparse(ys);
        if (sm) downsample(xs, ys, domain[0], domain[1], nb, sp, ds.raw, null, tag);
        downsample(xs, sm || ys, domain[0], domain[1], nb, sp, ds.line, lone, tag);
        lone.forEach(function (q) { ds.pts.push({ x: xs[q], y: (sm || ys)[q], f: colour, c: colour }); });
        series.push({ name: name, ys: ys, sm: sm, colour: colour });
        var item = el("button", "rg-btn");
        item.type = "button";
        item.title = "remove " + name;
        var sw = el("span", "rg-swatch");
        sw.style.background = colour;
        item.appendChild(sw);
        // in a span of its own, isolated (reportgen.css): a bidi control in a metric's name
        // must not turn the "×" around
        var nm = el("span", "rg-name");
        nm.textContent = name;
        item.appendChild(nm);
        item.appendChild(el("span", "rg-remove", " ×"));
        item.addEventListener("click", function () { toggle(name, false); });
        ex.legend.appendChild(item);
      });
      var spec = clone(D.explorer);
      spec.width = plotWidth(ex.plot);
      setX(spec, domain);
      if (ex.log) {
        spec.layer.forEach(function (l) {
          if (l.encoding && l.encoding.y) { l.encoding.y.scale = { type: nonPos ? "symlog" : "log", nice: false }; }  // labels: charts.py's labelExpr
        });
        if (nonPos) ex.note.textContent = "Some values are zero or negative: the y axis is a symmetric log scale.";
      }
      var hx = [];
      for (var q2 = 0; q2 < xs.length; q2++) if (rowsAny[q2]) hx.push(q2);
      var hoverXs = hx.map(function (q) { return xs[q]; });
      var hoverAt = function (x) {
        var j = nearestIndex(hoverXs, x);
        if (j < 0) return null;
        var q = hx[j], r2 = order[q], n = steps[r2];
        var rows = [], points = [];
        series.forEach(function (s) {
          var v = s.ys[q];
          var extra = s.sm && v !== null ? "smoothed " + Number(s.sm[q].toPrecision(6)) : null;
          rows.push({ label: s.name, value: exact(v), colour: s.colour, extra: extra });
          var yv = s.sm ? s.sm[q] : v;
          if (yv !== null) points.push({ x: xs[q], y: yv, c: s.colour, o: T.card });
        });
        var sub = headFor(n);
        if (ex.xmode === "elapsed") sub = (sub ? sub + " · " : "") + (xs[q]).toFixed(3) + " h elapsed";
        return {
          key: n, x: xs[q], points: points, head: word + " " + n, sub: sub, rows: rows,
          foot: pageOf[n] !== undefined ? "click to open its texts" : "no texts; click for the nearest " + word + " with texts"
        };
      };
      if (ex.xmode !== "step" && !xs.length) ex.note.textContent = "No wall time is known for these rows.";
      var old = ex.view;
      var status = ex.plot.querySelector(".rg-status");
      if (status) status.remove();
      var restoreName = keepName(ex.plot);
      window.vegaEmbed(ex.plot, withTheme(spec, ds), EMBED).then(function (res) {
        restoreName();
        if (seq !== ex.seq) { res.view.finalize(); return; } // a newer pick is being drawn
        if (old) old.finalize();
        ex.view = res.view;
        state.explorer = res.view;
        ex.plot.classList.add("rg-drawn");
        ex.hoverAt = hoverAt;
        if (!ex.plot.hasAttribute("data-wired")) {
          ex.plot.setAttribute("data-wired", "1");
          wire(ex.plot, function () { return ex.view; }, function (x) { return ex.hoverAt(x); }, openTrain,
            function () { return ex.hoverXs || []; });
        }
        ex.hoverXs = hoverXs;
      }, function (err) { failed(ex.plot, err); });
    }

    function saveHash() {
      var parts = [];
      if (ex.picks.length) parts.push("explore=" + ex.picks.map(encodeURIComponent).join(","));
      if (ex.smooth > 0) parts.push("smooth=" + ex.smooth);
      if (ex.log) parts.push("log=1");
      if (ex.xmode !== "step") parts.push("x=" + ex.xmode);
      // the metric search too: Back from an update finds the list as the reader left it
      if (ex.search && ex.search.value) parts.push("find=" + encodeURIComponent(ex.search.value));
      var h = parts.length ? "#" + parts.join("&") : "";
      if (h === window.location.hash || (!h && !window.location.hash)) return;
      try { window.history.replaceState(null, "", h || window.location.pathname + window.location.search); } catch (e) { /* file:// may refuse */ }
    }

    function loadHash() {
      var h = window.location.hash.replace(/^#/, "");
      var found = false;
      h.split("&").forEach(function (p) {
        var j = p.indexOf("=");
        if (j < 0) return;
        var key = p.slice(0, j), val = p.slice(j + 1);
        if (key === "explore") {
          found = true;
          val.split(",").forEach(function (n) {
            try { n = decodeURIComponent(n); } catch (e) { return; }
            if (ex.boxes[n] && !ex.boxes[n].disabled && ex.picks.indexOf(n) < 0) { ex.picks.push(n); ex.boxes[n].checked = true; }
          });
        } else if (key === "smooth") {
          var s = parseFloat(val);
          if (s >= 0 && s < 1) ex.smooth = s;
        } else if (key === "log") ex.log = val === "1";
        else if (key === "x" && (val === "time" || val === "elapsed") && D.times) ex.xmode = val;
        else if (key === "find" && ex.search) {
          try { ex.search.value = decodeURIComponent(val); } catch (e) { /* a malformed escape: ignored */ }
        }
      });
      return found;
    }

    function initExplorer() {
      if (!ex.list) return;
      buildList();
      if (!loadHash()) {
        var first = charts.length ? charts[0].series[0].key : null;
        if (first && ex.boxes[first]) { ex.picks.push(first); ex.boxes[first].checked = true; }
      }
      ex.smoothIn.value = String(ex.smooth);
      ex.smoothOut.textContent = ex.smooth > 0 ? ex.smooth.toFixed(2) : "off";
      ex.logIn.checked = ex.log;
      ex.xIn.value = ex.xmode;
      filterList();
      ex.search.addEventListener("input", function () { filterList(); saveHash(); });
      ex.smoothIn.addEventListener("input", function () {
        ex.smooth = parseFloat(ex.smoothIn.value) || 0;
        ex.smoothOut.textContent = ex.smooth > 0 ? ex.smooth.toFixed(2) : "off";
        changed();
      });
      ex.logIn.addEventListener("change", function () { ex.log = ex.logIn.checked; changed(); });
      ex.xIn.addEventListener("change", function () { ex.xmode = ex.xIn.value; changed(); });
      document.getElementById("rg-clear").addEventListener("click", function () {
        ex.picks.slice().forEach(function (n) { ex.boxes[n].checked = false; });
        ex.picks = [];
        filterList();
        changed();
      });
      if (ex.count) ex.count.textContent = ex.picks.length ? ex.picks.length + " picked" : "none picked";
    }

    /* ------------------------------------------------------------ start */
    if (!HAVE_VEGA) {
      showTable();
      Array.prototype.forEach.call(section.querySelectorAll(".rg-status"), function (p) {
        p.textContent = "The chart library did not load (assets/vendor is missing).";
      });
      return;
    }
    drawAll().then(function () {
      whenIdle(showTable); // the table is searchable with the browser's find once shown
      afterParse(function () {
        initExplorer(); // its list of every metric is not needed to draw the charts
        drawExplorer();
      });
    });
    var mq = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
    if (mq && mq.addEventListener) {
      mq.addEventListener("change", function () {
        drawAll().then(function () { drawExplorer(); });
      });
    }
  }
})();
