// real.sweep and the engine's parts behind it, on a random llama: a run patched from itself or mean-
// ablated with zeros changes nothing it should not; each part's direct shares add up to the logit;
// the heads' kinds are the stated rule applied to their full patterns; the split over workers keeps
// every bit of the new outputs; a sweep reports each spec in order and stops when asked.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");
const { randomLlamaData, splitModel, engine } = require("./random-llama.js");

const ROOT = path.resolve(__dirname, "..", "..");
function defined(file) {
  let made = null;
  const nexttoken = { define: (name, needs, make) => { made = make(); } };
  vm.runInNewContext(fs.readFileSync(path.join(ROOT, file), "utf8"), { nexttoken, atob: globalThis.atob }, { filename: file });
  return made;
}
const sweep = defined("docs/js/real/sweep.js");
const IDS = [5, 17, 99, 3, 42, 64, 0, 5, 17, 99, 3, 42, 64, 0, 8, 5, 17];  // 17 tokens: repeats, and past the split's 16
const model = () => { const { manifest, buffer } = randomLlamaData({ vocab: 101, seed: 3, scale: 0.6, n_ctx: 64, quantised: true }); return new engine.Model(manifest, buffer); };

function maxGap(a, b) { let w = 0; for (let i = 0; i < a.length; i++) w = Math.max(w, Math.abs(a[i] - b[i])); return w; }

test("a run patched from its own capture, or mean-ablated with zeros, gives the plain or the zeroed logits", async () => {
  const m = model(), c = m.config;
  const plain = await m.prefill(IDS, {});
  const src = await sweep.capture(m, IDS);
  assert.equal(src.z.length, c.n_layer);
  assert.equal(src.z[0].length, IDS.length * c.n_embd);
  assert.ok(maxGap(src.logits, plain.logits) === 0);
  const every = { parts: sweep.parts(c, { attn: false }), mode: "patch" };
  const patched = await m.prefill(IDS, { knockout: sweep.knockout(every, { config: c, source: src }) });
  assert.ok(maxGap(patched.logits, plain.logits) < 1e-5, "patching every part from the same run moved the logits");
  const hd = c.n_embd / c.n_head;
  const zeros = { z: [], mlp: [] };
  for (let l = 0; l < c.n_layer; l++) { zeros.z.push(Array.from({ length: c.n_head }, () => new Float32Array(hd))); zeros.mlp.push(new Float32Array(c.n_embd)); }
  const spec = { parts: [["head", 0, 1], ["mlp", 1], ["attn", 1]] };
  const z = await m.prefill(IDS, { knockout: sweep.knockout(spec, { config: c }) });
  const mz = await m.prefill(IDS, { knockout: sweep.knockout(Object.assign({ mode: "mean" }, spec), { config: c, means: zeros }) });
  assert.ok(maxGap(z.logits, mz.logits) === 0, "a mean of zeros is not a zero knock-out");
  assert.ok(maxGap(z.logits, plain.logits) > 1e-3, "the knock-out changed nothing");
  await assert.rejects(m.prefill(IDS.concat([1]), { knockout: sweep.knockout({ parts: [["mlp", 0]], mode: "patch" }, { config: c, source: src }) }),
    { message: /holds 17 positions; this text reaches position 17/ });
  assert.throws(() => sweep.knockout({ parts: [["head", 9, 0]] }, { config: c }), /is not \["head", block 0-1/);
  assert.throws(() => sweep.knockout({ parts: [["mlp", 0]], mode: "mean" }, { config: c }), /needs the parts' means/);
});

test("each part's direct share of a logit adds up to the logit (the final norm's scale held)", async () => {
  const m = model(), c = m.config;
  const r = await m.prefill(IDS, { direct: true });
  const d = r.direct, C = c.n_embd, target = 42, row = await m.outputRow(target);
  const share = (v) => { let s = 0; for (let i = 0; i < C; i++) s += v[i] * d.gamma[i] * d.scale * row[i]; return s; };
  let total = share(d.embedding);
  for (let l = 0; l < c.n_layer; l++) {
    for (let h = 0; h < c.n_head; h++) total += share(d.heads[l].subarray(h * C, (h + 1) * C));
    total += share(d.mlp[l]);
  }
  assert.ok(Math.abs(total - r.logits[target]) < 1e-4, `${total} vs ${r.logits[target]}`);
});

test("the heads' kinds are the stated rule over their full patterns, and the last row is the last position's weights", async () => {
  const m = model(), T = IDS.length;
  const r = await m.prefill(IDS, { kinds: true, heads: true, pattern: [1, 2] });
  const p = r.pattern;
  assert.equal(p.length, T * T);
  assert.ok(maxGap(p.subarray((T - 1) * T), r.heads[1].subarray(2 * T, 3 * T)) === 0);
  const sum = [0, 0, 0, 0, 0], seen = [0, 0, 0, 0, 0];
  for (let i = 1; i < T; i++) {
    const s = [0, 0, 0, 0, 0], has = [0, 0, 0, 0, 0];
    for (let j = 0; j <= i; j++) {
      const k = j === 0 ? 0 : j === i ? 1 : j === i - 1 ? 2 : IDS[j - 1] === IDS[i] ? 3 : 4;
      s[k] += p[i * T + j]; has[k] = 1;
    }
    for (let k = 0; k < 5; k++) if (has[k]) { sum[k] += s[k]; seen[k]++; }
  }
  const want = sum.map((s, k) => s / seen[k]), got = r.kinds[1].subarray(2 * 5, 3 * 5);
  assert.ok(maxGap(want, got) < 1e-6, `${want} vs ${Array.from(got)}`);
  assert.ok(seen[3] > 0, "the prompt has no induction key");
});

test("capture, direct shares, kinds and a pattern keep every bit over 2 and 3 workers", async () => {
  const { manifest, buffer } = randomLlamaData({ vocab: 101, seed: 3, scale: 0.6, n_ctx: 64, quantised: true });
  const opts = { capture: true, direct: true, kinds: true, pattern: [0, 3], knockout: { heads: [[1, 0]], mlp: [0], values: { "m.0": new Float32Array(64).fill(0.25) } } };
  const flat = (r) => Buffer.concat([r.logits, r.pattern, ...r.parts.z, ...r.parts.mlp, ...r.direct.heads, ...r.direct.mlp, ...r.kinds].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)));
  const want = flat(await splitModel(manifest, buffer, 1).model.prefill(IDS, opts));
  for (const n of [2, 3]) assert.ok(flat(await splitModel(manifest, buffer, n).model.prefill(IDS, opts)).equals(want), `${n} workers`);
});

