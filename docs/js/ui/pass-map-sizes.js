// The map of the pass says the active model's sizes. The build draws it from the built model (the
// picture without JavaScript); every size in it sits in an element with data-size-of="<config field>",
// and every accessible name holding one keeps its template in data-size-label ("{vocab_size} logits ...",
// scripts/site/pass_map.py). js/runtime/active.js publishes the active model's sizes on the store as
// "model.sizes" when the page opens and when the reader's model is saved; this writes them in
// (textContent only), so the built model's numbers return with the built model.
//
//   passSizes.apply({vocab_size: 31, n_ctx: 7, ...})
nexttoken.define("ui.pass-map-sizes", ["store"], function (store) {
  "use strict";

  function size(sizes, field) {
    var n = sizes[field];
    return typeof n === "number" && isFinite(n) ? String(n) : null;
  }

  function apply(sizes) {
    if (!sizes || typeof sizes !== "object") return;
    Array.prototype.forEach.call(document.querySelectorAll("[data-size-of]"), function (el) {
      var n = size(sizes, el.getAttribute("data-size-of"));
      if (n !== null && el.textContent !== n) el.textContent = n;
    });
    Array.prototype.forEach.call(document.querySelectorAll("[data-size-label]"), function (el) {
      var missing = false;
      var label = el.getAttribute("data-size-label").replace(/\{(\w+)\}/g, function (all, field) {
        var n = size(sizes, field);
        if (n === null) missing = true;
        return n;
      });
      if (!missing && el.getAttribute("aria-label") !== label) el.setAttribute("aria-label", label);
    });
  }

  apply(store.get("model.sizes"));
  store.subscribe("model.sizes", apply);
  return { apply: apply };
});
