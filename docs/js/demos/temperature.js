// Demo: temperature with top-k and top-p, and a seeded weighted draw. T = 0 is greedy.
// Beside each other: the probabilities before temperature (T = 1), after T and the filters (each
// opens to exp(logit/T)/Σ), and a histogram of 1,000 seeded draws. A 0-1 ruler split by cumulative
// probability shows where the draw's u fell. The site's one draw rule (SmolLM2's Draw and the landing
// page's roll follow it too): Draw n takes the n-th number of mulberry32(seed); a new seed starts over.
nexttoken.define("demos.temperature", ["ui", "runtime.kernels", "runtime.active", "runtime.prompts", "runtime.model", "runtime.sampling", "explain.pass", "ui.permalink"], function (ui, kernels, active, prompts, model, sampling, pass, permalink) {
  "use strict";
  var SHOW = 12;

  ui.start("temperature", function (root, live) {
    var t = active.tiny(model);
    var m = t.model;
    var V = m.config.vocab_size;
    var st = { T: 1, topK: 0, topP: 1, seed: 1, logits: null };
    var msg = ui.message();
    var warn = ui.message();
    var prompt = ui.textInput("Prompt", prompts.pick(root.getAttribute("data-prompt") || "the cat"), function () { compute(); });
    var tS = ui.slider("Temperature T", 0, 2, 0.05, 1, function (v) { st.T = v; hist = null; render(); }, function (v) { return v === 0 ? "0 (greedy)" : v.toFixed(2); });
    var kS = ui.slider("top-k", 0, V, 1, 0, function (v) { st.topK = v; hist = null; render(); }, function (v) { return v === 0 ? "off" : String(v); });
    var pS = ui.slider("top-p", 0.05, 1, 0.05, 1, function (v) { st.topP = v; hist = null; render(); }, function (v) { return v >= 1 ? "1 (off)" : v.toFixed(2); });
    var seedIn = ui.el("input", { type: "number", min: "0", max: "1000000", step: "1", value: "1", class: "nt-input nt-seed", "data-role": "seed" });
    seedIn.addEventListener("change", function () { setSeed(); });
    var drawBtn = ui.button("Draw", function () { draw(); }, { primary: true });
    var manyBtn = ui.button("Sample 1,000 times", function () { drawMany(); });
    var hist = null;  // counts of the last 1,000 draws, for the current settings
    var rng = sampling.mulberry32(st.seed), draws = 0;  // the seed's stream, and how many Draws took from it
    var seedMsg = ui.message();
    var rule = ui.el("p", { class: "nt-small", "data-role": "draw-rule",
      text: "Draw n takes the n-th random number of the seed (as SmolLM2's Draw does); a new seed starts again from its first." });
    var barsEl = ui.el("div", { class: "nt-output", "aria-live": "polite" });
    var pickEl = ui.el("p", { class: "nt-pick", "aria-live": "polite" });
    var ruler = ui.el("div", { class: "nt-ruler-wrap" });
    live.appendChild(ui.el("div", { class: "nt-controls" }, [prompt.wrap, tS.wrap, kS.wrap, pS.wrap]));
    live.appendChild(ui.el("div", { class: "nt-controls nt-buttons" }, [ui.field("Seed", seedIn), drawBtn, manyBtn]));
    live.appendChild(rule);
    live.appendChild(seedMsg.node);
    live.appendChild(msg.node);
    live.appendChild(warn.node);
    live.appendChild(barsEl);
    live.appendChild(pickEl);
    live.appendChild(ruler);

    // Both draw buttons act on the same logits, so one note says why they cannot.
    function why(text) {
      ui.setDisabled(drawBtn, text);
      manyBtn.disabled = !!text;
      manyBtn.setAttribute("aria-describedby", drawBtn.getAttribute("aria-describedby"));
    }

    function opts() { return { temperature: st.T, topK: st.topK || undefined, topP: st.topP >= 1 ? undefined : st.topP }; }

    function compute() {
      msg.clear();
      st.logits = null;
      var r = prompts.encode(prompt.input.value);
      hist = null;
      if (!r.ok) {
        msg.show(r.message, "error"); ui.clear(barsEl); ui.clear(ruler); pickEl.textContent = "";
        why("Nothing to draw from: fix the prompt first.");
        return;
      }
      if (r.note) msg.show(r.note, "info");
      var tr = m.forward(r.ids);
      st.explain = pass.of({ trace: tr, ids: r.ids, config: m.config, weights: active.data.weights, show: t.tk.show });
      st.logits = tr.logits[r.ids.length - 1];
      why("");
      render();
    }

    function filtered() {
      var v = sampling.validate(opts(), V);
      warn.clear();
      if (v.warnings && v.warnings.length) warn.show(v.warnings.join(" "), "warn");
      var o = v.opts;
      var probs = sampling.softmax(st.logits, o.temperature);
      var f = sampling.filter(probs, { topK: o.topK, topP: o.topP });
      return { probs: probs, f: f, o: o };
    }

    function render() {
      if (!st.logits) return;
      var x = filtered();
      var keep = {};
      (x.f.kept || []).forEach(function (id) { keep[id] = true; });
      // Ranked at T = 1: temperature keeps the order, and at T = 0 every other probability is 0.
      var before = sampling.softmax(st.logits, 1);
      var order = kernels.argsort(before).slice(0, SHOW);
      var kept = x.f.kept || [];
      var T = x.o.temperature;
      ui.clear(barsEl);
      ui.clear(ruler);
      pickEl.textContent = "";
      barsEl.appendChild(ui.el("p", { class: "nt-small", text: "Top " + SHOW + " of " + V + " tokens; " + (T === 0
        ? "greedy decoding: the top token gets all the probability, so the filters have nothing to cut."
        : kept.length + " kept by the filters.") }));
      var lanes = ui.el("div", { class: "nt-lanes nt-lanes-3" });
      lanes.appendChild(ui.el("div", { class: "nt-lane" }, [ui.el("p", { class: "nt-lane-title", text: "Before temperature (T = 1)" }),
        ui.bars(order.map(function (id) { return { label: t.tk.show(id), value: before[id], text: ui.pct(before[id]), cls: "nt-bar-before" }; }),
          { label: "probabilities at T = 1, no filters" })]));
      lanes.appendChild(ui.el("div", { class: "nt-lane" }, [ui.el("p", { class: "nt-lane-title", text: "After T = " + (T === 0 ? "0 (greedy)" : T) + " and the filters" }),
        ui.bars(order.map(function (id, rank) {
          var k = !!keep[id];
          var p = k ? x.f.probs[id] : 0;
          var text = !k ? "cut" : T === 0 ? ui.pct(p) : ui.numberButton(ui.pct(p), function () { return st.explain.prob(id, T, kept); }, { label: "probability of " + t.tk.show(id) });
          return { label: t.tk.show(id), value: p, text: text, rowCls: k ? "" : "nt-cut",
            data: { token: t.tk.show(id), prob: p, rank: rank } };
        }), { label: "probabilities after temperature and filters" })]));
      if (hist) {
        lanes.appendChild(ui.el("div", { class: "nt-lane", "data-hist": "" }, [ui.el("p", { class: "nt-lane-title", text: "1,000 draws (the first 1,000 numbers of seed " + hist.seed + ")" }),
          ui.bars(order.map(function (id) {
            return { label: t.tk.show(id), value: (hist.counts[id] || 0) / 1000, text: String(hist.counts[id] || 0), cls: "nt-bar-hist", data: { count: hist.counts[id] || 0 } };
          }), { label: "how often each token was drawn in 1,000 draws" })]));
      }
      barsEl.appendChild(lanes);
    }

    // The rule of the draw: u in [0, 1) falls in one token's stretch of the cumulative probabilities.
    function drawRuler(res) {
      ui.clear(ruler);
      var bar = ui.el("div", { class: "nt-ruler", role: "img" }), cum = 0, hit = null;
      res.kept.forEach(function (id, k) {
        var p = res.probs[id];
        var seg = ui.el("span", { class: "nt-ruler-seg" + (id === res.id ? " nt-ruler-hit" : "") + (k % 2 ? " nt-ruler-odd" : ""),
          title: t.tk.show(id) + ": " + cum.toFixed(3) + " to " + (cum + p).toFixed(3) },
          p > 0.06 ? [ui.el("span", { class: "nt-ruler-tok", text: t.tk.show(id) })] : []);
        seg.style.left = (cum * 100).toFixed(3) + "%";
        seg.style.width = (p * 100).toFixed(3) + "%";
        if (id === res.id) hit = [cum, cum + p];
        bar.appendChild(seg);
        cum += p;
      });
      var mark = ui.el("span", { class: "nt-ruler-u", "data-u": res.u }, [ui.el("span", { class: "nt-ruler-u-label", text: "u = " + res.u.toFixed(3) })]);
      mark.style.left = (res.u * 100).toFixed(3) + "%";
      bar.appendChild(mark);
      bar.setAttribute("aria-label", "Ruler from 0 to 1 split by cumulative probability; u = " + res.u.toFixed(3) + " falls in " + t.tk.show(res.id) +
        "'s stretch" + (hit ? ", " + hit[0].toFixed(3) + " to " + hit[1].toFixed(3) : "") + ".");
      ruler.appendChild(ui.el("p", { class: "nt-small", text: "The draw: the kept tokens' probabilities laid end to end from 0 to 1; the token whose stretch holds u is the pick." }));
      ruler.appendChild(bar);
      ruler.appendChild(ui.el("p", { class: "nt-ruler-scale", "aria-hidden": "true" }, [ui.el("span", { text: "0" }), ui.el("span", { text: "0.5" }), ui.el("span", { text: "1" })]));
    }

    // A seed is a whole number from 0 to the box's max; anything else is refused in one line and the
    // seed in use stays. A new seed starts its stream again.
    function setSeed() {
      var raw = seedIn.value.trim(), v = Number(raw), max = Number(seedIn.max);
      if (raw === "" || !isFinite(v) || v !== Math.floor(v) || v < 0 || v > max) {
        seedMsg.show("A seed is a whole number from 0 to " + ui.count(max) + "; " + (raw === "" ? "the box held none" : "“" + raw + "” is not one") +
          ", so the seed stays " + st.seed + ".", "warn");
        seedIn.value = String(st.seed);
        return;
      }
      seedMsg.clear();
      st.seed = v;
      rng = sampling.mulberry32(v);
      draws = 0;
      hist = null;
      render();
    }

    function draw() {
      if (!st.logits) return;
      var u = rng();
      draws += 1;
      var res = sampling.sample(st.logits, { temperature: sampling.validate(opts(), V).opts.temperature, topK: opts().topK, topP: opts().topP, rng: function () { return u; } });
      ui.clear(pickEl);
      pickEl.appendChild(document.createTextNode("Draw " + draws + " with seed " + st.seed + ": u = " + Number(res.u).toFixed(3) + " → pick "));
      pickEl.appendChild(ui.el("code", { class: "nt-pick-token", "data-id": res.id, text: t.tk.show(res.id) }));
      pickEl.appendChild(document.createTextNode(" (" + ui.pct(res.probs[res.id]) + ")"));
      drawRuler(res);
    }

    // 1,000 draws: the first 1,000 numbers of the seed, so the same settings and seed give the same counts.
    function drawMany() {
      if (!st.logits) return;
      var counts = {}, o = opts(), T = sampling.validate(o, V).opts.temperature, stream = sampling.mulberry32(st.seed);
      for (var k = 0; k < 1000; k++) {
        var id = sampling.sample(st.logits, { temperature: T, topK: o.topK, topP: o.topP, rng: stream }).id;
        counts[id] = (counts[id] || 0) + 1;
      }
      hist = { seed: st.seed, counts: counts };
      render();
    }

    compute();

    // Its state in the page's link, and its numbers as a download (js/ui/permalink.js).
    permalink.join(root, live, { model: active,
      fields: { prompt: permalink.text(ui.INPUT_MAX), T: permalink.num(0, 2), k: permalink.int(0, V), p: permalink.num(0.05, 1),
        seed: permalink.int(0, 1000000), draws: permalink.int(0, 100000), many: permalink.flag() },
      get: function () { return { prompt: prompt.input.value, T: st.T, k: st.topK, p: st.topP, seed: st.seed, draws: draws, many: hist ? "1" : "0" }; },
      set: function (s) {
        if (s.prompt !== undefined) prompt.input.value = s.prompt;
        if (s.T !== undefined) { st.T = s.T; tS.set(s.T); }
        if (s.k !== undefined) { st.topK = s.k; kS.set(s.k); }
        if (s.p !== undefined) { st.topP = s.p; pS.set(s.p); }
        if (s.seed !== undefined) { seedIn.value = String(s.seed); setSeed(); }
        compute();
        // Draw n is the n-th number of the seed's stream (the one draw rule): step the stream to it and draw
        // once, so a link's 100,000 draws cost one picture, not 100,000.
        rng = sampling.mulberry32(st.seed); draws = 0;
        if (s.draws && st.logits) { for (var i = 1; i < s.draws; i++) rng(); draws = s.draws - 1; draw(); }
        if (s.many === "1") drawMany();
      },
      tables: function () {
        if (!st.logits) throw new Error("the prompt gives no pass to export (fix it first)");
        var x = filtered(), before = sampling.softmax(st.logits, 1), rows = [];
        for (var id = 0; id < V; id++) rows.push([id, t.tk.show(id), st.logits[id], before[id], x.f.probs[id]]);
        return [{ name: "probabilities", columns: ["id", "token", "logit", "p_T1", "p_after_T_and_filters"], rows: rows }];
      } });
  });
});
