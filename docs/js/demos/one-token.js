// Demo: one token, end to end. prompt -> tokens -> ids -> embedding strips -> attention -> MLP
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
      if (state.pick === null) return;
      var next = state.text + t.tk.decode([state.pick]);
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
      if (!r.ok) { msg.show(r.message, "error"); U.clear(out); U.setDisabled(append, "Nothing to append: fix the prompt first."); return; }
      if (r.note) msg.show(r.note, "info");
      var tr = m.forward(r.ids);
      state.text = r.text;
      render(r, tr);
      // Appending needs room in the window and a pick that is not the end of the text.
      U.setDisabled(append, r.ids.length >= nCtx ? "The window is full (" + nCtx + " tokens): see the context-window page for what happens next."
        : state.pick === t.tk.eotId ? "The pick is end-of-text: in generation, this is where the model stops." : "");
    }

    function render(r, tr) {
      U.clear(out);
      var X = window.NTX.explain, cfg = m.config, W = window.NTData.tiny.weights, ids = r.ids;
      var n = r.ids.length, last = n - 1, L = tr.h.length - 1, h = tr.h[L], Wb = W.h[L];
      // 1. tokens and ids
      out.appendChild(U.section("1. Tokens and ids", [U.el("div", { class: "nt-tokens" },
        r.tokens.map(function (tok, i) { return U.chip(tok, r.ids[i]); }))]));
      // 2. embeddings, on one colour scale (they are added); each input cell opens to its sum
      var top = U.maxAbs(tr.wte.concat(tr.wpe, tr.x));
      var grid = U.el("div", { class: "nt-vecgrid" }, [
        U.el("span", { class: "nt-vh", text: "token" }), U.el("span", { class: "nt-vh", text: "token embedding" }),
        U.el("span", { class: "nt-vh", text: "+ position" }), U.el("span", { class: "nt-vh", text: "= input" })]);
      for (var i = 0; i < n; i++) {
        grid.appendChild(U.el("code", { class: "nt-vec-tok", text: r.tokens[i] }));
        grid.appendChild(U.strip(tr.wte[i], "token embedding of " + r.tokens[i], { top: top }));
        grid.appendChild(U.strip(tr.wpe[i], "position embedding " + i, { top: top }));
        grid.appendChild(U.strip(tr.x[i], "input vector at position " + i, { top: top, explain: (function (t) {
          return function (c) { return function () { return X.residual(cfg, ids, [["wte", tr.wte[t]], ["wpe", tr.wpe[t]]], c, tr.x[t][c], "Input at position " + t, "tr[\"x\"][" + t + "]"); }; };
        })(i) }));
      }
      out.appendChild(U.section("2. Embeddings: one row per token, plus one per position", [U.legend(top, "colour scale"),
        U.el("div", { class: "nt-scroll", tabindex: "0", role: "region", "aria-label": "embeddings table (scrolls sideways)" }, [grid])]));
      // 3. attention from the last position, per head; each weight opens to its softmax
      var heads = U.el("div", { class: "nt-lanes" });
      h.attn_weights.forEach(function (w, hd) {
        var row = w[last];
        heads.appendChild(U.el("div", { class: "nt-lane" }, [
          U.el("p", { class: "nt-lane-title", text: "Head " + (hd + 1) + ": where " + r.tokens[last] + " looks" }),
          U.bars(row.map(function (x, j) {
            return { label: r.tokens[j], value: x, text: window.NTX.button(U.pct(x), function () { return X.weight(cfg, tr, ids, L, hd, last, j); },
              { label: "head " + (hd + 1) + " weight on " + r.tokens[j] }) };
          }), { label: "attention weights of head " + (hd + 1) })
        ]));
      });
      out.appendChild(U.section("3. Attention: the last token gathers from the others", [heads]));
      // 4. MLP and the residual stream, on one scale; every cell opens
      var rowsOf = [
        ["after attention", h.resid_mid[last], function (c) { return X.residual(cfg, ids, [["input", tr.x[last]], ["attention", h.attn_out[last]]], c, h.resid_mid[last][c], "After attention", "tr[\"h\"][" + L + "][\"resid_mid\"][" + last + "]"); }],
        ["MLP adds", h.mlp_out[last], function (c) { return X.mlp(cfg, tr, W, ids, L, last, c); }],
        ["after the MLP", h.resid_post[last], function (c) { return X.residual(cfg, ids, [["after attention", h.resid_mid[last]], ["MLP", h.mlp_out[last]]], c, h.resid_post[last][c], "After the MLP", "tr[\"h\"][" + L + "][\"resid_post\"][" + last + "]"); }],
        ["final LayerNorm", tr.ln_f[last], function (c) { return X.layerNorm(cfg, ids, h.resid_post[last], W.ln_f.weight, W.ln_f.bias, c, tr.ln_f[last][c], "Final LayerNorm (ln_f)", "tr[\"ln_f\"][" + last + "]"); }]];
      var top4 = U.maxAbs(rowsOf.map(function (p) { return p[1]; }));
      var g2 = U.el("div", { class: "nt-vecgrid nt-vecgrid-2" });
      rowsOf.forEach(function (p) {
        g2.appendChild(U.el("span", { text: p[0] }));
        g2.appendChild(U.strip(p[1], p[0], { top: top4, explain: function (c) { return function () { return p[2](c); }; } }));
      });
      out.appendChild(U.section("4. MLP and residual stream (last position)", [U.legend(top4, "colour scale"), g2,
        U.el("p", { class: "nt-hint", text: "Each cell is a button: it opens the arithmetic that made it." })]));
      // 5. logits (zero-based axis) and 6. probabilities
      var logits = tr.logits[last], probs = tr.probs[last];
      var order = U.argsort(probs).slice(0, 8);
      var shownL = order.map(function (id) { return logits[id]; });
      var lo = Math.min(0, Math.min.apply(null, shownL)), hi = Math.max(0, Math.max.apply(null, shownL));
      out.appendChild(U.section("5. Logits: one raw score per vocabulary entry (top 8 of " + logits.length + ")", [
        U.bars(order.map(function (id) {
          return { label: t.tk.show(id), value: logits[id], text: window.NTX.button(U.fix(logits[id], 2), function () {
            return X.logit(cfg, tr, ids, W, last, id, t.tk.show(id)); }, { label: "logit of " + t.tk.show(id) }) };
        }), { label: "logits", axis: { lo: lo, hi: hi }, axisLabel: "logit" })]));
      out.appendChild(U.section("6. Softmax: probabilities", [
        U.bars(order.map(function (id) {
          return { label: t.tk.show(id), value: probs[id], data: { token: t.tk.show(id), prob: probs[id] },
            text: window.NTX.button(U.pct(probs[id]), function () { return X.prob(cfg, ids, logits, id, t.tk.show(id), 1, null, last); },
              { label: "probability of " + t.tk.show(id) }) };
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
