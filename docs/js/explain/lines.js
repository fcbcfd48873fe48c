// Every number a tiny-model demo shows opens to its arithmetic: the values it was made from, one
// line per operation, each line checkable by hand (the parts shown give the number shown), and a
// "reproduce it" Python snippet over the site's own weights file. This file is the machinery (lines,
// the weights a snippet loads, the panel, the buttons) and the one explanation that needs no forward
// pass (the cosine of two embeddings); pass.js adds the forward pass's arithmetic (logits,
// probabilities, attention, LayerNorm, MLP, the cache, the lens, training losses) on the pages that
// show it. ui.js's numberButton shows them; the browser tests and the pytest run of the snippets read
// the same lines. Plain functions, also run by node.
nexttoken.define("explain.lines", ["store"], function (store) {
  "use strict";
  var D = 4;  // decimals of the arithmetic; the buttons show fewer, the last line says which
  var WEIGHTS_URL = "js/data/nexttoken-tiny-weights.json";

  // Numbers with a real minus sign; the tests read it back.
  function num(x, d) {
    var t = Number(x).toFixed(d === undefined ? D : d);
    if (Number(t) === 0) t = t.replace("-", "");
    return t.replace("-", "−");
  }
  // A line of arithmetic: op over the terms gives eq. Ops: sum, mul, div, sub, exp, ln, sqrt, gelu,
  // mean, var (biased, as LayerNorm), each checkable from the terms as displayed. opts.names labels
  // each term (a token, a position, an index). A sum of more than FOLD_OVER numbers keeps its KEEP
  // largest terms that show as more than zero, largest first, and folds the rest into one term, their
  // sum ({fold: {count}}, its name "N others"), so a softmax's 58 terms read as a few and a remainder.
  var FOLD_OVER = 12, KEEP = 8;
  function line(label, op, terms, eq, opts) {
    opts = opts || {};
    var names = opts.names ? opts.names.slice() : null, fold = null;
    opts.all = terms;
    if (op === "sum" && terms.length > FOLD_OVER && terms.every(function (t) { return typeof t === "number"; })) {
      var order = terms.map(function (_, k) { return k; }).sort(function (a, b) { return Math.abs(terms[b]) - Math.abs(terms[a]) || a - b; });
      var keep = order.filter(function (k) { return Number(num(terms[k], opts.d).replace("−", "-")) !== 0; }).slice(0, KEEP);
      var rest = order.filter(function (k) { return keep.indexOf(k) < 0; });
      if (rest.length > 1) {
        var restSum = 0;
        rest.forEach(function (k) { restSum += terms[k]; });
        fold = { count: rest.length };
        names = names ? keep.map(function (k) { return names[k]; }) : keep.map(function (k) { return "[" + k + "]"; });
        names.push(rest.length + " others");
        terms = keep.map(function (k) { return terms[k]; }).concat([restSum]);
      }
    }
    // the exact numbers a line reads (the picture lights the cells that hold them); a fold reads them all
    var values = (fold ? opts.all : terms).filter(function (t) { return typeof t === "number"; });
    var out = { label: label, op: op, values: values, terms: terms.map(function (t) { return typeof t === "string" ? t : num(t, opts.d); }),
                eq: typeof eq === "string" ? eq : num(eq, opts.eqD === undefined ? opts.d : opts.eqD) };
    if (names) out.names = names;
    if (fold) out.fold = fold;
    return out;
  }
  // names for the terms of a row of n cells: [0], [1], ...
  function cells(n) { var out = []; for (var k = 0; k < n; k++) out.push("[" + k + "]"); return out; }
  function sum(a) { var s = 0; for (var i = 0; i < a.length; i++) s += a[i]; return s; }

  // Where a snippet's weights come from: {href (the link), name (the file the snippet opens), pick
  // (Python indexing into it), text (the link's words)}. By default the weights the demos run: the
  // built model's file, or, when the reader's own model is active (store "model", runtime/active.js),
  // that model as a file made in the page, so "reproduce it" prints the number shown either way.
  var yoursCached = null;
  function builtSource() {
    return { href: WEIGHTS_URL, name: "nexttoken-tiny-weights.json", pick: "[\"weights\"]", text: "the tiny model's weights (JSON)" };
  }
  function yoursSource(weights) {
    var url = typeof URL === "function" && URL.createObjectURL && typeof Blob === "function"
      ? URL.createObjectURL(new Blob([JSON.stringify({ weights: weights })], { type: "application/json" })) : "#";
    return { href: url, name: "nexttoken-your-weights.json", pick: "[\"weights\"]", text: "your model's weights (JSON)" };
  }
  function weightsSource() {
    var d = store.get("model");
    if (!(d && d.yours)) return builtSource();
    if (!yoursCached) yoursCached = yoursSource(d.weights);
    return yoursCached;
  }
  // A snippet's first lines: numpy, and the weights as W (src: weightsSource() unless given).
  function loadWeights(src) {
    src = src || weightsSource();
    return ["import json, numpy as np",
            "# " + src.name + ": download it from the demo, next to this script",
            "W = json.load(open(\"" + src.name + "\"))" + src.pick];
  }
  function printLine(expr, d) { return "print(\"%." + (d === undefined ? D : d) + "f\" % (" + expr + "))"; }

  // The products of a dot product, one line per cell: aName[i] × bName[i] (a name is a vector: `final`,
  // or a table's row, `wte[28]`, so its cell reads wte[28][3] as everywhere else).
  function dotLines(a, b, aName, bName) {
    var out = [], prods = [];
    for (var i = 0; i < a.length; i++) {
      prods.push(a[i] * b[i]);
      out.push(line(aName + "[" + i + "] × " + bName + "[" + i + "]", "mul", [a[i], b[i]], a[i] * b[i]));
    }
    return { lines: out, prods: prods };
  }

  // cosine similarity of two rows of the token embedding table: a · b ÷ (|a| × |b|)
  function cosine(w, i, j, nameA, nameB) {
    var a = w.wte[i], b = w.wte[j];
    var d = dotLines(a, b, "a", "b"), dot = sum(d.prods);
    var sqA = a.map(function (x) { return x * x; }), sqB = b.map(function (x) { return x * x; });
    var nA = Math.sqrt(sum(sqA)), nB = Math.sqrt(sum(sqB));
    var ls = d.lines.concat([
      line("a · b", "sum", d.prods, dot, { names: cells(a.length) }),
      line("|a|² = Σ a[c]² (" + nameA + ")", "sum", sqA, sum(sqA), { names: cells(a.length) }),
      line("|a|", "sqrt", [num(sum(sqA))], nA),
      line("|b|² = Σ b[c]² (" + nameB + ")", "sum", sqB, sum(sqB), { names: cells(b.length) }),
      line("|b|", "sqrt", [num(sum(sqB))], nB),
      line("|a| × |b|", "mul", [num(nA), num(nB)], nA * nB),
      line("cosine", "div", [num(dot), num(nA * nB)], dot / (nA * nB))]);
    // the embeddings demo compares the rows of the model the demos run
    var code = loadWeights().concat([
      "wte = np.array(W[\"wte\"], dtype=np.float64)",
      "a, b = wte[" + i + "], wte[" + j + "]  # " + nameA + ", " + nameB,
      printLine("a @ b / (np.linalg.norm(a) * np.linalg.norm(b))")]);
    return { kind: "cosine", title: "Cosine similarity of " + nameA + " and " + nameB,
             formula: "cos = a · b ÷ (|a| × |b|), a = wte[" + i + "] (" + nameA + "), b = wte[" + j + "] (" + nameB + ")", lines: ls, snippet: code.join("\n") + "\n", download: weightsSource() };
  }

  return { cosine: cosine, WEIGHTS_URL: WEIGHTS_URL, D: D, builtSource: builtSource, yoursSource: yoursSource,
           num: num, line: line, cells: cells, sum: sum, dotLines: dotLines, printLine: printLine, weightsSource: weightsSource, loadWeights: loadWeights };
});
