// Demo: the token embedding table (wte). Pick a token: its nearest tokens by cosine similarity,
// computed here from the weights (each opens to its arithmetic), and a 2-D map of every row's
// direction (the rows scaled to length 1, as cosine compares them, then their first two principal
// components), with lines from the picked token to its nearest rows by cosine: the flat map keeps
// only part of the differences (the share of each axis is printed), so closeness on it alone can
// mislead, and the lines say which rows really are nearest.
nexttoken.define("demos.embeddings", ["ui", "runtime.active", "runtime.kernels", "explain.lines", "ui.permalink"], function (ui, active, kernels, lines, permalink) {
  "use strict";
  var NEAR = 5;
  var dot = kernels.dot, cosine = kernels.cosine;

  // Eigenvalues and eigenvectors of a symmetric matrix by cyclic Jacobi rotations (exact to rounding
  // for the 8 x 8 covariance, whatever the gaps between eigenvalues). Returns [{value, vector}],
  // largest first.
  function eigen(A) {
    var n = A.length, a = A.map(function (r) { return r.slice(); }), v = [], i, j, k;
    for (i = 0; i < n; i++) { v.push(new Array(n).fill(0)); v[i][i] = 1; }
    for (var sweep = 0; sweep < 100; sweep++) {
      var off = 0;
      for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) off += a[i][j] * a[i][j];
      if (off < 1e-30) break;
      for (var p = 0; p < n; p++) for (var q = p + 1; q < n; q++) {
        if (Math.abs(a[p][q]) < 1e-300) continue;
        var theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
        var t = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        var c = 1 / Math.sqrt(t * t + 1), s = t * c;
        for (k = 0; k < n; k++) {  // columns p and q
          var akp = a[k][p], akq = a[k][q];
          a[k][p] = c * akp - s * akq; a[k][q] = s * akp + c * akq;
        }
        for (k = 0; k < n; k++) {  // rows p and q
          var apk = a[p][k], aqk = a[q][k];
          a[p][k] = c * apk - s * aqk; a[q][k] = s * apk + c * aqk;
        }
        for (k = 0; k < n; k++) {
          var vkp = v[k][p], vkq = v[k][q];
          v[k][p] = c * vkp - s * vkq; v[k][q] = s * vkp + c * vkq;
        }
      }
    }
    var out = [];
    for (i = 0; i < n; i++) out.push({ value: a[i][i], vector: v.map(function (row) { return row[i]; }) });
    return out.sort(function (x, y) { return y.value - x.value; });
  }

  // The rows' directions (each row / its length), centred, on their top `k` principal components:
  // {xy: [[pc1, pc2]...], share: [variance share of each axis]} (share of the total variance).
  function pca(rows, k) {
    var C = rows[0].length, n = rows.length, mean = new Array(C).fill(0), i, j, r;
    var U = rows.map(function (row) { var len = Math.sqrt(dot(row, row)) || 1; return row.map(function (x) { return x / len; }); });
    U.forEach(function (row) { for (i = 0; i < C; i++) mean[i] += row[i] / n; });
    var X = U.map(function (row) { return row.map(function (v, c) { return v - mean[c]; }); });
    var cov = [];
    for (i = 0; i < C; i++) { cov.push(new Array(C).fill(0)); for (j = 0; j < C; j++) for (r = 0; r < n; r++) cov[i][j] += X[r][i] * X[r][j] / n; }
    var eig = eigen(cov), total = 0;
    eig.forEach(function (e) { total += Math.max(0, e.value); });
    var dirs = eig.slice(0, k).map(function (e) {
      var u = e.vector, big = 0;  // sign: the largest entry positive, so the map does not flip between builds
      for (var c = 1; c < C; c++) if (Math.abs(u[c]) > Math.abs(u[big])) big = c;
      return u[big] < 0 ? u.map(function (x) { return -x; }) : u;
    });
    return { xy: X.map(function (row) { return dirs.map(function (u) { return dot(row, u); }); }),
             share: eig.slice(0, k).map(function (e) { return total ? Math.max(0, e.value) / total : 0; }) };
  }

  // A one-character token (a letter, the space, the full stop).
  function single(name) { return name.replace(/^·/, "").length <= 1; }

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
    var map = pca(wte, 2), xy = map.xy;
    var mapEl = ui.el("div", { class: "nt-scroll nt-embed-map", tabindex: "0", role: "region", "aria-label": "map of the " + V + " token vectors (scrolls sideways)" });
    var shares = map.share.map(function (s) { return ui.pct(s, 0); });
    // Tokens the corpus never uses whole (its letters, the parts of its words) were only ever pushed
    // down as wrong answers, all the same way, so their rows crowd one spot: drawn faint and unlabelled
    // (with the other single characters) unless picked or near, and their mean cosine is printed.
    var used = {};
    (t.config.corpus || []).forEach(function (line) {
      var e = t.tk.encode(line);
      if (e.ok) e.ids.forEach(function (i) { used[i] = true; });
    });
    used[t.tk.eotId] = true;  // every sentence ends in it
    var unused = (t.config.corpus || []).length ? names.map(function (_, j) { return j; }).filter(function (j) { return !used[j]; }) : [];
    if (!unused.length) names.forEach(function (_, j) { used[j] = true; });
    var faint = names.map(function (nm, j) { return single(nm) || !used[j]; });
    var together = 0, pairs = 0;
    unused.forEach(function (a, k) { unused.slice(k + 1).forEach(function (b) { together += cosine(wte[a], wte[b]); pairs += 1; }); });
    var caption = ui.el("p", { class: "nt-hint nt-embed-caption", "data-shares": map.share.join(" "),
      text: "Across: the direction in which the " + V + " rows' directions vary most, " + shares[0] + " of their variance; up: the next, " + shares[1] +
        " (principal components of the rows scaled to length 1, computed in your browser). Together the two axes keep " + ui.pct(map.share[0] + map.share[1], 0) +
        " of the differences, so two points can sit close here and still differ in the rest: the lines join the picked token to those of its " + NEAR +
        " nearest rows by cosine with a cosine above 0.00, wherever they land." });
    var crowd = ui.el("p", { class: "nt-hint nt-embed-caption", "data-unused": unused.length, text: pairs
      ? "Faint, unlabelled: single characters and the " + unused.length + " tokens the training sentences never use whole (letters, parts of words). " +
        "Training only ever pushed those down as wrong answers" + (together / pairs > 0.5
          ? ", all the same way, so their rows point almost alike (mean cosine " + ui.fix(together / pairs, 2) + ") and crowd one spot."
          : " (their rows' mean cosine: " + ui.fix(together / pairs, 2) + ").")
      : "Faint, unlabelled: the single characters." });
    // Neighbours are words first: the faint rows (letters, parts of words) all point alike, so they would
    // crowd every untrained word's list; the box lists them too, on request.
    var withFragments = false, current = start < 0 ? 0 : start;
    var fragBox = ui.checkbox("Also list letters and parts of words (rows training never used whole)", false, function (v) { withFragments = v; show(current); });
    fragBox.input.setAttribute("data-role", "fragments");
    live.appendChild(ui.el("div", { class: "nt-controls" }, [pick.wrap, faint.some(Boolean) ? fragBox.wrap : null]));
    live.appendChild(nearEl);
    live.appendChild(mapEl);
    live.appendChild(caption);
    live.appendChild(crowd);

    function show(id) {
      current = id;
      var sims = wte.map(function (row, j) { return j === id ? -Infinity : cosine(wte[id], row); });
      var ranked = sims.map(function (s, j) { return withFragments || !faint[j] ? s : -Infinity; });
      var pool = ranked.filter(function (s) { return s > -Infinity; }).length;
      var near = kernels.argsort(ranked).slice(0, Math.min(NEAR, pool));
      ui.clear(nearEl);
      nearEl.appendChild(ui.el("p", { class: "nt-small", "data-role": "near-of", text: "Nearest " + near.length + " of the other " + pool + (withFragments ? " tokens" : " words") + " to " + names[id] +
        " by cosine similarity (1 = same direction, 0 = unrelated, −1 = opposite)" + (withFragments ? ":" : "; letters and parts of words on request:") }));
      nearEl.appendChild(ui.bars(near.map(function (j) {
        var text = ui.numberButton(ui.fix(sims[j], 2), function () {
          return lines.cosine(active.data.weights, id, j, names[id], names[j]);
        }, { label: "cosine of " + names[id] + " and " + names[j] });
        return { label: names[j], value: sims[j], text: text, data: { token: names[j], cos: sims[j] } };
      }), { label: "nearest tokens to " + names[id], axis: { lo: Math.min(0, sims[near[near.length - 1]]), hi: 1 }, axisLabel: "cosine" }));
      drawMap(id, near, sims);
    }

    function drawMap(id, near, sims) {
      ui.clear(mapEl);
      // drawn at the box's own width (labels stay 11 px on a phone), up to 640
      var W = Math.max(300, Math.min(640, Math.round(mapEl.clientWidth || root.clientWidth - 24) || 640)), H = Math.round(Math.max(W * 0.625, 260)), pad = 28, xs = xy.map(function (p) { return p[0]; }), ys = xy.map(function (p) { return p[1]; });
      var x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs), y0 = Math.min.apply(null, ys), y1 = Math.max.apply(null, ys);
      function X(v) { return pad + (v - x0) / ((x1 - x0) || 1) * (W - 2 * pad); }
      function Y(v) { return H - pad - (v - y0) / ((y1 - y0) || 1) * (H - 2 * pad); }
      var svg = ui.svg("svg", { viewBox: "0 0 " + W + " " + H, class: "nt-embed-svg", role: "img" });
      svg.setAttribute("aria-label", "The " + V + " token directions on their first two principal components (" + shares[0] + " and " + shares[1] +
        " of the variance); " + names[id] + " is marked, with lines to its nearest tokens by cosine: " +
        near.map(function (j) { return names[j] + " " + ui.fix(sims[j], 2); }).join(", ") + ".");
      var isNear = {};
      near.forEach(function (j) { isNear[j] = true; });
      // lines first, under the points: to each of the nearest rows by cosine, thicker for more similar;
      // none to a row whose cosine shows as 0.00 or less (unrelated is not near)
      near.filter(function (j) { return sims[j] >= 0.005; }).forEach(function (j) {
        var ln = ui.svg("line", { x1: X(xy[id][0]).toFixed(1), y1: Y(xy[id][1]).toFixed(1), x2: X(xy[j][0]).toFixed(1), y2: Y(xy[j][1]).toFixed(1),
          class: "nt-embed-link", "data-token": names[j], "stroke-width": (1 + 3 * Math.max(0, sims[j])).toFixed(2) });
        svg.appendChild(ln);
      });
      // Labels that would overlap a point or a label already placed are left out (the point keeps its title); the
      // picked token and its neighbours are placed first, faint ones never unless picked or near.
      var placed = xy.map(function (p) { return { x: X(p[0]) - 5, y: Y(p[1]) - 5, w: 10, h: 10 }; });  // no label over a point
      var order = [id].concat(near, xy.map(function (_, j) { return j; }));
      var labelled = {};  // token id -> its label's box, or null
      order.forEach(function (j) {
        if (labelled[j] !== undefined) return;  // the picked and near ones come twice in `order`
        labelled[j] = null;
        if (faint[j] && j !== id && !isNear[j]) return;
        var px = X(xy[j][0]), py = Y(xy[j][1]), w = 6.7 * names[j].length;
        var spots = [{ x: px + 7, y: py - 8, anchor: "start" }, { x: px - 7 - w, y: py - 8, anchor: "end" },
                     { x: px - w / 2, y: py - 20, anchor: "middle" }, { x: px - w / 2, y: py + 6, anchor: "middle" }];
        spots.some(function (bx) {
          bx.w = w; bx.h = 12;
          var free = bx.x >= 0 && bx.x + w <= W && placed.every(function (o) { return bx.x > o.x + o.w || o.x > bx.x + bx.w || bx.y > o.y + o.h || o.y > bx.y + bx.h; });
          if (free) { placed.push(bx); labelled[j] = bx; }
          return free;
        });
      });
      // faint single characters first, so the words' points sit on top of them
      var drawOrder = xy.map(function (_, j) { return j; }).sort(function (a, b) {
        function rank(j) { return j === id ? 3 : isNear[j] ? 2 : faint[j] ? 0 : 1; }
        return rank(a) - rank(b);
      });
      var faintLayer = ui.svg("g", { class: "nt-embed-faint-layer" });  // faded as one, so the crowd does not darken itself
      svg.appendChild(faintLayer);
      drawOrder.forEach(function (j) {
        var p = xy[j];
        var cls = j === id ? "nt-embed-pick" : isNear[j] ? "nt-embed-near" : faint[j] ? "nt-embed-dot nt-embed-faint" : "nt-embed-dot";
        var g = ui.svg("g", { class: cls, "data-token": names[j] });
        var c = ui.svg("circle", { cx: X(p[0]).toFixed(1), cy: Y(p[1]).toFixed(1), r: j === id ? 6 : faint[j] && !isNear[j] ? 3 : 4 });
        var title = ui.svg("title");
        title.textContent = names[j] + " (id " + j + ")" + (j === id ? "" : ": cosine " + ui.fix(sims[j], 2) + " with " + names[id]);
        c.appendChild(title);
        g.appendChild(c);
        var spot = labelled[j];
        if (spot) {
          var label = ui.svg("text");
          label.setAttribute("x", (spot.anchor === "start" ? spot.x : spot.anchor === "end" ? spot.x + spot.w : spot.x + spot.w / 2).toFixed(1));
          label.setAttribute("y", (spot.y + 12).toFixed(1));
          label.setAttribute("text-anchor", spot.anchor);
          label.textContent = names[j];
          g.appendChild(label);
        }
        (cls.indexOf("nt-embed-faint") >= 0 ? faintLayer : svg).appendChild(g);
      });
      mapEl.appendChild(svg);
    }

    show(start < 0 ? 0 : start);

    // The picked token in the page's link; every token's cosine to it, and its map position, as a download (js/ui/permalink.js).
    permalink.join(root, live, { model: active,
      fields: { token: permalink.int(0, V - 1) },
      get: function () { return { token: Number(pick.input.value) }; },
      set: function (s) { if (s.token !== undefined) { pick.input.value = String(s.token); show(s.token); } },
      tables: function () {
        var id = Number(pick.input.value), rows = wte.map(function (row, j) { return [j, names[j], cosine(wte[id], row), xy[j][0], xy[j][1]]; });
        return [{ name: "cosines-to-" + id, columns: ["id", "token", "cosine_to_picked", "map_x", "map_y"], rows: rows }];
      } });
  });

  return { pca: pca, eigen: eigen };
});
