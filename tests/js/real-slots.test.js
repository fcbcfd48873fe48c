// The real-model engine's cache slots (docs/js/real/engine.js, opts.slot and copySlot) on a random
// 2-block llama with grouped-query attention: each slot continues its own text exactly as a fresh
// prefill of that text would, a copy forks without touching its source, knock-outs travel with the
// copy, and a bad slot or a cancelled step is one line that leaves every cache as it was.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const llama = require("./random-llama.js");
const engine = llama.engine;

const randomLlama = () => llama.randomLlama({ vocab: 50, seed: 23, scale: 0.8, n_ctx: 128 });

const gap = (a, b) => Math.max(...Array.from(a, (v, i) => Math.abs(v - b[i])));

// The logits after `ids`, from a model that has seen nothing else.
async function fresh(ids, opts = {}) {
  return (await randomLlama().prefill(ids, opts)).logits;
}

test("each slot continues its own text as a fresh prefill of that text would", async () => {
  const m = randomLlama();
  const a = [3, 14, 15, 9], b = [26, 5, 35, 8, 9, 7, 9];
  await m.prefill(a, {});
  await m.prefill(b, { slot: 1 });
  const a1 = await m.decode(2, {});  // slot 0 by default
  const b1 = await m.decode(3, { slot: 1 });
  const a2 = await m.decode(6, { slot: 0 });
  assert.equal(a2.length, 6);
  assert.equal(b1.length, 8);
  assert.ok(gap(a1.logits, await fresh([...a, 2])) < 1e-5);
  assert.ok(gap(a2.logits, await fresh([...a, 2, 6])) < 1e-5);
  assert.ok(gap(b1.logits, await fresh([...b, 3])) < 1e-5);
  // the two texts differ, so equal logits would mean the slots share a cache
  assert.ok(gap(a1.logits, b1.logits) > 1e-3);
});

test("copySlot forks a text: both branches continue exactly, the source is untouched", async () => {
  const m = randomLlama();
  const p = Array.from({ length: 70 }, (_, i) => (i * 7) % 50);  // past the first 64 positions: the copy grows its cache
  await m.prefill(p, { slot: 3 });
  await m.prefill([1, 2], { slot: 4 });  // a shorter text in the target, which the copy replaces
  assert.deepEqual(m.copySlot(3, 4), { length: 70 });
  const x = await m.decode(11, { slot: 4 });
  const y = await m.decode(12, { slot: 3 });
  assert.ok(gap(x.logits, await fresh([...p, 11])) < 1e-5);
  assert.ok(gap(y.logits, await fresh([...p, 12])) < 1e-5);
  // copying back over a longer slot: slot 3 becomes slot 4's text, which then grows on its own
  m.copySlot(4, 3);
  const z = await m.decode(13, { slot: 3 });
  const w = await m.decode(14, { slot: 4 });
  assert.ok(gap(z.logits, await fresh([...p, 11, 13])) < 1e-5);
  assert.ok(gap(w.logits, await fresh([...p, 11, 14])) < 1e-5);
});

test("a copy keeps the source's knock-out; the current slot stays current", async () => {
  const m = randomLlama();
  const knockout = { heads: [[1, 2]], mlp: [0] };
  await m.prefill([4, 8, 15], { slot: 2, knockout });
  await m.prefill([16, 23], {});
  m.copySlot(2, 5);
  assert.equal(m.slot, 0);
  const k = await m.decode(42 % 50, { slot: 5 });
  assert.ok(gap(k.logits, await fresh([4, 8, 15, 42], { knockout })) < 1e-5);
  assert.ok(gap(k.logits, await fresh([4, 8, 15, 42])) > 1e-3);
  const plain = await m.decode(42, {});
  assert.ok(gap(plain.logits, await fresh([16, 23, 42])) < 1e-5);
});

test("a bad slot is one line; an empty slot cannot decode; a cancel rolls back only its slot", async () => {
  const m = randomLlama();
  const bad = [[8, "cache slot 8 is not 0-7"], [-1, "cache slot -1 is not 0-7"], [1.5, "cache slot 1.5 is not 0-7"], ["2", "cache slot 2 is not 0-7"]];
  for (const [slot, message] of bad) {
    await assert.rejects(m.prefill([1], { slot }), { message });
    await assert.rejects(m.decode(1, { slot }), { message });
    assert.throws(() => m.copySlot(0, slot), { message });
  }
  await assert.rejects(m.decode(1, { slot: 6 }), { message: "decode needs a prefilled prompt first in cache slot 6" });
  m.copySlot(6, 7);  // an empty slot copies as empty
  await assert.rejects(m.decode(1, { slot: 7 }), { message: "decode needs a prefilled prompt first in cache slot 7" });
  await m.prefill([9, 9, 9], { slot: 1 });
  await m.prefill([5], { slot: 2 });
  await assert.rejects(m.decode(3, { slot: 1 }, async () => { throw new engine.Cancelled(); }), { message: "cancelled" });
  const after = await m.decode(4, { slot: 1 });
  assert.equal(after.length, 4);
  assert.ok(gap(after.logits, await fresh([9, 9, 9, 4])) < 1e-5);
  assert.equal((await m.decode(6, { slot: 2 })).length, 2);
});
