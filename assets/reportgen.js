/* reportgen: the rollout viewer of iteration pages (filters, sort, compare, keys, links).
   Every text is in the HTML already; this script only shows, hides and rearranges it.
   Classic script: no modules, no fetch, no eval, no inline handlers, so it runs from file://
   under the pages' Content-Security-Policy. Model text is only ever set through textContent. */
(function () {
  "use strict";

  var doc = document;
  var body = doc.body;

  // ------------------------------------------------------------------ small helpers
  function $(sel, root) { return (root || doc).querySelector(sel); }
  function $all(sel, root) { return Array.prototype.slice.call((root || doc).querySelectorAll(sel)); }
  function h(tag, cls, text) {
    var e = doc.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function typing(e) {
    var t = e.target;
    if (!t || !t.tagName) return false;
    var tag = t.tagName.toLowerCase();
    if (tag === "input") {
      var type = (t.getAttribute("type") || "text").toLowerCase();
      return ["checkbox", "radio", "button", "submit", "reset"].indexOf(type) < 0;
    }
    return tag === "textarea" || tag === "select" || t.isContentEditable;
  }
  // web storage may be missing or throw (privacy modes, some file:// setups): never fatal
  function keeper(area) {
    return {
      get: function (k) { try { return window[area].getItem(k); } catch (e) { return null; } },
      set: function (k, v) { try { window[area].setItem(k, v); return true; } catch (e) { return false; } },
      del: function (k) { try { window[area].removeItem(k); } catch (e) { /* ignore */ } }
    };
  }
  var store = keeper("localStorage"), session = keeper("sessionStorage");
  // single-key shortcuts can be turned off (WCAG 2.1.4): the help dialog's switch, kept in
  // this browser's storage for every page of every site
  var KEYS_KEY = "reportgen.keys.v1";
  function keysOn() { return store.get(KEYS_KEY) !== "off"; }
  // a dialog closes on its backdrop and its close buttons; the help opens and closes by ?
  function wireDialog(d) {
    d.addEventListener("click", function (e) {
      // the backdrop: a click on the dialog itself outside its box (not in its padding)
      if (e.target !== d) return;
      var r = d.getBoundingClientRect();
      if (e.clientX < r.left || e.clientX > r.right || e.clientY < r.top || e.clientY > r.bottom) d.close();
    });
    $all(".dlg-close", d).forEach(function (b) { b.addEventListener("click", function () { d.close(); }); });
  }
  function toggleDialog(d) {
    if (!d) return;
    if (d.open) d.close(); else if (typeof d.showModal === "function") d.showModal(); else d.setAttribute("open", "");
  }
  // the arrows scroll the page; a fresh press at its end (↓) or top (↑) moves to the next or
  // previous iteration, as retrograd's viewer does at once: holding the key to scroll never
  // leaves the page
  function arrowMoves(e) {
    if (e.repeat) return false;
    var end = (doc.scrollingElement || doc.documentElement).scrollHeight - 2;
    return e.key === "ArrowDown" ? window.innerHeight + window.scrollY >= end : window.scrollY <= 0;
  }
  // 1,024: counts written as the pages write them (not toLocaleString: the same in every locale)
  function thousands(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }
  function num(s) {
    if (s === null || s === undefined || s === "") return null;
    var v = parseFloat(s);
    return isFinite(v) ? v : null;
  }
  function debounce(fn, ms) {
    var t = null;
    return function () { clearTimeout(t); t = setTimeout(fn, ms); };
  }
  function baseHref(href) { var i = href.indexOf("#"); return i < 0 ? href : href.slice(0, i); }

  // printing: folded texts print in full, then fold again as the reader left them
  function unfoldWhilePrinting(root) {
    var unfolded = [];
    window.addEventListener("beforeprint", function () {
      unfolded = $all("details:not([open])", root);
      unfolded.forEach(function (d) { d.open = true; });
    });
    window.addEventListener("afterprint", function () {
      unfolded.forEach(function (d) { d.open = false; });
      unfolded = [];
    });
  }

  // ------------------------------------------------------------------ invisible characters
  // A text keeps every character (copying it copies them), but those that draw nothing or
  // reorder what follows (zero-width, bidi controls, Unicode tags that smuggle hidden text,
  // C0 and C1 controls) are wrapped in a bidi-isolated span that shows what they are, so
  // that two texts which look the same do not read the same and a right-to-left override
  // cannot turn a line around. The labels are CSS content (attr): not copied, not found.
  var INVISIBLE = /[\0-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\xad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\u{1d173}-\u{1d17a}\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]+/gu;
  var INVISIBLE_NAMES = {
    0x1b: ["ESC", "escape"], 0x7f: ["DEL", "delete"], 0xad: ["SHY", "soft hyphen"],
    0x34f: ["CGJ", "combining grapheme joiner"], 0x61c: ["ALM", "Arabic letter mark"],
    0x180e: ["MVS", "Mongolian vowel separator"], 0x200b: ["ZWSP", "zero width space"],
    0x200e: ["LRM", "left-to-right mark"], 0x200f: ["RLM", "right-to-left mark"],
    0x202a: ["LRE", "left-to-right embedding"], 0x202b: ["RLE", "right-to-left embedding"],
    0x202c: ["PDF", "pop directional formatting"], 0x202d: ["LRO", "left-to-right override"],
    0x202e: ["RLO", "right-to-left override"], 0x2060: ["WJ", "word joiner"],
    0x2061: ["FA", "function application"], 0x2062: ["IT", "invisible times"],
    0x2063: ["IS", "invisible separator"], 0x2064: ["IP", "invisible plus"],
    0x2066: ["LRI", "left-to-right isolate"], 0x2067: ["RLI", "right-to-left isolate"],
    0x2068: ["FSI", "first strong isolate"], 0x2069: ["PDI", "pop directional isolate"],
    0xfeff: ["ZWNBSP", "zero width no-break space (BOM)"]
  };
  function hex(c) { var s = c.toString(16).toUpperCase(); return "U+" + "0000".slice(s.length < 4 ? s.length : 4) + s; }
  function invisibleLabel(run) {
    var cps = Array.from(run, function (ch) { return ch.codePointAt(0); });
    var tags = cps.filter(function (c) { return c >= 0xe0000 && c <= 0xe007f; });
    var parts = [], title = [];
    var i = 0;
    while (i < cps.length && parts.length < 4) {
      var c = cps[i], j = i;
      if (c >= 0xe0000 && c <= 0xe007f) {
        while (j < cps.length && cps[j] >= 0xe0000 && cps[j] <= 0xe007f) j++;
        var ascii = cps.slice(i, j).map(function (t) { return t >= 0xe0020 && t <= 0xe007e ? String.fromCharCode(t - 0xe0000) : ""; }).join("");
        parts.push(ascii ? "TAG \u201c" + (ascii.length > 60 ? ascii.slice(0, 60) + "\u2026" : ascii) + "\u201d" : "TAG\u00d7" + (j - i));
      } else {
        while (j < cps.length && cps[j] === c) j++;
        var nm = INVISIBLE_NAMES[c];
        var label = nm ? nm[0] : c < 0x20 ? "^" + String.fromCharCode(c + 64) : hex(c);
        parts.push(j - i > 1 ? label + "\u00d7" + (j - i) : label);
      }
      i = j;
    }
    if (i < cps.length) parts.push("\u2026");
    var seen = {};
    cps.forEach(function (c) {
      if (seen[c] || title.length >= 8 || (c >= 0xe0000 && c <= 0xe007f)) return;
      seen[c] = true;
      var nm = INVISIBLE_NAMES[c];
      title.push(hex(c) + (nm ? " " + nm[1] : ""));
    });
    if (tags.length) title.push(tags.length + " Unicode tag character" + (tags.length === 1 ? "" : "s") + " (text hidden from view)");
    return { label: parts.join(" "), title: cps.length + " invisible character" + (cps.length === 1 ? "" : "s") + " (kept in the text): " + title.join(", ") };
  }
  // the test, without the u flag: 3-5 times quicker over a page of megabytes (the tags,
  // variation selectors and musical controls past U+FFFF as their surrogate pairs)
  var INVISIBLE_ANY = /[\0-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\xad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb]|\ud834[\udd73-\udd7a]|\udb40[\udc00-\udc7f\udd00-\uddef]/;
  var INVISIBLE_SKIP = /^(SCRIPT|STYLE|TEXTAREA|OPTION|SELECT|TITLE)$/;
  function invisibleCandidate(n) {
    var p = n.parentNode;
    return p && INVISIBLE_ANY.test(n.data) && !INVISIBLE_SKIP.test(p.nodeName) &&
      !(p.classList && p.classList.contains("inv")) && !(p.closest && p.closest("svg, select"));
  }
  function wrapInvisible(node) {
    var text = node.data, frag = doc.createDocumentFragment(), last = 0, m;
    INVISIBLE.lastIndex = 0;
    while ((m = INVISIBLE.exec(text))) {
      if (m.index > last) frag.appendChild(doc.createTextNode(text.slice(last, m.index)));
      var info = invisibleLabel(m[0]);
      var span = h("span", "inv", m[0]);
      span.setAttribute("data-inv", info.label);
      span.title = info.title;
      frag.appendChild(span);
      last = m.index + m[0].length;
    }
    if (last < text.length) frag.appendChild(doc.createTextNode(text.slice(last)));
    node.parentNode.replaceChild(frag, node);
  }
  // root's text nodes, found and wrapped now (a dialog's panes, a compact line)
  function markInvisible(root) {
    if (!root) return;
    var found = [], walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT, null);
    for (var n = walker.nextNode(); n; n = walker.nextNode()) if (invisibleCandidate(n)) found.push(n);
    found.forEach(wrapInvisible);
  }
  // the page's, in slices of about 8 ms after it is drawn: a page of 5 MB of text takes
  // 20-70 ms, which neither the first frame nor a key waits for
  function markInvisibleLater(root, done) {
    var walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT, null), found = [];
    function slice() {
      var end = Date.now() + 8, k = 0, n;
      while ((n = walker.nextNode())) {
        if (invisibleCandidate(n)) found.push(n);
        if (++k % 256 === 0 && Date.now() > end) { setTimeout(slice, 0); return; }
      }
      // the page may have split or moved a text since (search marks): tested again
      found.forEach(function (t) { if (invisibleCandidate(t)) wrapInvisible(t); });
      done();
    }
    setTimeout(slice, 0);
  }
  function flagInvisible() {
    // the member cards that hold some get a chip saying so, beside their badges
    $all("article.member").forEach(function (mel) {
      // the markdown view is a second drawing of the same texts: counted once
      var marks = $all(".inv", mel).filter(function (e) { return !e.closest(".md"); });
      if (!marks.length || $(".chip.inv-chip", mel)) return;
      var n = 0;
      marks.forEach(function (e) { n += Array.from(e.textContent).length; });
      var head = $(".member-head", mel);
      if (!head) return;
      var badges = $(".badges", head);
      if (!badges) { badges = h("span", "badges"); head.appendChild(badges); }
      var chip = h("span", "chip warn inv-chip", n + " invisible char" + (n === 1 ? "" : "s"));
      chip.title = "This text holds characters that draw nothing or reorder the text; they are shown in place.";
      badges.appendChild(chip);
    });
    body.setAttribute("data-invisible", "done");
  }
  markInvisibleLater(body, flagInvisible);

  var viewer = doc.getElementById("rg-viewer");
  if (!viewer) {
    var logRecords = $(".lrecords");  // logs.html: a record of many lines is folded
    if (logRecords) {
      unfoldWhilePrinting(logRecords);
      // a link to a folded record (a traceback) opens it
      var openTarget = function () {
        var id = window.location.hash.slice(1);
        // search.html's links say "#q=...&at=L12": the record is at=
        var at = /(?:^|&)at=([^&]*)/.exec(id);
        if (at) id = at[1];
        try { id = decodeURIComponent(id); } catch (e) { return; }  // "#%E0": a malformed address
        var el = id ? doc.getElementById(id) : null;
        if (!el || !logRecords.contains(el)) return;
        // a folded record: its fold is inside, beside its line's link
        var fold = el.tagName === "DETAILS" ? el : el.querySelector(":scope > details");
        if (fold) fold.open = true;
        if (at || fold) el.scrollIntoView();
      };
      openTarget();
      window.addEventListener("hashchange", openTarget);
    }
    // the index's help: its button, ? and the dialog's own close
    var help = doc.getElementById("rg-help"), helpBtn = doc.getElementById("b-help");
    if (help) {
      wireDialog(help);
      if (helpBtn) helpBtn.addEventListener("click", function () { toggleDialog(help); });
    }
    // pages without the viewer still get j/k between pages that link prev/next
    doc.addEventListener("keydown", function (e) {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typing(e) || !keysOn()) return;
      if (e.key === "?" && help) { e.preventDefault(); toggleDialog(help); return; }
      var link = null;
      var arrow = e.key === "ArrowDown" || e.key === "ArrowUp";
      if (arrow && !arrowMoves(e)) return;
      if (e.key === "j" || e.key === "ArrowDown") link = doc.getElementById("nav-next");
      else if (e.key === "k" || e.key === "ArrowUp") link = doc.getElementById("nav-prev");
      if (link && link.href) { e.preventDefault(); window.location.href = link.href; }
    });
    return;
  }

  var D = viewer.dataset;
  var PAGES = (D.pages || "").split(" ").filter(Boolean);
  var PAGE_NO = parseInt(D.page || "1", 10) || 1;
  // the page's folder: without the query, which may hold a "/" (page.html?v=1/2)
  var SITE_DIR = baseHref(window.location.href).replace(/\?.*$/, "").replace(/[^/]*$/, "");
  var scriptSrc = (doc.currentScript && doc.currentScript.src) || "";
  var ASSETS = scriptSrc ? scriptSrc.replace(/[^/]*$/, "") : "assets/";
  var bar = doc.getElementById("rg-bar");
  var groupsBox = $("section.groups");

  // ------------------------------------------------------------------ the model of the page
  var groups = [];
  var members = [];
  var byCid = {};
  $all("section.group").forEach(function (gel) {
    var g = {
      el: gel, id: gel.dataset.group, order: parseInt(gel.dataset.order || "0", 10),
      mean: num(gel.dataset.mean), spread: num(gel.dataset.spread), prompt: gel.dataset.prompt || "",
      members: [], text: null, textCs: null, shownEl: $(".shown-count", gel), body: $(".group-body", gel)
    };
    $all("article.member", gel).forEach(function (mel) {
      var d = mel.dataset;
      var m = {
        el: mel, group: g, cid: d.cid || "", reward: num(d.reward), trained: d.trained, eligible: d.eligible,
        skip: d.skip || "", truncated: d.truncated === "true", tools: (d.tools || "").split("\n").filter(Boolean),
        errors: parseInt(d.toolerrors || "0", 10) || 0, dup: d.dup === "true",
        badges: (d.badges || "").split("\n").filter(Boolean), text: null, textCs: null, forced: false, pick: null
      };
      g.members.push(m);
      members.push(m);
      if (m.cid) byCid[m.cid] = m;
    });
    drawBars(g);
    groups.push(g);
  });

  // the reward mini-bars of a group and the advantage bar of each member are drawn here, from
  // the members' data-reward and data-adv: pictures of numbers the page already shows as text
  function svgEl(tag, attrs, parent) {
    var e = doc.createElementNS("http://www.w3.org/2000/svg", tag);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (parent) parent.appendChild(e);
    return e;
  }
  function drawBars(g) {
    var ms = g.members, n = ms.length;
    if (!n) return;
    var rewards = ms.map(function (m) { return m.reward; }).filter(function (r) { return r !== null; });
    var h2 = $(".group-head h2", g.el);
    if (rewards.length && h2) {
      var lo = Math.min.apply(null, rewards), hi = Math.max.apply(null, rewards), span = hi - lo;
      var shown = ms.map(function (m) { var r = $(".member-head .reward", m.el); return r ? r.textContent : "–"; });
      var svg = svgEl("svg", { "class": "minibars", viewBox: "0 0 100 20", preserveAspectRatio: "none", role: "group",
        "aria-label": "rewards of the members: " + shown.join(", ") });
      ms.forEach(function (m, i) {
        if (m.reward === null) return;
        var h = span === 0 ? 100 : 15 + 85 * (m.reward - lo) / span;
        var cls = m.reward > 0 ? "pos" : (m.reward < 0 ? "neg" : "zero");
        var x = (i * 100 / n).toFixed(2);
        var gb = svgEl("g", { "class": "bar", "data-target": m.el.id }, svg);
        svgEl("title", {}, gb).textContent = "#" + m.el.dataset.member + ": reward " + shown[i];
        svgEl("rect", { "class": "hit", x: x, y: "0", width: (100 / n).toFixed(2), height: "20" }, gb);
        svgEl("rect", { "class": cls, x: x, y: (20 - h / 5).toFixed(2), width: (100 / n * 0.8).toFixed(2),
          height: (h / 5).toFixed(2) }, gb);
      });
      h2.parentNode.insertBefore(svg, h2.nextSibling);
    }
    var advs = ms.map(function (m) { return num(m.el.dataset.adv); });
    var most = Math.max.apply(null, advs.map(function (a) { return a === null ? 0 : Math.abs(a); }));
    if (!(most > 0)) return;
    ms.forEach(function (m, i) {
      var a = advs[i], label = $(".member-head .adv", m.el);
      if (a === null || !label) return;
      var w = Math.abs(a) / most * 50;
      var svg = svgEl("svg", { "class": "advbar", viewBox: "0 0 100 8", preserveAspectRatio: "none", role: "img",
        "aria-label": "advantage " + label.textContent.replace(/^adv /, "") + ", scaled to the group's largest" });
      svgEl("rect", { "class": "track", x: "0", y: "0", width: "100", height: "8" }, svg);
      svgEl("rect", { "class": a >= 0 ? "pos" : "neg", x: (a >= 0 ? 50 : 50 - w).toFixed(2), y: "1",
        width: w.toFixed(2), height: "6" }, svg);
      svgEl("line", { x1: "50", y1: "0", x2: "50", y2: "8" }, svg);
      label.parentNode.insertBefore(svg, label);
    });
  }

  // a query matches a text as on search.html: match.js folds both (case unless it is to
  // match, Unicode canonical equivalence) and maps a match back onto the text's characters
  var MATCH = window.RG_MATCH;
  function fold(s, cs) { return MATCH.fold(s, cs); }
  // a member's and a group's texts, folded once for each way of matching case
  function memberText(m, cs) {
    var k = cs ? "textCs" : "text";
    if (m[k] === null) {
      // exact texts only (the markdown copy would match twice), plus tool names and arguments
      m[k] = fold($all("pre.text, pre.args, .callname, .toolname, .compact, .judge-box pre, .jtree, .log-v", m.el)
        .map(function (e) { return e.textContent; }).join("\n"), cs);
    }
    return m[k];
  }
  function groupText(g, cs) {
    var k = cs ? "textCs" : "text";
    if (g[k] === null) {
      var parts = [g.prompt];
      // with the conversations the group logged and no member is known to have said (tinker)
      $all(".group-head .preview, .group-body > .prompt pre.text, .group-body > .prompt-missing, " +
        ".group-body > .convs pre.text, .group-body > .convs pre.args, .group-body > .convs .callname", g.el)
        .forEach(function (e) { parts.push(e.textContent); });
      g[k] = fold(parts.join("\n"), cs);
    }
    return g[k];
  }

  // ------------------------------------------------------------------ state <-> URL hash
  // #q=..&case=1&rmin=..&rmax=..&skip=..&tool=..&badge=..&trained=1&flag=1&errors=1&dup=1&sort=mean
  //  &compact=1&md=1&compare=12:3:1,14:3:2&at=g3-m2   (a bare #g3 or #g3-m2 is an anchor)
  // case=1: the search matches case (search.html's "match case" sends it along with its query)
  var FILTER_KEYS = ["q", "case", "rmin", "rmax", "skip", "tool", "badge", "trained", "flag", "errors", "dup", "flat"];
  var VIEW_KEYS = ["sort", "compact", "md"];
  // group and member anchors (views.iteration.group_anchor): #g3, #g3-m2, #g-0 (no group id),
  // and "n" for a minus sign in ids the writer made negative: #gn1 (group -1), #g3-mn2 (member -2)
  var ANCHOR_RE = /^g(-\d+|n?\d+)(-mn?\d+)?$/;
  // compare ids: update:group:member, or label@step:group:member on eval pages (labels are safe
  // names); group "-" is no group, and ids may be negative
  var CID_RE = /^([A-Za-z0-9_.-]+@)?\d+:(-|-?\d+):-?\d+$/;
  var state = emptyState();
  var target = null; // {kind: "anchor"|"prompt", value}
  var compareIds = null;

  function emptyState() {
    return { q: "", case: false, rmin: null, rmax: null, skip: "", tool: "", badge: "", trained: false, flag: false,
      errors: false, dup: false, flat: false, sort: "id", compact: false, md: false };
  }
  function parseHash(hash) {
    hash = (hash || "").replace(/^#/, "");
    var out = {};
    if (!hash) return out;
    if (hash.indexOf("=") < 0) { out.at = safeDecode(hash); return out; }
    hash.split("&").forEach(function (kv) {
      if (!kv) return;
      var i = kv.indexOf("=");
      var k = i < 0 ? kv : kv.slice(0, i);
      out[safeDecode(k)] = i < 0 ? "1" : safeDecode(kv.slice(i + 1).replace(/\+/g, " "));
    });
    return out;
  }
  function safeDecode(s) { try { return decodeURIComponent(s); } catch (e) { return s; } }
  function enc(s) { return encodeURIComponent(s).replace(/%2C/g, ",").replace(/%3A/g, ":").replace(/%40/g, "@"); }
  function stateParams(keys) {
    var p = [];
    keys.forEach(function (k) {
      var v = state[k];
      if (k === "sort") { if (v && v !== "id") p.push("sort=" + enc(v)); return; }
      if (k === "case") { if (v && state.q.trim()) p.push("case=1"); return; } // a way to search, said with a search
      if (v === true) p.push(k + "=1");
      else if (typeof v === "number") p.push(k + "=" + enc(String(v)));
      else if (typeof v === "string" && v) p.push(k + "=" + enc(v));
    });
    return p;
  }
  function stateFromParams(p) {
    var s = emptyState();
    s.q = p.q || "";
    s.case = p.case === "1";
    s.rmin = num(p.rmin);
    s.rmax = num(p.rmax);
    ["skip", "tool", "badge"].forEach(function (k) { s[k] = p[k] || ""; });
    ["trained", "flag", "errors", "dup", "flat", "compact"].forEach(function (k) { s[k] = p[k] === "1"; });
    s.sort = ["mean", "spread"].indexOf(p.sort) >= 0 ? p.sort : "id";
    s.md = p.md !== undefined ? p.md === "1" : store.get("reportgen.md") === "1";
    return s;
  }
  function fullHash() {
    var p = stateParams(FILTER_KEYS.concat(VIEW_KEYS));
    if (compareIds) p.push("compare=" + compareIds.map(enc).join(","));
    if (target && target.kind === "prompt") p.push("prompt=" + enc(target.value));
    if (target && target.kind === "anchor") {
      if (!p.length) return "#" + target.value; // a plain anchor stays a plain anchor
      p.push("at=" + enc(target.value));
    }
    return p.length ? "#" + p.join("&") : "";
  }
  function writeHash(push) {
    var url = baseHref(window.location.href) + fullHash();
    if (url === window.location.href) return;
    try {
      if (push) history.pushState(null, "", url); else history.replaceState(null, "", url);
    } catch (e) { /* file:// in some browsers: the view still works */ }
    carry();
  }
  var LAST_GROUP = "last-group"; // at= of p from the next page: the last group shown
  var FIRST_GROUP = "first-group"; // at= of n from the previous page: the first group shown
  function filterHash(extra) {
    // what travels to another iteration: filters and view, not the anchor nor the comparison
    var p = (extra || []).concat(stateParams(FILTER_KEYS.concat(VIEW_KEYS)));
    return p.length ? "#" + p.join("&") : "";
  }
  function laterPromptLinks() {
    // "same prompt in" lists the nearest earlier updates in the HTML ("N earlier" counts the
    // others); prompts.js adds the nearest later ones, so that a page does not change when
    // the run samples its prompt again. A prompt sampled in hundreds of updates (a small
    // dataset, many epochs) gets an "all N" button instead of hundreds of links at load.
    var idx = window.RG_PROMPTS, v = document.getElementById("rg-viewer");
    if (!idx || !v) return;
    var here = parseInt(v.getAttribute("data-number"), 10);
    var NEAREST = 10;
    // a key names a prompt of its own segment (a resume writes its prompts again): the
    // updates from this page's segment's first to the next segment's
    var first = 0, end = Infinity, starts = window.RG_SEGMENT_STARTS || [];
    for (var si = 0; si < starts.length; si++) {
      if (starts[si] <= here) first = starts[si];
      else { end = starts[si]; break; }
    }
    function link(key, n) {
      var a = document.createElement("a");
      a.className = "xlink";
      a.textContent = String(n);
      a.setAttribute("href", "train_iteration_" + ("00000" + n).slice(-6) + ".html#prompt=" + encodeURIComponent(key));
      return a;
    }
    function add(span, key, numbers) {
      numbers.forEach(function (n) {
        if (span.childNodes.length) span.appendChild(document.createTextNode(", "));
        span.appendChild(link(key, n));
      });
    }
    $all(".group[data-prompt]").forEach(function (g) {
      // prompt keys come from the logs: "constructor" must not find Object's own
      var key = g.getAttribute("data-prompt");
      var list = key && Object.prototype.hasOwnProperty.call(idx, key) ? idx[key] : null;
      var p = g.querySelector("p.others"), span = p && p.querySelector(".olist");
      if (!Array.isArray(list) || !span) return;
      var others = list.filter(function (n) { return n !== here && n >= first && n < end; });
      var later = others.filter(function (n) { return n > here; });
      var more = span.querySelector(".ocut") !== null || later.length > NEAREST;
      add(span, key, later.slice(0, NEAREST));
      if (more) {
        var all = h("button", "oall", "all " + others.length);
        all.type = "button";
        all.title = "list every update that sampled this prompt";
        all.addEventListener("click", function () {
          span.textContent = "";
          add(span, key, others);
          all.remove();
          carry();
        });
        p.appendChild(document.createTextNode(" "));
        p.appendChild(all);
      }
      if (span.childNodes.length) p.hidden = false;
    });
  }
  function carry() {
    $all("#nav-prev, #nav-next, .subpages a, a.xlink, #all-groups tbody a").forEach(function (a) {
      if (!a.dataset.base) a.dataset.base = a.getAttribute("href");
      var base = a.dataset.base;
      var i = base.indexOf("#");
      var extra = i < 0 ? [] : base.slice(i + 1).split("&").filter(Boolean);
      var h = filterHash(extra);
      // a group's anchor among filters travels as at=: a bare #g3 stays a plain anchor
      if (extra.length === 1 && extra[0].indexOf("=") < 0 && h !== "#" + extra[0]) h = filterHash(["at=" + extra[0]]);
      a.setAttribute("href", (i < 0 ? base : base.slice(0, i)) + h);
    });
    // the search of every text takes this page's search along
    var ts = $("a.to-search");
    if (ts) {
      if (!ts.dataset.base) ts.dataset.base = ts.getAttribute("href");
      ts.setAttribute("href", ts.dataset.base + (state.q.trim() ? "#q=" + enc(state.q) + (state.case ? "&case=1" : "") : ""));
    }
  }

  // ------------------------------------------------------------------ controls
  var ctl = {};
  ["q", "case", "rmin", "rmax", "skip", "tool", "badge", "sort", "trained", "flag", "errors", "dup", "flat", "compact", "md"]
    .forEach(function (k) { ctl[k] = doc.getElementById("f-" + k); });
  function toControls() {
    Object.keys(ctl).forEach(function (k) {
      var c = ctl[k];
      if (!c) return;
      var v = state[k];
      if (c.type === "checkbox") c.checked = !!v;
      else if (c.tagName === "SELECT") {
        if (v && !$all("option", c).some(function (o) { return o.value === v; })) {
          // a value carried from another iteration that this page lacks: keep it selectable
          var o = h("option", "", v + " (none here)");
          o.value = v;
          c.appendChild(o);
        }
        c.value = v || (k === "sort" ? "id" : "");
      } else c.value = v === null || v === undefined ? "" : String(v);
    });
  }
  function fromControls() {
    var s = emptyState();
    s.q = ctl.q ? ctl.q.value : "";
    s.rmin = ctl.rmin ? num(ctl.rmin.value) : null;
    s.rmax = ctl.rmax ? num(ctl.rmax.value) : null;
    ["skip", "tool", "badge", "sort"].forEach(function (k) { if (ctl[k]) s[k] = ctl[k].value; });
    ["case", "trained", "flag", "errors", "dup", "flat", "compact", "md"].forEach(function (k) { if (ctl[k]) s[k] = ctl[k].checked; });
    if (!s.sort) s.sort = "id";
    return s;
  }

  // ------------------------------------------------------------------ filtering
  function activeFilters() {
    var n = 0;
    FILTER_KEYS.forEach(function (k) {
      var v = state[k];
      if (k === "q") { if (v.trim()) n++; } else if (k !== "case" && v !== null && v !== "" && v !== false) n++;
    });
    return n;
  }
  function matches(m, q, cs) {
    var s = state;
    if (s.rmin !== null || s.rmax !== null) {
      if (m.reward === null) return false; // null rewards never pass a reward bound
      if (s.rmin !== null && m.reward < s.rmin) return false;
      if (s.rmax !== null && m.reward > s.rmax) return false;
    }
    if (s.skip && m.skip !== s.skip) return false;
    if (s.trained && m.trained !== "true") return false;
    if (s.flag && !(m.truncated || m.skip || m.eligible === "false")) return false;
    if (s.tool && m.tools.indexOf(s.tool) < 0) return false;
    if (s.errors && m.errors <= 0) return false;
    if (s.dup && !m.dup) return false;
    // every member of the group got the same reward (its spread over the whole group): no
    // learning signal for GRPO, whether or not the trainer said zero_signal
    if (s.flat && m.group.spread !== 0) return false;
    if (s.badge && m.badges.indexOf(s.badge) < 0) return false;
    if (q && memberText(m, cs).indexOf(q) < 0 && groupText(m.group, cs).indexOf(q) < 0) return false;
    return true;
  }
  function applyFilters() {
    var cs = state.case, q = fold(state.q.trim(), cs);
    var active = activeFilters();
    var shown = 0, groupsShown = 0;
    groups.forEach(function (g) {
      var k = 0;
      g.members.forEach(function (m) {
        var vis = !active || matches(m, q, cs) || m.forced;
        if (m.el.hidden === vis) m.el.hidden = !vis;
        if (vis) k++;
      });
      shown += k;
      var gvis = !active || k > 0 || g.members.length === 0;
      if (g.el.hidden === gvis) g.el.hidden = !gvis;
      if (gvis) groupsShown++;
      if (g.shownEl) {
        g.shownEl.hidden = !active;
        g.shownEl.textContent = "· " + thousands(k) + " shown";
      }
    });
    var count = doc.getElementById("rg-count");
    if (count) {
      count.textContent = thousands(shown) + " of " + thousands(members.length) + " shown" +
        (active && groups.length > 1 ? ", in " + groupsShown + " of " + groups.length + " groups" : "") +
        (PAGES.length > 1 ? " on this page" : "");
      count.title = thousands(shown) + " of " + thousands(members.length) + " members shown, in " + groupsShown + " of " + groups.length + " groups";
      count.classList.toggle("filtered", active > 0);
    }
    var clear = doc.getElementById("b-clear");
    if (clear) {
      clear.disabled = active === 0;
      clear.textContent = active ? "clear (" + active + ")" : "clear";
    }
    var none = doc.getElementById("rg-none");
    if (none) none.hidden = !(active && shown === 0);
    highlight(q, cs);
  }

  // search matches are marked in the visible texts (exact and markdown)
  var MAX_MARKS = 3000;
  function highlight(q, cs) {
    $all("mark.hl").forEach(function (mk) {
      var p = mk.parentNode;
      if (!p) return;
      p.replaceChild(doc.createTextNode(mk.textContent), mk);
      p.normalize();
    });
    if (!q) return;
    var marks = 0;
    var roots = [];
    groups.forEach(function (g) {
      if (g.el.hidden) return;
      $all(".group-head .preview, .group-body > .prompt, .group-body > .convs", g.el).forEach(function (e) { roots.push(e); });
      g.members.forEach(function (m) { if (!m.el.hidden) roots.push(m.el); });
    });
    // a match may span several text nodes of one block: markdown's emphasis, highlighted
    // code (`<span class="kw">print</span>(…)`); the block's nodes are searched as one text
    // and each node gets its part of a match's mark
    var BLOCK = "pre, p, li, td, th, h1, h2, h3, h4, h5, h6, blockquote, dt, dd, summary, div";
    function markRun(run) {
      var joined = run.map(function (n) { return n.nodeValue; }).join("");
      if (fold(joined, cs).indexOf(q) < 0) return;
      var found = MATCH.spans(joined, q, cs, MAX_MARKS - marks);
      if (!found.length) return;
      marks += found.length;
      var start = 0, k = 0;
      run.forEach(function (node) {
        var text = node.nodeValue, end = start + text.length;
        while (k < found.length && found[k][1] <= start) k++;
        var pieces = [];
        for (var j = k; j < found.length && found[j][0] < end; j++) {
          pieces.push([Math.max(found[j][0], start) - start, Math.min(found[j][1], end) - start]);
        }
        start = end;
        if (!pieces.length) return;
        var frag = doc.createDocumentFragment(), pos = 0;
        pieces.forEach(function (sp) {
          if (sp[0] > pos) frag.appendChild(doc.createTextNode(text.slice(pos, sp[0])));
          frag.appendChild(h("mark", "hl", text.slice(sp[0], sp[1])));
          pos = sp[1];
        });
        if (pos < text.length) frag.appendChild(doc.createTextNode(text.slice(pos)));
        node.parentNode.replaceChild(frag, node);
      });
    }
    for (var r = 0; r < roots.length && marks < MAX_MARKS; r++) {
      var walker = doc.createTreeWalker(roots[r], NodeFilter.SHOW_TEXT, {
        acceptNode: function (n) {
          var p = n.parentNode;
          if (!p || p.closest(".katex, .member-head, .msg-head, summary.nohl, button, label")) return NodeFilter.FILTER_REJECT;
          return NodeFilter.FILTER_ACCEPT;
        }
      });
      var runs = [], run = [], block = null;
      while (walker.nextNode()) {
        var node = walker.currentNode;
        var b = node.parentNode.closest(BLOCK);
        if (b !== block && run.length) { runs.push(run); run = []; }
        block = b;
        run.push(node);
      }
      if (run.length) runs.push(run);
      for (var i = 0; i < runs.length && marks < MAX_MARKS; i++) markRun(runs[i]);
    }
    // a folded text with a match opens, so the match can be seen
    $all("mark.hl").forEach(function (mk) {
      var d = mk.closest("details");
      while (d) { if (!d.open) d.open = true; d = d.parentElement && d.parentElement.closest("details"); }
    });
  }

  // ------------------------------------------------------------------ sort, collapse, compact, markdown
  function byKey(key) {
    return function (a, b) {
      if (key === "mean" || key === "spread") {
        var x = a[key], y = b[key];
        if (x === null && y !== null) return 1;
        if (y === null && x !== null) return -1;
        if (x !== null && y !== null && x !== y) return y - x; // highest first
      }
      return a.order - b.order;
    };
  }
  // the table of all groups of a paginated iteration: its rows follow the sort, so that the
  // order spans every page (the cards below are this page's only)
  var overview = doc.getElementById("all-groups");
  var overviewRows = overview ? $all("tbody tr", overview).map(function (tr) {
    if (parseInt(tr.dataset.page, 10) === PAGE_NO) tr.classList.add("here");
    var a = $("a", tr), href = a ? a.getAttribute("href") : "";
    return { anchor: href.slice(href.indexOf("#") + 1), page: parseInt(tr.dataset.page, 10) || 0, el: tr, order: parseInt(tr.dataset.order, 10), mean: num(tr.dataset.mean), spread: num(tr.dataset.spread) };
  }) : [];
  // the row of the group of this anchor in the table of all groups (which page it is on)
  function overviewRow(anchor) {
    return overviewRows.filter(function (r) { return r.anchor === anchor; })[0] || null;
  }
  if (overview) {
    // open or closed as the reader left it on this page (back from a group it links)
    var OPEN_KEY = "reportgen.allgroups." + window.location.pathname;
    if (session.get(OPEN_KEY) === "1") overview.open = true;
    overview.addEventListener("toggle", function () { session.set(OPEN_KEY, overview.open ? "1" : "0"); });
  }
  function applySort() {
    var sorted = groups.slice().sort(byKey(state.sort));
    var changed = sorted.some(function (g, i) { return groupsBox.children[i] !== g.el; });
    if (changed) sorted.forEach(function (g) { groupsBox.appendChild(g.el); });
    if (overviewRows.length) {
      var body = overviewRows[0].el.parentNode;
      var rows = overviewRows.slice().sort(byKey(state.sort));
      if (rows.some(function (r, i) { return body.children[i] !== r.el; })) {
        rows.forEach(function (r) { body.appendChild(r.el); });
      }
    }
  }
  function setCollapsed(g, collapsed) {
    g.el.classList.toggle("collapsed", collapsed);
    var b = $(".tog", g.el);
    if (b) {
      b.setAttribute("aria-expanded", collapsed ? "false" : "true");
      b.title = collapsed ? "expand" : "collapse";
    }
  }
  // a completion's compact line is its first line, and its last when it has several (an
  // answer is usually there): written here, when compact mode is first asked for, rather
  // than repeated in the page (conversations carry theirs, a role sequence); a reasoning
  // trace's is its first thought and its answer, as its fold's summary (text.fold_summary)
  // a character that goes with the one before it (text.cut_clusters: no cut before it)
  var CLINGS = /^[\p{M}\u200d\u{1f3fb}-\u{1f3ff}\u{e0020}-\u{e007f}]$/u;
  function clip(s, n, mark) {
    var chars = Array.from(s);
    if (chars.length <= n) return s;
    var k = n;
    while (k > 0 && (CLINGS.test(chars[k]) || chars[k - 1] === "\u200d")) k--;
    return chars.slice(0, k || n).join("") + (mark ? "\u2026" : "");
  }
  function firstLine(s) {
    var lines = s.split("\n");
    for (var i = 0; i < lines.length; i++) if (lines[i].trim()) return lines[i].trim();
    return "";
  }
  function lastLine(s) {
    var lines = s.split("\n");
    for (var i = lines.length - 1; i >= 0; i--) if (lines[i].trim()) return lines[i].trim();
    return "";
  }
  function compactLine(text) {
    var t = text.trim(), close = t.lastIndexOf("</think>");
    if (!t) return "(no text)";
    if (t.indexOf("<think>") === 0 && close >= 0) {
      var answer = firstLine(t.slice(close + 8));
      if (answer) {
        var thought = firstLine(t.slice(7, t.indexOf("</think>")));
        return "<think> " + (thought ? clip(thought, 60, false) + " " : "") + "\u2026 </think> " + clip(answer, 100, true);
      }
    }
    // a completion of several lines: its first and its last, where an answer usually is
    var first = t.split("\n")[0], last = lastLine(t);
    if (t.indexOf("\n") >= 0 && last !== first.trim()) return clip(first, 80, true) + " \u22ef " + clip(last, 80, true);
    return clip(first, 160, true);
  }
  var compactDone = false;
  function ensureCompact() {
    if (compactDone) return;
    compactDone = true;
    members.forEach(function (m) {
      if ($("p.compact", m.el)) return;
      var pre = $(".completion pre.text", m.el), head = $(".member-head", m.el);
      if (!pre || !head) return;
      var p = doc.createElement("p");
      p.className = "compact";
      p.textContent = compactLine(pre.textContent);
      head.parentNode.insertBefore(p, head.nextSibling);
      markInvisible(p);
    });
  }
  function applyView() {
    if (state.compact) ensureCompact();
    body.classList.toggle("compact-on", !!state.compact);
    body.classList.toggle("md-on", !!state.md);
    if (state.md) renderMath();
  }

  var katexState = 0; // 0 not loaded, 1 loading, 2 ready, 3 failed
  function renderMath() {
    if (!$(".md .math:not(.math-done)")) return;
    if (katexState === 0) {
      katexState = 1;
      var s = doc.createElement("script");
      s.src = ASSETS + "vendor/katex.min.js";
      s.onload = function () { katexState = 2; renderMath(); };
      s.onerror = function () { katexState = 3; };
      doc.head.appendChild(s);
      return;
    }
    if (katexState !== 2 || !window.katex) return;
    // typesetting thousands of formulas takes seconds: only those near the view, as they come
    if (!mathObserver && "IntersectionObserver" in window) {
      mathObserver = new IntersectionObserver(function (entries) {
        entries.forEach(function (en) {
          if (!en.isIntersecting) return;
          mathObserver.unobserve(en.target);
          typeset(en.target);
        });
      }, { rootMargin: "1200px 0px" });
    }
    if (!mathObserver) { typeset(doc); return; }
    $all(".member, .group-body > .prompt, .group-body > .convs").forEach(function (e) {
      if (!e.mathWatched && $(".md .math:not(.math-done)", e)) { e.mathWatched = true; mathObserver.observe(e); }
    });
  }
  var mathObserver = null;
  function typeset(root) {
    if (root.mathWatched) root.mathWatched = false;
    $all(".md .math:not(.math-done)", root).forEach(function (e) {
      var tex = e.textContent;
      e.classList.add("math-done");
      e.setAttribute("data-tex", tex);
      try {
        window.katex.render(tex, e, {
          displayMode: e.classList.contains("display"), throwOnError: true, strict: "ignore",
          trust: false, maxExpand: 500, maxSize: 20
        });
      } catch (err) {
        e.textContent = tex; // KaTeX refused it: the TeX stays readable (no inline error colour, which the CSP refuses)
        e.classList.add("math-error");
      }
    });
  }

  function update(push) {
    applySort();
    applyView();
    applyFilters();
    writeHash(push);
  }

  // ------------------------------------------------------------------ per-group and per-member buttons
  var LINK_SVG = "M10 13a5 5 0 0 0 7.5.5l3-3a5 5 0 0 0-7-7l-1.7 1.7M14 11a5 5 0 0 0-7.5-.5l-3 3a5 5 0 0 0 7 7l1.7-1.7";
  function linkButton(anchorId, what) {
    var b = h("button", "copylink");
    b.type = "button";
    b.setAttribute("aria-label", "copy a link to " + what);
    b.title = "copy a link to " + what;
    var svg = doc.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("aria-hidden", "true");
    var path = doc.createElementNS("http://www.w3.org/2000/svg", "path");
    path.setAttribute("d", LINK_SVG);
    svg.appendChild(path);
    b.appendChild(svg);
    b.addEventListener("click", function () {
      target = { kind: "anchor", value: anchorId };
      writeHash(true);
      copyText(window.location.href, "link copied: " + what);
    });
    return b;
  }
  function copyText(text, done) {
    function fallback() {
      var ta = h("textarea");
      ta.value = text;
      ta.setAttribute("readonly", "");
      ta.className = "offscreen";
      body.appendChild(ta);
      ta.select();
      var ok = false;
      try { ok = doc.execCommand("copy"); } catch (e) { ok = false; }
      body.removeChild(ta);
      toast(ok ? done : "copy this link: " + text);
    }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(function () { toast(done); }, fallback);
    } else fallback();
  }
  var toastTimer = null;
  function toast(msg) {
    var t = doc.getElementById("rg-toast");
    if (!t) return;
    t.textContent = msg;
    t.hidden = false;
    var said = doc.getElementById("rg-said");
    if (said) {
      // emptied first: the same message twice is a change too, and read again
      said.textContent = "";
      setTimeout(function () { said.textContent = msg; }, 50);
    }
    clearTimeout(toastTimer);
    toastTimer = setTimeout(function () { t.hidden = true; }, 2600);
  }

  groups.forEach(function (g) {
    var head = $(".group-head", g.el);
    var h2 = $("h2", head);
    var label = h2 ? h2.textContent : "group";
    var tog = h("button", "tog");
    tog.type = "button";
    tog.setAttribute("aria-expanded", "true");
    tog.setAttribute("aria-controls", g.body ? g.body.id : "");
    tog.setAttribute("aria-label", "show or hide " + label);
    tog.title = "collapse";
    tog.addEventListener("click", function () { setCollapsed(g, !g.el.classList.contains("collapsed")); });
    head.insertBefore(tog, head.firstChild);
    if (h2) h2.parentNode.insertBefore(linkButton(g.el.id, label), h2.nextSibling);
  });
  members.forEach(function (m) {
    var head = $(".member-head", m.el);
    var anchor = $("a.anchor", head);
    var what = (m.group.el.querySelector("h2") || {}).textContent + ", member " + m.el.dataset.member;
    var lb = linkButton(m.el.id, what);
    anchor.parentNode.insertBefore(lb, anchor.nextSibling);
    var lab = h("label", "pick");
    var box = h("input");
    box.type = "checkbox";
    // twelve boxes all named "compare" say nothing apart: each says whose it is
    box.setAttribute("aria-label", "compare " + (m.el.getAttribute("aria-label") || "this member"));
    box.addEventListener("change", function () { togglePick(m, box.checked); });
    lab.appendChild(box);
    lab.appendChild(doc.createTextNode(" compare"));
    head.appendChild(lab);
    m.pick = box;
  });

  // ------------------------------------------------------------------ compare: picks kept across pages
  var PICKS_KEY = "reportgen.compare.v1";
  function loadPicks() {
    try {
      var v = JSON.parse(store.get(PICKS_KEY) || "[]");
      return Array.isArray(v) ? v.map(storedPick).filter(Boolean).slice(-2) : [];
    } catch (e) { return []; }
  }
  // a pick as stored: any page of this browser may have written the storage (every file://
  // page shares it), so it is taken as cleanPick takes a frame's answer, its own folder kept
  // (picks of other runs' sites compare too) and its link only to a page of that folder
  function storedPick(p) {
    if (!p || typeof p !== "object" || typeof p.cid !== "string" || !CID_RE.test(p.cid)) return null;
    var dir = asText(p.dir), href = "";
    try { href = new URL(asText(p.href), window.location.href).href; } catch (e) { href = ""; }
    var c = cleanPick(p, p.cid);
    if (!c) return null;
    var folder = /^(file|https?):/.test(dir) && /\/$/.test(dir);
    c.dir = folder ? dir : SITE_DIR;
    c.href = folder && href.indexOf(c.dir) === 0 && PAGE_LINK_RE.test(href.slice(c.dir.length)) ? href : c.dir + pageFor(p.cid);
    return c;
  }
  function savePicks(picks) {
    if (!store.set(PICKS_KEY, JSON.stringify(picks.slice(-2)))) {
      toast("this browser keeps no storage here: compare members of this page only");
    }
  }
  function sameMember(p, cid) { return p.cid === cid && p.dir === SITE_DIR; }

  var TEXT_CAP = 400000; // keeps two picks well under localStorage's quota
  function cap(s) { return s.length > TEXT_CAP ? s.slice(0, TEXT_CAP) + "\n…[cut for the comparison]" : s; }
  function ownText(el) {
    return $all(":scope > pre.text, :scope > details.fold > pre.text, :scope > details.thinking > pre.text, :scope > p.image-part", el)
      .map(function (e) { return e.textContent; }).join("\n");
  }
  function ownCalls(el) {
    return $all(":scope > details.call", el).map(function (c) {
      return ($(".callname", c) || {}).textContent + " " + (($("pre.args", c) || {}).textContent || "");
    });
  }
  function extract(m) {
    var el = m.el;
    var head = $(".member-head", el);
    var stats = $all(".reward, .raw, .judge, .adv, .tok, .seed, .turns, .calls", head)
      .map(function (e) { return e.textContent.trim(); });
    var turns = $all(".member-body [data-index]", el).map(function (t) {
      return { i: parseInt(t.dataset.index, 10), role: t.dataset.role || "", text: cap(ownText(t)), calls: ownCalls(t) };
    }).sort(function (a, b) { return a.i - b.i; });
    var fin = $(".member-body [data-final]", el);
    var completion = $(".member-body > .completion", el);
    return {
      cid: m.cid, dir: SITE_DIR, site: D.site || "", page: D.title || "", word: D.word || "update",
      href: baseHref(window.location.href) + "#" + el.id, group: m.group.id, member: el.dataset.member,
      prompt: m.group.prompt, reward: m.reward, stats: stats,
      badges: $all(".badges .chip", head).map(function (e) { return e.textContent; }),
      kind: completion ? "completion" : "conversation",
      final: fin ? cap(ownText(fin)) : "", turns: completion ? [] : turns,
      summary: el.dataset.summary === undefined ? null : el.dataset.summary
    };
  }
  function togglePick(m, on) {
    var picks = loadPicks().filter(function (p) { return !sameMember(p, m.cid); });
    if (on) {
      if (picks.length >= 2) toast("replaced " + pickLabel(picks[0]) + " (two members at most)");
      picks.push(extract(m));
    }
    savePicks(picks.slice(-2));
    renderTray();
  }
  function pickLabel(p) {
    var key = p.cid.split(":")[0];
    var at = key.indexOf("@");
    var where = at < 0 ? p.word + " " + key : "eval " + key.slice(0, at) + ", step " + key.slice(at + 1);
    // a PPO member has no group (its batch is one card, data-group "-"): no "group -"
    var s = where + (p.group && p.group !== "-" ? " · group " + p.group : "") + " · #" + p.member;
    return p.dir === SITE_DIR ? s : p.site + ": " + s;
  }
  function renderTray() {
    var picks = loadPicks();
    var tray = doc.getElementById("rg-tray");
    members.forEach(function (m) {
      if (m.pick) m.pick.checked = picks.some(function (p) { return sameMember(p, m.cid); });
    });
    var cb = doc.getElementById("b-compare");
    if (cb) {
      cb.disabled = picks.length < 2;
      cb.textContent = "compare (" + picks.length + "/2)";
    }
    if (!tray) return;
    tray.textContent = "";
    tray.hidden = picks.length === 0;
    body.classList.toggle("has-tray", picks.length > 0);
    if (!picks.length) return;
    tray.appendChild(h("span", "tray-title", "Compare"));
    picks.forEach(function (p, i) {
      var chip = h("span", "tray-pick");
      var a = h("a", "", pickLabel(p));
      a.href = p.href;
      chip.appendChild(h("span", "side side-" + (i ? "b" : "a"), i ? "B" : "A"));
      chip.appendChild(a);
      var x = h("button", "tray-x", "×");
      x.type = "button";
      x.setAttribute("aria-label", "remove " + pickLabel(p));
      x.addEventListener("click", function () {
        savePicks(loadPicks().filter(function (q) { return !(q.cid === p.cid && q.dir === p.dir); }));
        renderTray();
      });
      chip.appendChild(x);
      tray.appendChild(chip);
    });
    var go = h("button", "tray-go", picks.length === 2 ? "compare (c)" : "pick one more member");
    go.type = "button";
    go.disabled = picks.length < 2;
    go.addEventListener("click", openCompare);
    tray.appendChild(go);
  }

  // word-level diff: LCS on words and punctuation (each with its trailing spaces); lines past a size
  var DIFF_CELLS = 4000000;
  function tokens(s) { return s.match(/[\p{L}\p{N}_]+\s*|[^\p{L}\p{N}_\s]\s*|\s+/gu) || []; }
  function lines(s) { return s.match(/[^\n]*\n|[^\n]+$/g) || []; }
  function lcsOps(a, b) {
    var start = 0;
    while (start < a.length && start < b.length && a[start].trim() === b[start].trim()) start++;
    var ea = a.length, eb = b.length;
    while (ea > start && eb > start && a[ea - 1].trim() === b[eb - 1].trim()) { ea--; eb--; }
    var n = ea - start, m = eb - start;
    if (n * m > DIFF_CELLS) return null;
    var ops = [];
    var i;
    for (i = 0; i < start; i++) ops.push([0, a[i], b[i]]);
    if (n && m) {
      var w = m + 1;
      var T = new Uint32Array((n + 1) * w);
      for (var x = n - 1; x >= 0; x--) {
        var ax = a[start + x].trim();
        for (var y = m - 1; y >= 0; y--) {
          T[x * w + y] = ax === b[start + y].trim() ? T[(x + 1) * w + y + 1] + 1
            : Math.max(T[(x + 1) * w + y], T[x * w + y + 1]);
        }
      }
      var p = 0, q = 0;
      while (p < n && q < m) {
        if (a[start + p].trim() === b[start + q].trim()) { ops.push([0, a[start + p], b[start + q]]); p++; q++; }
        else if (T[(p + 1) * w + q] >= T[p * w + q + 1]) { ops.push([-1, a[start + p]]); p++; }
        else { ops.push([1, b[start + q]]); q++; }
      }
      for (; p < n; p++) ops.push([-1, a[start + p]]);
      for (; q < m; q++) ops.push([1, b[start + q]]);
    } else {
      for (i = 0; i < n; i++) ops.push([-1, a[start + i]]);
      for (i = 0; i < m; i++) ops.push([1, b[start + i]]);
    }
    for (i = 0; i < a.length - ea; i++) ops.push([0, a[ea + i], b[eb + i]]);
    return ops;
  }
  function diff(a, b) {
    var ops = lcsOps(tokens(a), tokens(b));
    if (ops) return { ops: ops, unit: "word" };
    ops = lcsOps(lines(a), lines(b));
    if (ops) return { ops: ops, unit: "line" };
    return null;
  }
  function diffPanes(a, b) {
    var d = diff(a, b);
    var left = h("pre", "dtext"), right = h("pre", "dtext");
    var info = h("p", "diff-info");
    if (!d) {
      left.textContent = a;
      right.textContent = b;
      info.textContent = "too long to diff: shown side by side";
      return { left: left, right: right, info: info, same: a === b };
    }
    var del = 0, ins = 0;
    function put(pre, tag, text) {
      var last = pre.lastChild;
      if (last && last.tagName === tag.toUpperCase()) { last.textContent += text; return; }
      pre.appendChild(h(tag, "", text));
    }
    d.ops.forEach(function (op) {
      if (op[0] === 0) { put(left, "span", op[1]); put(right, "span", op[2]); }
      else if (op[0] < 0) { put(left, "del", op[1]); del++; }
      else { put(right, "ins", op[1]); ins++; }
    });
    info.textContent = del || ins
      ? del + " " + d.unit + (del === 1 ? "" : "s") + " only in A, " + ins + " only in B" + (d.unit === "line" ? " (line diff: the texts are long)" : "")
      : "identical";
    return { left: left, right: right, info: info, same: !del && !ins };
  }

  function resolve(cid) {
    var here = byCid[cid];
    if (here) return extract(here);
    var p = loadPicks().filter(function (x) { return x.cid === cid; });
    var mine = p.filter(function (x) { return x.dir === SITE_DIR; });
    var got = fetched[cid];
    return mine[0] || p[0] || (got && typeof got === "object" ? got : null);
  }

  // ------------------------------------------------------------------ compare: a member of another page
  // A shared #compare= link may name a member of another page that this browser never
  // picked. That page is opened in a hidden frame, which sends the member back: postMessage
  // works between file:// pages, which share no DOM nor storage (and no fetch is allowed).
  // Not sandboxed: a sandboxed file:// frame may not load the page's own scripts.
  var fetched = {}; // cid -> its pick, "loading", or false (not found, or no answer)
  var FETCH_WAIT = 60000; // a PPO batch of 64 pages is searched page by page
  function asText(x) { return typeof x === "string" ? x : ""; }
  function asTexts(x) { return Array.isArray(x) ? x.filter(function (s) { return typeof s === "string"; }) : []; }
  var PAGE_LINK_RE = /^[A-Za-z0-9_.-]+\.html#[A-Za-z0-9-]+$/; // a page of this folder, an anchor
  function cleanPick(p, cid) {
    // what the frame sent, field by field: only strings and numbers, and a link to a page of
    // this folder (resolved first: "../" must not lead out of it)
    if (!p || typeof p !== "object") return false;
    var href = "";
    try { href = new URL(asText(p.href), window.location.href).href; } catch (e) { href = ""; }
    var inFolder = href.indexOf(SITE_DIR) === 0 && PAGE_LINK_RE.test(href.slice(SITE_DIR.length));
    return {
      cid: cid, dir: SITE_DIR, site: asText(p.site), page: asText(p.page), word: asText(p.word) || "update",
      href: inFolder ? href : SITE_DIR + pageFor(cid),
      group: asText(p.group), member: asText(p.member), prompt: asText(p.prompt),
      reward: typeof p.reward === "number" ? p.reward : null, stats: asTexts(p.stats), badges: asTexts(p.badges),
      kind: p.kind === "completion" ? "completion" : "conversation", final: asText(p.final),
      turns: (Array.isArray(p.turns) ? p.turns : []).filter(function (t) { return t && typeof t.i === "number"; })
        .map(function (t) { return { i: t.i, role: asText(t.role), text: asText(t.text), calls: asTexts(t.calls) }; }),
      summary: typeof p.summary === "string" ? p.summary : null
    };
  }
  // file:// pages have an opaque origin: Chromium says "file://" for this page's and "null"
  // for a message's; no web page can frame a file:// page, nor post as one
  var LOCAL = window.location.protocol === "file:";
  function fromThisSite(origin) {
    return LOCAL ? origin === "null" || origin === "file://" : origin === window.location.origin;
  }
  function fetchMember(cid) {
    if (fetched[cid] !== undefined) return;
    if (pageFor(cid) === baseHref(window.location.href).replace(/^.*\//, "") && PAGES.length < 2) {
      fetched[cid] = false; // of this page's iteration, which has no other page: not there
      return;
    }
    fetched[cid] = "loading";
    var f = doc.createElement("iframe");
    f.hidden = true;
    f.tabIndex = -1;
    f.setAttribute("aria-hidden", "true");
    var timer = 0;
    function onMessage(e) {
      var d = e.data;
      // from our frame, and from this site: a page that frames ours may navigate our frame
      // elsewhere (about:blank takes its origin) and post from there
      if (e.source !== f.contentWindow || !fromThisSite(e.origin)) return;
      if (!d || d.rg !== "member" || d.cid !== cid) return;
      done(d.pick ? cleanPick(d.pick, cid) : false);
    }
    function done(pick) {
      fetched[cid] = pick;
      clearTimeout(timer);
      window.removeEventListener("message", onMessage);
      if (f.parentNode) f.parentNode.removeChild(f);
      if (compareIds && compareIds.length === 2 && compareIds.indexOf(cid) >= 0) {
        var ids = compareIds.slice();
        showCompare(ids.map(resolve), ids);
      }
    }
    window.addEventListener("message", onMessage);
    timer = setTimeout(function () { done(false); }, FETCH_WAIT);
    f.src = SITE_DIR + pageFor(cid) + "#give=" + enc(cid);
    body.appendChild(f);
  }
  function give(cid) {
    // this page, opened by fetchMember() in a frame: send the member, or look on the next page
    function reply(pick) {
      // to this site's pages only; a file:// page's opaque origin cannot be named as a
      // target (and no web page can frame one)
      window.parent.postMessage({ rg: "member", cid: cid, pick: pick }, LOCAL ? "*" : window.location.origin);
    }
    var m = byCid[cid];
    if (m) { reply(extract(m)); return; }
    var g = cid.split(":")[1] || "-";
    var row = null;
    if (g !== "-" && overviewRows.length) {
      var anchor = "g" + (g.charAt(0) === "-" ? "n" + g.slice(1) : g);
      row = overviewRow(anchor);
      if (!row) { reply(null); return; } // the table of all groups lists every group of the iteration
    }
    // the page its group starts on, or the next (a group larger than a page, or PPO's batch)
    var to = row && row.page > PAGE_NO ? row.page : PAGE_NO + 1;
    if (to <= PAGES.length && PAGES[to - 1]) window.location.replace(PAGES[to - 1] + window.location.hash);
    else reply(null);
  }
  function pageFor(cid) {
    var key = cid.split(":")[0];
    var n = key.indexOf("@") >= 0 ? key.split("@") : null;
    var pad = function (x) { x = String(x); while (x.length < 6) x = "0" + x; return x; };
    return n ? "eval_" + n[0] + "_iteration_" + pad(n[1]) + ".html" : "train_iteration_" + pad(key) + ".html";
  }
  function openCompare() {
    var picks = loadPicks();
    if (picks.length < 2) {
      toast("pick two members first: tick “compare” on each (they may be on different pages)");
      return;
    }
    compareIds = [picks[0].cid, picks[1].cid];
    showCompare([picks[0], picks[1]]);
  }
  function compareFromHash(ids) {
    var found = ids.map(resolve);
    // a member of this page named by a shared link joins the picks, so the other page can show both
    found.forEach(function (p) {
      if (p && byCid[p.cid]) {
        var picks = loadPicks().filter(function (q) { return !sameMember(q, p.cid); });
        picks.push(p);
        savePicks(picks.slice(-2));
      }
    });
    renderTray();
    showCompare(found, ids);
  }

  function sideHead(p, letter, cid) {
    var col = h("div", "cmp-side");
    var t = h("h3", "", "");
    t.appendChild(h("span", "side side-" + letter.toLowerCase(), letter));
    if (!p) {
      if (fetched[cid] === undefined && !byCid[cid]) fetchMember(cid);
      var loading = fetched[cid] === "loading";
      t.appendChild(doc.createTextNode(" " + cid + (loading ? " — loading from its page…" : " — not loaded")));
      col.appendChild(t);
      var msg = h("p", "missing", loading
        ? "This member is on another page: reading it there. "
        : "This member was not found on its page, or its page did not answer. ");
      var a = h("a", "", loading ? "Open its page" : "Open it to load it");
      a.href = SITE_DIR + pageFor(cid) + "#compare=" + (compareIds || []).map(enc).join(",");
      msg.appendChild(a);
      col.appendChild(msg);
      return col;
    }
    var a2 = h("a", "", pickLabel(p));
    a2.href = p.href;
    t.appendChild(doc.createTextNode(" "));
    t.appendChild(a2);
    col.appendChild(t);
    var st = h("p", "cmp-stats");
    p.stats.forEach(function (s, i) { st.appendChild(h(i ? "span" : "strong", "", s)); });
    col.appendChild(st);
    var bd = h("p", "cmp-badges");
    p.badges.forEach(function (b) { bd.appendChild(h("span", "chip info", b)); });
    if (p.badges.length) col.appendChild(bd);
    if (p.prompt) {
      var pr = h("p", "subtle", "prompt ");
      pr.appendChild(h("code", "", p.prompt));
      col.appendChild(pr);
    }
    return col;
  }
  function section(box, title, note) {
    var s = h("section", "cmp-sec");
    s.appendChild(h("h3", "", title));
    if (note) s.appendChild(note);
    box.appendChild(s);
    return s;
  }
  function twoCols(a, b) {
    var row = h("div", "cmp-cols");
    row.appendChild(a);
    row.appendChild(b);
    return row;
  }
  function turnCell(t) {
    var cell = h("td");
    if (!t) { cell.appendChild(h("span", "subtle", "—")); return cell; }
    cell.appendChild(h("span", "role role-" + t.role.replace(/[^a-z]/g, ""), t.role));
    if (t.calls.length) {
      t.calls.forEach(function (c) { cell.appendChild(h("pre", "args", c)); });
    }
    return cell;
  }
  function showCompare(pair, ids) {
    var dlg = doc.getElementById("rg-compare");
    var box = doc.getElementById("rg-cmp-body");
    if (!dlg || !box) return;
    box.textContent = "";
    var A = pair[0], B = pair[1];
    ids = ids || [A && A.cid, B && B.cid];
    box.appendChild(twoCols(sideHead(A, "A", ids[0]), sideHead(B, "B", ids[1])));
    if (A && B) {
      if (A.prompt && B.prompt && A.prompt !== B.prompt) {
        box.appendChild(h("p", "warning", "Different prompts: " + A.prompt + " and " + B.prompt + "."));
      }
      var fd = diffPanes(A.final, B.final);
      var s1 = section(box, A.kind === "completion" && B.kind === "completion"
        ? "Completions side by side, word diff" : "Final answers, word diff", fd.info);
      s1.appendChild(twoCols(fd.left, fd.right));
      if (typeof A.summary === "string" && typeof B.summary === "string") {
        var sd = diffPanes(A.summary, B.summary);
        section(box, "metadata.summary, word diff", sd.info).appendChild(twoCols(sd.left, sd.right));
      }
      if (A.kind === "conversation" || B.kind === "conversation") {
        var idx = {};
        A.turns.concat(B.turns).forEach(function (t) { idx[t.i] = true; });
        var keys = Object.keys(idx).map(Number).sort(function (x, y) { return x - y; });
        var ma = {}, mb = {};
        A.turns.forEach(function (t) { ma[t.i] = t; });
        B.turns.forEach(function (t) { mb[t.i] = t; });
        var tbl = h("table", "turns");
        var thead = h("thead");
        var tr0 = h("tr");
        ["#", "A", "B"].forEach(function (x) { tr0.appendChild(h("th", "", x)); });
        thead.appendChild(tr0);
        tbl.appendChild(thead);
        var tb = h("tbody");
        var same = 0;
        keys.forEach(function (k) {
          var ta = ma[k], tb2 = mb[k];
          var tr = h("tr");
          tr.appendChild(h("th", "", String(k)));
          var ca = turnCell(ta), cb = turnCell(tb2);
          if (ta && tb2 && !ta.text && !tb2.text) {
            if (ta.role === tb2.role && ta.calls.join("\n") === tb2.calls.join("\n")) { tr.className = "same"; same++; }
          } else if (ta && tb2) {
            var d = diffPanes(ta.text, tb2.text);
            if (d.same && ta.role === tb2.role && ta.calls.join("\n") === tb2.calls.join("\n")) { tr.className = "same"; same++; }
            ca.insertBefore(ta.text ? d.left : h("p", "subtle notext", "(no text)"), ca.children[1] || null);
            cb.insertBefore(tb2.text ? d.right : h("p", "subtle notext", "(no text)"), cb.children[1] || null);
          } else {
            tr.className = "only";
            if (ta) ca.insertBefore(h("pre", "dtext", ta.text), ca.children[1] || null);
            if (tb2) cb.insertBefore(h("pre", "dtext", tb2.text), cb.children[1] || null);
          }
          tr.appendChild(ca);
          tr.appendChild(cb);
          tb.appendChild(tr);
        });
        tbl.appendChild(tb);
        var note = h("p", "diff-info", keys.length + " messages by index · " + same + " identical");
        section(box, "Turn by turn", note).appendChild(tbl);
      }
    }
    markInvisible(box);
    if (!dlg.open) {
      if (typeof dlg.showModal === "function") dlg.showModal(); else dlg.setAttribute("open", "");
    }
    compareIds = ids.filter(Boolean);
    writeHash(false);
  }
  function closeDialogs() {
    $all("dialog[open]").forEach(function (d) { d.close ? d.close() : d.removeAttribute("open"); });
  }
  $all("dialog").forEach(function (d) {
    d.addEventListener("close", function () {
      if (d.id === "rg-compare") { compareIds = null; writeHash(false); }
    });
    wireDialog(d);
  });
  function toggleHelp() { toggleDialog(doc.getElementById("rg-help")); }
  var keysBox = doc.getElementById("f-keys");
  if (keysBox) {
    keysBox.checked = keysOn();
    keysBox.addEventListener("change", function () {
      if (keysBox.checked) store.del(KEYS_KEY);
      else if (!store.set(KEYS_KEY, "off")) { toast("this browser keeps no storage here: the keys stay on"); keysBox.checked = true; }
    });
  }

  // ------------------------------------------------------------------ targets: anchors, #prompt=, sub-pages
  function clearTargetMarks() {
    $all(".target-hl").forEach(function (e) { e.classList.remove("target-hl"); });
    members.forEach(function (m) { m.forced = false; });
  }
  function reveal(el) {
    var gel = el.closest("section.group");
    var g = groups.filter(function (x) { return x.el === gel; })[0];
    if (g && g.el.classList.contains("collapsed")) setCollapsed(g, false);
    var m = members.filter(function (x) { return x.el === el; })[0];
    if (m && m.el.hidden) { m.forced = true; applyFilters(); } // a linked member shows even if filtered out
    if (g && g.el.hidden) { g.members.forEach(function (x) { x.forced = true; }); applyFilters(); }
  }
  // Groups off screen are laid out only when they come near the viewport, at a guessed
  // height (content-visibility: auto): after a first scroll to a target, the groups it
  // passes render at their real heights and the target slides away. Scroll again until it
  // stays put (at most 2 s), unless the reader scrolls or presses a key meanwhile.
  var settling = 0;
  function settle(el) {
    var id = ++settling, moved = false, same = 0, tries = 0;
    var kinds = ["wheel", "keydown", "pointerdown", "touchstart"];
    function stop() { moved = true; }
    function done() { kinds.forEach(function (t) { window.removeEventListener(t, stop, true); }); }
    kinds.forEach(function (t) { window.addEventListener(t, stop, { passive: true, capture: true }); });
    (function check() {
      if (moved || id !== settling || ++tries > 20) { done(); return; }
      var want = parseFloat(window.getComputedStyle(el).scrollMarginTop) || 0;
      if (Math.abs(el.getBoundingClientRect().top - want) > 2) {
        same = 0;
        el.scrollIntoView({ block: "start" });
      } else if (++same >= 3) {
        done();
        return;
      }
      setTimeout(check, 100);
    })();
  }
  function scrollToEl(el, focus) {
    stickyOffsets(); // the bar may have grown since (the filters of the address widen it)
    el.classList.add("target-hl");
    el.scrollIntoView({ block: "start" });
    settle(el);
    if (focus) {
      var f = $("a.anchor", el) || el;
      try { f.focus({ preventScroll: true }); } catch (e) { f.focus(); }
    }
  }
  function seekOtherPage(params) {
    // the target may sit on another page of this iteration: try them in turn, once each
    var seek = parseInt(params.seek || "0", 10) || 0;
    if (PAGES.length < 2 || seek >= PAGES.length - 1) return false;
    var next = PAGES[PAGE_NO % PAGES.length];
    var h2 = window.location.hash.replace(/&?seek=\d+/, "");
    if (h2.indexOf("=") < 0 && h2.length > 1) h2 = "#at=" + h2.slice(1);
    window.location.replace(next + (h2 || "#") + (h2.length > 1 ? "&" : "") + "seek=" + (seek + 1));
    return true;
  }
  function goToTarget(params, initial) {
    clearTargetMarks();
    if (!target) { if (params.seek !== undefined) writeHash(false); return; }
    var el = null, found = [];
    if (target.kind === "anchor") {
      el = doc.getElementById(target.value);
      if (el && !el.closest("section.groups")) el = null;
      if (el) found = [el];
    } else if (target.kind === "prompt") {
      found = groups.filter(function (g) { return g.prompt === target.value; }).map(function (g) { return g.el; });
      el = found[0] || null;
    }
    if (params.seek !== undefined) writeHash(false); // arrived through a sub-page seek: drop the counter
    if (!el) {
      if (initial && target.kind === "anchor" && overviewRows.length && params.seek === undefined) {
        // the table of all groups knows the page a group starts on: go there at once, and
        // say at once that a group none of them has is missing
        var gid = target.value.replace(/-mn?\d+$/, "");
        var row = overviewRow(gid);
        if (!row) {
          toast(target.value + " is not on any page of this iteration");
          return;
        }
        if (row.page !== PAGE_NO && PAGES[row.page - 1]) {
          window.location.replace(PAGES[row.page - 1] + window.location.hash);
          return;
        }
        // its group is here and the member is not: no other page holds it either
        toast(target.value + " is not in " + gid);
        return;
      }
      if (initial && seekOtherPage(params)) return;
      toast((target.kind === "prompt" ? "prompt " : "") + target.value + " is not on " +
        (PAGES.length > 1 ? "any page of this iteration" : "this page"));
      return;
    }
    found.forEach(function (e) { reveal(e); e.classList.add("target-hl"); });
    // after layout settles (fonts, sorting), so the position is right
    window.requestAnimationFrame(function () { scrollToEl(el, !initial); });
  }

  function readHash(initial) {
    var p = parseHash(window.location.hash);
    if (overview && p.at === "all-groups") {
      // "the table of all groups" from another page (with the sort: its rows follow it)
      overview.open = true;
      if (initial) window.requestAnimationFrame(function () { overview.scrollIntoView({ block: "start" }); });
    }
    state = stateFromParams(p);
    target = null;
    if (p.prompt) target = { kind: "prompt", value: p.prompt };
    else if (p.at && ANCHOR_RE.test(p.at)) target = { kind: "anchor", value: p.at };
    compareIds = p.compare ? p.compare.split(",").filter(function (c) { return CID_RE.test(c); }).slice(0, 2) : null;
    if (compareIds && !compareIds.length) compareIds = null;
    toControls();
    applySort();
    applyView();
    applyFilters();
    carry();
    if (p.at === LAST_GROUP || p.at === FIRST_GROUP) {
      // n or p from a neighbouring page: the first (last) group the filters leave, known once
      // they are applied; a page where none is left is passed in the same direction
      var shownGroups = visibleGroups(), forward = p.at === FIRST_GROUP;
      if (shownGroups.length) {
        target = { kind: "anchor", value: shownGroups[forward ? 0 : shownGroups.length - 1].id };
      } else if (initial) {
        var beyond = PAGE_NO + (forward ? 1 : -1);
        var back = /^(\d+)(?::(.+))?$/.exec(p.back || "");
        var carried = back ? ["back=" + p.back] : [];
        if (beyond >= 1 && beyond <= PAGES.length && PAGES[beyond - 1]) {
          window.location.replace(PAGES[beyond - 1] + filterHash(["at=" + p.at].concat(carried)));
          return;
        }
        var from = back ? parseInt(back[1], 10) : 0;
        if (from >= 1 && from <= PAGES.length && PAGES[from - 1] && from !== PAGE_NO) {
          // none on any page beyond: back where the reader was, which says so
          var at = back[2] && ANCHOR_RE.test(back[2]) ? ["at=" + back[2]] : [];
          window.location.replace(PAGES[from - 1] + filterHash(at.concat(["none=" + (forward ? "later" : "earlier")])));
          return;
        }
        toast("no " + (forward ? "later" : "earlier") + " group of this iteration matches the filters");
      }
      writeHash(false); // the address names that group (or none), as n and p write it
    }
    if (initial && (p.none === "later" || p.none === "earlier")) {
      toast("no " + p.none + " group of this iteration matches the filters");
      writeHash(false);
    }
    goToTarget(p, initial);
    if (compareIds && compareIds.length === 2) compareFromHash(compareIds);
    else {
      var dlg = doc.getElementById("rg-compare");
      if (dlg && dlg.open) dlg.close();
    }
  }

  // ------------------------------------------------------------------ events
  if (bar) {
    bar.hidden = false;
    bar.addEventListener("submit", function (e) { e.preventDefault(); });
    var onChange = function () {
      var s = fromControls();
      if (s.md !== state.md) store.set("reportgen.md", s.md ? "1" : "0");
      state = s;
      update(false);
    };
    var slow = debounce(onChange, 160);
    ["q", "rmin", "rmax"].forEach(function (k) { if (ctl[k]) ctl[k].addEventListener("input", slow); });
    Object.keys(ctl).forEach(function (k) {
      if (ctl[k] && ["q", "rmin", "rmax"].indexOf(k) < 0) ctl[k].addEventListener("change", onChange);
    });
    if (ctl.q) ctl.q.addEventListener("search", onChange);
    var clearAll = function () {
      var s = emptyState();
      // how to search and to show stays; what to look for goes
      s.case = state.case; s.sort = state.sort; s.compact = state.compact; s.md = state.md;
      state = s;
      toControls();
      update(false);
    };
    ["b-clear", "b-clear2"].forEach(function (id) {
      var b = doc.getElementById(id);
      if (b) b.addEventListener("click", clearAll);
    });
    var ex = doc.getElementById("b-expand"), co = doc.getElementById("b-collapse");
    if (ex) ex.addEventListener("click", function () { groups.forEach(function (g) { setCollapsed(g, false); }); });
    if (co) co.addEventListener("click", function () { groups.forEach(function (g) { setCollapsed(g, true); }); });
    var cbtn = doc.getElementById("b-compare");
    if (cbtn) cbtn.addEventListener("click", openCompare);
    var hb = doc.getElementById("b-help");
    if (hb) hb.addEventListener("click", toggleHelp);
  }
  var none2 = doc.getElementById("b-clear2");
  if (none2 && !bar) none2.hidden = true;

  // a reward mini-bar leads to its member (an SVG <g>, not a link: link crawlers expect string hrefs)
  doc.addEventListener("click", function (e) {
    var mb = e.target.closest && e.target.closest("svg.minibars g.bar[data-target]");
    if (!mb || !doc.getElementById(mb.getAttribute("data-target"))) return;
    target = { kind: "anchor", value: mb.getAttribute("data-target") };
    writeHash(true);
    goToTarget({}, false);
  });
  // in-page anchors keep the filters in the address
  doc.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest("a[href^='#']");
    if (!a || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
    var id = safeDecode(a.getAttribute("href").slice(1));
    if (!ANCHOR_RE.test(id) || !doc.getElementById(id)) return; // "#main" and the like stay native
    e.preventDefault();
    target = { kind: "anchor", value: id };
    writeHash(true);
    goToTarget({}, false);
  });
  function onHash() {
    var raw = window.location.hash.slice(1);
    // "#main" (the skip link) or any other foreign anchor: the browser scrolls, the view stays
    if (raw && raw.indexOf("=") < 0 && !ANCHOR_RE.test(safeDecode(raw))) return;
    readHash(false);
  }
  window.addEventListener("popstate", onHash);
  window.addEventListener("hashchange", onHash);

  function stickyOffsets() {
    // sticky bars must not cover a group scrolled to: scroll-margin follows their height
    var top = $("header.top");
    var th = top && getComputedStyle(top).position === "sticky" ? top.getBoundingClientRect().height : 0;
    if (bar && !bar.hidden) bar.style.top = th + "px";
    var bh = bar && !bar.hidden && getComputedStyle(bar).position === "sticky" ? bar.getBoundingClientRect().height : 0;
    doc.documentElement.style.setProperty("--sticky", Math.round(th + bh + 8) + "px");
    return th + bh;
  }
  window.addEventListener("resize", debounce(stickyOffsets, 100));

  function visibleGroups() { return groups.filter(function (g) { return !g.el.hidden; }).map(function (g) { return g.el; }); }
  var lastStep = null; // {el, y}: where n/p left the view, for groups that cannot reach the top
  function stepGroup(dir) {
    var line = stickyOffsets() + 8; // the groups' scroll-margin-top
    var list = visibleGroups();
    var cur = -1, i;
    if (lastStep && Math.abs(window.scrollY - lastStep.y) < 2 && list.indexOf(lastStep.el) >= 0) {
      cur = list.indexOf(lastStep.el);
    } else {
      for (i = 0; i < list.length; i++) if (list[i].getBoundingClientRect().top <= line + 4) cur = i;
    }
    var idx;
    if (!list.length) idx = -1; // no group of this page matches the filters: the next (or previous) page may
    else if (dir > 0) idx = cur + 1;
    else idx = cur >= 0 && list[cur].getBoundingClientRect().top < line - 4 && list[cur] !== (lastStep && lastStep.el) ? cur : cur - 1;
    if (idx < 0 || idx >= list.length) {
      // past this page's groups: the next (or previous) page of this iteration, if any
      var other = PAGE_NO + (dir > 0 ? 1 : -1);
      if (other >= 1 && other <= PAGES.length && PAGES[other - 1]) {
        // the next page's first group (the previous page's last) the filters leave; where the
        // reader was goes along, to come back to if no page beyond holds one
        var here = cur >= 0 && list[cur] ? list[cur].id : "";
        window.location.href = PAGES[other - 1] +
          filterHash(["at=" + (dir < 0 ? LAST_GROUP : FIRST_GROUP), "back=" + PAGE_NO + (here ? ":" + here : "")]);
        return;
      }
      if (!list.length) toast("no group of this page matches the filters");
      else toast(dir > 0 ? "last group of this " + (PAGES.length > 1 ? "iteration" : "page") : "first group of this " + (PAGES.length > 1 ? "iteration" : "page"));
      return;
    }
    var pick = list[idx];
    target = { kind: "anchor", value: pick.id };
    writeHash(false);
    clearTargetMarks();
    scrollToEl(pick, true);
    lastStep = { el: pick, y: window.scrollY };
  }

  doc.addEventListener("keydown", function (e) {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
    if (typing(e)) {
      if (e.key === "Escape" && e.target.blur) {
        // leave the box, keep the search: a search box's own Esc would empty it
        e.preventDefault();
        e.target.blur();
      }
      return;
    }
    if ($("dialog[open]")) {
      if (e.key === "?" && keysOn()) { e.preventDefault(); closeDialogs(); }
      return; // Esc closes a modal dialog natively
    }
    if (e.key !== "Escape" && !keysOn()) return;
    if ((e.key === "ArrowDown" || e.key === "ArrowUp") && !arrowMoves(e)) return; // the page scrolls
    var link = null;
    switch (e.key) {
      case "j": case "ArrowDown": link = doc.getElementById("nav-next"); break;
      case "k": case "ArrowUp": link = doc.getElementById("nav-prev"); break;
      case "n": e.preventDefault(); stepGroup(1); return;
      case "p": e.preventDefault(); stepGroup(-1); return;
      case "/":
        if (ctl.q) { e.preventDefault(); ctl.q.focus(); ctl.q.select(); }
        return;
      case "c": e.preventDefault(); openCompare(); return;
      case "m":
        if (ctl.md) { e.preventDefault(); ctl.md.checked = !ctl.md.checked; ctl.md.dispatchEvent(new Event("change")); }
        return;
      case "?": e.preventDefault(); toggleHelp(); return;
      case "Escape": clearTargetMarks(); return;
      default: return;
    }
    if (link && link.href) {
      e.preventDefault();
      window.location.href = link.href;
    } else if (e.key === "j" || e.key === "k") {
      toast(e.key === "j" ? "this is the last page" : "this is the first page");
    }
  });
  unfoldWhilePrinting(groupsBox || body);
  // a tinker page's folded timing and raw logtree print whole too
  $all("section.timing, section.logtree").forEach(unfoldWhilePrinting);

  // storage events: picks made in another tab show up here
  window.addEventListener("storage", function (e) { if (e.key === PICKS_KEY) renderTray(); });

  // times are logged in UTC: show the reader's local time, the logged one on hover
  $all(".it-head time[datetime]").forEach(function (t) {
    var d = new Date(t.getAttribute("datetime"));
    if (isNaN(d.getTime())) return;
    t.title = t.getAttribute("datetime");
    t.textContent = d.toLocaleString();
  });

  // ------------------------------------------------------------------ start
  // opened in a frame by another page's comparison (fetchMember): answer it, nothing else
  var giving = window.parent !== window ? /^#give=([^&]+)$/.exec(window.location.hash) : null;
  if (giving && CID_RE.test(safeDecode(giving[1]))) { give(safeDecode(giving[1])); return; }
  stickyOffsets();
  renderTray();
  laterPromptLinks();
  readHash(true);
})();
