// Demo: the training view. Replays the weight snapshots saved during training: the loss curve
// with the chosen snapshot marked, each position's loss -log p(correct next token) for a sentence,
// and what that snapshot's model predicted at each position. The snapshots (js/data/tiny-snapshots.js,
// most of the page's weight) load only when the reader asks for them. They are the built model's,
// so this view uses the built tokenizer and weights even when the reader's own model is active.
(function () {
  "use strict";
  var U = window.NTUI;
  var SVGNS = "http://www.w3.org/2000/svg";

  function svg(tag, attrs) {
    var n = document.createElementNS(SVGNS, tag);
    Object.keys(attrs || {}).forEach(function (k) { n.setAttribute(k, attrs[k]); });
    return n;
  }

  function snapList(S) { return Array.isArray(S) ? S : (S.snapshots || []); }

  U.start("training", function (root, live) {
    var T = window.NT.training;
    if (!T) throw new Error("the training script did not load");
    var A = window.NT.active;
    var msg = U.message();
    var load = U.button("Load the training snapshots", function () {
      load.disabled = true;
      msg.show("Loading the snapshots…", "info");
      if (window.NTData.snapshots) return begin();
      if (!A) { msg.show("The loader script (js/runtime/active.js) did not load.", "error"); return; }
      A.loadScript("data/tiny-snapshots.js", begin, function (err) { load.disabled = false; msg.show(err.message + ".", "error"); });
    }, { primary: true });
    load.setAttribute("data-role", "load-snapshots");
    live.appendChild(U.el("div", { class: "nt-controls nt-buttons" }, [load]));
    live.appendChild(msg.node);
    function begin() {
      msg.clear();
      load.hidden = true;
      try { replay(root, live); } catch (err) { msg.show("The snapshots could not be shown (" + err.message + ").", "error"); }
    }
  });

  function replay(root, live) {
    var builtData = window.NTData.tinyBuilt || window.NTData.tiny;
    var t = { tk: window.NT.tokenizer.create(builtData.tokenizer), config: builtData.config };
    var T = window.NT.training;
    var S = window.NTData && window.NTData.snapshots;
    if (!S) throw new Error("the snapshots did not load");
    var snaps = snapList(S);
    if (!snaps.length) throw new Error("no snapshots in the data");
    var curve = S.loss_curve || null;
    var cfg = t.config || {};
    var sentences = (cfg.corpus || []).map(function (s) { return { value: s, label: s + " (trained on)" }; })
      .concat((cfg.unseen_sentences || []).map(function (s) { return { value: s, label: s + " (never seen)" }; }));
    if (!sentences.length) sentences = [{ value: "the cat sat on the mat.", label: "the cat sat on the mat." }];
    var idx = snaps.length - 1, sentence = sentences[0].value;
    var models = {};

    var snapSlider = U.slider("Snapshot", 0, snaps.length - 1, 1, idx, function (v) { idx = v; render(); }, function (v) {
      return (v + 1) + " of " + snaps.length + " (step " + stepOf(v) + ")";
    });
    var sentSel = U.select("Sentence", sentences, sentence, function (v) { sentence = v; render(); });
    var first = U.button("First snapshot", function () { idx = 0; snapSlider.set(0); render(); });
    var last = U.button("Last snapshot", function () { idx = snaps.length - 1; snapSlider.set(idx); render(); });
    var chart = U.el("div", { class: "nt-chart" });
    var out = U.el("div", { class: "nt-output nt-x-host", "aria-live": "polite" });
    live.appendChild(U.el("div", { class: "nt-controls" }, [snapSlider.wrap, sentSel.wrap]));
    live.appendChild(U.el("div", { class: "nt-controls nt-buttons" }, [first, last]));
    live.appendChild(chart);
    live.appendChild(out);

    function stepOf(i) { var s = snaps[i]; return s.step !== undefined ? s.step : i; }
    function lossOf(i) { var s = snaps[i]; return s.corpus_loss !== undefined ? s.corpus_loss : (s.loss !== undefined ? s.loss : s.train_loss_f32); }
    function model(i) { if (!models[i]) models[i] = T.snapshotModel(builtData, S, i); return models[i]; }

    function drawChart() {
      U.clear(chart);
      var W = 560, H = 170, P = 34;
      var pts = curve && curve.length ? curve.map(function (y, x) { return [x, y]; }) : snaps.map(function (s, i) { return [stepOf(i), lossOf(i)]; });
      var xMax = pts[pts.length - 1][0] || 1, yMax = 0;
      pts.forEach(function (p) { yMax = Math.max(yMax, p[1]); });
      var sx = function (x) { return P + (W - 2 * P) * (x / xMax); };
      var sy = function (y) { return H - P + -(H - 2 * P) * (y / (yMax || 1)); };
      var s = svg("svg", { viewBox: "0 0 " + W + " " + H, class: "nt-loss-svg", role: "img",
        "aria-label": "Training loss from " + lossOf(0).toFixed(2) + " to " + lossOf(snaps.length - 1).toFixed(2) + "; snapshot " + (idx + 1) + " at step " + stepOf(idx) + " has loss " + lossOf(idx).toFixed(3) });
      s.appendChild(svg("line", { x1: P, y1: H - P, x2: W - P, y2: H - P, class: "nt-axis" }));
      s.appendChild(svg("line", { x1: P, y1: P / 2, x2: P, y2: H - P, class: "nt-axis" }));
      var d = pts.map(function (p, i) { return (i ? "L" : "M") + sx(p[0]).toFixed(1) + " " + sy(p[1]).toFixed(1); }).join(" ");
      s.appendChild(svg("path", { d: d, class: "nt-loss-line" }));
      snaps.forEach(function (_, i) {
        s.appendChild(svg("circle", { cx: sx(stepOf(i)), cy: sy(lossOf(i)), r: i === idx ? 6 : 3, class: i === idx ? "nt-dot nt-dot-on" : "nt-dot" }));
      });
      var lab = function (x, y, text, anchor) { var n = svg("text", { x: x, y: y, "text-anchor": anchor || "middle", class: "nt-axis-label" }); n.textContent = text; s.appendChild(n); };
      lab(P, H - P + 16, "0"); lab(W - P, H - P + 16, String(xMax)); lab(W / 2, H - 4, "training step");
      lab(P - 4, sy(yMax) + 4, yMax.toFixed(1), "end"); lab(P - 4, H - P, "0", "end");
      chart.appendChild(s);
    }

    function render() {
      drawChart();
      U.clear(out);
      var enc = t.tk.encode(sentence);
      if (!enc.ok) { out.appendChild(U.el("p", { class: "nt-msg nt-error", text: "Cannot tokenize this sentence." })); return; }
      var mi = model(idx);
      var pl = T.positionLosses(mi, enc.ids.concat([t.tk.eotId]));  // the last target is end-of-text, as in training
      var tr = mi.forward(enc.ids.length <= mi.config.n_ctx ? enc.ids : enc.ids.slice(0, mi.config.n_ctx));
      var mean = 0;
      pl.forEach(function (p) { mean += p.loss; });
      mean /= pl.length || 1;
      var maxLoss = Math.max(4, Math.max.apply(null, pl.map(function (p) { return p.loss; })));
      // each loss opens to its arithmetic (explain.js) over this snapshot's pass, when that script is here
      var X = window.NTX, snap = { index: idx, step: stepOf(idx) }, inputs = enc.ids.slice(0, mi.config.n_ctx);
      function num(text, make, label) { return X ? X.button(text, make, { label: label }) : text; }
      out.appendChild(U.el("p", { class: "nt-train-mean", "data-mean": mean, "data-snapshot": idx }, [
        "Snapshot " + (idx + 1) + " (step " + stepOf(idx) + "): mean loss on this sentence ",
        num(mean.toFixed(3), function () {
          return X.explain.sentenceLoss(mi.config, inputs, pl.map(function (p) { return p.loss; }), pl.map(function (p) { return p.target; }), snap);
        }, "mean loss on this sentence"),
        "; over the corpus " + lossOf(idx).toFixed(3) + "."]));
      var cols = U.el("div", { class: "nt-loss-cols", role: "list", "aria-label": "loss per position" });
      pl.forEach(function (p, i) {
        var bar = U.el("span", { class: "nt-loss-bar", "aria-hidden": "true" });
        bar.style.setProperty("--h", Math.min(1, p.loss / maxLoss).toFixed(4));
        var predId = i < tr.probs.length ? U.argsort(tr.probs[i])[0] : null;
        var target = typeof p.target === "number" ? t.tk.show(p.target) : String(p.target);
        var ok = predId !== null && t.tk.show(predId) === target;
        cols.appendChild(U.el("div", { class: "nt-loss-col", role: "listitem", "data-loss": p.loss }, [
          U.el("span", { class: "nt-loss-num" }, [num(p.loss.toFixed(2), function () {
            return X.explain.loss(mi.config, inputs, Array.from(tr.logits[i]), p.target, target, i, snap);
          }, "loss at position " + i)]),
          U.el("span", { class: "nt-loss-track" }, [bar]),
          U.el("code", { class: "nt-loss-target", title: "correct next token", text: target }),
          U.el("span", { class: "nt-loss-pred" + (ok ? " nt-right" : ""), title: "this snapshot's most likely token",
            text: predId === null ? "" : (ok ? "✓ " : "") + t.tk.show(predId) }),
          U.el("span", { class: "nt-loss-p", text: "p = " + U.pct(p.prob) })]));
      });
      out.appendChild(U.el("p", { class: "nt-small", text: "Each column: loss −log p, the correct next token, the snapshot's top guess, and p." }));
      out.appendChild(cols);
    }

    root.setAttribute("data-snapshots", "loaded");
    render();
  }
})();
