// The arithmetic every tiny-model computation shares, one function each: softmax, LayerNorm, GELU
// and the linear map (the forward pass, the reader's trainer, the snapshot replay and the
// explanations all call these), plus the top-k/top-p cut, argsort and cosine. The vector kernels work on rows of flat
// arrays at offsets, so a caller passes its own buffers and nothing is allocated per row.
nexttoken.define("runtime.kernels", [], function () {
  "use strict";
  var GELU_C = Math.sqrt(2 / Math.PI);

  // dst[dstAt..dstAt+n) = softmax(src[srcAt..srcAt+n) / temperature). Subtracting the maximum first
  // keeps exp() finite for any temperature above 0; temperature 0 is the limit, all mass on the
  // first largest. With no dst, a new array of n is returned. With parts, the maximum and the sum of
  // the shifted exponentials are kept there ({max, sum}), for an explanation's lines.
  function softmax(src, srcAt, n, dst, dstAt, temperature, parts) {
    srcAt = srcAt || 0;
    n = n === undefined ? src.length - srcAt : n;
    if (!dst) { dst = new Array(n); dstAt = 0; }
    dstAt = dstAt || 0;
    var T = temperature === undefined ? 1 : temperature, mx = -Infinity, best = 0, s = 0, i;
    for (i = 0; i < n; i++) if (src[srcAt + i] > mx) { mx = src[srcAt + i]; best = i; }
    if (T === 0) {
      for (i = 0; i < n; i++) dst[dstAt + i] = i === best ? 1 : 0;
      return dst;
    }
    for (i = 0; i < n; i++) { var e = Math.exp((src[srcAt + i] - mx) / T); dst[dstAt + i] = e; s += e; }
    for (i = 0; i < n; i++) dst[dstAt + i] /= s;
    if (parts) { parts.max = mx; parts.sum = s; }
    return dst;
  }

  // y[yAt..yAt+C) = LayerNorm(x[xAt..xAt+C)) with gain w[wAt..] and bias b[bAt..] (torch.nn.LayerNorm:
  // biased variance). With xhat, the normalised row is kept there (at xAt) for a backward pass.
  // Returns 1 / std.
  function layerNorm(x, xAt, C, w, wAt, b, bAt, eps, y, yAt, xhat) {
    var mean = 0, v = 0, i;
    for (i = 0; i < C; i++) mean += x[xAt + i];
    mean /= C;
    for (i = 0; i < C; i++) { var d = x[xAt + i] - mean; v += d * d; }
    var rstd = 1 / Math.sqrt(v / C + eps);
    for (i = 0; i < C; i++) {
      var xh = (x[xAt + i] - mean) * rstd;
      if (xhat) xhat[xAt + i] = xh;
      y[yAt + i] = xh * w[wAt + i] + b[bAt + i];
    }
    return rstd;
  }

  // GPT-2's tanh GELU; geluTanh is the tanh inside it, which its derivative reuses.
  function geluTanh(u) { return Math.tanh(GELU_C * (u + 0.044715 * u * u * u)); }
  function gelu(u) { return 0.5 * u * (1 + geluTanh(u)); }
  function geluGrad(u, t) { return 0.5 * (1 + t) + 0.5 * u * (1 - t * t) * GELU_C * (1 + 3 * 0.044715 * u * u); }

  // y[yAt..yAt+nOut) = W x[xAt..xAt+nIn) + b, W row-major (nOut, nIn) at wAt, as PyTorch's Linear.
  function linear(W, wAt, b, bAt, nOut, nIn, x, xAt, y, yAt) {
    for (var o = 0; o < nOut; o++) {
      var s = b[bAt + o], r = wAt + o * nIn;
      for (var i = 0; i < nIn; i++) s += W[r + i] * x[xAt + i];
      y[yAt + o] = s;
    }
  }

  function dot(a, b) { var s = 0; for (var i = 0; i < a.length; i++) s += a[i] * b[i]; return s; }
  function cosine(a, b) { return dot(a, b) / Math.sqrt(dot(a, a) * dot(b, b)); }

  // Indices by value, largest first; ties go to the lower index.
  // Indices from the largest value to the smallest, ties by the lower index first. A long array (the
  // real model's 49,152 probabilities, one sort a sampled token) goes by a stable radix sort of its
  // float64 bits, the same order as the comparison in a few ms instead of tens.
  var LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  function argsort(values) {
    var n = values.length, i;
    if (n < 4096) {
      var idx = [];
      for (i = 0; i < n; i++) idx.push(i);
      return idx.sort(function (a, b) { return values[b] - values[a] || a - b; });
    }
    // Each value's bits as a 64-bit key (hi, lo) that grows as the value shrinks: positive values
    // with the sign bit set, negative ones with every bit flipped, then every bit flipped (-0 as 0).
    var f = new Float64Array(n), u = new Uint32Array(f.buffer), hi = new Uint32Array(n), lo = new Uint32Array(n);
    var H = LITTLE ? 1 : 0, Lw = 1 - H;
    for (i = 0; i < n; i++) f[i] = values[i] === 0 ? 0 : values[i];
    for (i = 0; i < n; i++) {
      var h = u[2 * i + H], l = u[2 * i + Lw];
      if (h >= 0x80000000) { hi[i] = h; lo[i] = l; } else { hi[i] = ~(h | 0x80000000) >>> 0; lo[i] = ~l >>> 0; }
    }
    // least significant 16 bits first, each pass stable, every key moved with its index (reads in order)
    var ia = new Uint32Array(n), ib = new Uint32Array(n), ha = hi, hb = new Uint32Array(n), la = lo, lb = new Uint32Array(n);
    var count = new Uint32Array(65536), t, d, k, j, c, sum;
    for (i = 0; i < n; i++) ia[i] = i;
    for (var pass = 0; pass < 4; pass++) {
      var key = pass < 2 ? la : ha, shift = pass % 2 ? 16 : 0;
      count.fill(0);
      for (k = 0; k < n; k++) count[(key[k] >>> shift) & 65535]++;
      if (count[(key[0] >>> shift) & 65535] === n) continue;  // one digit for all: this pass moves nothing
      for (d = 0, sum = 0; d < 65536; d++) { c = count[d]; count[d] = sum; sum += c; }
      for (k = 0; k < n; k++) { j = count[(key[k] >>> shift) & 65535]++; ib[j] = ia[k]; hb[j] = ha[k]; lb[j] = la[k]; }
      t = ia; ia = ib; ib = t; t = ha; ha = hb; hb = t; t = la; la = lb; lb = t;
    }
    var a = ia;
    return Array.from(a);
  }

  // The cut over probabilities sorted most likely first: top-k keeps the k most likely (k = 0 or
  // k >= their number: no cut); then top-p keeps the smallest set whose renormalised probabilities
  // reach p (p >= 1: no cut, p <= 0: the top one only). Same order as Hugging Face's logits
  // processors. Returns {kCut, kMass, kept, mass}: how many survive top-k and their share, how many
  // survive both and their share (1 when nothing is cut).
  function cut(sorted, topK, topP) {
    var n = sorted.length, kCut = topK > 0 && topK < n ? Math.floor(topK) : n, total = 0, i;
    for (i = 0; i < kCut; i++) total += sorted[i];
    var kept = kCut, p = topP === undefined || topP === null ? 1 : topP;
    if (p < 1) {
      var cum = 0;
      for (i = 0; i < kCut; i++) { cum += sorted[i] / total; if (cum >= p) { kept = i + 1; break; } }
      kept = Math.max(1, kept);
    }
    var mass = 0;
    for (i = 0; i < kept; i++) mass += sorted[i];
    if (kept === n) mass = 1;  // no cut: all of it, not a sum's rounding error short of it
    return { kCut: kCut, kMass: total, kept: kept, mass: mass };
  }

  return { softmax: softmax, cut: cut, layerNorm: layerNorm, gelu: gelu, geluTanh: geluTanh, geluGrad: geluGrad, linear: linear,
           dot: dot, cosine: cosine, argsort: argsort, GELU_C: GELU_C };
});
