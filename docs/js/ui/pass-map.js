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
// On a phone the map is folded into a bar that stays under the theme's header; its line names the lit
// parts ("here: LayerNorm, heads 1–2, ...") while anything is lit, and what the page covers otherwise. It
// is not a live region: scrolling past demos says nothing to a screen reader until the bar is focused.
//
//   passMap.show("play", "embed")   passMap.clear("play")
nexttoken.define("ui.pass-map", [], function () {
  "use strict";
  var said = null, saidBy = null;  // a demo's own choice (playing), over what is on screen
  var seen = [];                    // {root, visible px}; the words are the root's data-pass-parts, read when lit
  var litNow = "";

  function wordsOf(text) { return String(text || "").split(/\s+/).filter(Boolean); }

  function onScreen() {
    var best = null;
    seen.forEach(function (s) { if (s.visible > 0 && (!best || s.visible > best.visible)) best = s; });
    return best ? wordsOf(best.root.getAttribute("data-pass-parts")) : [];
  }

  // The lit parts' names, as the folded map's line says them: once each, a run of heads as one, and
  // "every part" or "the block" where all of them are lit.
  function litNames(map) {
    var all = map.querySelectorAll("a[data-pass-part]"), on = map.querySelectorAll("a.nt-map-on[data-pass-part]");
    if (!on.length) return "";
    if (on.length === all.length) return "every part";
    var inBlock = function (a) { return wordsOf(a.getAttribute("data-pass-part")).indexOf("block") >= 0; };
    var block = Array.prototype.filter.call(all, inBlock), blockOn = Array.prototype.filter.call(on, inBlock);
    var names = [], heads = [];
    var wholeBlock = block.length > 0 && blockOn.length === block.length;
    Array.prototype.forEach.call(on, function (a) {
      if (wholeBlock && inBlock(a)) { if (names.indexOf("the block") < 0) names.push("the block"); return; }
      var name = a.querySelector(".nt-map-name").textContent;
      if (/^head \d+$/.test(name)) {
        if (!heads.length) names.push("");  // the heads' place in the list, named once all are counted
        heads.push(name.slice(5));
        return;
      }
      if (names.indexOf(name) < 0) names.push(name);
    });
    var together = heads.length > 1 ? "heads " + heads[0] + "–" + heads[heads.length - 1] : "head " + heads[0];
    return names.map(function (n) { return n === "" ? together : n; }).join(", ");
  }

  function say() {
    Array.prototype.forEach.call(document.querySelectorAll(".nt-map-phone"), function (bar) {
      var now = bar.querySelector(".nt-map-phone-now"), names = litNames(bar);
      if (!now) return;
      now.textContent = names ? "here: " + names : "";
      now.hidden = !names;
      bar.querySelector(".nt-map-phone-here").hidden = !!names;
    });
  }

  function apply() {
    var words = said !== null ? said : onScreen();
    var key = words.join(" ");
    if (key === litNow) return;
    litNow = key;
    var want = {};
    words.forEach(function (w) { want[w] = true; });
    var parts = document.querySelectorAll("[data-pass-part]");
    for (var i = 0; i < parts.length; i++) {
      var mine = wordsOf(parts[i].getAttribute("data-pass-part"));
      parts[i].classList.toggle("nt-map-on", mine.some(function (w) { return want[w]; }));
    }
    say();
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
