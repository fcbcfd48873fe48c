// Demo: the KV cache's memory against the length of the text. The container's data-kv (the build's
// numbers, scripts/site/costs.py) gives each model's bytes per token and window; a slider runs from one
// token to the chosen model's window and the chart, zero-based on both axes, marks where it stands.
nexttoken.define("demos.kv-cache", ["ui", "ui.permalink"], function (ui, permalink) {
  "use strict";

  var MB = 1e6;  // decimal megabytes, as every size on the site
  var W = 560, H = 240, L = 66, R = 14, T = 12, B = 40;

  function fmt(x) { return x >= 100 ? ui.count(x) : ui.fix(x, x >= 10 ? 1 : 2); }

  ui.start("kv-cache", function (root, live) {
    var data = JSON.parse(root.getAttribute("data-kv"));
    var models = data.models, at = models.length - 1;
    var chart = ui.svg("svg", { viewBox: "0 0 " + W + " " + H, class: "nt-kv-chart", role: "img" });
    var readout = ui.el("p", { class: "nt-kv-readout", "aria-live": "polite" });
    var slide = ui.slider("Tokens in the cache", 1, models[at].n_ctx, 1, models[at].n_ctx, draw, function (n) { return ui.count(n) + " tokens"; });
    var pick = ui.radios("Model", models.map(function (m, i) { return { value: i, label: m.name }; }), at, function (v) {
      at = Number(v);
      var m = models[at];
      slide.input.max = m.n_ctx;
      slide.set(Math.min(Number(slide.input.value), m.n_ctx));
      draw(Number(slide.input.value));
    });

    function text(x, y, s, cls, anchor) {
      var t = ui.svg("text", { x: x, y: y, class: cls, "text-anchor": anchor || "start" });
      t.textContent = s;
      return t;
    }

    function draw(n) {
      var m = models[at];
      var full = m.bytes_per_token * m.n_ctx / MB;
      var top = Math.max(full, m.ref_mb || 0);
      var X = function (k) { return L + k / m.n_ctx * (W - L - R); };
      var Y = function (mb) { return T + (1 - mb / top) * (H - T - B); };
      ui.clear(chart);
      ui.niceTicks(0, top).forEach(function (v) {
        chart.appendChild(ui.svg("line", { x1: L, x2: W - R, y1: Y(v), y2: Y(v), class: "nt-ar-grid" }));
        chart.appendChild(text(L - 6, Y(v) + 4, ui.count(v), "nt-ar-tick", "end"));
      });
      ui.niceTicks(0, m.n_ctx).forEach(function (v) {
        chart.appendChild(text(X(v), H - B + 16, ui.count(v), "nt-ar-tick", "middle"));
      });
      if (m.ref_mb) {
        chart.appendChild(ui.svg("line", { x1: L, x2: W - R, y1: Y(m.ref_mb), y2: Y(m.ref_mb), class: "nt-kv-ref" }));
        chart.appendChild(text(L + 6, Y(m.ref_mb) - 5, m.ref_label, "nt-ar-lab"));
      }
      chart.appendChild(ui.svg("line", { x1: X(0), y1: Y(0), x2: X(m.n_ctx), y2: Y(full / 2), class: "nt-kv-line16" }));
      chart.appendChild(ui.svg("line", { x1: X(0), y1: Y(0), x2: X(m.n_ctx), y2: Y(full), class: "nt-kv-line" }));
      var mb = m.bytes_per_token * n / MB;
      chart.appendChild(ui.svg("line", { x1: X(n), x2: X(n), y1: Y(0), y2: Y(mb), class: "nt-kv-stem" }));
      chart.appendChild(ui.svg("circle", { cx: X(n), cy: Y(mb), r: 5, class: "nt-ar-pt" }));
      chart.appendChild(text(W - R, Y(full) + 16, "float32", "nt-ar-lab", "end"));
      chart.appendChild(text(W - R, Y(full / 2) + 16, "float16", "nt-ar-lab", "end"));
      chart.appendChild(text((L + W - R) / 2, H - 6, "tokens in the cache (its window is " + ui.count(m.n_ctx) + ")", "nt-ar-axis", "middle"));
      var yl = text(0, 0, "MB", "nt-ar-axis", "middle");
      yl.setAttribute("transform", "translate(14 " + ((T + H - B) / 2) + ") rotate(-90)");
      chart.appendChild(yl);
      var said = m.name + ": " + m.factors.join(" × ") + " = " + ui.count(m.bytes_per_token) + " bytes a token; " +
        ui.count(n) + " tokens take " + fmt(mb) +
        " MB in float32, " + fmt(mb / 2) + " MB in float16.";
      readout.textContent = said;
      readout.setAttribute("data-mb", String(mb));
      chart.setAttribute("aria-label", "KV cache memory against tokens, zero-based. " + said);
    }

    live.appendChild(ui.el("div", { class: "nt-controls" }, [pick, slide.wrap]));
    live.appendChild(ui.el("div", { class: "nt-kv-wrap" }, [chart]));
    live.appendChild(readout);
    draw(Number(slide.input.value));

    // The model and the length in the page's link; every model's memory at that length as a download.
    var longest = Math.max.apply(null, models.map(function (m) { return m.n_ctx; }));
    permalink.join(root, live, {
      fields: { model: permalink.int(0, models.length - 1), tokens: permalink.int(1, longest) },
      get: function () { return { model: at, tokens: Number(slide.input.value) }; },
      set: function (s) {
        var said = "";
        if (s.model !== undefined) {
          at = s.model;
          pick.querySelector('input[value="' + at + '"]').checked = true;
          slide.input.max = models[at].n_ctx;
        }
        var n = s.tokens !== undefined ? s.tokens : Number(slide.input.value);
        if (n > models[at].n_ctx) { said = models[at].name + "'s window is " + ui.count(models[at].n_ctx) + " tokens: the cache stops there."; n = models[at].n_ctx; }
        slide.set(n);
        draw(n);
        return said;
      },
      tables: function () {
        var n = Number(slide.input.value);
        return [{ name: "kv-cache-bytes", columns: ["model", "bytes_per_token", "window", "tokens", "mb_float32", "mb_float16"],
          rows: models.map(function (m) {
            var k = Math.min(n, m.n_ctx);
            return [m.name, m.bytes_per_token, m.n_ctx, k, m.bytes_per_token * k / MB, m.bytes_per_token * k / MB / 2];
          }) }];
      } });
  });
});
