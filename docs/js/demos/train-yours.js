// Train it yourself: the reader edits the corpus and trains the tiny model in the page. The model is
// sized by the corpus (js/runtime/corpus.js: the tokenizer learned by the build's rule until every
// word is one token, the context its longest sentence) and starts from seeded weights for those sizes
// (js/runtime/trainer.js), then trains for the build's number of full-batch Adam steps, in slices so
// the page stays responsive. Before Train, each line's tokens are shown, with the sizes, the weight
// count and a time estimate measured on this browser. The result is saved in this browser and becomes
// "your model", which a page's demos use where the reader switches it on under that page's title
// (js/runtime/active.js, js/ui/model-switch.js); a stopped run saves nothing.
// corpus.js and trainer.js load when the demo starts (the preview needs them).
nexttoken.define("demos.train-yours", ["ui", "runtime.kernels", "runtime.active", "runtime.prompts", "runtime.model", "runtime.tokenizer", "loss-curve", "explain.lines", "explain.pass", "later:runtime.corpus", "later:runtime.trainer", "ui.permalink"], function (ui, kernels, active, prompts, model, tokenizer, lossCurve, lines, pass, loadCorpus, loadTrainer, permalink) {
  "use strict";
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

  ui.start("train-yours", function (root, live) {
    var built = active.built;
    var cfg = built.config, mc = cfg.model, steps = cfg.training.steps;
    var limits = { maxSentences: 4 * cfg.corpus.length, builtSentences: cfg.corpus.length, maxChars: prompts.MAX_CHARS, nCtx: 0 };
    var builtModel = model.create(built), builtTk = tokenizer.create(built.tokenizer);

    var area = ui.el("textarea", { class: "nt-input nt-corpus", rows: String(Math.min(16, cfg.corpus.length + 3)), spellcheck: "false",
      autocomplete: "off", autocapitalize: "off", "data-role": "corpus" });
    area.value = (active.yours ? active.yours.config.corpus : cfg.corpus).join("\n");
    var trainBtn = ui.button("Train", function () { train(); }, { primary: true });
    trainBtn.setAttribute("data-role", "train");
    var stopBtn = ui.button("Stop", function () { stop(); });
    stopBtn.setAttribute("data-role", "stop");
    stopBtn.disabled = true;
    var preview = ui.el("div", { class: "nt-train-preview", "data-role": "preview", "aria-live": "polite" });
    var sizes = ui.el("p", { class: "nt-small nt-train-sizes", "data-role": "sizes", "aria-live": "polite" });
    var resetBtn = ui.button("Back to the build's corpus", function () { area.value = cfg.corpus.join("\n"); msg.clear(); schedulePreview(); });
    var msg = ui.message();
    var bar = ui.el("progress", { max: String(steps), value: "0", class: "nt-train-progress", "aria-label": "training progress" });
    var status = ui.el("p", { class: "nt-small nt-train-status", "aria-live": "polite", text: "Not trained yet: press Train (" + ui.count(steps) + " steps)." });
    var chart = ui.el("div", { class: "nt-chart" });
    var result = ui.el("div", { class: "nt-train-result nt-x-host", "aria-live": "polite" });
    var probe = ui.textInput("Compare the two models on", root.getAttribute("data-probe") || cfg.prompts[0], function () { compare(); }, { role: "probe" });
    // the box, the button that resets it and the corpus's sizes in one line together; its sentences after
    live.appendChild(ui.field("Corpus: one sentence per line (lines starting with # are skipped)", area));
    live.appendChild(ui.el("div", { class: "nt-controls nt-buttons" }, [resetBtn]));
    live.appendChild(sizes);
    live.appendChild(preview);
    live.appendChild(ui.el("div", { class: "nt-controls nt-buttons" }, [trainBtn, stopBtn]));
    live.appendChild(msg.node);
    live.appendChild(ui.el("div", { class: "nt-controls" }, [bar, status]));
    live.appendChild(chart);
    live.appendChild(probe.wrap);
    live.appendChild(result);

    var yours = active.yours;
    var mine = yours ? { model: model.create(yours), tk: tokenizer.create(yours.tokenizer), weights: yours.weights } : null;

    function need(cb) {
      Promise.all([loadCorpus(), loadTrainer()]).then(function (got) { cb(got[0], got[1]); },
        function (err) { msg.show(err.message + ": training needs it.", "error"); trainBtn.disabled = false; });
    }

    function drawCurve(losses) {
      ui.clear(chart);
      chart.appendChild(lossCurve.draw(losses.map(function (y, x) { return [x, y]; }), steps,
        "Your training loss: " + losses[0].toFixed(2) + " at the start, " + losses[losses.length - 1].toFixed(3) + " at step " + (losses.length - 1)));
    }

    // The corpus -> {ok, lines, sized} or {ok: false, message, ...}: the sizes of the model it makes,
    // every line's pieces for the preview, each line's problem (characters, length) by name.
    function plan(corpus, text) {
      var all = corpus.corpusLines(text), caps = corpus.CAPS;
      limits.nCtx = caps.ctx;
      var problems = all.map(function (l, n) { return corpus.lineProblem(l, n, limits); });
      var check = corpus.checkCorpus(text, limits);
      var usable = all.filter(function (_, n) { return !problems[n]; });
      var sized = usable.length ? corpus.size(usable, mc, caps, built.tokenizer, tokenizer.create) : null;
      var byLine = [], k = 0;
      all.forEach(function (l, n) { byLine.push(problems[n] ? { text: l, problem: problems[n] } : sized.lines[k++]); });
      if (check.ok && sized && !sized.ok) check = { ok: false, message: sized.message };
      return { ok: check.ok, message: check.message, lines: byLine, sized: sized && sized.ok ? sized : null, capped: sized && sized.capped };
    }

    var previewTimer = 0, timed = null;
    function schedulePreview() {
      clearTimeout(previewTimer);
      previewTimer = setTimeout(function () { loadCorpus().then(function (corpus) { loadTrainer().then(function (trainer) { drawPreview(corpus, trainer); }); }); }, 250);
    }
    // Each line's tokens as chips; a line that will not fit, or has a character the model cannot
    // learn, says so. Then the sizes, the weights and the time, measured by running a few steps here
    // (not when Train asks: the run itself is the measure). Returns the plan.
    function drawPreview(corpus, trainer, untimed) {
      var p = plan(corpus, area.value), caps = corpus.CAPS;
      ui.clear(preview);
      var list = ui.el("ol", { class: "nt-train-lines" });
      p.lines.slice(0, limits.maxSentences).forEach(function (l) {
        var item = ui.el("li", { "data-fits": l.problem || !l.fits ? "no" : "yes" });
        if (l.problem) item.appendChild(ui.el("p", { class: "nt-small nt-error", text: l.problem.replace(/^Line \d+ /, "This line ") }));
        else {
          item.appendChild(ui.el("div", { class: "nt-tokens" }, l.tokens.map(function (tok) { return ui.chip(tok); })));
          if (!l.fits) item.appendChild(ui.el("p", { class: "nt-small nt-error", text: "This line has " + l.pieces + " pieces with its end marker; the longest a line may have is " + caps.ctx + "." }));
        }
        list.appendChild(item);
      });
      if (p.lines.length > limits.maxSentences) list.appendChild(ui.el("li", { text: "… and " + (p.lines.length - limits.maxSentences) + " more lines" }));
      preview.appendChild(list);
      reflect(p);
      if (!p.ok || !p.sized) { sizes.textContent = p.message || ""; return p; }
      var c = p.sized.config;
      if (running || untimed) {  // no timing while training runs; the last one stays while the text is the same
        var same = timed && timed.text === area.value;
        sizes.textContent = sizeLine(p, c, caps, same ? timed.seconds : null, same ? timed.n : 0);
        return p;
      }
      sizes.textContent = sizeLine(p, c, caps, null, 0);  // the time follows, once measured
      timeSteps(p, c, caps, trainer);
      return p;
    }
    // Each step timed alone, about 50 ms of them; the later half's median, since the first steps run
    // cold (the JIT). In slices of about 5 ms that yield to the page, so the page stays responsive
    // while it loads; a newer preview, an edit or a run drops the measure.
    var timing = 0;
    function timeSteps(p, c, caps, trainer) {
      var text = area.value, mine = ++timing, each = [], n = 0, spent = 0;
      var trial = trainer.createTrainer(c, trainer.seededWeights(c, cfg.training.seed, cfg.training.init_std), p.sized.rows, cfg.training);
      var more = function () { return n < 4 || (spent < 50 && n < 200); };
      (function slice() {
        if (mine !== timing || running || area.value !== text) return;
        var s0 = performance.now();
        while (more() && performance.now() - s0 < 5) { var a = performance.now(); trial.step(); var d = performance.now() - a; each.push(d); spent += d; n++; }
        if (more()) { setTimeout(slice, 0); return; }
        var late = each.slice(n >> 1).sort(function (x, y) { return x - y; });
        var estimate = late[late.length >> 1] * steps / 1000;
        timed = { text: text, seconds: estimate, n: n };
        sizes.textContent = sizeLine(p, c, caps, estimate, n);
        root.setAttribute("data-estimate-seconds", estimate.toFixed(3));
      })();
    }
    function sizeLine(p, c, caps, seconds, n) {
      return "Your model: vocabulary " + c.vocab_size + " (end-of-text, " + p.sized.bpe.chars.length + " characters, " + p.sized.bpe.merges.length + " merges" +
        (p.capped ? "; capped at " + caps.vocab + ", so some words stay in pieces" : ", every word one token") + "), context " + c.n_ctx +
        " (the longest line with its end marker), " + ui.count(active.paramCount(c)) + " weights" +
        "; " + steps + " steps take about " + (seconds === null ? "… s here (timing a few now)." : seconds.toFixed(1) + " s here (timed over " + n + " steps).");
    }
    // Until corpus.js and trainer.js arrive, a draft holds the preview's place: each line's words as chips
    // (the built tokenizer makes every word one token) and the sizes' sentence with "…" for its numbers, so
    // the demo does not grow under the reader when they come (a layout shift of 0.16 on its embed page).
    function draftPreview() {
      var list = ui.el("ol", { class: "nt-train-lines" });
      area.value.split("\n").filter(function (l) { return l.trim() && l.trim().charAt(0) !== "#"; }).slice(0, limits.maxSentences)
        .forEach(function (l) {
          var words = l.trim().match(/[^\s.,!?;:]+|[.,!?;:]/g) || [];
          list.appendChild(ui.el("li", {}, [ui.el("div", { class: "nt-tokens" },
            words.map(function (w, i) { return ui.chip(i && !/^[.,!?;:]$/.test(w) ? "·" + w : w); }))]));
        });
      preview.appendChild(list);
      sizes.textContent = "Your model: vocabulary … (end-of-text, … characters, … merges, every word one token), context … (the longest line " +
        "with its end marker), … weights; " + steps + " steps take about … s here (timing a few now).";
    }
    // What is on screen belongs to the corpus in the box: Train says why it cannot act on a corpus with
    // a problem, and the last run's curve and status show only while the box holds the corpus it ran on.
    var last = null;  // {text, losses, status} of the last finished run
    var blocked = false;  // the corpus in the box has a problem: Train stays disabled, saying which
    function reflect(p) {
      if (running) return;
      blocked = !(p.ok && p.sized);
      ui.setDisabled(trainBtn, blocked ? "Nothing to train on until the corpus is fixed: " + (p.message ? "see the line above." : "it has no usable line.") : "");
      if (last && last.text === area.value) {
        drawCurve(last.losses);
        bar.value = steps;
        status.textContent = last.status;
      } else if (last || Number(bar.value) > 0) {
        ui.clear(chart);
        bar.value = 0;
        status.textContent = "Not trained on this corpus yet" + (p.ok && p.sized ? ": press Train (" + ui.count(steps) + " steps)." : ".") +
          (mine ? " Your last model, trained on an earlier corpus, is still saved." : "");
      }
    }
    area.addEventListener("input", schedulePreview);
    draftPreview();
    schedulePreview();

    var running = null;
    function train() {
      msg.clear();
      trainBtn.disabled = true;
      need(function (corpus, trainer) {
        clearTimeout(previewTimer);
        var p = drawPreview(corpus, trainer, true);
        if (!p.ok) return refuse(p.message);
        var sized = p.sized, mcSized = sized.config, tk = sized.tk, tr;
        try {
          tr = trainer.createTrainer(mcSized, trainer.seededWeights(mcSized, cfg.training.seed, cfg.training.init_std), sized.rows, cfg.training);
        } catch (e) { return refuse(e.message + "."); }
        var lines0 = sized.lines.map(function (l) { return l.text; }), trainedText = area.value;
        status.textContent = "Training: tokenizer learned (" + sized.bpe.chars.length + " characters, " + sized.bpe.merges.length + " merges).";
        stopBtn.disabled = false;
        var t0 = performance.now(), moved = -Infinity, drawn = -Infinity, frame = 0, latest = null;
        // The page changes in a frame at most, the bar at most every 100 ms, the text and the curve at
        // most every 250 ms: each change costs a paint of the page (a layout too for the text), about
        // a third of the training's own time when the bar moved in every frame.
        function paint() {
          frame = 0;
          if (!latest || running !== run) return;  // stopped meanwhile: Stop's text stays
          var done = latest.done, losses = latest.losses, now = performance.now();
          moved = now;
          bar.value = done;
          if (now - drawn < 250) return;
          drawn = now;
          status.textContent = "Step " + done + " of " + latest.total + ": loss " + losses[losses.length - 1].toFixed(3) + ".";
          drawCurve(losses);
        }
        var run = running = trainer.run(tr, steps, {
          budgetMs: 12,  // well under the 50 ms of a "long task", with room for a frame between slices
          onProgress: function (done, total, losses) {
            latest = { done: done, total: total, losses: losses };
            if (done === total) { if (frame) cancelAnimationFrame(frame); bar.value = done; drawCurve(losses); }
            else if (!frame && performance.now() - moved >= 100) frame = requestAnimationFrame(paint);  // no frame asked for otherwise
          },
          onDone: function (losses) {
            running = null;
            stopBtn.disabled = true;
            var seconds = (performance.now() - t0) / 1000;
            root.setAttribute("data-train-seconds", seconds.toFixed(3));  // read by scripts/quality/bench_training.py
            var weights = tr.weights();
            var mcfg = JSON.parse(JSON.stringify(cfg));
            mcfg.model = JSON.parse(JSON.stringify(mcSized));
            mcfg.model.n_params = tr.size;
            mcfg.corpus = lines0;
            mcfg.prompts = corpus.promptsOf(lines0);
            mcfg.unseen_sentences = [];
            var m = model.create({ config: mcfg, weights: weights });
            var saved = { config: mcfg, tokenizer: sized.tokenizer, weights: weights, summary: summarise(m, tk, mcfg),
                          trained: { steps: steps, loss_first: losses[0], loss_last: losses[losses.length - 1], seconds: seconds } };
            mine = { model: m, tk: tk, weights: weights };
            status.textContent = "Trained: " + ui.count(steps) + " steps in " + seconds.toFixed(1) + " s; loss " + losses[0].toFixed(3) + " → " + losses[losses.length - 1].toFixed(3) + ".";
            last = { text: trainedText, losses: losses, status: status.textContent };
            lastSaved = saved;
            try {
              active.save(saved);
              msg.show("Your model is saved in this browser. Every page with a demo of the tiny model now has a switch under its title that puts it in that page's demos; each page starts on the built model.", "info");
            } catch (e) { msg.show("Trained, but not saved: " + e.message + ".", "warn"); }
            root.setAttribute("data-trained", "yes");
            trainBtn.disabled = false;
            schedulePreview();  // the box may have changed while it ran
            if (probe.input.value && !mine.tk.encode(probe.input.value.toLowerCase()).ok) probe.input.value = mcfg.prompts[0];
            compare();
          }
        });
      });
    }

    function stop() {
      if (!running) return;
      running.cancel();
      running = null;
      stopBtn.disabled = true;
      trainBtn.disabled = false;
      status.textContent = "Stopped at step " + bar.value + " of " + steps + ": nothing was saved" + (active.yours ? "; the model you trained before is kept." : ".");
      root.setAttribute("data-stopped", "yes");
    }

    function refuse(text) {
      msg.show(text, "error");
      trainBtn.disabled = blocked;
      root.setAttribute("data-refused", String(Number(root.getAttribute("data-refused") || 0) + 1));
    }

    // A model's pass over the probe: {model, ids, last, tr} or null when the model cannot read it.
    function passOver(m, tk, text) {
      var r = tk.encode(text);
      if (!r.ok || r.ids.length > m.config.n_ctx) return null;
      return { model: m, ids: r.ids, last: r.ids.length - 1, tr: m.forward(r.ids) };
    }

    // Your model's three likeliest next tokens for the probe, and what the built model gives each;
    // every probability opens to its softmax (js/explain/pass.js), the snippet over that model's weights.
    function compare() {
      ui.clear(result);
      if (!mine) return;
      var text = probe.input.value.toLowerCase();
      var yp = passOver(mine.model, mine.tk, text), bp = passOver(builtModel, builtTk, text);
      if (!yp) { result.appendChild(ui.el("p", { class: "nt-msg nt-error", text: "Your model cannot read “" + text + "”: a character outside its vocabulary, or more than " + mine.model.config.n_ctx + " tokens." })); return; }
      if (!mine.src) mine.src = lines.yoursSource(mine.weights);  // one download link per trained model
      var yoursSrc = mine.src, builtSrc = lines.builtSource();
      function cellFor(p, id, tk, weights, src, label) {
        var explain = pass.of({ trace: p.tr, ids: p.ids, config: p.model.config, weights: weights, show: tk.show, source: src });
        return ui.el("td", {}, [ui.numberButton(ui.pct(p.tr.probs[p.last][id]), function () { return explain.prob(id, 1, null, p.last); },
          { label: label + ", " + tk.show(id) })]);
      }
      var builtIndex = {};
      builtTk.vocab.forEach(function (v, i) { builtIndex[v] = i; });
      var py = yp.tr.probs[yp.last];
      var rows = kernels.argsort(py).slice(0, 3).map(function (id) {
        var s = mine.tk.vocab[id], bid = builtIndex[s], b = bp && bid !== undefined ? bp.tr.probs[bp.last][bid] : null;
        return ui.el("tr", { "data-token": mine.tk.show(id), "data-yours": py[id], "data-built": b === null ? "" : b }, [
          ui.el("td", {}, [ui.el("code", { text: mine.tk.show(id) })]), cellFor(yp, id, mine.tk, mine.weights, yoursSrc, "your model"),
          b === null ? ui.el("td", { text: "not readable" }) : cellFor(bp, bid, builtTk, built.weights, builtSrc, "built model")]);
      });
      result.appendChild(ui.el("div", { class: "nt-table-wrap" }, [ui.el("table", { class: "nt-train-compare" }, [
        ui.el("caption", { text: "After “" + text + "”: your model's top tokens" }),
        ui.el("thead", {}, [ui.el("tr", {}, [ui.el("th", { scope: "col", text: "next token" }), ui.el("th", { scope: "col", text: "your model" }),
          ui.el("th", { scope: "col", text: "built model" })])]),
        ui.el("tbody", {}, rows)])]));
    }

    if (mine) compare();

    // The probe in the page's link; the model (yours, else the built one) as a download with its corpus
    // and config, which the file box below loads back as your model (js/ui/permalink.js, js/ui/export.js).
    var lastSaved = null;
    permalink.join(root, live, {
      fields: { probe: permalink.text(ui.INPUT_MAX) },
      get: function () { return { probe: probe.input.value }; },
      set: function (s) { if (s.probe !== undefined) { probe.input.value = s.probe; compare(); } },
      tables: function () {
        var m = lastSaved || active.yours, which = m ? "yours" : "built";
        m = m || { config: built.config, tokenizer: built.tokenizer, weights: built.weights, summary: built.summary };
        var got = [{ name: which + "-model-weights", weights: m.weights }];
        got.extra = { model: { which: which, config: m.config, tokenizer: m.tokenizer, weights: m.weights, summary: m.summary || {}, trained: m.trained || null } };
        return got;
      } });
    var file = ui.el("input", { type: "file", accept: ".json,application/json", class: "nt-input", "data-role": "model-file" });
    var loaded = ui.message();
    file.addEventListener("change", function () {
      var f = file.files && file.files[0];
      if (!f) return;
      if (f.size > 50e6) { loaded.show("That file is " + (f.size / 1e6).toFixed(0) + " MB: a model this page trains is far smaller, so it was not read.", "error"); return; }
      var reader = new FileReader();
      reader.onload = function () {
        var m;
        try { var got = JSON.parse(reader.result); m = got && got.model ? got.model : got; } catch (e) { m = null; }
        if (!m || !active.valid(m)) { loaded.show("That file holds no model this page can use (a JSON download of this demo holds one); nothing changed.", "error"); return; }
        try { active.save({ config: m.config, tokenizer: m.tokenizer, weights: m.weights, summary: m.summary || {}, trained: m.trained || null }); }
        catch (e) { loaded.show("Read, but not saved: " + e.message + ".", "warn"); return; }
        loaded.show("Loaded: it is now your model; this page reloads with it switched on.", "info");
        setTimeout(function () { active.use("yours"); }, 600);
      };
      reader.onerror = function () { loaded.show("That file could not be read; nothing changed.", "error"); };
      reader.readAsText(f);
    });
    live.appendChild(ui.el("div", { class: "nt-controls" }, [ui.field("Load a model downloaded from this demo (JSON)", file)]));
    live.appendChild(loaded.node);
    loaded.clear();
  });
});
