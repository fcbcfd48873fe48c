// Where a fact lives: for a fact prompt, the answer's probability with each block's MLP switched off
// and with each block's whole attention switched off (zero ablation, one part at a time), and the
// logit lens (the answer's probability read after each block): one row of cells per kind, blocks
// across, on one scale. It opens on the build's prompts (data.smollm2-experiments); with the model
// loaded (ui.real-load), any prompt and answer run live: the sweep over the parts is real.sweep's, the
// code the build's (scripts/real/ablation.py) is checked against, and the lens is the engine's.
nexttoken.define("demos.real-fact", ["ui", "store", "ui.real-badge", "ui.real-load", "real.experiments", "data.smollm2-experiments", "ui.permalink", "later:real.sweep"],
  function (ui, store, badge, realLoad, lab, data, permalink, loadSweep) {
  "use strict";
  var el = ui.el, svg = ui.svg;
  var F = data.facts, L = data.config.n_layer;
  var ROWS = [["mlp", "MLP off"], ["attn", "attention off"], ["lens", "lens: read here"]];

  function show(piece) { return String(piece).replace(/ /g, "·").replace(/\n/g, "↵"); }

  // The blocks whose removal lowers the answer most, lowest probability first.
  function worst(probs, k) {
    return probs.map(function (p, l) { return l; }).sort(function (a, b) { return probs[a] - probs[b] || a - b; }).slice(0, k);
  }

  ui.start("real-fact", function (root, live) {
    var key = F.prompts[0].key, view = null, gen = 0, running = null;
    var loader = realLoad.control(root);
    var state = badge(), sourceText = el("span", { "data-role": "fact-source-text" });
    var source = el("p", { class: "nt-source-line", "aria-live": "polite", "data-role": "fact-source" }, [state.node, sourceText]);
    var msg = ui.message();  // under the prompt's row: all it says answers Run live or Stop
    var choices = el("div", { class: "nt-choices", role: "group", "aria-label": "Stored fact prompts (measured by the build)" });
    var buttons = F.prompts.map(function (p) {
      var b = ui.button(p.text + " …" + p.answer, function () { key = p.key; showStored(); });
      b.setAttribute("data-key", p.key);
      choices.appendChild(b);
      return b;
    });
    var promptIn = el("input", { type: "text", class: "nt-input", maxlength: "300", spellcheck: "false", autocomplete: "off", "data-role": "fact-prompt" });
    var answerIn = el("input", { type: "text", class: "nt-input", maxlength: "60", spellcheck: "false", autocomplete: "off", "data-role": "fact-answer" });
    [promptIn, answerIn].forEach(function (i) { i.addEventListener("keydown", function (e) { if (e.key === "Enter") { e.preventDefault(); runLive(i); } }); });
    var runButton = ui.button("Run live", function () { runLive(runButton); });
    runButton.setAttribute("data-role", "fact-run");
    var stop = ui.button("Stop", function () { if (running) running.abort(); });
    stop.hidden = true;
    var progress = el("progress", { class: "nt-ask-progress", max: "1", value: "0", hidden: true, "aria-label": "Parts switched off so far", "data-role": "fact-progress" });
    var picture = el("div", { class: "nt-lab-chart", "data-role": "fact-picture" });
    var readout = el("p", { class: "nt-lab-readout", "data-role": "fact-readout", "aria-live": "polite" });

    live.appendChild(loader.node);
    live.appendChild(source);
    live.appendChild(choices);
    live.appendChild(picture);
    live.appendChild(readout);
    live.appendChild(el("div", { class: "nt-controls" }, [ui.field("Your prompt", promptIn), ui.field("Its answer (the first token counts)", answerIn), runButton, stop, progress]));
    live.appendChild(msg.node);

    function modelReady() { ui.setDisabled(runButton, store.get("real.loaded") ? "" : "Load the model first: the parts are switched off in it."); }
    store.subscribe("real.loaded", modelReady);

    function drawPicture() {
      // on a narrow screen each row's name goes above it, so the cells keep the whole width
      var narrow = !!(window.matchMedia && window.matchMedia("(max-width: 600px)").matches), above = narrow ? 22 : 0;
      var tick = narrow ? "nt-lab-tick nt-lab-tick-big" : "nt-lab-tick";
      var cell = 18, gap = 2, x0 = narrow ? 2 : 104, y0 = narrow ? 24 : 16, W = x0 + L * (cell + gap), step = cell + gap + 4 + above, Hh = y0 + ROWS.length * step + 4;
      var s = svg("svg", { viewBox: "0 0 " + W + " " + Hh, class: "nt-lab-svg nt-lab-fact", role: "img", "aria-label":
        "The answer " + show(view.answer) + "'s probability, " + ui.pct(view.prob, 1) + " with every part on, after switching off each block's MLP, each block's attention, and read by the lens after each block." });
      for (var l = 0; l < L; l++) {
        if (l === 0 || (l + 1) % 5 === 0) {
          var t = svg("text", { x: x0 + l * (cell + gap) + cell / 2, y: y0 - 6, class: tick, "text-anchor": "middle" });
          t.textContent = String(l + 1);
          s.appendChild(t);
        }
      }
      ROWS.forEach(function (row, r) {
        var y = y0 + r * step + above, probs = view[row[0]];
        var lbl = narrow ? svg("text", { x: x0, y: y - 4, class: tick }) : svg("text", { x: x0 - 6, y: y + cell * 0.7, class: "nt-lab-tick", "text-anchor": "end" });
        lbl.textContent = row[1];
        s.appendChild(lbl);
        probs.forEach(function (p, l) {
          var low = row[0] !== "lens" && p < F.carries * view.prob, lead = row[0] === "lens" && view.leads === l + 1;
          var c = svg("rect", { x: x0 + l * (cell + gap), y: y, width: cell, height: cell, rx: 2,
            class: "nt-lab-cell" + (low ? " nt-lab-cell-low" : "") + (lead ? " nt-lab-cell-top" : ""), "data-kind": row[0], "data-block": String(l + 1), "data-prob": String(p) });
          c.style.setProperty("--a", Math.max(0, Math.min(1, p)).toFixed(3));
          var tip = svg("title", {});
          tip.textContent = "block " + (l + 1) + ", " + row[1] + ": " + show(view.answer) + " " + ui.pct(p, 1);
          c.appendChild(tip);
          s.appendChild(c);
        });
      });
      ui.clear(picture).appendChild(s);
      picture.appendChild(el("p", { class: "nt-legend" }, [el("span", { text: "0" }), el("span", { class: "nt-lab-ramp", "aria-hidden": "true" }),
        el("span", { text: "1: the probability of " + show(view.answer) + " (" + ui.pct(view.prob, 1) + " with every part on)." })]));
      picture.appendChild(el("p", { class: "nt-legend" }, [el("span", { class: "nt-lab-key nt-lab-key-low" }), " under " + ui.pct(F.carries, 0) + " of that, with the part off   ",
        el("span", { class: "nt-lab-key nt-lab-key-top" }), " where the lens first puts it on top"]));
    }

    function names(list, kind) { return list.map(function (l) { return "block " + (l + 1) + "'s, " + ui.pct(view[kind][l], 1); }).join("; "); }
    function draw() {
      state.set(view.live ? "live" : "stored");
      sourceText.textContent = view.live ? "Live in this page: your prompt, " + 2 * L + " parts switched off one at a time, and the lens."
        : "Measured by the build with transformers: " + 2 * L + " parts switched off one at a time, and the lens.";
      buttons.forEach(function (b) { b.setAttribute("aria-pressed", String(!view.live && b.getAttribute("data-key") === view.key)); });
      drawPicture();
      readout.textContent = "After “" + view.text + "”, the model gives " + show(view.answer) + " " + ui.pct(view.prob, 1) + ". The MLPs whose loss hurts it most: " +
        names(worst(view.mlp, 3), "mlp") + ". The attention: " + names(worst(view.attn, 3), "attn") + ". " +
        (view.leads ? "The lens first puts it on top after block " + view.leads + "." : "The lens never puts it on top.");
      modelReady();
      root.setAttribute("data-view", view.live ? "live" : "stored");
    }

    function showStored() {
      var p = F.prompts.filter(function (x) { return x.key === key; })[0];
      var lens = p.lens.slice(1);  // row 0 is the embedding; the picture reads blocks 1..L
      view = { live: false, key: p.key, text: p.text, answer: p.answer, prob: p.prob, mlp: p.mlp, attn: p.attn,
               lens: lens.map(function (r) { return r.prob; }), leads: lab.leads(lens) };
      promptIn.value = p.text;
      answerIn.value = p.answer;
      draw();
    }

    // from: the control the reader pressed (none when a link is restored); the picture, above it, is then
    // brought into view when the run ends
    function runLive(from) {
      var model = store.get("real.loaded");
      if (!model) return;
      var tk = model.tokenizer, enc = tk.encode(promptIn.value), ans = tk.encode(answerIn.value);
      if (!enc.ok) { msg.show(enc.error.message, "error"); return; }
      if (!ans.ok) { msg.show("The answer: " + ans.error.message, "error"); return; }
      var answerId = ans.ids[0], my = ++gen, text = promptIn.value, answer = answerIn.value;
      if (running) running.abort();
      msg.clear();
      if (ans.ids.length > 1) msg.show("The answer is " + ans.ids.length + " tokens; its first, “" + show(tk.decode([answerId])) + "”, is scored.", "info");
      root.setAttribute("data-busy", "");
      progress.hidden = stop.hidden = false;
      progress.value = 0;
      var parts = [];
      for (var l = 0; l < L; l++) parts.push(["mlp", l]);
      for (l = 0; l < L; l++) parts.push(["attn", l]);
      var job = null;
      running = { abort: function () { if (job) job.stop(); } };
      Promise.all([loadSweep(), model.session.prefill(enc.ids, { lens: true })]).then(function (got) {
        var sweep = got[0], lensOut = got[1];
        if (my !== gen) return null;
        job = sweep.run(model.session, { ids: enc.ids, target: { ids: [answerId] },
          specs: parts.map(function (p) { return { parts: [p], mode: "zero" }; }),
          onRow: function (i, row, done, total) { progress.max = total; progress.value = done; } });
        return job.done.then(function (res) {
          if (my !== gen) return;
          if (res.stopped) throw new Error("cancelled");
          var probs = res.rows.map(function (r) { return r.metric.prob; });
          var lens = lensOut.lens.map(function (lg, i) { return { layer: i + 1, rank: lab.rank(lg, answerId), prob: lab.softmaxAt(lg, answerId) }; });
          view = { live: true, text: text, answerText: answer, answer: tk.decode([answerId]), prob: res.base.prob, mlp: probs.slice(0, L), attn: probs.slice(L),
                   lens: lens.map(function (r) { return r.prob; }), leads: lab.leads(lens) };
          draw();
          if (from) ui.reveal(picture, from);
          root.setAttribute("data-pass", String(my));
        });
      }).then(function () {
        if (my !== gen) return;
        root.removeAttribute("data-busy");
        progress.hidden = stop.hidden = true;
        running = null;
      }, function (err) {
        if (my !== gen) return;
        root.removeAttribute("data-busy");
        progress.hidden = stop.hidden = true;
        running = null;
        var stopped = /cancel/.test(err.message);
        msg.show((stopped ? "Stopped: the last finished run stays on show" : err.message) + ".", stopped ? "info" : "error");
      });
    }

    showStored();

    permalink.join(root, live, {
      fields: { key: permalink.one(F.prompts.map(function (p) { return p.key; })), text: permalink.text(300), answer: permalink.text(60) },
      get: function () { return view.live ? { text: view.text, answer: view.answerText } : { key: view.key }; },
      set: function (s) {
        if (s.key) { key = s.key; showStored(); }
        if (s.text === undefined) return "";
        promptIn.value = s.text;
        if (s.answer !== undefined) answerIn.value = s.answer;
        if (store.get("real.loaded")) { runLive(); return ""; }
        return "This link runs its prompt live, which needs the model: press Load above; a stored prompt shows meanwhile.";
      },
      tables: function () {
        var rows = [];
        for (var l = 0; l < L; l++) rows.push([l + 1, view.mlp[l], view.attn[l], view.lens[l]]);
        return [{ name: "blocks", columns: ["block", "answer_prob_mlp_off", "answer_prob_attention_off", "answer_prob_lens"], rows: rows }];
      } });
  });
});
