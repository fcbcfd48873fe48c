// The landing page's first demo: one prompt, every bar of SmolLM2's next-token distribution (stored by
// the build: data.smollm2-dist-<key>, loaded on demand, no model), and one weighted roll per press.
// Rolls follow the site's one draw rule: the n-th roll takes the n-th number of mulberry32(seed) (as
// SmolLM2's Draw and the tiny model's Draw do); "Roll 100 more" tallies the winners, so the reader sees
// how rarely the tallest bar wins. Container attributes: data-prompt (a stored prompt's key); data-fragment
// (a top token that is only a word's first piece, with what SmolLM2 writes after it, from the stored prompt
// that ends in it: {after, piece, next, prob}), said under the tallest bars.
nexttoken.define("demos.one-roll", ["ui", "runtime.kernels", "runtime.sampling", "real.bars", "data.smollm2-dist-index", "later:data.smollm2-dist-*", "ui.permalink"],
  function (ui, kernels, sampling, bars, index, loadPrompt, permalink) {
  "use strict";
  var el = ui.el, show = bars.show;
  var SEED = 1, MANY = 100, TOP = 5;

  function css(node, name, fallback) { return getComputedStyle(node).getPropertyValue(name).trim() || fallback; }

  ui.start("one-roll", function (root, live) {
    var key = root.getAttribute("data-prompt") || index.prompts[0].key;
    var frag = JSON.parse(root.getAttribute("data-fragment") || "null");
    var entry = index.prompts.filter(function (p) { return p.key === key; })[0] || index.prompts[0];
    var d = null, probs = null, cum = null, V = 0, rng = sampling.mulberry32(SEED), rolls = 0, last = -1, tally = {}, pending = null;
    var msg = ui.message();
    var word = el("mark", { class: "nt-roll-word", "data-role": "word", text: "…" });
    var sentence = el("p", { class: "nt-roll-sentence" }, ["“" + entry.text + " ", word, "”"]);
    var canvas = el("canvas", { class: "nt-roll-canvas", role: "img", "aria-label": "Loading the bars…" });
    var axes = el("p", { class: "nt-small" });
    var tallest = el("p", { class: "nt-small", "data-role": "tallest" });
    var rollBtn = ui.button("Roll", function () { roll(1); }, { primary: true });
    var manyBtn = ui.button("Roll " + MANY + " more", function () { roll(MANY); });
    rollBtn.setAttribute("data-role", "roll");
    manyBtn.setAttribute("data-role", "roll-many");
    var readout = el("p", { class: "nt-readout", "data-role": "rolled", "aria-live": "polite" });
    var tallyLine = el("p", { class: "nt-readout", "data-role": "tally", "aria-live": "polite", hidden: true });  // shown from the first roll
    var about = el("p", { class: "nt-small", "data-role": "about" });
    // the buttons between the sentence the roll completes and the bar it lands on: both in sight as one rolls
    live.appendChild(sentence);
    live.appendChild(el("div", { class: "nt-controls nt-buttons" }, [rollBtn, manyBtn]));
    live.appendChild(canvas);
    live.appendChild(axes);
    live.appendChild(readout);
    live.appendChild(tallyLine);
    live.appendChild(tallest);
    live.appendChild(about);
    live.appendChild(msg.node);
    // while the bars load, the readout says so where "Press Roll" will be (a hint under the buttons would go
    // again when they come, and the bars move up)
    rollBtn.disabled = manyBtn.disabled = true;
    readout.textContent = "The bars are loading…";

    function pieceAt(r) { return r < d.head.pieces.length ? "“" + show(d.head.pieces[r]) + "”" : "a token of the stored tail (rank " + ui.count(r + 1) + ")"; }

    // One roll: u from the seed's stream, and the first rank whose cumulative probability passes it (a binary
    // search over the running sums, so 100,000 rolls from a link take no time).
    function rankOf(u) {
      var lo = 0, hi = V - 1;
      while (lo < hi) { var mid = (lo + hi) >> 1; if (u < cum[mid]) hi = mid; else lo = mid + 1; }
      return lo;
    }

    function roll(n) {
      if (!probs) return;
      var u = 0;
      for (var i = 0; i < n; i++) {
        u = rng();
        last = rankOf(u);
        rolls += 1;
        tally[last] = (tally[last] || 0) + 1;
      }
      word.textContent = last < d.head.pieces.length ? d.head.pieces[last].replace(/^ /, "") : "[rank " + ui.count(last + 1) + "]";
      word.setAttribute("data-rank", String(last + 1));
      readout.textContent = "Roll " + ui.count(rolls) + " (seed " + SEED + "): u = " + u.toFixed(4) + " fell on rank " + ui.count(last + 1) +
        ", " + pieceAt(last) + ", which holds " + ui.pct(probs[last], 2) + " of the probability.";
      var ranked = Object.keys(tally).map(Number).sort(function (a, b) { return tally[b] - tally[a] || a - b; });
      tallyLine.hidden = false;
      tallyLine.textContent = ui.count(rolls) + (rolls === 1 ? " roll" : " rolls") + " so far, " + ui.count(ranked.length) +
        " different winners: " + ranked.slice(0, TOP).map(function (r) {
          return (r < d.head.pieces.length ? show(d.head.pieces[r]) : "rank " + ui.count(r + 1)) + " " + tally[r];
        }).join(", ") + (ranked.length > TOP ? ", …" : "") + ". The tallest bar, " + show(d.head.pieces[0]) + ", won " + (tally[0] || 0) + ".";
      draw();
    }

    var box = { x0: 0, x1: 1, y0: 0, y1: 1 };
    function xOf(rank) { return box.x0 + Math.log(rank + 1) / Math.log(V) * (box.x1 - box.x0); }
    function rankAt(x) { return Math.max(0, Math.min(V - 1, Math.floor(Math.exp((x - box.x0) / (box.x1 - box.x0) * Math.log(V)) - 1))); }

    function draw() {
      if (!probs) return;
      var dpr = window.devicePixelRatio || 1;
      var W = Math.max(1, Math.round(canvas.clientWidth * dpr)), H = Math.max(1, Math.round(canvas.clientHeight * dpr));
      if (canvas.width !== W) canvas.width = W;
      if (canvas.height !== H) canvas.height = H;
      var g = canvas.getContext("2d"), font = Math.round(11 * dpr);
      var fg = css(canvas, "--md-default-fg-color", "#000"), faint = css(canvas, "--md-default-fg-color--lighter", "#bbb");
      var accent = css(canvas, "--nt-pos", "#d55e00");  // probabilities are values: the palette's orange (STYLE.md)
      g.clearRect(0, 0, W, H);  // the demo box's own background shows through
      g.font = font + "px " + css(canvas, "--nt-font-text", "sans-serif");  // the page's face (STYLE.md)
      box = { x0: 2 * dpr, x1: W - 2 * dpr, y0: font + 8 * dpr, y1: H - font - 8 * dpr };
      // probability from zero: the long tail lies flat, as it does in the sum; a bar under a pixel still gets one
      function y(p) { return Math.min(box.y1 - dpr, box.y1 - p / probs[0] * (box.y1 - box.y0)); }
      // one column per device pixel: ranks are sorted, so a column's tallest bar is its first rank
      g.fillStyle = accent;
      for (var x = Math.ceil(box.x0); x < box.x1; x++) {
        var yy = y(probs[rankAt(x)]);
        g.fillRect(x, yy, 1, box.y1 - yy);
      }
      g.strokeStyle = fg;
      g.fillStyle = fg;
      g.lineWidth = dpr;
      g.beginPath(); g.moveTo(box.x0, box.y1 + 0.5); g.lineTo(box.x1, box.y1 + 0.5); g.stroke();
      g.textBaseline = "top";
      [0, 9, 99, 999, 9999, V - 1].forEach(function (r, i, all) {
        var xx = xOf(r), t = ui.count(r + 1), w = g.measureText(t).width;
        g.beginPath(); g.moveTo(xx, box.y1); g.lineTo(xx, box.y1 + 4 * dpr); g.stroke();
        g.textAlign = i === 0 ? "left" : i === all.length - 1 ? "right" : "center";
        if (i === 0 || i === all.length - 1 || (xx - w / 2 > box.x0 + 30 * dpr && xx + w / 2 < box.x1 - 50 * dpr)) g.fillText(t, xx, box.y1 + 5 * dpr);
      });
      g.textAlign = "left";
      // the top bar's height: a dashed line across, labelled where the tail leaves room
      g.strokeStyle = faint;
      g.setLineDash([4 * dpr, 3 * dpr]);
      g.beginPath(); g.moveTo(box.x0, box.y0 + 0.5); g.lineTo(box.x1, box.y0 + 0.5); g.stroke();
      g.setLineDash([]);
      g.strokeStyle = fg;
      g.textAlign = "right";
      g.fillText(ui.pct(probs[0], 1) + ", the top bar", box.x1, box.y0 + 3 * dpr);
      g.textAlign = "left";
      if (last >= 0) {  // the rolled rank: a line through its bar, labelled
        var lx = Math.round(xOf(last)) + 0.5, label = "roll " + ui.count(rolls) + " → rank " + ui.count(last + 1);
        g.strokeStyle = faint;
        g.lineWidth = 3 * dpr;
        g.beginPath(); g.moveTo(lx, box.y0); g.lineTo(lx, box.y1); g.stroke();
        g.strokeStyle = fg;
        g.lineWidth = dpr;
        g.beginPath(); g.moveTo(lx, box.y0); g.lineTo(lx, box.y1); g.stroke();
        g.textBaseline = "top";
        g.fillText(label, Math.max(box.x0, Math.min(lx - g.measureText(label).width / 2, box.x1 - g.measureText(label).width)), 2 * dpr);
      }
    }

    function setData(data) {
      d = data;
      V = d.vocab_size;
      probs = kernels.softmax(bars.expand(d), 0, V, new Float64Array(V), 0, 1);
      cum = new Float64Array(V);
      for (var r = 0, acc = 0; r < V; r++) { acc += probs[r]; cum[r] = acc; }
      var head = d.head.pieces.length, buckets = d.tail.buckets.length;
      canvas.setAttribute("aria-label", ui.count(V) + " bars, one per token of SmolLM2's vocabulary, most likely first: the tallest, “" +
        show(d.head.pieces[0]) + "”, holds " + ui.pct(probs[0], 1) + "; the smallest holds " + ui.pct(probs[V - 1], 1) + ".");
      axes.textContent = ui.count(V) + " bars, one per token. Across: rank, most likely first, on a log scale (1 to " + ui.count(V) +
        "). Up: probability, from zero, so the long tail lies flat: each of its bars is tiny, together they hold much.";
      var f = frag && frag.after === d.key && d.head.pieces.slice(0, TOP).indexOf(frag.piece) >= 0 ? frag : null;
      tallest.textContent = "The tallest bars: " + d.head.pieces.slice(0, TOP).map(function (p, r) { return show(p) + " " + ui.pct(probs[r], 1); }).join(", ") +
        ". A dot (·) is the space before a word." + (f ? " “" + show(f.piece) + "” is only a word's first piece: after it, SmolLM2 writes “" +
        show(f.next) + "” (" + ui.pct(f.prob, 1) + "). A token need not be a whole word." : "");
      about.textContent = "SmolLM2-135M's probabilities for the next token, measured ahead of time and stored with the page (no model runs here): the top " +
        ui.count(head) + " exactly, the other " + ui.count(V - head) + " redrawn from " + buckets + " rank buckets. Roll n takes the n-th random number from seed " + SEED +
        ": the same for every reader.";
      rollBtn.disabled = manyBtn.disabled = false;
      readout.textContent = "Press Roll: a random number between 0 and 1 lands on one bar, each bar as likely as its height.";
      root.setAttribute("data-loaded", d.key);
      draw();
      if (pending) { replay(pending); pending = null; }
    }

    // Roll n of a link: the seed's stream from its start, rolled n times, drawn once.
    function replay(n) {
      rng = sampling.mulberry32(SEED); rolls = 0; last = -1; tally = {};
      if (n) roll(n);
    }

    // How many rolls were made, in the page's link; the bars and the rolls' tally as a download.
    permalink.join(root, live, {
      fields: { rolls: permalink.int(0, 100000) },
      get: function () { return { rolls: rolls }; },
      set: function (s) {
        if (s.rolls === undefined) return;
        if (probs) replay(s.rolls); else pending = s.rolls;  // the bars are still loading: roll when they come
      },
      tables: function () {
        if (!probs) throw new Error("the bars are still loading");
        var rows = d.head.pieces.map(function (piece, r) { return [r + 1, show(piece), probs[r], tally[r] || 0]; });
        Object.keys(tally).map(Number).filter(function (r) { return r >= d.head.pieces.length; }).sort(function (a, b) { return a - b; })
          .forEach(function (r) { rows.push([r + 1, "", probs[r], tally[r]]); });
        return [{ name: "rolls", columns: ["rank", "token", "probability", "wins"], rows: rows }];
      } });

    loadPrompt(entry.file.replace(/^smollm2-dist-|\.js$/g, "")).then(setData, function (err) {
      msg.show(err.message + " (is the js/data folder beside this page?).", "error");
    });
    window.addEventListener("resize", draw);
    if (document.fonts) document.fonts.addEventListener("loadingdone", draw);  // a canvas keeps the face it was drawn with
    // Material switches the colour scheme by an attribute on <body>: redraw in the new colours.
    new MutationObserver(draw).observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
  });
});
