/* reportgen: the search of every text of the run (search.html).
 *
 * search_index.js lists the iteration data files as [[file, title, key], ...]. Each file is
 * loaded with a <script> tag (no fetch: file:// pages cannot), one at a time, and sets
 * window.RG_SEARCH_SHARD to {key, title, pages, items}, items [page, anchor, who, reward,
 * text]. Every text is shown with textContent. How a query matches a text (case, Unicode
 * normalization) is match.js's, shared with the pages' own search.
 */
(function () {
  "use strict";
  var doc = document;
  var INDEX = window.RG_SEARCH_INDEX || [];
  var M = window.RG_MATCH;
  var MAX_RESULTS = 1000; // texts listed one by one; past them, a line per iteration
  var SLICE = 200; // results built in one task: the page answers keys and clicks meanwhile
  var SNIP = 80; // characters shown on each side of a match
  var POS_KEY = "reportgen.search.pos";
  var form = doc.getElementById("rs-form");
  var input = doc.getElementById("rs-q");
  var caseBox = doc.getElementById("rs-case");
  var stopBtn = doc.getElementById("rs-stop");
  var status = doc.getElementById("rs-status");
  var said = doc.getElementById("rs-said");
  var out = doc.getElementById("rs-results");
  if (!form || !input || !M) return;
  form.hidden = false;
  form.addEventListener("submit", function (e) { e.preventDefault(); start(); });

  var WORD = form.getAttribute("data-word") || "update";
  var run = 0; // the current search; a file arriving for an older one is dropped
  var cur = null;
  var restoreY = null; // back from a result: where the reader was in this search's list

  function h(tag, cls, text) {
    var e = doc.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function thousands(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }
  function enc(s) { return encodeURIComponent(s); }
  // as the pages (text.fmt): three decimals, three significant digits under 0.01
  function fmt(r) {
    if (Number.isInteger(r)) return String(r);
    return Math.abs(r) < 0.01 && r !== 0 ? String(Number(r.toPrecision(3))) : r.toFixed(3);
  }
  var session = {
    get: function (k) { try { return window.sessionStorage.getItem(k); } catch (e) { return null; } },
    set: function (k, v) { try { window.sessionStorage.setItem(k, v); } catch (e) { /* no storage */ } }
  };

  function parseHash() {
    var o = { q: "", cs: false };
    (window.location.hash || "").replace(/^#/, "").split("&").forEach(function (kv) {
      var i = kv.indexOf("=");
      if (i < 0) return;
      var k = kv.slice(0, i), v;
      try { v = decodeURIComponent(kv.slice(i + 1).replace(/\+/g, " ")); } catch (e) { v = kv.slice(i + 1); }
      if (k === "q") o.q = v;
      if (k === "case") o.cs = v === "1";
    });
    return o;
  }
  function writeHash() {
    var q = input.value;
    var hash = q ? "#q=" + enc(q) + (caseBox.checked ? "&case=1" : "") : "";
    var url = window.location.href.split("#")[0] + hash;
    if (url === window.location.href) return;
    try { history.replaceState(null, "", url); } catch (e) { /* file:// in some browsers */ }
  }

  function load(file, key) {
    // a data file sets window.RG_SEARCH_SHARD; its load event comes right after it ran, before
    // any other script (one still loading for a search given up, say) can set it again
    return new Promise(function (resolve, reject) {
      var s = doc.createElement("script");
      s.src = file;
      s.onload = function () {
        var data = window.RG_SEARCH_SHARD;
        window.RG_SEARCH_SHARD = null;
        s.remove();
        if (data && data.key === key) resolve(data);
        else reject(new Error(file + " holds no search data of " + key));
      };
      s.onerror = function () { s.remove(); reject(new Error("cannot load " + file)); };
      doc.body.appendChild(s);
    });
  }

  // ``at``, ``end``: the match in the text itself (match.js maps it back from the folded text)
  function snippet(text, at, end) {
    var ab = M.excerpt(text, at, end, SNIP), a = ab[0], b = ab[1]; // between whole characters
    var p = h("p", "rs-snip");
    var flat = function (s) { return s.replace(/\s+/g, " "); };
    p.appendChild(doc.createTextNode((a > 0 ? "…" : "") + flat(text.slice(a, at))));
    p.appendChild(h("mark", "hl", flat(text.slice(at, end))));
    p.appendChild(doc.createTextNode(flat(text.slice(end, b)) + (b < text.length ? "…" : "")));
    return p;
  }

  function count(hay, needle) {
    var n = 0, i = hay.indexOf(needle);
    while (i >= 0) { n++; i = hay.indexOf(needle, i + needle.length); }
    return n;
  }

  function summary(final) {
    var s = thousands(cur.matches) + " match" + (cur.matches === 1 ? "" : "es") + " in " +
      thousands(cur.members) + " text" + (cur.members === 1 ? "" : "s") + ", " +
      thousands(cur.done) + " of " + thousands(INDEX.length) + " searched";
    if (cur.listed < cur.members) s += " (the first " + thousands(cur.listed) + " listed, then a line per " + WORD + ")";
    if (cur.failed.length) s += "; " + cur.failed.length + " could not be read";
    return final ? s : s + "…";
  }
  function report(final) {
    status.textContent = summary(final);
    // the live region speaks the end only: a search of 200 files changed it 200 times
    if (final && said) said.textContent = status.textContent;
  }
  function restorePlace() {
    if (restoreY === null) return;
    if (doc.documentElement.scrollHeight >= restoreY + window.innerHeight || !cur || cur.ended) {
      window.scrollTo(0, restoreY);
      restoreY = null;
    }
  }

  function start() {
    var q = input.value;
    writeHash();
    run++;
    var me = run;
    out.textContent = "";
    if (!q.trim()) { status.textContent = ""; stopBtn.disabled = true; return; }
    var cs = caseBox.checked;
    var needle = M.fold(q, cs);
    var list = h("ol", "rs-list");
    // this search: what it looks for and where it lists it (cur: what it found so far)
    var search = { id: me, q: q, cs: cs, needle: needle, list: list };
    cur = { matches: 0, members: 0, listed: 0, done: 0, failed: [], ended: false };
    stopBtn.disabled = false;
    out.appendChild(list);
    var i = 0;
    function finish() {
      cur.ended = true;
      report(true);
      stopBtn.disabled = true;
      restorePlace();
    }
    function next() {
      if (me !== run) return;
      if (i >= INDEX.length) { finish(); return; }
      var entry = INDEX[i++];
      load(entry[0], entry[2]).then(function (data) {
        if (me !== run) return;
        scan(search, data, 0, null, function () {
          cur.done++;
          report(false);
          restorePlace();
          window.setTimeout(next, 0);
        });
      }, function () {
        if (me !== run) return;
        cur.failed.push(entry[0]);
        cur.done++;
        window.setTimeout(next, 0);
      });
    }
    report(false);
    next();
  }

  // the page's own search is set to the same query and case, so it marks what this page listed
  function pageLink(pages, page, search, anchor) {
    return (pages[page] || pages[0] || "index.html") + "#q=" + enc(search.q) + (search.cs ? "&case=1" : "") +
      (anchor ? "&at=" + enc(anchor) : "");
  }

  // one data file, SLICE results a task; ``section`` is its entry in the list once it has one
  function scan(search, data, from, section, done) {
    if (search.id !== run) return;
    var needle = search.needle, cs = search.cs, list = search.list;
    var items = data.items || [], pages = data.pages || [];
    var title = String(data.title || data.key);
    var made = 0, j = from, unlisted = 0;
    var frag = doc.createDocumentFragment();
    for (; j < items.length && made < SLICE; j++) {
      var it = items[j], text = String(it[4] || "");
      var hay = M.fold(text, cs);
      var at = hay.indexOf(needle);
      if (at < 0) continue;
      var k = count(hay, needle);
      cur.members++;
      cur.matches += k;
      if (cur.listed >= MAX_RESULTS) { unlisted++; continue; }
      cur.listed++;
      made++;
      if (!section) {
        section = h("li", "rs-it");
        section.appendChild(h("h2", "", title));
        section.appendChild(h("ul", "rs-items"));
        list.appendChild(section);
      }
      var li = h("li", "rs-item");
      var a = h("a", "", String(it[2]));
      a.setAttribute("href", pageLink(pages, it[0], search, String(it[1])));
      a.setAttribute("aria-label", title + ", " + String(it[2]));
      li.appendChild(a);
      if (typeof it[3] === "number") li.appendChild(h("span", "rs-reward", " reward " + fmt(it[3])));
      if (k > 1) li.appendChild(h("span", "rs-more", " · " + thousands(k) + " matches"));
      var first = M.spans(text, needle, cs, 1)[0] || [0, 0];
      li.appendChild(snippet(text, first[0], first[1]));
      frag.appendChild(li);
    }
    if (section && frag.childNodes.length) section.lastChild.appendChild(frag);
    if (unlisted) {
      // past the first MAX_RESULTS: how many more texts of this iteration match, and a way to them
      if (!section) {
        section = h("li", "rs-it");
        section.appendChild(h("h2", "", title));
        section.appendChild(h("ul", "rs-items"));
        list.appendChild(section);
      }
      var line = section.querySelector(".rs-rest");
      if (!line) {
        line = h("li", "rs-rest");
        line.setAttribute("data-n", "0");
        var link = h("a", "", "");
        link.setAttribute("href", pageLink(pages, 0, search, ""));
        line.appendChild(link);
        section.lastChild.appendChild(line);
      }
      var n = parseInt(line.getAttribute("data-n"), 10) + unlisted;
      line.setAttribute("data-n", String(n));
      line.firstChild.textContent = thousands(n) + " more text" + (n === 1 ? "" : "s") + " match here: open the " +
        WORD + " with this search";
    }
    if (j < items.length) {
      window.setTimeout(function () { scan(search, data, j, section, done); }, 0);
    } else {
      done();
    }
  }

  stopBtn.addEventListener("click", function () {
    run++;
    stopBtn.disabled = true;
    if (cur) {
      cur.ended = true;
      status.textContent = summary(true) + " (stopped)";
      if (said) said.textContent = status.textContent;
    }
    input.focus(); // the button it was on is disabled now
  });
  var timer = null;
  input.addEventListener("input", function () {
    window.clearTimeout(timer);
    timer = window.setTimeout(start, 400);
  });
  input.addEventListener("keydown", function (e) {
    if (e.key === "Enter") { e.preventDefault(); window.clearTimeout(timer); start(); }
    // leave the box, keep the search and its results: a search box's own Esc would empty it
    else if (e.key === "Escape") { e.preventDefault(); input.blur(); }
  });
  caseBox.addEventListener("change", start);
  doc.addEventListener("keydown", function (e) {
    // "/" to the search box, as on the iteration pages (not while typing in a field)
    var t = e.target, tag = t && t.tagName;
    if (e.key === "/" && !e.ctrlKey && !e.metaKey && !e.altKey && tag !== "INPUT" && tag !== "TEXTAREA" && tag !== "SELECT") {
      e.preventDefault();
      input.focus();
      input.select();
    }
  });

  // back from a result: the same search again, and the list where the reader left it
  var saveTimer = null;
  function savePlace() {
    session.set(POS_KEY, JSON.stringify({ q: input.value, cs: caseBox.checked, y: window.scrollY }));
  }
  window.addEventListener("scroll", function () {
    window.clearTimeout(saveTimer);
    saveTimer = window.setTimeout(savePlace, 150);
  }, { passive: true });
  window.addEventListener("pagehide", savePlace);

  function fromHash(initial) {
    var hp = parseHash();
    if (hp.q === input.value && hp.cs === caseBox.checked && cur) return; // our own address
    input.value = hp.q;
    caseBox.checked = hp.cs;
    restoreY = null;
    if (initial) {
      var pos = null;
      try { pos = JSON.parse(session.get(POS_KEY) || "null"); } catch (e) { pos = null; }
      if (pos && pos.q === hp.q && pos.cs === hp.cs && typeof pos.y === "number" && pos.y > 0) restoreY = pos.y;
    }
    if (!INDEX.length) status.textContent = "This site holds no texts to search.";
    else if (hp.q) start();
  }
  // a link or the back button to another search of this page
  window.addEventListener("hashchange", function () { fromHash(false); });
  if ("scrollRestoration" in history) history.scrollRestoration = "manual"; // the list is rebuilt
  fromHash(true);
  if (restoreY === null) input.focus();
})();
