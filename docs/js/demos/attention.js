// Demo 2: attention decides. Two prompts with the same last token; the bars show how much of the
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
      var lane = { msg: U.message(), out: U.el("div", { class: "nt-lane-out", "aria-live": "polite" }) };
      lane.prompt = U.textInput("Prompt " + (k === 0 ? "A" : "B"), root.getAttribute(attr) || "", function () { lane.run(); });
      lane.run = function () {
        lane.msg.clear();
        U.clear(lane.out);
        var r = U.encodePrompt(lane.prompt.input.value);
        if (!r.ok) { lane.msg.show(r.message, "error"); return; }
        if (r.note) lane.msg.show(r.note, "info");
        var tr = m.forward(r.ids);
        var last = r.ids.length - 1;
        var w = tr.h[0].attn_weights[head][last];
        var cols = U.el("div", { class: "nt-attn-cols", role: "list", "aria-label": "attention from the last token, head " + (head + 1) });
        r.tokens.forEach(function (tok, j) {
          var bar = U.el("span", { class: "nt-attn-bar", "aria-hidden": "true" });
          bar.style.setProperty("--w", w[j].toFixed(4));
          cols.appendChild(U.el("span", { class: "nt-attn-col", role: "listitem", "data-token": tok, "data-weight": w[j] }, [
            U.el("span", { class: "nt-attn-track" }, [bar]),
            U.el("code", { text: tok }), U.el("span", { class: "nt-attn-pct", text: U.pct(w[j]) })]));
        });
        var probs = tr.probs[last];
        var order = U.argsort(probs).slice(0, 3);
        lane.out.appendChild(U.el("p", { class: "nt-small", text: "Attention from the last token (" + r.tokens[last] + "), head " + (head + 1) + ":" }));
        lane.out.appendChild(cols);
        lane.out.appendChild(U.el("p", { class: "nt-small", text: "Most likely next tokens:" }));
        lane.out.appendChild(U.bars(order.map(function (id) {
          return { label: t.tk.show(id), value: probs[id], text: U.pct(probs[id]), data: { token: t.tk.show(id), prob: probs[id] } };
        }), { label: "next-token probabilities" }));
        lane.out.appendChild(U.el("p", { class: "nt-pick" }, ["Answer: ", U.el("code", { class: "nt-pick-token", text: t.tk.show(order[0]) })]));
      };
      lanes.push(lane);
      wrap.appendChild(U.el("div", { class: "nt-lane", "data-lane": k === 0 ? "a" : "b" }, [lane.prompt.wrap, lane.msg.node, lane.out]));
    });
    live.appendChild(U.el("div", { class: "nt-controls" }, [headPick]));
    live.appendChild(wrap);
    lanes.forEach(function (l) { l.run(); });
  });
})();
