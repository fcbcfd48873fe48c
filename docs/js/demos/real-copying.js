// Copying: induction heads. A seeded random sequence of whole-word tokens, after a start token, shown
// twice: the loss of every token (the first copy cannot be guessed, the second can), every head's
// induction score as a grid (blocks across, heads down), and the second copy's loss with the top
// heads switched off beside as many random heads. It opens on the build's numbers
// (data.smollm2-experiments: site_data/smollm2/experiments.json); with the model loaded (ui.real-load),
// a rerolled or typed sequence runs live: the engine's every-position losses (opts.every) and every
// head's attention shares (opts.kinds, the "induction" share), the knock-outs through the engine's
// opts.knockout as real.sweep builds it (the code the build's scripts/real/ablation.py is checked
// against). Its state (seed or typed words, which knock-out) is in the page's link.
nexttoken.define("demos.real-copying", ["ui", "store", "ui.real-badge", "ui.real-load", "real.experiments", "data.smollm2-experiments", "ui.permalink", "later:real.sweep"],
  function (ui, store, badge, realLoad, lab, data, permalink, loadSweep) {
  "use strict";
  var el = ui.el, svg = ui.svg;
  var C = data.copying, L = data.config.n_layer, H = data.config.n_head;
  var MAX_WORDS = 60;  // a typed sequence's tokens, before it is doubled
  var INDUCTION = 3;   // the induction share's place in opts.kinds' five (first, self, previous, induction, other)

  // A phone's screen: the charts are drawn narrower, their labels larger (no layout is read for it).
  function narrow() { return !!(window.matchMedia && window.matchMedia("(max-width: 600px)").matches); }
  function show(piece) { return String(piece).replace(/ /g, "·").replace(/\n/g, "↵"); }
  function headName(l, h) { return "block " + (l + 1) + ", head " + (h + 1); }
  function nats(x) { return ui.fix(x, 2) + " nats"; }

  // A view: what the demo draws, stored or live.
  function storedView() {
    return { live: false, seed: C.seed, typed: null, ids: C.ids, pieces: C.pieces, n: C.length, losses: C.losses,
             first: C.first, second: C.second, scores: C.induction.scores, top: C.induction.top.map(function (t) { return [t.layer, t.head]; }),
             topScores: C.induction.top.map(function (t) { return t.score; }),
             knockout: C.knockout, controls: C.controls, controlMean: C.control_mean, off: null };
  }

  ui.start("real-copying", function (root, live) {
    var view = storedView(), shownOff = "top", controlAt = 0, gen = 0;
    var loader = realLoad.control(root);
    var state = badge(), sourceText = el("span", { "data-role": "copy-source-text" });
    var source = el("p", { class: "nt-source-line", "aria-live": "polite", "data-role": "copy-source" }, [state.node, sourceText]);
    var msg = ui.message(), offMsg = ui.message();  // each under the controls it answers
    var seqBox = el("div", { class: "nt-chips nt-lab-seq", "data-role": "copy-seq", tabindex: "0", role: "region", "aria-label": "The sequence, shown twice" });
    var chart = el("div", { class: "nt-lab-chart", "data-role": "copy-chart" });
    var readout = el("p", { class: "nt-lab-readout", "data-role": "copy-readout", "aria-live": "polite" });
    var offBox = el("div", { class: "nt-lab-off", "data-role": "copy-off" });
    var gridBox = el("div", { class: "nt-lab-grid-wrap", "data-role": "copy-grid" });
    var topList = el("ol", { class: "nt-lab-top", "data-role": "copy-top" });

    var runShown = ui.button("Run this sequence live", function () {
      if (view.typed !== null && view.typed !== undefined) runTyped(view.typed);
      else if (view.live) runSeed(view.seed);
      else run(C.ids.slice(1, 1 + C.length), C.seed, null);
    }, { primary: true });
    runShown.setAttribute("data-role", "copy-run");
    var reroll = ui.button("Reroll the sequence", function () { runSeed(view.typed === null ? view.seed + 1 : C.seed); });
    reroll.setAttribute("data-role", "copy-reroll");
    var typed = el("input", { type: "text", class: "nt-input", maxlength: String(ui.INPUT_MAX), spellcheck: "false", autocomplete: "off",
      "data-role": "copy-typed", placeholder: "or type words of your own, then Enter" });
    typed.addEventListener("keydown", function (e) { if (e.key === "Enter") { e.preventDefault(); runTyped(typed.value); } });
    var typedField = ui.field("Your own sequence (it is shown twice)", typed);
    typedField.classList.add("nt-lab-wide");
    var offTop = ui.button("Switch off the top " + C.knockout.heads.length + " heads", function () { knock("top", offTop); });
    offTop.setAttribute("data-role", "copy-off-top");
    var offRandom = ui.button("Switch off " + C.knockout.heads.length + " random heads", function () { knock("random", offRandom); });
    offRandom.setAttribute("data-role", "copy-off-random");

    live.appendChild(loader.node);
    live.appendChild(source);
    live.appendChild(el("div", { class: "nt-controls" }, [runShown, reroll, typedField]));
    live.appendChild(msg.node);
    live.appendChild(seqBox);
    live.appendChild(chart);
    live.appendChild(readout);
    live.appendChild(ui.section("Switch heads off: the copy needs the induction heads", [el("div", { class: "nt-controls" }, [offTop, offRandom]), offMsg.node, offBox]));
    live.appendChild(ui.section("Every head's induction score", [
      el("p", { class: "nt-note", text: "A head's score is its average attention, from a token of the second copy, to the token that followed the same token in the first copy. The more orange, the higher; the top heads are outlined." }),
      gridBox, topList]));

    function modelReady() {
      var why = store.get("real.loaded") ? "" : "Load the model first: a new sequence runs in it.";
      ui.setDisabled(runShown, why);  // one line says why for the row: the reroll and the box wait too
      reroll.disabled = typed.disabled = !!why;
      reroll.setAttribute("aria-describedby", runShown.getAttribute("aria-describedby"));
      ui.setDisabled(offTop, view.live && !store.get("real.loaded") ? why : "");
      ui.setDisabled(offRandom, view.live && !store.get("real.loaded") ? why : "");
    }
    store.subscribe("real.loaded", modelReady);

    // ---- drawing --------------------------------------------------------------------------------
    function drawSource(text) {
      state.set(view.live ? (view.off ? "live-off" : "live") : "stored");
      sourceText.textContent = text || (view.live
        ? "Live in this page: " + (view.typed !== null ? "your words" : "the sequence of seed " + view.seed) + ", " + view.n + " tokens shown twice."
        : "Measured by the build with transformers: the sequence of seed " + view.seed + ", " + view.n + " tokens shown twice.");
    }

    function drawSeq() {
      ui.clear(seqBox);
      view.pieces.forEach(function (p, i) {
        var cls = i === 0 ? "nt-template" : i <= view.n ? "nt-lab-first" : "nt-lab-second";
        seqBox.appendChild(ui.chip(show(p), null, cls));
      });
    }

    // Each token's loss as a bar, the first copy's and the second's in their own colours; the
    // switched-off run's losses as dots over them, on the same scale.
    function drawChart() {
      var losses = view.losses, off = shownOff && view.off ? view.off.losses : null, n = losses.length;
      var top = Math.max.apply(null, losses.concat(off || [])), step = ui.tickStep(top, 4), hi = Math.ceil(top / step) * step || 1;
      var W = narrow() ? 360 : 640, Hh = narrow() ? 200 : 180, x0 = 34, y0 = 18, w = (W - x0 - 4) / n, h = Hh - y0 - 22;
      var s = svg("svg", { viewBox: "0 0 " + W + " " + Hh, class: "nt-lab-svg", role: "img", "aria-label":
        "Loss of every token: first copy " + nats(view.first) + " a token on average, second copy " + nats(view.second) +
        (off ? "; with " + view.off.heads.length + " heads switched off the second copy's is " + nats(view.off.second) : "") + "." });
      ui.niceTicks(0, hi).forEach(function (v) {
        var y = y0 + h - v / hi * h;
        s.appendChild(svg("line", { x1: x0, x2: W - 4, y1: y, y2: y, class: "nt-lab-gridline" }));
        var t = svg("text", { x: x0 - 4, y: y + 3, class: "nt-lab-tick", "text-anchor": "end" });
        t.textContent = String(v);
        s.appendChild(t);
      });
      losses.forEach(function (v, t) {
        var second = t >= view.n, bh = v / hi * h;
        var r = svg("rect", { x: x0 + t * w + 0.5, y: y0 + h - bh, width: Math.max(1, w - 1), height: bh, class: second ? "nt-lab-bar-second" : "nt-lab-bar-first",
          "data-loss": String(v) });
        if (off) r.setAttribute("data-off", String(off[t]));
        var tip = svg("title", {});
        tip.textContent = "“" + show(view.pieces[t + 1]) + "” (position " + (t + 1) + "): " + nats(v) + (off ? "; heads off: " + nats(off[t]) : "");
        r.appendChild(tip);
        s.appendChild(r);
        if (off) s.appendChild(svg("circle", { cx: x0 + (t + 0.5) * w, cy: y0 + h - off[t] / hi * h, r: Math.min(3, w / 3), class: "nt-lab-dot" }));
      });
      [["first copy", x0 + view.n / 2 * w], ["second copy", x0 + (view.n + view.n / 2) * w]].forEach(function (lbl) {
        var t = svg("text", { x: lbl[1], y: Hh - 6, class: "nt-lab-axis", "text-anchor": "middle" });
        t.textContent = lbl[0];
        s.appendChild(t);
      });
      var unit = svg("text", { x: x0, y: 9, class: "nt-lab-tick" });
      unit.textContent = "loss of each token (nats)";
      s.appendChild(unit);
      ui.clear(chart).appendChild(s);
      chart.appendChild(el("p", { class: "nt-legend" }, [
        el("span", { class: "nt-lab-key nt-lab-key-first" }), " first copy ", el("span", { class: "nt-lab-key nt-lab-key-second" }), " second copy",
        off ? el("span", {}, [" ", el("span", { class: "nt-lab-key nt-lab-key-dot" }), " with " + view.off.heads.length + " heads switched off"]) : null]));
    }

    function drawReadout() {
      readout.textContent = "Average loss: first copy " + nats(view.first) + " a token, second copy " + nats(view.second) +
        " (each copy's first token left out: nothing before it says what it is).";
    }

    function heads(list) { return list.map(function (lh) { return headName(lh[0], lh[1]); }).join(", "); }
    function drawOff() {
      ui.clear(offBox);
      var rows = [["all heads on", view.second, ""]];
      if (view.live) {
        if (view.offTop) rows.push(["the top " + view.offTop.heads.length + " induction heads off", view.offTop.second, heads(view.offTop.heads)]);
        if (view.offRandom) rows.push([view.offRandom.heads.length + " random heads off (seed " + view.offRandom.seed + ")", view.offRandom.second, heads(view.offRandom.heads)]);
      } else {
        rows.push(["the top " + view.knockout.heads.length + " induction heads off", view.knockout.second, heads(view.knockout.heads)]);
        var c = view.controls[controlAt];
        rows.push([c.heads.length + " random heads off (seed " + c.seed + ")", c.second, heads(c.heads)]);
        rows.push(["average of " + view.controls.length + " random draws", view.controlMean, ""]);
      }
      var top = Math.max.apply(null, rows.map(function (r) { return r[1]; }));
      offBox.appendChild(ui.bars(rows.map(function (r) {
        return { label: r[0], value: r[1] / top, text: nats(r[1]), data: { second: String(r[1]) } };
      }), { label: "The second copy's average loss" }));
      var named = rows.filter(function (r) { return r[2]; });
      offBox.appendChild(el("p", { class: "nt-note", text: named.map(function (r) { return r[0].charAt(0).toUpperCase() + r[0].slice(1) + ": " + r[2] + "."; }).join(" ") }));
    }

    function drawGrid() {
      var small = narrow(), cell = 20, gap = 2, x0 = small ? 26 : 40, y0 = small ? 26 : 16, W = x0 + L * (cell + gap), Hh = y0 + H * (cell + gap) + 4;
      var tick = small ? "nt-lab-tick nt-lab-tick-big" : "nt-lab-tick";
      var tops = {};
      view.top.forEach(function (lh) { tops[lh[0] + "," + lh[1]] = true; });
      var s = svg("svg", { viewBox: "0 0 " + W + " " + Hh, class: "nt-lab-svg nt-lab-grid", role: "img", "aria-label":
        "Induction scores of all " + L * H + " heads, blocks across, heads down. Highest: " +
        view.top.map(function (lh) { return headName(lh[0], lh[1]) + " " + ui.fix(view.scores[lh[0]][lh[1]], 2); }).join(", ") + "." });
      for (var l = 0; l < L; l++) {
        if (l === 0 || (l + 1) % 5 === 0) {
          var t = svg("text", { x: x0 + l * (cell + gap) + cell / 2, y: y0 - 5, class: tick, "text-anchor": "middle" });
          t.textContent = String(l + 1);
          s.appendChild(t);
        }
        for (var h = 0; h < H; h++) {
          var v = view.scores[l][h], r = svg("rect", { x: x0 + l * (cell + gap), y: y0 + h * (cell + gap), width: cell, height: cell, rx: 2,
            class: "nt-lab-cell" + (tops[l + "," + h] ? " nt-lab-cell-top" : "") });
          r.style.setProperty("--a", Math.max(0, Math.min(1, v)).toFixed(3));
          var tip = svg("title", {});
          tip.textContent = headName(l, h) + ": " + ui.fix(v, 3);
          r.appendChild(tip);
          s.appendChild(r);
        }
      }
      for (h = 0; h < H; h++) {
        var ht = svg("text", { x: x0 - 4, y: y0 + h * (cell + gap) + cell * 0.75, class: tick, "text-anchor": "end" });
        ht.textContent = small ? String(h + 1) : "head " + (h + 1);
        s.appendChild(ht);
      }
      ui.clear(gridBox).appendChild(s);
      gridBox.appendChild(el("p", { class: "nt-legend" }, [el("span", { text: "score 0" }), el("span", { class: "nt-lab-ramp", "aria-hidden": "true" }), el("span", { text: "1 (all its attention on that token)" })]));
      ui.clear(topList);
      view.top.forEach(function (lh) {
        topList.appendChild(el("li", { "data-layer": String(lh[0]), "data-head": String(lh[1]), "data-score": String(view.scores[lh[0]][lh[1]]) },
          [headName(lh[0], lh[1]) + ": " + ui.fix(view.scores[lh[0]][lh[1]], 3)]));
      });
    }

    function draw() {
      drawSource();
      drawSeq();
      drawChart();
      drawReadout();
      drawOff();
      drawGrid();
      modelReady();
      root.setAttribute("data-view", view.live ? "live" : "stored");
    }

    // ---- live runs ------------------------------------------------------------------------------
    function fail(err, where) {
      root.removeAttribute("data-busy");
      if (err && err.message === "cancelled") return;
      (where || msg).show((err && err.message ? err.message : String(err)) + ".", "error");
    }

    // One pass: every position's loss, and (asked) every head's attention shares; heads: the heads
    // switched off ([[layer, head]...]), the knock-out real.sweep makes of them (zero ablation).
    function pass(model, ids, heads, kinds) {
      return loadSweep().then(function (sweep) {
        var knockout = sweep.knockout({ parts: (heads || []).map(function (lh) { return ["head", lh[0], lh[1]]; }), mode: "zero" }, { config: model.config });
        return model.session.prefill(ids, { every: 1, kinds: !!kinds, knockout: knockout });
      }).then(function (out) {
        return { losses: lab.perToken(out.every, ids.length).losses, kinds: out.kinds || null };
      });
    }

    function run(seq, seed, words) {
      var model = store.get("real.loaded");
      if (!model) return;
      var my = ++gen, ids = lab.copyPrompt(C.start_id, seq), n = seq.length, sl = lab.copySlices(n);
      msg.clear();
      offMsg.clear();
      root.setAttribute("data-busy", "");
      drawSource("Running " + model.name + " on " + ids.length + " tokens…");
      pass(model, ids, null, true).then(function (got) {
        if (my !== gen) return;
        if (!got.kinds) throw new Error("this engine gives no attention shares (opts.kinds)");
        var scores = got.kinds.map(function (layer) {
          var row = [];
          for (var h = 0; h < H; h++) row.push(layer[h * 5 + INDUCTION]);
          return row;
        });
        var ranked = [];
        scores.forEach(function (row, l) { row.forEach(function (v, h) { ranked.push([v, l, h]); }); });
        ranked.sort(function (a, b) { return b[0] - a[0] || a[1] - b[1] || a[2] - b[2]; });
        var k = C.knockout.heads.length;
        view = { live: true, seed: seed, typed: words, ids: ids, pieces: model.tokenizer.pieces(ids).map(function (p) { return p.text === null ? "[" + p.label + "]" : p.text; }),
                 n: n, losses: got.losses, first: lab.mean(got.losses, sl.first[0], sl.first[1]), second: lab.mean(got.losses, sl.second[0], sl.second[1]),
                 scores: scores, top: ranked.slice(0, k).map(function (r) { return [r[1], r[2]]; }), off: null, offTop: null, offRandom: null, randomSeed: C.controls[0].seed };
        root.removeAttribute("data-busy");
        draw();
        root.setAttribute("data-pass", String(my));
      }).then(null, fail);
    }

    function runSeed(seed) {
      if (!store.get("real.loaded")) return;
      var model = store.get("real.loaded");
      var seq = lab.sequence(lab.pool(model.tokenizer.tokens || tokensOf(model.tokenizer), C.pool.pattern), seed, C.length);
      typed.value = "";
      run(seq, seed, null);
    }
    // The vocabulary's stored tokens (byte-level strings), read through the tokenizer's pieces.
    var vocab = null;
    function tokensOf(tk) {
      if (!vocab) {
        var ids = [];
        for (var i = 0; i < tk.vocabSize; i++) ids.push(i);
        vocab = tk.pieces(ids).map(function (p) { return p.token; });
      }
      return vocab;
    }
    function runTyped(text) {
      var model = store.get("real.loaded");
      if (!model) return;
      var enc = model.tokenizer.encode(text.trim() ? " " + text.trim() : text);
      if (!enc.ok) { msg.show(enc.error.message, "error"); return; }
      if (enc.ids.length < 2) { msg.show("Type at least two tokens: a copy of one token says nothing.", "error"); return; }
      if (enc.ids.length > MAX_WORDS) { msg.show("That is " + enc.ids.length + " tokens; the sequence here holds at most " + MAX_WORDS + " (it is shown twice).", "error"); return; }
      run(enc.ids, null, text.trim());
    }

    // which: "top" | "random"; from: the button the reader pressed (none when a link is restored). The
    // answer is the chart's dots, above the buttons: brought into view for a press.
    function knock(which, from) {
      offMsg.clear();
      if (!view.live) {  // the stored runs: the build switched the same heads off
        shownOff = which;
        if (which === "random") controlAt = (controlAt + 1) % view.controls.length;
        view.off = which === "top" ? view.knockout : view.controls[controlAt];
        draw();
        if (from) ui.reveal(chart, from);
        return;
      }
      var model = store.get("real.loaded");
      if (!model) return;
      var k = C.knockout.heads.length, heads;
      if (which === "top") heads = view.top;
      else { view.randomSeed = view.offRandom ? view.offRandom.seed + 1 : C.controls[0].seed; heads = lab.randomHeads(view.randomSeed, k, L, H, view.top); }
      var my = gen, sl = lab.copySlices(view.n), seed = view.randomSeed;
      root.setAttribute("data-busy", "");
      pass(model, view.ids, heads).then(function (got) {
        if (my !== gen) return;
        var off = { heads: heads, losses: got.losses, second: lab.mean(got.losses, sl.second[0], sl.second[1]), seed: seed };
        if (which === "top") view.offTop = off; else view.offRandom = off;
        view.off = off;
        shownOff = which;
        root.removeAttribute("data-busy");
        draw();
        if (from) ui.reveal(chart, from);
        root.setAttribute("data-pass", String(my) + which);
      }).then(null, function (err) { fail(err, offMsg); });
    }

    draw();

    permalink.join(root, live, {
      fields: { seed: permalink.int(0, 1000000), words: permalink.text(600), off: permalink.one(["none", "top", "random"]) },
      get: function () {
        var s = { off: view.off ? shownOff : "none" };
        if (view.typed !== null && view.typed !== undefined) s.words = view.typed; else s.seed = view.seed;
        return s;
      },
      set: function (s) {
        var wantsLive = (s.seed !== undefined && s.seed !== C.seed) || s.words;
        if (!wantsLive) { if (s.off && s.off !== "none") knock(s.off); return ""; }
        if (!store.get("real.loaded")) {
          if (s.words) typed.value = s.words;
          return "This link runs " + (s.words ? "your words" : "the sequence of seed " + s.seed) + " live, which needs the model: press Load above; the stored sequence shows meanwhile.";
        }
        if (s.words) runTyped(s.words); else runSeed(s.seed);
        return "";
      },
      tables: function () {
        var lossRows = view.losses.map(function (v, t) {
          return [t + 1, view.ids[t + 1], view.pieces[t + 1], t + 1 <= view.n ? "first" : "second", v, view.off ? view.off.losses[t] : null];
        });
        var headRows = [];
        view.scores.forEach(function (row, l) { row.forEach(function (v, h) { headRows.push([l + 1, h + 1, v]); }); });
        return [{ name: "losses", columns: ["position", "id", "token", "copy", "loss_nats", "loss_with_heads_off"], rows: lossRows },
                { name: "induction_scores", columns: ["block", "head", "score"], rows: headRows }];
      } });
  });
});
