/* reportgen: the run-wide text search (search.html).
 *
 * search_index.js lists the iteration data files; each is loaded with a <script> tag (no
 * fetch: file:// pages cannot), one at a time; each sets window.RG_SEARCH_SHARD to {key, title,
 * pages, items}, items [page, anchor, who, reward, text]. search_index.js: [[file, title, key], ...]. Every text is shown with textContent.
 */
(function () {
  "use strict";
  var doc = document;
  var INDEX = window.RG_SEARCH_INDEX || [];
  var MAX_RESULTS = 1000; // matches listed; the count goes on
  var SNIP = 80; // characters shown on each side of a match
  var form = doc.getElementById("rs-form");
  var input = doc.getElementById("rs-q");
  var caseBox = doc.getElementById("rs-case");
  var stopBtn = doc.getElementById("rs-stop");
  var status = doc.getElementById("rs-status");
  var out = doc.getElementById("rs-results");
  if (!form || !input) return;
  form.hidden = false;
  form.addEventListener("submit", function (e) { e.preventDefault(); start(); });

  var run = 0; // the current search; a shard arriving for an older one is dropped
  var cur = null;

  function h(tag, cls, text) {
    var e = doc.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function thousands(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }
  function enc(s) { return encodeURIComponent(s); }

  function parseHash() {
    var out = { q: "", cs: false };
    (window.location.hash || "").replace(/^#/, "").split("&").forEach(function (kv) {
      var i = kv.indexOf("=");
      if (i < 0) return;
      var k = kv.slice(0, i), v;
      try { v = decodeURIComponent(kv.slice(i + 1).replace(/\+/g, " ")); } catch (e) { v = kv.slice(i + 1); }
      if (k === "q") out.q = v;
      if (k === "case") out.cs = v === "1";
    });
    return out;
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

  function setStatus(text) { status.textContent = text; }

  function snippet(text, at, len) {
    var a = Math.max(0, at - SNIP), b = Math.min(text.length, at + len + SNIP);
    var p = h("p", "rs-snip");
    var flat = function (s) { return s.replace(/\s+/g, " "); };
    p.appendChild(doc.createTextNode((a > 0 ? "…" : "") + flat(text.slice(a, at))));
    p.appendChild(h("mark", "hl", flat(text.slice(at, at + len))));
    p.appendChild(doc.createTextNode(flat(text.slice(at + len, b)) + (b < text.length ? "…" : "")));
    return p;
  }

  function count(hay, needle) {
    var n = 0, i = hay.indexOf(needle);
    while (i >= 0) { n++; i = hay.indexOf(needle, i + needle.length); }
    return n;
  }

  function start() {
    var q = input.value;
    writeHash();
    run++;
    var me = run;
    out.textContent = "";
    if (!q.trim()) { setStatus(""); stopBtn.disabled = true; return; }
    var cs = caseBox.checked;
    var needle = cs ? q : q.toLowerCase();
    cur = { matches: 0, members: 0, listed: 0, done: 0, failed: [] };
    stopBtn.disabled = false;
    var list = h("ol", "rs-list");
    out.appendChild(list);
    var i = 0;
    function report(final) {
      var s = thousands(cur.matches) + " match" + (cur.matches === 1 ? "" : "es") + " in " +
        thousands(cur.members) + " text" + (cur.members === 1 ? "" : "s") + ", " +
        thousands(cur.done) + " of " + thousands(INDEX.length) + " searched";
      if (cur.listed < cur.members) s += " (the first " + thousands(cur.listed) + " listed)";
      if (cur.failed.length) s += "; " + cur.failed.length + " could not be read";
      setStatus(final ? s : s + "…");
    }
    function next() {
      if (me !== run) return;
      if (i >= INDEX.length) { report(true); stopBtn.disabled = true; return; }
      var entry = INDEX[i++];
      load(entry[0], entry[2]).then(function (data) {
        if (me !== run) return;
        scan(data, list, needle, cs, q);
        cur.done++;
        report(false);
        window.setTimeout(next, 0);
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

  function scan(data, list, needle, cs, q) {
    var items = data.items || [], pages = data.pages || [];
    var section = null;
    for (var j = 0; j < items.length; j++) {
      var it = items[j], text = String(it[4] || "");
      var hay = cs ? text : text.toLowerCase();
      var at = hay.indexOf(needle);
      if (at < 0) continue;
      cur.members++;
      cur.matches += count(hay, needle);
      if (cur.listed >= MAX_RESULTS) continue;
      cur.listed++;
      if (!section) {
        section = h("li", "rs-it");
        section.appendChild(h("h2", "", String(data.title || data.key)));
        section.appendChild(h("ul", "rs-items"));
        list.appendChild(section);
      }
      var li = h("li", "rs-item");
      var a = h("a", "", String(it[2]));
      var page = pages[it[0]] || pages[0] || "index.html";
      a.setAttribute("href", page + "#q=" + enc(q) + "&at=" + enc(String(it[1])));
      li.appendChild(a);
      if (typeof it[3] === "number") li.appendChild(h("span", "rs-reward", " reward " + it[3]));
      var k = count(hay, needle);
      if (k > 1) li.appendChild(h("span", "rs-more", " · " + thousands(k) + " matches"));
      // the snippet of the original text, unless lower-casing changed its length (İ): then
      // the positions are the lower-cased text's
      li.appendChild(snippet(cs || hay.length === text.length ? text : hay, at, needle.length));
      section.lastChild.appendChild(li);
    }
  }

  stopBtn.addEventListener("click", function () {
    run++;
    stopBtn.disabled = true;
    if (cur) setStatus(status.textContent.replace(/…$/, "") + " (stopped)");
  });
  var timer = null;
  input.addEventListener("input", function () {
    window.clearTimeout(timer);
    timer = window.setTimeout(start, 400);
  });
  input.addEventListener("keydown", function (e) {
    if (e.key === "Enter") { e.preventDefault(); window.clearTimeout(timer); start(); }
  });
  caseBox.addEventListener("change", start);

  function fromHash() {
    var h = parseHash();
    if (h.q === input.value && h.cs === caseBox.checked && cur) return; // our own address
    input.value = h.q;
    caseBox.checked = h.cs;
    if (!INDEX.length) setStatus("This site holds no texts to search.");
    else if (h.q) start();
  }
  // a link or the back button to another search of this page
  window.addEventListener("hashchange", fromHash);
  fromHash();
  input.focus();
})();
