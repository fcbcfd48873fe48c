// Demo 5: temperature with top-k and top-p, and a seeded weighted draw. T = 0 is greedy.
(function () {
  "use strict";
  var U = window.NTUI;
  var SHOW = 12;

  U.start("temperature", function (root, live) {
    var t = U.tiny();
    var m = t.model;
    var S = window.NT.sampling;
    if (!m || !S) throw new Error("the model or sampling script did not load");
    var V = m.config.vocab_size;
    var st = { T: 1, topK: 0, topP: 1, seed: 1, logits: null };
    var msg = U.message();
    var warn = U.message();
    var prompt = U.textInput("Prompt", root.getAttribute("data-prompt") || "the cat", function () { compute(); });
    var tS = U.slider("Temperature T", 0, 2, 0.05, 1, function (v) { st.T = v; render(); }, function (v) { return v === 0 ? "0 (greedy)" : v.toFixed(2); });
    var kS = U.slider("top-k", 0, V, 1, 0, function (v) { st.topK = v; render(); }, function (v) { return v === 0 ? "off" : String(v); });
    var pS = U.slider("top-p", 0.05, 1, 0.05, 1, function (v) { st.topP = v; render(); }, function (v) { return v >= 1 ? "1 (off)" : v.toFixed(2); });
    var seedIn = U.el("input", { type: "number", min: "0", max: "1000000", step: "1", value: "1", class: "nt-input nt-seed", "data-role": "seed" });
    seedIn.addEventListener("change", function () { draw(false); });
    var drawBtn = U.button("Draw", function () { draw(true); }, { primary: true });
    var barsEl = U.el("div", { class: "nt-output", "aria-live": "polite" });
    var pickEl = U.el("p", { class: "nt-pick", "aria-live": "polite" });
    live.appendChild(U.el("div", { class: "nt-controls" }, [prompt.wrap, tS.wrap, kS.wrap, pS.wrap]));
    live.appendChild(U.el("div", { class: "nt-controls nt-buttons" }, [U.field("Seed", seedIn), drawBtn]));
    live.appendChild(msg.node);
    live.appendChild(warn.node);
    live.appendChild(barsEl);
    live.appendChild(pickEl);

    function opts() { return { temperature: st.T, topK: st.topK || undefined, topP: st.topP >= 1 ? undefined : st.topP }; }

    function compute() {
      msg.clear();
      st.logits = null;
      var r = U.encodePrompt(prompt.input.value);
      if (!r.ok) { msg.show(r.message, "error"); U.clear(barsEl); pickEl.textContent = ""; drawBtn.disabled = true; return; }
      if (r.note) msg.show(r.note, "info");
      var tr = m.forward(r.ids);
      st.logits = tr.logits[r.ids.length - 1];
      drawBtn.disabled = false;
      render();
    }

    function filtered() {
      var v = S.validate(opts(), V);
      warn.clear();
      if (v.warnings && v.warnings.length) warn.show(v.warnings.join(" "), "warn");
      var o = v.opts;
      var probs = S.softmax(st.logits, o.temperature);
      var f = S.filter(probs, { topK: o.topK, topP: o.topP });
      return { probs: probs, f: f, o: o };
    }

    function render() {
      if (!st.logits) return;
      var x = filtered();
      var keep = {};
      (x.f.kept || []).forEach(function (id) { keep[id] = true; });
      var order = U.argsort(x.probs).slice(0, SHOW);
      U.clear(barsEl);
      var nKept = (x.f.kept || []).length;
      barsEl.appendChild(U.el("p", { class: "nt-small", text: "Top " + SHOW + " of " + V + " tokens; " + nKept + " kept by the filters." }));
      barsEl.appendChild(U.bars(order.map(function (id, rank) {
        var kept = !!keep[id];
        var p = kept ? x.f.probs[id] : 0;
        return { label: t.tk.show(id), value: p, text: kept ? U.pct(p) : "cut", rowCls: kept ? "" : "nt-cut",
          data: { token: t.tk.show(id), prob: p, rank: rank } };
      }), { label: "probabilities after temperature and filters" }));
      pickEl.textContent = "";
    }

    function draw(advance) {
      if (!st.logits) return;
      var seed = Math.max(0, Math.floor(Number(seedIn.value) || 0));
      seedIn.value = String(seed);
      var res = S.sample(st.logits, { temperature: S.validate(opts(), V).opts.temperature, topK: opts().topK, topP: opts().topP, seed: seed });
      U.clear(pickEl);
      pickEl.appendChild(document.createTextNode("Seed " + seed + ": u = " + (res.u === undefined ? "–" : Number(res.u).toFixed(3)) + " → pick "));
      pickEl.appendChild(U.el("code", { class: "nt-pick-token", "data-id": res.id, text: t.tk.show(res.id) }));
      pickEl.appendChild(document.createTextNode(" (" + U.pct(res.probs[res.id]) + ")"));
      if (advance) seedIn.value = String(seed + 1);
    }

    compute();
  });
})();
