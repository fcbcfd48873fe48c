// Small fixes for every page. Material's search panel is a role="dialog" without a name, which
// screen readers announce as an unnamed dialog; naming it here keeps the theme's templates untouched.
(function () {
  "use strict";
  var dialog = document.querySelector('.md-search[role="dialog"]');
  if (dialog && !dialog.hasAttribute("aria-label")) dialog.setAttribute("aria-label", "Search this site");

  // A table, formula or code block that scrolls sideways (on a phone) must be reachable by keyboard to be
  // scrolled: while it scrolls, its box takes the focus and is named as a region. The demos draw their tables
  // after load, so this runs again whenever the page's content or width changes. (The theme's bundle makes a
  // code block focusable too, but it starts only on the reader's first move: partials/javascripts/bundle.html.)
  var BOXES = ".md-typeset__scrollwrap, .nt-table-wrap, .nt-math, .md-typeset pre > code";
  var queued = false;
  function name(box, counts) {
    // named by its kind, its place and its column heads (regions on one page need distinct names)
    var heads = Array.prototype.slice.call(box.querySelectorAll("tr:first-child > *"), 0, 4)
      .map(function (c) { return c.textContent.trim(); }).filter(Boolean);
    var what = box.classList.contains("nt-math") ? "Formula" : box.tagName === "CODE" ? "Code" : "Table";
    counts[what] = (counts[what] || 0) + 1;
    return what + " " + counts[what] + (heads.length ? ": " + heads.join(", ") : "") + " (scrolls sideways)";
  }
  function mark() {
    queued = false;
    var counts = {};
    // every width read before any attribute is written: a write between reads would lay the page out again.
    // A box in a closed fold is left until the fold opens: the browser would lay the fold out for each read
    // and throw it away again.
    var boxes = Array.prototype.map.call(document.querySelectorAll(BOXES), function (box) {
      return { box: box, scrolls: box.closest("details:not([open])") ? null : box.scrollWidth > box.clientWidth + 1 };
    });
    boxes.forEach(function (b) {
      var box = b.box, scrolls = b.scrolls;
      var label = name(box, counts);  // every box counts, so a name never repeats on the page
      if (scrolls === null) return;  // in a closed fold: as it was
      if (scrolls && !box.hasAttribute("tabindex")) {
        box.setAttribute("tabindex", "0");
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", label);
        box.setAttribute("data-nt-scroll", "");
      } else if (!scrolls && box.hasAttribute("data-nt-scroll")) {
        ["tabindex", "role", "aria-label", "data-nt-scroll"].forEach(function (a) { box.removeAttribute(a); });
      }
    });
  }
  function queue() {
    if (!queued) { queued = true; requestAnimationFrame(mark); }
  }
  // Only changes in, or adding or removing, such a box matter (a demo redrawing its own drawings, as Play does
  // every stage, must not cost a pass over the page's boxes and a forced layout).
  function touches(nodes) {
    for (var i = 0; i < nodes.length; i++) {
      var n = nodes[i];
      if (n.nodeType === 1 && (n.matches(BOXES) || n.querySelector(BOXES))) return true;
    }
    return false;
  }
  var content = document.querySelector(".md-content") || document.body;
  new MutationObserver(function (records) {
    if (records.some(function (r) { return r.target.closest(BOXES) || touches(r.addedNodes) || touches(r.removedNodes); })) queue();
  }).observe(content, { childList: true, subtree: true });
  window.addEventListener("resize", queue);
  document.addEventListener("toggle", function (e) { if (e.target.open) queue(); }, true);  // a fold opened
  queue();

  // Printed, a closed fold prints open (its figures and tables are part of the page), then closes again.
  // css/print.css does it by CSS where the browser styles ::details-content; this is for the others.
  var opened = [];
  window.addEventListener("beforeprint", function () {
    opened = Array.prototype.filter.call(document.querySelectorAll(".md-content details:not([open])"), function (d) { d.open = true; return true; });
  });
  window.addEventListener("afterprint", function () { opened.forEach(function (d) { d.open = false; }); opened = []; });
})();
