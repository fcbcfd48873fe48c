// A prefill that reuses its slot's cache (engine.js, opts.reuse): the panel reruns the prompt at every
// keystroke and the writers start from the panel's pass, so only the tokens after the common prefix
// run. The outputs are a fresh prefill's (bit for bit on the wasm kernels, which read a prompt at
// once or token by token alike; within the JS kernels' rounding otherwise), and nothing is kept that
// would change them: another knock-out, a changed token, the lens's position.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { bits, randomLlamaData, splitModel } = require("./random-llama.js");

const data = randomLlamaData({ vocab: 101, seed: 5, scale: 0.6, n_ctx: 128, quantised: true });
const model = (kernels) => splitModel(data.manifest, data.buffer, 1, kernels === "wasm" ? require("./real-scripts.js").kernelsWasm() : null).model;

const gap = (a, b) => Math.max(...Array.from(a, (v, i) => Math.abs(v - b[i])));

const prompt = Array.from({ length: 40 }, (_, i) => (i * 29 + 11) % 101);

for (const kernels of ["js", "wasm"]) {
  test(`a prompt that extends the cached one runs only its new tokens, with a fresh prefill's outputs (${kernels} kernels)`, async () => {
    const m = model(kernels);
    assert.equal(m.kernels, kernels);
    const opts = { heads: true, lens: true, final: true, knockout: { heads: [[1, 2]] }, reuse: true };
    const first = await m.prefill(prompt.slice(0, 33), opts);
    assert.equal(first.reused, undefined, "an empty slot keeps nothing");
    const longer = prompt.slice(0, 33).concat([7, 8, 9]);
    const got = await m.prefill(longer, opts);
    assert.equal(got.reused, 33);
    assert.equal(got.length, 36);
    const want = await model(kernels).prefill(longer, Object.assign({}, opts, { reuse: false }));
    if (kernels === "wasm") assert.ok(bits(got).equals(bits(want)), "every output");
    else for (const k of ["logits", "final"]) assert.ok(gap(got[k], want[k]) < 1e-5, k);
    assert.equal(got.heads[0].length, want.heads[0].length, "the last position's weights over every key");
    // and the slot then decodes as a fresh prefill of the longer prompt would
    const next = await m.decode(4, {});
    const after = await model(kernels).prefill(longer.concat([4]), { knockout: opts.knockout });
    assert.ok(gap(next.logits, after.logits) < (kernels === "wasm" ? 1e-30 : 1e-5));
  });
}

test("a changed token, the same prompt, a shorter one: what is kept stops at the first difference, short of the last token", async () => {
  const m = model("wasm");
  await m.prefill(prompt, { reuse: true });
  const edited = prompt.slice();
  edited[20] = (edited[20] + 1) % 101;  // a character changed mid-prompt
  assert.equal((await m.prefill(edited, { reuse: true })).reused, 20);
  assert.equal((await m.prefill(edited, { reuse: true })).reused, 39, "the same prompt again: its last token runs");
  const shorter = await m.prefill(edited.slice(0, 25), { reuse: true });
  assert.equal(shorter.reused, 24);
  assert.ok(bits(shorter).equals(bits(await model("wasm").prefill(edited.slice(0, 25), {}))));
  assert.equal((await m.prefill(edited.slice(0, 25), {})).reused, undefined, "without reuse the cache is forgotten");
});

test("another knock-out, or a lens before the kept positions, runs what it must", async () => {
  const m = model("wasm");
  await m.prefill(prompt, { reuse: true });
  const ko = { heads: [[0, 1]], mlp: [] };
  const a = await m.prefill(prompt, { reuse: true, knockout: ko });
  assert.equal(a.reused, undefined, "the cache was made without the knock-out");
  assert.ok(bits(a).equals(bits(await model("wasm").prefill(prompt, { knockout: ko }))));
  const lens = { reuse: true, knockout: ko, lens: true, lensAt: 10 };
  const b = await m.prefill(prompt, lens);
  assert.equal(b.reused, 10);
  assert.ok(bits(b).equals(bits(await model("wasm").prefill(prompt, { knockout: ko, lens: true, lensAt: 10 }))));
  await assert.rejects(m.prefill(prompt, { reuse: true, knockout: ko, lens: true, lensAt: 40 }), { message: "lensAt 40 is not a position of the prompt (0-39)" });
});

test("a cancelled reusing prefill keeps the prefix it reused, and a copied slot carries its tokens", async () => {
  const m = model("wasm");
  await m.prefill(prompt.slice(0, 30), { reuse: true });
  let blocks = 0;
  const cancel = async () => { if (++blocks === 2) throw new Error("cancelled"); };
  await assert.rejects(m.prefill(prompt, { reuse: true }, cancel), { message: "cancelled" });
  assert.equal(m.length, 30);
  const again = await m.prefill(prompt, { reuse: true });
  assert.equal(again.reused, 30);
  assert.ok(bits(again).equals(bits(await model("wasm").prefill(prompt, {}))));
  m.copySlot(0, 4);
  const forked = await m.prefill(prompt.concat([1]), { reuse: true, slot: 4 });
  assert.equal(forked.reused, 40);
});
