// Demo 1: one token, end to end. prompt -> tokens -> ids -> embedding strips -> attention -> MLP
// -> logits -> probabilities -> the pick, all from one m.forward(ids) of the tiny model.
(function () {
  "use strict";
  var U = window.NTUI;

  U.start("one-token", function (root, live) {
    var t = U.tiny();
    var m = t.model;
    if (!m) throw new Error("the model script did not load");
    var nCtx = m.config.n_ctx;
    var msg = U.message();
    var out = U.el("div", { class: "nt-output", "aria-live": "polite" });
    var prompt = U.textInput("Prompt (lower-case words of the toy world)", root.getAttribute("data-prompt") || "the cat", run,
      { hint: "Press Enter to run. At most " + nCtx + " tokens." });
    var append = U.button("Append the pick and run again", function () {
      if (!state.pick) return;
      var next = state.text + t.tk.decode([state.pick]);
      if (state.pick === t.tk.eotId) { msg.show("The model picked end-of-text: in generation, this is where it stops.", "info"); return; }
      prompt.input.value = next;
      run(next);
    }, { primary: true });
    var state = { pick: null, text: "" };
    live.appendChild(U.el("div", { class: "nt-controls" }, [prompt.wrap, append]));
    live.appendChild(msg.node);
    live.appendChild(out);

    function run(text) {
      msg.clear();
      state.pick = null;
      var r = U.encodePrompt(text);
      if (!r.ok) { msg.show(r.message, "error"); append.disabled = true; return; }
      if (r.note) msg.show(r.note, "info");
      var tr = m.forward(r.ids);
      state.text = r.text;
      render(r, tr);
      append.disabled = r.ids.length >= nCtx;
      if (r.ids.length >= nCtx) msg.show("The window is full (" + nCtx + " tokens): see the context-window page for what happens next.", "info");
    }

    function render(r, tr) {
      U.clear(out);
      var n = r.ids.length, last = n - 1, h = tr.h[tr.h.length - 1];
      // 1. tokens and ids
      out.appendChild(U.section("1. Tokens and ids", [U.el("div", { class: "nt-tokens" },
        r.tokens.map(function (tok, i) { return U.chip(tok, r.ids[i]); }))]));
      // 2. embeddings
      var grid = U.el("div", { class: "nt-vecgrid" }, [
        U.el("span", { class: "nt-vh", text: "token" }), U.el("span", { class: "nt-vh", text: "token embedding" }),
        U.el("span", { class: "nt-vh", text: "+ position" }), U.el("span", { class: "nt-vh", text: "= input" })]);
      for (var i = 0; i < n; i++) {
        grid.appendChild(U.el("code", { text: r.tokens[i] }));
        grid.appendChild(U.strip(tr.wte[i], "token embedding of " + r.tokens[i]));
        grid.appendChild(U.strip(tr.wpe[i], "position embedding " + i));
        grid.appendChild(U.strip(tr.x[i], "input vector at position " + i));
      }
      out.appendChild(U.section("2. Embeddings: one row per token, plus one per position", [grid]));
      // 3. attention from the last position, per head
      var heads = U.el("div", { class: "nt-lanes" });
      h.attn_weights.forEach(function (w, hd) {
        var row = w[last];
        heads.appendChild(U.el("div", { class: "nt-lane" }, [
          U.el("p", { class: "nt-lane-title", text: "Head " + (hd + 1) + ": where " + r.tokens[last] + " looks" }),
          U.bars(row.map(function (x, j) { return { label: r.tokens[j], value: x, text: U.pct(x) }; }),
            { label: "attention weights of head " + (hd + 1) })
        ]));
      });
      out.appendChild(U.section("3. Attention: the last token gathers from the others", [heads]));
      // 4. MLP and the residual stream
      var g2 = U.el("div", { class: "nt-vecgrid nt-vecgrid-2" });
      [["after attention", h.resid_mid[last]], ["MLP adds", h.mlp_out[last]], ["after the MLP", h.resid_post[last]], ["final LayerNorm", tr.ln_f[last]]]
        .forEach(function (p) { g2.appendChild(U.el("span", { text: p[0] })); g2.appendChild(U.strip(p[1], p[0])); });
      out.appendChild(U.section("4. MLP and residual stream (last position)", [g2]));
      // 5. logits and 6. probabilities
      var logits = tr.logits[last], probs = tr.probs[last];
      var order = U.argsort(probs).slice(0, 8);
      var lo = Math.min.apply(null, logits), hi = Math.max.apply(null, logits);
      out.appendChild(U.section("5. Logits: one raw score per vocabulary entry (top 8 of " + logits.length + ")", [
        U.bars(order.map(function (id) {
          return { label: t.tk.show(id), value: (logits[id] - lo) / ((hi - lo) || 1), text: U.fix(logits[id], 2) };
        }), { label: "logits" })]));
      out.appendChild(U.section("6. Softmax: probabilities", [
        U.bars(order.map(function (id) {
          return { label: t.tk.show(id), value: probs[id], text: U.pct(probs[id]), data: { token: t.tk.show(id), prob: probs[id] } };
        }), { label: "next-token probabilities" })]));
      // 7. the pick (greedy)
      var pick = order[0];
      state.pick = pick;
      out.appendChild(U.section("7. The pick (greedy: the most probable token)", [
        U.el("p", { class: "nt-pick" }, ["“" + r.text + "” → ", U.el("code", { class: "nt-pick-token", text: t.tk.show(pick) }), " (" + U.pct(probs[pick]) + ")"])]));
    }

    run(prompt.input.value);
  });
})();
