// Picking the next token: softmax with temperature, top-k, top-p (the kernels' cut), and a seeded draw.
// sampling.softmax(logits, T) / filter(probs, {topK, topP}) / mulberry32(seed) /
// sample(logits, {temperature, topK, topP, seed}) / validate(opts, vocabSize)
nexttoken.define("runtime.sampling", ["runtime.kernels"], function (kernels) {
  "use strict";

  function argmax(xs) {
    var best = 0;
    for (var i = 1; i < xs.length; i++) if (xs[i] > xs[best]) best = i;  // ties go to the lowest id
    return best;
  }

  // Temperature divides the logits before softmax (T = 0: all mass on the argmax).
  function softmax(logits, temperature) { return kernels.softmax(logits, 0, logits.length, null, 0, temperature); }
  var order = kernels.argsort;

  // The cut over a vocabulary's probabilities: {probs (renormalised, 0 where cut), kept (ids, most likely first)}.
  function filter(probs, opts) {
    opts = opts || {};
    var n = probs.length, ids = order(probs), i;
    var c = kernels.cut(ids.map(function (id) { return probs[id]; }), opts.topK, opts.topP);
    var kept = ids.slice(0, c.kept), total = 0;
    for (i = 0; i < kept.length; i++) total += probs[kept[i]];
    var out = new Array(n);
    for (i = 0; i < n; i++) out[i] = 0;
    for (i = 0; i < kept.length; i++) out[kept[i]] = total > 0 ? probs[kept[i]] / total : 1 / kept.length;
    return { probs: out, kept: kept };
  }

  // mulberry32: a 32-bit seeded PRNG (Tommy Ettinger's), small and good enough for a demo draw;
  // the same seed gives the same sequence in every browser and in Node.
  function mulberry32(seed) {
    var a = seed >>> 0;
    return function () {
      a = (a + 0x6D2B79F5) >>> 0;
      var t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  function sample(logits, opts) {
    var v = validate(opts || {}, logits.length).opts;
    var probs = softmax(logits, v.temperature);
    var f = filter(probs, v);
    var rng = opts && typeof opts.rng === "function" ? opts.rng : mulberry32(v.seed);
    var u = rng(), cum = 0, id = f.kept[f.kept.length - 1];
    for (var i = 0; i < f.kept.length; i++) {
      cum += f.probs[f.kept[i]];
      if (u < cum) { id = f.kept[i]; break; }
    }
    return { id: id, probs: f.probs, kept: f.kept, u: u, raw: probs };
  }

  function num(x) { return typeof x === "number" ? x : (typeof x === "string" && x.trim() !== "" ? Number(x) : NaN); }

  // Settings from a form may be anything: return defined values and say what was changed.
  function validate(opts, vocabSize) {
    var w = [], o = {};
    var T = opts.temperature === undefined ? 1 : num(opts.temperature);
    if (!isFinite(T)) { w.push("Temperature must be a number; using 1."); T = 1; }
    else if (T < 0) { w.push("Temperature cannot be negative; using 0 (greedy)."); T = 0; }
    else if (T > 100) { w.push("Temperature above 100 is as flat as it gets; using 100."); T = 100; }
    o.temperature = T;
    var k = opts.topK === undefined || opts.topK === null ? 0 : num(opts.topK);
    if (!isFinite(k) || k < 0) { w.push("top-k must be a whole number of 0 or more; top-k is off."); k = 0; }
    else if (k >= vocabSize && k > 0) { if (k > vocabSize) w.push("top-k above the vocabulary (" + vocabSize + ") keeps everything; top-k is off."); k = 0; }
    else if (k !== Math.floor(k)) { w.push("top-k counts tokens, so it must be a whole number; using " + Math.floor(k) + "."); }
    o.topK = Math.floor(k);
    var p = opts.topP === undefined || opts.topP === null ? 1 : num(opts.topP);
    if (!isFinite(p)) { w.push("top-p must be a number between 0 and 1; top-p is off."); p = 1; }
    else if (p > 1) { w.push("top-p above 1 keeps everything; using 1."); p = 1; }
    else if (p < 0) { w.push("top-p below 0 keeps only the top token; using 0."); p = 0; }
    o.topP = p;
    var s = opts.seed === undefined ? 1 : num(opts.seed);
    if (!isFinite(s)) { w.push("The seed must be a whole number; using 1."); s = 1; }
    else if (s < 0 || s !== Math.floor(s) || s > 4294967295) {  // said, never silently folded into another seed
      var whole = Math.min(4294967295, Math.max(0, Math.floor(s)));
      w.push("A seed is a whole number from 0 to 4,294,967,295; " + String(s).replace("-", "\u2212") + " is not one, so seed " + whole + " is used.");
      s = whole;
    }
    o.seed = s >>> 0;
    return { opts: o, warnings: w };
  }

  return { softmax: softmax, filter: filter, mulberry32: mulberry32, sample: sample, validate: validate, argmax: argmax, order: order };
});
