// SmolLM2's whole next-token distribution for a prompt the reader picks: every one of the
// vocabulary's bars on a canvas (the head exact, the tail from rank buckets), temperature, top-k and
// top-p over it, the logit lens and the first-token weight of every head. Data: NTData.smollm2DistIndex
// (with the page) and NTData.smollm2Dist[key] (a <script> added on demand: no fetch from file://).
// Classic script; exposes NT.realDist (the pure maths, for tests) and starts data-demo="real-distribution".
(function () {
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

  // Probabilities of the sorted ranks at temperature T (T > 0).
  function probsAt(logits, max, T) {
    var n = logits.length, p = new Float64Array(n), z = 0, i;
    for (i = 0; i < n; i++) { p[i] = Math.exp((logits[i] - max) / T); z += p[i]; }
    for (i = 0; i < n; i++) p[i] /= z;
    return p;
  }

  // Top-k, then top-p on the renormalised survivors (as NT.sampling.filter and Hugging Face do).
  // k = 0 means no cut, p >= 1 no cut. Returns {kCut, kept, mass}: mass is the survivors' share
  // of the probability before renormalising.
  function cuts(p, k, topP) {
    var n = p.length, kCut = k > 0 && k < n ? k : n, total = 0, i;
    for (i = 0; i < kCut; i++) total += p[i];
    var kept = kCut;
    if (topP < 1) {
      var cum = 0;
      kept = kCut;
      for (i = 0; i < kCut; i++) { cum += p[i] / total; if (cum >= topP) { kept = i + 1; break; } }
      kept = Math.max(1, kept);
    }
    var mass = 0;
    for (i = 0; i < kept; i++) mass += p[i];
    if (kept === n) mass = 1;  // no cut: all of it, not a sum's rounding error short of it
    return { kCut: kCut, kMass: total, kept: kept, mass: mass };
  }

  window.NT = window.NT || {};
  window.NT.realDist = { expand: expand, probsAt: probsAt, cuts: cuts };

  if (!window.NTUI) return;
  var U = window.NTUI, el = U.el;

  function css(node, name, fallback) {
    var v = getComputedStyle(node).getPropertyValue(name).trim();
    return v || fallback;
  }

  // The folder the index script came from: prompt files sit beside it (works from file:// too).
  function dataBase() {
    var s = document.querySelector('script[src*="smollm2-dist-index.js"]');
    return s ? s.src.replace(/smollm2-dist-index\.js.*$/, "") : "";
  }

  function show(piece) { return piece.replace(/ /g, "·").replace(/\n/g, "↵"); }

  U.start("real-distribution", function (root, live) {
    var index = window.NTData && window.NTData.smollm2DistIndex;
    if (!index) throw new Error("SmolLM2's prompt list (js/data/smollm2-dist-index.js) did not load");
    var q = index.quantisation;
    var state = { key: root.getAttribute("data-prompt") || index.prompts[0].key, T: 1, k: 0, p: 1, log: false, cursor: 0 };
    var d = null, logits = null, probs = null, cut = null;
    var msg = U.message();

    var pick = U.select("Prompt", index.prompts.map(function (pr) {
      return { value: pr.key, label: (pr.chat ? "[chat template] " : "") + pr.text.replace(/\n/g, " ↵ ") };
    }), state.key, function (v) { state.key = v; load(); });
    var shape = el("p", { class: "nt-note" });
    var tokensLine = el("p", { class: "nt-note" });
    var provenance = el("p", { class: "nt-note", "data-role": "quantisation",
      text: "Measured on " + index.weights_file + ": a " + q.bits + "-bit quantised file (" + q.file_type +
        "), de-quantised and run in " + index.compute_dtype + "." });

    var tSlider = U.slider("Temperature", 0.1, 3, 0.05, 1, function (v) { state.T = v; recompute(); }, function (v) { return v.toFixed(2); });
    var kSlider = U.slider("Top-k (0 = off)", 0, 2000, 1, 0, function (v) { state.k = v; update(); }, function (v) { return v ? String(v) : "off"; });
    var pSlider = U.slider("Top-p", 0.05, 1, 0.01, 1, function (v) { state.p = v; update(); }, function (v) { return v >= 1 ? "off" : v.toFixed(2); });
    var scale = U.radios("Scale", [{ value: "lin", label: "linear" }, { value: "log", label: "log (rank and probability)" }], "lin",
      function (v) { state.log = v === "log"; draw(); });
    var survivors = el("p", { class: "nt-survivors", "data-role": "survivors", "aria-live": "polite" });
    var canvas = el("canvas", { class: "nt-dist-canvas", tabindex: "0", role: "img",
      "aria-label": "Every token's probability, most likely first. Arrow keys move along the ranks (Shift: 100 at a time, Home and End)." });
    canvas.style.width = "100%";
    canvas.style.height = "14rem";
    canvas.style.display = "block";
    var readout = el("p", { class: "nt-readout", "data-role": "readout", "aria-live": "polite" });
    var lensBox = el("div", { class: "nt-table-wrap", "data-role": "lens" });
    var headsBox = el("div", { class: "nt-strip-block", "data-role": "heads" });

    live.appendChild(el("div", { class: "nt-controls" }, [pick.wrap]));
    live.appendChild(shape);
    live.appendChild(tokensLine);
    live.appendChild(provenance);
    live.appendChild(msg.node);
    live.appendChild(U.section("All the bars", [el("div", { class: "nt-controls" }, [tSlider.wrap, kSlider.wrap, pSlider.wrap, scale]),
      survivors, canvas, readout]));
    live.appendChild(U.section("Logit lens: each layer's guess", [lensBox]));
    live.appendChild(U.section("Every head's weight on the first token", [headsBox]));

    function load() {
      msg.clear();
      var entry = index.prompts.filter(function (pr) { return pr.key === state.key; })[0];
      var have = window.NTData.smollm2Dist && window.NTData.smollm2Dist[state.key];
      if (have) { setData(have); return; }
      root.removeAttribute("data-loaded");
      var s = document.createElement("script");
      s.src = dataBase() + entry.file;
      s.onload = function () {
        var got = window.NTData.smollm2Dist && window.NTData.smollm2Dist[entry.key];
        if (!got) { msg.show("The data file " + entry.file + " loaded but held no data for this prompt.", "error"); return; }
        if (state.key === entry.key) setData(got);
      };
      s.onerror = function () { msg.show("Could not load " + entry.file + " (is the js/data folder beside this page?).", "error"); };
      document.body.appendChild(s);
    }

    function setData(data) {
      d = data;
      logits = expand(d);
      state.cursor = 0;
      shape.textContent = "What it shows: " + d.shape + ".";
      tokensLine.textContent = d.tokens.length + " tokens in: " + d.tokens.map(show).join(" | ");
      renderLens();
      renderHeads();
      recompute();
      root.setAttribute("data-loaded", d.key);
    }

    function recompute() {
      if (!d) return;
      probs = probsAt(logits, d.max_logit, state.T);
      update();
    }

    function update() {
      if (!d) return;
      cut = cuts(probs, state.k, state.p);
      survivors.textContent = cut.kept + " of " + d.vocab_size + " tokens survive, holding " + U.pct(cut.mass, 1) +
        " of the probability; the other " + (d.vocab_size - cut.kept) + " hold " + U.pct(1 - cut.mass, 1) + ".";
      draw();
      report();
    }

    function xOf(rank, W) {
      var V = d.vocab_size;
      return state.log ? Math.log(rank + 1) / Math.log(V) * W : rank / V * W;
    }
    function rankAt(x, W) {
      var V = d.vocab_size, r = state.log ? Math.exp(x / W * Math.log(V)) - 1 : x / W * V;
      return Math.max(0, Math.min(V - 1, Math.floor(r)));
    }

    function draw() {
      if (!d) return;
      var dpr = window.devicePixelRatio || 1;
      var W = Math.max(1, Math.round(canvas.clientWidth * dpr)), H = Math.max(1, Math.round(canvas.clientHeight * dpr));
      if (canvas.width !== W) canvas.width = W;
      if (canvas.height !== H) canvas.height = H;
      var g = canvas.getContext("2d");
      var fg = css(canvas, "--md-default-fg-color", "#000"), faint = css(canvas, "--md-default-fg-color--lighter", "#bbb");
      var accent = css(canvas, "--md-accent-fg-color", "#f50"), bg = css(canvas, "--md-default-bg-color", "#fff");
      g.fillStyle = bg;
      g.fillRect(0, 0, W, H);
      var top = probs[0], minLog = Math.log(probs[d.vocab_size - 1]), pad = 4 * dpr;
      function y(p) {
        var f = state.log ? (Math.log(p) - minLog) / (Math.log(top) - minLog) : p / top;
        return H - pad - Math.max(0, f) * (H - 2 * pad);
      }
      // One column per device pixel: ranks are sorted, so a column's tallest bar is its first rank
      // (in the log view the first ranks are several columns wide).
      for (var x = 0; x < W; x++) {
        var r = rankAt(x, W);
        var yy = y(probs[r]);
        g.fillStyle = r < cut.kept ? accent : faint;
        g.fillRect(x, yy, 1, H - pad - yy);
      }
      g.strokeStyle = fg;
      g.lineWidth = dpr;
      g.fillStyle = fg;
      g.font = Math.round(11 * dpr) + "px sans-serif";
      g.textBaseline = "top";
      // the cuts, each labelled with the mass on its left (the mass on the right is the rest)
      [[cut.kCut, "top-k", cut.kMass], [cut.kept, "top-p", cut.mass]].forEach(function (c, i) {
        if (c[0] >= d.vocab_size || (i === 1 && c[0] === cut.kCut)) return;
        var cx = Math.round(xOf(c[0], W)) + 0.5;
        g.setLineDash([4 * dpr, 3 * dpr]);
        g.beginPath(); g.moveTo(cx, 0); g.lineTo(cx, H); g.stroke();
        g.setLineDash([]);
        var label = c[1] + ": " + U.pct(c[2], 1) + " | " + U.pct(1 - c[2], 1);
        var tw = g.measureText(label).width;
        g.fillText(label, Math.min(cx + 3 * dpr, W - tw - 2 * dpr), (14 + 14 * i) * dpr);
      });
      var cx2 = Math.round(xOf(state.cursor, W)) + 0.5;
      g.strokeStyle = fg;
      g.beginPath(); g.moveTo(cx2, 0); g.lineTo(cx2, H * 0.25); g.stroke();
    }

    function report() {
      var r = state.cursor, n = d.head.pieces.length, text;
      if (r < n) {
        text = "Rank " + (r + 1) + ": “" + show(d.head.pieces[r]) + "”, " + U.pct(probs[r], 2) + ".";
      } else {
        var b = d.tail.buckets.filter(function (bk) { return r >= bk.start && r < bk.start + bk.count; })[0];
        text = "Rank " + (r + 1) + ": one of the tokens of ranks " + (b.start + 1) + " to " + (b.start + b.count) +
          " (kept as a summary, not by name), about " + U.pct(probs[r], 4) + " each.";
      }
      text += r < cut.kept ? " It survives the cuts." : " It is cut.";
      readout.textContent = text;
    }

    function move(r) { state.cursor = Math.max(0, Math.min(d.vocab_size - 1, r)); draw(); report(); }
    canvas.addEventListener("mousemove", function (e) {
      if (!d) return;
      var box = canvas.getBoundingClientRect();
      move(rankAt((e.clientX - box.left) / box.width * canvas.width, canvas.width));
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

    function renderLens() {
      var k = d.lens[0].pieces.length;
      var head = el("tr", null, [el("th", { scope: "col", text: "after" })]);
      for (var i = 0; i < k; i++) head.appendChild(el("th", { scope: "col", text: "top " + (i + 1) }));
      var body = el("tbody");
      d.lens.forEach(function (row) {
        var tr = el("tr", null, [el("th", { scope: "row", text: row.layer === 0 ? "embedding" : "layer " + row.layer })]);
        row.pieces.forEach(function (piece, i) {
          tr.appendChild(el("td", null, [el("code", { text: show(piece) }), " " + U.pct(row.probs[i], 1)]));
        });
        body.appendChild(tr);
      });
      U.clear(lensBox).appendChild(el("table", { class: "nt-table" }, [el("thead", null, [head]), body]));
    }

    function renderHeads() {
      U.clear(headsBox);
      var sinks = 0;
      d.attention.layers.forEach(function (layer, l) {
        layer.first.forEach(function (w) { if (w > index.sink_threshold) sinks += 1; });
        var row = el("div", { class: "nt-head-row" }, [
          el("span", { class: "nt-head-label", text: "layer " + (l + 1) }),
          U.strip(layer.first, "layer " + (l + 1) + ", heads 1 to " + layer.first.length + ", weight on “" + show(d.tokens[0]) + "”", { digits: 2 })]);
        // one line per layer: the label in a fixed column so the strips line up
        row.style.display = "flex";
        row.style.gap = "0.5em";
        row.firstChild.style.minWidth = "4.5em";
        headsBox.appendChild(row);
      });
      headsBox.insertBefore(el("p", { class: "nt-note", "data-role": "sinks",
        text: sinks + " of " + d.attention.n_layer * d.attention.n_head + " heads put more than " + U.pct(index.sink_threshold, 0) + " of their weight on the first token (“" +
          show(d.tokens[0]) + "”)." }), headsBox.firstChild);
    }

    load();
  });
})();
