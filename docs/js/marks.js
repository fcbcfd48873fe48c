// The provenance marks (scripts/site/citations.py writes them): each real-model number carries a thin mark,
// a button whose popover says where the number comes from. Hover and focus show the popover by CSS alone; this
// script lets a tap pin it open (aria-expanded), Escape close it, keeps it inside the screen, opens the page's
// "Where these numbers come from" when a popover's link points into it, and keeps the auditor's view (every
// mark's label shown inline) across pages in localStorage, which works offline and from file://.
nexttoken.define("marks", [], function () {
  "use strict";
  var KEY = "nexttoken.audit";
  var doc = document, root = doc.documentElement;

  function storage() { try { return window.localStorage || null; } catch (e) { return null; } }  // blocked storage throws
  function audit() { var s = storage(); return !!s && s.getItem(KEY) === "1"; }

  function show(on) {
    root.classList.toggle("nt-audit-on", on);
    Array.prototype.forEach.call(doc.querySelectorAll(".nt-audit"), function (b) { b.setAttribute("aria-pressed", on ? "true" : "false"); });
  }

  // The popover is placed by the screen, not by its line: a table that scrolls sideways would cut it off, and
  // a mark at a line's end on a phone would push it past the edge.
  function place(mark) {
    var pop = mark.querySelector(".nt-pop"), at = mark.querySelector(".nt-mark-btn").getBoundingClientRect();
    var width = root.clientWidth;
    pop.style.position = "fixed";
    pop.style.top = Math.round(at.bottom) + "px";
    pop.style.left = "0px";
    var w = pop.getBoundingClientRect().width;
    pop.style.left = Math.round(Math.max(8, Math.min(at.left, width - 8 - w))) + "px";
    if (at.bottom + pop.offsetHeight > root.clientHeight && at.top > pop.offsetHeight) {
      pop.style.top = Math.round(at.top - pop.offsetHeight) + "px";  // no room below: above the mark
    }
  }
  function replace() {
    Array.prototype.forEach.call(doc.querySelectorAll(".nt-mark:hover, .nt-mark:focus-within, .nt-mark-btn[aria-expanded=\"true\"]"),
      function (el) { place(el.closest(".nt-mark")); });
  }
  window.addEventListener("scroll", replace, { passive: true, capture: true });

  function close(except) {
    Array.prototype.forEach.call(doc.querySelectorAll('.nt-mark-btn[aria-expanded="true"]'), function (b) {
      if (b !== except) b.setAttribute("aria-expanded", "false");
    });
  }

  doc.addEventListener("click", function (ev) {
    var btn = ev.target.closest && ev.target.closest(".nt-mark-btn");
    if (btn) {
      var open = btn.getAttribute("aria-expanded") !== "true";
      close(btn);
      btn.setAttribute("aria-expanded", open ? "true" : "false");
      if (open) place(btn.parentNode);
      return;
    }
    var link = ev.target.closest && ev.target.closest('a[href^="#nt-where"]');
    if (link) { var where = doc.getElementById("nt-where"); if (where) where.open = true; }
    var sw = ev.target.closest && ev.target.closest(".nt-audit");
    if (sw) {
      var on = sw.getAttribute("aria-pressed") !== "true", s = storage();
      if (s) { try { s.setItem(KEY, on ? "1" : "0"); } catch (e) { /* full or blocked: this page only */ } }
      show(on);
    }
    if (!(ev.target.closest && ev.target.closest(".nt-mark"))) close(null);
  });
  doc.addEventListener("keydown", function (ev) {
    if (ev.key !== "Escape") return;
    var open = doc.querySelector('.nt-mark-btn[aria-expanded="true"]');
    close(null);
    if (open && open.parentNode.contains(doc.activeElement)) open.focus();
  });
  doc.addEventListener("focusin", function (ev) { var m = ev.target.closest && ev.target.closest(".nt-mark"); if (m) place(m); });
  doc.addEventListener("mouseover", function (ev) { var m = ev.target.closest && ev.target.closest(".nt-mark"); if (m) place(m); });

  Array.prototype.forEach.call(doc.querySelectorAll(".nt-audit-row"), function (row) { row.hidden = false; });
  show(audit());
  return { audit: audit, show: show };
});
