// Every number a tiny-model demo shows opens to its arithmetic: the values it was made from, one
// line per operation, each line checkable by hand (the parts shown give the number shown), and a
// "reproduce it" Python snippet over the site's own weights file. This file is the machinery (lines,
// the weights a snippet loads, the panel, the buttons) and the one explanation that needs no forward
// pass (the cosine of two embeddings); explain-pass.js adds the forward pass's arithmetic (logits,
// probabilities, attention, LayerNorm, MLP, the cache, the lens, training losses) on the pages that
// show it. The pictures, the browser tests and the pytest run of the snippets read the same lines.
// Classic script (works from file://); exposes window.NTX. Needs NTUI (ui.js) in a browser; the
// explanation builders (NTX.explain.*) and the snippets are plain functions, also run by node.
(function (root) {
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
  // mean, var (biased, as LayerNorm), each checkable from the terms as displayed.
  function line(label, op, terms, eq, opts) {
    opts = opts || {};
    return { label: label, op: op, terms: terms.map(function (t) { return typeof t === "string" ? t : num(t, opts.d); }),
             eq: typeof eq === "string" ? eq : num(eq, opts.eqD === undefined ? opts.d : opts.eqD) };
  }
  function sum(a) { var s = 0; for (var i = 0; i < a.length; i++) s += a[i]; return s; }

  // Where a snippet's weights come from: {href (the link), name (the file the snippet opens), pick
  // (Python indexing into it), text (the link's words)}. By default the weights the demos run: the
  // built model's file, or, when the reader's own model is active (active.js), that model as a file
  // made in the page, so "reproduce it" prints the number shown either way.
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
    var d = root.NTData && root.NTData.tiny;
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
      line("a · b", "sum", d.prods, dot),
      line("|a|² = Σ a[c]² (" + nameA + ")", "sum", sqA, sum(sqA)),
      line("|a|", "sqrt", [num(sum(sqA))], nA),
      line("|b|² = Σ b[c]² (" + nameB + ")", "sum", sqB, sum(sqB)),
      line("|b|", "sqrt", [num(sum(sqB))], nB),
      line("|a| × |b|", "mul", [num(nA), num(nB)], nA * nB),
      line("cosine", "div", [num(dot), num(nA * nB)], dot / (nA * nB))]);
    // the embeddings demo compares the rows of the model the demos run
    var code = loadWeights().concat([
      "wte = np.array(W[\"wte\"], dtype=np.float64)",
      "a, b = wte[" + i + "], wte[" + j + "]  # " + nameA + ", " + nameB,
      printLine("a @ b / (np.linalg.norm(a) * np.linalg.norm(b))")]);
    return { kind: "cosine", title: "Cosine similarity of " + nameA + " (wte row " + i + ") and " + nameB + " (wte row " + j + ")",
             formula: "cos = a · b ÷ (|a| × |b|)", lines: ls, snippet: code.join("\n") + "\n" };
  }

  var explain = { cosine: cosine };

  // ---- the browser side: numbers as buttons, one panel per demo section ----------------------------
  var OPS = { sum: " + ", mul: " × ", div: " ÷ ", sub: " − " };
  function render(U, ex, shown) {
    var dl = ex.download || weightsSource();
    var box = U.el("div", { class: "nt-x-body", "data-kind": ex.kind });
    box.appendChild(U.el("p", { class: "nt-x-title", text: ex.title }));
    box.appendChild(U.el("p", { class: "nt-x-formula", text: ex.formula }));
    var list = U.el("ol", { class: "nt-x-lines" });
    ex.lines.forEach(function (ln) {
      var li = U.el("li", { class: "nt-x-line", "data-op": ln.op }, [U.el("span", { class: "nt-x-label", text: ln.label + ": " })]);
      var terms = ln.terms.map(function (t) { return U.el("span", { class: "nt-x-t", text: t }); });
      if (OPS[ln.op]) terms.forEach(function (t, k) { if (k) li.appendChild(document.createTextNode(OPS[ln.op])); li.appendChild(t); });
      else {
        var name = { exp: "exp", sqrt: "√", gelu: "GELU", mean: "mean", var: "var", ln: "ln" }[ln.op];
        li.appendChild(document.createTextNode(name + "("));
        terms.forEach(function (t, k) { if (k) li.appendChild(document.createTextNode(", ")); li.appendChild(t); });
        li.appendChild(document.createTextNode(")"));
      }
      li.appendChild(document.createTextNode(" = "));
      li.appendChild(U.el("span", { class: "nt-x-eq", text: ln.eq }));
      list.appendChild(li);
    });
    box.appendChild(list);
    box.appendChild(U.el("p", { class: "nt-x-shown" }, ["Shown as ", U.el("strong", { class: "nt-x-shown-value", text: shown }),
      ex.pct ? " (the last line × 100, rounded)." : ex.noWeights ? " (the last line)." : " (the last line, rounded)."]));
    var pre = U.el("pre", { class: "nt-x-code" }, [U.el("code", { text: ex.snippet })]);
    box.appendChild(U.el("details", { class: "nt-x-repro" }, [
      U.el("summary", { text: ex.noWeights ? "Reproduce it in Python" : "Reproduce it in Python (numpy)" }),
      U.el("p", { class: "nt-small" }, ex.noWeights ? ["It counts from the model's sizes alone and prints the last line's number."]
        : ["Save ", U.el("a", { href: dl.href, download: dl.name, text: dl.text }), " next to the script; it prints the last line's number."]),
      pre]));
    return box;
  }

  // A number as a button that opens its arithmetic in the panel of its section (.nt-stage/.nt-lane,
  // or the nearest .nt-x-host). make() builds the explanation only when opened. opts.hideText: a
  // coloured cell whose number is in its label and title.
  var uid = 0;
  function button(text, make, opts) {
    var U = root.NTUI;
    opts = opts || {};
    var b = U.el("button", { type: "button", class: "nt-x-num" + (opts.cls ? " " + opts.cls : ""), "aria-expanded": "false",
      "aria-label": opts.label ? opts.label + ": " + text + ", show how it is computed" : null, "data-shown": text,
      text: opts.hideText ? null : text });
    b.addEventListener("click", function () {
      var host = b.closest(".nt-x-host, .nt-stage, .nt-lane") || b.parentNode;
      var panel = host.querySelector(":scope > .nt-x-panel");
      var open = b.getAttribute("aria-expanded") === "true";
      Array.prototype.forEach.call(host.querySelectorAll(".nt-x-num[aria-expanded=true]"), function (o) { o.setAttribute("aria-expanded", "false"); });
      if (open) { if (panel) panel.hidden = true; return; }
      if (!panel) {
        uid += 1;
        panel = U.el("div", { class: "nt-x-panel", id: "nt-x-" + uid, role: "region", "aria-label": "How the number is computed" });
        host.appendChild(panel);
      }
      U.clear(panel).appendChild(render(U, make(), b.getAttribute("data-shown")));  // relabel() may have changed it
      panel.hidden = false;
      b.setAttribute("aria-controls", panel.id);
      b.setAttribute("aria-expanded", "true");
    });
    b._label = opts.label;
    return b;
  }

  // The same button showing another number (a cursor moved): new text, and any open panel closes.
  function relabel(b, text) {
    if (!b.classList.contains("nt-cell")) b.textContent = text;
    b.setAttribute("data-shown", text);
    if (b._label) b.setAttribute("aria-label", b._label + ": " + text + ", show how it is computed");
    if (b.getAttribute("aria-expanded") === "true") b.click();
  }

  var NTX = { explain: explain, button: button, relabel: relabel, render: render, WEIGHTS_URL: WEIGHTS_URL, D: D,
              builtSource: builtSource, yoursSource: yoursSource,
              lib: { num: num, line: line, sum: sum, dotLines: dotLines, printLine: printLine, weightsSource: weightsSource, loadWeights: loadWeights } };
  root.NTX = NTX;
  if (typeof module === "object" && module.exports) module.exports = NTX;
})(typeof window !== "undefined" ? window : globalThis);
