// Train it yourself: the reader edits the corpus and trains the tiny model in the page. The
// tokenizer is learned again by the rule of scripts/tiny/tokenizer.py, the model starts from the
// build's own initial weights and trains for the build's number of full-batch Adam steps
// (js/runtime/corpus.js and learn.js), in slices so the page stays responsive. The result is saved in this
// browser and becomes "your model", which every demo then uses (js/runtime/active.js).
// corpus.js, learn.js and the initial weights load when the reader first presses Train.
(function () {
  "use strict";
  var U = window.NTUI;
  var SVGNS = "http://www.w3.org/2000/svg";

  function svg(tag, attrs) {
    var n = document.createElementNS(SVGNS, tag);
    Object.keys(attrs || {}).forEach(function (k) { n.setAttribute(k, attrs[k]); });
    return n;
  }

  // The same rule as scripts/tiny/export.summarise: the head whose last position attends most to
  // position 1 (the subject) in the first configured prompt.
  function summarise(m, tk, cfg) {
    var p = (cfg.prompts || [])[0];
    var r = p ? tk.encode(p) : { ok: false };
    if (!r.ok || r.ids.length < 2 || r.ids.length > m.config.n_ctx) return {};
    var w = m.forward(r.ids).h[0].attn_weights, last = r.ids.length - 1, best = 0;
    for (var h = 1; h < w.length; h++) if (w[h][last][1] > w[best][last][1]) best = h;
    return { subject_head: { head: best, token: tk.show(r.ids[1]), weight_cat: w[best][last][1] } };
  }

  U.start("train", function (root, live) {
    var A = window.NT.active;
    if (!A) throw new Error("js/runtime/active.js did not load");
    var built = A.built;
    var cfg = built.config, mc = cfg.model, steps = cfg.training.steps;
    var limits = { maxSentences: 4 * cfg.corpus.length, builtSentences: cfg.corpus.length, maxChars: U.MAX_CHARS, nCtx: mc.n_ctx };
    var builtModel = window.NT.model.create(built), builtTk = window.NT.tokenizer.create(built.tokenizer);

    var area = U.el("textarea", { class: "nt-input nt-corpus", rows: String(Math.min(16, cfg.corpus.length + 3)), spellcheck: "false",
      autocomplete: "off", autocapitalize: "off", "data-role": "corpus" });
    area.value = (A.yours ? A.yours.config.corpus : cfg.corpus).join("\n");
    var trainBtn = U.button("Train", function () { train(); }, { primary: true });
    trainBtn.setAttribute("data-role", "train");
    var resetBtn = U.button("Back to the build's corpus", function () { area.value = cfg.corpus.join("\n"); msg.clear(); });
    var msg = U.message();
    var bar = U.el("progress", { max: String(steps), value: "0", class: "nt-train-progress", "aria-label": "training progress" });
    var status = U.el("p", { class: "nt-small nt-train-status", "aria-live": "polite", text: "Not trained yet: press Train (" + steps + " steps)." });
    var chart = U.el("div", { class: "nt-chart" });
    var result = U.el("div", { class: "nt-train-result nt-x-host", "aria-live": "polite" });
    var probe = U.textInput("Compare the two models on", root.getAttribute("data-probe") || cfg.prompts[0], function () { compare(); }, { role: "probe" });
    var switchBox = U.el("div", { class: "nt-train-switch" });
    live.appendChild(U.field("Corpus: one sentence per line (lines starting with # are skipped)", area));
    live.appendChild(U.el("div", { class: "nt-controls nt-buttons" }, [trainBtn, resetBtn]));
    live.appendChild(msg.node);
    live.appendChild(U.el("div", { class: "nt-controls" }, [bar, status]));
    live.appendChild(chart);
    live.appendChild(switchBox);
    live.appendChild(probe.wrap);
    live.appendChild(result);

    var mine = A.yours ? { model: window.NT.model.create(A.yours), tk: window.NT.tokenizer.create(A.yours.tokenizer), weights: A.yours.weights } : null;

    function need(cb) {
      var todo = [];
      var L = window.NT.learn || {};
      if (!L.learnBPE) todo.push("runtime/corpus.js");
      if (!L.createTrainer) todo.push("runtime/learn.js");
      if (!window.NTData.tinyInit) todo.push("data/tiny-init.js");
      (function next() {
        if (!todo.length) return cb();
        A.loadScript(todo.shift(), next, function (err) { msg.show(err.message + ": training needs it.", "error"); trainBtn.disabled = false; });
      })();
    }

    function drawCurve(losses) {
      U.clear(chart);
      var W = 560, H = 150, P = 34, yMax = 0;
      losses.forEach(function (y) { if (y > yMax) yMax = y; });
      var sx = function (x) { return P + (W - 2 * P) * (x / steps); };
      var sy = function (y) { return H - P - (H - 2 * P) * (y / (yMax || 1)); };
      var s = svg("svg", { viewBox: "0 0 " + W + " " + H, class: "nt-loss-svg", role: "img",
        "aria-label": "Your training loss: " + losses[0].toFixed(2) + " at the start, " + losses[losses.length - 1].toFixed(3) + " at step " + (losses.length - 1) });
      s.appendChild(svg("line", { x1: P, y1: H - P, x2: W - P, y2: H - P, class: "nt-axis" }));
      s.appendChild(svg("line", { x1: P, y1: P / 2, x2: P, y2: H - P, class: "nt-axis" }));
      var every = Math.max(1, Math.floor(losses.length / 600)), d = "";
      for (var i = 0; i < losses.length; i += every) d += (i ? "L" : "M") + sx(i).toFixed(1) + " " + sy(losses[i]).toFixed(1);
      s.appendChild(svg("path", { d: d, class: "nt-loss-line" }));
      var lab = function (x, y, text, anchor) { var n = svg("text", { x: x, y: y, "text-anchor": anchor || "middle", class: "nt-axis-label" }); n.textContent = text; s.appendChild(n); };
      lab(P, H - P + 16, "0"); lab(W - P, H - P + 16, String(steps)); lab(W / 2, H - 4, "training step");
      lab(P - 4, sy(yMax) + 4, yMax.toFixed(1), "end"); lab(P - 4, H - P, "0", "end");
      chart.appendChild(s);
    }

    function train() {
      msg.clear();
      trainBtn.disabled = true;
      need(function () {
        var L = window.NT.learn;
        var check = L.checkCorpus(area.value, limits);
        if (!check.ok) return refuse(check.message);
        var bpe, tj, tk, rows, tr;
        try {
          bpe = L.learnBPE(check.lines, mc.vocab_size);
        } catch (e) { return refuse("The tokenizer cannot be learned from this corpus: " + e.message + "."); }
        tj = L.tokenizerJson(bpe.chars, bpe.merges, built.tokenizer);
        tk = window.NT.tokenizer.create(tj);
        try {
          rows = L.makeBatch(tk, check.lines, mc.n_ctx);
          tr = L.createTrainer(mc, window.NTData.tinyInit.weights, rows, cfg.training);
        } catch (e) { return refuse(e.message + "."); }
        status.textContent = "Training: tokenizer learned (" + bpe.chars.length + " characters, " + bpe.merges.length + " merges).";
        var t0 = performance.now(), drawn = -Infinity;
        L.run(tr, steps, {
          budgetMs: 12,  // well under the 50 ms of a "long task", with room for drawing the curve
          onProgress: function (done, total, losses) {
            bar.value = done;
            // The curve and the text at most every 150 ms (and at the end): redrawing them after each
            // 12 ms slice cost more than the training itself.
            if (done < total && performance.now() - drawn < 150) return;
            drawn = performance.now();
            status.textContent = "Step " + done + " of " + total + ": loss " + losses[losses.length - 1].toFixed(3) + ".";
            drawCurve(losses);
          },
          onDone: function (losses) {
            var seconds = (performance.now() - t0) / 1000;
            root.setAttribute("data-train-seconds", seconds.toFixed(3));  // read by scripts/quality/bench_training.py
            var weights = tr.weights();
            var mcfg = JSON.parse(JSON.stringify(cfg));
            mcfg.corpus = check.lines;
            var m = window.NT.model.create({ config: mcfg, weights: weights });
            var saved = { config: mcfg, tokenizer: tj, weights: weights, summary: summarise(m, tk, mcfg),
                          trained: { steps: steps, loss_first: losses[0], loss_last: losses[losses.length - 1], seconds: seconds } };
            mine = { model: m, tk: tk, weights: weights };
            status.textContent = "Trained: " + steps + " steps in " + seconds.toFixed(1) + " s; loss " + losses[0].toFixed(3) + " → " + losses[losses.length - 1].toFixed(3) + ".";
            try {
              A.save(saved);
              msg.show("Your model is saved in this browser and is now the one every demo uses; the switch below (and at the top of each page) goes back to the built model.", "info");
            } catch (e) { msg.show("Trained, but not saved: " + e.message + ".", "warn"); }
            root.setAttribute("data-trained", "yes");
            trainBtn.disabled = false;
            showSwitch(true);
            compare();
          }
        });
      });
    }

    function refuse(text) {
      msg.show(text, "error");
      trainBtn.disabled = false;
      root.setAttribute("data-refused", String(Number(root.getAttribute("data-refused") || 0) + 1));
    }

    function showSwitch(yoursActive) {
      U.clear(switchBox);
      if (!mine) return;
      switchBox.appendChild(U.radios("The demos on every page use", [
        { value: "built", label: "the built model" }, { value: "yours", label: "your model" }],
        yoursActive ? "yours" : "built", function (v) { A.use(v); }));
    }

    // A model's pass over the probe: {model, ids, last, tr} or null when the model cannot read it.
    function pass(m, tk, text) {
      var r = tk.encode(text);
      if (!r.ok || r.ids.length > m.config.n_ctx) return null;
      return { model: m, ids: r.ids, last: r.ids.length - 1, tr: m.forward(r.ids) };
    }

    // Your model's three likeliest next tokens for the probe, and what the built model gives each;
    // every probability opens to its softmax (explain.js), the snippet over that model's weights.
    function compare() {
      U.clear(result);
      if (!mine) return;
      var text = probe.input.value.toLowerCase();
      var yp = pass(mine.model, mine.tk, text), bp = pass(builtModel, builtTk, text);
      if (!yp) { result.appendChild(U.el("p", { class: "nt-msg nt-error", text: "Your model cannot read “" + text + "”: a character outside its vocabulary, or more than " + mc.n_ctx + " tokens." })); return; }
      var X = window.NTX, off = { heads: [], mlp: false };
      if (X && !mine.src) mine.src = X.yoursSource(mine.weights);  // one download link per trained model
      var yoursSrc = mine.src, builtSrc = X ? X.builtSource() : null;
      function cellFor(p, id, name, src, label) {
        var text = U.pct(p.tr.probs[p.last][id]);
        return X ? U.el("td", {}, [X.button(text, function () {
          return X.explain.prob(p.model.config, p.ids, Array.from(p.tr.logits[p.last]), id, name, 1, null, p.last, off, src);
        }, { label: label + ", " + name })]) : U.el("td", { text: text });
      }
      var builtIndex = {};
      builtTk.vocab.forEach(function (v, i) { builtIndex[v] = i; });
      var py = yp.tr.probs[yp.last];
      var rows = U.argsort(py).slice(0, 3).map(function (id) {
        var s = mine.tk.vocab[id], bid = builtIndex[s], b = bp && bid !== undefined ? bp.tr.probs[bp.last][bid] : null;
        return U.el("tr", { "data-token": mine.tk.show(id), "data-yours": py[id], "data-built": b === null ? "" : b }, [
          U.el("td", {}, [U.el("code", { text: mine.tk.show(id) })]), cellFor(yp, id, mine.tk.show(id), yoursSrc, "your model"),
          b === null ? U.el("td", { text: "not readable" }) : cellFor(bp, bid, builtTk.show(bid), builtSrc, "built model")]);
      });
      result.appendChild(U.el("div", { class: "nt-table-wrap" }, [U.el("table", { class: "nt-train-compare" }, [
        U.el("caption", { text: "After “" + text + "”: your model's top tokens" }),
        U.el("thead", {}, [U.el("tr", {}, [U.el("th", { scope: "col", text: "next token" }), U.el("th", { scope: "col", text: "your model" }),
          U.el("th", { scope: "col", text: "built model" })])]),
        U.el("tbody", {}, rows)])]));
    }

    if (mine) { showSwitch(A.which === "yours"); compare(); }
  });
})();
