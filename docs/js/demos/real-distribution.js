// SmolLM2's whole next-token distribution for a prompt the reader picks: every one of the
// vocabulary's bars on a canvas (the head exact, the tail from rank buckets), temperature, top-k and
// top-p over it. Data: data.smollm2-dist-index (with the page) and data.smollm2-dist-<key> (loaded on
// demand by nexttoken's loader: no fetch from file://). The prompt shown is published as the store's
// "smollm2.stored" (its whole record), which real-inside.js draws the lens and the heads of.
nexttoken.define("demos.real-distribution", ["ui", "runtime.kernels", "store", "data.smollm2-dist-index", "later:data.smollm2-dist-*"],
  function (ui, kernels, store, index, loadPrompt) {
  "use strict";

  // Every rank's logit, sorted: the head as stored; a tail bucket's ranks evenly spaced between its
  // max and min logit, shifted so that their exp-sum matches the bucket's stored sum_exp (so T = 1
  // reproduces the stored mass exactly and other temperatures keep the bucket's shape).
  function expand(d) {
    var V = d.vocab_size, out = new Float64Array(V), i;
    var head = d.head.logits;
    for (i = 0; i < head.length; i++) out[i] = head[i];
    d.tail.buckets.forEach(function (b) {
      var s = 0, j, l;
      for (j = 0; j < b.count; j++) {
        l = b.count > 1 ? b.max_logit + (b.min_logit - b.max_logit) * j / (b.count - 1) : b.max_logit;
        out[b.start + j] = l;
        s += Math.exp(l - d.max_logit);
      }
      var shift = s > 0 && b.sum_exp > 0 ? Math.log(b.sum_exp / s) : 0;
      for (j = 0; j < b.count; j++) out[b.start + j] += shift;
    });
    return out;
  }

  var el = ui.el;

  function css(node, name, fallback) {
    var v = getComputedStyle(node).getPropertyValue(name).trim();
    return v || fallback;
  }

  function show(piece) { return piece.replace(/ /g, "·").replace(/\n/g, "↵"); }

  ui.start("real-distribution", function (root, live) {
    var q = index.quantisation;
    var state = { key: root.getAttribute("data-prompt") || index.prompts[0].key, T: 1, k: 0, p: 1, log: false, cursor: 0 };
    var d = null, logits = null, probs = null, cut = null;
    var msg = ui.message();

    var pick = ui.select("Prompt", index.prompts.map(function (pr) {
      return { value: pr.key, label: (pr.chat ? "[chat template] " : "") + pr.text.replace(/\n/g, " ↵ ") };
    }), state.key, function (v) { state.key = v; load(); });
    var shape = el("p", { class: "nt-note" });
    var tokensLine = el("p", { class: "nt-note" });
    var provenance = el("p", { class: "nt-note", "data-role": "quantisation",
      text: "Measured on " + index.weights_file + ": a " + q.bits + "-bit quantised file (" + q.file_type +
        "), de-quantised and run in " + index.compute_dtype + "." });

    var tSlider = ui.slider("Temperature", 0.1, 3, 0.05, 1, function (v) { state.T = v; recompute(); }, function (v) { return v.toFixed(2); });
    var kSlider = ui.slider("Top-k (0 = off)", 0, 2000, 1, 0, function (v) { state.k = v; update(); }, function (v) { return v ? String(v) : "off"; });
    var pSlider = ui.slider("Top-p", 0.05, 1, 0.01, 1, function (v) { state.p = v; update(); }, function (v) { return v >= 1 ? "off" : v.toFixed(2); });
    var scale = ui.radios("Scale", [{ value: "lin", label: "linear" }, { value: "log", label: "log (rank and probability)" }], "lin",
      function (v) { state.log = v === "log"; draw(); });
    var survivors = el("p", { class: "nt-survivors", "data-role": "survivors", "aria-live": "polite" });
    var canvas = el("canvas", { class: "nt-dist-canvas", tabindex: "0", role: "img",
      "aria-label": "Every token's probability, most likely first. Arrow keys move along the ranks (Shift: 100 at a time, Home and End)." });
    canvas.style.width = "100%";
    canvas.style.height = "14rem";
    canvas.style.display = "block";
    var axes = el("p", { class: "nt-note", "data-role": "axes" });
    var readout = el("p", { class: "nt-readout", "data-role": "readout", "aria-live": "polite" });

    live.appendChild(el("div", { class: "nt-controls" }, [pick.wrap]));
    live.appendChild(shape);
    live.appendChild(tokensLine);
    live.appendChild(provenance);
    live.appendChild(msg.node);
    live.appendChild(ui.section("All the bars", [el("div", { class: "nt-controls" }, [tSlider.wrap, kSlider.wrap, pSlider.wrap, scale]),
      survivors, canvas, axes, readout]));

    function load() {
      msg.clear();
      var entry = index.prompts.filter(function (pr) { return pr.key === state.key; })[0];
      root.removeAttribute("data-loaded");
      loadPrompt(entry.file.replace(/^smollm2-dist-|\.js$/g, "")).then(function (got) {
        if (state.key === entry.key) setData(got);
      }, function (err) { msg.show(err.message + " (is the js/data folder beside this page?).", "error"); });
    }

    function setData(data) {
      d = data;
      logits = expand(d);
      state.cursor = 0;
      shape.textContent = "The prompt: " + d.shape + ". Its bars: " + d.bars + ".";
      tokensLine.textContent = d.tokens.length + " tokens in: " + d.tokens.map(show).join(" | ");
      recompute();
      root.setAttribute("data-loaded", d.key);
      store.set("smollm2.stored", d);
    }

    function recompute() {
      if (!d) return;
      probs = kernels.softmax(logits, 0, logits.length, new Float64Array(logits.length), 0, state.T);
      update();
    }

    function update() {
      if (!d) return;
      cut = kernels.cut(probs, state.k, state.p);
      survivors.textContent = cut.kept.toLocaleString("en") + " of " + d.vocab_size.toLocaleString("en") + " tokens survive, holding " + ui.pct(cut.mass, 1) +
        " of the probability; the other " + (d.vocab_size - cut.kept) + " hold " + ui.pct(1 - cut.mass, 1) + ".";
      draw();
      report();
    }

    // The plot's box inside the canvas (device pixels): room on the left and below for the axes.
    var box = { x0: 0, x1: 1, y0: 0, y1: 1 };
    function xOf(rank) {
      var V = d.vocab_size, f = state.log ? Math.log(rank + 1) / Math.log(V) : rank / V;
      return box.x0 + f * (box.x1 - box.x0);
    }
    function rankAt(x) {
      var V = d.vocab_size, f = (x - box.x0) / (box.x1 - box.x0);
      var r = state.log ? Math.exp(f * Math.log(V)) - 1 : f * V;
      return Math.max(0, Math.min(V - 1, Math.floor(r)));
    }

    // A power of ten as [base, exponent]; label() draws the exponent raised and smaller (Unicode
    // superscripts are too small to read at 11 px).
    function power(e) { return e === 0 ? ["1", ""] : ["10", String(e).replace("-", "−")]; }
    function labelWidth(g, t, font) {
      if (typeof t === "string") return g.measureText(t).width;
      var w = g.measureText(t[0]).width, f = g.font;
      g.font = Math.round(font * 0.8) + "px sans-serif";
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
        g.font = Math.round(font * 0.8) + "px sans-serif";
        g.fillText(t[1], left + w0, y - font * 0.35);
        g.font = f;
      }
      g.textAlign = base;
    }
    // Probability ticks: linear from zero in steps of 1, 2 or 5 times a power of ten (at most five
    // below the top bar); log at the powers of ten between the smallest and the largest bar.
    function yTicks(top, min) {
      var out = [], v;
      if (state.log) {
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
      var V = d.vocab_size, out = [[0, "1"]];
      if (state.log) for (var e = 1; Math.pow(10, e) < V; e++) out.push([Math.pow(10, e) - 1, power(e)]);
      else for (var r = 10000; r < V; r += 10000) out.push([r - 1, r.toLocaleString("en")]);
      return out;
    }

    function draw() {
      if (!d) return;
      var dpr = window.devicePixelRatio || 1;
      var W = Math.max(1, Math.round(canvas.clientWidth * dpr)), H = Math.max(1, Math.round(canvas.clientHeight * dpr));
      if (canvas.width !== W) canvas.width = W;
      if (canvas.height !== H) canvas.height = H;
      var g = canvas.getContext("2d");
      var fg = css(canvas, "--md-default-fg-color", "#000"), faint = css(canvas, "--md-default-fg-color--lighter", "#bbb");
      var light = css(canvas, "--md-default-fg-color--light", "#666");
      var accent = css(canvas, "--md-accent-fg-color", "#f50"), bg = css(canvas, "--md-default-bg-color", "#fff");
      var font = Math.round(11 * dpr);
      g.font = font + "px sans-serif";
      g.fillStyle = bg;
      g.fillRect(0, 0, W, H);
      var caption = state.log
        ? "Across: rank, most likely first, on a log scale. Up: probability, on a log scale from the smallest bar."
        : "Across: rank, most likely first (" + d.vocab_size.toLocaleString("en") + " ranks). Up: probability, from zero.";
      if (axes.textContent !== caption) axes.textContent = caption;  // draw runs on every cursor move
      var top = probs[0], min = probs[d.vocab_size - 1], minLog = Math.log(min);
      var yt = yTicks(top, min), labelW = 0;
      yt.forEach(function (t) { labelW = Math.max(labelW, labelWidth(g, t[1], font)); });
      box = { x0: Math.ceil(labelW + 8 * dpr), x1: W - 6 * dpr, y0: 8 * dpr, y1: Math.floor(H - font - 8 * dpr) };
      canvas.setAttribute("data-plot", [box.x0, box.y0, box.x1, box.y1].join(" "));  // for tests: the plot's box
      function y(p) {
        var f = state.log ? (Math.log(p) - minLog) / (Math.log(top) - minLog) : p / top;
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
        if (c[0] >= d.vocab_size || (i === 1 && c[0] === cut.kCut)) return;
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
    }

    function report() {
      var r = state.cursor, n = d.head.pieces.length, text;
      if (r < n) {
        text = "Rank " + (r + 1) + ": “" + show(d.head.pieces[r]) + "”, " + ui.pct(probs[r], 2) + ".";
      } else {
        var b = d.tail.buckets.filter(function (bk) { return r >= bk.start && r < bk.start + bk.count; })[0];
        text = "Rank " + (r + 1) + ": one of the tokens of ranks " + (b.start + 1) + " to " + (b.start + b.count) +
          " (kept as a summary, not by name), about " + ui.pct(probs[r], 4) + " each.";
      }
      text += r < cut.kept ? " It survives the cuts." : " It is cut.";
      readout.textContent = text;
    }

    function move(r) { state.cursor = Math.max(0, Math.min(d.vocab_size - 1, r)); draw(); report(); }
    canvas.addEventListener("mousemove", function (e) {
      if (!d) return;
      var rect = canvas.getBoundingClientRect();
      move(rankAt((e.clientX - rect.left) / rect.width * canvas.width));
    });
    canvas.addEventListener("keydown", function (e) {
      if (!d) return;
      var step = e.shiftKey ? 100 : 1, r = state.cursor;
      if (e.key === "ArrowRight") r += step;
      else if (e.key === "ArrowLeft") r -= step;
      else if (e.key === "Home") r = 0;
      else if (e.key === "End") r = d.vocab_size - 1;
      else return;
      e.preventDefault();
      move(r);
    });
    window.addEventListener("resize", draw);
    // Material switches the colour scheme by an attribute on <body>: redraw in the new colours.
    new MutationObserver(draw).observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });

    load();
  });
});
