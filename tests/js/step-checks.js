// The checks of real-step.test.js as one function, so that a child node with relaxed SIMD runs them
// too: one step of several slots at once (engine.js step, the writers' and beams' tokens together)
// against each slot's own decode, copies that share the prompt's pages, and what a step refuses.
"use strict";
const { engine, randomLlamaData, splitModel } = require("./random-llama.js");

const same = (a, b) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
const gap = (a, b) => Math.max(...Array.from(a, (v, i) => Math.abs(v - b[i])));

async function stepChecks(wasm, shares) {
  const { manifest, buffer } = randomLlamaData({ vocab: 101, seed: 13, scale: 0.6, n_ctx: 256, quantised: true, layers: 3 });
  const model = () => splitModel(manifest, buffer, shares, wasm).model;
  const prompt = Array.from({ length: 37 }, (_, i) => (i * 17 + 2) % 101);  // two full pages and part of a third
  // slot 5's knock-out gives one head a mean (one set for every position) and the MLP a value per position
  const per = Float32Array.from({ length: 64 * 80 }, (_, i) => Math.sin(i) * 0.3);
  const knockout = { heads: [[1, 2], [0, 3]], mlp: [2], values: { "h.1.2": Float32Array.from({ length: 16 }, (_, i) => (i - 8) / 20), "m.2": per } };
  const m = model(), found = { kernels: m.kernels };
  // a prompt in slot 1, copied to slots 2-4 (sharing its pages), each then writing its own text;
  // slot 5 holds another text under a knock-out
  await m.prefill(prompt, { slot: 1 });
  for (const s of [2, 3, 4]) m.copySlot(1, s);
  found["copies share the prompt's pages"] = [2, 3, 4].every((s) => m.state(s).kv.every((list, l) => list.every((pg, i) => pg === m.state(1).kv[l][i])))
    && m.state(1).kv[0][0].refs === 4;
  await m.prefill(prompt.slice(0, 9), { slot: 5, knockout });
  // the same steps decoded one slot at a time, in a model of their own
  const d = model();
  await d.prefill(prompt, { slot: 1 });
  for (const s of [2, 3, 4]) d.copySlot(1, s);
  await d.prefill(prompt.slice(0, 9), { slot: 5, knockout });
  let worst = 0, bits = true;
  const steps = [[[1, 5], [2, 6], [3, 7], [5, 8]], [[1, 9], [3, 10], [4, 11], [5, 12], [2, 13]], [[4, 14]]];
  for (let k = 0; k < 40; k++) steps.push([[1, k % 101], [2, (k + 3) % 101], [5, (k + 7) % 101]]);  // past the cache's first pages
  for (const list of steps) {
    const got = await m.step(list);
    for (let i = 0; i < list.length; i++) {
      const want = await d.decode(list[i][1], { slot: list[i][0] });
      bits = bits && same(got[i].logits, want.logits) && got[i].length === want.length;
      worst = Math.max(worst, gap(got[i].logits, want.logits));
    }
  }
  found["steps against decodes"] = { bits, small: worst < 1e-5 };
  found["the prompt's first page is still shared"] = m.state(3).kv[0][0] === m.state(4).kv[0][0] && m.state(3).kv[0][0] === m.state(1).kv[0][0];
  // a fork in the middle of a text, carried by the step that reads it (opts.copies, made before any
  // row runs): the copy continues as its source would have
  const [a, b] = await m.step([[6, 40], [2, 41]], { copies: [[2, 6]] });
  const fresh = async (slot, id) => { const x = model(); await x.prefill(m.state(slot).ids.slice(0, -1), {}); return x.decode(id, {}); };
  found["a fork and its source"] = gap(a.logits, (await fresh(6, 40)).logits) < 1e-5 && gap(b.logits, (await fresh(2, 41)).logits) < 1e-5;
  // refused in one line, every slot left as it was
  const lengths = [1, 2, 3, 4, 5].map((s) => m.state(s).length);
  const refuse = (list) => m.step(list).then(() => "ran", (e) => e.message);
  found.refused = [await refuse([]), await refuse([[1, 3], [1, 4]]), await refuse([[7, 3]]), await refuse([[1, 101]]), await refuse([[9, 1]]),
    await m.step([[1, 3]], { copies: [[1, 8]] }).then(() => "ran", (e) => e.message),
    await m.step([[1, 3], [2, 4]], {}, async () => { throw new engine.Cancelled(); }).then(() => "ran", (e) => e.message)];
  found["every slot as it was"] = [1, 2, 3, 4, 5].every((s, i) => m.state(s).length === lengths[i]);
  // One block, so the kernels' attention room still holds its pages when the block comes again: a
  // prompt edited after its fifth token rewrites positions the room holds (load reads the pages' versions).
  const one = randomLlamaData({ vocab: 101, seed: 13, scale: 0.6, n_ctx: 64, quantised: true, layers: 1 });
  const o = splitModel(one.manifest, one.buffer, shares, wasm).model, edited = prompt.slice(0, 5).concat([9, 9, 9, 9, 9]);
  await o.prefill(prompt.slice(0, 10), { reuse: true });
  const again = await o.prefill(edited, { reuse: true });
  const whole = await splitModel(one.manifest, one.buffer, shares, wasm).model.prefill(edited, {});
  // (the plain-JS kernels read a reused prompt's last tokens block by block, a whole prompt's rows: within rounding)
  found["a rewritten page is read again"] = { reused: again.reused,
    same: o.kernels === "js" ? gap(again.logits, whole.logits) < 1e-5 : same(again.logits, whole.logits) };
  return found;
}

module.exports = { stepChecks };
