// Knock-outs: switch off either attention head, both, or the MLP (its contribution to the residual
// stream set to zero) and rerun the pass. The full model's answer and the knocked-out one side by
// side. The head that finds the subject is named from the build's summary (or, for a model the
// reader trained, from the same rule applied in the browser), never a fixed number.
// Other demos on the page can follow: NT.knockoutState holds the choice and a "nt-knockout" event
// on document announces each change ({detail: {heads, mlp}}).
(function () {
  "use strict";
  var U = window.NTUI;
  var NT = window.NT = window.NT || {};
  NT.knockoutState = NT.knockoutState || { heads: [], mlp: false };

  // scripts/tiny/export.summarise's rule: the head whose last position attends most to position 1.
  function subjectHead() {
    var s = window.NTData.tiny.summary;
    if (s && s.subject_head && typeof s.subject_head.head === "number") return s.subject_head;
    return null;
  }

  U.start("knockout", function (root, live) {
    var t = U.tiny();
    var m = t.model;
    if (!m) throw new Error("the model script did not load");
    var H = m.config.n_head;
    var sh = subjectHead();
    var state = { heads: [], mlp: false };
    var msg = U.message();
    var prompt = U.textInput("Prompt", root.getAttribute("data-prompt") || (t.config.prompts || ["the cat sat on the"])[0], function () { run(); });
    var fs = U.el("fieldset", { class: "nt-radios nt-knockout-parts" }, [U.el("legend", { text: "Switch off" })]);
    var boxes = [];
    for (var h = 0; h < H; h++) {
      (function (hd) {
        var label = "head " + (hd + 1) + (sh && sh.head === hd ? " (the head that looks at " + sh.token + ")" : "");
        var c = U.checkbox(label, false, function (on) { set(hd, on); });
        c.input.setAttribute("data-knockout", "head" + hd);
        boxes.push(c);
        fs.appendChild(c.wrap);
      })(h);
    }
    var mlpBox = U.checkbox("the MLP", false, function (on) { state.mlp = on; run(); });
    mlpBox.input.setAttribute("data-knockout", "mlp");
    fs.appendChild(mlpBox.wrap);
    var out = U.el("div", { class: "nt-lanes", "aria-live": "polite" });
    live.appendChild(U.el("div", { class: "nt-controls" }, [prompt.wrap, fs]));
    live.appendChild(msg.node);
    live.appendChild(out);

    function set(hd, on) {
      state.heads = state.heads.filter(function (x) { return x !== hd; });
      if (on) state.heads.push(hd);
      state.heads.sort();
      run();
    }

    // ko: the knock-outs of this lane's pass; each probability opens to its softmax (explain.js),
    // whose snippet replays the same pass
    function lane(title, tr, ids, last, cls, ko) {
      var probs = tr.probs[last], order = U.argsort(probs).slice(0, 3);
      return U.el("div", { class: "nt-lane " + cls }, [
        U.el("p", { class: "nt-lane-title", text: title }),
        U.bars(order.map(function (id) {
          var text = window.NTX ? window.NTX.button(U.pct(probs[id]), function () {
            return window.NTX.explain.prob(m.config, ids, Array.from(tr.logits[last]), id, t.tk.show(id), 1, null, last, ko);
          }, { label: title + ", " + t.tk.show(id) }) : U.pct(probs[id]);
          return { label: t.tk.show(id), value: probs[id], text: text, data: { token: t.tk.show(id), prob: probs[id] } };
        }), { label: title + ": next-token probabilities" }),
        U.el("p", { class: "nt-pick" }, ["Answer: ", U.el("code", { class: "nt-pick-token", text: t.tk.show(order[0]) })])]);
    }

    function describe() {
      var parts = state.heads.map(function (x) { return "head " + (x + 1); });
      if (state.mlp) parts.push("the MLP");
      return parts.length ? parts.join(" and ") : "nothing";
    }

    function run() {
      var t0 = performance.now();
      msg.clear();
      U.clear(out);
      NT.knockoutState = { heads: state.heads.slice(), mlp: state.mlp };
      document.dispatchEvent(new CustomEvent("nt-knockout", { detail: NT.knockoutState }));
      var r = U.encodePrompt(prompt.input.value);
      if (!r.ok) { msg.show(r.message, "error"); return; }
      if (r.note) msg.show(r.note, "info");
      var last = r.ids.length - 1;
      var full = m.forward(r.ids);
      var knocked = m.forward(r.ids, { knockout: state });
      var a = U.argsort(full.probs[last])[0], b = U.argsort(knocked.probs[last])[0];
      out.appendChild(lane("Full model", full, r.ids, last, "nt-ko-full", { heads: [], mlp: false }));
      out.appendChild(lane("Switched off: " + describe(), knocked, r.ids, last, "nt-ko-knocked", { heads: state.heads.slice(), mlp: state.mlp }));
      var same = a === b;
      out.appendChild(U.el("p", { class: "nt-ko-verdict", "data-full": t.tk.show(a), "data-knocked": t.tk.show(b),
        text: !state.heads.length && !state.mlp ? "Nothing is switched off: both passes are the same." :
          same ? "Without " + describe() + " the answer stays " + t.tk.show(a) + " (" + U.pct(full.probs[last][a]) + " → " + U.pct(knocked.probs[last][b]) + ")."
               : "Without " + describe() + " the answer changes from " + t.tk.show(a) + " to " + t.tk.show(b) + "." }));
      root.setAttribute("data-ms", (performance.now() - t0).toFixed(2));  // read by scripts/quality/bench_training.py
    }
    run();
  });
})();
