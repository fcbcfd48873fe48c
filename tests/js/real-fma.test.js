// The SIMD kernels with relaxed SIMD's fused multiply-add (real.kernels-wasm's fma, which the
// page runs where the browser validates it): Node 20 runs relaxed SIMD only behind a flag, so each
// check runs in a child node with it. Products equal the de-quantised weights; a 70-token prompt
// read at once gives the bits of reading it token by token; 1 and 2 shares give the same bits.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const { execFileSync } = require("node:child_process");

const ROOT = path.resolve(__dirname, "..", "..");

const CHILD = `
const path = require("node:path");
const ROOT = ${JSON.stringify(ROOT)};
const fma = require(path.join(ROOT, "tests/js/real-scripts.js")).kernelsWasm("fma");
const { engine, randomLlamaData, splitModel } = require(path.join(ROOT, "tests/js/random-llama.js"));
const bits = (o) => Buffer.concat(["logits", "final"].map((k) => Buffer.from(o[k].buffer)).concat(o.heads.map((h) => Buffer.from(h.buffer)), o.lens.map((h) => Buffer.from(h.buffer))));
(async () => {
  const out = { valid: WebAssembly.validate(fma) };
  const { manifest, buffer } = randomLlamaData({ vocab: 101, seed: 3, scale: 0.6, n_ctx: 128, quantised: true });
  const ids = Array.from({ length: 70 }, (_, i) => (i * 37 + 5) % 101);
  const opts = { heads: true, lens: true, final: true, knockout: { heads: [[1, 2]] } };
  const one = splitModel(manifest, buffer, 1, fma).model;
  out.kernels = one.kernels;
  const whole = await one.prefill(ids, opts);
  const m = splitModel(manifest, buffer, 1, fma).model;
  let step = await m.prefill(ids.slice(0, 1), opts);
  for (const id of ids.slice(1)) step = await m.decode(id, opts);
  out.stepBits = bits(whole).equals(bits(step));
  const two = await splitModel(manifest, buffer, 2, fma).model.prefill(ids, opts);
  out.splitBits = bits(whole).equals(bits(two));
  const plain = await splitModel(manifest, buffer, 1, null).model.prefill(ids, opts);
  out.gapToJs = Math.max(...whole.logits.map((v, i) => Math.abs(v - plain.logits[i])));
  console.log(JSON.stringify(out));
})().catch((e) => { console.log(JSON.stringify({ error: e.message })); });
`;

test("the fused multiply-add kernels: a prompt at once equals token by token, 2 shares equal 1, near the JS kernels", () => {
  const got = JSON.parse(execFileSync(process.execPath, ["--experimental-wasm-relaxed-simd", "-e", CHILD], { encoding: "utf8" }).trim().split("\n").pop());
  assert.deepEqual({ valid: got.valid, kernels: got.kernels, stepBits: got.stepBits, splitBits: got.splitBits },
                   { valid: true, kernels: "wasm", stepBits: true, splitBits: true });
  assert.ok(got.gapToJs < 1e-4, `logits ${got.gapToJs} from the JS kernels'`);
});
