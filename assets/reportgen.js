/* reportgen: small progressive enhancements. Every text is in the HTML already;
   this file only adds keys and conveniences. No fetch, no modules: it must run from file://. */
(function () {
  "use strict";
  function typing(e) {
    var t = e.target;
    if (!t || !t.tagName) return false;
    var tag = t.tagName.toLowerCase();
    return tag === "input" || tag === "textarea" || tag === "select" || t.isContentEditable;
  }
  document.addEventListener("keydown", function (e) {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typing(e)) return;
    var link = null;
    if (e.key === "j" || e.key === "ArrowDown") link = document.getElementById("nav-next");
    else if (e.key === "k" || e.key === "ArrowUp") link = document.getElementById("nav-prev");
    if (link && link.href) {
      e.preventDefault();
      window.location.href = link.href + window.location.search;
    }
  });
})();
