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

  // sample(logits, opts).id without sorting the ids: the same softmax and the cut over the same
  // values sorted most likely first (a native numeric sort of the values alone: equal values are
  // interchangeable in every sum the cut and the draw make), then only the ids down to the drawn
  // one's value ordered as argsort orders them (most likely first, ties to the lower id). The same
  // id for every input (tests/js/sampling.test.js): the writers' sampler, whose full argsort of a
  // 49,152-token vocabulary took most of a step.
  function draw(logits, opts) {
    var v = validate(opts || {}, logits.length).opts;
    var probs = softmax(logits, v.temperature), n = probs.length, i;
    var sorted = sortedDown(probs, logits);
    var kept = kernels.cut(sorted, v.topK, v.topP).kept, total = 0;
    for (i = 0; i < kept; i++) total += sorted[i];  // filter's sum of the kept probabilities, in their order
    var rng = opts && typeof opts.rng === "function" ? opts.rng : mulberry32(v.seed);
    var u = rng(), cum = 0, at = kept - 1;
    for (i = 0; i < kept; i++) {
      cum += total > 0 ? sorted[i] / total : 1 / kept;
      if (u < cum) { at = i; break; }
    }
    var ids = [];
    for (i = 0; i < n; i++) if (probs[i] >= sorted[at]) ids.push(i);
    ids.sort(function (a, b) { return probs[b] - probs[a] || a - b; });
    return ids[at];
  }

  // probs from the largest down: Float64Array.from(probs).sort().reverse(), bit for bit, in about a
  // third of the time for a 49,152-token vocabulary. softmax keeps the logits' order (it is monotone),
  // so the logits' order, by a stable radix sort of their float32 bits (three passes of 11 bits, as a
  // key that grows as the value shrinks), puts the probabilities in order; one pass checks that it
  // did (a sorted array is the same whatever sorted it); where it did not (a NaN, an exp() that is
  // not monotone somewhere), and for other inputs, the plain sort runs.
  var keys = null;  // sortedDown's working arrays (keys and ids, twice), kept for the next draw: 0.8 MB a step less for the collector
  function sortedDown(probs, logits) {
    var n = probs.length, i;
    if (n < 4096 || !(logits instanceof Float32Array) || logits.length !== n) return Float64Array.from(probs).sort().reverse();
    if (!keys || keys[0].length !== n) keys = [new Uint32Array(n), new Uint32Array(n), new Uint32Array(n), new Uint32Array(n)];
    var bits = new Uint32Array(logits.buffer, logits.byteOffset, n), ka = keys[0], kb = keys[1], ia = keys[2], ib = keys[3];
    var counts = [new Uint32Array(2048), new Uint32Array(2048), new Uint32Array(1024)], t;
    for (i = 0; i < n; i++) {
      var b = bits[i], k = b >= 0x80000000 ? b : ~b & 0x7fffffff;  // negative: larger bits, smaller value
      ka[i] = k; ia[i] = i;
      counts[0][k & 2047]++; counts[1][(k >>> 11) & 2047]++; counts[2][k >>> 22]++;
    }
    for (var pass = 0; pass < 3; pass++) {
      var count = counts[pass], shift = 11 * pass, mask = pass === 2 ? 1023 : 2047, sum = 0, d, c;
      for (d = 0; d <= mask; d++) { c = count[d]; count[d] = sum; sum += c; }
      for (i = 0; i < n; i++) { var key = ka[i], j = count[(key >>> shift) & mask]++; kb[j] = key; ib[j] = ia[i]; }
      t = ka; ka = kb; kb = t; t = ia; ia = ib; ib = t;
    }
    var out = new Float64Array(n);
    out[0] = probs[ia[0]];
    for (i = 1; i < n; i++) {
      var p = probs[ia[i]];
      if (!(out[i - 1] >= p) || (p === 0 && 1 / p < 0)) return Float64Array.from(probs).sort().reverse();  // (-0 sorts below 0)
      out[i] = p;
    }
    return out;
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

  return { softmax: softmax, filter: filter, mulberry32: mulberry32, sample: sample, draw: draw, sortedDown: sortedDown, validate: validate, argmax: argmax, order: order };
});
