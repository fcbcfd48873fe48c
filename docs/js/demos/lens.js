// The logit lens: what the model would answer if the residual stream stopped after the
// embeddings, after attention, or after the MLP, each sent through ln_f and the unembedding
// exactly as the real last stage is; a stage-by-position table beside the real answer. Follows
// the knock-outs of knockout.js (the store's "knockout") when both are on a page.
nexttoken.define("demos.lens", ["ui", "runtime.kernels", "store", "runtime.active", "runtime.prompts", "runtime.model", "explain.pass"], function (ui, kernels, store, active, prompts, model, pass) {
  "use strict";
  var NAMES = { embeddings: "after the embeddings", attention: "after attention", mlp: "after the MLP" };

  ui.start("lens", function (root, live) {
    var t = active.tiny(model);
    var m = t.model;
    var msg = ui.message();
    var prompt = ui.textInput("Prompt", prompts.pick(root.getAttribute("data-prompt") || (t.config.prompts || ["the cat sat on the"])[0]), function () { run(); });
    var out = ui.el("div", { class: "nt-lens nt-x-host", "aria-live": "polite" });
    live.appendChild(ui.el("div", { class: "nt-controls" }, [prompt.wrap]));
    live.appendChild(msg.node);
    live.appendChild(out);
    store.subscribe("knockout", function () { run(); });

    // make(id) -> the explanation of the shown probability (js/explain/pass.js)
    function cell(tag, probs, make) {
      var id = kernels.argsort(probs)[0], text = ui.pct(probs[id]);
      var num = ui.numberButton(text, function () { return make(id); }, { cls: "nt-small" });
      return ui.el(tag, { "data-token": t.tk.show(id), "data-prob": probs[id] }, [ui.el("code", { text: t.tk.show(id) }), " ", num]);
    }

    function run() {
      var t0 = performance.now();
      msg.clear();
      ui.clear(out);
      var r = prompts.encode(prompt.input.value);
      if (!r.ok) { msg.show(r.message, "error"); return; }
      if (r.note) msg.show(r.note, "info");
      var ko = store.get("knockout") || null;
      var res = m.lens(r.ids, ko ? { knockout: ko } : undefined);
      var off = ko && (ko.mlp || ko.heads.length);
      var table = ui.el("table", { class: "nt-lens-table" });
      table.appendChild(ui.el("caption", { text: "Top next token at each position if the pass stopped at each stage" +
        (off ? " (with the knock-outs chosen above)" : "") }));
      var head = ui.el("tr", {}, [ui.el("th", { scope: "col", text: "stage" })]);
      r.tokens.forEach(function (tok, i) { head.appendChild(ui.el("th", { scope: "col", text: "after " + tok + " (" + i + ")" })); });
      table.appendChild(ui.el("thead", {}, [head]));
      var body = ui.el("tbody");
      var nl = m.config.n_layer;
      var explain = pass.of({ trace: res.trace, ids: r.ids, config: m.config, weights: active.data.weights, show: t.tk.show });
      res.stages.forEach(function (st) {
        var name = NAMES[st.name] + (nl > 1 && st.layer !== null ? " (block " + (st.layer + 1) + ")" : "");
        var tr = ui.el("tr", { "data-stage": st.name }, [ui.el("th", { scope: "row", text: name })]);
        // the stage's residual rows in the trace
        var key = st.layer === null ? "x" : st.name === "attention" ? "resid_mid" : "resid_post";
        st.probs.forEach(function (p, i) {
          tr.appendChild(cell("td", p, function (id) { return explain.lens(st.layer, key, i, id); }));
        });
        body.appendChild(tr);
      });
      var real = ui.el("tr", { "data-stage": "answer", class: "nt-lens-answer" }, [ui.el("th", { scope: "row", text: "the model's answer" })]);
      res.probs.forEach(function (p, i) {
        real.appendChild(cell("td", p, function (id) { return explain.prob(id, 1, null, i); }));
      });
      body.appendChild(real);
      table.appendChild(body);
      out.appendChild(ui.el("div", { class: "nt-table-wrap" }, [table]));
      out.appendChild(ui.el("p", { class: "nt-small", text: "The last stage is the real pass: with " + nl + " block" + (nl > 1 ? "s" : "") +
        ", stopping after the last MLP is not stopping at all, so its row equals the answer." }));
      root.setAttribute("data-ms", (performance.now() - t0).toFixed(2));
    }
    run();
  });
});
