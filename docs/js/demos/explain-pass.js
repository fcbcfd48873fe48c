// The forward pass's arithmetic for explain.js (load it after that file): a logit, a probability, an
// attention score and weight, a head's mix, the output projection, LayerNorm, a residual sum, an MLP
// cell, a K or V cache cell, a generation step's multiply-adds, the logit lens, and a training
// snapshot's losses, each as lines checkable from the digits shown plus a numpy snippet that replays
// the pass (with the page's knock-outs) over the weights the demos run. Adds them to NTX.explain.
(function (root) {
  "use strict";
  var NTX = root.NTX;
  if (!NTX) throw new Error("explain.js must load before explain-pass.js");
  var L = NTX.lib, num = L.num, line = L.line, sum = L.sum, dotLines = L.dotLines, printLine = L.printLine;
  var SNAPSHOTS_URL = "js/data/nexttoken-tiny-snapshots.json";
  var GELU_TEXT = "GELU(a) = 0.5·a·(1 + tanh(√(2/π)·(a + 0.044715·a³)))";

  // ---- the Python side: a short forward pass in numpy, the same names as the JS trace ----------
  // A knock-out on the page (knockout.js) changes the pass the demos show: the snippet replays it too.
  function knockout() {
    var ko = (window.NT && window.NT.knockoutState) || {};
    return { heads: (ko.heads || []).slice(), mlp: !!ko.mlp };
  }
  function prelude(cfg, ids, ko, src) {
    ko = ko || knockout();
    return L.loadWeights(src).concat([
      "A = lambda a: np.array(a, dtype=np.float64)",
      "ln = lambda x, p: (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + " + cfg.ln_eps + ") * A(p[\"weight\"]) + A(p[\"bias\"])",
      "lin = lambda x, p: x @ A(p[\"weight\"]).T + A(p[\"bias\"])",
      "gelu = lambda a: 0.5 * a * (1 + np.tanh(np.sqrt(2 / np.pi) * (a + 0.044715 * a**3)))",
      "ids = " + JSON.stringify(Array.prototype.slice.call(ids)) + "; T, C, H = len(ids), " + cfg.n_embd + ", " + cfg.n_head + "; hs = C // H",
      "off_heads, off_mlp = " + JSON.stringify(ko.heads) + ", " + (ko.mlp ? "True" : "False") + "  # knock-outs (heads from 0)",
      "x = A(W[\"wte\"])[ids] + A(W[\"wpe\"])[:T]; tr = {\"x\": x.copy(), \"h\": []}",
      "for p in W[\"h\"]:",
      "    b = {\"ln_1\": ln(x, p[\"ln_1\"])}; q, k, v = np.split(lin(b[\"ln_1\"], p[\"attn\"][\"c_attn\"]), 3, axis=-1)",
      "    b[\"q\"], b[\"k\"], b[\"v\"], b[\"scores\"], b[\"attn_weights\"], b[\"head_out\"] = [], [], [], [], [], []",
      "    for h in range(H):",
      "        qh, kh, vh = (m[:, h * hs:(h + 1) * hs] for m in (q, k, v))",
      "        s = qh @ kh.T / np.sqrt(hs); w = np.exp(s - s.max(-1, keepdims=True)) * np.tri(T)",
      "        w /= w.sum(-1, keepdims=True)",
      "        for key, val in zip((\"q\", \"k\", \"v\", \"scores\", \"attn_weights\", \"head_out\"), (qh, kh, vh, s, w, (h not in off_heads) * (w @ vh))): b[key].append(val)",
      "    b[\"attn_out\"] = lin(np.concatenate(b[\"head_out\"], -1), p[\"attn\"][\"c_proj\"]); x = x + b[\"attn_out\"]; b[\"resid_mid\"] = x",
      "    b[\"ln_2\"] = ln(x, p[\"ln_2\"]); b[\"mlp_pre\"] = lin(b[\"ln_2\"], p[\"mlp\"][\"c_fc\"]); b[\"mlp_hidden\"] = gelu(b[\"mlp_pre\"])",
      "    b[\"mlp_out\"] = (not off_mlp) * lin(b[\"mlp_hidden\"], p[\"mlp\"][\"c_proj\"]); x = x + b[\"mlp_out\"]; b[\"resid_post\"] = x; tr[\"h\"].append(b)",
      "tr[\"ln_f\"] = ln(x, W[\"ln_f\"]); tr[\"logits\"] = tr[\"ln_f\"] @ A(W[\"wte\"]).T"
    ]);
  }
  function snippet(cfg, ids, body, ko, src) { return prelude(cfg, ids, ko, src).concat(body).join("\n") + "\n"; }

  // ---- the explanations -> {kind, title, formula, lines, snippet} ----------------------------------
  // cfg: the model's sizes; tr: m.forward(ids); w: the weights as in the data (nested arrays).
  // logit of token `id` at position t: ln_f(x) · wte[id] (tied embeddings)
  function logit(cfg, tr, ids, w, t, id, tokName) {
    var wrow = w.wte[id];
    var d = dotLines(tr.ln_f[t], wrow, "final", "wte");
    var ls = d.lines.concat([line("sum of the " + cfg.n_embd + " products", "sum", d.prods, tr.logits[t][id])]);
    return { kind: "logit", title: "Logit of " + tokName + " = final vector · its token embedding (wte row " + id + ")",
             formula: "logit = Σ final[c] × wte[" + id + "][c]", lines: ls, eqD: 2,
             snippet: snippet(cfg, ids, [printLine("tr[\"logits\"][" + t + ", " + id + "]")]) };
  }

  // probability of token `id`: exp(logit/T − max/T) / Σ over the kept tokens. ko: the knock-outs
  // of the pass the logits come from, when not the page's (the knock-out demo's full model); src:
  // its weights, when not the demos' (the training page's comparison of two models)
  function prob(cfg, ids, logits, id, tokName, T, kept, t, ko, src) {
    T = T || 1;
    var mx = -Infinity;
    kept = kept || logits.map(function (_, j) { return j; });
    kept.forEach(function (j) { if (logits[j] > mx) mx = logits[j]; });
    var es = kept.map(function (j) { return Math.exp((logits[j] - mx) / T); });
    var S = sum(es), e = Math.exp((logits[id] - mx) / T), p = e / S;
    var ls = [
      line("(logit − top logit) ÷ T", "div", [logits[id] - mx, T], (logits[id] - mx) / T),
      line("exp of it", "exp", [num((logits[id] - mx) / T)], e),
      line("Σ exp over the " + kept.length + " tokens" + (kept.length < logits.length ? " kept" : ""), "sum", es, S),
      line("probability", "div", [num(e), num(S)], p, { eqD: 6 })
    ];
    var code = ["logits = tr[\"logits\"][" + t + "] / " + T, "keep = " + JSON.stringify(kept.slice().sort(function (a, b) { return a - b; })),
                "e = np.exp(logits[keep] - logits[keep].max())", printLine("e[keep.index(" + id + ")] / e.sum()", 6)];
    return { kind: "prob", title: "Probability of " + tokName + (T !== 1 ? " at T = " + T : ""),
             formula: "p = exp((logit − max) / T) ÷ Σ exp((logit′ − max) / T)", lines: ls, pct: true, download: src,
             snippet: snippet(cfg, ids, code, ko, src) };
  }

  // attention score of position i on j in head h of layer l: q_i · k_j / √d_head
  function score(cfg, tr, ids, l, h, i, j) {
    var B = tr.h[l], q = B.q[h][i], k = B.k[h][j];
    var d = dotLines(q, k, "q", "k"), dot = sum(d.prods);
    var ls = d.lines.concat([line("q · k", "sum", d.prods, dot),
      line("÷ √d_head (√" + cfg.d_head + ")", "div", [num(dot), num(Math.sqrt(cfg.d_head))], B.scores[h][i][j])]);
    return { kind: "score", title: "Score: position " + i + " looks at " + j + " (head " + (h + 1) + ")",
             formula: "score = q · k ÷ √d_head", lines: ls,
             snippet: snippet(cfg, ids, [printLine("tr[\"h\"][" + l + "][\"scores\"][" + h + "][" + i + ", " + j + "]")]) };
  }

  // attention weight: softmax of row i's scores over the positions it may see (0..i)
  function weight(cfg, tr, ids, l, h, i, j) {
    var s = tr.h[l].scores[h][i].slice(0, i + 1), mx = Math.max.apply(null, s);
    var es = s.map(function (x) { return Math.exp(x - mx); }), S = sum(es);
    var ls = [line("score − top score of the row", "sub", [s[j], mx], s[j] - mx),
      line("exp of it", "exp", [num(s[j] - mx)], es[j]),
      line("Σ exp over positions 0.." + i + " (later ones are masked)", "sum", es, S),
      line("weight", "div", [num(es[j]), num(S)], es[j] / S, { eqD: 6 })];
    return { kind: "weight", title: "Attention weight: position " + i + " on " + j + " (head " + (h + 1) + ")",
             formula: "weight = exp(score − max) ÷ Σ exp(score′ − max)", lines: ls, pct: true,
             snippet: snippet(cfg, ids, [printLine("tr[\"h\"][" + l + "][\"attn_weights\"][" + h + "][" + i + ", " + j + "]", 6)]) };
  }

  // LayerNorm output cell c: (x[c] − mean) / √(var + eps) · γ[c] + β[c]
  function layerNorm(cfg, ids, x, g, b, c, y, name, path) {
    var mean = sum(x) / x.length, v = 0;
    x.forEach(function (a) { v += (a - mean) * (a - mean); });
    v /= x.length;
    var sd = Math.sqrt(v + cfg.ln_eps), z = (x[c] - mean) / sd;
    var ls = [line("mean of the " + x.length + " inputs", "mean", x, mean),
      line("variance (mean square from the mean)", "var", x, v),
      line("+ eps", "sum", [num(v), String(cfg.ln_eps)], v + cfg.ln_eps, { d: 6 }),
      line("√ of it", "sqrt", [num(v + cfg.ln_eps, 6)], sd),
      line("x[" + c + "] − mean", "sub", [x[c], mean], x[c] - mean),
      line("÷ √(var + eps)", "div", [num(x[c] - mean), num(sd)], z),
      line("× γ[" + c + "]", "mul", [num(z), g[c]], z * g[c]),
      line("+ β[" + c + "]", "sum", [num(z * g[c]), b[c]], y)];
    return { kind: "layernorm", title: name + ", cell " + c, formula: "y = (x − mean) ÷ √(var + eps) × γ + β", lines: ls,
             snippet: snippet(cfg, ids, [printLine(path + "[" + c + "]")]) };
  }

  // residual cell: the sum of its parts
  function residual(cfg, ids, parts, c, y, name, path) {
    return { kind: "residual", title: name + ", cell " + c, formula: parts.map(function (p) { return p[0]; }).join(" + "),
             lines: [line(parts.map(function (p) { return p[0] + "[" + c + "]"; }).join(" + "), "sum",
                          parts.map(function (p) { return p[1][c]; }), y)],
             snippet: snippet(cfg, ids, [printLine(path + "[" + c + "]")]) };
  }

  // MLP output cell c: Σ_f c_proj[c][f] × GELU(pre[f]) + bias, with the largest term's GELU shown
  function mlp(cfg, tr, w, ids, l, t, c) {
    var B = tr.h[l], hid = B.mlp_hidden[t], pre = B.mlp_pre[t], F = hid.length;
    var P = w.h[l].mlp.c_proj, prods = [], big = 0, f;
    for (f = 0; f < F; f++) {
      prods.push(P.weight[c][f] * hid[f]);
      if (Math.abs(prods[f]) > Math.abs(prods[big])) big = f;
    }
    var ls = [line("largest term: hidden[" + big + "] = GELU(pre[" + big + "])", "gelu", [pre[big]], hid[big]),
      line("its product: c_proj[" + c + "][" + big + "] × hidden[" + big + "]", "mul", [P.weight[c][big], num(hid[big])], prods[big])];
    var terms = prods.slice();
    terms.push(P.bias[c]);
    ls.push(line("Σ of the " + F + " products c_proj[" + c + "][f] × hidden[f], + bias", "sum", terms, B.mlp_out[t][c]));
    return { kind: "mlp", title: "MLP output, cell " + c, formula: "out[c] = Σ_f c_proj[c][f] × GELU(pre[f]) + b[c];  " + GELU_TEXT,
             lines: ls, snippet: snippet(cfg, ids, [printLine("tr[\"h\"][" + l + "][\"mlp_out\"][" + t + ", " + c + "]")]) };
  }

  // a head's output cell d at position i: the weighted mix of the value vectors it may see
  function mix(cfg, tr, ids, l, h, i, d) {
    var B = tr.h[l], ls = [], prods = [];
    for (var j = 0; j <= i; j++) {
      prods.push(B.attn_weights[h][i][j] * B.v[h][j][d]);
      ls.push(line("weight on " + j + " × v[" + j + "][" + d + "]", "mul", [B.attn_weights[h][i][j], B.v[h][j][d]], prods[j]));
    }
    if (tr.knockout && tr.knockout.heads[h]) {
      ls.push(line("sum over positions 0.." + i, "sum", prods, sum(prods)));
      ls.push(line("head " + (h + 1) + " is switched off (knock-out): its output × 0", "mul", [sum(prods), 0], B.head_out[h][i][d]));
    } else {
      ls.push(line("sum over positions 0.." + i, "sum", prods, B.head_out[h][i][d]));
    }
    return { kind: "mix", title: "Head " + (h + 1) + " output, position " + i + ", cell " + d, formula: "out[d] = Σ_j weight[j] × v[j][d]", lines: ls,
             snippet: snippet(cfg, ids, [printLine("tr[\"h\"][" + l + "][\"head_out\"][" + h + "][" + i + ", " + d + "]")]) };
  }

  // attention output cell c: the output projection c_proj over the heads' outputs side by side
  function proj(cfg, tr, w, ids, l, t, c) {
    var B = tr.h[l], P = w.h[l].attn.c_proj, joined = [], ls = [], terms = [];
    B.head_out.forEach(function (ho) { joined = joined.concat(ho[t]); });
    joined.forEach(function (a, k) {
      terms.push(P.weight[c][k] * a);
      ls.push(line("c_proj[" + c + "][" + k + "] × joined[" + k + "]", "mul", [P.weight[c][k], a], terms[k]));
    });
    terms.push(P.bias[c]);
    ls.push(line("sum, + bias", "sum", terms, B.attn_out[t][c]));
    return { kind: "proj", title: "Attention output (c_proj), position " + t + ", cell " + c,
             formula: "attn_out[c] = Σ_k c_proj[c][k] × joined[k] + b[c]   (joined = the heads' outputs side by side)", lines: ls,
             snippet: snippet(cfg, ids, [printLine("tr[\"h\"][" + l + "][\"attn_out\"][" + t + ", " + c + "]")]) };
  }

  // the logit lens: token `id`'s probability if the pass stopped at a stage whose residual row at
  // position t is x: ln_f(x) · wte[id] for every token, then the softmax. pyStage: that row's array
  // in the snippet's trace (tr["x"], tr["h"][l]["resid_mid"], ...).
  function lens(cfg, w, ids, x, t, id, tokName, stageName, pyStage) {
    var mean = sum(x) / x.length, v = 0;
    x.forEach(function (a) { v += (a - mean) * (a - mean); });
    var sd = Math.sqrt(v / x.length + cfg.ln_eps);
    var h = x.map(function (a, c) { return (a - mean) / sd * w.ln_f.weight[c] + w.ln_f.bias[c]; });
    var logits = w.wte.map(function (row) { var s = 0; for (var c = 0; c < row.length; c++) s += h[c] * row[c]; return s; });
    var d = dotLines(h, w.wte[id], "ln_f(x)", "wte");
    var p = prob(cfg, ids, logits, id, tokName, 1, null, t);
    var ls = d.lines.concat([line("logit of " + tokName + " = sum of the " + cfg.n_embd + " products", "sum", d.prods, logits[id])], p.lines);
    var code = ["z = ln(" + pyStage + "[" + t + "], W[\"ln_f\"]) @ A(W[\"wte\"]).T  # the lens: ln_f and the unembedding",
                "e = np.exp(z - z.max())", printLine("e[" + id + "] / e.sum()", 6)];
    return { kind: "lens", title: "Logit lens: " + tokName + " at position " + t + " " + stageName,
             formula: "p = softmax(ln_f(x) · wteᵀ), x = the residual stream " + stageName, lines: ls, pct: true,
             snippet: snippet(cfg, ids, code) };
  }

  function snapshotSource(snap) {
    return { href: SNAPSHOTS_URL, name: "nexttoken-tiny-snapshots.json", text: "the tiny model's training snapshots (JSON)",
             pick: "[\"snapshots\"][" + snap.index + "][\"weights\"]  # step " + snap.step };
  }

  // the training view: a snapshot's loss at position t, −ln p(target) = ln Σ exp(z − max) − (z_target
  // − max), the stable form (p itself can round to zero); snap: {index, step}, the snippet loads the
  // snapshots file.
  function loss(cfg, ids, logits, target, tokName, t, snap) {
    var p = prob(cfg, ids, logits, target, tokName, 1, null, t);
    var mx = Math.max.apply(null, logits), se = 0;
    logits.forEach(function (z) { se += Math.exp(z - mx); });
    var a = logits[target] - mx, lnS = Math.log(se);
    var src = snapshotSource(snap);
    var code = ["z = tr[\"logits\"][" + t + "]", printLine("np.log(np.exp(z - z.max()).sum()) - (z[" + target + "] - z.max())")];
    return { kind: "loss", title: "Loss at position " + t + ": the next token is " + tokName + " (snapshot at step " + snap.step + ")",
             formula: "loss = −ln p = ln Σ exp(logit′ − max) − (logit − max)", download: src,
             lines: p.lines.concat([line("ln of the Σ", "ln", [num(se)], lnS),
                                    line("loss = ln Σ − (logit − top logit)", "sub", [num(lnS), num(a)], -a + lnS)]),
             snippet: snippet(cfg, ids, code, { heads: [], mlp: false }, src) };
  }

  // the training view: a sentence's mean loss, the mean over its positions (each opens on its own)
  function sentenceLoss(cfg, ids, losses, targets, snap) {
    var src = snapshotSource(snap);
    var code = ["targets = " + JSON.stringify(Array.prototype.slice.call(targets)) + "  # the next token at each position",
                "z = tr[\"logits\"]; m = z.max(-1, keepdims=True)",
                "losses = np.log(np.exp(z - m).sum(-1)) - (z[np.arange(T), targets] - m[:, 0])",
                printLine("losses.mean()")];
    return { kind: "mean", title: "Mean loss on the sentence (snapshot at step " + snap.step + ")", formula: "mean of −ln p over the positions",
             download: src, lines: [line("mean of the " + losses.length + " position losses", "mean", losses, sum(losses) / losses.length)],
             snippet: snippet(cfg, ids, code, { heads: [], mlp: false }, src) };
  }

  // a cell of the K or V cache: row `pos`'s ln_1 output through c_attn's key (or value) rows, cell c
  // of the heads side by side (head c / d_head, dimension c % d_head)
  function kv(cfg, tr, w, ids, l, which, pos, c) {
    var C = cfg.n_embd, hs = cfg.d_head, h = Math.floor(c / hs), d = c % hs, r = (which === "k" ? C : 2 * C) + c;
    var A = w.h[l].attn.c_attn, x = tr.h[l].ln_1[pos], ls = [], terms = [];
    for (var j = 0; j < C; j++) {
      terms.push(A.weight[r][j] * x[j]);
      ls.push(line("c_attn[" + r + "][" + j + "] × ln_1[" + j + "]", "mul", [A.weight[r][j], x[j]], terms[j]));
    }
    terms.push(A.bias[r]);
    ls.push(line("sum, + bias", "sum", terms, tr.h[l][which][h][pos][d]));
    var name = which === "k" ? "Key" : "Value";
    return { kind: "kv", title: name + " cache, row " + pos + ", cell " + c + " (head " + (h + 1) + ", dimension " + d + ")",
             formula: which + "[c] = Σ_j c_attn[" + (which === "k" ? "C" : "2C") + " + c][j] × ln_1[j] + b   (c_attn's " + (which === "k" ? "key" : "value") + " rows)",
             lines: ls, snippet: snippet(cfg, ids, [printLine("tr[\"h\"][" + l + "][\"" + which + "\"][" + h + "][" + pos + ", " + d + "]")]) };
  }

  // multiply-adds of one generation step: rows first..last of the window computed, each row p
  // attending over p + 1 rows, in every layer; then the logits of the last position
  function ops(cfg, first, last, total) {
    var C = cfg.n_embd, F = cfg.d_mlp, V = cfg.vocab_size, L = cfg.n_layer, ls = [], rows = [];
    for (var p = first; p <= last; p++) {
      var n = p + 1, row = L * (3 * C * C + 2 * n * C + C * C + 2 * C * F);
      rows.push(row);
      ls.push(line("row " + p + (L > 1 ? ", × " + L + " layers" : "") + ": 3C² + 2·" + n + "·C + C² + 2·C·d_mlp", "sum",
                   L > 1 ? [row] : [3 * C * C, 2 * n * C, C * C, 2 * C * F], row, { d: 0 }));
    }
    ls.push(line("the logits of the last position: V × C", "mul", [V, C], V * C, { d: 0 }));
    ls.push(line("total", "sum", rows.concat([V * C]), total, { d: 0 }));
    var code = ["C, F, V, L = " + C + ", " + F + ", " + V + ", " + L + "  # n_embd, d_mlp, vocab_size, n_layer",
                "rows = range(" + first + ", " + (last + 1) + ")  # the positions computed at this step",
                "print(sum(L * (3*C*C + 2*(p + 1)*C + C*C + 2*C*F) for p in rows) + V*C)"];
    return { kind: "ops", title: "Multiply-adds of this step: rows " + first + " to " + last,
             formula: "per row and layer: q, k, v 3C² + q·k and weights × v 2·n·C + c_proj C² + MLP 2·C·d_mlp; then V·C for the logits",
             lines: ls, snippet: code.join("\n") + "\n", noWeights: true };
  }

  var kinds = { kv: kv, ops: ops, lens: lens, loss: loss, sentenceLoss: sentenceLoss, mix: mix, proj: proj, logit: logit, prob: prob, score: score, weight: weight, layerNorm: layerNorm, residual: residual, mlp: mlp };
  Object.keys(kinds).forEach(function (k) { NTX.explain[k] = kinds[k]; });
  if (typeof module === "object" && module.exports) module.exports = NTX.explain;
})(typeof window !== "undefined" ? window : globalThis);
