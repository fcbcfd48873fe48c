// Every position's logits (opts.every, docs/js/real/engine.js): the model is causal, so position t's
// summary is the last position's logits of the prompt cut after t, summed up: the log of the
// softmax's sum, the next token's logit and the k largest (bit for bit on the wasm kernels, which read
// a prompt at once or token by token alike; within the JS kernels' rounding otherwise). A bad k is
// one line.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { randomLlamaData, splitModel } = require("./random-llama.js");

const data = randomLlamaData({ vocab: 61, seed: 31, scale: 0.8, n_ctx: 64, quantised: true });
const model = (kernels) => splitModel(data.manifest, data.buffer, 1, kernels === "wasm" ? require("./real-scripts.js").kernelsWasm() : null).model;
const lse = (a) => { const m = Math.max(...a); return m + Math.log(a.reduce((s, v) => s + Math.exp(v - m), 0)); };

for (const kernels of ["js", "wasm"]) {
  test(`each position's summary is the last position's logits of the prompt cut there (${kernels} kernels)`, async () => {
    const ids = [3, 14, 15, 9, 26, 5, 35, 8, 9, 7, 12];
    const tol = kernels === "wasm" ? 0 : 1e-5;
    const out = await model(kernels).prefill(ids, { every: 3 });
    assert.equal(out.every.lse.length, ids.length);
    for (let t = 0; t < ids.length; t++) {
      const cut = (await model(kernels).prefill(ids.slice(0, t + 1), {})).logits;
      assert.ok(Math.abs(out.every.lse[t] - lse(Array.from(cut))) <= tol + 1e-9, `position ${t}: lse`);
      if (t + 1 < ids.length) assert.ok(Math.abs(out.every.next[t] - cut[ids[t + 1]]) <= tol, `position ${t}: the next token's logit`);
      else assert.ok(Number.isNaN(out.every.next[t]));
      const order = Array.from(cut.keys()).sort((a, b) => cut[b] - cut[a] || a - b).slice(0, 3);
      assert.deepEqual(Array.from(out.every.top.slice(3 * t, 3 * t + 3)), order, `position ${t}: top 3`);
      order.forEach((id, i) => assert.ok(Math.abs(out.every.topLogits[3 * t + i] - cut[id]) <= tol));
    }
    const plain = await model(kernels).prefill(ids, {});
    assert.deepEqual(Array.from(out.logits), Array.from(plain.logits), "the last position's logits keep every bit");
  });
}

test("every position under a knock-out is the knocked-out run's", async () => {
  const ids = [4, 8, 15, 16, 23, 42];
  const knockout = { heads: [[0, 1]], mlp: [1] };
  const out = await model("wasm").prefill(ids, { every: 1, knockout });
  const cut = await model("wasm").prefill(ids.slice(0, 4), { knockout });
  assert.equal(out.every.next[3], cut.logits[ids[4]]);
  const plain = await model("wasm").prefill(ids, { every: 1 });
  assert.notEqual(out.every.next[3], plain.every.next[3]);
});

test("a prefill asking for every position keeps no cached positions", async () => {
  const m = model("js");
  await m.prefill([1, 2, 3, 4], {});
  const out = await m.prefill([1, 2, 3, 4, 5], { every: 1, reuse: true });
  assert.equal(out.reused, undefined);
  assert.equal(out.every.lse.length, 5);
});

test("a bad number of top tokens is one line", async () => {
  for (const k of [0.5, 17, -1]) {
    await assert.rejects(model("js").prefill([1, 2, 3], { every: k }), { message: `every ${k} is not a whole number of top tokens from 1 to 16` });
  }
});
