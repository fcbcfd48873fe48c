// The map of the pass follows the reader: the parts a demo shows are lit (class nt-map-on) in every
// drawing of the pass on the page while that demo is on screen. A drawn part carries
// data-pass-part="<key> <groups...>" (scripts/site/pass_map.py); a demo container carries
// data-pass-parts="<words>" (written by the pass map hook from what each demo shows, or by the page), and a
// part is lit when its words and the container's share one. The page loads this script wherever it has a
// demo, so a demo needs nothing to be followed; a demo that plays the pass (one-token) says which stage is
// playing with show(owner, words), which wins over scrolling until clear(owner).
// A demo that runs in stages can also light as it goes without naming this module: set its container's
// data-pass-parts to the words of the stage running (it is read afresh, and a change is followed at once),
// or send the event  document.dispatchEvent(new CustomEvent("nt:pass-light", {detail: {owner: "ask",
// parts: "block"}}))  and {owner: "ask", parts: ""} to give the map back to scrolling.
// A page with demos of two models has a map of each (scripts/site/hooks/pass_map.py): the one shown, beside
// the text and in the phone's strip, is the map of the model of the demo on screen (its container's
// data-pass-model), so the map never names one model beside another's demo. Switching is quiet: no live
// region, nothing said to a screen reader while scrolling.
//
//   passMap.show("play", "embed")   passMap.clear("play")
nexttoken.define("ui.pass-map", [], function () {
  "use strict";
  var said = null, saidBy = null;  // a demo's own choice (playing), over what is on screen
  var seen = [];                    // {root, visible px}; the words are the root's data-pass-parts, read when lit
  var litNow = "";

  function wordsOf(text) { return String(text || "").split(/\s+/).filter(Boolean); }

  // The demo most on screen: its words and its model.
  function best() {
    var top = null;
    seen.forEach(function (s) { if (s.visible > 0 && (!top || s.visible > top.visible)) top = s; });
    return top && top.root;
  }

  function onScreen() {
    var root = best();
    return root ? wordsOf(root.getAttribute("data-pass-parts")) : [];
  }

  // With no demo on screen, the next one down the page (the one the reader is about to meet), else the last.
  function nearest() {
    var next = null, last = null;
    seen.forEach(function (s) {
      var r = s.root.getBoundingClientRect();
      if (r.top >= 0 && (!next || r.top < next.r.top)) next = { root: s.root, r: r };
      if (r.top < 0 && (!last || r.top > last.r.top)) last = { root: s.root, r: r };
    });
    return (next || last || {}).root;
  }

  // Only the map of the model of the demo on screen shows, and only its parts are lit.
  var first = document.querySelector(".nt-map-side[data-model]:not([hidden]), .nt-map-phone[data-model]:not([hidden])");
  var modelNow = first ? first.getAttribute("data-model") : "";
  function showModel() {
    var root = best() || nearest(), model = root && root.getAttribute("data-pass-model");
    if (!model || model === modelNow) return;
    // (a phone's strip the reader has opened stays as it is)
    var open = document.querySelector("details.nt-map-phone[open]:not([hidden])");
    var maps = document.querySelectorAll(open ? ".nt-map-side[data-model]" : ".nt-map-side[data-model], .nt-map-phone[data-model]");
    if (!Array.prototype.some.call(maps, function (m) { return m.getAttribute("data-model") === model; })) return;
    modelNow = model;
    Array.prototype.forEach.call(maps, function (m) { m.hidden = m.getAttribute("data-model") !== model; });
  }

  function apply() {
    showModel();
    var words = said !== null ? said : onScreen();
    var key = modelNow + ":" + words.join(" ");
    if (key === litNow) return;
    litNow = key;
    var want = {};
    words.forEach(function (w) { want[w] = true; });
    var parts = document.querySelectorAll("[data-pass-part]");
    for (var i = 0; i < parts.length; i++) {
      var mine = wordsOf(parts[i].getAttribute("data-pass-part")), map = parts[i].closest(".nt-map-side, .nt-map-phone");
      parts[i].classList.toggle("nt-map-on", (!map || map.getAttribute("data-model") === modelNow) &&
        mine.some(function (w) { return want[w]; }));
    }
  }

  function show(owner, words) {
    said = wordsOf(words);
    saidBy = owner;
    apply();
  }

  function clear(owner) {
    if (saidBy !== owner) return;
    said = saidBy = null;
    apply();
  }

  // Enough thresholds that a demo taller than the screen still reports how much of it shows.
  var steps = [];
  for (var t = 0; t <= 20; t++) steps.push(t / 20);
  var observer = typeof IntersectionObserver === "function" ? new IntersectionObserver(function (entries) {
    entries.forEach(function (e) {
      seen.forEach(function (s) { if (s.root === e.target) s.visible = e.isIntersecting ? e.intersectionRect.height : 0; });
    });
    apply();
  }, { threshold: steps }) : null;

  function watch(root) {
    if (!observer || seen.some(function (s) { return s.root === root; })) return;
    seen.push({ root: root, visible: 0 });
    observer.observe(root);
  }

  Array.prototype.forEach.call(document.querySelectorAll("[data-pass-parts]"), watch);
  // a demo that changes what it shows (or a container given its words later) is followed at once
  if (typeof MutationObserver === "function") {
    new MutationObserver(function (changes) {
      changes.forEach(function (c) { if (c.target.hasAttribute("data-pass-parts")) watch(c.target); });
      apply();
    }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ["data-pass-parts"] });
  }
  document.addEventListener("nt:pass-light", function (e) {
    var d = e.detail || {}, owner = String(d.owner || "event");
    if (d.parts) show(owner, d.parts); else clear(owner);
  });

  return { show: show, clear: clear };
});
