// Knock-outs: switch off either attention head, both, or the MLP (its contribution to the residual
// stream set to zero) and rerun the pass. The full model's answer and the knocked-out one side by
// side. The head that finds the subject is named from the pass on show, by the build's rule (the head
// whose last position attends most to position 1), with the model in use: never a fixed number, and
// never the built model's head while the reader's model runs.
// Other demos on the page follow the store's "knockout" ({heads: [h, ...], mlp}), set on each change.
nexttoken.define("demos.knockout", ["ui", "runtime.kernels", "store", "runtime.active", "runtime.prompts", "runtime.model", "explain.pass", "ui.permalink"], function (ui, kernels, store, active, prompts, model, pass, permalink) {
  "use strict";

  // scripts/tiny/export.summarise's rule on this pass: the head whose last position attends most to position 1.
  function subjectHead(trace, ids) {
    if (ids.length < 2) return -1;
    var w = trace.h[0].attn_weights, last = ids.length - 1, best = 0;
    for (var h = 1; h < w.length; h++) if (w[h][last][1] > w[best][last][1]) best = h;
    return best;
  }

  ui.start("knockout", function (root, live) {
    var t = active.tiny(model);
    var m = t.model;
    var H = m.config.n_head;
    var state = { heads: [], mlp: false };
    var msg = ui.message();
    var prompt = ui.textInput("Prompt", prompts.pick(root.getAttribute("data-prompt") || (t.config.prompts || ["the cat sat on the"])[0]), function () { run(); });
    var fs = ui.el("fieldset", { class: "nt-radios nt-knockout-parts" }, [ui.el("legend", { text: "Switch off" })]);
    var boxes = [];
    for (var h = 0; h < H; h++) {
      (function (hd) {
        var c = ui.checkbox("head " + (hd + 1), false, function (on) { set(hd, on); });
        c.input.setAttribute("data-knockout", "head" + hd);
        boxes.push(c);
        fs.appendChild(c.wrap);
      })(h);
    }
    var mlpBox = ui.checkbox("the MLP", false, function (on) { state.mlp = on; run(); });
    mlpBox.input.setAttribute("data-knockout", "mlp");
    fs.appendChild(mlpBox.wrap);
    var out = ui.el("div", { class: "nt-lanes", "aria-live": "polite" });
    live.appendChild(ui.el("div", { class: "nt-controls" }, [prompt.wrap, fs]));
    live.appendChild(msg.node);
    live.appendChild(out);

    function set(hd, on) {
      state.heads = state.heads.filter(function (x) { return x !== hd; });
      if (on) state.heads.push(hd);
      state.heads.sort();
      run();
    }

    // each probability opens to its softmax (js/explain/pass.js), whose snippet replays this lane's pass
    function lane(title, tr, ids, last, cls) {
      var explain = pass.of({ trace: tr, ids: ids, config: m.config, weights: active.data.weights, show: t.tk.show });
      var probs = tr.probs[last], order = kernels.argsort(probs).slice(0, 3);
      return ui.el("div", { class: "nt-lane " + cls }, [
        ui.el("p", { class: "nt-lane-title", text: title }),
        ui.bars(order.map(function (id) {
          var text = ui.numberButton(ui.pct(probs[id]), function () { return explain.prob(id, 1, null, last); },
            { label: title + ", " + t.tk.show(id) });
          return { label: t.tk.show(id), value: probs[id], text: text, data: { token: t.tk.show(id), prob: probs[id] } };
        }), { label: title + ": next-token probabilities" }),
        ui.el("p", { class: "nt-pick" }, ["Answer: ", ui.el("code", { class: "nt-pick-token", text: t.tk.show(order[0]) })])]);
    }

    function describe() {
      var parts = state.heads.map(function (x) { return "head " + (x + 1); });
      if (state.mlp) parts.push("the MLP");
      return parts.length ? parts.join(" and ") : "nothing";
    }

    function run() {
      var t0 = performance.now();
      msg.clear();
      ui.clear(out);
      store.set("knockout", { heads: state.heads.slice(), mlp: state.mlp });
      shown = null;
      var r = prompts.encode(prompt.input.value);
      if (!r.ok) { msg.show(r.message, "error"); return; }
      if (r.note) msg.show(r.note, "info");
      var last = r.ids.length - 1;
      var full = m.forward(r.ids);
      var knocked = m.forward(r.ids, { knockout: state });
      var sh = subjectHead(full, r.ids);  // named from this pass, with the model in use
      boxes.forEach(function (c, hd) {
        c.wrap.querySelector("label").textContent = "head " + (hd + 1) + (hd === sh ? " (the head that looks most at " + t.tk.show(r.ids[1]) + ")" : "");
      });
      shown = { r: r, full: full, knocked: knocked };
      var a = kernels.argsort(full.probs[last])[0], b = kernels.argsort(knocked.probs[last])[0];
      out.appendChild(lane("Full model", full, r.ids, last, "nt-ko-full"));
      out.appendChild(lane("Switched off: " + describe(), knocked, r.ids, last, "nt-ko-knocked"));
      var same = a === b;
      out.appendChild(ui.el("p", { class: "nt-ko-verdict", "data-full": t.tk.show(a), "data-knocked": t.tk.show(b),
        text: !state.heads.length && !state.mlp ? "Nothing is switched off: both passes are the same." :
          same ? "Without " + describe() + " the answer stays " + t.tk.show(a) + " (" + ui.pct(full.probs[last][a]) + " → " + ui.pct(knocked.probs[last][b]) + ")."
               : "Without " + describe() + " the answer changes from " + t.tk.show(a) + " to " + t.tk.show(b) + "." }));
      root.setAttribute("data-ms", (performance.now() - t0).toFixed(2));  // read by scripts/quality/bench_training.py
    }
    var shown = null;  // the two passes on show, for the download
    run();

    // Its prompt and knock-outs in the page's link (off=1.2: heads 1 and 2); both passes' probabilities as a download.
    permalink.join(root, live, { model: active,
      fields: { prompt: permalink.text(ui.INPUT_MAX), off: permalink.ints(1, H, H), mlp: permalink.flag() },
      get: function () { return { prompt: prompt.input.value, off: state.heads.map(function (h) { return h + 1; }), mlp: state.mlp ? "1" : "0" }; },
      set: function (s) {
        if (s.prompt !== undefined) prompt.input.value = s.prompt;
        if (s.off) state.heads = s.off.map(function (h) { return h - 1; }).filter(function (h, i, a) { return a.indexOf(h) === i; }).sort();
        if (s.mlp !== undefined) state.mlp = s.mlp === "1";
        boxes.forEach(function (c, hd) { c.input.checked = state.heads.indexOf(hd) >= 0; });
        mlpBox.input.checked = state.mlp;
        run();
      },
      tables: function () {
        if (!shown) throw new Error("the prompt gives no pass to export (fix it first)");
        var last = shown.r.ids.length - 1, rows = [];
        for (var id = 0; id < shown.full.probs[last].length; id++) rows.push([id, t.tk.show(id), shown.full.probs[last][id], shown.knocked.probs[last][id]]);
        return [{ name: "knockout", columns: ["id", "token", "p_full", "p_knocked_out"], rows: rows }];
      } });
  });
});
