// Bad input: every odd setting gives a defined result or a clear error, never NaN.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const { runtime, model, tokenizer } = require("./load.js");

const m = model();
const tk = tokenizer();
const logits = m.forward(tk.encode("the dog").ids).logits[1];
const V = m.config.vocab_size;
const finite = (xs) => xs.every((x) => Number.isFinite(x));

test("empty and unknown prompts are errors, not throws", () => {
  for (const text of ["", "The Cat!", "the 🐈", "naïve", "<img src=x onerror=alert(1)>", "a\nb"]) {
    const r = tk.encode(text);
    assert.strictEqual(r.ok, false, text);
    assert.ok(r.error.message.length > 20);
  }
  assert.throws(() => m.forward([]), RangeError);
  assert.throws(() => m.forward([999]), RangeError);
});

test("extreme temperatures stay finite and sum to 1", () => {
  for (const T of [0, 1e-6, 1e-300, 1, 100, 1e6]) {
    const v = runtime.sampling.validate({ temperature: T }, V).opts;
    const p = runtime.sampling.softmax(logits, v.temperature);
    assert.ok(finite(p), `T=${T}`);
    assert.ok(Math.abs(p.reduce((a, b) => a + b, 0) - 1) < 1e-9, `T=${T}`);
  }
  const tiny = runtime.sampling.softmax(logits, 1e-6);
  assert.strictEqual(tiny.indexOf(1), logits.indexOf(Math.max(...logits)));
  const flat = runtime.sampling.softmax(logits, 100);
  assert.ok(Math.max(...flat) - Math.min(...flat) < 0.2);
});

test("top-k 0 or above the vocabulary, top-p 0 and 1, and junk settings are defined", () => {
  const probs = runtime.sampling.softmax(logits, 1);
  assert.strictEqual(runtime.sampling.filter(probs, { topK: 0 }).kept.length, V);
  assert.strictEqual(runtime.sampling.filter(probs, { topK: V + 50 }).kept.length, V);
  assert.strictEqual(runtime.sampling.filter(probs, { topP: 0 }).kept.length, 1);
  assert.strictEqual(runtime.sampling.filter(probs, { topP: 1 }).kept.length, V);
  const v = runtime.sampling.validate({ temperature: "hot", topK: -3, topP: 7, seed: "x" }, V);
  assert.strictEqual(v.warnings.length, 4);
  assert.deepStrictEqual(v.opts, { temperature: 1, topK: 0, topP: 1, seed: 1 });
  const big = runtime.sampling.validate({ topK: V + 1 }, V);
  assert.strictEqual(big.opts.topK, 0);
  assert.ok(big.warnings[0].includes(String(V)));
  for (const opts of [{ temperature: 0 }, { temperature: 1e-6 }, { temperature: 100 }, { topK: 0 }, { topK: 1000 }, { topP: 0 }, { topP: 1 }, { temperature: NaN }]) {
    const s = runtime.sampling.sample(logits, opts);
    assert.ok(s.id >= 0 && s.id < V, JSON.stringify(opts));
    assert.ok(finite(s.probs));
  }
});

test("generation from an empty prompt is a RangeError a demo can catch", () => {
  assert.throws(() => runtime.kvcache.generate(m, [], { maxNew: 3 }), RangeError);
});

test("malformed model data is a TypeError that names the tensor or setting, not NaN later", () => {
  const { data } = require("./load.js");
  const broken = (edit) => { const w = JSON.parse(JSON.stringify(data["tiny-model"].weights)); edit(w); return w; };
  const cases = [
    [broken((w) => w.h[0].attn.c_attn.weight[3].pop()), /weights\.h\[0\]\.attn\.c_attn\.weight\[3\]: expected/],
    [broken((w) => { w.wte[2][1] = null; }), /weights\.wte\[2\]\[1\] is null/],
    [broken((w) => { delete w.h[0].mlp; }), /weights\.h\[0\]\.mlp is missing/],
  ];
  for (const [weights, message] of cases) assert.throws(() => m.withWeights(weights), (e) => e instanceof TypeError && message.test(e.message));
  const cfg = Object.assign({}, data["tiny-model"].config.model, { n_head: 3 });
  assert.throws(() => runtime.model.create({ config: cfg, weights: data["tiny-model"].weights }), /split evenly/);
});

test("a seed below 0, with a fraction or too large is said, never silently folded into another seed", () => {
  for (const [seed, used] of [[-1, 0], [-7, 0], [2.5, 2], [2 ** 32, 4294967295]]) {
    const v = runtime.sampling.validate({ seed }, V);
    assert.strictEqual(v.opts.seed, used, String(seed));
    assert.strictEqual(v.warnings.length, 1, String(seed));
    assert.match(v.warnings[0], /^A seed is a whole number from 0 to 4,294,967,295; \S+ is not one, so seed \d+ is used\.$/);
  }
  assert.ok(v0(0) && v0(1) && v0(4294967295));
  function v0(seed) { const v = runtime.sampling.validate({ seed }, V); return v.warnings.length === 0 && v.opts.seed === seed; }
});
