// Demo: two heads. Both heads' attention side by side, each as lines between the tokens (as wide as
// the weights) over its heat map (rows: the position looking; columns: the position looked at; the
// upper triangle is masked). The two follow one cursor: picking a token in the lines moves the map's
// cursor to its row, and moving the cursor draws that row's lines. Each map is one focusable grid:
// arrow keys move a cursor, Home/End jump, taps select a cell; the readout names the weight, whose
// score and weight open to their arithmetic. Below, the rest of the attention half of the block at
// the last position: each head's output (weights · V), the two side by side, the output projection
// c_proj, and the residual add.
nexttoken.define("demos.two-heads", ["ui", "store", "runtime.active", "runtime.prompts", "runtime.model", "explain.pass", "attention-lines", "ui.permalink"], function (ui, store, active, prompts, model, pass, attnLines, permalink) {
  "use strict";

  ui.start("two-heads", function (root, live) {
    var t = active.tiny(model);
    var m = t.model;
    var msg = ui.message();
    var prompt = ui.textInput("Prompt", prompts.pick(root.getAttribute("data-prompt") || "the cat sat on the"), function () { run(); });
    var maps = ui.el("div", { class: "nt-lanes" });
    var rest = ui.el("div", { class: "nt-x-host nt-block-rest" });
    live.appendChild(ui.el("div", { class: "nt-controls" }, [prompt.wrap]));
    live.appendChild(msg.node);
    live.appendChild(maps);
    live.appendChild(rest);
    var explain = null, tr = null;
    var cursor = { i: 0, j: 0 };
    var movers = [], shownTokens = [];  // each map's cursor mover, and the tokens on show (for the link and the download)

    function run() {
      msg.clear();
      ui.clear(maps);
      ui.clear(rest);
      var before = movers.map(function (mv) { return mv.at(); }), beforeTokens = shownTokens.join("\u0000");
      movers = [];
      var r = prompts.encode(prompt.input.value);
      if (!r.ok) { msg.show(r.message, "error"); return; }
      if (r.note) msg.show(r.note, "info");
      tr = m.forward(r.ids, { knockout: store.get("knockout") || null });
      var off = tr.knockout.heads.map(function (o, h) { return o ? "head " + (h + 1) : null; }).filter(Boolean);
      if (tr.knockout.mlp) off.push("the MLP");
      if (off.length) msg.show("Switched off by the knock-out below: " + off.join(" and ") + " (output set to zero).", "info");
      explain = pass.of({ trace: tr, ids: r.ids, config: m.config, weights: active.data.weights, show: t.tk.show });
      var n = r.ids.length;
      cursor = { i: n - 1, j: 0 };
      shownTokens = r.tokens;
      var W = tr.h[0].attn_weights;
      W.forEach(function (w, hd) { maps.appendChild(heatmap(w, hd, r.tokens)); });
      // a rerun of the same prompt (a knock-out changed) keeps each map's cursor
      if (r.tokens.join("\u0000") === beforeTokens) movers.forEach(function (mv, k) { if (before[k]) mv.move(before[k].i, before[k].j); });
      blockRest(r.tokens);
    }

    // The last position through the rest of the attention half, every strip on one colour scale.
    function blockRest(tokens) {
      var B = tr.h[0], t = tokens.length - 1, joined = [];
      B.head_out.forEach(function (ho) { joined = joined.concat(ho[t]); });
      var rows = B.head_out.map(function (ho, hd) {
        return ["head " + (hd + 1) + " output (weights · V)", ho[t], function (d) { return function () { return explain.mix(0, hd, t, d); }; }];
      }).concat([
        ["joined: the heads side by side", joined, null],
        ["c_proj(joined): attention output", B.attn_out[t], function (c) { return function () { return explain.proj(0, t, c); }; }],
        ["+ input x (the residual)", tr.x[t], null],
        ["= after attention", B.resid_mid[t], function (c) { return function () { return explain.residual(0, "resid_mid", t, c); }; }]]);
      var top = ui.maxAbs(rows.map(function (r) { return r[1]; }));
      var grid = ui.el("div", { class: "nt-vecgrid nt-vecgrid-2" });
      rows.forEach(function (r) {
        grid.appendChild(ui.el("span", { text: r[0] }));
        grid.appendChild(ui.strip(r[1], r[0], r[2] ? { top: top, explain: r[2] } : { top: top }));
      });
      rest.appendChild(ui.el("p", { class: "nt-lane-title", text: "The rest of attention, at the last position (" + tokens[t] + ")" }));
      rest.appendChild(ui.legend(top, "colour scale"));
      rest.appendChild(ui.el("div", { class: "nt-scroll" }, [grid]));
      rest.appendChild(ui.el("p", { class: "nt-hint", text: "Open a cell of a head's output, of c_proj or of the sum to see its arithmetic." }));
    }

    function heatmap(w, hd, tokens) {
      var n = tokens.length;
      // The readout's two numbers are buttons made once, relabelled as the cursor moves (a keyboard
      // reader keeps its place); each opens the arithmetic of the cell under the cursor.
      var here = { i: 0, j: 0 };
      var readText = ui.el("span");
      var weightBtn = ui.numberButton("", function () { return explain.weight(0, hd, here.i, here.j); }, { label: "weight" });
      var scoreBtn = ui.numberButton("", function () { return explain.score(0, hd, here.i, here.j); }, { label: "score" });
      var readout = ui.el("p", { class: "nt-readout", "aria-live": "polite" }, [readText, weightBtn, ", score ", scoreBtn, "."]);
      var picture = attnLines.create({ tokens: tokens, weights: w, selected: n - 1, label: "head " + (hd + 1),
        onSelect: function (i) { move(i, Math.min(here.j, i)); } });
      var grid = ui.el("div", { class: "nt-heat", role: "grid", tabindex: "0",
        "aria-label": "Head " + (hd + 1) + " attention weights; use the arrow keys to move between cells" });
      grid.style.setProperty("--n", n + 1);
      grid.appendChild(ui.el("span", { class: "nt-heat-corner", "aria-hidden": "true" }));
      tokens.forEach(function (tok) { grid.appendChild(ui.el("code", { class: "nt-heat-col", "aria-hidden": "true", text: tok })); });
      var cells = [];
      for (var i = 0; i < n; i++) {
        grid.appendChild(ui.el("code", { class: "nt-heat-row", "aria-hidden": "true", text: tokens[i] }));
        cells.push([]);
        for (var j = 0; j < n; j++) {
          var masked = j > i;
          var c = ui.el("span", { class: "nt-heat-cell" + (masked ? " nt-masked" : ""), "data-i": i, "data-j": j,
            title: masked ? "masked" : tokens[i] + " → " + tokens[j] + ": " + ui.pct(w[i][j]) });
          if (!masked) c.style.setProperty("--a", w[i][j].toFixed(4));
          (function (ii, jj) { c.addEventListener("click", function () { move(ii, jj); grid.focus(); }); })(i, j);
          cells[i].push(c);
          grid.appendChild(c);
        }
      }
      function move(i, j) {
        i = Math.max(0, Math.min(n - 1, i));
        j = Math.max(0, Math.min(i, j));
        cursor = { i: i, j: j };
        here = { i: i, j: j };
        cells.forEach(function (row) { row.forEach(function (c) { c.classList.remove("nt-cursor"); }); });
        cells[i][j].classList.add("nt-cursor");
        if (picture.selected() !== i) picture.select(i, true);
        readText.textContent = "Head " + (hd + 1) + ": position " + i + " (" + tokens[i] + ") gives " + ui.pct(w[i][j]) +
          " of its attention to position " + j + " (" + tokens[j] + "). Weight ";
        ui.relabel(weightBtn, ui.pct(w[i][j]));
        ui.relabel(scoreBtn, ui.fix(tr.h[0].scores[hd][i][j], 2).replace("-", "\u2212"));
      }
      grid.addEventListener("keydown", function (e) {
        var k = e.key, i = cursor.i, j = cursor.j;
        if (k === "ArrowUp") i -= 1; else if (k === "ArrowDown") i += 1;
        else if (k === "ArrowLeft") j -= 1; else if (k === "ArrowRight") j += 1;
        else if (k === "Home") j = 0; else if (k === "End") j = i;
        else return;
        e.preventDefault();
        if (k === "ArrowUp" || k === "ArrowDown") j = Math.min(j, Math.max(0, i));
        move(i, j);
      });
      grid.addEventListener("focus", function () { move(cursor.i, cursor.j); });
      var top = 0;
      w[n - 1].forEach(function (x, j) { if (x > w[n - 1][top]) top = j; });
      var lane = ui.el("div", { class: "nt-lane", "data-head": hd }, [
        ui.el("p", { class: "nt-lane-title", text: "Head " + (hd + 1) }),
        picture.node,
        ui.el("div", { class: "nt-heat-wrap" }, [grid]),
        ui.el("p", { class: "nt-small", text: "The last token (" + tokens[n - 1] + ") looks most at " + tokens[top] + " (" + ui.pct(w[n - 1][top]) + ")." }),
        readout]);
      move(n - 1, top);
      movers.push({ move: move, at: function () { return here; } });
      return lane;
    }

    run();
    store.subscribe("knockout", function () { run(); });

    // Its state in the page's link (prompt and each map's cursor, c1=i.j for head 1), and both heads'
    // weights as a download (js/ui/permalink.js).
    var fields = { prompt: permalink.text(ui.INPUT_MAX) };
    for (var hd = 0; hd < m.config.n_head; hd++) fields["c" + (hd + 1)] = permalink.ints(0, m.config.n_ctx - 1, 2);
    permalink.join(root, live, { model: active, fields: fields,
      get: function () {
        var s = { prompt: prompt.input.value };
        movers.forEach(function (mv, k) { var at = mv.at(); s["c" + (k + 1)] = [at.i, at.j]; });
        return s;
      },
      set: function (s) {
        if (s.prompt !== undefined) prompt.input.value = s.prompt;
        run();
        movers.forEach(function (mv, k) { var c = s["c" + (k + 1)]; if (c && c.length === 2) mv.move(c[0], c[1]); });
      },
      tables: function () {
        if (!tr || !movers.length) throw new Error("the prompt gives no attention to export (fix it first)");
        var rows = [], B = tr.h[0];
        B.attn_weights.forEach(function (w, hd) {
          w.forEach(function (row, i) {
            for (var j = 0; j <= i; j++) rows.push([hd + 1, i, j, shownTokens[i], shownTokens[j], row[j], B.scores[hd][i][j]]);
          });
        });
        return [{ name: "attention-weights", columns: ["head", "query_pos", "key_pos", "query_token", "key_token", "weight", "score"], rows: rows }];
      } });
  });
});
