// The training loss as an SVG line from step 0, axes from zero (the snapshot replay and the reader's
// own training draw it the same way).
nexttoken.define("loss-curve", ["ui"], function (ui) {
  "use strict";

  // points = [[step, loss]] over 0..steps; marks = [{x, y, on}] drawn as dots (the snapshots), label = the picture's words for a screen reader.
  function draw(points, steps, label, marks) {
    var W = 560, H = marks ? 170 : 150, P = 34, yMax = 0;
    points.forEach(function (p) { if (p[1] > yMax) yMax = p[1]; });
    var sx = function (x) { return P + (W - 2 * P) * (x / (steps || 1)); };
    var sy = function (y) { return H - P - (H - 2 * P) * (y / (yMax || 1)); };
    var s = ui.svg("svg", { viewBox: "0 0 " + W + " " + H, class: "nt-loss-svg", role: "img", "aria-label": label });
    s.appendChild(ui.svg("line", { x1: P, y1: H - P, x2: W - P, y2: H - P, class: "nt-axis" }));
    s.appendChild(ui.svg("line", { x1: P, y1: P / 2, x2: P, y2: H - P, class: "nt-axis" }));
    var every = Math.max(1, Math.floor(points.length / 600)), d = "";
    for (var i = 0; i < points.length; i += every) d += (i ? "L" : "M") + sx(points[i][0]).toFixed(1) + " " + sy(points[i][1]).toFixed(1);
    s.appendChild(ui.svg("path", { d: d, class: "nt-loss-line" }));
    (marks || []).forEach(function (m) {
      s.appendChild(ui.svg("circle", { cx: sx(m.x), cy: sy(m.y), r: m.on ? 6 : 3, class: m.on ? "nt-dot nt-dot-on" : "nt-dot" }));
    });
    var lab = function (x, y, text, anchor) { var n = ui.svg("text", { x: x, y: y, "text-anchor": anchor || "middle", class: "nt-axis-label" }); n.textContent = text; s.appendChild(n); };
    lab(P, H - P + 16, "0"); lab(W - P, H - P + 16, String(steps)); lab(W / 2, H - 4, "training step");
    lab(P - 4, sy(yMax) + 4, yMax.toFixed(1), "end"); lab(P - 4, H - P, "0", "end");
    return s;
  }

  return { draw: draw };
});
