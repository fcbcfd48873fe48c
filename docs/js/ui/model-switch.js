// The switch under a page's title that puts the reader's trained model into this page's demos: shown
// when there is a saved model (or a problem to report), off on every fresh visit (js/runtime/active.js
// keeps the choice in this page's history entry). Switching reloads the page, so every demo starts again
// on the other model. On, it says that the text still describes the built model. It appears as soon as
// a model is saved (the store's "model.yours"), on the training page too. The demos hook
// (scripts/site/hooks/demos.py) loads this after js/runtime/active.js on every page that loads that.
nexttoken.define("ui.model-switch", ["ui", "store", "runtime.active"], function (ui, store, active) {
  "use strict";
  var host = document.querySelector(".md-content__inner");
  if (!host) return {};
  var box = null;

  function draw() {
    if (!active.yours && !active.problem) return;
    var fresh = ui.el("div", { class: "nt-model-switch", "data-active-model": active.which },
      [active.problem ? ui.el("p", { class: "nt-msg nt-warn", role: "status", text: active.problem }) : null]);
    if (active.yours) {
      var n = active.yours.config.corpus.length;
      var on = ui.checkbox("Use the model you trained (on your " + n + (n === 1 ? " sentence" : " sentences") + ") in this page's demos",
        active.which === "yours", function (v) { active.use(v ? "yours" : "built"); });
      on.input.setAttribute("data-role", "use-yours");
      fresh.appendChild(on.wrap);
      fresh.appendChild(ui.el("p", { class: "nt-small", text: active.which === "yours"
        ? "On for this page: its demos compute with your model; the text and its numbers still describe the built model."
        : "Off: the demos use the built model, the one the text describes. Other pages ask on their own." }));
    }
    if (box) box.parentNode.replaceChild(fresh, box);
    else {
      var title = host.querySelector("h1");  // under the title, so the title stays where every page has it
      host.insertBefore(fresh, title ? title.nextSibling : host.firstChild);
    }
    box = fresh;
  }

  draw();
  store.subscribe("model.yours", draw);
  return {};
});
