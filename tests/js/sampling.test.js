// The sampler: greedy, top-k, top-p, seeds, and the distribution of many seeded draws.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const { runtime, siteData, model, tokenizer } = require("./load.js");

const S = runtime.sampling;
const m = model();
const tk = tokenizer();
const logits = m.forward(tk.encode("the cat").ids).logits[1];
const V = m.config.vocab_size;

function argmax(xs) { return xs.indexOf(Math.max(...xs)); }

test("softmax reproduces the toy numbers the build computed (scores 2, 1, 0)", () => {
  const toy = siteData("summary").toy_softmax;
  for (const { t, probs } of toy.by_temperature) {
    const js = S.softmax(toy.scores, t);
    js.forEach((p, i) => assert.ok(Math.abs(p - probs[i]) < 1e-9, `T=${t}`));
  }
});

test("T = 0 is greedy: always the argmax, whatever the seed", () => {
  for (let seed = 0; seed < 200; seed++) assert.strictEqual(S.sample(logits, { temperature: 0, seed }).id, argmax(logits));
});

test("top-k keeps exactly k, the k most likely", () => {
  const probs = S.softmax(logits, 1);
  const sorted = probs.map((p, i) => [p, i]).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const k of [1, 2, 3, 5, 10, V - 1]) {
    const f = S.filter(probs, { topK: k });
    assert.strictEqual(f.kept.length, k);
    assert.deepStrictEqual(f.kept, sorted.slice(0, k).map((x) => x[1]));
    assert.strictEqual(f.probs.filter((p) => p > 0).length, k);
    assert.ok(Math.abs(f.probs.reduce((a, b) => a + b, 0) - 1) < 1e-12);
  }
});

test("top-p keeps the smallest set whose probabilities reach p", () => {
  const probs = S.softmax(logits, 1.5);
  const sorted = probs.slice().sort((a, b) => b - a);
  for (const p of [0.1, 0.5, 0.6, 0.9, 0.99, 0.999]) {
    const f = S.filter(probs, { topP: p });
    let cum = 0, need = 0;
    while (cum < p) cum += sorted[need++];
    assert.strictEqual(f.kept.length, need, `p=${p}`);
    const keptMass = f.kept.reduce((a, id) => a + probs[id], 0);
    assert.ok(keptMass >= p - 1e-12 && keptMass - probs[f.kept[f.kept.length - 1]] < p, `p=${p}: not the smallest set`);
  }
});

test("the same seed gives the same sample; different seeds vary", () => {
  const opts = { temperature: 1.5, seed: 42 };
  const a = S.sample(logits, opts), b = S.sample(logits, opts);
  assert.strictEqual(a.id, b.id);
  assert.strictEqual(a.u, b.u);
  const ids = new Set();
  for (let seed = 0; seed < 100; seed++) ids.add(S.sample(logits, { temperature: 1.5, seed }).id);
  assert.ok(ids.size > 1);
});

test("many seeded draws follow the probabilities (chi-square, p > 0.001)", () => {
  const probs = S.softmax(logits, 1);
  const N = 20000, rng = S.mulberry32(7), counts = new Array(V).fill(0);
  for (let i = 0; i < N; i++) counts[S.sample(logits, { temperature: 1, rng }).id]++;
  // Pool the rare tokens into one bin so every expected count is at least 5.
  let chi = 0, bins = 0, restObs = 0, restExp = 0;
  probs.forEach((p, i) => {
    if (p * N >= 5) { chi += (counts[i] - p * N) ** 2 / (p * N); bins++; } else { restObs += counts[i]; restExp += p * N; }
  });
  if (restExp >= 5) { chi += (restObs - restExp) ** 2 / restExp; bins++; }
  // Critical value of chi-square at p = 0.001 (z = 3.09), Wilson-Hilferty: within 3% of the table
  // from 2 degrees of freedom up (14.1 vs 13.8 at df = 2).
  const df = bins - 1, crit = df * (1 - 2 / (9 * df) + 3.09 * Math.sqrt(2 / (9 * df))) ** 3;
  const maxDev = Math.max(...probs.map((p, i) => Math.abs(counts[i] / N - p)));
  console.log(`# ${N} draws: chi-square ${chi.toFixed(2)} on ${df} df (critical ${crit.toFixed(1)}), largest frequency error ${maxDev.toFixed(4)}`);
  assert.ok(chi < crit);
  assert.ok(maxDev < 0.015);
});

