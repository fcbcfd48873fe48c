// Attention as lines (bertviz's head view): the tokens twice, the ones looking on the left and the
// ones looked at on the right, each token joined to itself and every earlier token by a line whose
// width and opacity are its weight. The chosen token's lines are drawn in full and the others' faintly;
// hovering a token on either side shows only its lines. The left-hand tokens are one radio group
// (arrow keys, Home, End), so the picture is keyboard operable; the demo's bars say the same in words.
nexttoken.define("attention-lines", ["ui"], function (ui) {
  "use strict";

  var WIDTH = 7;  // px of line at weight 1, so a line's width is WIDTH × its weight

  // opts = {tokens, weights (row i: the weights of position i over positions 0..i), selected, label, onSelect(i)}
  function create(opts) {
    var tokens = opts.tokens, W = opts.weights, n = tokens.length;
    var sel = Math.max(0, Math.min(n - 1, opts.selected === undefined ? n - 1 : opts.selected));
    var node = ui.el("div", { class: "nt-attn-lines", "data-n": n });
    node.style.setProperty("--n", n);
    var group = ui.el("div", { class: "nt-attn-q", role: "radiogroup",
      "aria-label": "Token that looks back, " + opts.label + " (its lines are drawn; arrow keys move)" });
    var svg = ui.svg("svg", { class: "nt-attn-svg", viewBox: "0 0 100 " + n, preserveAspectRatio: "none", "aria-hidden": "true", focusable: "false" });
    var keys = ui.el("div", { class: "nt-attn-k", "aria-hidden": "true" });
    var buttons = [], lines = [];
    tokens.forEach(function (tok, i) {
      var b = ui.el("button", { type: "button", class: "nt-attn-tok", role: "radio", "data-i": i,
        "aria-label": tok + ", position " + i }, [ui.el("code", { text: tok })]);
      b.addEventListener("click", function () { select(i); });
      b.addEventListener("mouseenter", function () { show(function (ln) { return ln.i === i; }); });
      b.addEventListener("mouseleave", function () { show(null); });
      b.addEventListener("keydown", function (e) {
        var k = e.key, to = k === "ArrowUp" || k === "ArrowLeft" ? i - 1 : k === "ArrowDown" || k === "ArrowRight" ? i + 1
          : k === "Home" ? 0 : k === "End" ? n - 1 : null;
        if (to === null) return;
        e.preventDefault();
        to = (to + n) % n;
        select(to);
        buttons[to].focus();
      });
      buttons.push(b);
      group.appendChild(b);
      var key = ui.el("code", { class: "nt-attn-key", "data-j": i, text: tok });
      key.addEventListener("mouseenter", function () { show(function (ln) { return ln.j === i; }); });
      key.addEventListener("mouseleave", function () { show(null); });
      keys.appendChild(key);
      for (var j = 0; j <= i; j++) {
        var w = W[i][j];
        var ln = ui.svg("line", { x1: 0, y1: i + 0.5, x2: 100, y2: j + 0.5, class: "nt-attn-line",
          "data-i": i, "data-j": j, "data-weight": w, "stroke-width": (WIDTH * w).toFixed(3),
          "stroke-opacity": Math.min(1, w).toFixed(3), "vector-effect": "non-scaling-stroke" });
        lines.push({ i: i, j: j, el: ln });
        svg.appendChild(ln);
      }
    });
    node.appendChild(ui.el("p", { class: "nt-attn-lines-head", "aria-hidden": "true" }, [
      ui.el("span", { text: "looks from" }), ui.el("span", { text: "line width: weight" }), ui.el("span", { text: "at" })]));
    node.appendChild(ui.el("div", { class: "nt-attn-lines-grid" }, [group, svg, keys]));

    // Full lines for the chosen token (or for what the pointer is on), faint ones for the rest.
    function show(only) {
      node.classList.toggle("nt-attn-hover", !!only);
      lines.forEach(function (ln) {
        var on = only ? only(ln) : ln.i === sel;
        ln.el.classList.toggle("nt-on", on);
      });
      keys.childNodes.forEach(function (k, j) { k.classList.toggle("nt-on", !only && j <= sel && W[sel][j] === max(sel)); });
    }
    function max(i) { var m = 0; for (var j = 0; j <= i; j++) m = Math.max(m, W[i][j]); return m; }

    function select(i, quiet) {
      sel = Math.max(0, Math.min(n - 1, i));
      buttons.forEach(function (b, k) {
        b.setAttribute("aria-checked", k === sel ? "true" : "false");
        b.tabIndex = k === sel ? 0 : -1;
      });
      show(null);
      if (!quiet && opts.onSelect) opts.onSelect(sel);
    }
    select(sel, true);
    return { node: node, select: select, selected: function () { return sel; }, WIDTH: WIDTH };
  }

  return { create: create, WIDTH: WIDTH };
});
