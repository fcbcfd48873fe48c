// KV cache: cached decoding gives the same logits as full recomputation at every step.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const { runtime, siteData, maxDiff, model, tokenizer } = require("./load.js");

const m = model();
const tk = tokenizer();
const TOL = 1e-9;

test("prefill then one row a step equals recomputing everything", () => {
  const ids = tk.encode("the cat sat on the mat.").ids;
  const cache = runtime.kvcache.createCache(m);
  let worst = 0;
  const first = cache.prefill(ids.slice(0, 2));
  worst = Math.max(worst, maxDiff(first.logits, m.forward(ids.slice(0, 2)).logits[1], "prefill"));
  for (let t = 2; t < ids.length; t++) {
    const step = cache.step(ids[t]);
    assert.strictEqual(step.rows, 1);
    assert.strictEqual(cache.length, t + 1);
    const full = m.forward(ids.slice(0, t + 1)).logits[t];
    worst = Math.max(worst, maxDiff(step.logits, full, `step ${t}`));
    const cached = runtime.kvcache.stepWithoutCache(m, ids.slice(0, t + 1));
    worst = Math.max(worst, maxDiff(cached.logits, full, `no-cache ${t}`));
    assert.ok(step.ops < cached.ops, "a cached step does less work");
  }
  console.log(`# cached vs full recomputation: largest difference ${worst.toExponential(2)} (tolerance ${TOL})`);
  assert.ok(worst <= TOL);
});

test("the cache holds the keys the full forward computes", () => {
  const ids = tk.encode("the dog sat on").ids;
  const cache = runtime.kvcache.createCache(m);
  cache.prefill(ids);
  const tr = m.forward(ids);
  assert.ok(maxDiff(cache.k[0], tr.h[0].k, "k") <= TOL);
  assert.ok(maxDiff(cache.v[0], tr.h[0].v, "v") <= TOL);
});

test("both lanes write the same text; without a cache the rows grow, with one they stay at one", () => {
  const prompt = tk.encode("the cat").ids;
  const a = runtime.kvcache.generate(m, prompt, { maxNew: 6, useCache: false });
  const b = runtime.kvcache.generate(m, prompt, { maxNew: 6, useCache: true });
  assert.deepStrictEqual(a.steps.map((s) => s.id), b.steps.map((s) => s.id));
  a.steps.forEach((s, i) => assert.strictEqual(s.rows, prompt.length + i));
  b.steps.forEach((s, i) => assert.strictEqual(s.rows, i === 0 ? prompt.length : 1));
  const total = (g) => g.steps.reduce((x, s) => x + s.ops, 0);
  console.log(`# 'the cat' ${b.steps.length} steps: ${total(a)} multiply-adds without a cache, ${total(b)} with`);
  assert.ok(total(b) < total(a));
  for (let i = 0; i < a.steps.length; i++) assert.ok(maxDiff(a.steps[i].logits, b.steps[i].logits, "lanes") <= TOL);
});

test("past n_ctx the window slides, the cache is rebuilt, and it matches PyTorch on the last 8 tokens", () => {
  const s = siteData("traces").sliding;
  const n = m.config.n_ctx;
  const prompt = s.ids.slice(0, n);
  const forced = s.ids.slice(n);  // teacher-force the rest of the long prompt through the loop
  const g = runtime.kvcache.generate(m, prompt, { maxNew: forced.length + 1, useCache: true, pick: (_, i) => (i < forced.length ? forced[i] : 0) });
  const last = g.steps[g.steps.length - 1];
  assert.deepStrictEqual(last.window, s.window.ids);
  assert.strictEqual(last.windowStart, s.window_start);
  assert.ok(last.rebuilt && last.slid);
  assert.ok(g.steps.slice(1).every((st) => st.rebuilt), "every step after the window is full rebuilds");
  const worst = maxDiff(last.logits, s.window.logits[n - 1], "slide");
  console.log(`# sliding window vs PyTorch on the last ${n} tokens: ${worst.toExponential(2)}`);
  assert.ok(worst <= 1e-5);
  const plain = runtime.kvcache.generate(m, prompt, { maxNew: forced.length + 1, useCache: false, pick: (_, i) => (i < forced.length ? forced[i] : 0) });
  assert.ok(maxDiff(plain.steps[plain.steps.length - 1].logits, last.logits, "lanes") <= TOL);
});

test("a 50-token prompt keeps only the last n_ctx tokens", () => {
  const ids = Array.from({ length: 50 }, (_, i) => tk.encode("the cat sat on the mat.").ids[i % 7]);
  assert.throws(() => m.forward(ids), RangeError);
  const g = runtime.kvcache.generate(m, ids, { maxNew: 3, useCache: true });
  assert.strictEqual(g.steps[0].window.length, m.config.n_ctx);
  assert.strictEqual(g.steps[0].windowStart, 50 - m.config.n_ctx);
  g.steps.forEach((s) => s.logits.forEach((x) => assert.ok(Number.isFinite(x))));
});

test("a full cache refuses another row with a clear error", () => {
  const cache = runtime.kvcache.createCache(m);
  cache.prefill(Array(m.config.n_ctx).fill(1));
  assert.throws(() => cache.step(1), /cache is full/);
});

test("each step holds its cache's rows: the same numbers in both lanes, all recomputed without a cache", () => {
  const prompt = tk.encode("the cat").ids;
  const a = runtime.kvcache.generate(m, prompt, { maxNew: 5, useCache: false });
  const b = runtime.kvcache.generate(m, prompt, { maxNew: 5, useCache: true });
  a.steps.forEach((s, i) => {
    const tr = m.forward(s.window);
    for (const [lane, st] of [["no cache", s], ["cache", b.steps[i]]]) {
      assert.strictEqual(st.k[0][0].length, s.window.length, `${lane} step ${i}: one row per position`);
      assert.ok(maxDiff(st.k[0], tr.h[0].k, `${lane} k`) <= TOL);
      assert.ok(maxDiff(st.v[0], tr.h[0].v, `${lane} v`) <= TOL);
    }
  });
  // the cache lane's earlier rows are the very numbers it kept: step i's rows are step i-1's plus one
  for (let i = 1; i < b.steps.length; i++) {
    assert.deepStrictEqual(b.steps[i].k[0][0].slice(0, -1), b.steps[i - 1].k[0][0]);
  }
});
