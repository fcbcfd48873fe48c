// Demo: a mixture-of-experts router picks its top k. The container's data-router holds the build's
// stand-in router on the tiny model's real pass (scripts/site/costs.py's router): per token, one score
// per expert. Here the top k are chosen and softmaxed again, in the browser, for the token the reader
// picks; the bars show every score on one zero-centred axis, the chosen experts lit with their gates.
nexttoken.define("demos.moe-router", ["ui", "ui.permalink"], function (ui, permalink) {
  "use strict";

  // The k largest scores' experts, largest first, and their softmax (the gates).
  function route(scores, k) {
    var keep = scores.map(function (s, e) { return e; }).sort(function (a, b) { return scores[b] - scores[a] || a - b; }).slice(0, k);
    var top = scores[keep[0]];
    var ex = keep.map(function (e) { return Math.exp(scores[e] - top); });
    var sum = ex.reduce(function (a, b) { return a + b; }, 0);
    return { keep: keep, gates: ex.map(function (x) { return x / sum; }) };
  }

  ui.start("moe-router", function (root, live) {
    var d = JSON.parse(root.getAttribute("data-router"));
    var at = d.rows.length - 1;
    var span = 0;
    d.rows.forEach(function (r) { r.scores.forEach(function (s) { span = Math.max(span, Math.abs(s)); }); });
    var out = ui.el("div", { class: "nt-moe-out", "aria-live": "polite" });
    var pick = ui.radios("Token", d.rows.map(function (r, i) { return { value: i, label: r.token }; }), at, function (v) { at = Number(v); draw(); });

    function draw() {
      var r = d.rows[at], got = route(r.scores, d.top_k);
      ui.clear(out);
      out.appendChild(ui.el("p", { class: "nt-small", text: "Router scores at " + r.token + ": one per expert (" + d.size +
        " of the MLP's " + d.units + " units each). The top " + d.top_k + " are kept." }));
      out.appendChild(ui.bars(r.scores.map(function (s, e) {
        var k = got.keep.indexOf(e);
        return { label: "expert " + (e + 1), value: s, rowCls: k >= 0 ? "nt-moe-kept" : "nt-moe-idle",
          text: ui.fix(s, 2) + (k >= 0 ? ", gate " + ui.pct(got.gates[k]) : ""),
          data: { expert: e, score: s, kept: k >= 0 ? 1 : 0, gate: k >= 0 ? got.gates[k] : 0 } };
      }), { label: "router scores at " + r.token, axis: { lo: -span, hi: span }, axisLabel: "score" }));
      out.appendChild(ui.el("p", { class: "nt-moe-sum" }, ["Output at ", ui.el("code", { text: r.token }), " = " +
        got.keep.map(function (e, i) { return ui.pct(got.gates[i]) + " × expert " + (e + 1); }).join(" + ") +
        ": " + d.top_k + " of " + d.n_experts + " experts run, " + (d.top_k * d.size) + " of " + d.units + " units."]));
    }

    live.appendChild(ui.el("div", { class: "nt-controls" }, [pick]));
    live.appendChild(out);
    draw();

    // The token in the page's link; every token's scores, choices and gates as a download.
    permalink.join(root, live, {
      fields: { token: permalink.int(0, d.rows.length - 1) },
      get: function () { return { token: at }; },
      set: function (s) {
        if (s.token === undefined) return;
        at = s.token;
        pick.querySelector('input[value="' + at + '"]').checked = true;
        draw();
      },
      tables: function () {
        var rows = [];
        d.rows.forEach(function (r, i) {
          var got = route(r.scores, d.top_k);
          r.scores.forEach(function (s, e) {
            var k = got.keep.indexOf(e);
            rows.push([i, r.token, e + 1, s, k >= 0 ? 1 : 0, k >= 0 ? got.gates[k] : 0]);
          });
        });
        return [{ name: "router", columns: ["position", "token", "expert", "score", "kept", "gate"], rows: rows }];
      } });
  });
});
