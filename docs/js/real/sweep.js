// The browser's one way to switch parts of the real model off, replace them by their mean, or patch
// them from another run, and to read a target token's numbers off each pass: the inside view's
// knock-outs, sweep and patching (demos.real-inside) and the experiments page's knock-out rows use it.
// Its Python counterpart, with the same parts, modes and metric, is scripts/real/ablation.py; the
// parity tests compare the two (tests/real/test_ablation_smollm2.py).
//
// Parts (layers and heads from 0): ["head", layer, head], ["mlp", layer], ["attn", layer] (every head
// of the block). A spec: {parts: [part, ...], mode: "zero" | "mean" | "patch", label}:
//   zero   the part's output is zeros (the engine's plain knock-out)
//   mean   its mean output over the build's stated prompts (means: sweep.means(data.smollm2-means))
//   patch  its output at each position in another run of the same length (source: sweep.capture's)
// A target: {ids: [id]} (the value is its probability) or {ids: [a, b]} (the value is logit a - logit b).
//
//   sweep.parts(config, {attn}) -> every head (block-major), then every MLP, then (attn) every block's
//     attention
//   sweep.knockout(spec, {config, means, source}) -> the engine's opts.knockout ({heads, mlp, values})
//   sweep.metric(logits, target) -> {value, prob, logit, rank} or {value, diff, probs, logits, ranks}
//     (rank 1 is the most likely token)
//   sweep.means(data) -> {z: [layer][head] Float32Array(head size), mlp: [layer] Float32Array(n_embd),
//     prompts, positions}, from the shipped file's base64 float32 arrays
//   sweep.capture(session, ids, opts) -> Promise<{ids, z: [layer] T x n_embd, mlp: [layer] T x n_embd,
//     logits}>: every part's output at every position of a run (opts: slot, knockout)
//   sweep.run(session, {ids, specs, target, means, source, slot, onRow}) -> {done, stop()}:
//     the plain run first, then each spec in order, one prefill each (session: real.workers' or an
//     engine.Model), in cache slot `slot` (SLOT by default: the panel's and the writers' are left
//     alone) with the engine's keep and reuse, so each spec reruns only the blocks from the first it
//     changes; onRow(i, row, done, total) after each (i = -1 for the plain run); done resolves to
//     {base, rows: [{spec, metric, delta}], stopped} (delta = value - base value); stop() ends it after
//     cancelling the pass in flight (rows so far are kept). Every failure rejects with one line.
nexttoken.define("real.sweep", [], function () {
  "use strict";

  var MODES = ["zero", "mean", "patch"];
  var SLOT = 7;  // the engine's last cache slot (0: the panel's; 1-5: the writers')

  function parts(config, opts) {
    var out = [], l, h;
    for (l = 0; l < config.n_layer; l++) for (h = 0; h < config.n_head; h++) out.push(["head", l, h]);
    for (l = 0; l < config.n_layer; l++) out.push(["mlp", l]);
    if (opts && opts.attn) for (l = 0; l < config.n_layer; l++) out.push(["attn", l]);
    return out;
  }

  function checkPart(p, c) {
    var ok = Array.isArray(p) && (p[0] === "head" ? p.length === 3 && p[2] >= 0 && p[2] < c.n_head && p[2] % 1 === 0 : (p[0] === "mlp" || p[0] === "attn") && p.length === 2) &&
      p[1] >= 0 && p[1] < c.n_layer && p[1] % 1 === 0;
    if (!ok) throw new Error("part " + JSON.stringify(p) + " is not [\"head\", block 0-" + (c.n_layer - 1) + ", head 0-" + (c.n_head - 1) + "], [\"mlp\", block] or [\"attn\", block]");
  }

  // The engine's knock-out for a spec: the heads and MLPs it switches off and, for mean and patch,
  // what each becomes ("h.<l>.<h>": head size numbers, or that many per position; "m.<l>": n_embd).
  function knockout(spec, ctx) {
    var c = ctx.config, mode = spec.mode || "zero", hd = c.n_embd / c.n_head, C = c.n_embd;
    if (MODES.indexOf(mode) < 0) throw new Error("ablation mode " + JSON.stringify(mode) + " is not zero, mean or patch");
    if (mode === "mean" && !ctx.means) throw new Error("mean ablation needs the parts' means (the build's file is not loaded)");
    if (mode === "patch" && !ctx.source) throw new Error("patching needs a run to copy from");
    var heads = [], mlp = [], values = {};
    function head(l, h) {
      if (heads.some(function (x) { return x[0] === l && x[1] === h; })) return;
      heads.push([l, h]);
      if (mode === "mean") values["h." + l + "." + h] = ctx.means.z[l][h];
      if (mode === "patch") {
        var src = ctx.source.z[l], T = src.length / C, v = new Float32Array(T * hd);
        for (var t = 0; t < T; t++) v.set(src.subarray(t * C + h * hd, t * C + (h + 1) * hd), t * hd);
        values["h." + l + "." + h] = v;
      }
    }
    (spec.parts || []).forEach(function (p) {
      checkPart(p, c);
      if (p[0] === "head") head(p[1], p[2]);
      else if (p[0] === "attn") for (var h = 0; h < c.n_head; h++) head(p[1], h);
      else if (mlp.indexOf(p[1]) < 0) {
        mlp.push(p[1]);
        if (mode === "mean") values["m." + p[1]] = ctx.means.mlp[p[1]];
        if (mode === "patch") values["m." + p[1]] = ctx.source.mlp[p[1]];
      }
    });
    heads.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
    mlp.sort(function (a, b) { return a - b; });
    return { heads: heads, mlp: mlp, values: values };
  }

  function metric(logits, target) {
    var V = logits.length, mx = -Infinity, z = 0, i;
    var ids = target && target.ids;
    if (!ids || !(ids.length === 1 || ids.length === 2)) throw new Error("a target is one token or two");
    ids.forEach(function (id) { if (!(id >= 0 && id < V) || id % 1) throw new Error("target token " + id + " is outside the vocabulary (0-" + (V - 1) + ")"); });
    for (i = 0; i < V; i++) if (logits[i] > mx) mx = logits[i];
    for (i = 0; i < V; i++) z += Math.exp(logits[i] - mx);
    var lz = mx + Math.log(z);
    var one = ids.map(function (id) {
      var l = logits[id], rank = 1;
      for (var j = 0; j < V; j++) if (logits[j] > l) rank++;
      return { prob: Math.exp(l - lz), logit: l, rank: rank };
    });
    if (ids.length === 1) return { value: one[0].prob, prob: one[0].prob, logit: one[0].logit, rank: one[0].rank };
    var diff = one[0].logit - one[1].logit;
    return { value: diff, diff: diff, probs: [one[0].prob, one[1].prob], logits: [one[0].logit, one[1].logit], ranks: [one[0].rank, one[1].rank] };
  }

  function floats(b64) {
    var bin = atob(b64);
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new Float32Array(bytes.buffer);
  }

  // The shipped means (scripts/real/lab.py): z as n_layer x n_head x head size, mlp as n_layer x n_embd.
  function means(data) {
    var z = floats(data.z), m = floats(data.mlp), L = data.n_layer, H = data.n_head, hd = data.d_head, C = data.n_embd;
    if (z.length !== L * H * hd || m.length !== L * C) throw new Error("the means file holds " + z.length + " and " + m.length + " numbers, not " + L * H * hd + " and " + L * C);
    var out = { z: [], mlp: [], prompts: data.prompts, positions: data.positions };
    for (var l = 0; l < L; l++) {
      var row = [];
      for (var h = 0; h < H; h++) row.push(z.subarray((l * H + h) * hd, (l * H + h + 1) * hd));
      out.z.push(row);
      out.mlp.push(m.subarray(l * C, (l + 1) * C));
    }
    return out;
  }

  function capture(session, ids, opts) {
    opts = opts || {};
    return session.prefill(ids, { capture: true, knockout: opts.knockout || null, slot: opts.slot || 0 }).then(function (r) {
      return { ids: Array.prototype.slice.call(ids), z: r.parts.z, mlp: r.parts.mlp, logits: r.logits };
    });
  }

  function run(session, o) {
    var stopped = false, specs = o.specs || [], c = session.config, rows = [], base = null;
    var ctx = { config: c, means: o.means || null, source: o.source || null };
    var done = (async function () {
      if (!o.target) throw new Error("a sweep needs a target token");
      if (o.source && o.source.ids.length !== o.ids.length) {
        throw new Error("patching copies position by position: the run it copies from has " + o.source.ids.length + " tokens, this prompt " + o.ids.length);
      }
      var kos = specs.map(function (s) { return knockout(s, ctx); });  // every spec checked before any pass runs
      var opts = function (k) { return { knockout: k, slot: o.slot === undefined ? SLOT : o.slot, reuse: true, keep: true }; };
      var first = await session.prefill(o.ids, opts(null));
      base = metric(first.logits, o.target);
      if (o.onRow) o.onRow(-1, { spec: null, metric: base, delta: 0 }, 0, specs.length);
      for (var i = 0; i < specs.length && !stopped; i++) {
        var r;
        try {
          r = await session.prefill(o.ids, opts(kos[i]));
        } catch (err) {
          if (stopped && /cancel/.test(String(err && err.message))) break;
          throw err;
        }
        var m = metric(r.logits, o.target), row = { spec: specs[i], metric: m, delta: m.value - base.value };
        rows.push(row);
        if (o.onRow) o.onRow(i, row, rows.length, specs.length);
      }
      return { base: base, rows: rows, stopped: stopped };
    })();
    return {
      done: done,
      stop: function () { if (stopped) return; stopped = true; if (session.cancel) session.cancel(); },
    };
  }

  return { MODES: MODES, SLOT: SLOT, parts: parts, knockout: knockout, metric: metric, means: means, capture: capture, run: run };
});
