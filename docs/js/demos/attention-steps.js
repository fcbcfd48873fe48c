// Demo: attention, played step by step. One head of the tiny model at the last position of the page's
// prompt: the query meets each key in turn (its products, their sum, ÷ √d_head: the score), the scores
// become weights (softmax), and the values are mixed by them into the head's output. q, k and v are
// the build's trace (the container's data-steps, from site_data/tiny/traces.json); the scores, weights
// and mix are computed here from them, as the model does. Play / Pause, Step and Back to start, as the
// loop page's pass (ui.pass-player): every stage is the same table with more of it shown, so a stage
// change only sets classes and text (no long task), and its motion is the Web Animations API on
// opacity and transform from a start keyframe to the element's own style (at rest it looks the same
// with or without motion). With prefers-reduced-motion nothing moves and Play steps on a slower timer.
nexttoken.define("demos.attention-steps", ["ui", "runtime.active", "ui.permalink"], function (ui, active, permalink) {
  "use strict";
  var el = ui.el;
  var HOLD = 1400, HOLD_STILL = 2000;  // ms a stage stays before Play moves on (longer when nothing moves)

  function dot(a, b) { var s = 0; for (var d = 0; d < a.length; d++) s += a[d] * b[d]; return s; }

  // The head's arithmetic from its q, k and v: every number the stages show.
  function compute(h) {
    var n = h.k.length, scale = Math.sqrt(h.q.length);
    var prods = h.k.map(function (k) { return k.map(function (x, d) { return h.q[d] * x; }); });
    var dots = h.k.map(function (k) { return dot(h.q, k); });
    var scores = dots.map(function (s) { return s / scale; });
    var top = Math.max.apply(null, scores);
    var ex = scores.map(function (s) { return Math.exp(s - top); });
    var sum = ex.reduce(function (a, b) { return a + b; }, 0);
    var weights = ex.map(function (e) { return e / sum; });
    var mixed = h.v.map(function (v, j) { return v.map(function (x) { return weights[j] * x; }); });
    var out = h.q.map(function (x, d) { var s = 0; for (var j = 0; j < n; j++) s += mixed[j][d]; return s; });
    return { n: n, scale: scale, prods: prods, dots: dots, scores: scores, top: top, ex: ex, sum: sum, weights: weights, mixed: mixed, out: out };
  }

  function still(s) { s.removeAttribute("tabindex"); return s; }  // the stage's strips: their numbers are in the text

  ui.start("attention-steps", function (root, live) {
    var data = JSON.parse(root.getAttribute("data-steps"));
    var head = data.head, at = -1, playing = false, timer = null, anims = [];
    var playBtn = ui.button("Play", function () { playing ? pause() : play(); }, { primary: true });
    var stepBtn = ui.button("Step", function () { pause(); go(at + 1 < stages().length ? at + 1 : 0); });
    var backBtn = ui.button("Back to start", function () { pause(); reset(); });
    playBtn.setAttribute("data-role", "play");
    stepBtn.setAttribute("data-role", "step");
    backBtn.setAttribute("data-role", "back");
    // What each step says: every text is in the page at once, stacked in one grid cell and only the
    // current one visible, so the box is as tall as the longest and a step changes no layout (a text of
    // another length would lay the whole page out again). Screen readers hear it from the live line.
    var now = el("div", { class: "nt-as-now" });
    var said = el("p", { class: "nt-as-said", "aria-live": "polite" });
    var board = el("div", { class: "nt-as-board" });
    var headPick = ui.radios("Which head", data.heads.map(function (h, i) { return { value: i, label: "head " + (i + 1) }; }), head, function (v) {
      pause(); head = Number(v); build(); texts(); reset();
    });
    var node = el("section", { class: "nt-as", "aria-label": "Attention, played step by step" }, [
      el("div", { class: "nt-controls" }, [headPick, playBtn, stepBtn, backBtn]), said, now, board]);
    live.appendChild(node);

    var c = null, rows = [], outRow = null, sumRow = null;
    function tok(j) { return data.tokens[j]; }
    function f(x) { return ui.fix(x, 2); }
    function paren(x) { return x < 0 ? "(" + f(x) + ")" : f(x); }

    // The whole table once per head; the stages show more of it.
    function build() {
      var h = data.heads[head];
      c = compute(h);
      var topK = ui.maxAbs(h.k.concat([h.q])), topV = ui.maxAbs(h.v.concat([c.out]));
      ui.clear(board);
      board.appendChild(el("p", { class: "nt-as-q" }, ["query of ", el("code", { text: tok(c.n - 1) }), " (position " + (c.n - 1) + "): ",
        still(ui.strip(h.q, "query", { top: topK }))]));
      var grid = el("div", { class: "nt-as-grid", role: "table", "aria-label": "the query against each key, head " + (head + 1) });
      grid.appendChild(el("div", { class: "nt-as-row nt-as-head", role: "row" }, ["position", "key k", "q × k, each number", "score", "weight", "weight × value v"].map(function (t) {
        return el("span", { role: "columnheader", text: t });
      })));
      rows = h.k.map(function (k, j) {
        var bar = el("span", { class: "nt-as-fill" });
        bar.style.width = (c.weights[j] * 100).toFixed(2) + "%";
        var r = {
          node: el("div", { class: "nt-as-row", role: "row", "data-j": j }),
          prods: still(ui.strip(c.prods[j], "q × k of " + tok(j), { top: topK * topK })),
          score: el("span", { class: "nt-as-score", "data-score": c.scores[j], text: f(c.scores[j]) }),
          weight: el("span", { class: "nt-as-weight", "data-weight": c.weights[j] }, [el("span", { class: "nt-as-track" }, [bar]),
            el("span", { class: "nt-as-pct", text: ui.pct(c.weights[j]) })]),
          bar: bar,
          mixed: still(ui.strip(c.mixed[j], "weight × value of " + tok(j), { top: topV }))
        };
        r.node.appendChild(el("span", { role: "cell", class: "nt-as-tok" }, [String(j) + " ", el("code", { text: tok(j) })]));
        r.node.appendChild(el("span", { role: "cell" }, [still(ui.strip(k, "key of " + tok(j), { top: topK }))]));
        r.node.appendChild(el("span", { role: "cell", class: "nt-as-prods" }, [r.prods]));
        r.node.appendChild(el("span", { role: "cell" }, [r.score]));
        r.node.appendChild(el("span", { role: "cell" }, [r.weight]));
        r.node.appendChild(el("span", { role: "cell", class: "nt-as-mixed" }, [r.mixed]));
        grid.appendChild(r.node);
        return r;
      });
      sumRow = el("div", { class: "nt-as-row nt-as-sum", role: "row" }, [el("span", { role: "cell", text: "" }), el("span", { role: "cell", text: "" }),
        el("span", { role: "cell", text: "" }), el("span", { role: "cell", text: "" }),
        el("span", { role: "cell", class: "nt-as-total", text: "Σ weights = " + ui.fix(c.weights.reduce(function (a, b) { return a + b; }, 0), 2) }),
        el("span", { role: "cell", class: "nt-as-mixed" }, ["= ", still(ui.strip(c.out, "the head's output", { top: topV }))])]);
      outRow = sumRow.lastChild;
      outRow.setAttribute("data-out", JSON.stringify(c.out));
      grid.appendChild(sumRow);
      board.appendChild(el("div", { class: "nt-scroll nt-as-scroll", tabindex: "0", role: "region", "aria-label": "the head's arithmetic (scrolls sideways on a narrow screen)" }, [grid]));
    }

    // Stage names and what each says; the key stages come one per position.
    function stages() {
      var list = [{ name: "query", say: function () { return "The last token's query: what it looks for. Each earlier key will be met in turn."; } }];
      rows.forEach(function (r, j) {
        list.push({ name: "key " + j, j: j, say: function () {
          var h = data.heads[head];
          return "Query · key of " + tok(j) + ": " + h.q.map(function (x, d) { return paren(x) + " × " + paren(h.k[j][d]); }).join(" + ") +
            " = " + f(c.dots[j]) + "; ÷ √" + h.q.length + " = " + f(c.scores[j]) + ".";
        } });
      });
      list.push({ name: "softmax", say: function () {
        return "Softmax: each score minus the top (" + f(c.top) + "), exp, divided by their sum (" + ui.fix(c.sum, 3) + "): the weights add up to one.";
      } });
      list.push({ name: "mix", say: function () {
        var best = c.weights.indexOf(Math.max.apply(null, c.weights));
        return "The mix: each value scaled by its weight, then added. The output is mostly " + tok(best) + "'s value (" + ui.pct(c.weights[best]) + ").";
      } });
      return list;
    }

    // The texts of the steps (-1: before the first), drawn once per head.
    function texts() {
      var list = stages();
      ui.clear(now);
      now.appendChild(el("p", { "data-step": -1, "aria-hidden": "true",
        text: "Play shows head " + (head + 1) + " at the last token of “" + data.prompt + "”, step by step; Step goes one step at a time." }));
      list.forEach(function (st, i) {
        now.appendChild(el("p", { "data-step": i, "aria-hidden": "true", text: "Step " + (i + 1) + " of " + list.length + ": " + st.say() }));
      });
    }
    function say(i) {
      Array.prototype.forEach.call(now.children, function (p) { p.classList.toggle("nt-as-on-text", p.getAttribute("data-step") === String(i)); });
      said.textContent = now.querySelector('[data-step="' + i + '"]').textContent;
    }

    function animate(target, frames, delay) {
      if (ui.reducedMotion() || !target.animate) return;
      anims.push(target.animate(frames, { duration: 450, delay: delay || 0, easing: "ease-out", fill: "backwards" }));
    }
    function stopMotion() { anims.forEach(function (a) { a.cancel(); }); anims = []; clearTimeout(timer); }

    // Show stage i: what is revealed by then, the row in focus, and its motion.
    function go(i) {
      stopMotion();
      at = i;
      var list = stages(), st = list[i];
      var met = st.j !== undefined ? st.j : (st.name === "query" ? -1 : rows.length - 1);
      var weighed = st.name === "softmax" || st.name === "mix", mixing = st.name === "mix";
      rows.forEach(function (r, j) {
        r.node.classList.toggle("nt-as-met", j <= met);
        r.node.classList.toggle("nt-as-on", j === st.j);
      });
      node.setAttribute("data-stage", st.name);
      node.classList.toggle("nt-as-weighed", weighed);
      node.classList.toggle("nt-as-mixing", mixing);
      say(i);
      if (st.j !== undefined) {
        var r = rows[st.j];
        Array.prototype.forEach.call(r.prods.children, function (cell, d) {
          animate(cell, [{ opacity: 0, transform: "translateY(-0.6rem) scale(0.6)" }, { opacity: 1, transform: "none" }], 90 * d);
        });
        animate(r.score, [{ opacity: 0, transform: "translateX(-0.8rem)" }, { opacity: 1, transform: "none" }], 90 * r.prods.children.length);
      } else if (st.name === "softmax") {
        rows.forEach(function (r, j) { animate(r.bar, [{ transform: "scaleX(0)" }, { transform: "none" }], 60 * j); });
      } else if (mixing) {
        rows.forEach(function (r, j) { animate(r.mixed, [{ opacity: 0, transform: "translateX(-1rem)" }, { opacity: 1, transform: "none" }], 80 * j); });
        animate(outRow, [{ opacity: 0, transform: "translateY(-" + rows.length + "rem)" }, { opacity: 1, transform: "none" }], 80 * rows.length);
      }
      if (playing) next();
    }

    function next() {
      var wait = Promise.all(anims.map(function (a) { return a.finished; }));
      var mine = at;
      wait.then(function () {
        if (!playing || mine !== at) return;
        timer = setTimeout(function () {
          if (!playing || mine !== at) return;
          if (at + 1 < stages().length) go(at + 1);
          else { playing = false; playBtn.textContent = "Play again"; node.removeAttribute("data-playing"); }
        }, ui.reducedMotion() ? HOLD_STILL : HOLD);
      }, function () { /* cancelled: another stage took over */ });
    }

    function play() {
      playing = true;
      playBtn.textContent = "Pause";
      node.setAttribute("data-playing", "");
      if (at < 0 || at === stages().length - 1) go(0);
      else next();
    }

    function pause() {
      if (!playing) return;
      playing = false;
      playBtn.textContent = "Play";
      node.removeAttribute("data-playing");
      clearTimeout(timer);
    }

    function reset() {
      stopMotion();
      at = -1;
      node.removeAttribute("data-stage");
      node.classList.remove("nt-as-weighed", "nt-as-mixing");
      rows.forEach(function (r) { r.node.classList.remove("nt-as-met", "nt-as-on"); });
      playBtn.textContent = "Play";
      say(-1);
    }

    build();
    texts();
    reset();
    if (active.which === "yours") {  // the page's other demos run the reader's model; this one replays the build's pass
      live.insertBefore(el("p", { class: "nt-msg nt-info", text: "This demo replays the built model's stored pass, not your model's." }), live.firstChild);
    }

    // The head and the step on show in the page's link; the head's arithmetic as a download (js/ui/permalink.js).
    permalink.join(root, live, {
      fields: { head: permalink.int(0, data.heads.length - 1), step: permalink.int(0, stages().length) },
      get: function () { return { head: head, step: at + 1 }; },
      set: function (s) {
        if (s.head !== undefined && s.head !== head) {
          head = s.head;
          headPick.querySelector('input[value="' + head + '"]').checked = true;
          build(); texts(); reset();
        }
        if (s.step) go(s.step - 1);
      },
      tables: function () {
        var h = data.heads[head];
        return [{ name: "head" + (head + 1) + "-at-last-token", columns: ["position", "token", "dot_q_k", "score", "weight"].concat(
          h.v[0].map(function (_, d) { return "weight_x_v" + d; })),
          rows: h.k.map(function (k, j) { return [j, tok(j), c.dots[j], c.scores[j], c.weights[j]].concat(c.mixed[j]); }) }];
      } });
  });
});
