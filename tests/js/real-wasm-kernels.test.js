// The WebAssembly kernels' attention and activations, called directly: scores and the values' mix
// give four queries at once the bits of each alone (whatever the key count and head width), near
// float64's; softmax and silu, whose e^x is the module's own float32 exponential, within a few
// float32 roundings of float64's, lanes past a row's end written 0, extremes finite.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { kernelsWasm } = require("./real-scripts.js");
const random = require("./load.js").runtime.sampling.mulberry32;  // the same inputs every run

function kernels() {
  const e = new WebAssembly.Instance(new WebAssembly.Module(kernelsWasm()), {}).exports;
  e.memory.grow(16);
  return { e, f: new Float32Array(e.memory.buffer) };
}

test("softmax: every weight within 3e-6 of float64's (relative), the weights sum to 1, lanes past n are 0", () => {
  const { e, f } = kernels(), rnd = random(7), at = 65536;  // float index; byte offset 4 at
  let worst = 0;
  for (let trial = 0; trial < 100; trial++) {
    const n = 1 + Math.floor(rnd() * 700), spread = [1, 10, 60][trial % 3];
    const s = Array.from({ length: n }, () => Math.fround((rnd() - 0.5) * spread));
    f.fill(NaN, at, at + n + 8);  // whatever the room held before
    f.set(s, at);
    e.softmax(4 * at, n);
    const mx = Math.max(...s), ex = s.map((v) => Math.exp(v - mx)), z = ex.reduce((a, b) => a + b, 0);
    let sum = 0;
    for (let j = 0; j < n; j++) {
      const want = ex[j] / z;
      if (want > 1e-30) worst = Math.max(worst, Math.abs(f[at + j] - want) / want);
      sum += f[at + j];
    }
    assert.ok(Math.abs(sum - 1) < 1e-5, `weights of ${n} scores sum to ${sum}`);
    for (let j = n; j < Math.ceil(n / 4) * 4; j++) assert.equal(f[at + j], 0, `lane ${j} past ${n}`);
  }
  assert.ok(worst < 3e-6, `worst relative error ${worst}`);
});

test("silu: g / (1 + e^-g) times u within 3e-7 of float64's, for tiny to huge g and a partial last four", () => {
  const { e, f } = kernels(), rnd = random(11), g0 = 65536, u0 = 2 * 65536;
  const g = Array.from({ length: 4001 }, () => Math.fround((rnd() - 0.5) * 10 ** (rnd() * 5 - 2)));
  g.push(-200, -88, -87.5, -20, 0, 20, 88, 200);
  const u = g.map(() => Math.fround(rnd() * 4 - 2));
  f.set(g, g0); f.set(u, u0);
  e.silu(4 * g0, 4 * u0, g.length);
  let worst = 0;
  for (let i = 0; i < g.length; i++) {
    const want = (g[i] / (1 + Math.exp(-g[i]))) * u[i], got = f[g0 + i];
    assert.ok(Number.isFinite(got), `silu(${g[i]}) = ${got}`);
    if (Math.abs(want) > 1e-30) worst = Math.max(worst, Math.abs(got - want) / Math.abs(want));
    else assert.ok(Math.abs(got) < 1e-30, `silu(${g[i]}) * ${u[i]} = ${got}, not about 0`);
  }
  assert.ok(worst < 3e-7, `worst relative error ${worst}`);
});

for (const hd of [12, 16, 64]) {
  test(`attention, head width ${hd}: four queries at once give the bits of one at a time, within 1e-5 of float64's`, () => {
    const { e, f } = kernels(), rnd = random(hd), B = 65536;  // byte offsets from B: q, keys, values, scores, out
    const n0 = 37, kvDim = 3 * hd, cap = 64, Q = B, K = Q + 16 * hd, V = K + 4 * cap * kvDim, S = V + 4 * cap * kvDim, O = S + 16 * cap;
    const fill = (at, n) => { for (let i = 0; i < n; i++) f[at / 4 + i] = Math.fround(rnd() * 2 - 1); };
    fill(Q, 4 * hd); fill(K, (n0 + 3) * kvDim); fill(V, (n0 + 3) * kvDim + 8);
    const ko = 4 * hd;  // the second of three key/value heads
    e.scores(Q, 4, K + ko, 4 * kvDim, n0 + 3, hd, 1 / Math.sqrt(hd), S, 4 * cap);
    const four = f.slice(S / 4, S / 4 + 4 * cap);
    e.mix(S, 4 * cap, 4, V + ko, 4 * kvDim, n0, hd, O);
    const mixed = f.slice(O / 4, O / 4 + 4 * hd);
    for (let i = 0; i < 4; i++) {
      const n = n0 + i;
      f.fill(0, S / 4, S / 4 + 4 * cap);
      e.scores(Q + 4 * hd * i, 1, K + ko, 4 * kvDim, n, hd, 1 / Math.sqrt(hd), S, 4 * cap);
      for (let j = 0; j < n; j++) {
        assert.equal(f[S / 4 + j], four[i * cap + j], `query ${i}, key ${j}: score`);
        let want = 0;
        for (let d = 0; d < hd; d++) want += f[Q / 4 + i * hd + d] * f[(K + ko) / 4 + j * kvDim + d];
        assert.ok(Math.abs(f[S / 4 + j] - want / Math.sqrt(hd)) < 1e-5, `query ${i}, key ${j}: ${f[S / 4 + j]} against ${want / Math.sqrt(hd)}`);
      }
      for (let j = 0; j < n; j++) f[S / 4 + j] = four[i * cap + j];
      e.mix(S, 4 * cap, 1, V + ko, 4 * kvDim, n, hd, O);
      for (let d = 0; d < hd; d++) {
        assert.equal(f[O / 4 + d], mixed[i * hd + d], `query ${i}, dimension ${d}: mix`);
        let want = 0;
        for (let j = 0; j < n; j++) want += four[i * cap + j] * f[(V + ko) / 4 + j * kvDim + d];
        assert.ok(Math.abs(f[O / 4 + d] - want) < 1e-5, `query ${i}, dimension ${d}: ${f[O / 4 + d]} against ${want}`);
      }
    }
  });
}
