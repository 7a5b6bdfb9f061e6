/* reportgen live mode: poll live.js (written by `reportgen build --watch` / `reportgen serve`)
   by re-injecting a <script> tag, which works from file:// and over http, and tell the reader
   when new updates arrived. The index reloads itself to refresh its charts. */
(function () {
  "use strict";
  var me = document.currentScript;
  var root = (me && me.getAttribute("data-root")) || "";
  var isIndex = me && me.getAttribute("data-index") === "1";
  var known = null;
  var firstUpdates = null;
  var banner = null;
  window.RG_LIVE = function (info) {
    if (!info || typeof info.generation !== "number") return;
    if (known === null) { known = info.generation; firstUpdates = info.updates; return; }
    if (info.generation === known) return;
    if (isIndex) { window.location.reload(); return; }
    var n = info.updates - firstUpdates;
    if (!banner) {
      banner = document.createElement("div");
      banner.className = "live-banner";
      banner.setAttribute("role", "status");
      document.body.appendChild(banner);
    }
    banner.textContent = "";
    var text = document.createElement("span");
    text.textContent = (n > 0 ? n + " new update" + (n === 1 ? "" : "s") : "The run changed") + " since this page was opened. ";
    var link = document.createElement("a");
    link.href = root + "index.html";
    link.textContent = "Open the index";
    var reload = document.createElement("a");
    reload.href = window.location.href;
    reload.textContent = "reload this page";
    banner.appendChild(text);
    banner.appendChild(link);
    banner.appendChild(document.createTextNode(" or "));
    banner.appendChild(reload);
  };
  function poll() {
    var s = document.createElement("script");
    s.src = root + "live.js?t=" + Date.now();
    s.onload = s.onerror = function () { s.parentNode && s.parentNode.removeChild(s); };
    document.head.appendChild(s);
  }
  poll();
  setInterval(poll, 3000);
})();
