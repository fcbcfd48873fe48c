// One SmolLM2 for a whole page that has no "Ask the real model" panel (the experiments page and its
// embeds): every demo gets a Load button, and whichever the reader presses loads the model once for
// all of them. The session goes to the store's "real.loaded" ({session, tokenizer, config, model,
// name}, the shape of the panel's "real.model"), which the page's demos follow.
//
// realLoad.control(root) -> {node, ready()}: the button, a progress bar and one status line, for a
//   demo's container (its data-models: the copies the build found, as real-ask's); the status says
//   what loading reads and, once loaded, that the model runs in this page.
// realLoad.open(copies) -> Promise<model>: loads once (a second call waits for the first).
// realLoad.tokenizer() -> Promise<tokenizer>: SmolLM2's tokenizer alone (1 MB, no weights), for what
//   needs only tokens.
nexttoken.define("ui.real-load", ["ui", "store", "later:real.workers", "later:real.tokenizer", "later:data.smollm2-tokenizer"],
  function (ui, store, loadWorkers, loadTokenizer, loadTokenizerData) {
  "use strict";
  var NAME = "SmolLM2-135M-Instruct";
  // The model's files lie beside this script's folder (js/data/real/), wherever the page is: the site's
  // root or embed/.
  var here = typeof document !== "undefined" && document.currentScript ? document.currentScript.src : "";
  var BASE = here ? here.replace(/ui\/real-load\.js(\?.*)?$/, "data/real/") : "js/data/real/";
  var loading = null, tokenizing = null, progress = { done: 0, total: 0 }, listeners = [];

  function mb(bytes) { return (bytes / 1e6).toFixed(1) + " MB"; }
  function tell() { listeners.forEach(function (fn) { fn(); }); }

  function tokenizer() {
    if (!tokenizing) {
      tokenizing = Promise.all([loadTokenizer(), loadTokenizerData()]).then(function (got) { return got[0].create(got[1]); },
        function (err) { tokenizing = null; throw new Error("SmolLM2's tokenizer could not be loaded (" + (err.message || err) + ")"); });
    }
    return tokenizing;
  }

  function open(base) {
    var have = store.get("real.loaded");
    if (have) return Promise.resolve(have);
    if (!loading) {
      loading = Promise.all([loadWorkers(), tokenizer()]).then(function (got) {
        return got[0].open({ base: base || BASE, model: "smollm2",
          onProgress: function (done, total) { progress = { done: done, total: total }; tell(); } })
          .then(function (session) {
            var model = { session: session, tokenizer: got[1], config: session.config, model: "smollm2", name: NAME };
            store.set("real.loaded", model);
            return model;
          });
      }).then(function (model) { tell(); return model; }, function (err) { loading = null; tell(); throw err; });
      tell();
    }
    return loading;
  }

  function control(root) {
    var copies;
    try { copies = JSON.parse(root.getAttribute("data-models") || "{}"); } catch (e) { copies = {}; }
    var copy = copies.smollm2;
    var button = ui.button("", function () {
      open(root.getAttribute("data-base")).then(null, function (err) { msg.show((err.message || String(err)) + ".", "error"); });
    }, { primary: true });
    button.setAttribute("data-role", "lab-load");
    var bar = ui.el("progress", { class: "nt-ask-progress", max: "1", value: "0", hidden: true, "aria-label": "Loading the model" });
    var line = ui.el("span", { class: "nt-hint", "data-role": "lab-load-status", "aria-live": "polite" });
    var msg = ui.message();
    var node = ui.el("div", { class: "nt-lab-load" }, [ui.el("div", { class: "nt-controls" }, [button, bar, line]), msg.node]);
    function draw() {
      var model = store.get("real.loaded");
      if (!copy) {
        button.textContent = "The model is not in this copy of the site";
        button.disabled = true;
        line.textContent = "Built without its files (make site MODEL=none): the stored numbers below are all there is.";
        return;
      }
      if (model) {
        node.hidden = true;
        return;
      }
      bar.hidden = !loading;
      button.disabled = !!loading;
      if (loading) {
        button.textContent = "Loading " + NAME + "…";
        bar.max = progress.total || 1;
        bar.value = progress.done;
        bar.setAttribute("aria-valuetext", mb(progress.done) + " of " + mb(progress.total || copy.weights) + " of weights");
        line.textContent = mb(progress.done) + " of " + mb(progress.total || copy.weights) + " read and checked.";
      } else {
        button.textContent = "Load " + NAME + " (" + mb(copy.weights) + ")";
        line.textContent = "It reads " + mb(copy.bytes) + " from this copy of the site, runs in this page and sends nothing anywhere.";
      }
    }
    listeners.push(draw);
    store.subscribe("real.loaded", draw);
    draw();
    return { node: node, ready: function () { return !!store.get("real.loaded"); }, available: !!copy };
  }

  return { control: control, open: open, tokenizer: tokenizer };
});
