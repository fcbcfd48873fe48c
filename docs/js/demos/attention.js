// Demo: attention decides. Two prompts with the same last token; the bars show how much of the
// last position's attention each token receives in one head, and the model's top next tokens.
(function () {
  "use strict";
  var U = window.NTUI;

  U.start("attention", function (root, live) {
    var t = U.tiny();
    var m = t.model;
    if (!m) throw new Error("the model script did not load");
    var head = Number(root.getAttribute("data-head") || 0);
    var lanes = [];
    var wrap = U.el("div", { class: "nt-lanes" });
    var options = [];
    for (var hd = 0; hd < m.config.n_head; hd++) options.push({ value: hd, label: "head " + (hd + 1) });
    var headPick = U.radios("Which head", options, head, function (v) { head = Number(v); lanes.forEach(function (l) { l.run(); }); });

    ["data-prompt-a", "data-prompt-b"].forEach(function (attr, k) {
      var lane = { msg: U.message(), out: U.el("div", { class: "nt-lane-out nt-x-host", "aria-live": "polite" }) };
      lane.prompt = U.textInput("Prompt " + (k === 0 ? "A" : "B"), root.getAttribute(attr) || "", function () { lane.run(); });
      lane.run = function () {
        lane.msg.clear();
        U.clear(lane.out);
        var r = U.encodePrompt(lane.prompt.input.value);
        if (!r.ok) { lane.msg.show(r.message, "error"); return; }
        if (r.note) lane.msg.show(r.note, "info");
        var tr = m.forward(r.ids, { knockout: window.NT.knockoutState || null });
        var last = r.ids.length - 1, X = window.NTX.explain, cfg = m.config, ids = r.ids;
        if (tr.knockout.heads[head]) lane.msg.show("Head " + (head + 1) + " is switched off by the knock-out below: it still computes these weights, but its output is set to zero.", "info");
        var w = tr.h[0].attn_weights[head][last];
        var cols = U.el("div", { class: "nt-attn-cols", role: "list", "aria-label": "attention from the last token, head " + (head + 1) });
        r.tokens.forEach(function (tok, j) {
          var bar = U.el("span", { class: "nt-attn-bar", "aria-hidden": "true" });
          bar.style.setProperty("--w", w[j].toFixed(4));
          cols.appendChild(U.el("span", { class: "nt-attn-col", role: "listitem", "data-token": tok, "data-weight": w[j] }, [
            U.el("span", { class: "nt-attn-track" }, [bar]),
            U.el("code", { text: tok }),
            window.NTX.button(U.pct(w[j]), function () { return X.weight(cfg, tr, ids, 0, head, last, j); }, { cls: "nt-attn-pct", label: "weight on " + tok }),
            window.NTX.button(U.fix(tr.h[0].scores[head][last][j], 2), function () { return X.score(cfg, tr, ids, 0, head, last, j); },
              { cls: "nt-attn-score", label: "score of " + tok })]));
        });
        // What the weights gather: each visible position's value vector, scaled by its weight, summed.
        var V = tr.h[0].v[head], out = tr.h[0].head_out[head][last];
        var top = U.maxAbs(V.concat([out]));
        var mixGrid = U.el("div", { class: "nt-vecgrid nt-vecgrid-3" }, [U.el("span", { class: "nt-vh", text: "token" }),
          U.el("span", { class: "nt-vh", text: "weight" }), U.el("span", { class: "nt-vh", text: "value vector v" })]);
        r.tokens.forEach(function (tok, j) {
          mixGrid.appendChild(U.el("code", { text: tok }));
          mixGrid.appendChild(U.el("span", { class: "nt-num" }, [window.NTX.button(U.pct(w[j]), function () {
            return X.weight(cfg, tr, ids, 0, head, last, j); }, { label: "weight on " + tok })]));
          mixGrid.appendChild(U.strip(V[j], "value vector of " + tok, { top: top }));
        });
        mixGrid.appendChild(U.el("span", { class: "nt-vh", text: "= mix" }));
        mixGrid.appendChild(U.el("span", { class: "nt-num", text: "Σ weight × v" }));
        mixGrid.appendChild(U.strip(out, "the head's output at " + r.tokens[last], { top: top,
          explain: function (d) { return function () { return X.mix(cfg, tr, ids, 0, head, last, d); }; } }));
        lane.out.appendChild(U.el("p", { class: "nt-small", text: "Attention from the last token (" + r.tokens[last] + "), head " + (head + 1) + " (weight, then score):" }));
        lane.out.appendChild(U.el("div", { class: "nt-scroll" }, [cols]));
        lane.out.appendChild(U.el("p", { class: "nt-small", text: "What it gathers: the value vectors, mixed by those weights (open a cell of the mix)." }));
        lane.out.appendChild(U.legend(top, "colour scale"));
        lane.out.appendChild(U.el("div", { class: "nt-scroll" }, [mixGrid]));
        var probs = tr.probs[last];
        var order = U.argsort(probs).slice(0, 3);
        lane.out.appendChild(U.el("p", { class: "nt-small", text: "Most likely next tokens:" }));
        lane.out.appendChild(U.bars(order.map(function (id) {
          return { label: t.tk.show(id), value: probs[id], data: { token: t.tk.show(id), prob: probs[id] },
            text: window.NTX.button(U.pct(probs[id]), function () { return X.prob(cfg, ids, tr.logits[last], id, t.tk.show(id), 1, null, last); },
              { label: "probability of " + t.tk.show(id) }) };
        }), { label: "next-token probabilities" }));
        lane.out.appendChild(U.el("p", { class: "nt-pick" }, ["Answer: ", U.el("code", { class: "nt-pick-token", text: t.tk.show(order[0]) })]));
      };
      lanes.push(lane);
      wrap.appendChild(U.el("div", { class: "nt-lane", "data-lane": k === 0 ? "a" : "b" }, [lane.prompt.wrap, lane.msg.node, lane.out]));
    });
    live.appendChild(U.el("div", { class: "nt-controls" }, [headPick]));
    live.appendChild(wrap);
    lanes.forEach(function (l) { l.run(); });
    document.addEventListener("nt-knockout", function () { lanes.forEach(function (l) { l.run(); }); });
  });
})();
