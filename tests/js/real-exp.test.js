// The WebAssembly kernels' softmax and silu, whose e^x is the module's own float32 exponential:
// each weight and each activation within a few float32 roundings of the float64 answer, lanes past
// a row's end written 0, extremes finite.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { kernelsWasm } = require("./real-scripts.js");

function kernels() {
  const e = new WebAssembly.Instance(new WebAssembly.Module(kernelsWasm()), {}).exports;
  e.memory.grow(16);
  return { e, f: new Float32Array(e.memory.buffer) };
}

function random(seed) {  // mulberry32: the same inputs every run
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
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