test("argsort of a long array (a radix sort of its float64 bits) gives the comparison sort's order", () => {
  const kernels = runtime.kernels;
  const compare = (v) => Array.from(v, (_, i) => i).sort((a, b) => v[b] - v[a] || a - b);
  let s = 3;
  const r = () => (s = (s * 16807) % 2147483647) / 2147483647;
  for (const n of [4095, 4096, 49152]) {
    // ties, zeros and -0, tiny and huge magnitudes of both signs, infinities
    const mixed = Array.from({ length: n }, () => {
      const x = r();
      return x < 0.1 ? 0 : x < 0.15 ? -0 : x < 0.3 ? Math.round(r() * 10) / 10 : x < 0.35 ? -r() * 1e-300 : x < 0.4 ? (r() < 0.5 ? Infinity : -Infinity) : (r() - 0.5) * 1e3;
    });
    assert.deepStrictEqual(kernels.argsort(mixed), compare(mixed), `${n} mixed values`);
    const probs = S.softmax(Float32Array.from({ length: n }, () => (r() - 0.5) * 20), 0.8);  // a sampler's input
    assert.deepStrictEqual(kernels.argsort(probs), compare(probs), `${n} probabilities`);
  }
});

test("sortedDown (the logits' radix order) sorts a sampler's probabilities as the plain sort does, bit for bit", () => {
  let s = 5;
  const r = () => (s = (s * 16807) % 2147483647) / 2147483647;
  const plain = (p) => Float64Array.from(p).sort().reverse();
  const bits = (a) => Buffer.from(new Float64Array(a).buffer).toString("hex");
  const kinds = [
    (n) => Float32Array.from({ length: n }, () => (r() - 0.5) * 40),  // spread: a long tail of tiny probabilities
    (n) => Float32Array.from({ length: n }, () => Math.round((r() - 0.5) * 8)),  // ties
    (n) => Float32Array.from({ length: n }, (_, i) => (i % 3 ? 1 : -1) * (i % 5 ? r() * 1e-30 : 0) * (i % 7 ? 1 : -0)),  // +-0, tiny of both signs
    (n) => Float32Array.from({ length: n }, (_, i) => (i === 9 ? NaN : r())),  // a NaN: the plain sort's order
    (n) => Float32Array.from({ length: n }, (_, i) => (i === 4 ? -Infinity : i === 5 ? Infinity : r() * 3)),
  ];
  let checked = 0;
  for (const n of [4096, 49152]) {
    for (const make of kinds) {
      const logits = make(n);
      for (const T of [0, 0.3, 1, 2.5, 100]) {
        const probs = S.softmax(logits, T);
        assert.strictEqual(bits(S.sortedDown(probs, logits)), bits(plain(probs)), `n ${n}, T ${T}`);
        checked++;
      }
    }
  }
  // an order the logits do not give (not a softmax of them) is caught, and sorted plainly
  const logits = Float32Array.from({ length: 5000 }, () => r()), shuffled = Array.from({ length: 5000 }, () => r());
  assert.strictEqual(bits(S.sortedDown(shuffled, logits)), bits(plain(shuffled)));
  const down = Float32Array.from({ length: 5000 }, (_, i) => 5000 - i), withZeros = S.softmax(down, 1);
  withZeros[4998] = -0;  // -0 sorts below 0
  withZeros[4999] = 0;
  assert.strictEqual(bits(S.sortedDown(withZeros, down)), bits(plain(withZeros)));
  assert.ok(checked === 50);
});

test("draw picks sample's id without sorting every id: any temperature, cut, seed, ties and a 49,152-token vocabulary", () => {
  let s = 11;
  const r = () => (s = (s * 16807) % 2147483647) / 2147483647;
  const settings = [{ temperature: 0.8, topP: 0.9 }, { temperature: 1 }, { temperature: 0 }, { temperature: 0, topP: 0.5 }, { temperature: 1.3, topK: 40 },
    { temperature: 0.7, topK: 5, topP: 0.6 }, { temperature: 2, topP: 0.05 }, { temperature: 1, topP: 0 }, { temperature: 100, topK: 3000 }];
  let checked = 0;
  for (const n of [7, 300, 49152]) {
    for (let c = 0; c < 4; c++) {
      // whole-number logits make ties; a spread one makes a long tail of tiny probabilities
      const logits = Float32Array.from({ length: n }, () => c % 2 ? Math.round((r() - 0.5) * 8) : (r() - 0.5) * 30);
      for (const o of settings) {
        for (let seed = 0; seed < (n > 1000 ? 3 : 20); seed++) {
          assert.strictEqual(S.draw(logits, { ...o, seed }), S.sample(logits, { ...o, seed }).id, `n ${n}, ${JSON.stringify(o)}, seed ${seed}`);
          checked++;
        }
      }
    }
  }
  const rngA = S.mulberry32(3), rngB = S.mulberry32(3);  // a shared generator moves on once a draw, as sample's does
  for (let i = 0; i < 50; i++) assert.strictEqual(S.draw(logits, { temperature: 1.2, rng: rngA }), S.sample(logits, { temperature: 1.2, rng: rngB }).id);
  assert.ok(checked > 900);
});
