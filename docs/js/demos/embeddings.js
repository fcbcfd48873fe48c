// Demo: the token embedding table (wte). Pick a token: its nearest tokens by cosine similarity,
// computed here from the weights (each opens to its arithmetic), and a 2-D map of every row (the first two principal components of
// the rows, by power iteration on their 8 x 8 covariance), the picked token and its neighbours marked.
nexttoken.define("demos.embeddings", ["ui", "runtime.active", "runtime.kernels", "explain.lines"], function (ui, active, kernels, lines) {
  "use strict";
  var NEAR = 5;
  var dot = kernels.dot, cosine = kernels.cosine;

  // The top `k` principal directions of the rows (centred), by power iteration with deflation.
  function pca(rows, k) {
    var C = rows[0].length, n = rows.length, mean = new Array(C).fill(0), i, j, r;
    rows.forEach(function (row) { for (i = 0; i < C; i++) mean[i] += row[i] / n; });
    var X = rows.map(function (row) { return row.map(function (v, c) { return v - mean[c]; }); });
    var cov = [];
    for (i = 0; i < C; i++) { cov.push(new Array(C).fill(0)); for (j = 0; j < C; j++) for (r = 0; r < n; r++) cov[i][j] += X[r][i] * X[r][j] / n; }
    var dirs = [];
    for (var d = 0; d < k; d++) {
      var v = new Array(C).fill(0).map(function (_, c) { return 1 + c * 0.1; });  // fixed start: the same map every time
      for (var it = 0; it < 200; it++) {
        var w = cov.map(function (row) { return dot(row, v); });
        dirs.forEach(function (u) { var p = dot(w, u); for (var c = 0; c < C; c++) w[c] -= p * u[c]; });
        var norm = Math.sqrt(dot(w, w)) || 1;
        v = w.map(function (x) { return x / norm; });
      }
      var big = 0;  // sign: the largest entry positive, so the map does not flip between builds
      for (i = 1; i < C; i++) if (Math.abs(v[i]) > Math.abs(v[big])) big = i;
      if (v[big] < 0) v = v.map(function (x) { return -x; });
      dirs.push(v);
    }
    return X.map(function (row) { return dirs.map(function (u) { return dot(row, u); }); });
  }

  ui.start("embeddings", function (root, live) {
    var t = active.tiny();
    var wte = active.data.weights.wte, V = wte.length;
    var names = wte.map(function (_, id) { return t.tk.show(id); });
    // The page's token (the built model's) where the active vocabulary has it, else its first word.
    var start = names.indexOf(root.getAttribute("data-token") || "·cat");
    if (start < 0) start = names.findIndex(function (nm, id) { return id > 0 && nm.length > 2; });
    var options = names.map(function (nm, id) { return { value: id, label: nm + " (id " + id + ")" }; })
      .sort(function (a, b) { return a.label < b.label ? -1 : 1; });
    var pick = ui.select("Token", options, start < 0 ? 0 : start, function (v) { show(Number(v)); });
    var nearEl = ui.el("div", { class: "nt-output nt-x-host", "aria-live": "polite" });
    var xy = pca(wte, 2);
    var mapEl = ui.el("div", { class: "nt-scroll nt-embed-map", tabindex: "0", role: "region", "aria-label": "map of the " + V + " token vectors (scrolls sideways)" });
    live.appendChild(ui.el("div", { class: "nt-controls" }, [pick.wrap]));
    live.appendChild(nearEl);
    live.appendChild(mapEl);

    function show(id) {
      var sims = wte.map(function (row, j) { return j === id ? -Infinity : cosine(wte[id], row); });
      var near = kernels.argsort(sims).slice(0, NEAR);
      ui.clear(nearEl);
      nearEl.appendChild(ui.el("p", { class: "nt-small", text: "Nearest " + NEAR + " of the other " + (V - 1) + " tokens to " + names[id] + " by cosine similarity (1 = same direction, 0 = unrelated, −1 = opposite):" }));
      nearEl.appendChild(ui.bars(near.map(function (j) {
        var text = ui.numberButton(ui.fix(sims[j], 2), function () {
          return lines.cosine(active.data.weights, id, j, names[id], names[j]);
        }, { label: "cosine of " + names[id] + " and " + names[j] });
        return { label: names[j], value: sims[j], text: text, data: { token: names[j], cos: sims[j] } };
      }), { label: "nearest tokens to " + names[id], axis: { lo: Math.min(0, sims[near[NEAR - 1]]), hi: 1 }, axisLabel: "cosine" }));
      drawMap(id, near);
    }

    function drawMap(id, near) {
      ui.clear(mapEl);
      var W = 640, H = 400, pad = 28, xs = xy.map(function (p) { return p[0]; }), ys = xy.map(function (p) { return p[1]; });
      var x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs), y0 = Math.min.apply(null, ys), y1 = Math.max.apply(null, ys);
      function X(v) { return pad + (v - x0) / ((x1 - x0) || 1) * (W - 2 * pad); }
      function Y(v) { return H - pad - (v - y0) / ((y1 - y0) || 1) * (H - 2 * pad); }
      var svg = ui.svg("svg", { viewBox: "0 0 " + W + " " + H, class: "nt-embed-svg", role: "img" });
      svg.setAttribute("aria-label", "The " + V + " token vectors projected on their first two principal components; " + names[id] +
        " is marked, with its nearest tokens " + near.map(function (j) { return names[j]; }).join(", ") + ".");
      var isNear = {};
      near.forEach(function (j) { isNear[j] = true; });
      // Labels that would overlap one already placed are left out (the point keeps its title); the
      // picked token and its neighbours are placed first. The unseen single letters crowd together.
      var placed = [], order = [id].concat(near, xy.map(function (_, j) { return j; }));
      var labelled = {};  // token id -> its label's box, or null
      order.forEach(function (j) {
        if (labelled[j] !== undefined) return;  // the picked and near ones come twice in `order`
        var px = X(xy[j][0]), py = Y(xy[j][1]), w = 6.7 * names[j].length;
        var spots = [{ x: px + 7, y: py - 8, anchor: "start" }, { x: px - 7 - w, y: py - 8, anchor: "end" },
                     { x: px - w / 2, y: py - 20, anchor: "middle" }, { x: px - w / 2, y: py + 6, anchor: "middle" }];
        labelled[j] = null;
        spots.some(function (bx) {
          bx.w = w; bx.h = 12;
          var free = bx.x >= 0 && bx.x + w <= W && placed.every(function (o) { return bx.x > o.x + o.w || o.x > bx.x + bx.w || bx.y > o.y + o.h || o.y > bx.y + bx.h; });
          if (free) { placed.push(bx); labelled[j] = bx; }
          return free;
        });
      });
      xy.forEach(function (p, j) {
        var cls = j === id ? "nt-embed-pick" : isNear[j] ? "nt-embed-near" : "nt-embed-dot";
        var g = ui.svg("g", { class: cls });
        var c = ui.svg("circle", { cx: X(p[0]).toFixed(1), cy: Y(p[1]).toFixed(1), r: j === id ? 6 : 4 });
        var title = ui.svg("title");
        title.textContent = names[j] + " (id " + j + ")";
        c.appendChild(title);
        var label = ui.svg("text");
        var spot = labelled[j];
        if (spot) {
          label.setAttribute("x", (spot.anchor === "start" ? spot.x : spot.anchor === "end" ? spot.x + spot.w : spot.x + spot.w / 2).toFixed(1));
          label.setAttribute("y", (spot.y + 12).toFixed(1));
          label.setAttribute("text-anchor", spot.anchor);
        }
        label.textContent = names[j];
        g.appendChild(c);
        if (spot) g.appendChild(label);
        svg.appendChild(g);
      });
      mapEl.appendChild(svg);
      mapEl.appendChild(ui.el("p", { class: "nt-hint", text: "Axes: the two directions along which the " + V + " rows vary most (principal components, computed in your browser). Close points have similar rows." }));
    }

    show(start < 0 ? 0 : start);
  });
});
