// The pass, played: one forward pass of the tiny model shown stage by stage, with Play / Pause, Step,
// a jump to any stage and Back to the start. Each stage lights its part of the map of the pass
// (ui.pass-map) and animates its own numbers, every one read from the pass's trace (runtime/model.js):
// the rows taken from wte and wpe and added, the last token's query reaching back to every key (line
// widths are the weights), the values mixed, the MLP's cells firing, the final vector compared with
// every row of wte (the logits), softmax, and the pick on the 0..1 ruler a sampler draws on.
//
//   var p = player.create();                 p.node goes into the page
//   p.load({trace, ids, tokens, text, config, wte, wpe, show});   a new pass: back to the start
//   p.empty()                                no pass (a prompt with a problem): nothing shown or lit
//
// Motion is the Web Animations API on transform and opacity (a line's stroke-dashoffset), each
// animation running from a start keyframe to the element's own style, so the content at rest is the
// same with or without it; with prefers-reduced-motion nothing is animated and Play steps on a timer.
// Sizes come from the pass's config (vocabulary, context, width, heads, MLP), never typed.
//
// Frame budget (no task over 50 ms during Play): the next stage is drawn off the page during idle time
// while the current one holds, so a stage change only inserts it; a stage's motion is collected while it
// is drawn; a new stage is laid out hidden in one frame and shown with its motion started in the next,
// every box read before any animation starts (no forced layout);
// the 58 bars move as whole layers (one animation each, composited), not as 58 animations.
nexttoken.define("ui.pass-player", ["ui", "ui.pass-map", "runtime.kernels"], function (ui, passMap, kernels) {
  "use strict";
  var el = ui.el, svg = ui.svg;
  var HOLD = 1100, HOLD_STILL = 1800;  // ms a stage stays after its motion (longer when nothing moves)
  var OWNER = "play";

  // A strip of cells that is not a tab stop (the stage has many; its numbers are in the label and titles).
  function strip(values, label, top, wrap) {
    var s = ui.strip(values, label, { top: top, block: !!wrap });
    s.removeAttribute("tabindex");
    return s;
  }
  var maxAbs = ui.maxAbs;
  // A box that scrolls sideways on a narrow screen: a named region, so the keyboard can scroll it.
  function scroller(label, child) { return el("div", { class: "nt-scroll", tabindex: "0", role: "region", "aria-label": label + " (scrolls sideways)" }, [child]); }
  function sign(text) { return el("span", { class: "nt-play-op", "aria-hidden": "true", text: text }); }

  // A table as a heat map: one row of cells per table row, on the colour scale `top`.
  function heat(table, top, cw, rh, label) {
    var C = table[0].length, s = svg("svg", { class: "nt-play-heat", width: C * cw, height: table.length * rh,
      viewBox: "0 0 " + C * cw + " " + table.length * rh, role: "img", "aria-label": label });
    table.forEach(function (row, r) {
      row.forEach(function (v, c) {
        // the colour at this opacity over the page's background is the strips' mix, at a fraction of the styling cost
        s.appendChild(svg("rect", { x: c * cw, y: r * rh, width: cw - 0.6, height: Math.max(0.6, rh - 0.6), class: "nt-hc " + (v >= 0 ? "nt-pos" : "nt-neg"),
          "fill-opacity": Math.min(1, Math.abs(v) / top).toFixed(3) }));
      });
    });
    return s;
  }
  // Rows taken from a table: the others dimmed, a tick beside each taken one; returns each row's box
  // (an invisible rect, what a flight starts from).
  function takeRows(heatSvg, rowsTaken, cw, rh, C) {
    var keep = {};
    rowsTaken.forEach(function (r) { keep[r] = true; });
    Array.prototype.forEach.call(heatSvg.querySelectorAll(".nt-hc"), function (cell, k) {
      if (!keep[Math.floor(k / C)]) cell.classList.add("nt-hc-dim");
    });
    return rowsTaken.map(function (r) {
      heatSvg.appendChild(svg("rect", { x: -4, y: r * rh, width: 3, height: Math.max(1, rh - 0.6), class: "nt-play-rowmark" }));
      var box = svg("rect", { x: 0, y: r * rh, width: C * cw, height: rh, fill: "none" });
      heatSvg.appendChild(box);
      return box;
    });
  }

  // Labels beside chosen rows of a tall drawing, pushed apart so that none overlaps the next.
  function spread(ys, gap) {
    var order = ys.map(function (y, i) { return i; }).sort(function (a, b) { return ys[a] - ys[b]; }), out = ys.slice(), prev = -Infinity;
    order.forEach(function (i) { out[i] = Math.max(ys[i], prev + gap); prev = out[i]; });
    return out;
  }

  function create() {
    var live = el("p", { class: "nt-play-live", "aria-live": "polite" });
    var playBtn = ui.button("Play", function () { playing ? pause() : play(); }, { primary: true });
    var stepBtn = ui.button("Step", function () { pause(); go(at + 1 < STAGES.length ? at + 1 : 0); });
    var backBtn = ui.button("Back to start", function () { pause(); reset(); });
    playBtn.setAttribute("data-role", "play");
    stepBtn.setAttribute("data-role", "step");
    backBtn.setAttribute("data-role", "back");
    var steps = el("ol", { class: "nt-play-steps", "aria-label": "Stages of the pass" });
    var stage = el("div", { class: "nt-play-stage" });
    var node = el("section", { class: "nt-play", "aria-label": "The pass, played" }, [
      el("h3", { class: "nt-stage-title", text: "The pass, played" }),
      el("div", { class: "nt-controls" }, [playBtn, stepBtn, backBtn]), steps, live, stage]);
    var pass = null, at = -1, playing = false, anims = [], timer = null, chain = 0;
    var moves = null;               // the motion of the stage being drawn, started once it is on the page
    var ahead = null, aheadJob = null;  // the next stage, drawn during idle time

    function moving() { return !ui.reducedMotion(); }
    // One animation from `frames[0]` to the element's own style (collected; see begin).
    function anim(target, frames, opts) { moves.push({ target: target, frames: frames, opts: opts || {} }); }
    function appear(target, delay, from) {
      anim(target, [{ opacity: 0, transform: from || "translateY(0.4rem)" }, { opacity: 1, transform: "none" }], { delay: delay });
    }
    // The element seems to come from `src` (its box on screen) to where it is: a flight, FLIP style.
    function fly(target, src, delay) { moves.push({ target: target, src: src, opts: { delay: delay, duration: 600, easing: "ease-in-out" } }); }

    // A shown stage's motion, none with reduced motion: every flight's two boxes are read first, then
    // the animations start (reads before writes: one layout for the whole stage).
    function begin(list) {
      if (!moving()) return;
      var from = list.map(function (m) {
        if (!m.src) return null;
        var a = m.src.getBoundingClientRect(), b = m.target.getBoundingClientRect();
        if (!b.width || !b.height) return "";
        return "translate(" + (a.left - b.left) + "px," + (a.top - b.top) + "px) scale(" + a.width / b.width + "," + a.height / b.height + ")";
      });
      list.forEach(function (m, k) {
        if (!m.target.animate || from[k] === "") return;
        var frames = m.frames;
        if (m.src) {
          m.target.style.transformOrigin = "0 0";
          frames = [{ transform: from[k], opacity: 0.5 }, { transform: "none", opacity: 1 }];
        }
        anims.push(m.target.animate(frames, { duration: m.opts.duration || 450, delay: m.opts.delay || 0,
          easing: m.opts.easing || "ease-out", fill: "backwards" }));
      });
    }

    // ---- the stages -------------------------------------------------------------------------------
    function drawTokens(box) {
      var P = pass, chips = P.tokens.map(function (tok, i) { return ui.chip(tok, P.ids[i]); });
      box.appendChild(el("p", { class: "nt-play-text" }, ["“" + P.text + "”"]));
      box.appendChild(el("div", { class: "nt-tokens" }, chips));
      chips.forEach(function (c, i) { appear(c, 150 + i * 140, "translateY(-0.6rem)"); });
      return "“" + P.text + "” is cut into " + P.n + " tokens; each becomes an id, its row in the vocabulary of " + P.cfg.vocab_size + ".";
    }

    function drawLookup(box) {
      var P = pass, tr = P.trace, C = P.cfg.n_embd, cw = 6, rh = P.rh;
      var top = maxAbs(tr.wte.concat(tr.wpe, tr.x));
      var wteMap = heat(P.wte, top, cw, rh, "wte, the token table: " + P.cfg.vocab_size + " rows of " + C + "; rows " + P.ids.join(", ") + " are taken");
      var wpeMap = heat(P.wpe, top, cw, rh, "wpe, the position table: " + P.cfg.n_ctx + " rows of " + C + "; rows 0 to " + P.last + " are taken");
      var tokMarks = takeRows(wteMap, P.ids, cw, rh, C);
      var posMarks = takeRows(wpeMap, P.ids.map(function (id, t) { return t; }), cw, rh, C);
      var tables = el("div", { class: "nt-play-tables" }, [
        el("figure", { class: "nt-play-table" }, [wteMap, el("figcaption", {}, [el("code", { text: "wte" }), " " + P.cfg.vocab_size + " rows"])]),
        el("figure", { class: "nt-play-table" }, [wpeMap, el("figcaption", {}, [el("code", { text: "wpe" }), " " + P.cfg.n_ctx + " rows"])])]);
      var grid = el("div", { class: "nt-play-sums" });
      var rows = P.tokens.map(function (tok, t) {
        var a = strip(tr.wte[t], "row " + P.ids[t] + " of wte, " + tok, top), b = strip(tr.wpe[t], "row " + t + " of wpe", top),
            x = strip(tr.x[t], "input vector of " + tok, top), plus = sign("+"), eq = sign("=");
        [el("code", { class: "nt-vec-tok", text: tok }), a, plus, b, eq, x].forEach(function (n) { grid.appendChild(n); });
        return { a: a, b: b, x: x, plus: plus, eq: eq };
      });
      box.appendChild(el("div", { class: "nt-play-lookup" }, [tables, scroller("rows taken and added", grid)]));
      rows.forEach(function (r, t) {
        var d = 150 + t * 320;
        fly(r.a, tokMarks[t], d);
        appear(r.plus, d + 350);
        fly(r.b, posMarks[t], d + 250);
        appear(r.eq, d + 700);
        appear(r.x, d + 750, "scale(0.6)");
      });
      return "Each id picks its row of wte (" + P.cfg.vocab_size + " rows of " + C + " numbers) and each position its row of wpe; " +
        "the two rows are added: the input vector. " + P.tokens[P.last] + " is row " + P.ids[P.last] + " of wte and row " + P.last + " of wpe.";
    }

    function drawAttend(box) {
      var P = pass, B = P.block, rowH = 22, n = P.n, lanes = el("div", { class: "nt-play-heads" }), best = [];
      var longest = Math.max.apply(null, P.tokens.map(function (t) { return t.length; }));
      var kx = 8 + longest * 7, px = kx + 4, lx0 = px + 58, lx1 = lx0 + 90, qx = lx1 + 6;
      var W = qx + 8 + P.tokens[P.last].length * 7, H = n * rowH + 6, yq = H / 2;
      B.attn_weights.forEach(function (w, h) {
        var row = w[P.last], s = svg("svg", { class: "nt-play-lines", width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img",
          "aria-label": "head " + (h + 1) + ": " + P.tokens.map(function (t, j) { return t + " " + ui.pct(row[j]); }).join(", ") });
        var top = 0;
        P.tokens.forEach(function (tok, j) {
          var y = 3 + j * rowH + rowH / 2;
          var key = svg("text", { x: kx, y: y + 4, "text-anchor": "end", class: "nt-play-key" }); key.textContent = tok;
          var pct = svg("text", { x: px, y: y + 4, class: "nt-play-pct" }); pct.textContent = ui.pct(row[j]);
          var line = svg("path", { d: "M" + lx1 + " " + yq + "L" + lx0 + " " + y, class: "nt-play-line", pathLength: "1",
            "stroke-width": Math.max(0.75, row[j] * 14).toFixed(2), "stroke-opacity": (0.3 + 0.7 * row[j]).toFixed(3) });
          [line, key, pct].forEach(function (nd) { s.appendChild(nd); });
          anim(line, [{ strokeDashoffset: 1 }, { strokeDashoffset: 0 }], { delay: 300 + j * 120, duration: 500 });
          appear(pct, 650 + j * 120, "none");
          if (row[j] > row[top]) top = j;
        });
        var q = svg("text", { x: qx, y: yq + 4, class: "nt-play-query" }); q.textContent = P.tokens[P.last];
        s.appendChild(q);
        appear(q, 100, "none");
        best.push("head " + (h + 1) + " most at " + P.tokens[top] + " (" + ui.pct(row[top]) + ")");
        lanes.appendChild(el("div", { class: "nt-lane" }, [el("p", { class: "nt-lane-title", text: "Head " + (h + 1) + ": where " + P.tokens[P.last] + " looks" }), s]));
      });
      box.appendChild(lanes);
      return "After ln_1, " + P.tokens[P.last] + "'s query meets the key of every token up to itself; softmax turns the scores into weights " +
        "(the lines' widths), which add up to 100% in each head: " + best.join(", ") + ".";
    }

    function drawMix(box) {
      var P = pass, B = P.block, hs = P.cfg.d_head, lanes = el("div", { class: "nt-play-heads" }), said = [];
      B.attn_weights.forEach(function (w, h) {
        var row = w[P.last], vs = B.v[h].slice(0, P.n), outV = B.head_out[h][P.last];
        var prods = vs.map(function (v, j) { return v.map(function (a) { return a * row[j]; }); });
        var top = maxAbs(vs.concat(prods, [outV]));
        var grid = el("div", { class: "nt-play-mix" });
        var products = [];
        P.tokens.forEach(function (tok, j) {
          var pr = strip(prods[j], row[j].toFixed(3) + " × value of " + tok, top);
          [el("code", { class: "nt-vec-tok", text: tok }), strip(vs[j], "value of " + tok, top), sign("×"),
           el("span", { class: "nt-play-w", text: ui.pct(row[j]) }), sign("="), pr].forEach(function (nd) { grid.appendChild(nd); });
          products.push(pr);
        });
        var sum = strip(outV, "head " + (h + 1) + " output", top);
        [el("span", { class: "nt-play-sumlabel", text: "sum" }), el("span"), el("span"), el("span"), sign("="), sum].forEach(function (nd) { grid.appendChild(nd); });
        products.forEach(function (pr, j) { appear(pr, 200 + j * 110, "scaleX(0.4)"); });
        appear(sum, 350 + P.n * 110, "translateY(-0.6rem) scale(0.8)");
        var big = 0;
        row.forEach(function (x, j) { if (j < P.n && x > row[big]) big = j; });
        said.push("head " + (h + 1) + "'s output is " + ui.pct(row[big]) + " of " + P.tokens[big] + "'s value plus the rest");
        lanes.appendChild(el("div", { class: "nt-lane" }, [el("p", { class: "nt-lane-title", text: "Head " + (h + 1) + ": values × weights, summed (" + hs + " numbers)" }),
          scroller("head " + (h + 1) + ": values times weights", grid)]));
      });
      var joined = [];
      B.head_out.forEach(function (ho) { joined = joined.concat(ho[P.last]); });
      var xin = P.xin[P.last], ao = B.attn_out[P.last], mid = B.resid_mid[P.last];
      var top2 = maxAbs([joined, ao, xin, mid]);
      var after = [strip(joined, "the heads joined", top2), strip(ao, "output projection c_proj", top2), strip(xin, "the stream before", top2),
                   strip(ao, "attention's change", top2), strip(mid, "after attention", top2)];
      var tail = el("div", { class: "nt-play-chain" }, [
        el("span", { class: "nt-play-step-label", text: "joined" }), after[0], sign("→"), el("code", { text: "c_proj" }), sign("→"), after[1]]);
      var add = el("div", { class: "nt-play-chain" }, [el("span", { class: "nt-play-step-label", text: "added" }), after[2], sign("+"), after[3], sign("="), after[4]]);
      box.appendChild(lanes);
      box.appendChild(tail);
      box.appendChild(add);
      var t0 = 500 + P.n * 110;
      after.forEach(function (s, i) { appear(s, t0 + i * 220); });
      return "Each head adds up the tokens' value vectors, each times its weight: " + said.join("; ") + ". The " + P.cfg.n_head +
        " outputs are joined (" + P.cfg.n_embd + " numbers), mixed by c_proj and added onto the residual stream.";
    }

    function drawMlp(box) {
      var P = pass, B = P.block, t = P.last, F = P.cfg.d_mlp;
      var pre = B.mlp_pre[t], hid = B.mlp_hidden[t], out = B.mlp_out[t], ln = B.ln_2[t], mid = B.resid_mid[t], post = B.resid_post[t];
      var topF = maxAbs([pre, hid]), topC = maxAbs([ln, out, mid, post]);
      var hidStrip = strip(hid, "the " + F + " cells after GELU", topF, true);
      var rows = [
        ["ln_2", strip(ln, "after ln_2", topC)],
        ["c_fc: " + F + " cells", strip(pre, "c_fc, " + F + " cells before GELU", topF, true)],
        ["GELU: the cells fire", hidStrip],
        ["c_proj: back to " + P.cfg.n_embd, strip(out, "the MLP's change", topC)]];
      var grid = el("div", { class: "nt-play-mlp" });
      rows.forEach(function (r) { grid.appendChild(el("span", { class: "nt-play-step-label", text: r[0] })); grid.appendChild(r[1]); });
      var add = el("div", { class: "nt-play-chain" }, [el("span", { class: "nt-play-step-label", text: "added" }), strip(mid, "after attention", topC), sign("+"),
        strip(out, "the MLP's change", topC), sign("="), strip(post, "after the MLP", topC)]);
      box.appendChild(grid);
      box.appendChild(add);
      appear(rows[0][1], 100);
      appear(rows[1][1], 350, "scaleX(0.3)");
      var cells = hidStrip.querySelectorAll(".nt-cell"), fired = 0, strongest = 0;
      Array.prototype.forEach.call(cells, function (c, f) {
        anim(c, [{ opacity: 0, transform: "scale(0.3)" }, { opacity: 1, transform: "none" }], { delay: 700 + f * 1000 / F, duration: 260 });
      });
      hid.forEach(function (v, f) { if (v > 0) fired += 1; if (v > hid[strongest]) strongest = f; });
      appear(rows[3][1], 1800);
      Array.prototype.forEach.call(add.children, function (c, i) { appear(c, 2000 + i * 90); });
      return "ln_2 rescales the vector, c_fc widens it to " + F + " numbers and GELU lets each through by its size: " + fired + " of " + F +
        " come out positive, the strongest cell " + strongest + " (" + ui.fix(hid[strongest], 2) + "). c_proj brings them back to " + P.cfg.n_embd +
        " numbers, added onto the stream.";
    }

    // The final vector against every row of wte: a bar per row, the logits (tied embeddings: the same table).
    function scoreboard(box, values, kind) {
      var P = pass, V = P.cfg.vocab_size, C = P.cfg.n_embd, cw = 6, rh = P.rh, H = V * rh;
      var logits = P.logits, probs = P.probs, lo = Math.min(0, Math.min.apply(null, logits)), hi = Math.max(0, Math.max.apply(null, logits));
      var top = maxAbs(P.wte), bw = 150, bx = C * cw + 10, lx = bx + bw + 8, W = lx + 104;
      var box0 = "0 -2 " + W + " " + (H + 4);
      var s = svg("svg", { class: "nt-play-board", width: W, height: H + 4, viewBox: box0, role: "img",
        "aria-label": (kind === "logits" ? "the " + V + " logits" : "the " + V + " probabilities") + ", one per row of wte" });
      // The bars are layers over the board (same size and viewBox) so that each moves as one composited
      // layer; the board's label says what they show.
      function layer(cls) { return svg("svg", { class: "nt-play-layer " + cls, width: W, height: H + 4, viewBox: box0, "aria-hidden": "true" }); }
      var map = heat(P.wte, top, cw, rh, "");
      map.removeAttribute("role"); map.removeAttribute("aria-label");
      s.appendChild(map);
      var zero = kind === "logits" ? bx + (0 - lo) / (hi - lo || 1) * bw : bx;
      function bars(into, values, cls, scaleLo, scaleHi) {
        values.forEach(function (v, r) {
          var x0 = bx + (Math.min(0, v) - scaleLo) / (scaleHi - scaleLo || 1) * bw, w = Math.abs(v) / (scaleHi - scaleLo || 1) * bw;
          into.appendChild(svg("rect", { x: x0.toFixed(2), y: r * rh, width: Math.max(0.4, w).toFixed(2), height: Math.max(0.6, rh - 0.8),
            class: cls + (v < 0 ? " nt-play-bar-neg" : "") }));
        });
        return into;
      }
      var logitLayer = bars(layer(kind === "logits" ? "nt-play-logits" : "nt-play-ghosts"), logits, kind === "logits" ? "nt-play-bar" : "nt-play-bar nt-play-ghost", lo, hi);
      var probLayer = kind === "probs" ? bars(layer("nt-play-probs"), probs, "nt-play-bar nt-play-prob", 0, 1) : null;
      if (probLayer) probLayer.style.transformOrigin = bx + "px 0";
      s.appendChild(svg("line", { x1: zero, x2: zero, y1: -2, y2: H + 2, class: "nt-play-zero" }));
      var order = kernels.argsort(values).slice(0, Math.min(5, V));
      var ys = spread(order.map(function (id) { return id * rh + rh / 2 + 3.5; }), 11);
      order.forEach(function (id, k) {
        var end = kind === "logits" ? zero + Math.max(0, logits[id]) / (hi - lo || 1) * bw : bx + probs[id] * bw;
        s.appendChild(svg("path", { d: "M" + (end + 2) + " " + (id * rh + rh / 2) + "L" + (lx - 2) + " " + (ys[k] - 3.5), class: "nt-play-leader" }));
        var t = svg("text", { x: lx, y: ys[k], class: "nt-play-label" });
        t.textContent = P.show(id) + " " + (kind === "logits" ? ui.fix(logits[id], 2) : ui.pct(probs[id]));
        s.appendChild(t);
        appear(t, 1500 + k * 80, "none");
      });
      // the row being compared (a line sweeping down) and, below it, a cover over the bars not yet scored
      var sweep = el("div", { class: "nt-play-sweep", "aria-hidden": "true" }), cover = el("div", { class: "nt-play-cover", "aria-hidden": "true" });
      sweep.style.cssText = "left:-2px;top:2px;width:" + (bx + bw + 4) + "px;height:" + rh + "px";
      cover.style.cssText = "left:" + (bx - 1) + "px;top:2px;width:" + (bw + 2) + "px;height:" + H + "px";
      var wrap = el("div", { class: "nt-play-boardwrap" }, [s, logitLayer, probLayer, cover, sweep]);
      box.appendChild(scroller("every token's " + (kind === "logits" ? "logit" : "probability"), wrap));
      return { logits: logitLayer, probs: probLayer, sweep: sweep, cover: cover, H: H, order: order };
    }

    function drawCompare(box) {
      var P = pass, V = P.cfg.vocab_size, topF = maxAbs([P.lnf]);
      var fin = strip(P.lnf, "the final vector, after ln_f", topF);
      box.appendChild(el("div", { class: "nt-play-chain" }, [el("span", { class: "nt-play-step-label", text: "final vector (ln_f)" }), fin,
        sign("·"), el("span", { class: "nt-play-step-label", text: "each row of wte" })]));
      appear(fin, 50);
      var b = scoreboard(box, P.logits, "logits");
      anim(b.sweep, [{ transform: "translateY(0)", opacity: 0.3 }, { transform: "translateY(" + (b.H - P.rh) + "px)", opacity: 0.3 }], { delay: 200, duration: 1300, easing: "linear" });
      anim(b.cover, [{ transform: "scaleY(1)" }, { transform: "scaleY(0)" }], { delay: 200, duration: 1300, easing: "linear" });
      var best = b.order.slice(0, 3).map(function (id) { return P.show(id) + " " + ui.fix(P.logits[id], 2); });
      return "ln_f rescales the last vector once more, and it is compared (a dot product) with each of the " + V + " rows of wte, the table the " +
        "lookup read: one score per token, its logit. Highest: " + best.join(", ") + ".";
    }

    function drawSoftmax(box) {
      var P = pass, V = P.cfg.vocab_size;
      var b = scoreboard(box, P.probs, "probs");
      anim(b.logits, [{ opacity: 1 }, { opacity: 0.25 }], { delay: 100, duration: 600 });
      anim(b.probs, [{ transform: "scaleX(0)" }, { transform: "none" }], { delay: 500, duration: 900 });
      var sum = P.probs.reduce(function (a, p) { return a + p; }, 0);
      return "Softmax turns each logit into exp(logit − the largest) ÷ the sum of all " + V + " such terms: " + V + " probabilities that add up to " +
        ui.fix(sum, 4) + ". " + P.show(b.order[0]) + " takes " + ui.pct(P.probs[b.order[0]]) + ".";
    }

    function drawPick(box) {
      var P = pass, order = kernels.argsort(P.probs), pick = order[0];
      var ruler = el("div", { class: "nt-ruler nt-play-ruler", role: "img",
        "aria-label": "the probabilities laid end to end from 0 to 1, largest first: " + order.slice(0, 3).map(function (id) { return P.show(id) + " " + ui.pct(P.probs[id]); }).join(", ") + ", then the rest" });
      var left = 0, segs = [];
      order.forEach(function (id, k) {
        var w = P.probs[id] * 100;
        if (w < 0.05) { left += w; return; }
        var seg = el("span", { class: "nt-ruler-seg" + (k % 2 ? " nt-ruler-odd" : "") + (id === pick ? " nt-ruler-hit" : "") }, [
          w > 9 ? el("span", { class: "nt-ruler-tok", text: P.show(id) }) : null]);
        seg.style.left = left.toFixed(3) + "%";
        seg.style.width = w.toFixed(3) + "%";
        ruler.appendChild(seg);
        segs.push(seg);
        left += w;
      });
      var scale = el("p", { class: "nt-ruler-scale", "aria-hidden": "true" }, [el("span", { text: "0" }), el("span", { text: "1" })]);
      var chips = P.tokens.map(function (tok, i) { return ui.chip(tok, P.ids[i]); });
      var next = ui.chip(P.show(pick), pick, "nt-new-tok");
      box.appendChild(ruler);
      box.appendChild(scale);
      box.appendChild(el("p", { class: "nt-pick" }, ["“" + P.text + "” → ", el("code", { class: "nt-pick-token", text: P.show(pick) }), " (" + ui.pct(P.probs[pick]) + ")"]));
      box.appendChild(el("div", { class: "nt-tokens" }, chips.concat([next])));
      segs.forEach(function (sg, k) { appear(sg, 100 + Math.min(k, 12) * 60, "scaleY(0)"); });
      var hit = ruler.querySelector(".nt-ruler-hit");
      if (hit) anim(hit, [{ transform: "scaleY(1)" }, { transform: "scaleY(1.35)" }, { transform: "none" }], { delay: 1000, duration: 500 });
      fly(next, hit || ruler, 1400);
      return "Greedy takes the most probable token: " + P.show(pick) + " (" + ui.pct(P.probs[pick]) + ", the longest stretch of the ruler from 0 to 1; " +
        "a sampler would draw a point on it instead). Append it and the pass runs again.";
    }

    var STAGES = [
      { name: "tokens", parts: "text tokens", draw: drawTokens },
      { name: "lookup", parts: "embed", draw: drawLookup },
      { name: "attention", parts: "ln_1 heads", draw: drawAttend },
      { name: "values mixed", parts: "heads join attn_proj add_1", draw: drawMix },
      { name: "MLP", parts: "ln_2 mlp add_2", draw: drawMlp },
      { name: "compare", parts: "ln_f logits", draw: drawCompare },
      { name: "softmax", parts: "softmax", draw: drawSoftmax },
      { name: "pick", parts: "pick", draw: drawPick }];
    var stepButtons = STAGES.map(function (st, i) {
      var b = el("button", { type: "button", class: "nt-play-jump", "data-stage": st.name, text: (i + 1) + " " + st.name });
      b.addEventListener("click", function () { pause(); go(i); });
      steps.appendChild(el("li", {}, [b]));
      return b;
    });

    function stopMotion() { anims.forEach(function (a) { a.cancel(); }); anims = []; clearTimeout(timer); chain += 1; }

    // Stage i of the current pass drawn off the page, with what it says and its motion.
    function draw(i) {
      var st = STAGES[i], box = el("div", { class: "nt-play-box", "data-stage": st.name });
      moves = [];
      var text = st.draw(box);
      var drawn = { pass: pass, i: i, box: box, text: text, moves: moves };
      moves = null;
      return drawn;
    }

    // Draw stage i ahead, when the page is idle (the one drawn before is dropped).
    var idle = window.requestIdleCallback ? function (f) { return requestIdleCallback(f, { timeout: 1000 }); } : function (f) { return setTimeout(f, 200); };
    var unidle = window.cancelIdleCallback ? cancelIdleCallback : clearTimeout;
    function prepare(i) {
      if (aheadJob !== null) unidle(aheadJob);
      aheadJob = null;
      ahead = null;
      if (!pass || i >= STAGES.length) return;
      aheadJob = idle(function () { aheadJob = null; ahead = draw(i); });
    }

    function go(i) {
      stopMotion();
      at = i;
      var st = STAGES[i], drawn = ahead && ahead.pass === pass && ahead.i === i ? ahead : draw(i);
      ui.clear(stage);
      stage.appendChild(drawn.box);
      node.setAttribute("data-stage", st.name);
      stepButtons.forEach(function (b, k) { if (k === i) b.setAttribute("aria-current", "step"); else b.removeAttribute("aria-current"); });
      passMap.show(OWNER, st.parts);
      live.textContent = "Stage " + (i + 1) + " of " + STAGES.length + ", " + st.name + ": " + drawn.text;
      prepare(i + 1 < STAGES.length ? i + 1 : 0);
      // With motion, the stage is laid out hidden in the next frame and shown, its motion started, in the
      // one after: the layout and the painting of a new stage fall in two frames, and the motion's reads
      // find the layout done (none forced, nothing shown at rest before it moves).
      var mine = chain, still = !moving() || !drawn.moves.length;
      if (!still) drawn.box.classList.add("nt-play-pending");
      function show() { drawn.box.classList.remove("nt-play-pending"); }  // paused or replaced meanwhile: shown still
      requestAnimationFrame(function () {
        if (mine !== chain) { show(); return; }
        if (still) { if (playing) next(); return; }
        requestAnimationFrame(function () {
          if (mine === chain) begin(drawn.moves);
          show();
          if (mine === chain && playing) next();
        });
      });
    }

    // When this stage's motion is over (at once without motion), hold, then the next stage or the end.
    function next() {
      var mine = chain;
      Promise.all(anims.map(function (a) { return a.finished; })).then(function () {
        if (mine !== chain || !playing) return;
        timer = setTimeout(function () {
          if (mine !== chain || !playing) return;
          if (at + 1 < STAGES.length) go(at + 1);
          else { playing = false; playBtn.textContent = "Play again"; node.removeAttribute("data-playing"); }
        }, moving() ? HOLD : HOLD_STILL);
      }, function () { /* cancelled: a newer stage took over */ });
    }

    function play() {
      playing = true;
      playBtn.textContent = "Pause";
      node.setAttribute("data-playing", "");
      if (at < 0 || at === STAGES.length - 1) { go(0); return; }
      anims.forEach(function (a) { if (a.playState === "paused") a.play(); });
      chain += 1;
      next();
    }

    function pause() {
      if (!playing) return;
      playing = false;
      playBtn.textContent = "Play";
      node.removeAttribute("data-playing");
      clearTimeout(timer);
      chain += 1;
      anims.forEach(function (a) { if (a.playState === "running") a.pause(); });
    }

    function reset() {
      stopMotion();
      at = -1;
      ui.clear(stage);
      node.removeAttribute("data-stage");
      stepButtons.forEach(function (b) { b.removeAttribute("aria-current"); });
      playBtn.textContent = "Play";
      passMap.clear(OWNER);
      prepare(0);
      live.textContent = pass ? "Play shows this pass stage by stage, from “" + pass.text + "” to the pick; Step goes one stage at a time." : "";
    }

    // A new pass (the prompt changed): what the stages read, then back to the start.
    function load(spec) {
      pause();
      var tr = spec.trace, L = tr.h.length - 1, n = spec.ids.length, V = spec.config.vocab_size;
      pass = { trace: tr, ids: spec.ids, tokens: spec.tokens, text: spec.text, cfg: spec.config, show: spec.show, n: n, last: n - 1,
        wte: spec.wte, wpe: spec.wpe, block: tr.h[L], xin: L === 0 ? tr.x : tr.h[L - 1].resid_post,
        lnf: tr.ln_f[n - 1], logits: tr.logits[n - 1], probs: tr.probs[n - 1],
        rh: Math.max(1, Math.min(6, Math.floor(300 / V))) };  // a table's row height: the whole vocabulary in about 300 px
      reset();
    }

    // No pass to play (the prompt has a problem): nothing shown, nothing lit.
    function empty() { pause(); pass = null; reset(); }

    return { node: node, load: load, empty: empty };
  }

  return { create: create };
});
