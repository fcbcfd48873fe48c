// Demo: the snapshot replay. Replays the weight snapshots the build saved during training: the loss curve
// with the chosen snapshot marked, each position's loss -log p(correct next token) for a sentence,
// and what that snapshot's model predicted at each position. The snapshots (js/data/tiny-snapshots.js,
// most of the page's weight) load only when the reader asks for them. They are the built model's,
// so this view uses the built tokenizer and weights even when the reader's own model is active.
nexttoken.define("demos.snapshots", ["ui", "runtime.kernels", "runtime.active", "runtime.tokenizer", "runtime.snapshots", "loss-curve", "explain.pass", "later:data.tiny-snapshots", "ui.permalink"], function (ui, kernels, active, tokenizer, snapshots, lossCurve, pass, loadSnapshots, permalink) {
  "use strict";
  function snapList(S) { return Array.isArray(S) ? S : (S.snapshots || []); }

  ui.start("snapshots", function (root, live) {
    var msg = ui.message();
    var load = ui.button("Load the training snapshots", function () {
      load.disabled = true;
      msg.show("Loading the snapshots…", "info");
      loadSnapshots().then(begin, function (err) { load.disabled = false; msg.show(err.message + ".", "error"); });
    }, { primary: true });
    load.setAttribute("data-role", "load-snapshots");
    live.appendChild(ui.el("div", { class: "nt-controls nt-buttons" }, [load]));
    live.appendChild(msg.node);
    var shown = null, pending = null;  // the replay's state (once loaded), and a link's, waiting for the load
    function begin(S) {
      msg.clear();
      load.hidden = true;
      try { shown = replay(root, live, S); } catch (err) { msg.show("The snapshots could not be shown (" + err.message + ").", "error"); }
      if (shown && pending) { shown.set(pending); pending = null; }
    }

    // The snapshot and sentence in the page's link (a link loads the snapshots); each position's loss as a download.
    permalink.join(root, live, {
      fields: { snap: permalink.int(0, 10000), sentence: permalink.text(ui.INPUT_MAX) },
      get: function () { return shown ? shown.get() : {}; },
      set: function (st) {
        if (st.snap === undefined && st.sentence === undefined) return "";
        if (shown) shown.set(st); else { pending = st; if (!load.disabled) load.click(); }
        return "";
      },
      tables: function () {
        if (!shown) throw new Error("the snapshots are not loaded yet (press Load)");
        return shown.tables();
      } });
  });

  function replay(root, live, S) {
    var builtData = active.built;
    var t = { tk: tokenizer.create(builtData.tokenizer), config: builtData.config };
    var snaps = snapList(S);
    if (!snaps.length) throw new Error("no snapshots in the data");
    var curve = S.loss_curve || null;
    var cfg = t.config || {};
    var sentences = (cfg.corpus || []).map(function (s) { return { value: s, label: s + " (trained on)" }; })
      .concat((cfg.unseen_sentences || []).map(function (s) { return { value: s, label: s + " (never seen)" }; }));
    if (!sentences.length) sentences = [{ value: "the cat sat on the mat.", label: "the cat sat on the mat." }];
    var idx = snaps.length - 1, sentence = sentences[0].value;
    var models = {};

    var snapSlider = ui.slider("Snapshot", 0, snaps.length - 1, 1, idx, function (v) { idx = v; render(); }, function (v) {
      return (v + 1) + " of " + snaps.length + " (step " + stepOf(v) + ")";
    });
    var sentSel = ui.select("Sentence", sentences, sentence, function (v) { sentence = v; render(); });
    var first = ui.button("First snapshot", function () { idx = 0; snapSlider.set(0); render(); });
    var last = ui.button("Last snapshot", function () { idx = snaps.length - 1; snapSlider.set(idx); render(); });
    var chart = ui.el("div", { class: "nt-chart" });
    var out = ui.el("div", { class: "nt-output nt-x-host", "aria-live": "polite" });
    // the curve (its dot the snapshot) right above the snapshot's controls, the sentence's losses right under
    // its menu: each answer next to its control
    live.appendChild(chart);
    live.appendChild(ui.el("div", { class: "nt-controls" }, [snapSlider.wrap, first, last]));
    live.appendChild(ui.el("div", { class: "nt-controls" }, [sentSel.wrap]));
    live.appendChild(out);

    function stepOf(i) { var s = snaps[i]; return s.step !== undefined ? s.step : i; }
    function lossOf(i) { var s = snaps[i]; return s.corpus_loss !== undefined ? s.corpus_loss : (s.loss !== undefined ? s.loss : s.train_loss_f32); }
    function model(i) { if (!models[i]) models[i] = snapshots.snapshotModel(builtData, S, i); return models[i]; }

    function drawChart() {
      ui.clear(chart);
      var pts = curve && curve.length ? curve.map(function (y, x) { return [x, y]; }) : snaps.map(function (s, i) { return [stepOf(i), lossOf(i)]; });
      chart.appendChild(lossCurve.draw(pts, pts[pts.length - 1][0] || 1,
        "Training loss from " + lossOf(0).toFixed(2) + " to " + lossOf(snaps.length - 1).toFixed(2) + "; snapshot " + (idx + 1) + " at step " + stepOf(idx) + " has loss " + lossOf(idx).toFixed(3),
        snaps.map(function (_, i) { return { x: stepOf(i), y: lossOf(i), on: i === idx }; })));
    }

    function render() {
      drawChart();
      ui.clear(out);
      var enc = t.tk.encode(sentence);
      if (!enc.ok) { out.appendChild(ui.el("p", { class: "nt-msg nt-error", text: "Cannot tokenize this sentence." })); return; }
      var mi = model(idx);
      var pl = snapshots.positionLosses(mi, enc.ids.concat([t.tk.eotId]));  // the last target is end-of-text, as in training
      var tr = mi.forward(enc.ids.length <= mi.config.n_ctx ? enc.ids : enc.ids.slice(0, mi.config.n_ctx));
      var mean = 0;
      pl.forEach(function (p) { mean += p.loss; });
      mean /= pl.length || 1;
      var maxLoss = Math.max(4, Math.max.apply(null, pl.map(function (p) { return p.loss; })));
      // each loss opens to its arithmetic (js/explain/pass.js) over this snapshot's pass
      var inputs = enc.ids.slice(0, mi.config.n_ctx);
      var explain = pass.of({ trace: tr, ids: inputs, config: mi.config, weights: builtData.weights, show: t.tk.show, snapshot: { index: idx, step: stepOf(idx) } });
      function num(text, make, label) { return ui.numberButton(text, make, { label: label }); }
      out.appendChild(ui.el("p", { class: "nt-train-mean", "data-mean": mean, "data-snapshot": idx }, [
        "Snapshot " + (idx + 1) + " (step " + stepOf(idx) + "): mean loss on this sentence ",
        num(mean.toFixed(3), function () {
          return explain.sentenceLoss(pl.map(function (p) { return p.loss; }), pl.map(function (p) { return p.target; }));
        }, "mean loss on this sentence"),
        "; over the corpus (mean of the sentences' means) " + lossOf(idx).toFixed(3) + "."]));
      var cols = ui.el("div", { class: "nt-loss-cols", role: "list", "aria-label": "loss per position" });
      pl.forEach(function (p, i) {
        var bar = ui.el("span", { class: "nt-loss-bar", "aria-hidden": "true" });
        bar.style.setProperty("--h", Math.min(1, p.loss / maxLoss).toFixed(4));
        var predId = i < tr.probs.length ? kernels.argsort(tr.probs[i])[0] : null;
        var target = typeof p.target === "number" ? t.tk.show(p.target) : String(p.target);
        var ok = predId !== null && t.tk.show(predId) === target;
        var input = i < enc.ids.length ? t.tk.show(enc.ids[i]) : "";
        cols.appendChild(ui.el("div", { class: "nt-loss-col", role: "listitem", "data-loss": p.loss, "data-input": input }, [
          ui.el("code", { class: "nt-loss-input", title: "the token read at this position", text: input }),
          ui.el("span", { class: "nt-loss-arrow", "aria-hidden": "true", text: "↓" }),
          ui.el("span", { class: "nt-loss-num" }, [num(p.loss.toFixed(2), function () {
            return explain.loss(i, p.target);
          }, "loss at position " + i)]),
          ui.el("span", { class: "nt-loss-track" }, [bar]),
          ui.el("code", { class: "nt-loss-target", title: "correct next token", text: target }),
          ui.el("span", { class: "nt-loss-pred" + (ok ? " nt-right" : ""), title: "this snapshot's most likely token",
            text: predId === null ? "" : (ok ? "✓ " : "✗ ") + t.tk.show(predId) }),
          ui.el("span", { class: "nt-loss-p", text: "p = " + ui.pct(p.prob) })]));
      });
      out.appendChild(ui.el("p", { class: "nt-small", text: "Each column, one position: the token read there, the loss −log p of the correct next token, that token, the snapshot's top guess (✓ right, ✗ wrong), and p." }));
      out.appendChild(cols);
    }

    root.setAttribute("data-snapshots", "loaded");
    render();
    return {
      get: function () { return { snap: idx, sentence: sentence }; },
      set: function (st) {
        if (st.snap !== undefined) { idx = Math.min(st.snap, snaps.length - 1); snapSlider.set(idx); }
        if (st.sentence !== undefined && sentences.some(function (o) { return o.value === st.sentence; })) { sentence = st.sentence; sentSel.input.value = st.sentence; }
        render();
      },
      tables: function () {
        return [{ name: "snapshot-" + stepOf(idx) + "-losses", columns: ["snapshot", "step", "corpus_loss"],
          rows: snaps.map(function (_, i) { return [i, stepOf(i), lossOf(i)]; }) }];
      }
    };
  }
});
