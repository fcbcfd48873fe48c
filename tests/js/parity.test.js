// Parity: the JS forward pass against every PyTorch trace in site_data/tiny/traces.json.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const { runtime, siteData, maxDiff, model, tokenizer } = require("./load.js");

const TOL = 1e-5;
const traces = siteData("traces");
const m = model();
const tk = tokenizer();
const TOP = ["wte", "wpe", "x", "ln_f", "logits", "probs"];
const perKey = {};  // largest difference per intermediate over every trace, printed at the end

function compare(name, ref) {
  const js = m.forward(ref.ids);
  const worst = {};
  for (const k of TOP) worst[k] = maxDiff(js[k], ref[k], k);
  ref.h.forEach((blk, l) => { for (const k of Object.keys(blk)) worst[`h${l}.${k}`] = maxDiff(js.h[l][k], blk[k], k); });
  for (const [k, v] of Object.entries(worst)) perKey[k] = Math.max(perKey[k] || 0, v);
  const largest = Math.max(...Object.values(worst));
  console.log(`# ${name}: largest difference ${largest.toExponential(2)} (tolerance ${TOL}) over ${Object.keys(worst).length} intermediates`);
  for (const [k, v] of Object.entries(worst)) assert.ok(v <= TOL, `${name}: ${k} differs by ${v}`);
  return largest;
}

test("every traced prompt: tokens, ids and every intermediate match PyTorch", () => {
  let overall = 0;
  for (const t of traces.traces) {
    const enc = tk.encode(t.prompt);
    assert.ok(enc.ok, t.prompt);
    assert.deepStrictEqual(enc.ids, t.ids);
    assert.deepStrictEqual(enc.tokens, t.tokens);
    overall = Math.max(overall, compare(JSON.stringify(t.prompt), t));
  }
  console.log(`# all prompts: largest difference ${overall.toExponential(2)}`);
});

test("the sliding-window reference (last n_ctx tokens of a long prompt) matches PyTorch", () => {
  const s = traces.sliding;
  const enc = tk.encode(s.prompt);
  assert.deepStrictEqual(enc.ids, s.ids);
  assert.ok(enc.ids.length > m.config.n_ctx, "the sliding prompt must overflow the window");
  assert.deepStrictEqual(enc.ids.slice(-m.config.n_ctx), s.window.ids);
  assert.strictEqual(s.window_start, enc.ids.length - m.config.n_ctx);
  compare("sliding window", s.window);
});

test("the lean logits path equals the traced forward", () => {
  for (const t of traces.traces) {
    const lean = m.logits(t.ids), V = m.config.vocab_size;
    const rows = t.ids.map((_, i) => Array.from(lean.subarray(i * V, (i + 1) * V)));
    assert.ok(maxDiff(rows, t.logits, "logits") <= TOL);
  }
});

test("greedy continuations match PyTorch's full recomputation, with and without the cache", () => {
  for (const useCache of [true, false]) {
    for (const g of traces.greedy) {
      const out = runtime.kvcache.generate(m, tk.encode(g.prompt).ids, { maxNew: g.steps.length, useCache });
      assert.deepStrictEqual(out.steps.map((s) => s.id), g.steps.map((s) => s.id), g.prompt);
      assert.strictEqual(tk.decode(out.ids), g.text);
      const probs = out.steps.map((s) => runtime.sampling.softmax(s.logits, 1)[s.id]);
      const d = maxDiff(probs, g.steps.map((s) => s.prob), "greedy prob");
      perKey["greedy.prob"] = Math.max(perKey["greedy.prob"] || 0, d);
      assert.ok(d <= TOL, `${g.prompt}: greedy probabilities differ by ${d}`);
    }
  }
});

test("largest difference per key over every trace", () => {
  assert.ok(Object.keys(perKey).length > TOP.length, "the tests above compared the traces");
  for (const [k, v] of Object.entries(perKey)) console.log(`# ${k}: ${v.toExponential(2)}`);
});
