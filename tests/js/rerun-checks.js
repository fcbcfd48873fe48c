// The checks of real-rerun.test.js as one function, so that a child node with relaxed SIMD (the
// fused kernels need a flag in Node 20) runs them too: each says what it found, the test what it
// should be. A knock-out reruns only the blocks from the first it changes (engine.js, opts.keep),
// and every output has the bits of a full pass with that knock-out.
"use strict";
const { bits, randomLlamaData, splitModel } = require("./random-llama.js");

const LAYERS = 5;

async function rerunChecks(wasm, shares) {
  const { manifest, buffer } = randomLlamaData({ vocab: 101, seed: 9, scale: 0.6, n_ctx: 128, quantised: true, layers: LAYERS });
  const model = () => splitModel(manifest, buffer, shares, wasm).model;
  const ids = Array.from({ length: 40 }, (_, i) => (i * 31 + 3) % 101);  // from 16 tokens, 2 shares split attention too
  const show = { heads: true, lens: true, residuals: true, final: true };
  const full = async (knockout, extra = {}, tokens = ids) => bits(await model().prefill(tokens, { ...show, ...extra, knockout }));
  const m = model(), found = { kernels: m.kernels };
  await m.prefill(ids, { ...show, keep: true, reuse: true });
  // each knock-out after the one before it, named by the first block it changes
  const steps = [
    ["block 3", { heads: [[3, 1]] }],
    ["block 1", { heads: [[3, 1]], mlp: [1] }],
    ["block 4, the last", { heads: [[3, 1], [4, 0]], mlp: [1] }],
    ["the same parts in another order", { heads: [[4, 0], [3, 1]], mlp: [1, 1] }],
    ["block 1, all parts back on", {}],
    ["block 0", { mlp: [0] }],
  ];
  for (const [name, knockout] of steps) {
    let ticks = 0;
    const got = await m.prefill(ids, { ...show, keep: true, reuse: true, knockout }, async () => { ticks++; });
    found[name] = { from: got.from, reused: got.reused, blocks: ticks - 1, same: bits(got).equals(await full(knockout)) };
  }
  // the lens at another position: its residuals come from the kept inputs, its rows before the rerun from the last lens
  const at = { ...show, lensAt: 10, keep: true, reuse: true }, ko = { heads: [[2, 2]], mlp: [0] }, ko2 = { heads: [[2, 2]], mlp: [0, 3] };
  const moved = await m.prefill(ids, { ...at, knockout: ko });
  const lens = await m.prefill(ids, { ...at, knockout: ko2 });
  found["the lens moved to position 10"] = { from: moved.from, same: bits(moved).equals(await full(ko, { lensAt: 10 })) };
  found["the lens at position 10"] = { from: lens.from, same: bits(lens).equals(await full(ko2, { lensAt: 10 })) };
  // the slot then continues as a prompt read with that knock-out would
  const next = await m.decode(7, show), want = await model().prefill(ids.concat([7]), { ...show, knockout: ko2 });
  found["a decode step after a rerun"] = Math.max(...next.logits.map((v, i) => Math.abs(v - want.logits[i])));

  // A rerun stopped after two of its blocks: those keep the new knock-out's pass, the next rerun
  // starts no later than the block it stopped at, and a copy of the slot runs the whole prompt.
  const c = model();
  await c.prefill(ids, { keep: true, reuse: true });
  let n = 0;
  try {
    await c.prefill(ids, { keep: true, reuse: true, knockout: { heads: [[1, 0]] } }, async () => { if (++n === 2) throw new Error("cancelled"); });
  } catch (err) {
    found["a stopped rerun"] = err.message;
  }
  found["a decode step in the stopped slot"] = await c.decode(5, {}).then(() => "ran", (err) => err.message);
  c.copySlot(0, 3);
  const copy = await c.prefill(ids, { ...show, slot: 3, reuse: true, knockout: { heads: [[1, 0]] } });
  found["its copy"] = { reused: copy.reused, same: bits(copy).equals(await full({ heads: [[1, 0]] })) };
  const after = await c.prefill(ids, { ...show, keep: true, reuse: true, knockout: { heads: [[1, 0]], mlp: [4] } });
  found["the rerun after it"] = { from: after.from, same: bits(after).equals(await full({ heads: [[1, 0]], mlp: [4] })) };

  // A copy that keeps the inputs reruns beside its source, which is left as it was.
  const s = model();
  await s.prefill(ids, { ...show, keep: true, reuse: true });
  s.copySlot(0, 5, { keep: true });
  const side = await s.prefill(ids, { ...show, keep: true, reuse: true, slot: 5, knockout: { heads: [[2, 3]] } });
  const source = await s.prefill(ids, { ...show, keep: true, reuse: true });
  found["a kept copy"] = { from: side.from, same: bits(side).equals(await full({ heads: [[2, 3]] })),
                           source: source.reused, sourceSame: bits(source).equals(await full({})) };
  return found;
}

module.exports = { rerunChecks, LAYERS };
