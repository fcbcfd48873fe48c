// The training loss as an SVG line (the snapshot replay and the reader's own training draw it the
// same way): the step axis on a log scale, log10(1 + step), because the loss falls fastest early and
// the snapshots are taken at roughly geometric steps; the loss axis from zero, ticked and labelled.
nexttoken.define("loss-curve", ["ui"], function (ui) {
  "use strict";

  // Where a step sits along the axis, 0..1: log10(1 + step) / log10(1 + steps).
  function logPos(step, steps) { return Math.log10(1 + Math.max(0, step)) / (Math.log10(1 + (steps || 1)) || 1); }

  // The step ticks: 0, then each power of ten up to `steps`, then `steps` itself unless a tick sits close.
  function stepTicks(steps) {
    var out = [0];
    for (var p = 1; p <= steps; p *= 10) out.push(p);
    if (out[out.length - 1] !== steps && logPos(steps, steps) - logPos(out[out.length - 1], steps) > 0.08) out.push(steps);
    return out;
  }

  // points = [[step, loss]] over 0..steps; marks = [{x, y, on}] drawn as dots (the snapshots), label = the picture's words for a screen reader.
  function draw(points, steps, label, marks) {
    var W = 560, H = marks ? 190 : 170, L = 50, R = 24, T = 10, B = 38, yMax = 0;
    points.forEach(function (p) { if (p[1] > yMax) yMax = p[1]; });
    var stepY = ui.tickStep(yMax || 1, 4), top = Math.ceil((yMax || 1) / stepY - 1e-9) * stepY;  // up to the tick above the highest loss
    var ticksY = ui.niceTicks(0, top);
    var sx = function (x) { return L + (W - L - R) * logPos(x, steps); };
    var sy = function (y) { return H - B - (H - B - T) * (y / top); };
    var s = ui.svg("svg", { viewBox: "0 0 " + W + " " + H, class: "nt-loss-svg", role: "img", "aria-label": label, "data-scale": "log" });
    s.appendChild(ui.svg("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, class: "nt-axis" }));
    s.appendChild(ui.svg("line", { x1: L, y1: T, x2: L, y2: H - B, class: "nt-axis" }));
    var lab = function (x, y, text, anchor, cls) {
      var n = ui.svg("text", { x: x, y: y, "text-anchor": anchor || "middle", class: "nt-axis-label" + (cls ? " " + cls : "") });
      n.textContent = text;
      s.appendChild(n);
      return n;
    };
    stepTicks(steps).forEach(function (v) {
      s.appendChild(ui.svg("line", { x1: sx(v), y1: H - B, x2: sx(v), y2: H - B + 4, class: "nt-axis" }));
      lab(sx(v), H - B + 15, ui.count(v), "middle", "nt-tick-x");
    });
    ticksY.forEach(function (v) {
      s.appendChild(ui.svg("line", { x1: L - 4, y1: sy(v), x2: L, y2: sy(v), class: "nt-axis" }));
      lab(L - 7, sy(v) + 4, String(v), "end", "nt-tick-y");
    });
    lab((L + W - R) / 2, H - 4, "training step (log scale)");
    var yl = lab(0, 0, "loss (nats)");
    yl.setAttribute("transform", "translate(13 " + ((T + H - B) / 2) + ") rotate(-90)");
    var every = Math.max(1, Math.floor(points.length / 600)), d = "";
    for (var i = 0; i < points.length; i += every) d += (i ? "L" : "M") + sx(points[i][0]).toFixed(1) + " " + sy(points[i][1]).toFixed(1);
    s.appendChild(ui.svg("path", { d: d, class: "nt-loss-line" }));
    (marks || []).forEach(function (m) {
      s.appendChild(ui.svg("circle", { cx: sx(m.x).toFixed(1), cy: sy(m.y).toFixed(1), r: m.on ? 6 : 3, class: m.on ? "nt-dot nt-dot-on" : "nt-dot" }));
    });
    return s;
  }

  return { draw: draw, logPos: logPos, stepTicks: stepTicks };
});
