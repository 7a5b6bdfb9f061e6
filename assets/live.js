/* reportgen live mode: poll live.js (written by `reportgen build --watch` / `reportgen serve`)
   by re-injecting a <script> tag, which works from file:// and over http, and tell the reader
   when new updates arrived. The index reloads itself to refresh its charts and table, once the
   reader pauses: not while they type in a field or move over the page (at most a minute). What
   the address does not keep (the metric search, the metric groups opened, the scroll) is kept
   in sessionStorage across that reload and given back once the explorer is drawn. */
(function () {
  "use strict";
  var me = document.currentScript;
  var root = (me && me.getAttribute("data-root")) || "";
  var isIndex = me && me.getAttribute("data-index") === "1";
  var known = null;
  var firstUpdates = null;
  var banner = null;
  var lastActive = 0; // the reader's last key, pointer move or wheel
  var waitingSince = 0; // the index's reload, put off since
  ["pointermove", "pointerdown", "keydown", "wheel", "touchstart"].forEach(function (t) {
    document.addEventListener(t, function () { lastActive = Date.now(); }, { capture: true, passive: true });
  });
  function editing() {
    var a = document.activeElement;
    if (!a) return false;
    var tag = a.tagName;
    return tag === "TEXTAREA" || tag === "SELECT" || (tag === "INPUT" && a.type !== "checkbox" && a.type !== "radio");
  }
  var KEEP = "rg-live-keep:" + window.location.pathname;
  function keep() {
    var search = document.getElementById("rg-search");
    var open = [];
    Array.prototype.forEach.call(document.querySelectorAll("#rg-metric-list details[open]"), function (d) {
      open.push(d.getAttribute("data-group"));
    });
    try {
      window.sessionStorage.setItem(KEEP, JSON.stringify({
        search: search ? search.value : "", open: open, y: window.scrollY, hash: window.location.hash
      }));
    } catch (e) { /* storage refused (a private window, file:// in some browsers): reload without */ }
  }
  function giveBack() {
    var saved = null;
    try {
      saved = JSON.parse(window.sessionStorage.getItem(KEEP) || "null");
      window.sessionStorage.removeItem(KEEP);
    } catch (e) { return; }
    if (!saved || typeof saved !== "object" || saved.hash !== window.location.hash) return;
    var tries = 0;
    (function whenDrawn() {
      // the explorer's list is built after the charts are drawn (charts.js)
      var list = document.querySelector("#rg-metric-list details");
      if (!list && document.documentElement.getAttribute("data-rg-charts") !== "drawn") {
        if (++tries < 100) setTimeout(whenDrawn, 100);
        return;
      }
      var search = document.getElementById("rg-search");
      if (search && typeof saved.search === "string" && saved.search && !search.value) {
        search.value = saved.search;
        search.dispatchEvent(new Event("input"));
      }
      if (Array.isArray(saved.open)) {
        Array.prototype.forEach.call(document.querySelectorAll("#rg-metric-list details"), function (d) {
          if (!d.hidden && saved.open.indexOf(d.getAttribute("data-group")) >= 0) d.open = true;
        });
      }
      // the browser restores the scroll before the charts have their height: again, unless the
      // reader has moved meanwhile
      if (typeof saved.y === "number" && !lastActive) window.scrollTo(0, saved.y);
    })();
  }
  function reloadWhenIdle() {
    var now = Date.now();
    if (!waitingSince) waitingSince = now;
    if (now - waitingSince < 60000 && (editing() || now - lastActive < 3000)) {
      setTimeout(reloadWhenIdle, 1000);
      return;
    }
    keep();
    window.location.reload();
  }
  function say(parts) {
    if (!banner) {
      banner = document.createElement("div");
      banner.className = "live-banner";
      banner.setAttribute("role", "status");
      document.body.appendChild(banner);
    }
    banner.textContent = "";
    parts.forEach(function (p) {
      if (typeof p === "string") { banner.appendChild(document.createTextNode(p)); return; }
      var a = document.createElement("a");
      a.href = p[0];
      a.textContent = p[1];
      // a link to this very address only scrolls when the address has a #fragment
      if (p[0] === window.location.href) {
        a.addEventListener("click", function (e) {
          e.preventDefault();
          if (isIndex) keep();
          window.location.reload();
        });
      }
      banner.appendChild(a);
    });
  }
  window.RG_LIVE = function (info) {
    if (!info || typeof info.generation !== "number") return;
    if (known === null) { known = info.generation; firstUpdates = info.updates; return; }
    if (info.generation === known) return;
    var n = info.updates - firstUpdates;
    // the run's own word (tinker: iterations), a plain lowercase word or "updates"
    var word = typeof info.word === "string" && /^[a-z]{1,20}s$/.test(info.word) ? info.word : "updates";
    var what = n > 0 ? n + " new " + (n === 1 ? word.slice(0, -1) : word) : "The run changed";
    if (isIndex) {
      if (!waitingSince) {
        say([what + ": the index refreshes when you pause, or ", [window.location.href, "now"], "."]);
        reloadWhenIdle();
      }
      return;
    }
    var here = window.location.pathname.split("/").pop();
    var index = [root + "index.html", "Open the index"];
    var reload = [window.location.href, "reload this page"];
    // the newest update's page: a plain file name of this site (live.js is ours, but checked)
    if (typeof info.latest === "string" && /^[\w.-]+\.html$/.test(info.latest) && info.latest !== here) {
      var label = "Open the latest (" + String(info.latest_label || info.latest) + ")";
      index[1] = "the index";
      say([what + " since this page was opened. ", [root + info.latest, label], ", ", index, " or ", reload, "."]);
    } else {
      say([what + " since this page was opened. ", index, " or ", reload, "."]);
    }
  };
  function poll() {
    var s = document.createElement("script");
    s.src = root + "live.js?t=" + Date.now();
    s.onload = s.onerror = function () { s.parentNode && s.parentNode.removeChild(s); };
    document.head.appendChild(s);
  }
  if (isIndex) giveBack();
  poll();
  setInterval(poll, 3000);
})();
