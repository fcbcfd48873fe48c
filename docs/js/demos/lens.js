// The logit lens: what the model would answer if the residual stream stopped after the
// embeddings, after attention, or after the MLP, each sent through ln_f and the unembedding
// exactly as the real last stage is; a stage-by-position table whose last row, after the last MLP,
// is the real answer. Follows the knock-outs of knockout.js (the store's "knockout") when both are on
// a page.
nexttoken.define("demos.lens", ["ui", "runtime.kernels", "store", "runtime.active", "runtime.prompts", "runtime.model", "explain.pass", "ui.permalink"], function (ui, kernels, store, active, prompts, model, pass, permalink) {
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
      shown = null;
      var r = prompts.encode(prompt.input.value);
      if (!r.ok) { msg.show(r.message, "error"); return; }
      if (r.note) msg.show(r.note, "info");
      var ko = store.get("knockout") || null;
      var res = m.lens(r.ids, ko ? { knockout: ko } : undefined);
      shown = { r: r, res: res };
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
      res.stages.forEach(function (st, k) {
        var final = k === res.stages.length - 1;  // after the last MLP: the pass itself, not a stop
        var name = NAMES[st.name] + (nl > 1 && st.layer !== null ? " (block " + (st.layer + 1) + ")" : "") + (final ? ": the model's answer" : "");
        var tr = ui.el("tr", { "data-stage": st.name, class: final ? "nt-lens-answer" : null }, [ui.el("th", { scope: "row", text: name })]);
        // the stage's residual rows in the trace
        var key = st.layer === null ? "x" : st.name === "attention" ? "resid_mid" : "resid_post";
        st.probs.forEach(function (p, i) {
          tr.appendChild(cell("td", p, function (id) { return explain.lens(st.layer, key, i, id); }));
        });
        body.appendChild(tr);
      });
      table.appendChild(body);
      out.appendChild(ui.el("div", { class: "nt-table-wrap" }, [table]));
      // the first row mostly names each position's own token: say how often, and why
      var first = res.stages[0].probs, own = 0;
      first.forEach(function (p, i) { if (kernels.argsort(p)[0] === r.ids[i]) own += 1; });
      out.appendChild(ui.el("p", { class: "nt-small", "data-own": own }, [
        "After the embeddings, " + own + " of the " + first.length + " positions “predict” their own token. The stream there is still just the token's row " +
        "plus its position's, and the unembedding compares it with that same table (the embeddings are tied), so the row most like it is " +
        (own * 2 > first.length ? "usually" : "often") + " the token's own: a copy, not a guess. Attention and the MLP are what move each position on to its next token."]));
      out.appendChild(ui.el("p", { class: "nt-small", text: "The last row is the real pass: with " + nl + " block" + (nl > 1 ? "s" : "") +
        ", stopping after the last MLP is not stopping at all." }));
      root.setAttribute("data-ms", (performance.now() - t0).toFixed(2));
    }
    var shown = null;  // the table on show, for the download
    run();

    // Its prompt in the page's link; the lens table (every stage, position and top token) as a download (js/ui/permalink.js).
    permalink.join(root, live, { model: active,
      fields: { prompt: permalink.text(ui.INPUT_MAX) },
      get: function () { return { prompt: prompt.input.value }; },
      set: function (s) { if (s.prompt !== undefined) { prompt.input.value = s.prompt; run(); } },
      tables: function () {
        if (!shown) throw new Error("the prompt gives no lens table to export (fix it first)");
        var rows = [];
        shown.res.stages.forEach(function (st) {
          st.probs.forEach(function (p, i) {
            var id = kernels.argsort(p)[0];
            rows.push([st.name, st.layer === null ? "" : st.layer + 1, i, shown.r.tokens[i], id, t.tk.show(id), p[id]]);
          });
        });
        return [{ name: "lens", columns: ["stage", "block", "position", "token_at_position", "top_id", "top_token", "top_probability"], rows: rows }];
      } });
  });
});
