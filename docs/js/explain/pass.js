// The forward pass's arithmetic: a logit, a probability, an attention score and weight, a head's mix,
// the output projection, LayerNorm, a residual sum, an MLP cell, a K or V cache cell, the logit lens,
// and a training snapshot's losses, each as lines checkable from the digits shown plus a numpy snippet
// that replays the pass (with its knock-outs) over the weights it ran. A pass object is built once per
// forward pass and asked for its numbers:
//
//   var p = pass.of({trace: m.forward(ids, opts), ids: ids, config: m.config, weights: data.weights, show: tk.show,
//                    source: (optional) where its weights download from, snapshot: (optional) {index, step}});
//   p.prob(id, T, kept, t)  p.logit(t, id)  p.weight(layer, head, i, j)  p.score(layer, head, i, j)  p.mix(layer, head, i, d)
//   p.proj(layer, t, c)  p.mlp(layer, t, c)  p.kv(layer, "k" | "v", pos, c)  p.residual(layer, "x" | "resid_mid" | "resid_post", t, c)
//   p.layerNorm("ln_1" | "ln_2" | "ln_f", layer, t, c)  p.lens(layer, "x" | "resid_mid" | "resid_post", t, id)  p.loss(t, target)
//   p.sentenceLoss(losses, targets)
// Probabilities and attention weights are the runtime's (trace.probs, trace.attn_weights, or the
// kernels' softmax for a temperature and a cut); the knock-outs are the trace's own.
// pass.ops(config, first, last, total): a generation step's multiply-adds, from the sizes alone.
nexttoken.define("explain.pass", ["explain.lines", "runtime.kernels", "data.snippets"], function (lines, kernels, snippets) {
  "use strict";
  var num = lines.num, line = lines.line, cells = lines.cells, sum = lines.sum, dotLines = lines.dotLines, printLine = lines.printLine;
  var SNAPSHOTS_URL = "js/data/nexttoken-tiny-snapshots.json";
  var GELU_TEXT = "GELU(a) = 0.5·a·(1 + tanh(√(2/π)·(a + 0.044715·a³)))";

  // ---- the Python side: a short forward pass in numpy, the same names as the JS trace ----------
  // Its body is docs/snippets/tiny_pass.py's (data.snippets); the inputs are this pass's.
  function prelude(cfg, ids, ko, src) {
    return lines.loadWeights(src).concat([
      "ids = " + JSON.stringify(Array.prototype.slice.call(ids)),
      "ln_eps, C, H = " + cfg.ln_eps + ", " + cfg.n_embd + ", " + cfg.n_head,
      "off_heads, off_mlp = " + JSON.stringify(ko.heads) + ", " + (ko.mlp ? "True" : "False") + "  # knock-outs (heads from 0)"
    ], snippets.tiny_pass.body);
  }

  function snapshotSource(snap) {
    return { href: SNAPSHOTS_URL, name: "nexttoken-tiny-snapshots.json", text: "the tiny model's training snapshots (JSON)",
             pick: "[\"snapshots\"][" + snap.index + "][\"weights\"]  # step " + snap.step };
  }

  // The softmax lines of one value among `values` (all of them, or those `kept`) at temperature T,
  // from the kernels' softmax: exp((v − max) / T) ÷ Σ, the Σ's terms named by name(j). Returns {lines, p}.
  function softmaxLines(values, at, T, kept, what, name) {
    var picked = kept.map(function (j) { return values[j]; }), parts = {};
    var probs = kernels.softmax(picked, 0, picked.length, null, 0, T, parts);
    var k = kept.indexOf(at), z = (values[at] - parts.max) / T;
    var es = probs.map(function (q) { return q * parts.sum; });
    return { p: probs[k], lines: [
      line(what[0], what[1] === "sub" ? "sub" : "div", what[1] === "sub" ? [values[at], parts.max] : [values[at] - parts.max, T], z),
      line("exp of it", "exp", [num(z)], es[k]),
      line(what[2], "sum", es, parts.sum, { names: kept.map(name) }),
      line(what[3], "div", [num(es[k]), num(parts.sum)], probs[k], { eqD: 6 })] };
  }

  function all(n) { var out = []; for (var j = 0; j < n; j++) out.push(j); return out; }

  // A pass: {trace, ids, config, weights, show(id) -> token text, source?, snapshot?}.
  function of(spec) {
    var cfg = spec.config, tr = spec.trace, ids = spec.ids, w = spec.weights, show = spec.show, last = ids.length - 1;
    var ko = tr.knockout ? { heads: tr.knockout.heads.map(function (off, h) { return off ? h : -1; }).filter(function (h) { return h >= 0; }), mlp: !!tr.knockout.mlp }
      : { heads: [], mlp: false };
    var src = spec.snapshot ? snapshotSource(spec.snapshot) : spec.source || lines.weightsSource();
    function explained(ex, code) {
      ex.snippet = prelude(cfg, ids, ko, src).concat(code).join("\n") + "\n";
      ex.download = src;
      return ex;
    }
    // the residual rows at a stage of block `layer` (layer null: the input, wte + wpe)
    function rows(layer, key) { return layer === null || key === "x" ? tr.x : tr.h[layer][key]; }
    // a position named by its token: "2 ·sat"
    function at(j) { return j + (ids[j] === undefined ? "" : " " + show(ids[j])); }
    function pyRows(layer, key) { return layer === null || key === "x" ? "tr[\"x\"]" : "tr[\"h\"][" + layer + "][\"" + key + "\"]"; }

    // logit of token `id` at position t: ln_f(x) · wte[id] (tied embeddings)
    function logit(t, id) {
      var d = dotLines(tr.ln_f[t], w.wte[id], "final", "wte[" + id + "]");
      var ls = d.lines.concat([line("sum of the " + cfg.n_embd + " products", "sum", d.prods, tr.logits[t][id], { names: cells(cfg.n_embd) })]);
      return explained({ kind: "logit", title: "Logit of " + show(id) + " = final vector · its token embedding (wte row " + id + ")",
                         formula: "logit = Σ final[c] × wte[" + id + "][c]", lines: ls, eqD: 2 }, [printLine("tr[\"logits\"][" + t + ", " + id + "]")]);
    }

    // probability of token `id` at position t (the last unless given) at temperature T over the
    // tokens `kept` (all unless given)
    function prob(id, T, kept, t) {
      t = t === undefined ? last : t;
      var ex = probOf(Array.prototype.slice.call(tr.logits[t]), id, T, kept, t);
      if ((T || 1) === 1 && !kept) ex.lines[3].eq = num(tr.probs[t][id], 6);  // the runtime's probability, which the demo shows
      return ex;
    }
    function probOf(logits, id, T, kept, t) {
      T = T || 1;
      kept = kept || all(logits.length);
      var sm = softmaxLines(logits, id, T, kept, ["(logit − top logit) ÷ T", "div",
        "Σ exp over the " + kept.length + " tokens" + (kept.length < logits.length ? " kept" : ""), "probability"], show);
      var code = ["logits = tr[\"logits\"][" + t + "] / " + T, "keep = " + JSON.stringify(kept.slice().sort(function (a, b) { return a - b; })),
                  "e = np.exp(logits[keep] - logits[keep].max())", printLine("e[keep.index(" + id + ")] / e.sum()", 6)];
      return explained({ kind: "prob", title: "Probability of " + show(id) + (T !== 1 ? " at T = " + T : ""),
                         formula: "p = exp((logit − max) / T) ÷ Σ exp((logit′ − max) / T)", lines: sm.lines, pct: true }, code);
    }

    // attention score of position i on j in head h of layer l: q_i · k_j / √d_head
    function score(l, h, i, j) {
      var B = tr.h[l], d = dotLines(B.q[h][i], B.k[h][j], "q", "k"), dot = sum(d.prods);
      var ls = d.lines.concat([line("q · k", "sum", d.prods, dot, { names: cells(cfg.d_head) }),
        line("÷ √d_head (√" + cfg.d_head + ")", "div", [num(dot), num(Math.sqrt(cfg.d_head))], B.scores[h][i][j])]);
      return explained({ kind: "score", title: "Score: position " + i + " looks at " + j + " (head " + (h + 1) + ")",
                         formula: "score = q · k ÷ √d_head", lines: ls }, [printLine("tr[\"h\"][" + l + "][\"scores\"][" + h + "][" + i + ", " + j + "]")]);
    }

    // attention weight: softmax of row i's scores over the positions it may see (0..i)
    function weight(l, h, i, j) {
      var sm = softmaxLines(tr.h[l].scores[h][i], j, 1, all(i + 1), ["score − top score of the row", "sub",
        "Σ exp over positions 0.." + i + " (later ones are masked)", "weight"], at);
      sm.lines[3].eq = num(tr.h[l].attn_weights[h][i][j], 6);  // the runtime's weight, which the demo shows
      return explained({ kind: "weight", title: "Attention weight: position " + i + " on " + j + " (head " + (h + 1) + ")",
                         formula: "weight = exp(score − max) ÷ Σ exp(score′ − max)", lines: sm.lines, pct: true },
                       [printLine("tr[\"h\"][" + l + "][\"attn_weights\"][" + h + "][" + i + ", " + j + "]", 6)]);
    }

    // LayerNorm output cell c: (x[c] − mean) / √(var + eps) · γ[c] + β[c]; name ln_1, ln_2 (of block l) or ln_f
    function layerNorm(name, l, t, c) {
      var nb = tr.h.length, x = name === "ln_1" ? (l ? tr.h[l - 1].resid_post[t] : tr.x[t]) : name === "ln_2" ? tr.h[l].resid_mid[t] : tr.h[nb - 1].resid_post[t];
      var P = name === "ln_f" ? w.ln_f : w.h[l][name], y = name === "ln_f" ? tr.ln_f[t][c] : tr.h[l][name][t][c];
      var path = name === "ln_f" ? "tr[\"ln_f\"][" + t + "]" : "tr[\"h\"][" + l + "][\"" + name + "\"][" + t + "]";
      var mean = sum(x) / x.length, v = 0;
      x.forEach(function (a) { v += (a - mean) * (a - mean); });
      v /= x.length;
      var sd = Math.sqrt(v + cfg.ln_eps), z = (x[c] - mean) / sd;
      var ls = [line("mean of the " + x.length + " inputs", "mean", x, mean, { names: cells(x.length) }),
        line("variance (mean square from the mean)", "var", x, v, { names: cells(x.length) }),
        line("+ eps", "sum", [num(v), String(cfg.ln_eps)], v + cfg.ln_eps, { d: 6 }),
        line("√ of it", "sqrt", [num(v + cfg.ln_eps, 6)], sd),
        line("x[" + c + "] − mean", "sub", [x[c], mean], x[c] - mean),
        line("÷ √(var + eps)", "div", [num(x[c] - mean), num(sd)], z),
        line("× γ[" + c + "]", "mul", [num(z), P.weight[c]], z * P.weight[c]),
        line("+ β[" + c + "]", "sum", [num(z * P.weight[c]), P.bias[c]], y)];
      var title = name === "ln_f" ? "Final LayerNorm (ln_f)" : "LayerNorm " + name + (nb > 1 ? " of block " + (l + 1) : "");
      return explained({ kind: "layernorm", title: title + ", cell " + c, formula: "y = (x − mean) ÷ √(var + eps) × γ + β", lines: ls },
                       [printLine(path + "[" + c + "]")]);
    }

    // residual cell: the sum of its parts; key x (wte + wpe), resid_mid (input + attention) or
    // resid_post (after attention + MLP) of block l
    function residual(l, key, t, c) {
      var input = l ? tr.h[l - 1].resid_post[t] : tr.x[t];
      var parts = key === "x" ? [["wte[" + ids[t] + "]", tr.wte[t]], ["wpe[" + t + "]", tr.wpe[t]]]
        : key === "resid_mid" ? [["input", input], ["attention", tr.h[l].attn_out[t]]]
        : [["after attention", tr.h[l].resid_mid[t]], ["MLP", tr.h[l].mlp_out[t]]];
      var name = { x: "Input at position " + t + " (" + show(ids[t]) + ")", resid_mid: "After attention, position " + t, resid_post: "After the MLP, position " + t }[key];
      return explained({ kind: "residual", title: name + ", cell " + c, formula: parts.map(function (q) { return q[0]; }).join(" + ") +
                           (key === "x" ? "   (the token's row + the position's row)" : ""),
                         lines: [line(parts.map(function (q) { return q[0] + "[" + c + "]"; }).join(" + "), "sum",
                                      parts.map(function (q) { return q[1][c]; }), rows(l, key)[t][c],
                                      { names: parts.map(function (q) { return q[0]; }) })] },
                       [printLine(pyRows(l, key) + "[" + t + "][" + c + "]")]);
    }

    // MLP output cell c: Σ_f c_proj[c][f] × GELU(pre[f]) + bias, with the largest term's GELU shown
    function mlp(l, t, c) {
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
      ls.push(line("Σ of the " + F + " products c_proj[" + c + "][f] × hidden[f], + bias", "sum", terms, B.mlp_out[t][c],
                   { names: cells(F).concat(["bias"]) }));
      return explained({ kind: "mlp", title: "MLP output, cell " + c, formula: "out[c] = Σ_f c_proj[c][f] × GELU(pre[f]) + b[c];  " + GELU_TEXT,
                         lines: ls }, [printLine("tr[\"h\"][" + l + "][\"mlp_out\"][" + t + ", " + c + "]")]);
    }

    // a head's output cell d at position i: the weighted mix of the value vectors it may see
    function mix(l, h, i, d) {
      var B = tr.h[l], ls = [], prods = [];
      for (var j = 0; j <= i; j++) {
        prods.push(B.attn_weights[h][i][j] * B.v[h][j][d]);
        ls.push(line("weight on " + at(j) + " × v[" + j + "][" + d + "]", "mul", [B.attn_weights[h][i][j], B.v[h][j][d]], prods[j]));
      }
      if (tr.knockout && tr.knockout.heads[h]) {
        ls.push(line("sum over positions 0.." + i, "sum", prods, sum(prods), { names: prods.map(function (_, j) { return at(j); }) }));
        ls.push(line("head " + (h + 1) + " is switched off (knock-out): its output × 0", "mul", [sum(prods), 0], B.head_out[h][i][d]));
      } else {
        ls.push(line("sum over positions 0.." + i, "sum", prods, B.head_out[h][i][d], { names: prods.map(function (_, j) { return at(j); }) }));
      }
      return explained({ kind: "mix", title: "Head " + (h + 1) + " output, position " + i + ", cell " + d, formula: "out[d] = Σ_j weight[j] × v[j][d]", lines: ls },
                       [printLine("tr[\"h\"][" + l + "][\"head_out\"][" + h + "][" + i + ", " + d + "]")]);
    }

    // attention output cell c: the output projection c_proj over the heads' outputs side by side
    function proj(l, t, c) {
      var B = tr.h[l], P = w.h[l].attn.c_proj, joined = [], ls = [], terms = [];
      B.head_out.forEach(function (ho) { joined = joined.concat(ho[t]); });
      joined.forEach(function (a, k) {
        terms.push(P.weight[c][k] * a);
        ls.push(line("c_proj[" + c + "][" + k + "] × joined[" + k + "]", "mul", [P.weight[c][k], a], terms[k]));
      });
      terms.push(P.bias[c]);
      ls.push(line("sum, + bias", "sum", terms, B.attn_out[t][c], { names: cells(joined.length).concat(["bias"]) }));
      return explained({ kind: "proj", title: "Attention output (c_proj), position " + t + ", cell " + c,
                         formula: "attn_out[c] = Σ_k c_proj[c][k] × joined[k] + b[c]   (joined = the heads' outputs side by side)", lines: ls },
                       [printLine("tr[\"h\"][" + l + "][\"attn_out\"][" + t + ", " + c + "]")]);
    }

    // the logit lens: token `id`'s probability if the pass stopped at the stage (layer, key) at
    // position t: ln_f of that residual row · wte[id] for every token, then the softmax
    function lens(l, key, t, id) {
      var x = Array.prototype.slice.call(rows(l, key)[t]), C = x.length, h = new Array(C), V = w.wte.length, logits = new Array(V);
      var flat = function (m) { return [].concat.apply([], m); };
      kernels.layerNorm(x, 0, C, w.ln_f.weight, 0, w.ln_f.bias, 0, cfg.ln_eps, h, 0);
      kernels.linear(flat(w.wte), 0, new Array(V).fill(0), 0, V, C, h, 0, logits, 0);  // the tied unembedding
      var d = dotLines(h, w.wte[id], "ln_f(x)", "wte[" + id + "]");
      var p = probOf(logits, id, 1, null, t);
      var stageName = { x: "after the embeddings", resid_mid: "after attention", resid_post: "after the MLP" }[key];
      var ls = d.lines.concat([line("logit of " + show(id) + " = sum of the " + cfg.n_embd + " products", "sum", d.prods, logits[id], { names: cells(cfg.n_embd) })], p.lines);
      var code = ["z = ln(" + pyRows(l, key) + "[" + t + "], W[\"ln_f\"]) @ A(W[\"wte\"]).T  # the lens: ln_f and the unembedding",
                  "e = np.exp(z - z.max())", printLine("e[" + id + "] / e.sum()", 6)];
      return explained({ kind: "lens", title: "Logit lens: " + show(id) + " at position " + t + " " + stageName,
                         formula: "p = softmax(ln_f(x) · wteᵀ), x = the residual stream " + stageName, lines: ls, pct: true }, code);
    }

    // the training view: a snapshot's loss at position t, −ln p(target) = ln Σ exp(z − max) − (z_target
    // − max), the stable form (p itself can round to zero)
    function loss(t, target) {
      var logits = Array.prototype.slice.call(tr.logits[t]), parts = {};
      var p = probOf(logits, target, 1, null, t);
      kernels.softmax(logits, 0, logits.length, null, 0, 1, parts);
      var a = logits[target] - parts.max, lnS = Math.log(parts.sum);
      var code = ["z = tr[\"logits\"][" + t + "]", printLine("np.log(np.exp(z - z.max()).sum()) - (z[" + target + "] - z.max())")];
      return explained({ kind: "loss", title: "Loss at position " + t + ": the next token is " + show(target) + " (snapshot at step " + spec.snapshot.step + ")",
                         formula: "loss = −ln p = ln Σ exp(logit′ − max) − (logit − max)",
                         lines: p.lines.concat([line("ln of the Σ", "ln", [num(parts.sum)], lnS),
                                                line("loss = ln Σ − (logit − top logit)", "sub", [num(lnS), num(a)], -a + lnS)]) }, code);
    }

    // the training view: a sentence's mean loss, the mean over its positions (each opens on its own)
    function sentenceLoss(losses, targets) {
      var code = ["targets = " + JSON.stringify(Array.prototype.slice.call(targets)) + "  # the next token at each position",
                  "z = tr[\"logits\"]; m = z.max(-1, keepdims=True)",
                  "losses = np.log(np.exp(z - m).sum(-1)) - (z[np.arange(T), targets] - m[:, 0])",
                  printLine("losses.mean()")];
      return explained({ kind: "mean", title: "Mean loss on the sentence (snapshot at step " + spec.snapshot.step + ")", formula: "mean of −ln p over the positions",
                         lines: [line("mean of the " + losses.length + " position losses", "mean", losses, sum(losses) / losses.length,
                                      { names: Array.prototype.map.call(losses, function (_, j) { return at(j); }) })] }, code);
    }

    // a cell of the K or V cache: row `pos`'s ln_1 output through c_attn's key (or value) rows, cell c
    // of the heads side by side (head c / d_head, dimension c % d_head)
    function kv(l, which, pos, c) {
      var C = cfg.n_embd, hs = cfg.d_head, h = Math.floor(c / hs), d = c % hs, r = (which === "k" ? C : 2 * C) + c;
      var P = w.h[l].attn.c_attn, x = tr.h[l].ln_1[pos], ls = [], terms = [];
      for (var j = 0; j < C; j++) {
        terms.push(P.weight[r][j] * x[j]);
        ls.push(line("c_attn[" + r + "][" + j + "] × ln_1[" + j + "]", "mul", [P.weight[r][j], x[j]], terms[j]));
      }
      terms.push(P.bias[r]);
      ls.push(line("sum, + bias", "sum", terms, tr.h[l][which][h][pos][d], { names: cells(C).concat(["bias"]) }));
      var name = which === "k" ? "Key" : "Value";
      return explained({ kind: "kv", title: name + " cache, row " + pos + ", cell " + c + " (head " + (h + 1) + ", dimension " + d + ")",
                         formula: which + "[c] = Σ_j c_attn[" + (which === "k" ? "C" : "2C") + " + c][j] × ln_1[j] + b   (c_attn's " + (which === "k" ? "key" : "value") + " rows)",
                         lines: ls }, [printLine("tr[\"h\"][" + l + "][\"" + which + "\"][" + h + "][" + pos + ", " + d + "]")]);
    }

    return { logit: logit, prob: prob, score: score, weight: weight, layerNorm: layerNorm, residual: residual, mlp: mlp, mix: mix,
             proj: proj, lens: lens, loss: loss, sentenceLoss: sentenceLoss, kv: kv, trace: tr, ids: ids };
  }

  // multiply-adds of one generation step: rows first..last of the window computed, each row p
  // attending over p + 1 rows, in every layer; then the logits of the last position
  function ops(cfg, first, last, total) {
    var C = cfg.n_embd, F = cfg.d_mlp, V = cfg.vocab_size, nLayer = cfg.n_layer, ls = [], rowOps = [];
    for (var p = first; p <= last; p++) {
      var n = p + 1, row = nLayer * (3 * C * C + 2 * n * C + C * C + 2 * C * F);
      rowOps.push(row);
      ls.push(line("row " + p + (nLayer > 1 ? ", × " + nLayer + " layers" : "") + ": 3C² + 2·" + n + "·C + C² + 2·C·d_mlp", "sum",
                   nLayer > 1 ? [row] : [3 * C * C, 2 * n * C, C * C, 2 * C * F], row, { d: 0, names: nLayer > 1 ? null : ["q, k, v", "attention", "c_proj", "MLP"] }));
    }
    ls.push(line("the logits of the last position: V × C", "mul", [V, C], V * C, { d: 0 }));
    ls.push(line("total", "sum", rowOps.concat([V * C]), total, { d: 0, names: rowOps.map(function (_, k) { return "row " + (first + k); }).concat(["logits"]) }));
    var code = ["C, F, V, L = " + C + ", " + F + ", " + V + ", " + nLayer + "  # n_embd, d_mlp, vocab_size, n_layer",
                "rows = range(" + first + ", " + (last + 1) + ")  # the positions computed at this step",
                "print(sum(L * (3*C*C + 2*(p + 1)*C + C*C + 2*C*F) for p in rows) + V*C)"];
    return { kind: "ops", title: "Multiply-adds of this step: rows " + first + " to " + last,
             formula: "per row and layer: q, k, v 3C² + q·k and weights × v 2·n·C + c_proj C² + MLP 2·C·d_mlp; then V·C for the logits",
             lines: ls, snippet: code.join("\n") + "\n", noWeights: true };
  }

  return { of: of, ops: ops };
});
