// The snapshot replay: per-position loss, and the weight snapshots the build saved during training.
// snapshots.positionLosses(m, ids) / meanLoss(m, ids) / unpackSnapshot(template, b64) /
// snapshotModel(tinyData, snapshotsData, i)
nexttoken.define("runtime.snapshots", ["runtime.kernels", "runtime.model"], function (kernels, model) {
  "use strict";

  // ids = a sentence's tokens followed by end-of-text. Every position predicts its next token at
  // once (inputs ids[:-1], targets ids[1:]); the causal mask keeps each from seeing its answer.
  function positionLosses(m, ids) {
    var inputs = ids.slice(0, Math.min(ids.length - 1, m.config.n_ctx));
    if (inputs.length === 0) throw new RangeError("a loss needs at least two tokens (an input and its next token)");
    var V = m.config.vocab_size, logits = m.logits(inputs), probs = new Float64Array(V), out = [];
    for (var t = 0; t < inputs.length; t++) {
      var target = ids[t + 1];
      kernels.softmax(logits, t * V, V, probs, 0);
      out.push({ target: target, loss: -Math.log(probs[target]), prob: probs[target] });
    }
    return out;
  }

  function meanLoss(m, ids) {
    var pl = positionLosses(m, ids), s = 0;
    pl.forEach(function (p) { s += p.loss; });
    return s / pl.length;
  }

  function b64bytes(b64) {
    if (typeof atob === "function") {
      var bin = atob(b64), out = new Uint8Array(bin.length);
      for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
      return out;
    }
    return new Uint8Array(globalThis.Buffer.from(b64, "base64"));  // node, in the tests
  }

  function half(bits) {  // IEEE 754 binary16 -> number
    var sign = bits & 0x8000 ? -1 : 1, exp = (bits >> 10) & 0x1f, frac = bits & 0x3ff;
    if (exp === 0) return sign * Math.pow(2, -14) * (frac / 1024);
    if (exp === 31) return frac ? NaN : sign * Infinity;
    return sign * Math.pow(2, exp - 15) * (1 + frac / 1024);
  }

  // Refill `template` (the final weights) in the order scripts/site/tiny_js.py packed them:
  // depth first, object keys in order, arrays row-major.
  function unpackSnapshot(template, b64) {
    var bytes = b64bytes(b64), pos = 0;
    function next() { var v = half(bytes[pos] | (bytes[pos + 1] << 8)); pos += 2; return v; }
    function fill(t) {
      if (Array.isArray(t)) return t.map(fill);
      if (t && typeof t === "object") { var o = {}; Object.keys(t).forEach(function (k) { o[k] = fill(t[k]); }); return o; }
      return next();
    }
    var w = fill(template);
    if (pos !== bytes.length) throw new Error("snapshot data do not match the model's shapes");
    return w;
  }

  var cache = {};
  function snapshotModel(tinyData, snapshotsData, i) {
    var list = snapshotsData.snapshots;
    if (!(i >= 0 && i < list.length)) throw new RangeError("no snapshot " + i + " (there are " + list.length + ")");
    var key = i + ":" + list[i].step;
    if (!cache[key]) cache[key] = model.create({ config: tinyData.config, weights: unpackSnapshot(tinyData.weights, list[i].weights_f16) });
    return cache[key];
  }

  return { positionLosses: positionLosses, meanLoss: meanLoss, unpackSnapshot: unpackSnapshot, snapshotModel: snapshotModel };
});