test("a sweep runs the plain pass, then each spec in order, and stops when asked", async () => {
  const m = model(), c = m.config, target = { ids: [42] };
  const specs = sweep.parts(c, { attn: true }).map((p) => ({ parts: [p], mode: "zero" }));
  assert.equal(specs.length, c.n_layer * c.n_head + 2 * c.n_layer);
  const seen = [];
  const got = await sweep.run(m, { ids: IDS, specs, target, onRow: (i, row, done, total) => seen.push([i, done, total]) }).done;
  assert.equal(got.rows.length, specs.length);
  assert.deepEqual(seen[0], [-1, 0, specs.length]);
  const plain = sweep.metric((await m.prefill(IDS, {})).logits, target);
  assert.equal(got.base.value, plain.value);
  const one = await m.prefill(IDS, { knockout: { heads: [[1, 2]], mlp: [] } });
  const row = got.rows.find((r) => r.spec.parts[0][0] === "head" && r.spec.parts[0][1] === 1 && r.spec.parts[0][2] === 2);
  assert.equal(row.metric.value, sweep.metric(one.logits, target).value);
  assert.equal(row.delta, row.metric.value - plain.value);
  const pair = sweep.metric(one.logits, { ids: [42, 7] });
  assert.equal(pair.diff, one.logits[42] - one.logits[7]);
  // mean and patch specs through the sweep's reruns give a fresh prefill's bits
  const hd = c.n_embd / c.n_head, means = { z: [], mlp: [] };
  for (let l = 0; l < c.n_layer; l++) { means.z.push(Array.from({ length: c.n_head }, (_, h) => new Float32Array(hd).fill(0.01 * (h + 1)))); means.mlp.push(new Float32Array(c.n_embd).fill(-0.02 * (l + 1))); }
  const source = await sweep.capture(m, IDS.slice().reverse(), { slot: 3 });
  for (const mode of ["mean", "patch"]) {
    const few = [["head", 1, 1], ["mlp", 0], ["attn", 1], ["head", 0, 3]].map((p) => ({ parts: [p], mode }));
    const run = await sweep.run(m, { ids: IDS, specs: few, target, means, source }).done;
    for (let i = 0; i < few.length; i++) {
      const fresh = await m.prefill(IDS, { knockout: sweep.knockout(few[i], { config: c, means, source }), slot: 2 });
      assert.equal(run.rows[i].metric.value, sweep.metric(fresh.logits, target).value, `${mode} ${JSON.stringify(few[i].parts)}`);
    }
  }
  let stopper = null;
  stopper = sweep.run(m, { ids: IDS, specs, target, onRow: (i) => { if (i === 2) stopper.stop(); } });
  const part = await stopper.done;
  assert.equal(part.stopped, true);
  assert.equal(part.rows.length, 3);
  await assert.rejects(sweep.run(m, { ids: IDS, specs, target: { ids: [500] } }).done, /outside the vocabulary/);
});
