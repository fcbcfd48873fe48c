// SmolLM2's whole next-token distribution: every one of the vocabulary's bars on a canvas,
// temperature, top-k and top-p over it, a seeded draw that marks where u fell, the top tokens as a
// list. It shows either a stored prompt
// (data.smollm2-dist-index with the page, data.smollm2-dist-<key> loaded on demand by nexttoken's
// loader: no fetch from file://; the head exact, the tail from rank buckets) or the live pass that
// demos.real-ask publishes as the store's "real.pass" (every logit, from the model in the page).
// The token the inside view follows ("real.target") gets a line under the list: its probability at the
// temperature shown, its rank and logit (a pair: their logit difference).
// Store (keys declared in js/nexttoken.js): it writes "real.stored" (the stored prompt's whole record,
// once shown: real-inside draws its lens and heads; with the model loaded, real-ask runs it live) and
// "real.sampling" ({T, k, p, seed}, whenever a control moves), and "real.linked" (a link's live prompt, for
// the panel's box); it reads "real.pass" and "real.model".
// Container attributes: data-prompt (the first stored prompt), data-choices (keys shown as one-click
// buttons instead of the menu).
nexttoken.define("demos.real-distribution", ["ui", "store", "ui.real-badge", "runtime.kernels", "runtime.sampling", "data.smollm2-dist-index", "later:data.smollm2-dist-*", "ui.permalink", "real.bars"],
  function (ui, store, badge, kernels, sampling, index, loadPrompt, permalink, bars) {
  "use strict";

  // Every rank's logit, sorted (js/real/bars.js: the head as stored, each tail bucket redrawn).
  var expand = bars.expand;

  var el = ui.el;

  function css(node, name, fallback) {
    var v = getComputedStyle(node).getPropertyValue(name).trim();
    return v || fallback;
  }

  function show(piece) { return piece.replace(/ /g, "·").replace(/\n/g, "↵"); }
  // A token of the live tokenizer (real.tokenizer's pieces): its text, or its bytes when it holds part of a character.
  function showPiece(pc) { return pc.text === null ? "[" + pc.label + "]" : show(pc.text); }

  // The live pass as the canvas reads a distribution: logits sorted most likely first, with the id
  // of every rank (the stored files keep ids for their head only).
  function livePass(pass) {
    var raw = pass.result.logits, V = raw.length, order = Uint32Array.from(kernels.argsort(raw)), i;  // largest first, ties by id
    var logits = new Float64Array(V);
    for (i = 0; i < V; i++) logits[i] = raw[order[i]];
    return { V: V, logits: logits, order: order, pass: pass };
  }

  ui.start("real-distribution", function (root, live) {
    var q = index.quantisation;
    // scale: "rank" (rank on a log scale, probability from zero: the landing page's chart), "log" (both on log
    // scales: every bar of the tail) or "lin" (both linear)
    var state = { key: root.getAttribute("data-prompt") || index.prompts[0].key, T: 1, k: 0, p: 1, scale: "rank", cursor: 0,
      seed: 1, draws: 0, u: null };
    function xLog() { return state.scale !== "lin"; }
    function yLog() { return state.scale === "log"; }
    // d: the stored prompt's data; lp: the live pass (livePass) while it is shown, else null
    var d = null, lp = null, logits = null, probs = null, cut = null, V = index.vocab_size || 0;
    var msg = ui.message();
    var choices = (root.getAttribute("data-choices") || "").split(/\s+/).filter(Boolean);
    function promptLabel(pr) { return (pr.chat ? "[chat template] " : "") + pr.text.replace(/\n/g, " ↵ "); }
    function entryOf(key) { return index.prompts.filter(function (pr) { return pr.key === key; })[0]; }

    var pick, pickButtons = [];
    if (choices.length) {  // a few stored prompts, one click each
      pick = { wrap: el("div", { class: "nt-choices", role: "group", "aria-label": "Stored prompts (instant, measured by the build)" }) };
      choices.forEach(function (key) {
        var b = ui.button(promptLabel(entryOf(key)), function () { choose(key); });
        b.setAttribute("data-key", key);
        pickButtons.push(b);
        pick.wrap.appendChild(b);
      });
    } else {
      // one menu, one state: the stored prompts (instant: measured by the build), and while the panel above
      // shows the reader's own prompt, that one, chosen; choosing a stored one goes back to it
      pick = ui.select("Prompt", index.prompts.map(function (pr) {
        return { value: pr.key, label: promptLabel(pr) };
      }), state.key, function (v) { if (v !== LIVE) choose(v); });
      var stored = el("optgroup", { label: "Stored (instant: measured by the build)" });
      while (pick.input.firstChild) stored.appendChild(pick.input.firstChild);
      pick.input.appendChild(stored);
    }
    var LIVE = "live", liveOption = el("option", { value: LIVE });
    // the live prompt in the menu (or, with one button per stored prompt, none of them pressed)
    function showLive(text) {
      pickButtons.forEach(function (b) { b.setAttribute("aria-pressed", "false"); });
      if (!pick.input) return;
      liveOption.textContent = "Your prompt, run live: “" + (text.length > 60 ? text.slice(0, 60) + "…" : text) + "”";
      if (liveOption.parentNode !== pick.input) pick.input.insertBefore(liveOption, pick.input.firstChild);
      pick.input.value = LIVE;
    }
    function hideLive() { if (liveOption.parentNode) liveOption.parentNode.removeChild(liveOption); }
    var state_ = badge(), sourceText = el("span", { "data-role": "source-text" });
    var sourceLine = el("p", { class: "nt-source-line", "data-role": "source", "aria-live": "polite" }, [state_.node, sourceText]);
    var shape = el("p", { class: "nt-note" });
    var tokensLine = el("p", { class: "nt-note" });
    var provenance = el("p", { class: "nt-note", "data-role": "quantisation",
      text: "Measured on " + index.weights_file + ": a " + q.bits + "-bit quantised file (" + q.file_type +
        "), de-quantised and run in " + index.compute_dtype + "." });

    var tSlider = ui.slider("Temperature", 0.1, 3, 0.05, 1, function (v) { state.T = v; recompute(); }, function (v) { return v.toFixed(2); });
    var kSlider = ui.slider("Top-k (0 = off)", 0, 2000, 1, 0, function (v) { state.k = v; update(); }, function (v) { return v ? String(v) : "off"; });
    var pSlider = ui.slider("Top-p", 0.05, 1, 0.01, 1, function (v) { state.p = v; update(); }, function (v) { return v >= 1 ? "off" : v.toFixed(2); });
    var scale = ui.radios("Scale", [{ value: "rank", label: "log rank (as on the first page)" },
      { value: "log", label: "log rank and probability" }, { value: "lin", label: "linear" }], state.scale,
      function (v) { state.scale = v; draw(); ui.reveal(canvas, scale); });
    // The seeded draw: u from mulberry32(seed), one more per press; the pick is where u falls on the
    // kept tokens laid end to end (renormalised), recomputed as the controls move with u held.
    var seedInput = el("input", { type: "number", min: "0", step: "1", value: "1", class: "nt-input nt-seed", "data-role": "seed" });
    var rng = sampling.mulberry32(state.seed);
    seedInput.addEventListener("change", function () {
      var v = sampling.validate({ seed: seedInput.value }, V || 1);
      state.seed = v.opts.seed;
      seedInput.value = String(state.seed);
      rng = sampling.mulberry32(state.seed);
      state.draws = 0;
      state.u = null;
      if (v.warnings.length) msg.show(v.warnings[0], "warn");
      update();
    });
    var drawButton = ui.button("Draw", function () {
      state.u = rng();
      state.draws += 1;
      update();
      ui.reveal(canvas, drawButton);  // where u fell: the line on the bars above
    });
    drawButton.setAttribute("data-role", "draw-button");
    var drawLine = el("p", { class: "nt-readout", "data-role": "draw", "aria-live": "polite" });
    var topList = el("ol", { class: "nt-top-list", "data-role": "top", "aria-label": "The most likely tokens" });
    var targetLine = el("p", { class: "nt-readout", "data-role": "target-line", "aria-live": "polite", hidden: true });
    var survivors = el("p", { class: "nt-survivors", "data-role": "survivors", "aria-live": "polite" });
    var canvas = el("canvas", { class: "nt-dist-canvas", tabindex: "0", role: "img",
      "aria-label": "Every token's probability, most likely first. Arrow keys move along the ranks (Shift: 100 at a time, Home and End)." });
    var axes = el("p", { class: "nt-note", "data-role": "axes" });
    var readout = el("p", { class: "nt-readout", "data-role": "readout", "aria-live": "polite" });

    // Each answer next to its control: the bars right under the menu that picks the prompt, the controls
    // that reshape them right under the bars, the draw's line under its button; the prompt's notes last.
    live.appendChild(el("div", { class: "nt-controls" }, [pick.wrap]));
    live.appendChild(sourceLine);
    // the stored prompt's line at once (the index has its words), so the bars do not move down when its record comes
    if (entryOf(state.key)) { state_.set("stored"); sourceText.textContent = storedLine(entryOf(state.key)); }
    live.appendChild(msg.node);
    live.appendChild(ui.section("All the bars", [canvas, axes,
      el("div", { class: "nt-controls" }, [tSlider.wrap, kSlider.wrap, pSlider.wrap, scale]), survivors,
      el("div", { class: "nt-controls nt-draw-row" }, [ui.field("Seed", seedInput), drawButton]), drawLine, readout,
      el("p", { class: "nt-note", text: "The most likely tokens (after the temperature; cut ones are marked):" }), topList, targetLine]));
    live.appendChild(shape);
    live.appendChild(tokensLine);
    live.appendChild(provenance);

    // A stored prompt: shown at once (with the model loaded, the panel above then runs it live).
    function choose(key) {
      state.key = key;
      lp = null;
      load();
    }

    function load() {
      msg.clear();
      var entry = entryOf(state.key);
      pickButtons.forEach(function (b) { b.setAttribute("aria-pressed", String(b.getAttribute("data-key") === entry.key)); });
      hideLive();
      if (pick.input && pick.input.value !== entry.key) pick.input.value = entry.key;
      root.removeAttribute("data-loaded");
      loadPrompt(entry.file.replace(/^smollm2-dist-|\.js$/g, "")).then(function (got) {
        if (state.key === entry.key && !lp) setData(got);
      }, function (err) { msg.show(err.message + " (is the js/data folder beside this page?).", "error"); });
    }

    // A stored record on show; `quiet`: shown here only (the way back from a live pass), not published.
    function storedLine(pr) {
      return "“" + pr.text.replace(/\n/g, " ↵ ") + "”" + (pr.chat ? " in the chat template" : "") + ": measured by the build with transformers.";
    }
    function setData(data, quiet) {
      d = data;
      lp = null;
      V = d.vocab_size;
      logits = expand(d);
      state.cursor = 0;
      state_.set("stored");
      sourceText.textContent = storedLine(d);
      shape.hidden = false;
      provenance.hidden = false;
      shape.textContent = "The prompt: " + d.shape + ". Its bars: " + d.bars + ".";
      tokensLine.hidden = false;
      tokensLine.textContent = d.tokens.length + " tokens in: " + d.tokens.map(show).join(" | ");
      // the whole vocabulary's bars in a task of their own: the page answers the reader in between (a stored record
      // arrives as the page starts, when its other scripts run too)
      setTimeout(function () {
        if (d !== data || lp) return;  // another prompt, or a live pass, came first
        recompute();
        if (!quiet) store.set("real.stored", d);
        root.setAttribute("data-loaded", d.key);
        root.setAttribute("data-source", "stored");
      }, 0);
    }

    // The live pass demos.real-ask published; null: back to the stored prompt.
    function setLive(pass) {
      if (!pass) {
        if (lp) { lp = null; load(); }
        return;
      }
      lp = livePass(pass);
      V = lp.V;
      logits = lp.logits;
      state.cursor = 0;
      var text = pass.text.replace(/\n/g, " ↵ ");
      state_.set(badge.of(pass));
      sourceText.textContent = "“" + (text.length > 80 ? text.slice(0, 80) + "…" : text) + "”" + (pass.chat ? " in the chat template" : "") +
        ": run by " + (pass.name || "the model") + (pass.ms ? " in " + (pass.ms / 1000).toFixed(2) + " s." : ".");
      shape.hidden = true;
      provenance.hidden = true;
      tokensLine.hidden = true;  // the panel above shows them, with their ids
      showLive(text);
      recompute();
      if (pass.asked) ui.reveal(canvas, null);  // the reader pressed Run or Enter above: here are the bars
      root.setAttribute("data-loaded", "live");
      root.setAttribute("data-source", "live");
    }
    store.subscribe("real.pass", setLive);

    function publish() { store.set("real.sampling", { T: state.T, k: state.k, p: state.p, seed: state.seed }); }

    function recompute() {
      if (!logits) return;
      probs = kernels.softmax(logits, 0, logits.length, probs && probs.length === logits.length ? probs : new Float64Array(logits.length), 0, state.T);
      update();
    }

    // Where u falls on the kept tokens laid end to end: the rank drawn (u of the renormalised mass).
    function drawnRank() {
      if (state.u === null) return -1;
      var target = state.u * cut.mass, cum = 0;
      for (var r = 0; r < cut.kept; r++) { cum += probs[r]; if (target < cum) return r; }
      return cut.kept - 1;
    }

    function update() {
      if (!logits) return;
      cut = kernels.cut(probs, state.k, state.p);
      survivors.textContent = ui.count(cut.kept) + " of " + ui.count(V) + " tokens survive, holding " + ui.pct(cut.mass, 1) +
        " of the probability; the other " + ui.count(V - cut.kept) + " hold " + ui.pct(1 - cut.mass, 1) + ".";
      state.drawn = drawnRank();
      draw();
      report();
      reportDraw();
      renderTop();
      renderTarget();
      publish();
      root.setAttribute("data-drawn", String(++drawCount));  // for tests and bench_ask: bars redrawn
    }
    var drawCount = 0;

    // A rank's token: its text with the leading-space dot, or null for a stored tail rank.
    function pieceAt(r) {
      var m = store.get("real.model");  // null once a stopped model was let go (real-ask's lost)
      if (lp) return m ? showPiece(m.tokenizer.pieces([lp.order[r]])[0]) : null;
      return r < d.head.pieces.length ? show(d.head.pieces[r]) : null;
    }
    function idAt(r) {
      if (lp) return lp.order[r];
      return r < d.head.ids.length ? d.head.ids[r] : null;
    }

    function reportDraw() {
      if (state.u === null) {
        drawLine.textContent = "Press Draw: a random number u from the seed " + state.seed + " picks a token, each with its share of what the cuts keep.";
        return;
      }
      var r = state.drawn, piece = pieceAt(r);
      drawLine.textContent = "Draw " + state.draws + " with seed " + state.seed + ": u = " + state.u.toFixed(4) +
        " fell on rank " + ui.count(r + 1) + ", " + (piece === null ? "a token of the stored tail" : "“" + piece + "”") +
        " (" + ui.pct(probs[r] / cut.mass, 2) + " of what the cuts keep). Move the temperature: the same u lands elsewhere.";
    }

    function renderTop() {
      ui.clear(topList);
      var n = Math.min(10, V);
      for (var r = 0; r < n; r++) {
        var id = idAt(r), kept = r < cut.kept;
        topList.appendChild(el("li", { class: kept ? null : "nt-cut", "data-id": id === null ? null : String(id) }, [
          el("code", { text: pieceAt(r) }), " ",
          el("span", { class: "nt-hint", text: id === null ? "" : "id " + id }), " ",
          ui.pct(probs[r], 2) + (kept ? "" : " (cut)") + (r === state.drawn ? " ← drawn" : "")]));
      }
    }

    // The followed token: its rank here (live: every rank's id is known; stored: the exact head only).
    function rankOf(id) {
      if (lp) { for (var r = 0; r < V; r++) if (lp.order[r] === id) return r; return -1; }
      return d ? d.head.ids.indexOf(id) : -1;
    }
    function renderTarget() {
      var t = store.get("real.target");
      targetLine.hidden = !t;
      if (!t) return;
      var r = t.ids.map(rankOf), names = t.pieces.map(show);
      if (r.some(function (x) { return x < 0; })) {
        targetLine.textContent = "Your token " + names.join(" and ") + ": below rank " + ui.count(d.head.ids.length) + " here; the build stored the top " + ui.count(d.head.ids.length) + " exactly (load the model for every rank).";
        return;
      }
      targetLine.textContent = t.ids.length === 1
        ? "Your token " + names[0] + ": " + ui.pct(probs[r[0]], 2) + (state.T === 1 ? "" : " at this temperature") + ", rank " + ui.count(r[0] + 1) + " of " + ui.count(V) + ", logit " + ui.fix(logits[r[0]], 2) + "."
        : "Your pair " + names[0] + " − " + names[1] + ": logit difference " + ui.fix(logits[r[0]] - logits[r[1]], 2) + " (ranks " + ui.count(r[0] + 1) + " and " + ui.count(r[1] + 1) + ").";
    }
    store.subscribe("real.target", function () { if (logits && probs) renderTarget(); });

    // The plot's box inside the canvas (device pixels): room on the left and below for the axes.
    var box = { x0: 0, x1: 1, y0: 0, y1: 1 };
    function xOf(rank) {
      var f = xLog() ? Math.log(rank + 1) / Math.log(V) : rank / V;
      return box.x0 + f * (box.x1 - box.x0);
    }
    function rankAt(x) {
      var f = (x - box.x0) / (box.x1 - box.x0);
      var r = xLog() ? Math.exp(f * Math.log(V)) - 1 : f * V;
      return Math.max(0, Math.min(V - 1, Math.floor(r)));
    }

    // A power of ten as [base, exponent]; label() draws the exponent raised and smaller (Unicode
    // superscripts are too small to read at 11 px).
    var face = "sans-serif";  // the page's text face, read from --nt-font-text at each draw
    function power(e) { return e === 0 ? ["1", ""] : ["10", String(e).replace("-", "−")]; }
    function labelWidth(g, t, font) {
      if (typeof t === "string") return g.measureText(t).width;
      var w = g.measureText(t[0]).width, f = g.font;
      g.font = Math.round(font * 0.8) + "px " + face;
      w += g.measureText(t[1]).width;
      g.font = f;
      return w;
    }
    // Draws t (a string or a power) with its right edge (align "right") or centre (align "center") at x.
    function label(g, t, x, y, align, font) {
      var w = labelWidth(g, t, font), left = align === "right" ? x - w : x - w / 2;
      var base = g.textAlign;
      g.textAlign = "left";
      if (typeof t === "string") g.fillText(t, left, y);
      else {
        g.fillText(t[0], left, y);
        var f = g.font, w0 = g.measureText(t[0]).width;
        g.font = Math.round(font * 0.8) + "px " + face;
        g.fillText(t[1], left + w0, y - font * 0.35);
        g.font = f;
      }
      g.textAlign = base;
    }
    // Probability ticks: linear from zero in steps of 1, 2 or 5 times a power of ten (at most five
    // below the top bar); log at the powers of ten between the smallest and the largest bar.
    function yTicks(top, min) {
      var out = [];
      if (yLog()) {
        for (var e = Math.ceil(Math.log10(min)); e <= Math.floor(Math.log10(top)); e++) out.push([Math.pow(10, e), power(e)]);
        var every = Math.ceil(out.length / 5);
        return out.filter(function (_, i) { return (out.length - 1 - i) % every === 0; });
      }
      var step = ui.tickStep(top, 5);
      var digits = Math.max(0, -Math.floor(Math.log10(step * 100) + 1e-9));
      for (var i = 0; i * step <= top * (1 + 1e-9); i++) out.push([i * step, (i * step * 100).toFixed(digits) + "%"]);
      return out;
    }
    // Rank ticks: 1 and every 10,000 (linear), the powers of ten (log); ranks count from 1.
    function xTicks() {
      var out = [[0, "1"]];
      if (xLog()) for (var e = 1; Math.pow(10, e) < V; e++) out.push([Math.pow(10, e) - 1, power(e)]);
      else for (var r = 10000; r < V; r += 10000) out.push([r - 1, ui.count(r)]);
      return out;
    }

    function draw() {
      if (!logits || !cut) return;
      var dpr = window.devicePixelRatio || 1;
      var W = Math.max(1, Math.round(canvas.clientWidth * dpr)), H = Math.max(1, Math.round(canvas.clientHeight * dpr));
      if (canvas.width !== W) canvas.width = W;
      if (canvas.height !== H) canvas.height = H;
      var g = canvas.getContext("2d");
      var fg = css(canvas, "--md-default-fg-color", "#000"), faint = css(canvas, "--md-default-fg-color--lighter", "#bbb");
      var light = css(canvas, "--md-default-fg-color--light", "#666");
      // the kept bars are values: the palette's orange, as every other bar of probabilities on the site
      var accent = css(canvas, "--nt-pos", "#d55e00"), bg = css(canvas, "--md-default-bg-color", "#fff");
      var font = Math.round(11 * dpr);
      face = css(canvas, "--nt-font-text", "") || "sans-serif";
      g.font = font + "px " + face;
      g.fillStyle = bg;
      g.fillRect(0, 0, W, H);
      var caption = state.scale === "log"
        ? "Across: rank, most likely first, on a log scale. Up: probability, on a log scale from the smallest bar."
        : state.scale === "rank"
          ? "Across: rank, most likely first, on a log scale (1 to " + ui.count(V) + "). Up: probability, from zero, so the long tail lies flat."
          : "Across: rank, most likely first (" + ui.count(V) + " ranks). Up: probability, from zero.";
      if (axes.textContent !== caption) axes.textContent = caption;  // draw runs on every cursor move
      var top = probs[0], min = Math.max(probs[V - 1], 1e-300), minLog = Math.log(min);
      var yt = yTicks(top, min), labelW = 0;
      yt.forEach(function (t) { labelW = Math.max(labelW, labelWidth(g, t[1], font)); });
      box = { x0: Math.ceil(labelW + 8 * dpr), x1: W - 6 * dpr, y0: 8 * dpr, y1: Math.floor(H - font - 8 * dpr) };
      canvas.setAttribute("data-plot", [box.x0, box.y0, box.x1, box.y1].join(" "));  // for tests: the plot's box
      function y(p) {
        var f = yLog() ? (Math.log(p) - minLog) / (Math.log(top) - minLog) : p / top;
        return box.y1 - Math.max(0, f) * (box.y1 - box.y0);
      }
      // axes: probability on the left (zero-based in the linear view), rank below
      g.fillStyle = light;
      g.strokeStyle = faint;
      g.lineWidth = dpr;
      g.textBaseline = "middle";
      g.textAlign = "right";
      yt.forEach(function (t) {
        var yy = Math.round(y(t[0])) + 0.5;
        g.beginPath(); g.moveTo(box.x0 - 4 * dpr, yy); g.lineTo(box.x1, yy); g.stroke();
        label(g, t[1], box.x0 - 6 * dpr, yy, "right", font);
      });
      g.textBaseline = "top";
      g.textAlign = "center";
      xTicks().forEach(function (t) {
        var xx = Math.round(xOf(t[0])) + 0.5;
        g.beginPath(); g.moveTo(xx, box.y1); g.lineTo(xx, box.y1 + 4 * dpr); g.stroke();
        var half = labelWidth(g, t[1], font) / 2;
        label(g, t[1], Math.min(Math.max(xx, half), W - half), box.y1 + 5 * dpr + (typeof t[1] === "string" ? 0 : 0.3 * font), "center", font);
      });
      g.textAlign = "left";
      // One column per device pixel: ranks are sorted, so a column's tallest bar is its first rank
      // (in the log view the first ranks are several columns wide).
      for (var x = Math.ceil(box.x0); x < box.x1; x++) {
        var r = rankAt(x);
        var yy = y(probs[r]);
        g.fillStyle = r < cut.kept ? accent : faint;
        g.fillRect(x, yy, 1, box.y1 - yy);
      }
      g.strokeStyle = fg;
      g.fillStyle = fg;
      // the axes sit just outside the plot, so rank 1's column (the tallest bar) stays visible
      g.beginPath(); g.moveTo(box.x0 - 0.5, box.y0); g.lineTo(box.x0 - 0.5, box.y1 + 0.5); g.lineTo(box.x1, box.y1 + 0.5); g.stroke();
      // the cuts, each labelled with the mass on its left (the mass on the right is the rest)
      [[cut.kCut, "top-k", cut.kMass], [cut.kept, "top-p", cut.mass]].forEach(function (c, i) {
        if (c[0] >= V || (i === 1 && c[0] === cut.kCut)) return;
        var cx = Math.round(xOf(c[0])) + 0.5;
        g.setLineDash([4 * dpr, 3 * dpr]);
        g.beginPath(); g.moveTo(cx, box.y0); g.lineTo(cx, box.y1); g.stroke();
        g.setLineDash([]);
        var text = c[1] + ": " + ui.pct(c[2], 1) + " | " + ui.pct(1 - c[2], 1);
        var tw = g.measureText(text).width;
        g.fillText(text, Math.min(cx + 3 * dpr, W - tw - 2 * dpr), box.y0 + (10 + 14 * i) * dpr);
      });
      // the reader's rank: a marker above the plot, not a line over the bars
      var cx2 = Math.round(xOf(state.cursor)) + 0.5;
      g.beginPath(); g.moveTo(cx2 - 4 * dpr, 0); g.lineTo(cx2 + 4 * dpr, 0); g.lineTo(cx2, box.y0 - dpr); g.closePath(); g.fill();
      // where the draw's u fell: a solid line at the rank it picked, labelled inside the plot under the cuts'
      // labels, on a patch of the background (it sat on the axis, over the 0% line, and read as a tick)
      if (state.drawn >= 0) {
        var ux = Math.round(xOf(state.drawn)) + 0.5;
        g.lineWidth = 2 * dpr;
        g.beginPath(); g.moveTo(ux, box.y0); g.lineTo(ux, box.y1); g.stroke();
        g.lineWidth = dpr;
        var ut = "u → rank " + (state.drawn + 1), uw = g.measureText(ut).width;
        var lx = Math.min(ux + 4 * dpr, W - uw - 2 * dpr), ly = box.y0 + 40 * dpr;
        g.fillStyle = bg;
        g.fillRect(lx - 2 * dpr, ly - 2 * dpr, uw + 4 * dpr, font + 4 * dpr);
        g.fillStyle = fg;
        g.fillText(ut, lx, ly);
        canvas.setAttribute("data-u-label", [lx - 2 * dpr, ly - 2 * dpr, lx + uw + 2 * dpr, ly + font + 2 * dpr].map(Math.round).join(" "));  // for tests
      } else canvas.removeAttribute("data-u-label");
    }

    function report() {
      var r = state.cursor, text, piece = pieceAt(r);
      if (piece !== null) {
        text = "Rank " + (r + 1) + ": “" + piece + "”" + (lp ? " (id " + idAt(r) + ")" : "") + ", " + ui.pct(probs[r], 2) + ".";
      } else {
        var b = d.tail.buckets.filter(function (bk) { return r >= bk.start && r < bk.start + bk.count; })[0];
        text = "Rank " + (r + 1) + ": one of the tokens of ranks " + (b.start + 1) + " to " + (b.start + b.count) +
          " (kept as a summary, not by name), about " + ui.pct(probs[r], 4) + " each.";
      }
      text += r < cut.kept ? " It survives the cuts." : " It is cut.";
      readout.textContent = text;
    }

    function move(r) { state.cursor = Math.max(0, Math.min(V - 1, r)); draw(); report(); }
    canvas.addEventListener("mousemove", function (e) {
      if (!logits) return;
      var rect = canvas.getBoundingClientRect();
      move(rankAt((e.clientX - rect.left) / rect.width * canvas.width));
    });
    canvas.addEventListener("keydown", function (e) {
      if (!logits) return;
      var step = e.shiftKey ? 100 : 1, r = state.cursor;
      if (e.key === "ArrowRight") r += step;
      else if (e.key === "ArrowLeft") r -= step;
      else if (e.key === "Home") r = 0;
      else if (e.key === "End") r = V - 1;
      else return;
      e.preventDefault();
      move(r);
    });
    window.addEventListener("resize", draw);
    if (document.fonts) document.fonts.addEventListener("loadingdone", draw);  // a canvas keeps the face it was drawn with
    // Material switches the colour scheme by an attribute on <body>: redraw in the new colours.
    new MutationObserver(draw).observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });

    if (store.get("real.pass")) setLive(store.get("real.pass"));
    else load();

    // Its state in the page's link: the stored prompt (or the live one, which needs the model loaded
    // above), the controls and the draws; every rank's probability as a download (js/ui/permalink.js).
    var radio = function (v) { var r = scale.querySelector('input[value="' + v + '"]'); if (r) r.checked = true; };
    // A link's state applied (any subset of the fields below); `quiet`: for a link to a view further
    // down, which says what it needs itself: no line, no button here.
    function apply(s, quiet) {
      if (s.T !== undefined) { state.T = s.T; tSlider.set(s.T); }
      if (s.k !== undefined) { state.k = s.k; kSlider.set(s.k); }
      if (s.p !== undefined) { state.p = s.p; pSlider.set(s.p); }
      if (s.scale !== undefined) { state.scale = s.scale; radio(s.scale); }
      if (s.seed !== undefined) { state.seed = s.seed; seedInput.value = String(s.seed); }
      rng = sampling.mulberry32(state.seed);
      state.draws = s.draws || 0;
      state.u = null;
      for (var i = 0; i < state.draws; i++) state.u = rng();
      choose(s.key || state.key);
      if (s.live !== "1" || !s.text) return "";
      // the live prompt goes into the panel above; it runs when the reader loads the model
      store.set("real.linked", { text: s.text, chat: s.chat === "1" });
      return quiet ? "" : badge.needsModel("shows SmolLM2 run live on a prompt of its own", sourceLine);
    }
    // a link to the inside view or the writers names the prompt (and the writers' cuts and seed) they were made with
    store.subscribe("real.inside-link", function (s) { if (s) apply(s, true); });
    store.subscribe("real.writers-link", function (s) { if (s) apply(s, true); });
    permalink.join(root, live, {
      fields: { key: permalink.one(index.prompts.map(function (pr) { return pr.key; })), T: permalink.num(0.1, 3), k: permalink.int(0, 2000),
        p: permalink.num(0.05, 1), scale: permalink.one(["rank", "log", "lin"]), seed: permalink.int(0, 4294967295), draws: permalink.int(0, 10000),
        live: permalink.flag(), text: permalink.text(2000), chat: permalink.flag() },
      get: function () {
        var s = { key: state.key, T: state.T, k: state.k, p: state.p, scale: state.scale, seed: state.seed, draws: state.draws };
        if (lp) { s.live = "1"; s.text = lp.pass.text; s.chat = lp.pass.chat ? "1" : "0"; }
        return s;
      },
      set: function (s) { return apply(s, false); },
      tables: function () {
        if (!logits) throw new Error("no distribution is on show yet");
        var rows = [];
        for (var r = 0; r < V; r++) rows.push([r, idAt(r), pieceAt(r), logits[r], probs[r], r < cut.kept ? 1 : 0]);
        var got = [{ name: "probabilities", columns: ["rank", "id", "token", "logit", "probability_at_T", "kept"], rows: rows }];
        got.extra = { source: lp ? "live" : "stored", prompt: lp ? { text: lp.pass.text, chat: lp.pass.chat } : { key: state.key, text: d.text, chat: !!d.chat },
          settings: { T: state.T, k: state.k, p: state.p, seed: state.seed, draws: state.draws } };
        return got;
      } });
  });
});
