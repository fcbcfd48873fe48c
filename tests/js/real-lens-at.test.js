// The engine's lens at a chosen position (opts.lensAt, docs/js/real/engine.js): the model is causal,
// so the lens at position p of a prompt is the last position's lens of the prompt cut after p; a
// position outside the prompt is one line.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const llama = require("./random-llama.js");

const randomLlama = () => llama.randomLlama({ vocab: 50, seed: 29, scale: 0.8, n_ctx: 64 });
const gap = (a, b) => Math.max(...Array.from(a, (v, i) => Math.abs(v - b[i])));

test("the lens at position p equals the last position's lens of the prompt cut after p", async () => {
  const ids = [3, 14, 15, 9, 26, 5, 35];
  for (const p of [0, 2, 5, 6]) {
    const at = await randomLlama().prefill(ids, { lens: true, lensAt: p });
    const cut = await randomLlama().prefill(ids.slice(0, p + 1), { lens: true });
    assert.equal(at.lens.length, cut.lens.length, `position ${p}`);
    at.lens.forEach((row, l) => assert.ok(gap(row, cut.lens[l]) < 1e-5, `position ${p}, block ${l}: ${gap(row, cut.lens[l])}`));
    assert.ok(gap(at.logits, (await randomLlama().prefill(ids, {})).logits) === 0, "the logits stay the last position's");
  }
  const other = await randomLlama().prefill(ids, { lens: true, lensAt: 1 });
  const last = await randomLlama().prefill(ids, { lens: true });
  assert.ok(gap(other.lens[other.lens.length - 1], last.lens[last.lens.length - 1]) > 1e-3);  // it did move
});

test("a pass without lens or heads asked computes neither", async () => {
  const out = await randomLlama().prefill([1, 2, 3], {});
  assert.equal(out.lens, undefined);
  assert.equal(out.heads, null);
});

test("a position outside the prompt is one line", async () => {
  for (const p of [-1, 3, 1.5]) {
    await assert.rejects(randomLlama().prefill([1, 2, 3], { lens: true, lensAt: p }), { message: `lensAt ${p} is not a position of the prompt (0-2)` });
  }
});
