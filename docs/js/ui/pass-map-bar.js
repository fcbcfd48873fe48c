// The phone's folded map of the pass (details.nt-map-phone, scripts/site/pass_map.py) is a glance, not a
// place to stay: opened, it closes again when the reader scrolls the page on, taps outside it or presses
// Escape (focus returns to its summary), so it never keeps covering the text it sits over. Scrolling the
// map inside the bar does not close it. Loaded by the pass map hook on every page with a map.
nexttoken.define("ui.pass-map-bar", [], function () {
  "use strict";
  var AWAY = 48;  // px the page scrolls, with the bar open, before it folds (a nudge is not leaving)

  function fold(bar, focus) {
    if (!bar.open) return;
    bar.open = false;
    if (focus) bar.querySelector("summary").focus();
  }

  Array.prototype.forEach.call(document.querySelectorAll("details.nt-map-phone"), function (bar) {
    var from = null;
    // measured two frames on: the bar grows above the text, and the browser's scroll anchoring may move
    // the page by that much once, which is not the reader leaving
    bar.addEventListener("toggle", function () {
      from = null;
      if (bar.open) requestAnimationFrame(function () { requestAnimationFrame(function () { if (bar.open) from = window.scrollY; }); });
    });
    window.addEventListener("scroll", function () {
      if (from !== null && Math.abs(window.scrollY - from) > AWAY) fold(bar, false);
    }, { passive: true });
    document.addEventListener("pointerdown", function (e) {
      if (bar.open && !bar.contains(e.target)) fold(bar, false);
    });
    bar.addEventListener("keydown", function (e) {
      if (e.key === "Escape") fold(bar, true);
    });
  });
  return { fold: fold };
});
