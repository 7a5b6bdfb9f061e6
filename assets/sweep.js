/* reportgen sweep index: sort and filter the runs table, draw each key metric's curves (one colour per run).
   Classic script, no fetch, no modules: it runs from file:// under script-src 'self'. The data comes from
   sweep_data.js (window.RG_SWEEP); colours come from the --sw-cN variables of assets/sweep.css. */
(function () {
  "use strict";
  var D = window.RG_SWEEP || { runs: [], charts: [], word: "step" };
  var table = document.getElementById("sw-table");
  var rows = table ? Array.prototype.slice.call(table.tBodies[0].rows) : [];
  // maps keyed by run names and metric names (from folder names and logs): without a
  // prototype, so that a run called "constructor" is a name like any other
  var hidden = Object.create(null); // run name -> true when its legend entry is off
  var views = Object.create(null); // chart id -> vega view
  window.RG_SWEEP_VIEWS = views; // for the browser tests and the curious: the charts' vega views

  // ------------------------------------------------------------ table: sort

  function cellValue(row, col) {
    var cell = row.cells[col];
    if (!cell) return "";
    var v = cell.getAttribute("data-v");
    return v === null ? cell.textContent.trim() : v;
  }

  // names by the numbers in them, decimals and exponents included (sweep.natural_key):
  // lr_0.0005 before lr_0.001, lr_3e-5 before lr_1e-4, run2 before run10
  var NUMBER = /([0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)/;
  function naturalCompare(a, b) {
    var ta = a.split(NUMBER), tb = b.split(NUMBER);
    for (var i = 0; i < Math.min(ta.length, tb.length); i++) {
      var x = ta[i], y = tb[i];
      if (x === y) continue;
      var numeric = i % 2 === 1; // split with a group: numbers at odd places
      if (numeric) { var d = Number(x) - Number(y); if (d) return d; }
      var c = x.localeCompare(y, undefined, { sensitivity: "base" });
      if (c) return c;
    }
    return ta.length - tb.length;
  }
  function compare(a, b) {
    if (a === b) return 0;
    if (a === "") return 1; // empty cells last, whatever the direction
    if (b === "") return -1;
    var na = Number(a), nb = Number(b);
    if (!isNaN(na) && !isNaN(nb)) return na - nb;
    return naturalCompare(a, b);
  }

  function sortBy(th, wanted) {
    var col = th.cellIndex;
    var dir = wanted || (th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending");
    Array.prototype.forEach.call(th.parentNode.cells, function (c) { c.setAttribute("aria-sort", "none"); });
    th.setAttribute("aria-sort", dir);
    var sign = dir === "ascending" ? 1 : -1;
    var keyed = rows.map(function (r, i) { return { r: r, v: cellValue(r, col), i: i }; });
    keyed.sort(function (x, y) {
      if (x.v === "" || y.v === "") return compare(x.v, y.v) || x.i - y.i;
      return sign * compare(x.v, y.v) || x.i - y.i;
    });
    var body = table.tBodies[0];
    keyed.forEach(function (k) { body.appendChild(k.r); });
  }

  if (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      var b = th.querySelector("button");
      if (b) b.addEventListener("click", function () { sortBy(th); writeState(); });
    });
  }

  // ------------------------------------------------------------ table: filter

  var filterInput = document.getElementById("sw-filter");
  var statusSel = document.getElementById("sw-status");
  var formatSel = document.getElementById("sw-format");
  var count = document.getElementById("sw-count");
  var texts = rows.map(function (r) { return r.textContent.toLowerCase().replace(/\s+/g, " "); });

  function shownRuns() {
    var terms = filterInput ? filterInput.value.toLowerCase().split(/\s+/).filter(Boolean) : [];
    var st = statusSel ? statusSel.value : "";
    var fm = formatSel ? formatSel.value : "";
    var shown = Object.create(null);
    var n = 0;
    rows.forEach(function (r, i) {
      var ok = (!st || r.getAttribute("data-status") === st) && (!fm || r.getAttribute("data-format") === fm);
      for (var k = 0; ok && k < terms.length; k++) ok = texts[i].indexOf(terms[k]) >= 0;
      r.classList.toggle("hidden", !ok);
      if (ok) { shown[r.getAttribute("data-run")] = true; n++; }
    });
    if (count) {
      count.textContent = n === rows.length ? rows.length + " runs"
        : n ? n + " of " + rows.length + " runs shown"
        : "No run matches the filter (0 of " + rows.length + " runs shown): the table and charts are empty";
    }
    return shown;
  }

  // ------------------------------------------------------------ table: state in the address
  // filter, status, format and sort live in the hash (#q=grpo&sort=3:descending): Back from a
  // run comes back to the table as it was left, and a link shares it
  function readState() {
    var p = Object.create(null);
    window.location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
      if (!kv) return;
      var i = kv.indexOf("=");
      try {
        p[decodeURIComponent(i < 0 ? kv : kv.slice(0, i))] = i < 0 ? "" : decodeURIComponent(kv.slice(i + 1));
      } catch (e) { /* a malformed escape: that part is ignored */ }
    });
    return p;
  }
  function writeState() {
    var parts = [];
    if (filterInput && filterInput.value) parts.push("q=" + encodeURIComponent(filterInput.value));
    if (statusSel && statusSel.value) parts.push("status=" + encodeURIComponent(statusSel.value));
    if (formatSel && formatSel.value) parts.push("format=" + encodeURIComponent(formatSel.value));
    var th = table && table.tHead.querySelector("th[aria-sort=ascending], th[aria-sort=descending]");
    if (th) parts.push("sort=" + th.cellIndex + ":" + th.getAttribute("aria-sort"));
    var h = parts.length ? "#" + parts.join("&") : "";
    var base = window.location.href.replace(/#.*$/, "");
    if (base + h !== window.location.href) {
      try { history.replaceState(null, "", base + h); } catch (e) { /* some file:// setups refuse it */ }
    }
  }
  function applyState() {
    var p = readState();
    if (filterInput && p.q !== undefined) filterInput.value = p.q;
    if (statusSel && p.status !== undefined) statusSel.value = p.status;
    if (formatSel && p.format !== undefined) formatSel.value = p.format;
    var m = /^(\d+):(ascending|descending)$/.exec(p.sort || "");
    var th = m && table ? table.tHead.rows[0].cells[parseInt(m[1], 10)] : null;
    if (th && th.querySelector("button")) sortBy(th, m[2]);
  }
  applyState();

  var inTable = shownRuns();
  function markLegend() {
    Array.prototype.forEach.call(document.querySelectorAll(".sw-key"), function (b) {
      b.classList.toggle("filtered", !inTable[b.getAttribute("data-run")]);
    });
  }
  markLegend(); // a link's filter (#q=...) greys the legend from the start
  // a link to another state of this same page (only the hash differs) does not reload it
  window.addEventListener("hashchange", function () {
    applyState();
    inTable = shownRuns();
    markLegend();
    updateCharts();
  });

  function refilter() {
    writeState();
    inTable = shownRuns();
    markLegend();
    updateCharts();
  }
  if (filterInput) filterInput.addEventListener("input", refilter);
  if (statusSel) statusSel.addEventListener("change", refilter);
  if (formatSel) formatSel.addEventListener("change", refilter);

  // ------------------------------------------------------------ legend

  Array.prototype.forEach.call(document.querySelectorAll(".sw-key"), function (b) {
    b.addEventListener("click", function () {
      var name = b.getAttribute("data-run");
      hidden[name] = !hidden[name];
      b.setAttribute("aria-pressed", hidden[name] ? "false" : "true");
      updateCharts();
    });
  });
  var allBtn = document.getElementById("sw-all");
  if (allBtn) {
    allBtn.addEventListener("click", function () {
      hidden = Object.create(null);
      Array.prototype.forEach.call(document.querySelectorAll(".sw-key"), function (b) {
        b.setAttribute("aria-pressed", "true");
      });
      updateCharts();
    });
  }

  // ------------------------------------------------------------ charts

  function css(name) {
    return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  }

  function pad6(n) {
    var s = String(n);
    while (s.length < 6) s = "0" + s;
    return s;
  }

  function nearest(list, x) {
    // list is sorted; the number closest to x (the lower one on a tie), or null
    var lo = 0, hi = list.length - 1;
    if (hi < 0) return null;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (list[mid] < x) lo = mid + 1; else hi = mid;
    }
    if (lo > 0 && x - list[lo - 1] <= list[lo] - x) return list[lo - 1];
    return list[lo];
  }

  // where a click on a point goes: that iteration's page, else the nearest one with texts
  function target(runIndex, x, label) {
    var run = D.runs[runIndex];
    var base = encodeURIComponent(run.name) + "/";
    if (label !== null) {
      var e = nearest(run.eval[label] || [], x);
      if (e === null) return { href: base + "index.html", text: run.name + "'s index" };
      return { href: base + "eval_" + encodeURIComponent(label) + "_iteration_" + pad6(e) + ".html",
        text: "eval " + label + " at step " + e + (e === x ? "" : " (nearest with texts)") };
    }
    var n = nearest(run.train, x);
    var word = run.format === "observe" ? "update " : "step ";
    if (n === null) return { href: base + "index.html#u" + x, text: run.name + "'s index (no texts)" };
    return { href: base + "train_iteration_" + pad6(n) + ".html", text: word + n + (n === x ? "" : " (nearest with texts)") };
  }

  // the points drawn in a chart, and a second array with the points' own fields for the hover
  function values(chart) {
    var out = [];
    chart.series.forEach(function (s) {
      var run = D.runs[s.run];
      if (!run || hidden[run.name] || !inTable[run.name]) return;
      var label = s.label === undefined ? null : s.label;
      var few = s.x.length <= 60; // dots on short curves only; long ones show the hovered point
      for (var k = 0; k < s.x.length; k++) {
        out.push({ r: run.name, ri: s.run, x: s.x[k], y: s.y[k], m: s.metric, l: label, p: few });
      }
    });
    return out;
  }

  function dotsOf(vals) {
    return vals.filter(function (d) { return d.p; });
  }

  function spec(chart) {
    var colours = [];
    for (var c = 0; c < 20; c++) colours.push(css("--sw-c" + c) || "#888888");
    var names = D.runs.map(function (r) { return r.name; });
    var range = names.map(function (_n, i) { return colours[i % colours.length]; });
    var border = css("--border"), sub = css("--sub");
    var word = chart.kind === "eval" ? D.word + " (evaluation)" : D.word;
    return {
      width: "container",
      height: 210,
      autosize: { type: "fit-x", contains: "padding" },
      padding: { left: 2, right: 8, top: 6, bottom: 2 },
      background: null,
      encoding: {
        x: { field: "x", type: "quantitative", title: word,
          scale: { zero: false, nice: false }, axis: { tickMinStep: 1, format: "~r", labelOverlap: true } },
        y: { field: "y", type: "quantitative", title: null,
          scale: { zero: false, nice: true, padding: 6 }, axis: { tickCount: 5, format: "~r", labelOverlap: true } },
        color: { field: "r", type: "nominal", scale: { domain: names, range: range }, legend: null }
      },
      layer: [
        { data: { name: "pts" }, mark: { type: "line", strokeWidth: 1.7, strokeJoin: "round", clip: true } },
        { data: { name: "dots" }, mark: { type: "point", filled: true, size: 18, opacity: 0.8, clip: true } },
        { data: { name: "hl" }, mark: { type: "point", filled: true, size: 90, opacity: 1, stroke: css("--card") || "#fff",
          strokeWidth: 1.5 } }
      ],
      config: {
        aria: false, // no per-point description: an interpreted expression per point
        font: "system-ui, -apple-system, Segoe UI, Roboto, sans-serif",
        axis: { domainColor: border, tickColor: border, gridColor: css("--sw-grid") || border,
          labelColor: sub, titleColor: sub, labelFontSize: 11, titleFontSize: 11, titleFontWeight: "normal" },
        view: { stroke: null }
      }
    };
  }

  // One compiled runtime per kind of chart (train, eval) and theme, shared by the charts: each
  // chart is a vega View of it with its own data. Expressions run in vega's interpreter
  // (script-src 'self' forbids eval), so nothing is computed per point that need not be.
  var runtimes = Object.create(null);

  // The points are finite numbers already: drop vega-lite's per-point validity tests and number
  // parsing (each an interpreted expression per point, the main cost of drawing many runs).
  function lean(vg) {
    (vg.data || []).forEach(function (d) {
      if (d.transform) {
        d.transform = d.transform.filter(function (t) {
          return !(t.type === "formula" && /^toNumber\(datum\[/.test(t.expr)) &&
            !(t.type === "filter" && /^isValid\(datum\[/.test(t.expr));
        });
      }
    });
    (function marks(list) {
      list.forEach(function (m) {
        var up = m.encode && m.encode.update;
        if (up) {
          ["x", "y"].forEach(function (ch) {
            var e = up[ch];
            if (Array.isArray(e) && e.length && e[e.length - 1].scale) up[ch] = e[e.length - 1];
          });
          if (up.defined && /^isValid\(datum\[/.test(up.defined.signal || "")) delete up.defined;
        }
        if (m.marks) marks(m.marks);
      });
    })(vg.marks || []);
    return vg;
  }

  function runtime(chart) {
    var s = spec(chart);
    var key = chart.kind + "|" + JSON.stringify(s.config) + JSON.stringify(s.encoding.color.scale.range);
    if (!runtimes[key]) {
      s.datasets = { pts: [], dots: [], hl: [] };
      runtimes[key] = window.vega.parse(lean(window.vegaLite.compile(s).spec), null, { ast: true });
    }
    return runtimes[key];
  }

  // ------------------------------------------------------------ hover and click (our own: fast with many points)

  var tip = document.createElement("div");
  tip.className = "sw-tip";
  tip.setAttribute("role", "tooltip");
  tip.hidden = true;
  document.body.appendChild(tip);
  var drawnValues = Object.create(null); // chart id -> the values drawn

  // the drawn point nearest to a pointer event, within 40 px, with its position on the page
  function pointAt(chart, event) {
    var view = views[chart.id];
    var vals = drawnValues[chart.id];
    if (!view || !vals || !vals.length) return null;
    var canvas = view.container().querySelector("canvas");
    if (!canvas) return null;
    var rect = canvas.getBoundingClientRect(), o = view.origin();
    var sx = view.scale("x"), sy = view.scale("y");
    var px = event.clientX - rect.left - o[0], py = event.clientY - rect.top - o[1];
    var best = null, bestD = 40 * 40;
    for (var k = 0; k < vals.length; k++) {
      var dx = sx(vals[k].x) - px, dy = sy(vals[k].y) - py, d2 = dx * dx + dy * dy;
      if (d2 < bestD) { bestD = d2; best = vals[k]; }
    }
    return best;
  }

  function fmtValue(v) {
    if (typeof v !== "number") return String(v);
    if (Number.isInteger(v)) return String(v);
    var a = Math.abs(v);
    return a !== 0 && (a < 1e-3 || a >= 1e6) ? v.toExponential(4) : String(Number(v.toPrecision(6)));
  }

  function showTip(d, event, touch) {
    while (tip.firstChild) tip.removeChild(tip.firstChild);
    var opens = touch ? "tap again opens" : "click opens";
    var rows = [["run", d.r], [D.word, String(d.x)], [d.m, fmtValue(d.y)], [opens, target(d.ri, d.x, d.l).text]];
    if (d.l !== null) rows.splice(1, 0, ["evaluator", d.l]);
    rows.forEach(function (row, i) {
      var line = document.createElement("div");
      if (i === 0) {
        var sw = document.createElement("span");
        sw.className = "sw-swatch sw-c" + (d.ri % 20);
        line.appendChild(sw);
      }
      var k = document.createElement("span");
      k.className = "sw-tip-k";
      k.textContent = row[0];
      var v = document.createElement("span");
      v.className = "sw-tip-v";
      v.textContent = row[1];
      line.appendChild(k);
      line.appendChild(v);
      tip.appendChild(line);
    });
    tip.hidden = false;
    var w = tip.offsetWidth, h = tip.offsetHeight;
    var x = event.clientX + 14, y = event.clientY + 14;
    if (x + w > window.innerWidth - 4) x = Math.max(4, event.clientX - w - 14);
    if (y + h > window.innerHeight - 4) y = Math.max(4, event.clientY - h - 14);
    tip.style.left = x + "px"; // CSSOM, allowed under style-src 'self'
    tip.style.top = y + "px";
  }

  function hideTip(chart) {
    tip.hidden = true;
    var view = views[chart.id];
    if (view) view.data("hl", []).runAsync();
  }

  function wire(chart, plot) {
    if (plot.getAttribute("data-wired")) return;
    plot.setAttribute("data-wired", "1");
    var last = null, touch = false;
    // a touch screen has no hover: a first tap shows the point, a second on it opens it (a
    // finger that lifts also "leaves" the plot: the tip stays)
    plot.addEventListener("pointerdown", function (event) { touch = event.pointerType === "touch" || event.pointerType === "pen"; });
    plot.addEventListener("pointermove", function (event) {
      if (event.pointerType === "touch") return;
      touch = false;
      var d = pointAt(chart, event);
      if (!d) { if (last) { last = null; hideTip(chart); } plot.classList.remove("sw-on-point"); return; }
      plot.classList.add("sw-on-point");
      showTip(d, event);
      if (d !== last) {
        last = d;
        views[chart.id].data("hl", [d]).runAsync();
      }
    });
    plot.addEventListener("pointerleave", function (event) {
      if (event.pointerType === "touch") return;
      last = null; hideTip(chart); plot.classList.remove("sw-on-point");
    });
    plot.addEventListener("click", function (event) {
      if (touch) {
        var t = pointAt(chart, event);
        if (t && t === last) { window.location.href = target(t.ri, t.x, t.l).href; return; }
        last = t;
        if (!t) { hideTip(chart); return; }
        showTip(t, event, true);
        views[chart.id].data("hl", [t]).runAsync();
        return;
      }
      // the point the tip names, when one is shown: a click's whole-pixel position can be
      // nearer another run's point than the pointer's fractional one was
      var d = last || pointAt(chart, event);
      if (d) window.location.href = target(d.ri, d.x, d.l).href;
    });
    // from the keyboard: ← → along a run's curve (Home End its ends), ↑ ↓ to the curve of the
    // run before or after at the nearest step, Enter opens what the tip names, Esc leaves
    plot.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      var vals = drawnValues[chart.id];
      var view = views[chart.id];
      if (!vals || !vals.length || !view) return;
      var key = event.key;
      if (key === "Enter") {
        if (last) { event.preventDefault(); window.location.href = target(last.ri, last.x, last.l).href; }
        return;
      }
      if (key === "Escape") { last = null; hideTip(chart); return; }
      var runs = [];
      vals.forEach(function (v) { if (runs.indexOf(v.ri) < 0) runs.push(v.ri); });
      var of = function (ri) { return vals.filter(function (v) { return v.ri === ri; }); };
      var d = null;
      if (!last) {
        if (["ArrowRight", "ArrowLeft", "ArrowUp", "ArrowDown", "Home", "End"].indexOf(key) < 0) return;
        var first = of(runs[0]);
        d = key === "ArrowLeft" || key === "End" ? first[first.length - 1] : first[0];
      } else {
        var curve = of(last.ri), i = curve.indexOf(last);
        if (key === "ArrowRight") d = curve[Math.min(curve.length - 1, i + 1)];
        else if (key === "ArrowLeft") d = curve[Math.max(0, i - 1)];
        else if (key === "Home") d = curve[0];
        else if (key === "End") d = curve[curve.length - 1];
        else if (key === "ArrowUp" || key === "ArrowDown") {
          var r = runs.indexOf(last.ri) + (key === "ArrowDown" ? 1 : -1);
          if (r < 0 || r >= runs.length) { event.preventDefault(); return; }
          var other = of(runs[r]);
          d = other.reduce(function (a, b) { return Math.abs(b.x - last.x) < Math.abs(a.x - last.x) ? b : a; });
        } else return;
      }
      event.preventDefault();
      last = d;
      view.data("hl", [d]).runAsync();
      var canvas = view.container().querySelector("canvas");
      var rect = canvas ? canvas.getBoundingClientRect() : plot.getBoundingClientRect(), o = view.origin();
      showTip(d, { clientX: rect.left + o[0] + view.scale("x")(d.x), clientY: rect.top + o[1] + view.scale("y")(d.y) });
      var said = document.getElementById("sw-said");
      if (said) said.textContent = d.r + ", " + D.word + " " + d.x + ": " + d.m + " " + fmtValue(d.y);
    });
    plot.addEventListener("blur", function () { last = null; hideTip(chart); });
  }

  function draw(chart) {
    var fig = document.getElementById("chart-" + chart.id);
    if (!fig) return;
    var plot = fig.querySelector(".sw-plot");
    var status = plot.querySelector(".sw-status");
    var old = plot.querySelector(".sw-view");
    if (old) plot.removeChild(old);
    if (views[chart.id]) { views[chart.id].finalize(); delete views[chart.id]; }
    plot.classList.remove("sw-drawn");
    var el = document.createElement("div");
    el.className = "sw-view";
    plot.appendChild(el);
    var vals = values(chart);
    drawnValues[chart.id] = vals;
    var view;
    try {
      view = new window.vega.View(runtime(chart), {
        renderer: "canvas", container: el, hover: false, logLevel: window.vega.Error, expr: window.vega.expressionInterpreter
      });
      view.data("pts", vals).data("dots", dotsOf(vals));
    } catch (err) {
      status.textContent = "This chart could not be drawn: " + (err && err.message ? err.message : err);
      status.classList.add("sw-error");
      return;
    }
    views[chart.id] = view;
    view.runAsync().then(function () {
      plot.classList.add("sw-drawn");
      wire(chart, plot);
    }).catch(function (err) {
      status.textContent = "This chart could not be drawn: " + (err && err.message ? err.message : err);
      status.classList.add("sw-error");
    });
  }

  function updateCharts() {
    D.charts.forEach(function (chart) {
      var view = views[chart.id];
      if (!view) return;
      drawnValues[chart.id] = values(chart);
      view.data("pts", drawnValues[chart.id]).data("dots", dotsOf(drawnValues[chart.id])).runAsync();
    });
  }

  function drawAll() {
    if (!window.vega || !window.vegaLite || !window.vega.expressionInterpreter) {
      Array.prototype.forEach.call(document.querySelectorAll(".sw-status"), function (p) {
        p.textContent = "The charting library did not load (assets/vendor/).";
        p.classList.add("sw-error");
      });
      return;
    }
    D.charts.forEach(draw);
  }

  drawAll();
  if (window.matchMedia) {
    var mq = window.matchMedia("(prefers-color-scheme: dark)");
    var redraw = function () { runtimes = Object.create(null); drawAll(); };
    if (mq.addEventListener) mq.addEventListener("change", redraw);
    else if (mq.addListener) mq.addListener(redraw);
  }
})();
