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

// The inside view's default colouring asks every pass for the heads' kinds (every query's attention),
// and its direct view for each part's direct share (the last position's): the panel's slot (opts.keep)
// keeps each query's kind sums, so a typed token still runs only the new queries.
test("the heads' kinds and direct shares in a keeping slot: a reuse runs only the new queries, with a fresh pass's bits", async () => {
  const buf = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  const labBits = (o) => Buffer.concat([bits(o), ...o.kinds.map(buf), ...[o.direct.embedding, ...o.direct.heads, ...o.direct.mlp].map(buf),
    Buffer.from(Float64Array.of(o.direct.scale).buffer)]);
  const show = { heads: true, lens: true, final: true, kinds: true, direct: true };
  const lab = { ...show, keep: true, reuse: true };
  const fresh = async (tokens, knockout) => labBits(await model("wasm").prefill(tokens, { ...show, knockout }));
  const text = [3, 14, 15, 92, 65, 35, 89, 79, 32, 38, 46, 26].flatMap((t, i, a) => [t, a[(i * 5) % a.length]]).concat([3, 14, 15, 92, 65, 35, 89, 79, 32, 38, 46, 26, 43, 38, 32, 79]);
  const m = model("wasm"), found = {};
  const run = async (name, tokens, opts, knockout) => {
    const got = await m.prefill(tokens, { ...opts, knockout });
    found[name] = { reused: got.reused, from: got.from, same: labBits(got).equals(await fresh(tokens, knockout)) };
  };
  await run("the first pass", text.slice(0, 20), lab);
  await run("four tokens typed", text.slice(0, 24), lab);
  const edited = text.slice(0, 24);
  edited[15] = (edited[15] + 1) % 101;
  await run("a token changed", edited, lab);
  const plain = await m.prefill(text.slice(0, 30), { ...lab, kinds: false });  // the view scrolled away: no kinds asked
  found["a pass without the kinds"] = plain.reused;
  await run("the kinds again: only the queries whose sums were kept", text.slice(0, 32), lab);
  let blocks = 0;
  await assert.rejects(m.prefill(text.slice(0, 36), lab, async () => { if (++blocks === 1) throw new Error("cancelled"); }), { message: "cancelled" });
  await run("after a stopped pass", text.slice(0, 36), lab);
  await run("a knock-out's rerun", text.slice(0, 36), lab, { heads: [[1, 2]] });
  await run("a token typed after it", text.slice(0, 37), lab, { heads: [[1, 2]] });
  const other = model("wasm");  // a slot that does not keep: no sums, the whole prompt runs
  await other.prefill(text.slice(0, 20), { ...show, reuse: true });
  const whole = await other.prefill(text.slice(0, 24), { ...show, reuse: true });
  found["a slot that does not keep"] = { reused: whole.reused, same: labBits(whole).equals(await fresh(text.slice(0, 24))) };
  await assert.rejects(other.decode(5, { kinds: true }), /the heads' kinds read every query/);
  assert.deepEqual(JSON.parse(JSON.stringify(found)), {
    "the first pass": { same: true },
    "four tokens typed": { reused: 20, same: true },
    "a token changed": { reused: 15, same: true },
    "a pass without the kinds": 15,
    "the kinds again: only the queries whose sums were kept": { reused: 15, same: true },
    "after a stopped pass": { reused: 32, same: true },
    "a knock-out's rerun": { reused: 36, from: 1, same: true },
    "a token typed after it": { reused: 36, same: true },
    "a slot that does not keep": { same: true },
  });
});
