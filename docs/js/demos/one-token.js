// Demo: one token, end to end. prompt -> tokens -> ids -> embedding strips -> attention -> MLP
// -> logits -> probabilities -> the pick, all from one m.forward(ids) of the tiny model, folded under the
// same pass played stage by stage (ui.pass-player), which lights the map of the pass as it goes. The player is
// the landing page's largest script, so it loads once the demo has built, off the page's first load.
nexttoken.define("demos.one-token", ["ui", "runtime.kernels", "runtime.active", "runtime.prompts", "runtime.model", "explain.pass", "later:ui.pass-player", "ui.permalink"], function (ui, kernels, active, prompts, model, pass, loadPlayer, permalink) {
  "use strict";

  ui.start("one-token", function (root, live) {
    var t = active.tiny(model);
    var m = t.model;
    var nCtx = m.config.n_ctx;
    var msg = ui.message();
    var out = ui.el("div", { class: "nt-output", "aria-live": "polite" });
    var prompt = ui.textInput("Prompt (lower-case words of the toy world)", prompts.pick(root.getAttribute("data-prompt") || "the cat"), run,
      { hint: "Press Enter to run. At most " + nCtx + " tokens." });
    var append = ui.button("Append the pick and run again", function () {
      if (state.pick === null) return;
      var next = state.text + t.tk.decode([state.pick]);
      prompt.input.value = next;
      run(next);
    }, { primary: true });
    var state = { pick: null, text: "" };
    var slot = ui.el("div", { class: "nt-play-slot" });  // where the player goes once it has loaded
    var played = null, asked = null;  // the player, and the last pass asked of it before it arrived
    function toPlayer(fn) { if (played) fn(played); else asked = fn; }
    // The played pass is the one copy on show; every stage at once, each number open to its arithmetic,
    // waits folded below it (open at once if the player cannot load).
    var all = ui.el("details", { class: "nt-fold nt-pass-all" }, [
      ui.el("summary", { text: "Every stage at once, each number open to its arithmetic" }), out]);
    var answer = ui.el("div", { class: "nt-output nt-one-pick", "aria-live": "polite" });  // the pick, always in view
    live.appendChild(ui.el("div", { class: "nt-controls" }, [prompt.wrap, append]));
    live.appendChild(msg.node);
    live.appendChild(answer);
    live.appendChild(slot);
    live.appendChild(all);
    loadPlayer().then(function (player) {
      played = player.create();
      slot.parentNode.replaceChild(played.node, slot);
      if (asked) asked(played);
    }, function (err) {
      all.open = true;
      msg.show("The pass cannot be played (" + (err && err.message ? err.message : err) + "); the steps below still show it.", "error");
    });

    function run(text) {
      msg.clear();
      state.pick = null;
      state.shown = null;
      var r = prompts.encode(text);
      if (!r.ok) { msg.show(r.message, "error"); ui.clear(out); ui.clear(answer); toPlayer(function (p) { p.empty(); p.node.hidden = true; }); ui.setDisabled(append, "Nothing to append: fix the prompt first."); return; }
      if (r.note) msg.show(r.note, "info");
      var tr = m.forward(r.ids);
      state.text = r.text;
      var spec = { trace: tr, ids: r.ids, tokens: r.tokens, text: r.text, config: m.config, show: t.tk.show,
                   wte: active.data.weights.wte, wpe: active.data.weights.wpe };
      toPlayer(function (p) { p.node.hidden = false; p.load(spec); });
      render(r, tr);
      // Appending needs room in the window and a pick that is not the end of the text.
      ui.setDisabled(append, r.ids.length >= nCtx ? "The window is full (" + nCtx + " tokens): see the context-window page for what happens next."
        : state.pick === t.tk.eotId ? "The pick is end-of-text: in generation, this is where the model stops." : "");
    }

    function render(r, tr) {
      state.shown = { r: r, tr: tr };
      ui.clear(out);
      ui.clear(answer);
      var explain = pass.of({ trace: tr, ids: r.ids, config: m.config, weights: active.data.weights, show: t.tk.show });
      var n = r.ids.length, last = n - 1, L = tr.h.length - 1, h = tr.h[L];
      // 1. tokens and ids
      out.appendChild(ui.section("1. Tokens and ids", [ui.el("div", { class: "nt-tokens" },
        r.tokens.map(function (tok, i) { return ui.chip(tok, r.ids[i]); }))]));
      // 2. embeddings, on one colour scale (they are added); each input cell opens to its sum
      var top = ui.maxAbs(tr.wte.concat(tr.wpe, tr.x));
      var grid = ui.el("div", { class: "nt-vecgrid nt-vecgrid-sum" }, [
        ui.el("span", { class: "nt-vh", text: "token" }), ui.el("span", { class: "nt-vh", text: "token embedding" }),
        ui.el("span", { class: "nt-vh", text: "+ position" }), ui.el("span", { class: "nt-vh", text: "= input" })]);
      for (var i = 0; i < n; i++) {
        grid.appendChild(ui.el("code", { class: "nt-vec-tok", text: r.tokens[i] }));
        grid.appendChild(ui.strip(tr.wte[i], "token embedding of " + r.tokens[i], { top: top }));
        grid.appendChild(ui.strip(tr.wpe[i], "position embedding " + i, { top: top }));
        grid.appendChild(ui.strip(tr.x[i], "input vector at position " + i, { top: top, explain: (function (t) {
          return function (c) { return function () { return explain.residual(L, "x", t, c); }; };
        })(i) }));
      }
      out.appendChild(ui.section("2. Embeddings: one row per token, plus one per position", [ui.legend(top, "colour scale"),
        ui.el("div", { class: "nt-scroll", tabindex: "0", role: "region", "aria-label": "embeddings table (scrolls sideways)" }, [grid])]));
      // 3. attention from the last position, per head; each weight opens to its softmax
      var heads = ui.el("div", { class: "nt-lanes" });
      h.attn_weights.forEach(function (w, hd) {
        var row = w[last];
        heads.appendChild(ui.el("div", { class: "nt-lane" }, [
          ui.el("p", { class: "nt-lane-title", text: "Head " + (hd + 1) + ": where " + r.tokens[last] + " looks" }),
          ui.bars(row.map(function (x, j) {
            return { label: r.tokens[j], value: x, text: ui.numberButton(ui.pct(x), function () { return explain.weight(L, hd, last, j); },
              { label: "head " + (hd + 1) + " weight on " + r.tokens[j] }) };
          }), { label: "attention weights of head " + (hd + 1) })
        ]));
      });
      out.appendChild(ui.section("3. Attention: the last token gathers from the others", [heads]));
      // 4. MLP and the residual stream, on one scale; every cell opens
      var rowsOf = [
        ["after attention", h.resid_mid[last], function (c) { return explain.residual(L, "resid_mid", last, c); }],
        ["MLP adds", h.mlp_out[last], function (c) { return explain.mlp(L, last, c); }],
        ["after the MLP", h.resid_post[last], function (c) { return explain.residual(L, "resid_post", last, c); }],
        ["final LayerNorm", tr.ln_f[last], function (c) { return explain.layerNorm("ln_f", L, last, c); }]];
      var top4 = ui.maxAbs(rowsOf.map(function (p) { return p[1]; }));
      var g2 = ui.el("div", { class: "nt-vecgrid nt-vecgrid-2" });
      rowsOf.forEach(function (p) {
        g2.appendChild(ui.el("span", { text: p[0] }));
        g2.appendChild(ui.strip(p[1], p[0], { top: top4, explain: function (c) { return function () { return p[2](c); }; } }));
      });
      out.appendChild(ui.section("4. MLP and residual stream (last position)", [ui.legend(top4, "colour scale"), g2,
        ui.el("p", { class: "nt-hint", text: "Each cell is a button: it opens the arithmetic that made it." })]));
      // 5. logits (zero-based axis) and 6. probabilities
      var logits = tr.logits[last], probs = tr.probs[last];
      var order = kernels.argsort(probs).slice(0, 8);
      var shownL = order.map(function (id) { return logits[id]; });
      var lo = Math.min(0, Math.min.apply(null, shownL)), hi = Math.max(0, Math.max.apply(null, shownL));
      out.appendChild(ui.section("5. Logits: one raw score per vocabulary entry (top 8 of " + logits.length + ")", [
        ui.bars(order.map(function (id) {
          return { label: t.tk.show(id), value: logits[id], text: ui.numberButton(ui.fix(logits[id], 2), function () {
            return explain.logit(last, id); }, { label: "logit of " + t.tk.show(id) }) };
        }), { label: "logits", axis: { lo: lo, hi: hi }, axisLabel: "logit" })]));
      out.appendChild(ui.section("6. Softmax: probabilities", [
        ui.bars(order.map(function (id) {
          return { label: t.tk.show(id), value: probs[id], data: { token: t.tk.show(id), prob: probs[id] },
            text: ui.numberButton(ui.pct(probs[id]), function () { return explain.prob(id, 1, null, last); },
              { label: "probability of " + t.tk.show(id) }) };
        }), { label: "next-token probabilities" })]));
      // 7. the pick (greedy)
      var pick = order[0];
      state.pick = pick;
      answer.appendChild(ui.section("The pick (greedy: the most probable token)", [
        ui.el("p", { class: "nt-pick" }, ["“" + r.text + "” → ", ui.el("code", { class: "nt-pick-token", text: t.tk.show(pick) }), " (" + ui.pct(probs[pick]) + ")"])]));
    }

    run(prompt.input.value);

    // Its prompt in the page's link; the pass's every probability, and the model's weights, as a download
    // (js/ui/permalink.js).
    permalink.join(root, live, { model: active,
      fields: { prompt: permalink.text(ui.INPUT_MAX) },
      get: function () { return { prompt: prompt.input.value }; },
      set: function (s) { if (s.prompt !== undefined) { prompt.input.value = s.prompt; run(s.prompt); } },
      tables: function () {
        if (!state.shown) throw new Error("the prompt gives no pass to export (fix it first)");
        var tr = state.shown.tr, last = state.shown.r.ids.length - 1, rows = [];
        for (var id = 0; id < tr.probs[last].length; id++) rows.push([id, t.tk.show(id), tr.logits[last][id], tr.probs[last][id]]);
        var got = [{ name: "probabilities", columns: ["id", "token", "logit", "probability"], rows: rows }];
        got.extra = { prompt: state.shown.r.text, ids: state.shown.r.ids,
          model: { which: active.which, config: active.data.config, tokenizer: active.data.tokenizer, weights: active.data.weights } };
        return got;
      } });
  });
});
