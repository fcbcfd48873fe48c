// The bar under a page's title that says which tiny model the demos use and switches it (the page
// reloads, so every demo starts again with the other model): only where there is a choice (a saved
// model) or a problem to report. js/runtime/active.js holds the choice; the demos hook
// (scripts/site/hooks/demos.py) loads this after it on every page that loads it.
nexttoken.define("ui.model-switch", ["ui", "runtime.active"], function (ui, active) {
  "use strict";
  var host = document.querySelector(".md-content__inner");
  if (!host || (!active.yours && !active.problem)) return {};
  var box = ui.el("div", { class: "nt-model-switch", "data-active-model": active.which },
    [active.problem ? ui.el("p", { class: "nt-msg nt-warn", role: "status", text: active.problem }) : null]);
  if (active.yours) {
    box.appendChild(ui.radios("The tiny model's demos, on every page with one, use", [
      { value: "built", label: "the built model (trained by the build, described in the text)" },
      { value: "yours", label: "your model (trained in this browser on your " + active.yours.config.corpus.length + " sentences)" }], active.which, active.use));
    if (active.which === "yours") box.appendChild(ui.el("p", { class: "nt-small", text: "Your model is active: the demos' numbers are your model's; the numbers in the text are the built model's." }));
  }
  var title = host.querySelector("h1");  // under the title, so the title stays where every page has it
  host.insertBefore(box, title ? title.nextSibling : host.firstChild);
  return {};
});
